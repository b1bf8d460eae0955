//! Conformance verdicts (`specs/runner.md` §3): how a candidate's normalized events differ from
//! a case's expected events, named by what a user would call the bug.

use similar::{ChangeTag, TextDiff};

use super::Verdict;
use crate::event::Event;
use crate::normalize::Normalize;

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
    let normalized = Normalize {
        source: Some(source),
        keep_extra: false,
    }
    .apply(&kept);
    without_edge_blanks(normalized)
}

/// [`comparable`] events as a diff shows them: each `error`, blanked to be compared, given
/// back the text `raw` (the events they came from) wrote for it. Nothing before drops,
/// merges or reorders `error` events, so the k-th `error` of one is the k-th of the other.
pub fn shown(comparable: &[Event], raw: &[Event]) -> Vec<Event> {
    let mut texts = raw.iter().filter_map(|e| match e {
        Event::Error { error_text } => Some(error_text.as_str()),
        _ => None,
    });
    comparable
        .iter()
        .map(|e| match e {
            Event::Error { .. } => texts.next().map_or_else(|| e.clone(), Event::error),
            other => other.clone(),
        })
        .collect()
}

/// The blanks a template writes around its markers, which engines read as markup or as text
/// (`specs/runner.md` R3.4), left out of the comparison: every text or reasoning run (the
/// events are normalized, so a run is one event and its neighbours are of another kind) is
/// compared without blanks at either end, a run of blanks alone as nothing, and the runs that
/// then touch are merged again.
fn without_edge_blanks(events: Vec<Event>) -> Vec<Event> {
    let blank = |c: char| matches!(c, ' ' | '\t' | '\r' | '\n');
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    for event in events {
        let event = match event {
            Event::TextDelta { delta } => Event::text(delta.trim_matches(blank)),
            Event::ReasoningDelta { delta } => Event::ReasoningDelta {
                delta: delta.trim_matches(blank).to_owned(),
            },
            other => other,
        };
        match (&event, out.last_mut()) {
            (Event::TextDelta { delta } | Event::ReasoningDelta { delta }, _)
                if delta.is_empty() => {}
            (Event::TextDelta { delta }, Some(Event::TextDelta { delta: last }))
            | (Event::ReasoningDelta { delta }, Some(Event::ReasoningDelta { delta: last })) => {
                last.push_str(delta);
            }
            _ => out.push(event),
        }
    }
    out
}

/// The verdicts for `actual` against `expected` (both [`comparable`]), each with a detail.
pub fn conformance(expected: &[Event], actual: &[Event]) -> Vec<(Verdict, String)> {
    if expected == actual {
        return Vec::new();
    }
    let mut verdicts = Vec::new();
    let (want_calls, got_calls) = (calls_of(expected), calls_of(actual));
    // Calls are aligned by a diff, not by position: a missing first call is not also a
    // "wrong" second one. A call replaced by a different one in place is a wrong call.
    let (want_lines, got_lines): (Vec<String>, Vec<String>) = (
        want_calls.iter().map(|(_, e)| e.to_json_line()).collect(),
        got_calls.iter().map(|(_, e)| e.to_json_line()).collect(),
    );
    let call_ops = similar::capture_diff_slices(similar::Algorithm::Myers, &want_lines, &got_lines);
    // Where in the output's text each call that the expected events do not have stands.
    let extra_call_offsets: Vec<usize> = call_ops
        .iter()
        .filter_map(|op| match *op {
            similar::DiffOp::Insert {
                new_index, new_len, ..
            } => Some(new_index..new_index + new_len),
            _ => None,
        })
        .flatten()
        .map(|i| got_calls[i].0)
        .collect();
    let mut content = content_changes(expected, actual, &extra_call_offsets);
    let text = &mut content.text;
    if !text.lost.is_empty() {
        verdicts.push((
            Verdict::LostText,
            format!("text missing from the output: {:?}", cut(&text.lost)),
        ));
    }
    if !text.leaked.is_empty() {
        verdicts.push((
            Verdict::LeakedMarkup,
            format!("text that should not be text: {:?}", cut(&text.leaked)),
        ));
    }
    for (changed, what) in [
        (&content.reasoning_as_text, "reasoning came out as text"),
        (&content.text_as_reasoning, "text came out as reasoning"),
        (&content.reasoning.lost, "reasoning missing from the output"),
        (
            &content.reasoning.leaked,
            "reasoning that should not be reasoning",
        ),
    ] {
        if !changed.is_empty() {
            verdicts.push((Verdict::Reasoning, format!("{what}: {:?}", cut(changed))));
        }
    }
    if !content.text.became_calls.is_empty() {
        verdicts.push((
            Verdict::ExtraCall,
            format!(
                "text became a tool-call: {:?}; {} tool-calls expected, {} emitted",
                cut(&content.text.became_calls),
                want_calls.len(),
                got_calls.len()
            ),
        ));
    }
    if got_calls.len() < want_calls.len() {
        verdicts.push((
            Verdict::MissingCall,
            format!(
                "{} tool-calls expected, {} emitted",
                want_calls.len(),
                got_calls.len()
            ),
        ));
    } else if got_calls.len() > want_calls.len()
        && !verdicts.iter().any(|(v, _)| *v == Verdict::ExtraCall)
    {
        verdicts.push((
            Verdict::ExtraCall,
            format!(
                "{} tool-calls expected, {} emitted",
                want_calls.len(),
                got_calls.len()
            ),
        ));
    }
    let replaced = call_ops.iter().find_map(|op| match *op {
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

/// How the output's text and reasoning differ from the expected ones.
#[derive(Debug, Default, PartialEq)]
struct ContentChanges {
    /// The text's own changes, without what moved to the reasoning.
    text: TextChanges,
    /// The reasoning's own changes (`became_calls` unused), without what moved to the text.
    reasoning: TextChanges,
    /// Expected reasoning that the output has as text.
    reasoning_as_text: String,
    /// Expected text that the output has as reasoning.
    text_as_reasoning: String,
}

/// Text and reasoning compared: when the two, in order and unlabelled, are the same, all that
/// differs is which is which; otherwise each is diffed on its own, and what one lost and the
/// other's output has is a move, named once (`specs/events.md` §4).
fn content_changes(
    expected: &[Event],
    actual: &[Event],
    extra_call_offsets: &[usize],
) -> ContentChanges {
    let (want_text, got_text) = (text_of(expected), text_of(actual));
    let (want_reasoning, got_reasoning) = (reasoning_of(expected), reasoning_of(actual));
    let mut changes = ContentChanges::default();
    if want_text == got_text && want_reasoning == got_reasoning {
        return changes;
    }
    if content_of(expected) == content_of(actual) {
        // Only the labels differ: what the reasoning lost became text, what it gained was text.
        let moved = text_changes(&want_reasoning, &got_reasoning, &[]);
        changes.reasoning_as_text = moved.lost;
        changes.text_as_reasoning = moved.leaked;
        return changes;
    }
    changes.text = text_changes(&want_text, &got_text, extra_call_offsets);
    changes.reasoning = text_changes(&want_reasoning, &got_reasoning, &[]);
    changes.reasoning_as_text = moved(
        &mut changes.reasoning.lost,
        &got_text,
        &mut changes.text.leaked,
    );
    changes.text_as_reasoning = moved(
        &mut changes.text.lost,
        &got_reasoning,
        &mut changes.reasoning.leaked,
    );
    changes
}

/// When what one side `lost` is found in the other side's output, it moved there: taken out
/// of `lost`, and of that side's `leaked` where it shows there whole.
fn moved(lost: &mut String, other_output: &str, other_leaked: &mut String) -> String {
    if lost.is_empty() || !other_output.contains(lost.as_str()) {
        return String::new();
    }
    if let Some(at) = other_leaked.find(lost.as_str()) {
        other_leaked.replace_range(at..at + lost.len(), "");
    }
    std::mem::take(lost)
}

/// How the output's text differs from the expected text.
#[derive(Debug, Default, PartialEq)]
struct TextChanges {
    /// Expected text that appears nowhere in the output.
    lost: String,
    /// Expected text missing exactly where the output has a call the expected events do not:
    /// the candidate read it as that call (a malformed block accepted).
    became_calls: String,
    /// Output text the expected text does not have.
    leaked: String,
}

/// A char diff of the two texts; a deleted run counts as `became_calls` when the output has an
/// extra call at that point of its text (`extra_call_offsets`, in chars of output text before
/// the call). The point is any the run could slide to over equal chars: `a <t/> b` against
/// `a ` CALL ` b` deletes `<t/>` or ` <t/>`, depending on the diff's choice.
fn text_changes(want: &str, got: &str, extra_call_offsets: &[usize]) -> TextChanges {
    let want_chars: Vec<char> = want.chars().collect();
    let mut changes = TextChanges::default();
    let diff = TextDiff::from_chars(want, got);
    let (mut want_at, mut got_at) = (0, 0);
    let mut deleted: Option<(usize, usize)> = None;
    let settle =
        |deleted: &mut Option<(usize, usize)>, got_at: usize, changes: &mut TextChanges| {
            let Some((start, end)) = deleted.take() else {
                return;
            };
            let run: String = want_chars[start..end].iter().collect();
            let left = (1..=start)
                .take_while(|k| want_chars[start - k] == want_chars[end - k])
                .count();
            let right = (0..want_chars.len() - end)
                .take_while(|k| want_chars[start + k] == want_chars[end + k])
                .count();
            let slid = got_at.saturating_sub(left)..=got_at + right;
            if extra_call_offsets.iter().any(|at| slid.contains(at)) {
                changes.became_calls.push_str(&run);
            } else {
                changes.lost.push_str(&run);
            }
        };
    for change in diff.iter_all_changes() {
        let chars = change.value().chars().count();
        match change.tag() {
            ChangeTag::Delete => {
                let (start, _) = deleted.get_or_insert((want_at, want_at));
                want_at += chars;
                deleted = Some((*start, want_at));
            }
            ChangeTag::Equal => {
                settle(&mut deleted, got_at, &mut changes);
                want_at += chars;
                got_at += chars;
            }
            ChangeTag::Insert => {
                settle(&mut deleted, got_at, &mut changes);
                got_at += chars;
                changes.leaked.push_str(change.value());
            }
        }
    }
    settle(&mut deleted, got_at, &mut changes);
    changes
}

/// Text and reasoning together, in event order.
fn content_of(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TextDelta { delta } | Event::ReasoningDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
}

fn reasoning_of(events: &[Event]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ReasoningDelta { delta } => Some(delta.as_str()),
            _ => None,
        })
        .collect()
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

/// Each call with the number of text chars before it.
fn calls_of(events: &[Event]) -> Vec<(usize, &Event)> {
    let mut text_chars = 0;
    let mut calls = Vec::new();
    for event in events {
        match event {
            Event::TextDelta { delta } => text_chars += delta.chars().count(),
            Event::ToolCall(_) => calls.push((text_chars, event)),
            _ => {}
        }
    }
    calls
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
    use crate::event::ToolCall;
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
        // A malformed block accepted as a call: its text became the call, it is not lost.
        let malformed = [
            Event::text("a "),
            Event::error(""),
            Event::text("<t>{bad}</t>"),
            Event::text(" b"),
        ];
        assert_eq!(
            verdicts(
                &malformed,
                &[Event::text("a "), call("t"), Event::text(" b")]
            ),
            [Verdict::ExtraCall, Verdict::MissingError]
        );
        // Text dropped elsewhere is still lost.
        assert_eq!(
            verdicts(
                &malformed,
                &[Event::text("a "), call("t"), Event::text(" ")]
            ),
            [Verdict::LostText, Verdict::ExtraCall, Verdict::MissingError]
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
    fn reasoning_mixed_with_text_is_named_once() {
        let want = [Event::reasoning("hmm"), Event::text("hi")];
        assert_eq!(verdicts(&want, &want), []);
        assert_eq!(
            verdicts(&want, &[Event::text("hmmhi")]),
            [Verdict::Reasoning],
            "reasoning came out as text"
        );
        assert_eq!(
            verdicts(&want, &[Event::text("<think>hmm</think>hi")]),
            [Verdict::LeakedMarkup, Verdict::Reasoning],
            "and its markers leaked"
        );
        assert_eq!(
            verdicts(&want, &[Event::reasoning("hmmhi")]),
            [Verdict::Reasoning],
            "text came out as reasoning"
        );
        assert_eq!(verdicts(&want, &[Event::text("hi")]), [Verdict::Reasoning]);
        let Some((_, detail)) = conformance(&want, &[Event::text("hi")]).pop() else {
            panic!("differs")
        };
        assert_eq!(detail, r#"reasoning missing from the output: "hmm""#);
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
        // `extra` is not contract for candidates (specs/runner.md R3.2): a call that lost a
        // source field there (`__proto__`, to a JavaScript object) still compares equal.
        let mut with_extra = ToolCall {
            tool_call_id: "c".into(),
            tool_name: "t".into(),
            input: json!({}),
            extra: serde_json::Map::new(),
        };
        let without = comparable(&[Event::ToolCall(with_extra.clone())], "");
        with_extra.extra.insert("__proto__".into(), json!({"x": 1}));
        assert_eq!(comparable(&[Event::ToolCall(with_extra)], ""), without);
    }

    #[test]
    fn blanks_at_marker_edges_are_not_compared() {
        // R3.4: `</think>\n\n` read as markup by one engine, as text by another.
        let call = Event::call("c", "t", json!({}));
        let as_text = [
            Event::ReasoningDelta {
                delta: "\nhmm\n".into(),
            },
            Event::text("\n\nSure. "),
            call.clone(),
            Event::text("\n"),
            call.clone(),
        ];
        let as_markup = [
            Event::ReasoningDelta {
                delta: "hmm".into(),
            },
            Event::text("Sure."),
            call.clone(),
            call.clone(),
        ];
        assert_eq!(comparable(&as_text, ""), comparable(&as_markup, ""));
        // Blanks inside a run still count.
        assert_ne!(
            comparable(&[Event::text("a b")], ""),
            comparable(&[Event::text("ab")], "")
        );
    }
}
