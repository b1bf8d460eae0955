//! Every dialect is everywhere a dialect must be, by its descriptor's name: its spec
//! (`specs/dialects/NAME.md`), its corpus (`corpus/NAME/`, at least 25 cases), and its row in
//! README's dialect table. The tables in code are derived from the descriptors
//! (`dialect::Descriptor`); this test covers what lives in files.

use std::path::{Path, PathBuf};

use toolcall_harness::dialect::Dialect;

/// The fewest cases a dialect's corpus holds (issue "formats part 3": each format's corpus
/// has at least 25).
const MIN_CASES: usize = 25;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn every_dialect_has_its_spec_corpus_and_readme_row() {
    let root = repo();
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README.md");
    let mut problems = Vec::new();
    for &dialect in Dialect::ALL {
        let name = dialect.name();
        if !root.join(format!("specs/dialects/{name}.md")).is_file() {
            problems.push(format!("{name}: no specs/dialects/{name}.md"));
        }
        let cases = std::fs::read_dir(root.join("corpus").join(name))
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| e.path().extension().is_some_and(|x| x == "stream"))
                    .count()
            })
            .unwrap_or(0);
        if cases < MIN_CASES {
            problems.push(format!(
                "{name}: corpus/{name}/ has {cases} cases, fewer than {MIN_CASES}"
            ));
        }
        // A row names the dialect in its first cell, alone or beside its family (`deepseek-v4`,
        // `deepseek-v4.1`).
        let row = readme.lines().any(|line| {
            line.strip_prefix("| ")
                .and_then(|rest| rest.split(" | ").next())
                .is_some_and(|cell| cell.split(", ").any(|n| n == format!("`{name}`")))
        });
        if !row {
            problems.push(format!("{name}: no row in README.md's dialect table"));
        }
    }
    assert!(problems.is_empty(), "{problems:#?}");
}
