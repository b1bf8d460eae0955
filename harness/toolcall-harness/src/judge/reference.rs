//! Judging the reference on a case under one chunking, with the same findings candidates
//! get: events that differ from the expected ones (named by the conformance verdicts, with the
//! one diff), text that was not conserved (`specs/streaming.md` C2, `text-not-conserved`),
//! input held back that is already known to be text (C3, `not-eager`), and a broken event
//! grammar. The reference reports the spans it consumed, so C2 and C3 are checked exactly.

use std::ops::Range;
use std::sync::Arc;

use super::{Finding, Sides, Verdict, conformance, diff};
use crate::corpus::Case;
use crate::event::Event;
use crate::normalize::Normalize;
use crate::parser::{Run, StreamParser};
use crate::split::{Chunking, chunks_at};
use crate::tools::Registry;

/// Runs the case's reference parser on its stream cut as `chunking` says, and checks the
/// events (ids and `extra` compared exactly), eagerness after every push, and text
/// conservation. The finding (boxed: it is large, and rare) names the first rule broken.
pub fn check_reference(
    case: &Case,
    chunking: &Chunking,
    tools: &Arc<Registry>,
) -> Result<(), Box<Finding>> {
    let fail = |verdict: Verdict, detail: String| {
        Box::new(Finding::new(
            &case.stream,
            chunking,
            vec![(verdict, detail)],
        ))
    };
    // The options the case's request sets apply above the dialect (`specs/protocol.md` §6).
    let mut parser = case
        .request
        .reference(case.dialect.reference_parser(tools, &case.prefill));
    let mut events = Vec::new();
    let mut pushed = 0;
    let mut released = Released::default();
    for chunk in chunks_at(&case.stream, &chunking.cuts) {
        parser.push(chunk, &mut events);
        pushed += chunk.len();
        let released = released.update(&events, parser.as_ref());
        let held = case
            .stream
            .get(released..pushed)
            .unwrap_or("<released more than was pushed>");
        let context = if released == 0 {
            case.prefill.as_str()
        } else {
            ""
        };
        if !case.dialect.may_hold(held, context, tools) {
            return Err(fail(
                Verdict::NotEager,
                format!("after {pushed} bytes were pushed, {held:?} was still held back"),
            ));
        }
    }
    parser.finish(&mut events);
    let run = Run {
        events,
        call_spans: parser.call_spans().to_vec(),
        markup_spans: parser.markup_spans().to_vec(),
    };
    let strict = Normalize {
        source: None,
        keep_extra: true,
    };
    compare(&strict.apply(&case.expected), &strict.apply(&run.events)).map_err(
        |(verdicts, diff)| Box::new(Finding::new(&case.stream, chunking, verdicts).with_diff(diff)),
    )?;
    check_conservation(&case.stream, &run).map_err(|detail| fail(Verdict::TextNotConserved, detail))
}

/// Compares normalized lists. An expected `error`'s text need only be a prefix of the actual
/// one (`specs/corpus.md`). On a mismatch: the conformance verdicts and the diff.
pub fn compare(
    expected: &[Event],
    actual: &[Event],
) -> Result<(), (Vec<(Verdict, String)>, String)> {
    let actual = align_error_texts(expected, actual);
    if expected == actual.as_slice() {
        return Ok(());
    }
    Err((
        conformance(expected, &actual),
        diff::events(expected, &actual, Sides::EXPECTED),
    ))
}

/// `actual` with each `error` text cut to the expected one at the same position, where the
/// expected is a prefix of it.
fn align_error_texts(expected: &[Event], actual: &[Event]) -> Vec<Event> {
    actual
        .iter()
        .zip(expected.iter().map(Some).chain(std::iter::repeat(None)))
        .map(
            |(actual_event, expected_event)| match (actual_event, expected_event) {
                (Event::Error { error_text }, Some(Event::Error { error_text: want }))
                    if error_text.starts_with(want.as_str()) =>
                {
                    Event::error(want.clone())
                }
                _ => actual_event.clone(),
            },
        )
        .collect()
}

/// How many bytes of the stream the events so far account for: text and reasoning released
/// plus calls recognised and markup consumed (C2 makes these a prefix of the stream). Counted
/// incrementally, so checking after every push stays linear in the stream.
#[derive(Default)]
struct Released {
    events_seen: usize,
    call_spans: SpansSeen,
    markup_spans: SpansSeen,
    bytes: usize,
}

/// How much of a parser's span list is counted: its last span may still grow (adjacent markup
/// merges into it).
#[derive(Default)]
struct SpansSeen {
    count: usize,
    last_len: usize,
}

impl SpansSeen {
    /// The bytes of `spans` not counted yet.
    fn update(&mut self, spans: &[Range<usize>]) -> usize {
        let from = self.count.saturating_sub(1);
        let mut added = 0;
        for span in spans.get(from..).unwrap_or_default() {
            added += span.len();
        }
        if self.count > 0 {
            added -= self.last_len.min(added);
        }
        self.count = spans.len();
        self.last_len = spans.last().map_or(0, Range::len);
        added
    }
}

impl Released {
    fn update(&mut self, events: &[Event], parser: &dyn StreamParser) -> usize {
        for event in events.get(self.events_seen..).unwrap_or_default() {
            if let Event::TextDelta { delta } | Event::ReasoningDelta { delta } = event {
                self.bytes += delta.len();
            }
        }
        self.events_seen = events.len();
        self.bytes += self.call_spans.update(parser.call_spans());
        self.bytes += self.markup_spans.update(parser.markup_spans());
        self.bytes
    }
}

/// C2: the stream without the call and markup spans equals the text and reasoning deltas
/// concatenated in event order, and there is one `tool-call` per call span.
pub fn check_conservation(stream: &str, run: &Run) -> Result<(), String> {
    let fail = |detail: String| Err(detail);
    let mut spans: Vec<(&Range<usize>, &str)> = run
        .call_spans
        .iter()
        .map(|span| (span, "call"))
        .chain(run.markup_spans.iter().map(|span| (span, "markup")))
        .collect();
    spans.sort_by_key(|(span, _)| (span.start, span.end));
    let mut outside = String::with_capacity(stream.len());
    let mut at = 0;
    for (span, kind) in spans {
        let Some(_) = stream.get(span.clone()).filter(|_| span.start >= at) else {
            return fail(format!(
                "{kind} span {span:?} overlaps another or is not on char boundaries"
            ));
        };
        outside.push_str(&stream[at..span.start]);
        at = span.end;
    }
    outside.push_str(&stream[at..]);
    let content: String = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta } | Event::ReasoningDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    if content != outside {
        let offset = content
            .bytes()
            .zip(outside.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(content.len().min(outside.len()));
        return fail(format!(
            "text and reasoning deltas ({} bytes) differ from the stream outside calls and markup ({} bytes) from byte {offset} of that text",
            content.len(),
            outside.len()
        ));
    }
    let calls = run
        .events
        .iter()
        .filter(|e| matches!(e, Event::ToolCall(_)))
        .count();
    if calls != run.call_spans.len() {
        return fail(format!(
            "{calls} tool-call events but {} call spans",
            run.call_spans.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_text_is_compared_as_a_prefix() {
        let expected = [Event::error("invalid YAML"), Event::text("x")];
        assert_eq!(
            compare(
                &expected,
                &[
                    Event::error("invalid YAML in tool block: at 1"),
                    Event::text("x")
                ]
            ),
            Ok(())
        );
        assert!(compare(&expected, &[Event::error("unterminated"), Event::text("x")]).is_err());
    }

    #[test]
    fn a_mismatch_is_named_by_the_conformance_verdicts() {
        let Err((verdicts, diff)) = compare(&[Event::text("a")], &[Event::text("b")]) else {
            panic!("differs");
        };
        let verdicts: Vec<Verdict> = verdicts.into_iter().map(|(v, _)| v).collect();
        assert_eq!(verdicts, [Verdict::LostText, Verdict::LeakedMarkup]);
        assert!(diff.starts_with("--- expected\n+++ actual\n"), "{diff}");
    }

    #[test]
    fn conservation_catches_lost_and_invented_text() {
        let run = |events: Vec<Event>, spans: &[std::ops::Range<usize>]| Run {
            events,
            call_spans: spans.to_vec(),
            markup_spans: Vec::new(),
        };
        assert!(check_conservation("ab", &run(vec![Event::text("ab")], &[])).is_ok());
        assert!(check_conservation("ab", &run(vec![Event::text("a")], &[])).is_err());
        assert!(check_conservation("ab", &run(vec![Event::text("abc")], &[])).is_err());
        assert!(
            check_conservation(
                "ab",
                &run(
                    vec![Event::text("a")],
                    &[std::ops::Range { start: 1, end: 2 }]
                )
            )
            .is_err(),
            "span without call"
        );
        let markup = Run {
            events: vec![Event::reasoning("b"), Event::text("d")],
            call_spans: Vec::new(),
            markup_spans: vec![0..1, 2..3],
        };
        assert!(check_conservation("abcd", &markup).is_ok());
        let swapped = Run {
            events: vec![Event::text("d"), Event::reasoning("b")],
            ..markup.clone()
        };
        assert!(
            check_conservation("abcd", &swapped).is_err(),
            "out of order"
        );
    }
}
