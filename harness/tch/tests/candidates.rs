//! `tch run` against real candidate processes: the reference through `tch serve`, the adapter
//! templates, every buggy example (each caught with its verdicts), and hostile candidates that
//! must never hang or crash `tch`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs `tch run ARGS` with a fresh report folder; returns the output and the verdicts found.
fn tch_run(name: &str, args: &[&str]) -> (Output, BTreeSet<String>) {
    let report_dir = std::env::temp_dir().join(format!("tch-test-{}-{name}", std::process::id()));
    let output = Command::new(env!("CARGO_BIN_EXE_tch"))
        .arg("run")
        .arg("--report-dir")
        .arg(&report_dir)
        .args(args)
        .current_dir(root())
        .output()
        .expect("tch runs");
    let mut verdicts = BTreeSet::new();
    if let Ok(text) = std::fs::read_to_string(report_dir.join("report.json")) {
        let report: serde_json::Value = serde_json::from_str(&text).expect("report.json is JSON");
        for case in report["cases"].as_array().into_iter().flatten() {
            for finding in case["findings"].as_array().into_iter().flatten() {
                verdicts.insert(finding["verdict"].as_str().unwrap_or_default().to_owned());
            }
        }
        for file in ["junit.xml", "summary.md"] {
            assert!(report_dir.join(file).is_file(), "{file} written");
        }
    }
    (output, verdicts)
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Fewer splittings than the default, so the suite stays fast: every kind, thinned.
const QUICK: &[&str] = &["--budget", "40", "--random", "4"];

#[test]
fn the_reference_passes_every_case_over_the_protocol() {
    let mut args = vec!["--jobs", "2"];
    args.extend_from_slice(QUICK);
    let (output, verdicts) = tch_run("serve", &args);
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(verdicts.is_empty(), "{verdicts:?}");
    assert!(
        stdout(&output).contains(" passed, 0 failed, 0 skipped"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn the_adapter_templates_pass_their_dialect() {
    for (name, argv) in [
        ("python", ["python3", "adapters/python/adapter.py"]),
        ("node", ["node", "adapters/node/adapter.js"]),
    ] {
        let mut args = vec!["--dialect", "hermes"];
        args.extend_from_slice(QUICK);
        args.push("--");
        args.extend(argv);
        let (output, verdicts) = tch_run(name, &args);
        assert!(
            output.status.success(),
            "{name}: {verdicts:?}\n{}",
            stdout(&output)
        );
    }
}

#[test]
fn each_buggy_example_is_caught_with_its_verdicts() {
    let examples: [(&str, &str, &[&str]); 6] = [
        (
            "per_chunk_parser",
            "hermes",
            &["chunk-dependent", "leaked-markup", "missing-call"],
        ),
        ("drops_text_after_call", "hermes", &["lost-text"]),
        ("args_not_input", "hermes", &["grammar"]),
        ("no_flush_at_end", "hermes", &["lost-text"]),
        ("crash_on_empty_chunk", "hermes", &["crash"]),
        (
            "seed001_hash_detector",
            "signature",
            &["chunk-dependent", "leaked-markup", "missing-call"],
        ),
    ];
    for (example, dialect, expected) in examples {
        let script = format!("adapters/examples/{example}.py");
        let mut args = vec!["--dialect", dialect, "--max-restarts", "5"];
        args.extend_from_slice(QUICK);
        args.extend(["--", "python3", &script]);
        let (output, verdicts) = tch_run(example, &args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{example} must fail the run\n{}",
            stdout(&output)
        );
        for verdict in expected {
            assert!(
                verdicts.contains(*verdict),
                "{example}: expected {verdict} among {verdicts:?}"
            );
        }
    }
}

#[test]
fn a_hang_is_a_timeout_and_the_run_goes_on() {
    let started = Instant::now();
    let (output, verdicts) = tch_run(
        "hang",
        &[
            "--dialect",
            "hermes",
            "--case",
            "hermes/qwen-*",
            "--case",
            "hermes/short-call",
            "--timeout",
            "0.3",
            "--",
            "python3",
            "adapters/examples/hang_on_split_tag.py",
        ],
    );
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(verdicts, BTreeSet::from(["timeout".to_owned()]));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn hostile_candidates_never_hang_or_crash_tch() {
    // What the candidate is, its argv, tch's exit status, and the verdict it must get (none
    // when the handshake fails, which ends the run with one error line).
    type Hostile<'a> = (&'a str, &'a [&'a str], Option<i32>, Option<&'a str>);
    let hostile: [Hostile; 10] = [
        ("exits at once", &["true"], Some(2), None),
        ("floods garbage", &["yes"], Some(2), None),
        ("sleeps forever", &["sleep", "600"], Some(2), None),
        ("cannot start", &["/no/such/candidate"], Some(2), None),
        (
            "floods events",
            &["python3", "harness/tch/tests/hostile/flood_events.py"],
            Some(1),
            Some("protocol"),
        ),
        (
            "one huge line",
            &["python3", "harness/tch/tests/hostile/huge_line.py"],
            Some(1),
            Some("protocol"),
        ),
        (
            "garbage after hello",
            &["python3", "harness/tch/tests/hostile/garbage_after_hello.py"],
            Some(1),
            Some("protocol"),
        ),
        (
            "exits after hello",
            &["python3", "harness/tch/tests/hostile/exits_after_hello.py"],
            Some(1),
            Some("crash"),
        ),
        (
            "floods lines that carry nothing",
            &["python3", "harness/tch/tests/hostile/text_start_flood.py"],
            Some(1),
            Some("protocol"),
        ),
        (
            "exits leaving a child on its output",
            &["python3", "harness/tch/tests/hostile/exits_leaving_child.py"],
            Some(1),
            Some("crash"),
        ),
    ];
    for (what, argv, code, verdict) in hostile {
        let started = Instant::now();
        let mut args = vec![
            "--dialect",
            "hermes",
            "--case",
            "hermes/short-*",
            "--timeout",
            "0.5",
            "--max-restarts",
            "3",
            "--splits",
            "whole,single",
        ];
        args.push("--");
        args.extend_from_slice(argv);
        let (output, verdicts) = tch_run(&what.replace(' ', "-"), &args);
        assert_eq!(
            output.status.code(),
            code,
            "{what}: {}{}",
            stdout(&output),
            String::from_utf8_lossy(&output.stderr)
        );
        if let Some(verdict) = verdict {
            assert!(verdicts.contains(verdict), "{what}: {verdicts:?}");
        } else {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert_eq!(
                stderr.lines().count(),
                1,
                "{what}: one error line, got {stderr}"
            );
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{what} took {:?}",
            started.elapsed()
        );
    }
}

#[test]
fn a_candidate_that_stops_reading_cannot_block_a_large_write() {
    // 300 KB: far past a pipe's 64 KiB, so a blocking write would hang tch for good.
    let corpus = std::env::temp_dir().join(format!("tch-test-{}-big", std::process::id()));
    let folder = corpus.join("hermes");
    std::fs::create_dir_all(&folder).expect("temp corpus");
    let text = "x".repeat(300_000);
    std::fs::write(folder.join("big.stream"), &text).expect("stream");
    let events = format!("{{\"type\":\"text-delta\",\"delta\":\"{text}\"}}\n");
    std::fs::write(folder.join("big.events.jsonl"), events).expect("events");
    let started = Instant::now();
    let corpus = corpus.to_str().expect("UTF-8 path");
    let args = [
        "--corpus",
        corpus,
        "--splits",
        "whole",
        "--timeout",
        "0.5",
        "--max-restarts",
        "1",
    ];
    let mut args = args.to_vec();
    args.extend(["--", "python3", "harness/tch/tests/hostile/deaf.py"]);
    let (output, verdicts) = tch_run("deaf", &args);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert_eq!(verdicts, BTreeSet::from(["timeout".to_owned()]));
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
}

#[test]
fn a_crash_report_carries_the_exit_status_and_stderr() {
    let (output, _) = tch_run(
        "crash-detail",
        &[
            "--dialect",
            "hermes",
            "--case",
            "hermes/short-call",
            "--",
            "python3",
            "harness/tch/tests/hostile/exits_after_hello.py",
        ],
    );
    let out = stdout(&output);
    assert!(out.contains("exit status: 7"), "{out}");
    assert!(out.contains("out of cheese"), "{out}");
    assert!(
        out.contains("replay: tch run --case hermes/short-call --chunks"),
        "{out}"
    );
}

#[test]
fn expect_fail_is_a_ratchet() {
    let dir = std::env::temp_dir().join(format!("tch-test-{}-ratchet", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let known = dir.join("known.txt");
    let known = known.to_str().expect("UTF-8 path");
    let candidate = ["--", "python3", "adapters/examples/args_not_input.py"];
    let selection = [
        "--dialect",
        "hermes",
        "--case",
        "hermes/short-*",
        "--splits",
        "whole",
    ];

    let mut args: Vec<&str> = selection.to_vec();
    args.extend(["--write-expect-fail", known]);
    args.extend(candidate);
    let (first, _) = tch_run("ratchet-1", &args);
    assert_eq!(first.status.code(), Some(1));

    let mut args: Vec<&str> = selection.to_vec();
    args.extend(["--expect-fail", known]);
    args.extend(candidate);
    let (second, _) = tch_run("ratchet-2", &args);
    assert!(
        second.status.success(),
        "known failures pass the run: {}",
        stdout(&second)
    );

    // The template has no such bug: every listed case is now fixed, which fails the run.
    let mut args: Vec<&str> = selection.to_vec();
    args.extend([
        "--expect-fail",
        known,
        "--",
        "python3",
        "adapters/python/adapter.py",
    ]);
    let (third, _) = tch_run("ratchet-3", &args);
    assert_eq!(third.status.code(), Some(1));
    assert!(stdout(&third).contains("[fixed]"), "{}", stdout(&third));
}
