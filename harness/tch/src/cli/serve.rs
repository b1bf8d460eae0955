//! `tch serve`: the reference parsers behind the candidate protocol.

use std::io;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::protocol::server;

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
#[derive(Debug, Default, Args)]
#[command(verbatim_doc_comment)]
pub struct ServeArgs {
    /// Announce only these dialects (repeatable; default: all).
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Vec<Dialect>,
}

pub fn run(args: ServeArgs) -> Result<ExitCode> {
    let dialects = if args.dialect.is_empty() {
        Dialect::ALL.to_vec()
    } else {
        args.dialect
    };
    server::serve(io::stdin().lock(), io::stdout().lock(), &dialects)?;
    Ok(ExitCode::SUCCESS)
}
