//! In-process candidates (`toolcall_harness::in_process`): the reference passes the bundled
//! corpus through the same path a parser crate's `cargo test` takes, and planted bugs (a
//! panic, dropped text) come out as `tch run` names them, grouped into root causes.

use std::sync::Arc;

use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::event::Event;
use toolcall_harness::in_process::{Candidate, Check, Reference};
use toolcall_harness::judge::{Status, Verdict};
use toolcall_harness::protocol::Begin;
use toolcall_harness::split::SplitOptions;
use toolcall_harness::triage::Budget;

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
