//! `tch fuzz`'s tests: it finds nothing in the reference, and it finds the bug of every buggy
//! example within a bounded, seeded budget, shrinks it to a few dozen chars, and writes a case
//! whose replay fails the same way.

mod common;

use std::path::{Path, PathBuf};

use std::process::Output;

use common::{stdout, tch};

#[test]
fn tch_fuzz_finds_nothing_in_the_reference() {
    for dialect in ["md-fence", "tag", "signature", "hermes"] {
        let out = std::env::temp_dir().join(format!("tch-fuzz-serve-{}", std::process::id()));
        let output = tch(&[
            "fuzz",
            "--dialect",
            dialect,
            "--streams",
            "150",
            // A count of streams, not the wall clock, ends the campaign: the default
            // 60 s cap ran out first on a loaded machine.
            "--seconds",
            "3600",
            "--out",
            &out.display().to_string(),
        ]);
        assert!(output.status.success(), "{dialect}: {}", stdout(&output));
        assert!(
            stdout(&output).contains("150 streams") && stdout(&output).contains("0 failures"),
            "{}",
            stdout(&output)
        );
    }
}

/// A failure `tch fuzz` reported in fuzz.json: the verdict hunted, every verdict its shrunk
/// replay showed, and the case it wrote.
struct Found {
    target: String,
    verdicts: Vec<String>,
    case: PathBuf,
}

/// Fuzzes one example with a fixed seed and budget; returns the failures (from fuzz.json) and
/// the output.
fn fuzz_example(example: &str, dialect: &str, max_failures: usize) -> (Vec<Found>, String) {
    let out = std::env::temp_dir().join(format!("tch-fuzz-{}-{example}", std::process::id()));
    let script = format!("adapters/examples/{example}.py");
    let output = tch(&[
        "fuzz",
        "--dialect",
        dialect,
        "--streams",
        "100",
        // A count of streams, not the wall clock, ends the campaign: the default
        // 60 s cap ran out first on a loaded machine.
        "--seconds",
        "3600",
        "--seed",
        "1",
        "--max-failures",
        &max_failures.to_string(),
        "--timeout",
        "0.5",
        "--out",
        &out.display().to_string(),
        "--",
        "python3",
        &script,
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{example}: {text}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fuzz.json")).expect("fuzz.json is written"),
    )
    .expect("fuzz.json is JSON");
    let strings = |value: &serde_json::Value| -> Vec<String> {
        value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect()
    };
    let found = report["failures"]
        .as_array()
        .expect("a failures array")
        .iter()
        .inspect(|failure| {
            // R4.3: the severity leads the printed failure, as in fuzz.json.
            let severity = failure["severity"].as_str().expect("a severity");
            let target = failure["target"].as_str().unwrap_or_default();
            assert!(
                ["critical", "high", "medium", "low"].contains(&severity)
                    && text.contains(&format!(" {severity} {target} (stream ")),
                "{example}: {severity} {target} in {text}"
            );
        })
        .map(|failure| Found {
            target: failure["target"].as_str().unwrap_or_default().to_owned(),
            verdicts: strings(&failure["verdicts"]),
            case: PathBuf::from(failure["path"].as_str().expect("a path")),
        })
        .collect::<Vec<Found>>();
    // The last line says why it stopped (specs/fuzzing.md Z4.7).
    let last = text.lines().last().unwrap_or_default();
    let why = if report["stats"]["failures"] == max_failures {
        format!("(--max-failures {max_failures});")
    } else {
        "(--streams 100);".to_owned()
    };
    assert!(
        last.starts_with("fuzzed ") && last.contains("; stopped: ") && last.contains(&why),
        "{example}: {why} in {last}"
    );
    (found, text)
}

/// Replays a written case with `tch run --chunks` as its comments say; returns the output.
fn replay(case: &Path, dialect: &str, example: &str) -> Output {
    let events = std::fs::read_to_string(case.with_extension("events.jsonl"))
        .expect("the events file is written");
    let chunks = events
        .lines()
        .find_map(|line| line.strip_prefix("# chunk vector: "))
        .expect("a chunk vector comment");
    let corpus_dir = case
        .parent()
        .and_then(Path::parent)
        .expect("DIR/DIALECT/NAME");
    let id = format!(
        "{dialect}/{}",
        case.file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
    );
    let mut args = vec![
        "run".to_owned(),
        "--corpus".to_owned(),
        corpus_dir.display().to_string(),
        "--case".to_owned(),
        id,
        "--timeout".to_owned(),
        "0.5".to_owned(),
        "--report-dir".to_owned(),
        corpus_dir.join("report").display().to_string(),
    ];
    args.extend(["--chunks".to_owned(), chunks.to_owned()]);
    args.extend([
        "--".to_owned(),
        "python3".to_owned(),
        format!("adapters/examples/{example}.py"),
    ]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    tch(&args)
}

#[test]
fn tch_fuzz_finds_and_shrinks_every_buggy_example() {
    // (example, dialect, the verdict of its planted bug, failures to look for). A planted bug
    // often shows first as another true verdict (the line-buffering `no_flush_at_end` also
    // moves text after errors: `order`), so up to three are looked for; a crash or a hang
    // is found first, and each replay of it costs a restart or a timeout.
    let examples = [
        ("per_chunk_parser", "hermes", "chunk-dependent", 3),
        ("drops_text_after_call", "hermes", "lost-text", 3),
        ("args_not_input", "hermes", "grammar", 3),
        ("no_flush_at_end", "hermes", "lost-text", 3),
        ("crash_on_empty_chunk", "hermes", "crash", 1),
        ("hang_on_split_tag", "hermes", "timeout", 1),
        ("seed001_hash_detector", "signature", "chunk-dependent", 3),
        // An OpenAI-chunks candidate: its wire is judged too (specs/wire.md W7.1).
        ("wire_usage_first", "hermes", "wire", 1),
    ];
    for (example, dialect, planted, max_failures) in examples {
        let (found, text) = fuzz_example(example, dialect, max_failures);
        assert!(
            found.iter().any(|f| f.target == planted),
            "{example}: {planted} not found\n{text}"
        );
        for Found {
            target,
            verdicts,
            case,
        } in &found
        {
            assert!(
                verdicts.contains(target),
                "{example}: {target} in {verdicts:?}"
            );
            let verdict = target;
            let stream = std::fs::read_to_string(case).expect("the stream file is written");
            // A few dozen chars: the longest, a minimal valid signature call, is 50 chars and
            // the tool's name, 73 for the longest bundled one (`add_random_item_to_shop`).
            let limit = if verdict == planted { 40 } else { 73 };
            assert!(
                stream.chars().count() <= limit,
                "{example}: {verdict} shrunk to {} chars: {stream:?}",
                stream.chars().count()
            );
            // The written case replays: the candidate fails it the same way.
            let output = replay(case, dialect, example);
            assert_eq!(
                output.status.code(),
                Some(1),
                "{example}: {}",
                stdout(&output)
            );
            assert!(
                stdout(&output).contains(verdict.as_str()),
                "{example}: the replay lacks {verdict}: {}",
                stdout(&output)
            );
        }
    }
}

#[test]
fn known_failures_do_not_fail_a_campaign() {
    // The judge issue, item 8: `tch fuzz --expect-fail`, and fuzz.json for machines.
    let out = std::env::temp_dir().join(format!("tch-fuzz-known-{}", std::process::id()));
    std::fs::create_dir_all(&out).expect("temp dir");
    let known = out.join("known.txt");
    std::fs::write(&known, "hermes/fuzz-* grammar  # args instead of input\n").expect("written");
    let output = tch(&[
        "fuzz",
        "--dialect",
        "hermes",
        // Enough streams that one holds a call whatever the corpus the fresh streams are drawn
        // beside: 60 found none once the corpus grew.
        "--streams",
        "200",
        // A count of streams, not the wall clock, ends the campaign: the default
        // 60 s cap ran out first on a loaded machine.
        "--seconds",
        "3600",
        "--seed",
        "1",
        "--expect-fail",
        &known.display().to_string(),
        "--out",
        &out.display().to_string(),
        "--",
        "python3",
        "adapters/examples/args_not_input.py",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(0), "{text}");
    assert!(text.contains("KNOWN medium grammar"), "{text}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fuzz.json")).expect("fuzz.json is written"),
    )
    .expect("fuzz.json is JSON");
    assert_eq!(report["stats"]["failures"], 0, "{report}");
    assert_eq!(report["failures"][0]["known"], true, "{report}");
    assert_eq!(report["failures"][0]["layer"], "conformance", "{report}");
}

#[test]
fn the_summary_times_replays_by_stream_size() {
    // specs/fuzzing.md Z4.9: one line per size bucket before the last line, and the same
    // buckets in fuzz.json; the reference never faults, so every replay is timed.
    let out = std::env::temp_dir().join(format!("tch-fuzz-sizes-{}", std::process::id()));
    let output = tch(&[
        "fuzz",
        "--dialect",
        "hermes",
        "--streams",
        "40",
        // A count of streams, not the wall clock, ends the campaign: the default
        // 60 s cap ran out first on a loaded machine.
        "--seconds",
        "3600",
        "--seed",
        "3",
        "--out",
        &out.display().to_string(),
    ]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    let table = lines
        .iter()
        .position(|line| line.starts_with("time per replay by stream size"))
        .unwrap_or_else(|| panic!("no size table: {text}"));
    let labels = ["< 64 B", "64–255 B", "256–1023 B", "1–4 KiB", "≥ 4 KiB"];
    for (line, label) in lines[table + 1..].iter().zip(labels) {
        assert!(
            line.trim_start().starts_with(&format!("{label}:")) && line.contains(" replays, "),
            "{label}: {line}"
        );
    }
    assert!(
        lines[table + 1 + labels.len()].starts_with("fuzzed hermes"),
        "{text}"
    );
    assert!(
        text.contains("; stopped: 40 streams generated (--streams 40); report in "),
        "{text}"
    );
    assert!(
        text.contains(" ms each, ") && text.contains(" µs/KiB"),
        "{text}"
    );
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fuzz.json")).expect("fuzz.json is written"),
    )
    .expect("fuzz.json is JSON");
    let stats = &report["stats"];
    assert_eq!(stats["stoppedBy"], "streams", "{stats}");
    let buckets = stats["bySize"].as_array().expect("stats.bySize");
    let found: Vec<&str> = buckets.iter().filter_map(|b| b["label"].as_str()).collect();
    assert_eq!(found, labels, "{stats}");
    assert_eq!(buckets[0]["minBytes"], 0, "{stats}");
    assert_eq!(buckets[4]["belowBytes"], serde_json::Value::Null, "{stats}");
    let timed: u64 = buckets.iter().filter_map(|b| b["replays"].as_u64()).sum();
    assert_eq!(Some(timed), stats["replays"].as_u64(), "{stats}");
    // The times are in timings.json, beside it (Z4.6): fuzz.json holds no time.
    let timings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("timings.json")).expect("timings.json is written"),
    )
    .expect("timings.json is JSON");
    let timed = timings["bySize"].as_array().expect("timings.bySize");
    assert_eq!(timed.len(), labels.len(), "{timings}");
    for bucket in timed.iter().filter(|b| b["replays"].as_u64() > Some(0)) {
        assert!(bucket["meanMicros"].as_f64() > Some(0.0), "{bucket}");
        assert!(bucket["microsPerKiB"].as_f64() > Some(0.0), "{bucket}");
    }
    for bucket in buckets {
        assert!(bucket.get("meanMicros").is_none(), "{bucket}");
    }
}

#[test]
fn the_last_line_says_the_time_budget_stopped_it() {
    // A new user could not tell a campaign that ran out of time from one that stopped at
    // --max-failures or --streams (specs/fuzzing.md Z4.7).
    let out = std::env::temp_dir().join(format!("tch-fuzz-seconds-{}", std::process::id()));
    let output = tch(&[
        "fuzz",
        "--dialect",
        "hermes",
        "--seconds",
        "0",
        "--out",
        &out.display().to_string(),
    ]);
    let text = stdout(&output);
    assert!(output.status.success(), "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.contains("0 streams") && last.contains("; stopped: time budget used (--seconds 0);"),
        "{last}"
    );
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fuzz.json")).expect("fuzz.json is written"),
    )
    .expect("fuzz.json is JSON");
    assert_eq!(report["stats"]["stoppedBy"], "seconds", "{report}");
}

#[test]
fn tch_fuzz_compares_the_non_streaming_result_of_a_candidate_that_declares_it() {
    // Z4.10: values typed only when whole. Streams grown from one corpus case with a number
    // argument, so that a few dozen streams carry one.
    let dir = std::env::temp_dir().join(format!("tch-fuzz-whole-{}", std::process::id()));
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(corpus.join("hermes")).expect("a corpus folder");
    std::fs::write(
        corpus.join("hermes/typed.stream"),
        r#"<tool_call>{"name": "f", "arguments": {"n": 2}}</tool_call>"#,
    )
    .expect("written");
    std::fs::write(
        corpus.join("hermes/typed.events.jsonl"),
        r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"n":2}}"#,
    )
    .expect("written");
    let out = dir.join("out");
    let output = tch(&[
        "fuzz",
        "--dialect",
        "hermes",
        "--corpus",
        &corpus.display().to_string(),
        "--streams",
        "200",
        // A count of streams, not the wall clock, ends the campaign: the default
        // 60 s cap ran out first on a loaded machine.
        "--seconds",
        "3600",
        "--seed",
        "1",
        "--max-failures",
        "2",
        "--timeout",
        "0.5",
        "--out",
        &out.display().to_string(),
        "--",
        "python3",
        "adapters/examples/strings_when_streamed.py",
    ]);
    let text = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{text}");
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("fuzz.json")).expect("fuzz.json is written"),
    )
    .expect("fuzz.json is JSON");
    let failure = report["failures"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|f| f["target"] == "non-streaming-differs")
        .unwrap_or_else(|| panic!("non-streaming-differs found: {text}"));
    assert_eq!(
        failure["verdicts"],
        serde_json::json!(["non-streaming-differs", "wrong-call"])
    );
    assert_eq!(failure["layer"], "streaming");
    assert_eq!(failure["foundUnder"], "non-streaming");
    let case = PathBuf::from(failure["path"].as_str().expect("a path"));
    let stream = std::fs::read_to_string(&case).expect("the stream file is written");
    // Shrunk to one call with its number: `<tool_call>{"name":"","arguments":{"":2}}</tool_call>`.
    assert!(stream.chars().count() <= 60, "{stream:?}");
    // The written case replays: the whole stream, its one chunk and the non-streaming request.
    let replayed = replay(&case, "hermes", "strings_when_streamed");
    assert_eq!(replayed.status.code(), Some(1), "{}", stdout(&replayed));
    assert!(
        stdout(&replayed).contains("non-streaming-differs"),
        "{}",
        stdout(&replayed)
    );
}
