//! `tch corpus`: replay every corpus case through the reference parsers under every splitting
//! of `specs/corpus.md`, and report what fails.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Result;
use clap::Args;
use toolcall_harness::check::check_reference;
use toolcall_harness::corpus;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::split::{self, chunk_vector, chunks_at};

/// Replay the corpus through the reference parsers under every splitting.
///
/// Each case runs whole, cut at every single point, one character per chunk, and (for
/// streams of at most 64 characters) cut at every pair of points. Each run must give the
/// case's expected events and conserve text. Exit status 1 if any case fails.
#[derive(Debug, Default, Args)]
pub struct CorpusArgs {
    /// A corpus folder (`DIR/DIALECT/NAME.stream`); default: the corpus built into `tch`.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
}

pub fn run(args: CorpusArgs) -> Result<ExitCode> {
    let cases = match &args.corpus {
        Some(dir) => corpus::load_dir(dir)?,
        None => corpus::bundled_cases()?,
    };
    let tools = Arc::new(bundled_registry()?);
    let (mut passed, mut failed, mut replays) = (0usize, 0usize, 0usize);
    for case in &cases {
        let mut failure = None;
        for splitting in split::exhaustive(&case.stream, 64) {
            replays += 1;
            let cuts = splitting.cuts(&case.stream);
            if let Err(error) = check_reference(case, &cuts, &tools) {
                failure = Some((splitting, cuts, error));
                break;
            }
        }
        match failure {
            None => passed += 1,
            Some((splitting, cuts, error)) => {
                failed += 1;
                let chunks = chunks_at(&case.stream, &cuts);
                println!(
                    "FAIL {} under {splitting:?}, chunk vector {:?}\n{error}",
                    case.id,
                    chunk_vector(&chunks)
                );
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
