//! The `tch` subcommands and what they share. Exit codes: 0 success, 1 a check failed, 2 the
//! command could not run (bad arguments, unreadable files).

mod corpus;
mod definitions;
mod parse;
mod prompt;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Conformance test harness and fuzzer for streaming LLM tool-call parsers.
///
/// With no command, `tch` replays the whole bundled corpus through the reference parsers
/// under every splitting (as `tch corpus` does).
#[derive(Debug, Parser)]
#[command(name = "tch", version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    Parse(parse::ParseArgs),
    Corpus(corpus::CorpusArgs),
    Definitions(definitions::DefinitionsArgs),
    Prompt(prompt::PromptArgs),
}

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Some(Command::Parse(args)) => parse::run(args),
        Some(Command::Corpus(args)) => corpus::run(args),
        Some(Command::Definitions(args)) => definitions::run(args),
        Some(Command::Prompt(args)) => prompt::run(args),
        None => corpus::run(corpus::CorpusArgs::default()),
    }
}

/// The bundled corpus: `corpus/` in the working directory when there is one, else the
/// source tree's.
fn default_corpus_dir() -> PathBuf {
    let local = PathBuf::from("corpus");
    if local.is_dir() {
        local
    } else {
        PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus"))
    }
}
