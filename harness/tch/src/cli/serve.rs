//! `tch serve`: the reference parsers behind the candidate protocol.

use std::io;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::protocol::server;
use toolcall_harness::wire::Output;

use super::args::dialect_parser;

/// Serve the reference parsers over the candidate protocol (JSON lines on stdin/stdout).
///
/// This is the candidate `tch run` uses when none is given, and the example every adapter
/// author copies: see specs/protocol.md. Try it by hand:
///
///   printf '%s\n' '{"op":"hello","protocol":1}' \
///     '{"op":"begin","stream":"s","dialect":"md-fence"}' \
///     '{"op":"chunk","stream":"s","text":"hi\n```tool x\n```\n"}' \
///     '{"op":"end","stream":"s"}' | tch serve
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ServeArgs {
    /// Announce only these dialects (repeatable; default: all).
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Vec<Dialect>,
    /// Answer with events, or with the OpenAI chat-completion chunks a correct server writes
    /// and its `chat.completion` object for a non-streaming request (specs/protocol.md §5):
    /// the template that passes every wire rule (specs/wire.md).
    #[arg(long, default_value = "events", value_parser = ["events", "openai-chunks"])]
    output: String,
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let dialects = if args.dialect.is_empty() {
        Dialect::ALL.to_vec()
    } else {
        args.dialect
    };
    let answer: Output = args.output.parse().map_err(anyhow::Error::msg)?;
    server::serve_as(io::stdin().lock(), io::stdout().lock(), &dialects, answer)?;
    Ok(ExitCode::SUCCESS)
}
