//! `tch report`: work on report folders that exist; `tch report rewrite DIR…` brings a folder
//! written by an earlier `tch` to what this one writes (`specs/runner.md` R6.6), from its
//! files alone.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};
use toolcall_harness::report::rewrite::rewrite;

/// Work on report folders that `tch run` (and `tch fuzz`) wrote.
#[derive(Debug, Args)]
pub struct ReportArgs {
    #[command(subcommand)]
    command: ReportCommand,
}

#[derive(Debug, Subcommand)]
enum ReportCommand {
    Rewrite(RewriteArgs),
}

/// Rewrite report folders of an earlier tch into this tch's form, without running the
/// candidate again.
///
/// A report.json of schema 2 to 6 becomes schema 7: its time figures (the run's and each
/// case's wall time, replays per second, the scaling series) move to timings.json beside it;
/// each distinct output of the candidate is stored once (`outputs`, named by index from each
/// finding) with the call ids it invented renamed #1, #2, …; the form of its replay commands
/// is stored once (`replay`), and each command it gives is left out, as is each stream the
/// built-in corpus gives (a reader puts both back); a superlinear finding's detail
/// and a scaling case's "not judged" note take their run-independent words. junit.xml loses
/// its time attributes, summary.md its times, the bug pages the old ids and figures, and
/// fuzz/*.json its time fields. A scaling case counts as one replay (schema 6 included, whose
/// first form counted each size fed), and the summary's replays are their sum. Nothing a
/// reader uses is lost, and a folder already in this form is left byte for byte as it is. Rewrite the matrix page afterwards with tch matrix.
///
/// Exit status: 0 when every folder was rewritten (or already in form), 2 when one could
/// not be read or written (its error names the file).
///
/// Examples:
///   tch report rewrite reports/tool-parser-1.10.0
///   tch report rewrite reports/*/
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RewriteArgs {
    /// Report folders, each holding a report.json.
    #[arg(value_name = "DIR", required = true)]
    dirs: Vec<PathBuf>,
}

pub fn run(args: ReportArgs) -> Result<ExitCode> {
    match args.command {
        ReportCommand::Rewrite(args) => {
            for dir in &args.dirs {
                let done = rewrite(dir)?;
                println!(
                    "{}: {}",
                    dir.display(),
                    match done.changed.len() {
                        0 => "already in form".to_owned(),
                        n => format!("{n} files rewritten"),
                    }
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
