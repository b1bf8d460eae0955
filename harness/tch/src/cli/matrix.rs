//! `tch matrix`: one HTML page comparing candidates' `report.json` files, dialects and cases
//! down, candidates across, with a shields.io badge per candidate (`specs/matrix.md`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use toolcall_harness::report::badge::badges;
use toolcall_harness::report::matrix;
use toolcall_harness::report::read::SavedReport;

/// Write the conformance matrix of several runs: one static HTML page and a badge each.
///
/// Rows are the dialects and their cases, columns the candidates (one per report.json, in the
/// order given). Each cell says how the case ended, severity first, and opens its findings
/// (verdicts, diff, replay command) on a click. Rows alike for every candidate fold into one.
/// The page needs no network and opens from disk. Beside it, badges/NAME.json per candidate
/// in the shields.io endpoint format ("61/88 passed").
///
/// Exit status: 0 when the page is written; 2 when a report cannot be read (nothing is
/// written then).
///
/// Examples:
///   tch matrix reports/*/report.json
///   tch matrix mine/report.json theirs/report.json -o site/index.html --badges site/badges
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct MatrixArgs {
    /// The report.json files, one column each, in this order.
    #[arg(required = true, value_name = "REPORT.json")]
    reports: Vec<PathBuf>,
    /// The page to write (its folder is created); an existing folder gets index.html.
    #[arg(
        long,
        short,
        default_value = "reports/site/index.html",
        value_name = "FILE"
    )]
    output: PathBuf,
    /// Where the badges go (default: badges/ beside the page).
    #[arg(long, value_name = "DIR")]
    badges: Option<PathBuf>,
}

pub fn run(args: MatrixArgs) -> Result<ExitCode> {
    let reports = args
        .reports
        .iter()
        .map(|path| SavedReport::load(path))
        .collect::<Result<Vec<_>, _>>()?;
    // Everything is rendered before anything is written: a bad report writes nothing.
    let page = matrix::render(&reports);
    let badges = badges(&reports);
    let output = if args.output.is_dir() {
        args.output.join("index.html")
    } else {
        args.output
    };
    let folder = output.parent().unwrap_or(Path::new("")).to_path_buf();
    let badge_dir = args.badges.unwrap_or_else(|| folder.join("badges"));
    create_dir(&folder)?;
    fs::write(&output, page).with_context(|| format!("cannot write {}", output.display()))?;
    create_dir(&badge_dir)?;
    for (name, badge) in &badges {
        let path = badge_dir.join(name);
        fs::write(&path, badge.to_json())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!(
        "wrote {} ({} candidates) and {} badges in {}",
        output.display(),
        reports.len(),
        badges.len(),
        badge_dir.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn create_dir(dir: &Path) -> Result<()> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}
