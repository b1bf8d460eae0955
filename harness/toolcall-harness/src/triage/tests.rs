//! Triage against a fake candidate: the reference with bugs planted, in process.

use std::cell::Cell;
use std::rc::Rc;

use super::*;
use crate::definitions::bundled_registry;
use crate::fuzz::replayer::{Replayer, StreamCandidate};
use crate::judge::StreamJudge;
use crate::parser;
use crate::split::{Chunking, SplitKind};

/// The bugs a fake candidate has.
#[derive(Debug, Clone, Copy, Default)]
struct Bugs {
    /// Drops every text delta after the first call.
    drops_text_after_a_call: bool,
    /// Loses every call when a chunk ends inside `<tool_call>` (only synthetic cuts show it).
    loses_calls_cut_in_the_opener: bool,
    /// Loses every call when a chunk ends anywhere from `<tool_call>` to `</tool_call>`.
    loses_calls_cut_in_a_call: bool,
}

const OPENER: &str = "<tool_call>";
const CLOSER: &str = "</tool_call>";

fn call(city: &str) -> String {
    format!(r#"{OPENER}{{"name": "GetWeather", "arguments": {{"location": "{city}"}}}}{CLOSER}"#)
}

fn tools() -> Arc<Registry> {
    Arc::new(bundled_registry().expect("the bundled tools load"))
}

/// The reference for `begin`'s dialect, with `bugs`; counts its replays in `count`.
fn fake(
    bugs: Bugs,
    count: Rc<Cell<usize>>,
) -> impl FnMut(&Begin, &[&str]) -> Result<Transcript, ReplayError> {
    let tools = tools();
    move |begin, chunks| {
        count.set(count.get() + 1);
        let dialect: Dialect = begin.dialect.parse().expect("a dialect");
        let prefill = begin.prefill.as_deref().unwrap_or("");
        let mut reference = dialect.reference_parser(&tools, prefill);
        let mut events = parser::run(reference.as_mut(), chunks.iter().copied()).events;
        let stream = chunks.concat();
        let cuts: Vec<usize> = chunks[..chunks.len().saturating_sub(1)]
            .iter()
            .scan(0, |at, chunk| {
                *at += chunk.len();
                Some(*at)
            })
            .collect();
        let cut_inside = |start: usize, end: usize| cuts.iter().any(|&c| start < c && c < end);
        let opener_cut = stream
            .match_indices(OPENER)
            .any(|(start, _)| cut_inside(start, start + OPENER.len()));
        let call_cut = stream.match_indices(OPENER).any(|(start, _)| {
            let end = stream[start..]
                .find(CLOSER)
                .map_or(stream.len(), |at| start + at + CLOSER.len());
            cut_inside(start, end)
        });
        if (bugs.loses_calls_cut_in_the_opener && opener_cut)
            || (bugs.loses_calls_cut_in_a_call && call_cut)
        {
            events.retain(|e| {
                !matches!(
                    e,
                    Event::ToolCall(_)
                        | Event::ToolInputStart { .. }
                        | Event::ToolInputDelta { .. }
                        | Event::ToolInputEnd { .. }
                )
            });
        }
        if bugs.drops_text_after_a_call
            && let Some(first) = events.iter().position(|e| matches!(e, Event::ToolCall(_)))
        {
            let mut at = 0;
            events.retain(|e| {
                at += 1;
                at <= first + 1 || !matches!(e, Event::TextDelta { .. })
            });
        }
        Ok(Transcript {
            events,
            ..Transcript::default()
        })
    }
}

/// A hermes case failing on `candidate` as `tch run` would judge it: the whole stream, then
/// `cuts`; its worst finding.
fn failing<F>(id: &str, stream: &str, cuts: &[usize], candidate: &mut F) -> FailingCase
where
    F: FnMut(&Begin, &[&str]) -> Result<Transcript, ReplayError>,
{
    let tools = tools();
    let mut replayer = Replayer::new(candidate, Dialect::Hermes, "", &tools, id);
    let expected = replayer.expected(stream);
    let mut judge = StreamJudge::new(stream, &expected);
    let whole = replayer
        .judge(&mut judge, stream, &Chunking::whole(), true)
        .expect("replayed");
    let chunking = Chunking::new(SplitKind::Chunks, "chunks", cuts.to_vec());
    let cut = if cuts.is_empty() {
        None
    } else {
        replayer
            .judge(&mut judge, stream, &chunking, true)
            .expect("replayed")
    };
    let finding = [whole, cut]
        .into_iter()
        .flatten()
        .min_by_key(|f| f.severity)
        .unwrap_or_else(|| panic!("{id} fails"));
    FailingCase {
        id: id.to_owned(),
        dialect: Dialect::Hermes,
        stream: stream.to_owned(),
        prefill: String::new(),
        with_options: false,
        finding,
    }
}

fn run(cases: &[FailingCase], bugs: Bugs, budget: Budget) -> (Triage, usize) {
    let count = Rc::new(Cell::new(0));
    let mut candidate = fake(bugs, count.clone());
    let options = TriageOptions {
        budget,
        tries_per_case: 2000,
    };
    let triage = triage(cases, &mut candidate, &tools(), &options).expect("triaged");
    assert_eq!(triage.replays, count.get());
    // Every case belongs to exactly one root cause.
    let mut members: Vec<&str> = triage
        .root_causes
        .iter()
        .flat_map(|r| r.cases.iter().map(String::as_str))
        .collect();
    members.sort_unstable();
    let mut ids: Vec<&str> = cases.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(members, ids);
    for (n, root) in triage.root_causes.iter().enumerate() {
        assert_eq!(root.id, format!("RC{}", n + 1));
        assert!(root.cases.contains(&root.case));
        assert!(root.slug.len() <= naming::MAX_SLUG, "{}", root.slug);
    }
    (triage, count.get())
}

const ENOUGH: Budget = Budget::Replays(100_000);

fn skeleton(root: &RootCause) -> String {
    Skeleton::of(&root.minimal.stream, &Dialect::Hermes.markers(&tools())).to_string()
}

#[test]
fn two_cases_of_one_bug_are_one_root_cause_with_a_short_minimal_stream() {
    let bugs = Bugs {
        drops_text_after_a_call: true,
        ..Bugs::default()
    };
    let mut candidate = fake(bugs, Rc::default());
    let one = format!("Hello there. {} Bye now, and thanks.", call("Paris"));
    let two = format!("{}\nThat is all for today.", call("Rome"));
    let cases = [
        failing("hermes/one", &one, &[], &mut candidate),
        failing("hermes/two", &two, &[], &mut candidate),
    ];
    assert_eq!(cases[0].finding.verdicts, [Verdict::LostText]);
    let (triage, _) = run(&cases, bugs, ENOUGH);
    assert_eq!(triage.root_causes.len(), 1, "{:#?}", triage.root_causes);
    let root = &triage.root_causes[0];
    assert_eq!(root.cases, ["hermes/one", "hermes/two"]);
    assert!(root.shrunk && triage.cases_shrunk == 2 && triage.stopped.is_none());
    assert_eq!(root.verdicts, [Verdict::LostText]);
    assert_eq!(root.layer, Layer::Conformance);
    assert_eq!(root.severity, Severity::Medium);
    assert_eq!(skeleton(root), "<tool_call>…</tool_call>…");
    assert!(
        root.minimal.stream.len() < two.len() - 10,
        "{:?}",
        root.minimal.stream
    );
    // Expected: the call and the text after it; actual: the text is gone.
    assert!(matches!(
        root.expected.last(),
        Some(Event::TextDelta { .. })
    ));
    assert!(matches!(root.actual.last(), Some(Event::ToolCall(_))));
    assert!(root.detail.starts_with("lost-text"), "{}", root.detail);
    assert_eq!(
        root.title,
        "hermes: loses text on `<tool_call>…</tool_call>…`"
    );
    assert_eq!(root.slug, "hermes-lost-text-tool-call");
    let json = serde_json::to_value(root).expect("serializes");
    assert_eq!(json["minimal"]["prefill"], "");
    assert_eq!(json["realism"], "realistic");
    assert_eq!(json["dialect"], "hermes");
    assert!(json["expected"][0].is_string() && json["replay"] == "");
}

#[test]
fn two_bugs_are_two_root_causes_worst_first() {
    let bugs = Bugs {
        drops_text_after_a_call: true,
        loses_calls_cut_in_the_opener: true,
        ..Bugs::default()
    };
    let mut candidate = fake(bugs, Rc::default());
    let text = format!("Hello there. {} Bye now.", call("Paris"));
    let cut = format!("Sure. {}", call("Oslo"));
    let cases = [
        failing("hermes/text", &text, &[], &mut candidate),
        // A chunk ends at `<tool_`.
        failing("hermes/cut", &cut, &[12], &mut candidate),
    ];
    assert_eq!(
        cases[1].finding.verdicts,
        [Verdict::ChunkDependent, Verdict::MissingCall]
    );
    let (triage, _) = run(&cases, bugs, ENOUGH);
    let roots = &triage.root_causes;
    assert_eq!(roots.len(), 2, "{roots:#?}");
    assert_eq!(roots[0].cases, ["hermes/cut"]);
    assert_eq!(roots[0].severity, Severity::High);
    assert_eq!(roots[0].realism, Realism::Synthetic);
    assert_eq!(skeleton(&roots[0]), "<tool_call>…</tool_call>");
    assert!(
        roots[0]
            .title
            .starts_with("hermes: loses a call when a chunk ends at `<")
            && roots[0].title.ends_with("(synthetic cuts only)"),
        "{}",
        roots[0].title
    );
    assert!(
        roots[0].slug.ends_with("-cut-in-tool-call"),
        "{}",
        roots[0].slug
    );
    assert_eq!(roots[1].cases, ["hermes/text"]);
    assert_eq!(roots[1].verdicts, [Verdict::LostText]);
}

#[test]
fn a_realistic_and_a_synthetic_failure_stay_apart() {
    let bugs = Bugs {
        loses_calls_cut_in_a_call: true,
        ..Bugs::default()
    };
    let mut candidate = fake(bugs, Rc::default());
    let stream = format!("Sure. {}", call("Oslo"));
    let body = stream.find("\"name\"").expect("a name");
    let cases = [
        failing("hermes/synthetic", &stream, &[10], &mut candidate),
        failing("hermes/realistic", &stream, &[body + 3], &mut candidate),
    ];
    assert_eq!(cases[0].finding.realism, Some(Realism::Synthetic));
    assert_eq!(cases[1].finding.realism, Some(Realism::Realistic));
    assert_eq!(cases[0].finding.verdicts, cases[1].finding.verdicts);
    let (triage, _) = run(&cases, bugs, ENOUGH);
    let roots = &triage.root_causes;
    assert_eq!(roots.len(), 2, "{roots:#?}");
    // The same severity and size: realistic first.
    assert_eq!(roots[0].cases, ["hermes/realistic"]);
    assert_eq!(roots[0].realism, Realism::Realistic);
    assert!(!roots[0].title.contains("synthetic"), "{}", roots[0].title);
    assert_eq!(roots[1].cases, ["hermes/synthetic"]);
    assert_eq!(roots[1].realism, Realism::Synthetic);
    assert_ne!(roots[0].slug, roots[1].slug);
    for root in roots {
        assert!(root.shrunk);
        let cuts = root
            .minimal
            .chunks
            .cuts(&root.minimal.stream)
            .expect("fits");
        let markers = Dialect::Hermes.markers(&tools());
        assert_eq!(realism(&root.minimal.stream, &cuts, &markers), root.realism);
    }
}

/// The fake candidate with `bugs` when streamed, whose non-streaming result (P2.11) loses
/// every call.
struct LosesCallsWhole<F> {
    streamed: F,
}

impl<F: FnMut(&Begin, &[&str]) -> Result<Transcript, ReplayError>> StreamCandidate
    for LosesCallsWhole<F>
{
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        (self.streamed)(begin, chunks)
    }

    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        let mut transcript = (self.streamed)(begin, &[text])?;
        transcript
            .events
            .retain(|e| !matches!(e, Event::ToolCall(_)));
        Ok(transcript)
    }
}

#[test]
fn a_non_streaming_failure_shrinks_whole_and_stays_apart_from_a_streamed_one() {
    // R2.3, R9.3: both lose a call, realistic, in the streaming layer; one on the parser's
    // streamed path (a cut inside the call), the other on its non-streaming path.
    let bugs = Bugs {
        loses_calls_cut_in_a_call: true,
        ..Bugs::default()
    };
    let candidate = LosesCallsWhole {
        streamed: fake(bugs, Rc::default()),
    };
    let tools = tools();
    let whole = format!("Sure, let me look.\n{}", call("Oslo"));
    let mut replayer = Replayer::new(candidate, Dialect::Hermes, "", &tools, "ns");
    let expected = replayer.expected(&whole);
    let mut judge = StreamJudge::new(&whole, &expected);
    assert_eq!(
        replayer.judge(&mut judge, &whole, &Chunking::whole(), true),
        Ok(None)
    );
    let finding = replayer
        .judge(&mut judge, &whole, &Chunking::non_streaming(), true)
        .expect("replayed")
        .expect("the non-streaming result differs");
    assert_eq!(
        finding.verdicts,
        [Verdict::NonStreamingDiffers, Verdict::MissingCall]
    );
    let mut candidate = replayer.candidate;
    let non_streaming = FailingCase {
        id: "hermes/whole".to_owned(),
        dialect: Dialect::Hermes,
        stream: whole.clone(),
        prefill: String::new(),
        with_options: false,
        finding,
    };
    let cut = format!("Sure. {}", call("Oslo"));
    let body = cut.find("\"name\"").expect("a name");
    let mut streamed = fake(bugs, Rc::default());
    let chunked = failing("hermes/cut", &cut, &[body + 3], &mut streamed);
    assert_eq!(chunked.finding.realism, Some(Realism::Realistic));
    let options = TriageOptions {
        budget: ENOUGH,
        tries_per_case: 2000,
    };
    let triage =
        triage(&[non_streaming, chunked], &mut candidate, &tools, &options).expect("triaged");
    let roots = &triage.root_causes;
    assert_eq!(roots.len(), 2, "{roots:#?}");
    let whole_root = roots
        .iter()
        .find(|r| r.cases == ["hermes/whole"])
        .expect("its own root cause");
    assert!(whole_root.shrunk);
    assert_eq!(
        whole_root.verdicts,
        [Verdict::NonStreamingDiffers, Verdict::MissingCall]
    );
    // Shrunk as the whole stream and its non-streaming result: no cuts, prose gone.
    assert_eq!(skeleton(whole_root), "<tool_call>…</tool_call>");
    assert_eq!(
        whole_root.minimal.chunks.cuts(&whole_root.minimal.stream),
        Ok(Vec::new())
    );
    assert!(
        whole_root
            .title
            .ends_with("is parsed whole (non-streaming)"),
        "{}",
        whole_root.title
    );
    assert!(
        whole_root.slug.contains("non-streaming-differs"),
        "{}",
        whole_root.slug
    );
}

#[test]
fn budget_zero_groups_the_cases_unshrunk() {
    let bugs = Bugs {
        drops_text_after_a_call: true,
        ..Bugs::default()
    };
    let mut candidate = fake(bugs, Rc::default());
    let cases = [
        failing(
            "hermes/a",
            &format!("Hello there. {} Bye now.", call("Paris")),
            &[],
            &mut candidate,
        ),
        failing(
            "hermes/b",
            &format!("Hi. {} Later.", call("Rome")),
            &[],
            &mut candidate,
        ),
        failing(
            "hermes/c",
            &format!("{} Trailing.", call("Oslo")),
            &[],
            &mut candidate,
        ),
    ];
    for budget in [Budget::Replays(0), Budget::Time(Duration::ZERO)] {
        let (triage, replays) = run(&cases, bugs, budget);
        assert_eq!(replays, 0);
        assert_eq!(triage.cases_shrunk, 0);
        assert!(triage.stopped.is_some());
        let roots = &triage.root_causes;
        // The same markup, the same verdicts: one root cause, whatever prose surrounds the
        // call (R9.3).
        assert_eq!(roots.len(), 1, "{roots:#?}");
        assert_eq!(roots[0].cases, ["hermes/a", "hermes/b", "hermes/c"]);
        assert!(roots.iter().all(|r| !r.shrunk));
        // The shortest member's own stream shows.
        assert_eq!(roots[0].case, "hermes/c");
        assert_eq!(roots[0].minimal.stream, cases[2].stream);
        assert_eq!(roots[0].detail, cases[2].finding.detail);
    }
}

#[test]
fn a_case_left_unshrunk_joins_the_root_cause_its_own_skeleton_matches() {
    let bugs = Bugs {
        drops_text_after_a_call: true,
        ..Bugs::default()
    };
    let mut candidate = fake(bugs, Rc::default());
    let first = failing(
        "hermes/first",
        &format!("{} Trailing words.", call("Oslo")),
        &[],
        &mut candidate,
    );
    let second = failing(
        "hermes/second",
        &format!("{}\nMore words here.", call("Rome")),
        &[],
        &mut candidate,
    );
    // The replays the first case's shrink takes alone: the budget for both.
    let (alone, spent) = run(std::slice::from_ref(&first), bugs, ENOUGH);
    assert!(alone.root_causes[0].shrunk);
    let (triage, replays) = run(&[first, second], bugs, Budget::Replays(spent));
    assert_eq!(replays, spent);
    assert_eq!(triage.cases_shrunk, 1);
    assert!(triage.stopped.is_some());
    let roots = &triage.root_causes;
    assert_eq!(roots.len(), 1, "{roots:#?}");
    assert_eq!(roots[0].cases, ["hermes/first", "hermes/second"]);
    assert!(roots[0].shrunk);
    assert_eq!(roots[0].case, "hermes/first");
    assert_eq!(roots[0].minimal, alone.root_causes[0].minimal);
}

#[test]
fn the_primary_verdict_is_the_worst_one_first_in_tchs_order() {
    use crate::triage::primary_verdict;
    assert_eq!(
        primary_verdict(&[Verdict::LostText, Verdict::ExtraCall, Verdict::MissingError]),
        Verdict::ExtraCall
    );
    assert_eq!(
        primary_verdict(&[
            Verdict::ChunkDependent,
            Verdict::Reasoning,
            Verdict::LostText
        ]),
        Verdict::LostText
    );
    assert_eq!(
        primary_verdict(&[Verdict::ChunkDependent]),
        Verdict::ChunkDependent
    );
}
