//! Judging a candidate's replays of one stream (`specs/runner.md` §2–§3), the same for
//! `tch run` and `tch fuzz`: the whole stream first, judged against the expected events
//! (conformance); every other chunking against the whole stream's output (chunk-dependence,
//! whose symptoms are named by the conformance verdicts), and so the candidate's non-streaming
//! result (`non-streaming-differs`, R2.3); every replay's raw events against the event grammar. A chunk-dependent replay worth keeping is replayed again, with the whole
//! stream, to tell nondeterminism (`flaky`) from chunk-dependence.

use std::borrow::Cow;

use super::conformance::shown;
use super::{Finding, Severity, Sides, Verdict, comparable, conformance, diff, grammar, message};
use crate::corpus::Alternative;
use crate::event::Event;
use crate::split::{Chunking, SplitKind};
use crate::supervisor::{Fault, Transcript};

/// Events as they are compared ([`comparable`]) and as a diff shows them ([`shown`]: with
/// each `error`'s own text).
#[derive(Debug, Clone, Default)]
struct Output {
    compared: Vec<Event>,
    shown: Vec<Event>,
}

impl Output {
    fn of(events: &[Event], stream: &str, wire: bool) -> Output {
        if wire {
            // P5.6: a chunk has no place for these; a chunk candidate is not judged on them.
            // Left out before normalizing, so that the text on both sides of one merges.
            let carried: Vec<Event> = events
                .iter()
                .filter(|event| !off_the_wire(event))
                .cloned()
                .collect();
            return Output::of(&carried, stream, false);
        }
        let compared = comparable(events, stream);
        let shown = shown(&compared, events);
        Output { compared, shown }
    }

    /// The side of a diff: compared, shown.
    fn side(&self) -> (&[Event], &[Event]) {
        (&self.compared, &self.shown)
    }

    /// `whole` and a chunk candidate's non-streaming `answer` in a message's shape (R2.3).
    /// Neither holds an `error` (P5.6), so each is shown as compared.
    fn messages(whole: &Output, answer: &Output) -> (Output, Output) {
        let (whole, answer) = message::shapes(&whole.compared, &answer.compared);
        let output = |compared: Vec<Event>| Output {
            shown: compared.clone(),
            compared,
        };
        (output(whole), output(answer))
    }
}

/// The judge of one stream's replays.
#[derive(Debug)]
pub struct StreamJudge<'s> {
    stream: &'s str,
    /// The expected events.
    expected: Output,
    /// The case's documented alternative readings: each reading's name and its events
    /// (`specs/runner.md` R3.5).
    alternatives: Vec<(String, Output)>,
    /// The whole-stream replay's output, once judged.
    baseline: Option<Output>,
    /// The last judged replay's output.
    last: Output,
    /// Whether the candidate answers in OpenAI chunks (`specs/protocol.md` §5): what the
    /// wire cannot carry is not compared (P5.6).
    wire: bool,
}

impl<'s> StreamJudge<'s> {
    /// A judge of replays of `stream`, whose conforming events are `expected`.
    pub fn new(stream: &'s str, expected: &[Event]) -> StreamJudge<'s> {
        StreamJudge::of_output(stream, expected, false)
    }

    /// [`StreamJudge::new`], for a candidate that answers in OpenAI chunks when `wire`:
    /// `error`, `tool-result` and `tool-error` events, which no chunk carries, are not
    /// compared (`specs/protocol.md` P5.6).
    pub fn of_output(stream: &'s str, expected: &[Event], wire: bool) -> StreamJudge<'s> {
        StreamJudge {
            stream,
            expected: Output::of(expected, stream, wire),
            alternatives: Vec::new(),
            baseline: None,
            last: Output::default(),
            wire,
        }
    }

    /// The wire finding of a completed replay of a candidate that answers in OpenAI chunks:
    /// verdict `wire`, layer `wire`, a detail line per rule broken, the severity of the worst
    /// rule (`specs/wire.md` §4). `None` when the chunks broke no rule.
    pub fn wire(&self, chunking: &Chunking, transcript: &Transcript) -> Option<Finding> {
        let found = transcript
            .wire
            .iter()
            .map(|breach| (Verdict::Wire, breach.to_string()))
            .collect::<Vec<_>>();
        if found.is_empty() {
            return None;
        }
        let mut finding = Finding::new(self.stream, chunking, found);
        finding.severity = transcript.wire.iter().map(|b| b.rule.severity()).min();
        finding.events = transcript.events.clone();
        Some(finding)
    }

    /// The same judge, told the case's documented alternative readings: a whole stream whose
    /// output equals one of them diverges rather than fails (`specs/runner.md` R3.5).
    pub fn with_alternatives(mut self, alternatives: &[Alternative]) -> StreamJudge<'s> {
        self.alternatives = alternatives
            .iter()
            .map(|a| {
                (
                    a.reading.clone(),
                    Output::of(&a.expected, self.stream, self.wire),
                )
            })
            .collect();
        self
    }

    /// The sides `actual`, the output of `chunking`, is compared on against `whole` (the whole
    /// stream's output, or the expected one): as they are, or, for a chunk candidate's
    /// non-streaming answer, both in a message's shape (R2.3).
    fn sides<'o>(
        &self,
        chunking: &Chunking,
        whole: &'o Output,
        actual: &'o Output,
    ) -> (Cow<'o, Output>, Cow<'o, Output>) {
        if self.wire && chunking.kind == SplitKind::NonStreaming {
            let (whole, actual) = Output::messages(whole, actual);
            (Cow::Owned(whole), Cow::Owned(actual))
        } else {
            (Cow::Borrowed(whole), Cow::Borrowed(actual))
        }
    }

    /// Whether the whole stream has been judged (chunk-dependence can be judged).
    pub fn has_baseline(&self) -> bool {
        self.baseline.is_some()
    }

    /// The finding of a replay the candidate did not complete.
    pub fn fault(&self, chunking: &Chunking, fault: &Fault) -> Finding {
        Finding::new(
            self.stream,
            chunking,
            vec![(verdict_of(fault), fault.to_string())],
        )
    }

    /// Judges a completed replay; the first one judged must be the whole stream's. `None`
    /// when it passed.
    pub fn replay(&mut self, chunking: &Chunking, transcript: &Transcript) -> Option<Finding> {
        let mut found = Vec::new();
        // Calls named as the report stores them: an invented id is random in many parsers,
        // and a detail quoting it would change the report on every run (R6.6).
        let named = crate::normalize::rename_invented_ids(&transcript.events, self.stream);
        let broken = grammar::violations(&named, &transcript.misnamed_inputs);
        if !broken.is_empty() {
            found.push((Verdict::Grammar, broken.join("; ")));
        }
        let actual = Output::of(&transcript.events, self.stream, self.wire);
        let mut diff = String::new();
        let mut diverges = None;
        match &self.baseline {
            None => {
                let verdicts = conformance(&self.expected.compared, &actual.compared);
                if !verdicts.is_empty() {
                    diff = diff::events_shown(self.expected.side(), actual.side(), Sides::EXPECTED);
                    match self.reading_of(&actual.compared, verdicts) {
                        // Output that follows a documented reading: no conformance bug; a
                        // grammar break beside it stays one.
                        Reading::Followed { reading, verdicts } if found.is_empty() => {
                            diverges = Some(reading);
                            found.extend(verdicts);
                        }
                        Reading::Followed { .. } => diff.clear(),
                        Reading::Closest {
                            verdicts,
                            against: None,
                        } => found.extend(verdicts),
                        Reading::Closest {
                            verdicts,
                            against: Some((reading, expected)),
                        } => {
                            diff =
                                diff::events_shown(expected.side(), actual.side(), Sides::EXPECTED);
                            found.extend(verdicts.into_iter().map(|(verdict, detail)| {
                                (
                                    verdict,
                                    format!(
                                        "{detail} (judged against the alternative reading {reading}, the closest)"
                                    ),
                                )
                            }));
                        }
                    }
                }
                self.baseline = Some(actual.clone());
            }
            Some(whole) => {
                let (whole, shaped) = self.sides(chunking, whole, &actual);
                // The same output as the whole stream adds nothing: its conformance was judged
                // once, there (for the non-streaming result too: one root cause, R2.3).
                if whole.compared != shaped.compared {
                    let non_streaming = chunking.kind == SplitKind::NonStreaming;
                    found.push(if non_streaming {
                        // R2.3: the parser's other entry point, given the same reply whole.
                        let (expected, answer) = self.sides(chunking, &self.expected, &actual);
                        let right = if conformance(&expected.compared, &answer.compared).is_empty()
                        {
                            " (the non-streaming result is the expected one)"
                        } else {
                            ""
                        };
                        (
                            Verdict::NonStreamingDiffers,
                            format!(
                                "the non-streaming result differs from the whole stream's{right}"
                            ),
                        )
                    } else {
                        (
                            Verdict::ChunkDependent,
                            "the output differs from the whole stream's".to_owned(),
                        )
                    });
                    // The symptoms, relative to what the whole stream gave.
                    found.extend(
                        conformance(&whole.compared, &shaped.compared)
                            .into_iter()
                            .filter(|(verdict, _)| *verdict != Verdict::Order)
                            .map(|(verdict, detail)| {
                                (verdict, format!("{detail} (vs the whole stream)"))
                            }),
                    );
                    let sides = if non_streaming {
                        Sides::NON_STREAMING
                    } else {
                        Sides::CHUNKING
                    };
                    diff = diff::events_shown(whole.side(), shaped.side(), sides);
                }
            }
        }
        self.last = actual;
        if found.is_empty() {
            return None;
        }
        let mut finding = Finding::new(self.stream, chunking, found).with_diff(diff);
        if let Some(reading) = diverges {
            finding = finding.diverging(&reading);
        }
        for note in &transcript.notes {
            finding.detail.push_str("\nnote: ");
            finding.detail.push_str(note);
        }
        finding.events = transcript.events.clone();
        Some(finding)
    }

    /// Judges the choices of one request with several (`specs/runner.md` R2.4), each fed the
    /// chunks of `chunking`, against the whole stream replayed alone (the baseline, judged
    /// first): the first choice whose output differs is `choices-share-state`, with its
    /// symptoms relative to the stream alone; a choice that breaks the event grammar is a
    /// `grammar` finding. `None` when every choice gave the stream's own output.
    pub fn choices(&self, chunking: &Chunking, transcripts: &[Transcript]) -> Option<Finding> {
        let whole = self.baseline.as_ref()?;
        let count = transcripts.len();
        for (choice, transcript) in transcripts.iter().enumerate() {
            let mut found = Vec::new();
            let broken = grammar::violations(&transcript.events, &transcript.misnamed_inputs);
            if !broken.is_empty() {
                found.push((
                    Verdict::Grammar,
                    format!("choice {choice}: {}", broken.join("; ")),
                ));
            }
            let actual = Output::of(&transcript.events, self.stream, self.wire);
            let mut diff = String::new();
            if whole.compared != actual.compared {
                found.push((
                    Verdict::ChoicesShareState,
                    format!(
                        "choice {choice} of {count}, fed the same chunks as the stream alone, gave other output"
                    ),
                ));
                found.extend(
                    conformance(&whole.compared, &actual.compared)
                        .into_iter()
                        .map(|(verdict, detail)| {
                            (verdict, format!("{detail} (vs the stream alone)"))
                        }),
                );
                diff = diff::events_shown(whole.side(), actual.side(), Sides::CHOICE);
            }
            if !found.is_empty() {
                let mut finding = Finding::new(self.stream, chunking, found).with_diff(diff);
                finding.events = transcript.events.clone();
                return Some(finding);
            }
        }
        None
    }

    /// Which reading `actual` (the whole stream's output, which differs from `tch`'s reading
    /// by `verdicts`) follows, or else the one it is closest to: the fewest verdicts of the
    /// least severity, `tch`'s own on a tie (R3.5).
    fn reading_of(&self, actual: &[Event], verdicts: Vec<(Verdict, String)>) -> Reading<'_> {
        if let Some((reading, _)) = self.alternatives.iter().find(|(_, e)| e.compared == actual) {
            return Reading::Followed {
                reading: reading.clone(),
                verdicts,
            };
        }
        let cost = |verdicts: &[(Verdict, String)]| {
            let kinds: Vec<Verdict> = verdicts.iter().map(|(v, _)| *v).collect();
            (Severity::of(&kinds), kinds.len())
        };
        let mut best = Reading::Closest {
            verdicts,
            against: None,
        };
        for (reading, expected) in &self.alternatives {
            let candidate = conformance(&expected.compared, actual);
            if let Reading::Closest { verdicts, .. } = &best
                && cost(&candidate) < cost(verdicts)
            {
                best = Reading::Closest {
                    verdicts: candidate,
                    against: Some((reading, expected)),
                };
            }
        }
        best
    }

    /// Turns a chunk-dependent `finding` (the last replay judged) into `flaky` when a second
    /// replay of the whole stream or of the same chunking gave different output. Replays that
    /// did not complete prove nothing either way (`None`).
    pub fn recheck(
        &self,
        finding: &mut Finding,
        whole_again: Option<&Transcript>,
        again: Option<&Transcript>,
    ) {
        let output = |t: &Transcript| Output::of(&t.events, self.stream, self.wire);
        let differs = |first: &Output, second: Option<Output>| {
            second.filter(|second| second.compared != first.compared)
        };
        let none = Output::default();
        let baseline = self.baseline.as_ref().unwrap_or(&none);
        let (what, first, second) = if let Some(second) = differs(baseline, whole_again.map(output))
        {
            ("the whole stream", baseline, second)
        } else if let Some(second) = differs(&self.last, again.map(output)) {
            ("this chunking", &self.last, second)
        } else {
            return;
        };
        let chunking = Chunking::new(finding.kind, finding.splitting.clone(), Vec::new());
        let events = std::mem::take(&mut finding.events);
        let chunks = finding.chunks.clone();
        *finding = Finding::new(
            self.stream,
            &chunking,
            vec![(
                Verdict::Flaky,
                format!("two replays of {what} gave different output"),
            )],
        )
        .with_diff(diff::events_shown(
            first.side(),
            second.side(),
            Sides::REPLAYS,
        ));
        finding.chunks = chunks;
        finding.events = events;
    }
}

/// How the whole stream's output stands to the documented readings.
enum Reading<'j> {
    /// It equals an alternative reading's events; `verdicts` say how it differs from `tch`'s.
    Followed {
        reading: String,
        verdicts: Vec<(Verdict, String)>,
    },
    /// It equals none: `verdicts` against the closest reading, `None` for `tch`'s own.
    Closest {
        verdicts: Vec<(Verdict, String)>,
        against: Option<(&'j str, &'j Output)>,
    },
}

/// Whether an event is one no OpenAI chunk carries (P5.6).
fn off_the_wire(event: &Event) -> bool {
    matches!(
        event,
        Event::Error { .. } | Event::ToolResult { .. } | Event::ToolError { .. }
    )
}

/// The verdict of a fault.
pub fn verdict_of(fault: &Fault) -> Verdict {
    match fault {
        Fault::Crash { .. } => Verdict::Crash,
        Fault::Timeout { .. } => Verdict::Timeout,
        Fault::Protocol { .. } => Verdict::Protocol,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn transcript(events: Vec<Event>) -> Transcript {
        Transcript {
            events,
            ..Transcript::default()
        }
    }

    const STREAM: &str = "a <t>{}</t>";

    fn expected() -> Vec<Event> {
        vec![Event::text("a "), Event::call("c", "t", json!({}))]
    }

    #[test]
    fn the_whole_stream_is_judged_against_the_spec_and_chunkings_against_it() {
        let mut judge = StreamJudge::new(STREAM, &expected());
        let wrong = transcript(vec![Event::text("a ")]);
        let finding = judge.replay(&Chunking::whole(), &wrong).expect("fails");
        assert_eq!(finding.verdicts, [Verdict::MissingCall]);
        assert_eq!(finding.layer, crate::judge::Layer::Conformance);
        assert!(finding.diff.starts_with("--- expected"), "{}", finding.diff);
        // The same wrong output under a cut adds nothing: judged once, on the whole stream.
        let cut = Chunking::new(SplitKind::Single, "cut@1", vec![1]);
        assert_eq!(judge.replay(&cut, &wrong), None);
        let other = transcript(vec![Event::text("a <t>{}</t>")]);
        let finding = judge.replay(&cut, &other).expect("chunk-dependent");
        assert_eq!(
            finding.verdicts,
            [Verdict::ChunkDependent, Verdict::LeakedMarkup]
        );
        assert!(
            finding
                .diff
                .starts_with("--- whole stream\n+++ this chunking")
        );
        assert_eq!(finding.chunks.to_string(), "1,10");
    }

    #[test]
    fn a_candidate_s_error_text_shows_in_the_diff_though_it_is_not_compared() {
        // A new user read `"errorText":""` in a diff where their parser had written its own
        // words: texts are compared blank (R3) but shown as written.
        let mut judge = StreamJudge::new(STREAM, &expected());
        let wrong = transcript(vec![
            Event::text("a "),
            Event::error("cannot read <t>"),
            Event::text("<t>{}</t>"),
        ]);
        let finding = judge.replay(&Chunking::whole(), &wrong).expect("fails");
        assert!(finding.has(Verdict::MissingCall), "{:?}", finding.verdicts);
        assert!(
            finding
                .diff
                .contains(r#"+{"type":"error","errorText":"cannot read <t>"}"#),
            "{}",
            finding.diff
        );
        assert!(
            !finding.diff.contains(r#""errorText":"""#),
            "{}",
            finding.diff
        );
        assert!(
            finding
                .diff
                .ends_with(&format!("{}\n", diff::ERROR_TEXT_NOTE))
        );
        // A chunking that differs elsewhere shows the error's text in the context it shares
        // with the whole stream, whatever each replay worded it.
        let cut = Chunking::new(SplitKind::Single, "cut@1", vec![1]);
        let reworded = transcript(vec![
            Event::text("a "),
            Event::error("other words"),
            Event::text("<t>{}</t>!"),
        ]);
        let finding = judge.replay(&cut, &reworded).expect("chunk-dependent");
        assert!(
            finding
                .diff
                .contains(r#" {"type":"error","errorText":"other words"}"#),
            "{}",
            finding.diff
        );
        // Another wording alone is no finding.
        let same = transcript(vec![
            Event::text("a "),
            Event::error("third wording"),
            Event::text("<t>{}</t>"),
        ]);
        assert_eq!(judge.replay(&cut, &same), None);
    }

    #[test]
    fn a_non_streaming_result_is_judged_against_the_whole_stream_once() {
        // R2.3: typed values when whole, strings when streamed (vLLM's kimi_k2).
        let typed = || vec![Event::text("a "), Event::call("c", "t", json!({"n": 1}))];
        let stringly = vec![Event::text("a "), Event::call("c", "t", json!({"n": "1"}))];
        let mut judge = StreamJudge::new(STREAM, &typed());
        assert_eq!(judge.replay(&Chunking::whole(), &transcript(typed())), None);
        let finding = judge
            .replay(&Chunking::non_streaming(), &transcript(stringly.clone()))
            .expect("differs");
        assert_eq!(
            finding.verdicts,
            [Verdict::NonStreamingDiffers, Verdict::WrongCall]
        );
        assert_eq!(finding.layer, crate::judge::Layer::Streaming);
        assert_eq!(finding.kind, SplitKind::NonStreaming);
        assert!(
            finding
                .diff
                .starts_with("--- whole stream\n+++ non-streaming"),
            "{}",
            finding.diff
        );
        // Wrong the same way whole and streamed: one conformance finding, on the whole stream.
        let mut judge = StreamJudge::new(STREAM, &typed());
        let conformance = judge
            .replay(&Chunking::whole(), &transcript(stringly.clone()))
            .expect("wrong");
        assert_eq!(conformance.verdicts, [Verdict::WrongCall]);
        assert_eq!(
            judge.replay(&Chunking::non_streaming(), &transcript(stringly.clone())),
            None
        );
        // Right only when whole: the detail says which side is the expected one.
        let finding = judge
            .replay(&Chunking::non_streaming(), &transcript(typed()))
            .expect("differs");
        assert_eq!(
            finding.verdicts,
            [Verdict::NonStreamingDiffers, Verdict::WrongCall]
        );
        assert!(
            finding.detail.contains("is the expected one"),
            "{}",
            finding.detail
        );
    }

    #[test]
    fn a_chunk_candidate_s_non_streaming_message_is_compared_in_its_shape() {
        // R2.3: a chat.completion message holds one content string and then its calls, so
        // the text around a call comes first, joined with the server's blanks.
        const STREAM: &str = "a <t>{}</t> b";
        let call = || Event::call("c", "t", json!({}));
        let streamed = vec![Event::text("a "), call(), Event::text(" b")];
        let mut judge = StreamJudge::of_output(STREAM, &streamed, true);
        assert_eq!(
            judge.replay(&Chunking::whole(), &transcript(streamed)),
            None
        );
        let message = transcript(vec![Event::text("a\nb"), call()]);
        assert_eq!(judge.replay(&Chunking::non_streaming(), &message), None);
        // The text after the call lost (SGLang's non-streaming hermes keeps the text before
        // the first call only): the text differs, the call does not.
        let lost = transcript(vec![Event::text("a"), call()]);
        let finding = judge
            .replay(&Chunking::non_streaming(), &lost)
            .expect("differs");
        assert_eq!(
            finding.verdicts,
            [Verdict::NonStreamingDiffers, Verdict::LostText]
        );
        assert!(
            finding
                .diff
                .contains(r#"-{"type":"text-delta","delta":"a b"}"#)
        );
        // An events candidate's answer keeps its order: the same events reordered differ.
        let mut judge = StreamJudge::new(STREAM, &[Event::text("a"), call(), Event::text("b")]);
        let streamed = transcript(vec![Event::text("a"), call(), Event::text("b")]);
        assert_eq!(judge.replay(&Chunking::whole(), &streamed), None);
        let reordered = transcript(vec![Event::text("a b"), call()]);
        assert!(
            judge
                .replay(&Chunking::non_streaming(), &reordered)
                .is_some()
        );
    }

    #[test]
    fn a_second_replay_that_differs_is_flaky() {
        let mut judge = StreamJudge::new(STREAM, &expected());
        let right = transcript(expected());
        assert_eq!(judge.replay(&Chunking::whole(), &right), None);
        let cut = Chunking::new(SplitKind::Single, "cut@1", vec![1]);
        let wrong = transcript(vec![Event::text("a <t>{}</t>")]);
        let mut finding = judge.replay(&cut, &wrong).expect("differs");
        let steady = finding.clone();
        judge.recheck(&mut finding, Some(&right), Some(&wrong));
        assert_eq!(finding, steady, "the same twice: chunk-dependent");
        judge.recheck(&mut finding, Some(&right), Some(&right));
        assert_eq!(finding.verdicts, [Verdict::Flaky]);
        assert!(
            finding
                .diff
                .starts_with("--- first replay\n+++ second replay")
        );
        assert_eq!(finding.chunks.to_string(), "1,10");
    }
}
