//! What the integration tests of `tch` share: the repository's root, running `tch` there,
//! and reading its output.

#![allow(dead_code)] // each test file uses its own part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository's root: where `tch` runs in the tests, as a user runs it.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// `tch ARGS`, run in the repository's root.
pub fn tch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("tch runs")
}

/// Standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The series of each scaling case in `timings.json` beside a report (`specs/runner.md`
/// R6.6), by case id.
pub fn timings_series(dir: &Path) -> Vec<(String, serde_json::Value)> {
    let text = std::fs::read_to_string(dir.join("timings.json")).expect("timings.json written");
    let timings: serde_json::Value = serde_json::from_str(&text).expect("timings.json is JSON");
    timings["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["scaling"].is_object())
        .map(|c| {
            (
                c["case"].as_str().unwrap_or_default().to_owned(),
                c["scaling"].clone(),
            )
        })
        .collect()
}
