//! Judging a candidate's replays of one stream (`specs/runner.md` §2–§3), the same for
//! `tch run` and `tch fuzz`: the whole stream first, judged against the expected events
//! (conformance); every other chunking against the whole stream's output (chunk-dependence,
//! whose symptoms are named by the conformance verdicts); every replay's raw events against the
//! event grammar. A chunk-dependent replay worth keeping is replayed again, with the whole
//! stream, to tell nondeterminism (`flaky`) from chunk-dependence.

use super::{Finding, Sides, Verdict, comparable, conformance, diff, grammar};
use crate::event::Event;
use crate::split::Chunking;
use crate::supervisor::{Fault, Transcript};

/// The judge of one stream's replays.
#[derive(Debug)]
pub struct StreamJudge<'s> {
    stream: &'s str,
    /// The expected events, [`comparable`].
    expected: Vec<Event>,
    /// The whole-stream replay's comparable output, once judged.
    baseline: Option<Vec<Event>>,
    /// The last judged replay's comparable output.
    last: Vec<Event>,
}

impl<'s> StreamJudge<'s> {
    /// A judge of replays of `stream`, whose conforming events are `expected`.
    pub fn new(stream: &'s str, expected: &[Event]) -> StreamJudge<'s> {
        StreamJudge {
            stream,
            expected: comparable(expected, stream),
            baseline: None,
            last: Vec::new(),
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
        let broken = grammar::violations(&transcript.events, &transcript.misnamed_inputs);
        if !broken.is_empty() {
            found.push((Verdict::Grammar, broken.join("; ")));
        }
        let actual = comparable(&transcript.events, self.stream);
        let mut diff = String::new();
        match &self.baseline {
            None => {
                let verdicts = conformance(&self.expected, &actual);
                if !verdicts.is_empty() {
                    diff = diff::events(&self.expected, &actual, Sides::EXPECTED);
                }
                found.extend(verdicts);
                self.baseline = Some(actual.clone());
            }
            Some(whole) if *whole != actual => {
                found.push((
                    Verdict::ChunkDependent,
                    "the output differs from the whole stream's".to_owned(),
                ));
                // The symptoms, relative to what the whole stream gave.
                found.extend(
                    conformance(whole, &actual)
                        .into_iter()
                        .filter(|(verdict, _)| *verdict != Verdict::Order)
                        .map(|(verdict, detail)| {
                            (verdict, format!("{detail} (vs the whole stream)"))
                        }),
                );
                diff = diff::events(whole, &actual, Sides::CHUNKING);
            }
            // The same output as the whole stream: its conformance was judged once, there.
            Some(_) => {}
        }
        self.last = actual;
        if found.is_empty() {
            return None;
        }
        let mut finding = Finding::new(self.stream, chunking, found).with_diff(diff);
        for note in &transcript.notes {
            finding.detail.push_str("\nnote: ");
            finding.detail.push_str(note);
        }
        finding.events = transcript.events.clone();
        Some(finding)
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
        let output = |t: &Transcript| comparable(&t.events, self.stream);
        let differs = |first: &[Event], second: Option<Vec<Event>>| {
            second.filter(|second| second.as_slice() != first)
        };
        let baseline = self.baseline.as_deref().unwrap_or_default();
        let (what, first, second) = if let Some(second) = differs(baseline, whole_again.map(output))
        {
            ("the whole stream", baseline, second)
        } else if let Some(second) = differs(&self.last, again.map(output)) {
            ("this chunking", self.last.as_slice(), second)
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
        .with_diff(diff::events(first, &second, Sides::REPLAYS));
        finding.chunks = chunks;
        finding.events = events;
    }
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
    use crate::split::SplitKind;
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
