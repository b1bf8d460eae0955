//! `tch corpus`: replay every corpus case through the reference parsers under every splitting
//! of `specs/corpus.md`, and report what fails.

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::judge::check_reference;
use toolcall_harness::split;

use super::args::{SelectionArgs, dialect_parser};

/// Replay the corpus through the reference parsers under every splitting.
///
/// Each case runs whole, cut at every single point, one character per chunk, and (for
/// streams of at most 64 characters) cut at every pair of points. Each run must give the
/// case's expected events, conserve text and release text eagerly. Exit status 1 if any case
/// fails.
#[derive(Debug, Args)]
pub struct CorpusArgs {
    #[command(flatten)]
    selection: SelectionArgs,
    /// Only cases of this dialect (repeatable).
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Vec<Dialect>,
}

pub fn run(args: CorpusArgs) -> Result<ExitCode> {
    let cases = args.selection.selection(&args.dialect).stream_cases()?;
    let tools = Arc::new(bundled_registry()?);
    let (mut passed, mut failed, mut replays) = (0usize, 0usize, 0usize);
    for case in &cases {
        let mut failure = None;
        for chunking in split::exhaustive(&case.stream, 64) {
            replays += 1;
            if let Err(finding) = check_reference(case, &chunking, &tools) {
                failure = Some(finding);
                break;
            }
        }
        match failure {
            None => passed += 1,
            Some(finding) => {
                failed += 1;
                print!("FAIL {} {finding}", case.id);
            }
        }
    }
    println!("{replays} replays of {} cases", cases.len());
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
