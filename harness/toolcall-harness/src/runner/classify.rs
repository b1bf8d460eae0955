//! Conformance verdicts (`specs/runner.md` §3): how a candidate's normalized events differ from
//! a case's expected events, named by what a user would call the bug.

use similar::{ChangeTag, TextDiff};

use crate::event::Event;
use crate::normalize::Normalize;
use crate::runner::Verdict;

/// The form in which candidate output is compared: `tool-input-*` dropped (optional streaming,
/// checked by the grammar instead), `error` texts blanked (wording is the candidate's own),
/// then normalized against the source with `extra` dropped.
pub fn comparable(events: &[Event], source: &str) -> Vec<Event> {
    let kept: Vec<Event> = events
        .iter()
        .filter(|e| {
            !matches!(
                e,
                Event::ToolInputStart { .. }
                    | Event::ToolInputDelta { .. }
                    | Event::ToolInputEnd { .. }
            )
        })
        .map(|e| match e {
            Event::Error { .. } => Event::error(""),
            other => other.clone(),
        })
        .collect();
    Normalize {
        source: Some(source),
        keep_extra: false,
    }
    .apply(&kept)
}

/// The verdicts for `actual` against `expected` (both [`comparable`]), each with a detail.
pub fn conformance(expected: &[Event], actual: &[Event]) -> Vec<(Verdict, String)> {
    if expected == actual {
        return Vec::new();
    }
    let mut verdicts = Vec::new();
    let (want_text, got_text) = (text_of(expected), text_of(actual));
    if want_text != got_text {
        let diff = TextDiff::from_chars(want_text.as_str(), got_text.as_str());
        let first = |tag: ChangeTag| {
            diff.iter_all_changes()
                .find(|c| c.tag() == tag)
                .map(|c| c.value().to_owned())
        };
        let changed = |tag: ChangeTag| -> String {
            diff.iter_all_changes()
                .filter(|c| c.tag() == tag)
                .map(|c| c.value())
                .collect()
        };
        if first(ChangeTag::Delete).is_some() {
            verdicts.push((
                Verdict::LostText,
                format!(
                    "text missing from the output: {:?}",
                    cut(&changed(ChangeTag::Delete))
                ),
            ));
        }
        if first(ChangeTag::Insert).is_some() {
            verdicts.push((
                Verdict::LeakedMarkup,
                format!(
                    "text that should not be text: {:?}",
                    cut(&changed(ChangeTag::Insert))
                ),
            ));
        }
    }
    let (want_calls, got_calls) = (calls_of(expected), calls_of(actual));
    if got_calls.len() < want_calls.len() {
        verdicts.push((
            Verdict::MissingCall,
            format!(
                "{} tool-calls expected, {} emitted",
                want_calls.len(),
                got_calls.len()
            ),
        ));
    } else if got_calls.len() > want_calls.len() {
        verdicts.push((
            Verdict::ExtraCall,
            format!(
                "{} tool-calls expected, {} emitted",
                want_calls.len(),
                got_calls.len()
            ),
        ));
    }
    // Calls are aligned by a diff, not by position: a missing first call is not also a
    // "wrong" second one. A call replaced by a different one in place is a wrong call.
    let (want_lines, got_lines): (Vec<String>, Vec<String>) = (
        want_calls.iter().map(|e| e.to_json_line()).collect(),
        got_calls.iter().map(|e| e.to_json_line()).collect(),
    );
    let replaced = similar::capture_diff_slices(similar::Algorithm::Myers, &want_lines, &got_lines)
        .into_iter()
        .find_map(|op| match op {
            similar::DiffOp::Replace {
                old_index,
                new_index,
                ..
            } => Some((old_index, new_index)),
            _ => None,
        });
    if let Some((want, got)) = replaced {
        verdicts.push((
            Verdict::WrongCall,
            format!("expected {} got {}", want_lines[want], got_lines[got]),
        ));
    } else {
        let (want_outcomes, got_outcomes) = (outcomes_of(expected), outcomes_of(actual));
        if want_outcomes != got_outcomes {
            verdicts.push((
                Verdict::WrongCall,
                "tool-result / tool-error events differ".to_owned(),
            ));
        }
    }
    let (want_errors, got_errors) = (count_errors(expected), count_errors(actual));
    if got_errors < want_errors {
        verdicts.push((
            Verdict::MissingError,
            format!("{want_errors} error events expected, {got_errors} emitted"),
        ));
    } else if got_errors > want_errors {
        verdicts.push((
            Verdict::ExtraError,
            format!("{want_errors} error events expected, {got_errors} emitted"),
        ));
    }
    if verdicts.is_empty() {
        verdicts.push((
            Verdict::Order,
            "the same events in another order".to_owned(),
        ));
    }
    verdicts
}

fn text_of(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn calls_of(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e, Event::ToolCall(_)))
        .collect()
}

fn outcomes_of(events: &[Event]) -> Vec<&Event> {
    events
        .iter()
        .filter(|e| matches!(e, Event::ToolResult { .. } | Event::ToolError { .. }))
        .collect()
}

fn count_errors(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| matches!(e, Event::Error { .. }))
        .count()
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(name: &str) -> Event {
        Event::call("c", name, json!({}))
    }

    fn verdicts(expected: &[Event], actual: &[Event]) -> Vec<Verdict> {
        conformance(expected, actual)
            .into_iter()
            .map(|(v, _)| v)
            .collect()
    }

    #[test]
    fn names_the_bug() {
        let want = [Event::text("a "), call("t"), Event::text(" b")];
        assert_eq!(verdicts(&want, &want), []);
        assert_eq!(
            verdicts(&want, &[Event::text("a "), call("t")]),
            [Verdict::LostText]
        );
        assert_eq!(
            verdicts(&want, &[Event::text("a <t>{}</t> b")]),
            [Verdict::LeakedMarkup, Verdict::MissingCall]
        );
        assert_eq!(
            verdicts(
                &want,
                &[Event::text("a "), call("t"), call("t"), Event::text(" b")]
            ),
            [Verdict::ExtraCall]
        );
        assert_eq!(
            verdicts(&want, &[Event::text("a "), call("u"), Event::text(" b")]),
            [Verdict::WrongCall]
        );
        assert_eq!(
            verdicts(&want, &[Event::text("a  b"), call("t")]),
            [Verdict::Order]
        );
        let with_error = [Event::error(""), Event::text("x")];
        assert_eq!(
            verdicts(&with_error, &[Event::text("x")]),
            [Verdict::MissingError]
        );
        assert_eq!(
            verdicts(&[Event::text("x")], &with_error),
            [Verdict::ExtraError]
        );
    }

    #[test]
    fn comparable_drops_input_streaming_and_error_wording() {
        let events = [
            Event::ToolInputStart {
                id: "gen1".into(),
                tool_name: "t".into(),
            },
            Event::text("a"),
            Event::ToolInputEnd { id: "gen1".into() },
            Event::text("b"),
            Event::error("my words"),
        ];
        assert_eq!(
            comparable(&events, "ab"),
            [Event::text("ab"), Event::error("")]
        );
    }
}
