//! The `tch` subcommands and what they share. Exit codes: 0 success, 1 a check failed, 2 the
//! command could not run (bad arguments, unreadable files).

mod args;
mod corpus;
mod definitions;
mod diff;
mod fuzz;
mod matrix;
mod parse;
mod prompt;
mod report;
mod run;
mod scale;
mod serve;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, Subcommand};

/// Conformance test harness and fuzzer for streaming LLM tool-call parsers.
///
/// With no command, `tch` runs the whole bundled corpus against its own reference parsers
/// over the real protocol (`tch run` against `tch serve`): the check that the harness itself
/// is sound.
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
    Run(Box<run::RunArgs>),
    Fuzz(Box<fuzz::FuzzArgs>),
    Scale(Box<scale::ScaleArgs>),
    Serve(serve::ServeArgs),
    Matrix(matrix::MatrixArgs),
    Diff(diff::DiffArgs),
    Report(report::ReportArgs),
}

pub fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Some(Command::Parse(args)) => parse::run(args),
        Some(Command::Corpus(args)) => corpus::run(args),
        Some(Command::Definitions(args)) => definitions::run(args),
        Some(Command::Prompt(args)) => prompt::run(args),
        Some(Command::Run(args)) => run::run(*args),
        Some(Command::Fuzz(args)) => fuzz::run(*args),
        Some(Command::Scale(args)) => scale::run(*args),
        Some(Command::Serve(args)) => serve::run(args),
        Some(Command::Matrix(args)) => matrix::run(args),
        Some(Command::Diff(args)) => diff::run(args),
        Some(Command::Report(args)) => report::run(args),
        // Parsed, not defaulted, so every option has its documented default.
        None => run(Cli::parse_from(["tch", "run"])),
    }
}
