//! Every corpus case through its dialect's reference parser under every splitting the spec
//! names (`specs/corpus.md`): whole, each single cut, one char per chunk, and every pair of
//! cuts for streams of at most 64 chars. Each run must give the expected events and conserve
//! text. A failure names the case, the splitting, the exact chunk vector and a diff. A case's
//! alternative readings (`specs/corpus.md`) must each differ from its expected events.

use std::path::Path;
use std::sync::{Arc, LazyLock};

use toolcall_harness::corpus::Case;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::judge::{check_reference, comparable};
use toolcall_harness::split::{self, chunks_at};

const PAIR_LIMIT: usize = 64;

/// Corpus cases call the tools of `specs/tools/` (`specs/corpus.md`).
static TOOLS: LazyLock<Arc<toolcall_harness::tools::Registry>> =
    LazyLock::new(|| Arc::new(bundled_registry().expect("the bundled tool definitions load")));

fn reference_conforms(path: &Path) -> datatest_stable::Result<()> {
    let case = Case::load(path)?;
    // An alternative reading that gives `tch`'s own events could never be told apart
    // (`specs/runner.md` R3.5): it documents nothing.
    let ours = comparable(&case.expected, &case.stream);
    for alternative in &case.alternatives {
        if comparable(&alternative.expected, &case.stream) == ours {
            return Err(Report(format!(
                "case {}: its alternative {} gives the expected events (compared as for candidates); say `# alt {}: same` instead",
                case.id, alternative.reading, alternative.reading
            ))
            .into());
        }
    }
    for chunking in split::exhaustive(&case.stream, PAIR_LIMIT) {
        if let Err(finding) = check_reference(&case, &chunking, &TOOLS) {
            let chunks = chunks_at(&case.stream, &chunking.cuts);
            return Err(Report(format!(
                "case {} failed: {finding}chunks: {chunks:?}",
                case.id,
            ))
            .into());
        }
    }
    Ok(())
}

/// A failure message that prints as written: the test harness shows errors with `Debug`,
/// which would escape the diff's newlines.
struct Report(String);

impl std::fmt::Debug for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Report {}

datatest_stable::harness! {
    { test = reference_conforms, root = "../../corpus", pattern = r"\.stream$" },
}
