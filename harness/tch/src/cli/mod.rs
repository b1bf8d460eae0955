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
/// over the real protocol (`tch run --budget 128 --no-scaling` against `tch serve`): the check
/// that the harness itself is sound, in under a minute. The tests replay every boundary of
/// every case and time the reference's scaling cases (`specs/runner.md` R1.6).
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

/// The main job (`specs/runner.md` R1.6): every case of every dialect over the protocol, each
/// with at most 128 chunkings (every boundary of a stream up to 116 chars; for a longer one
/// the marker edges, its ends and a seeded sample, R1.5); the scaling cases are left to the
/// tests (`harness/tch/tests/scaling.rs` times every dialect's through `tch serve`).
const MAIN_JOB: [&str; 5] = ["tch", "run", "--budget", "128", "--no-scaling"];

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
        // Parsed, not defaulted, so every other option has its documented default.
        None => run(Cli::parse_from(MAIN_JOB)),
    }
}
