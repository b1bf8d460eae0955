//! In-process candidates (`toolcall_harness::in_process`): the reference passes the bundled
//! corpus through the same path a parser crate's `cargo test` takes, and planted bugs (a
//! panic, dropped text) come out as `tch run` names them, grouped into root causes.

use std::sync::Arc;

use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::event::Event;
use toolcall_harness::fuzz::{Differential, FuzzInput};
use toolcall_harness::in_process::{Candidate, Check, Reference};
use toolcall_harness::judge::{Status, Verdict};
use toolcall_harness::protocol::Begin;
use toolcall_harness::split::SplitOptions;
use toolcall_harness::triage::Budget;
use toolcall_harness::wire::Output;

fn tools() -> Arc<toolcall_harness::tools::Registry> {
    Arc::new(bundled_registry().expect("the bundled tools read"))
}

#[test]
fn the_reference_passes_every_bundled_case_in_process() {
    let tools = tools();
    // Fewer chunkings than `tch run`'s thousand a case: `tests/corpus.rs` replays every
    // boundary already; this pins that the in-process path judges as the protocol's does.
    let splits = SplitOptions {
        budget: 60,
        random: 2,
        ..SplitOptions::default()
    };
    let checked = Check::new("reference", Dialect::ALL, || {
        Reference::new(Arc::clone(&tools))
    })
    .tools(Arc::clone(&tools))
    .splits(splits)
    .run()
    .expect("the check runs");
    let summary = &checked.report.summary;
    assert!(summary.stream_cases_judged > 1000, "{}", checked.render());
    assert!(
        summary.replays > 20 * summary.stream_cases_judged,
        "{}",
        checked.render()
    );
    checked.assert_passed();
}

/// The reference, but it panics on a chunk that ends inside a marker: `<` last.
struct PanicsOnACutMarker(Reference);

impl Candidate for PanicsOnACutMarker {
    fn begin(&mut self, begin: &Begin) {
        self.0.begin(begin);
    }
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        assert!(!chunk.ends_with('<'), "a chunk ends in a marker");
        self.0.push(chunk, events);
    }
    fn end(&mut self, events: &mut Vec<Event>) {
        self.0.end(events);
    }
}

#[test]
fn a_panic_is_a_crash_and_the_candidate_is_made_again() {
    let tools = tools();
    let checked = Check::new("panics", &[Dialect::Hermes], || {
        PanicsOnACutMarker(Reference::new(Arc::clone(&tools)))
    })
    .case("hermes/two-calls-text-between")
    .triage(Budget::Replays(200))
    .run()
    .expect("the check runs");
    assert!(!checked.passed());
    let case = &checked.report.cases[0];
    assert_eq!(case.status, Status::Failed, "{}", checked.render());
    let crash = &case.findings[0];
    assert!(crash.has(Verdict::Crash), "{crash:?}");
    assert!(
        crash.detail.contains("a chunk ends in a marker"),
        "{}",
        crash.detail
    );
    assert!(
        crash
            .replay
            .starts_with("TCH_CASE=hermes/two-calls-text-between TCH_CHUNKS=")
    );
    // The whole stream came first, and passed; the case's replays stop at a fault, as a
    // process's do.
    assert_eq!(case.replays, 2);
    let root = &checked.report.root_causes[0];
    assert_eq!(root.verdicts[0], Verdict::Crash);
    assert!(
        checked.render().contains("RC1 high, synthetic only"),
        "{}",
        checked.render()
    );
}

/// Text only: every byte a text delta, no call ever read.
struct TextOnly;

impl Candidate for TextOnly {
    fn begin(&mut self, _begin: &Begin) {}
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        if !chunk.is_empty() {
            events.push(Event::TextDelta {
                delta: chunk.to_owned(),
            });
        }
    }
    fn end(&mut self, _events: &mut Vec<Event>) {}
}

#[test]
fn failures_are_grouped_and_an_expect_fail_file_ratchets_them() {
    let dir = std::env::temp_dir().join(format!("tch-in-process-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let check = || {
        Check::new("text-only", &[Dialect::Hermes], || TextOnly)
            .case("hermes/two-calls-*")
            .case("hermes/opener-*-is-text")
            .triage(Budget::Replays(0))
            .report_dir(dir.join("report"))
    };
    let first = check().run().expect("the check runs");
    assert!(!first.passed());
    assert!(first.report.summary.passed >= 1, "{}", first.render());
    assert!(!first.report.root_causes.is_empty());
    for file in ["report.json", "junit.xml", "summary.md", "bugs/README.md"] {
        assert!(dir.join("report").join(file).is_file(), "{file}");
    }
    let failing: Vec<&str> = first
        .report
        .cases
        .iter()
        .filter(|c| c.status == Status::Failed)
        .map(|c| c.case.as_str())
        .collect();
    let known = failing
        .iter()
        .map(|id| format!("{id}  # reads no call\n"))
        .collect::<String>();
    std::fs::write(dir.join("expect-fail.txt"), known).unwrap();
    let second = check()
        .expect_fail(dir.join("expect-fail.txt"))
        .run()
        .expect("the check runs");
    assert!(second.passed(), "{}", second.render());
    let missing = check().expect_fail(dir.join("absent.txt")).run();
    let error = missing.expect_err("a missing expect-fail file is an error");
    assert!(
        error.to_string().contains("TCH_WRITE_EXPECT_FAIL=1"),
        "{error}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reference, but it panics on a chunk that holds `PANIC`.
struct PanicsOnAWord(Reference);

impl Candidate for PanicsOnAWord {
    fn begin(&mut self, begin: &Begin) {
        self.0.begin(begin);
    }
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        assert!(!chunk.contains("PANIC"), "the word");
        self.0.push(chunk, events);
    }
    fn end(&mut self, events: &mut Vec<Event>) {
        self.0.end(events);
    }
}

/// The bytes of a fuzz input: `stream` of `dialect`, no prefill, cut at `cuts`.
fn fuzz_bytes(dialect: Dialect, stream: &str, cuts: &[usize]) -> Vec<u8> {
    FuzzInput {
        dialect,
        prefill: "",
        stream: stream.to_owned(),
        cuts: cuts.to_vec(),
    }
    .encode()
}

#[test]
fn the_differential_fuzzer_writes_each_new_finding_once_and_goes_on() {
    let dir = std::env::temp_dir().join(format!("tch-differential-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let make = || Differential::new("text-only", &[Dialect::Hermes], || TextOnly, &dir);
    let mut fuzzer = make().expect("the fuzzer starts").shrink_tries(300);
    let call = "Sure. <tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call> ok";
    let written = fuzzer
        .run(&fuzz_bytes(Dialect::Hermes, call, &[]))
        .expect("it writes");
    assert_eq!(written.len(), 1, "{written:?}");
    let first = &written[0];
    assert!(first.key.starts_with("hermes "), "{}", first.key);
    assert!(
        first.finding.has(Verdict::MissingCall),
        "{:?}",
        first.finding
    );
    assert!(first.case.starts_with("hermes/fuzz-"), "{}", first.case);
    // Shrunk: a text-only parser misses any call, so little of the stream is needed.
    assert!(first.stream.len() < call.len(), "{:?}", first.stream);
    let written_case = std::fs::read_to_string(first.path.with_extension("events.jsonl"))
        .expect("the expected events are written");
    assert!(
        written_case.contains("# replay: TCH_CORPUS="),
        "{written_case}"
    );
    assert!(
        written_case.contains("\"type\":\"tool-call\""),
        "{written_case}"
    );
    // The same kind again is not written again; a dialect the candidate does not parse and
    // a passing stream give nothing.
    let again = call.replace("Paris", "Lyon");
    assert!(
        fuzzer
            .run(&fuzz_bytes(Dialect::Hermes, &again, &[]))
            .unwrap()
            .is_empty()
    );
    assert!(
        fuzzer
            .run(&fuzz_bytes(Dialect::Harmony, call, &[]))
            .unwrap()
            .is_empty()
    );
    assert!(
        fuzzer
            .run(&fuzz_bytes(Dialect::Hermes, "plain", &[2]))
            .unwrap()
            .is_empty()
    );
    let stats = fuzzer.stats();
    assert_eq!((stats.inputs, stats.judged, stats.written), (4, 3, 1));
    // A fuzzer started again over the same folder knows the keys written.
    let mut restarted = make().expect("the fuzzer starts");
    assert!(
        restarted
            .run(&fuzz_bytes(Dialect::Hermes, call, &[]))
            .unwrap()
            .is_empty()
    );
    let index = std::fs::read_to_string(dir.join(toolcall_harness::fuzz::differential::INDEX))
        .expect("the index is written");
    assert_eq!(index.lines().count(), 1, "{index}");

    // A panic is a crash finding, written, and the fuzzer goes on with a new candidate.
    let tools = tools();
    let mut panicky = Differential::new(
        "panics",
        &[Dialect::Hermes],
        move || PanicsOnAWord(Reference::new(Arc::clone(&tools))),
        dir.join("panics"),
    )
    .expect("the fuzzer starts")
    .shrink_tries(300);
    let written = panicky
        .run(&fuzz_bytes(Dialect::Hermes, "Say PANIC now", &[4]))
        .expect("it writes");
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0].finding.has(Verdict::Crash),
        "{:?}",
        written[0].finding
    );
    assert_eq!(written[0].stream, "PANIC", "shrunk to the word");
    assert!(
        panicky
            .run(&fuzz_bytes(Dialect::Hermes, "calm", &[2]))
            .unwrap()
            .is_empty()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The reference, but, as SGLang's and llama.cpp's parsers do, it drops the calls of tools
/// its `begin` did not declare.
struct DeclaredOnly {
    reference: Reference,
    declared: Vec<String>,
}

impl DeclaredOnly {
    fn keep(&self, events: Vec<Event>, out: &mut Vec<Event>) {
        let mut dropped: Vec<String> = Vec::new();
        for event in events {
            match &event {
                Event::ToolInputStart { id, tool_name } if !self.declared.contains(tool_name) => {
                    dropped.push(id.clone());
                }
                Event::ToolCall(call) if !self.declared.contains(&call.tool_name) => {}
                Event::ToolInputDelta { id, .. } | Event::ToolInputEnd { id }
                    if dropped.contains(id) => {}
                _ => out.push(event),
            }
        }
    }
}

impl Candidate for DeclaredOnly {
    fn begin(&mut self, begin: &Begin) {
        self.declared = begin.tools.iter().map(|t| t.name.clone()).collect();
        self.reference.begin(begin);
    }
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        let mut new = Vec::new();
        self.reference.push(chunk, &mut new);
        self.keep(new, events);
    }
    fn end(&mut self, events: &mut Vec<Event>) {
        let mut new = Vec::new();
        self.reference.end(&mut new);
        self.keep(new, events);
    }
}

#[test]
fn begin_declares_the_tools_the_stream_calls() {
    let tools = tools();
    // `get_weather` is no registry tool (`GetWeather` is): the case's events call it.
    assert!(tools.get("get_weather").is_none());
    let checked = Check::new("declared-only", &[Dialect::Hermes], || DeclaredOnly {
        reference: Reference::new(Arc::clone(&tools)),
        declared: Vec::new(),
    })
    .case("hermes/arguments-absent")
    .run()
    .expect("the check runs");
    checked.assert_passed();
}

/// The reference, but every reply starts inside reasoning whatever the prefill, as a parser
/// whose template always opens reasoning does.
struct AlwaysInReasoning(Reference);

impl Candidate for AlwaysInReasoning {
    fn begin(&mut self, begin: &Begin) {
        let prefill = begin.prefill.clone().unwrap_or_default();
        let opened = if prefill.ends_with("<think>\n") {
            prefill
        } else {
            prefill + "<think>\n"
        };
        self.0.begin(&Begin {
            prefill: Some(opened),
            ..begin.clone()
        });
    }
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        self.0.push(chunk, events);
    }
    fn end(&mut self, events: &mut Vec<Event>) {
        self.0.end(events);
    }
}

#[test]
fn a_candidate_that_starts_in_reasoning_is_not_judged_on_replies_that_cannot() {
    let tools = tools();
    let check = || {
        Check::new("always-in-reasoning", &[Dialect::Hermes], || {
            AlwaysInReasoning(Reference::new(Arc::clone(&tools)))
        })
        .case("hermes/reasoning-prefill-inside-think")
        .case("hermes/arguments-absent")
        .triage(Budget::Replays(0))
    };
    let undeclared = check().run().expect("the check runs");
    assert_eq!(
        undeclared.report.summary.failed,
        1,
        "{}",
        undeclared.render()
    );
    let declared = check()
        .starts_in_reasoning(&[Dialect::Hermes])
        .run()
        .expect("the check runs");
    let status = |id: &str| {
        let case = declared.report.cases.iter().find(|c| c.case == id);
        case.map(|c| (c.status, c.notes.clone()))
    };
    let (opened, _) = status("hermes/reasoning-prefill-inside-think").unwrap();
    assert_eq!(opened, Status::Passed, "{}", declared.render());
    let (closed, notes) = status("hermes/arguments-absent").unwrap();
    assert_eq!(closed, Status::NotApplicable);
    assert!(notes[0].contains("startsInReasoning"), "{notes:?}");
    assert!(declared.passed(), "{}", declared.render());
}

/// The reference without its `error` events, as a candidate that reads a server's chunks back
/// gives them (no chunk carries one, `specs/protocol.md` P5.6).
struct NoErrors(Reference);

impl NoErrors {
    fn keep(events: Vec<Event>, out: &mut Vec<Event>) {
        out.extend(
            events
                .into_iter()
                .filter(|event| !matches!(event, Event::Error { .. })),
        );
    }
}

impl Candidate for NoErrors {
    fn begin(&mut self, begin: &Begin) {
        self.0.begin(begin);
    }
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        let mut mine = Vec::new();
        self.0.push(chunk, &mut mine);
        Self::keep(mine, events);
    }
    fn end(&mut self, events: &mut Vec<Event>) {
        let mut mine = Vec::new();
        self.0.end(&mut mine);
        Self::keep(mine, events);
    }
}

#[test]
fn a_chunk_candidate_in_process_is_judged_without_errors() {
    let tools = tools();
    let check = |output| {
        Check::new("no-errors", &[Dialect::Hermes], || {
            NoErrors(Reference::new(Arc::clone(&tools)))
        })
        .tools(Arc::clone(&tools))
        .case("hermes/array-content-invalid")
        .splits(SplitOptions {
            budget: 4,
            random: 1,
            ..SplitOptions::default()
        })
        .triage(Budget::Time(std::time::Duration::ZERO))
        .output(output)
        .run()
        .expect("the check runs")
    };
    // Judged as events, the missing `error` fails the case (the closest reading then is the
    // alternative that drops the block, and the block's text is leaked markup to it).
    let events = check(Output::Events);
    assert!(!events.passed(), "{}", events.render());
    check(Output::OpenaiChunks).assert_passed();
}
