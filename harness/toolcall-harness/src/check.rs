//! Running the reference on a case under one chunking, and saying precisely what went wrong:
//! events that differ from the expected ones (a unified diff of normalized JSON lines), or
//! text that was not conserved (`specs/streaming.md` C2).

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use similar::TextDiff;

use crate::corpus::Case;
use crate::event::Event;
use crate::normalize::Normalize;
use crate::parser::Run;
use crate::split;
use crate::tools::Registry;

/// How one run of a parser failed a case.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// Normalized events differ from the expected ones; carries a unified diff.
    Events { diff: String },
    /// The text deltas and call spans do not add up to the stream.
    TextNotConserved { detail: String },
    /// After a push, the parser held back input its dialect says is already known to be text.
    NotEager { pushed: usize, held: String },
    /// The events break the event grammar (`specs/runner.md` §2).
    Grammar { violations: String },
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Events { diff } => write!(f, "events differ (- expected, + actual):\n{diff}"),
            Failure::TextNotConserved { detail } => write!(f, "text not conserved: {detail}"),
            Failure::NotEager { pushed, held } => write!(
                f,
                "not eager: after {pushed} bytes were pushed, {held:?} was still held back"
            ),
            Failure::Grammar { violations } => write!(f, "event grammar broken: {violations}"),
        }
    }
}

/// Runs the case's reference parser on the stream cut at `cuts` and checks the events (ids
/// and `extra` compared exactly), eagerness after every push, and text conservation.
pub fn check_reference(case: &Case, cuts: &[usize], tools: &Arc<Registry>) -> Result<(), Failure> {
    let mut parser = case.dialect.reference_parser(tools);
    let mut events = Vec::new();
    let mut pushed = 0;
    let mut released = Released::default();
    for chunk in split::chunks_at(&case.stream, cuts) {
        parser.push(chunk, &mut events);
        pushed += chunk.len();
        let released = released.update(&events, parser.call_spans());
        let held = case
            .stream
            .get(released..pushed)
            .unwrap_or("<released more than was pushed>");
        if !case.dialect.may_hold(held, tools) {
            return Err(Failure::NotEager {
                pushed,
                held: held.to_owned(),
            });
        }
    }
    parser.finish(&mut events);
    let run = Run {
        events,
        call_spans: parser.call_spans().to_vec(),
    };
    let strict = Normalize {
        source: None,
        keep_extra: true,
    };
    compare(&strict.apply(&case.expected), &strict.apply(&run.events))?;
    check_conservation(&case.stream, &run)
}

/// Compares normalized lists. An expected `error`'s text need only be a prefix of the actual
/// one (`specs/corpus.md`).
pub fn compare(expected: &[Event], actual: &[Event]) -> Result<(), Failure> {
    let actual = align_error_texts(expected, actual);
    if expected == actual.as_slice() {
        return Ok(());
    }
    Err(Failure::Events {
        diff: diff_events(expected, &actual),
    })
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

/// A unified diff of two event lists, one JSON line per event.
pub fn diff_events(expected: &[Event], actual: &[Event]) -> String {
    let lines = |events: &[Event]| {
        events
            .iter()
            .map(|e| e.to_json_line() + "\n")
            .collect::<String>()
    };
    let (expected, actual) = (lines(expected), lines(actual));
    TextDiff::from_lines(&expected, &actual)
        .unified_diff()
        .context_radius(3)
        .header("expected", "actual")
        .to_string()
}

/// How many bytes of the stream the events so far account for: text released plus calls
/// recognised (C2 makes these a prefix of the stream). Counted incrementally, so checking
/// after every push stays linear in the stream.
#[derive(Default)]
struct Released {
    events_seen: usize,
    spans_seen: usize,
    bytes: usize,
}

impl Released {
    fn update(&mut self, events: &[Event], call_spans: &[Range<usize>]) -> usize {
        for event in events.get(self.events_seen..).unwrap_or_default() {
            if let Event::TextDelta { delta } = event {
                self.bytes += delta.len();
            }
        }
        for span in call_spans.get(self.spans_seen..).unwrap_or_default() {
            self.bytes += span.len();
        }
        self.events_seen = events.len();
        self.spans_seen = call_spans.len();
        self.bytes
    }
}

/// C2: the stream without the call spans equals the concatenated text, and there is one
/// `tool-call` per span.
pub fn check_conservation(stream: &str, run: &Run) -> Result<(), Failure> {
    let fail = |detail: String| Err(Failure::TextNotConserved { detail });
    let mut outside = String::with_capacity(stream.len());
    let mut at = 0;
    for span in &run.call_spans {
        let Some(_) = stream.get(span.clone()).filter(|_| span.start >= at) else {
            return fail(format!(
                "call span {span:?} is out of order or not on char boundaries"
            ));
        };
        outside.push_str(&stream[at..span.start]);
        at = span.end;
    }
    outside.push_str(&stream[at..]);
    let text: String = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    if text != outside {
        let offset = text
            .bytes()
            .zip(outside.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(text.len().min(outside.len()));
        return fail(format!(
            "text deltas ({} bytes) differ from the stream outside calls ({} bytes) from byte {offset} of that text",
            text.len(),
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
    fn diff_marks_the_differing_lines() {
        let diff = diff_events(&[Event::text("a")], &[Event::text("b")]);
        assert!(
            diff.contains("-{\"type\":\"text-delta\",\"delta\":\"a\"}"),
            "{diff}"
        );
        assert!(
            diff.contains("+{\"type\":\"text-delta\",\"delta\":\"b\"}"),
            "{diff}"
        );
    }

    #[test]
    fn conservation_catches_lost_and_invented_text() {
        let run = |events: Vec<Event>, spans: &[std::ops::Range<usize>]| Run {
            events,
            call_spans: spans.to_vec(),
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
    }
}
