//! `tch diff`: what changed between two runs' `report.json` files, for a pull request's check
//! and comment (`specs/matrix.md` §4).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, ValueEnum};
use toolcall_harness::report::compare::Comparison;
use toolcall_harness::report::read::SavedReport;

/// Compare two runs: cases newly failing, newly passing, still failing but changed, and
/// those in one report only.
///
/// Exit status: 1 when some case is newly failing (failed in NEW, neither failed nor fixed
/// in BASE), so that a pull request's check fails on a regression; 0 otherwise; 2 when a
/// report cannot be read.
///
/// Examples:
///   tch diff main/report.json reports/mine/report.json
///   tch diff --format markdown base.json new.json > comment.md
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DiffArgs {
    /// The run compared against (the base branch's).
    #[arg(value_name = "BASE.json")]
    base: PathBuf,
    /// The run compared (the pull request's).
    #[arg(value_name = "NEW.json")]
    new: PathBuf,
    /// Plain text, or Markdown for a pull request's comment.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// How the changes are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Format {
    /// Plain text.
    Text,
    /// Markdown.
    Markdown,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    let base = SavedReport::load(&args.base)?;
    let new = SavedReport::load(&args.new)?;
    let (base_label, new_label) = (
        args.base.display().to_string(),
        args.new.display().to_string(),
    );
    let comparison = Comparison::of((&base, &base_label), (&new, &new_label));
    print!(
        "{}",
        match args.format {
            Format::Text => comparison.text(),
            Format::Markdown => comparison.markdown(),
        }
    );
    Ok(if comparison.newly_failing() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
