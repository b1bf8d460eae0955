//! `tch corpus`: replay every corpus case through the reference parsers under every splitting
//! of `specs/corpus.md`, and report what fails.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use toolcall_harness::check::check_reference;
use toolcall_harness::corpus::{self, Case};
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::split::{self, chunk_vector, chunks_at};

/// Replay the corpus through the reference parsers under every splitting.
///
/// Each case runs whole, cut at every single point, one character per chunk, and (for
/// streams of at most 64 characters) cut at every pair of points. Each run must give the
/// case's expected events and conserve text. Exit status 1 if any case fails.
#[derive(Debug, Default, Args)]
pub struct CorpusArgs {
    /// The corpus folder (default: the bundled `corpus/`).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
}

pub fn run(args: CorpusArgs) -> Result<ExitCode> {
    let root = args.corpus.unwrap_or_else(super::default_corpus_dir);
    let paths = stream_files(&root)?;
    let tools = Arc::new(bundled_registry()?);
    let (mut passed, mut failed, mut replays) = (0usize, 0usize, 0usize);
    for path in &paths {
        let case = Case::load(path)?;
        let mut failure = None;
        for splitting in split::exhaustive(&case.stream, 64) {
            replays += 1;
            let cuts = splitting.cuts(&case.stream);
            if let Err(error) = check_reference(&case, &cuts, &tools) {
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
    println!("{replays} replays of {} cases", paths.len());
    println!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Every `DIALECT/NAME.stream` under `root`, sorted.
fn stream_files(root: &Path) -> Result<Vec<PathBuf>> {
    let mut paths = Vec::new();
    let dialects = std::fs::read_dir(root)
        .with_context(|| format!("cannot read corpus folder {}", root.display()))?;
    for dialect in dialects {
        let dialect = dialect?.path();
        if !dialect.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&dialect)? {
            let path = entry?.path();
            if path
                .extension()
                .is_some_and(|e| e == corpus::STREAM_EXTENSION)
            {
                paths.push(path);
            }
        }
    }
    paths.sort();
    Ok(paths)
}
