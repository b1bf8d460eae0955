//! The corpus through `tool-parser` 1.10.0 in this process (`toolcall_harness::in_process::Check`),
//! held to the known failures of the committed protocol run,
//! `reports/tool-parser-1.10.0/expect-fail.txt` (written by `reports/regenerate` from `tch run`
//! against the protocol binary): both paths drive the parsers through one `Session`, so they must
//! fail the same cases with the same verdicts. The scaling cases are left out (`Check` runs no
//! timing; the protocol file's `*/scaling/*` lines are dropped from the copy it reads), and so
//! is the verdict only the protocol run gives (`wire`: the chunks are read here, not judged).
//! The non-streaming request goes through the gateway's non-streaming path in both.
//!
//! ```sh
//! cargo test --release --manifest-path adapters/rust-tool-parser-in-process/Cargo.toml
//! TCH_CASE='hermes/*' cargo test --release …              # some cases
//! TCH_CASE=step3/single-call TCH_CHUNKS=8,39,3 cargo test …  # one finding's replay line
//! TCH_CORPUS=fuzz/findings TCH_CASE='*' cargo test …       # the cases the fuzzer wrote
//! TCH_REPORT_DIR=/tmp/rtp cargo test …                     # report.json, summary.md, bugs/
//! ```

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use tch_tool_parser_in_process::{NAME, ToolParser};
use toolcall_harness::in_process::Check;
use toolcall_harness::judge::{CaseReport, Status};
use toolcall_harness::split::SplitOptions;
use toolcall_harness::triage::Budget;
use toolcall_harness::wire::Output;

/// The committed protocol run's known failures.
fn protocol_expect_fail() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../reports/tool-parser-1.10.0/expect-fail.txt")
}

/// Verdicts only the protocol run can give: the wire rules (this candidate's chunks are read,
/// not judged, in process).
const PROTOCOL_ONLY: [&str; 1] = ["wire"];

/// Whether a `CASE VERDICT` entry has a verdict of [`PROTOCOL_ONLY`].
fn protocol_only(entry: &str) -> bool {
    PROTOCOL_ONLY
        .iter()
        .any(|verdict| entry.ends_with(&format!(" {verdict}")))
}

/// The cases the committed protocol run failed on the wire alone: every other finding of theirs
/// only diverges (a documented reading, `specs/runner.md` R3.5). The expect-fail file lists
/// a failing case's every verdict, its divergences' too; in process, where the wire is not
/// judged, such a case diverges and fails nothing.
fn failing_on_the_wire_alone() -> BTreeSet<String> {
    let path = protocol_expect_fail().with_file_name("report.json");
    let text = std::fs::read_to_string(&path).expect("the committed report");
    let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
    report["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|case| {
            let bugs: Vec<_> = case["findings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|finding| finding["class"] == "bug")
                .collect();
            !bugs.is_empty() && bugs.iter().all(|finding| finding["layer"] == "wire")
        })
        .filter_map(|case| case["case"].as_str().map(str::to_owned))
        .collect()
}

/// `CASE VERDICT` per listed failure, scaling cases, the protocol-only verdicts and the cases
/// that failed on the wire alone left out.
fn listed(text: &str) -> BTreeSet<String> {
    let wire_alone = failing_on_the_wire_alone();
    text.lines()
        .map(|line| line.split('#').next().unwrap_or_default().trim())
        .filter(|entry| !entry.is_empty() && !entry.contains("/scaling/"))
        .filter(|entry| !protocol_only(entry))
        .filter(|entry| !wire_alone.contains(entry.split_whitespace().next().unwrap_or_default()))
        .map(|entry| entry.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// `CASE VERDICT` per failure of this run.
fn failing(cases: &[CaseReport]) -> BTreeSet<String> {
    cases
        .iter()
        .filter(|case| matches!(case.status, Status::Failed | Status::KnownFailure))
        .flat_map(|case| {
            case.verdicts()
                .into_iter()
                .map(move |verdict| format!("{} {verdict}", case.case))
        })
        .collect()
}

#[test]
fn the_corpus_fails_as_over_the_protocol() {
    let protocol = std::fs::read_to_string(protocol_expect_fail()).expect("the committed file");
    // The copy `Check` reads (and `TCH_WRITE_EXPECT_FAIL=1` would rewrite): never the
    // committed file, which keeps the scaling cases.
    let known = Path::new(env!("CARGO_TARGET_TMPDIR")).join("tool-parser-expect-fail.txt");
    let kept: String = protocol
        .lines()
        .filter(|line| !line.contains("/scaling/"))
        .filter(|line| !protocol_only(line.split('#').next().unwrap_or_default().trim()))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(&known, kept).expect("the copy writes");
    let mut check = Check::new(NAME, &ToolParser::dialects(), ToolParser::new)
        // The candidate's events are the client's reading of the gateway's chunks, as over the
        // protocol (`"output":"openai-chunks"`): errors are judged on neither side (P5.6).
        .output(Output::OpenaiChunks)
        .expect_fail(&known)
        // `reports/regenerate`'s `--seed 1`: the same random cuts as the committed run.
        .splits(SplitOptions {
            seed: 1,
            ..SplitOptions::default()
        })
        // Root causes are `tch run`'s pages, not what this test compares: unshrunk by
        // default, as `reports/regenerate --check` does; TCH_TRIAGE_SECONDS to shrink them.
        .triage(Budget::Time(Duration::from_secs(
            std::env::var("TCH_TRIAGE_SECONDS")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
        )));
    if let Some(dir) = std::env::var_os("TCH_REPORT_DIR") {
        check = check.report_dir(dir);
    }
    let checked = check
        .run()
        .expect("the corpus and the expect-fail file read");
    let selected = ["TCH_CASE", "TCH_CHUNKS", "TCH_CORPUS"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if !selected {
        // Verdict for verdict, not only "every failure is listed": a case that fails here with
        // fewer verdicts than over the protocol is a difference too.
        let expected = listed(&protocol);
        let actual = failing(&checked.report.cases);
        let only_protocol: Vec<_> = expected.difference(&actual).collect();
        let only_here: Vec<_> = actual.difference(&expected).collect();
        assert!(
            only_protocol.is_empty() && only_here.is_empty(),
            "{}\nfailing over the protocol only: {only_protocol:#?}\nfailing in process only: {only_here:#?}",
            checked.render()
        );
    }
    checked.assert_passed();
}
