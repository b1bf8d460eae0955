//! The normalizer that makes event lists comparable (`specs/events.md` §3): empty text and
//! reasoning dropped, adjacent deltas merged, integral numbers made integers, invented ids renamed, `extra`
//! dropped unless asked for. It never reorders events.

use std::collections::HashMap;

use memchr::memmem;
use serde_json::{Number, Value};

use crate::event::{Event, ToolCall};

/// What the normalizer may assume and keep.
#[derive(Debug, Clone, Copy, Default)]
pub struct Normalize<'s> {
    /// The stream's source text. When given, ids that occur nowhere in it are renamed `#1`, `#2`,
    /// … in order of first appearance, since their spelling was invented by the parser.
    pub source: Option<&'s str>,
    /// Keep `tool-call` `extra` fields (compared only when asked).
    pub keep_extra: bool,
}

impl Normalize<'_> {
    /// The normalized form of `events`.
    pub fn apply(&self, events: &[Event]) -> Vec<Event> {
        let mut out: Vec<Event> = Vec::with_capacity(events.len());
        let mut renames = IdRenames::default();
        for event in events {
            let mut event = event.clone();
            if let Some(source) = self.source
                && let Some(id) = event.call_id_mut()
            {
                renames.apply(source, id);
            }
            match &mut event {
                Event::TextDelta { delta } => {
                    if delta.is_empty() {
                        continue;
                    }
                    if let Some(Event::TextDelta { delta: last }) = out.last_mut() {
                        last.push_str(delta);
                        continue;
                    }
                }
                Event::ReasoningDelta { delta } => {
                    if delta.is_empty() {
                        continue;
                    }
                    if let Some(Event::ReasoningDelta { delta: last }) = out.last_mut() {
                        last.push_str(delta);
                        continue;
                    }
                }
                Event::ToolInputDelta { id, delta } => {
                    if delta.is_empty() {
                        continue;
                    }
                    if let Some(Event::ToolInputDelta {
                        id: last_id,
                        delta: last,
                    }) = out.last_mut()
                        && last_id == id
                    {
                        last.push_str(delta);
                        continue;
                    }
                }
                Event::ToolCall(ToolCall { input, extra, .. }) => {
                    canonical_numbers(input);
                    if self.keep_extra {
                        extra.values_mut().for_each(canonical_numbers);
                    } else {
                        extra.clear();
                    }
                }
                Event::ToolResult { output, .. } => canonical_numbers(output),
                Event::ToolInputStart { .. }
                | Event::ToolInputEnd { .. }
                | Event::ToolError { .. }
                | Event::Error { .. } => {}
            }
            out.push(event);
        }
        out
    }
}

/// `events` as they came, but for the call ids `source` spells nowhere, renamed `#1`, `#2`, …
/// in order of first appearance, as [`Normalize`] renames them: what reports store of a
/// candidate's raw events (`specs/runner.md` R6.6), since many parsers invent a random id per
/// call and a report must not change from one run to the next for it.
pub fn rename_invented_ids(events: &[Event], source: &str) -> Vec<Event> {
    let mut renames = IdRenames::default();
    events
        .iter()
        .map(|event| {
            let mut event = event.clone();
            if let Some(id) = event.call_id_mut() {
                renames.apply(source, id);
            }
            event
        })
        .collect()
}

/// Canonical names for ids that the source did not fix: each id `source` spells nowhere
/// becomes `#1`, `#2`, … in order of first appearance.
#[derive(Default)]
pub(crate) struct IdRenames {
    names: HashMap<String, String>,
}

impl IdRenames {
    /// Renames `id` in place unless `source` spells it.
    pub(crate) fn apply(&mut self, source: &str, id: &mut String) {
        if let Some(name) = self.names.get(id.as_str()) {
            id.clone_from(name);
            return;
        }
        // A fixed id is one the source spells out. Renaming in order of first appearance makes
        // normalizing twice a no-op: the second pass renames `#k` to `#k`.
        if memmem::find(source.as_bytes(), id.as_bytes()).is_some() {
            return;
        }
        let name = format!("#{}", self.names.len() + 1);
        self.names.insert(id.clone(), name.clone());
        *id = name;
    }
}

/// Rewrites integral floats (`18.0`) as integers (`18`), recursively.
pub fn canonical_numbers(value: &mut Value) {
    match value {
        Value::Number(number) => {
            if let Some(float) = number.as_f64()
                && number.is_f64()
                && float.fract() == 0.0
                && float.abs() < 9.007_199_254_740_992e15
            {
                // Below 2^53 every integral f64 is exact as an i64.
                *number = Number::from(float as i64);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(canonical_numbers),
        Value::Object(map) => map.values_mut().for_each(canonical_numbers),
        Value::Null | Value::Bool(_) | Value::String(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn call(id: &str, input: Value) -> Event {
        Event::call(id, "t", input)
    }

    fn delta(id: &str, delta: &str) -> Event {
        Event::ToolInputDelta {
            id: id.into(),
            delta: delta.into(),
        }
    }

    #[test]
    fn invented_ids_are_renamed_and_nothing_else_changes() {
        let events = [
            Event::text(""),
            delta("call_9f3a", "{"),
            call("call_9f3a", json!({"n": 1.0})),
            call("spelled", json!({})),
            call("call_77b1", json!({})),
        ];
        assert_eq!(
            rename_invented_ids(&events, "a spelled id"),
            [
                Event::text(""),
                delta("#1", "{"),
                call("#1", json!({"n": 1.0})),
                call("spelled", json!({})),
                call("#2", json!({})),
            ]
        );
    }

    #[test]
    fn merges_adjacent_text_and_drops_empty_text() {
        let events = [
            Event::text("a"),
            Event::text(""),
            Event::text("b"),
            Event::error("x"),
            Event::text("c"),
        ];
        assert_eq!(
            Normalize::default().apply(&events),
            [Event::text("ab"), Event::error("x"), Event::text("c")]
        );
    }

    #[test]
    fn merges_adjacent_reasoning_but_never_into_text() {
        let events = [
            Event::reasoning("a"),
            Event::reasoning(""),
            Event::reasoning("b"),
            Event::text("c"),
            Event::reasoning("d"),
        ];
        assert_eq!(
            Normalize::default().apply(&events),
            [
                Event::reasoning("ab"),
                Event::text("c"),
                Event::reasoning("d")
            ]
        );
    }

    #[test]
    fn merges_input_deltas_of_one_id_only() {
        let events = [
            delta("a", "{"),
            delta("a", ""),
            delta("a", "}"),
            delta("b", "["),
        ];
        assert_eq!(
            Normalize::default().apply(&events),
            [delta("a", "{}"), delta("b", "[")]
        );
    }

    #[test]
    fn integral_floats_become_integers() {
        let events = [call("c", json!({"a": 18.0, "b": [0.5, -2.0], "c": 1e300}))];
        assert_eq!(
            Normalize::default().apply(&events),
            [call("c", json!({"a": 18, "b": [0.5, -2], "c": 1e300}))]
        );
    }

    #[test]
    fn renames_only_ids_the_source_does_not_spell() {
        let events = [
            call("gen-9", json!({})),
            call("call_a", json!({})),
            Event::ToolResult {
                tool_call_id: "gen-9".into(),
                tool_name: "t".into(),
                output: json!(1),
            },
            call("gen-2", json!({})),
        ];
        let normalized = Normalize {
            source: Some("```tool x call_a\n```"),
            keep_extra: false,
        }
        .apply(&events);
        let ids: Vec<&str> = normalized
            .iter()
            .filter_map(|event| match event {
                Event::ToolCall(call) => Some(call.tool_call_id.as_str()),
                Event::ToolResult { tool_call_id, .. } => Some(tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["#1", "call_a", "#1", "#2"]);
    }

    #[test]
    fn drops_extra_unless_kept() {
        let mut extra = Map::new();
        extra.insert("k".into(), json!(2.0));
        let with_extra = Event::ToolCall(ToolCall {
            tool_call_id: "c".into(),
            tool_name: "t".into(),
            input: json!({}),
            extra,
        });
        assert_eq!(
            Normalize::default().apply(std::slice::from_ref(&with_extra)),
            [call("c", json!({}))]
        );
        let kept = Normalize {
            source: None,
            keep_extra: true,
        }
        .apply(&[with_extra]);
        let Event::ToolCall(kept) = &kept[0] else {
            panic!("not a call")
        };
        assert_eq!(kept.extra.get("k"), Some(&json!(2)));
    }

    #[test]
    fn is_idempotent() {
        let events = [
            Event::text("a"),
            Event::text("b"),
            delta("x", "1"),
            delta("x", "2"),
            call("x", json!({"n": 3.0})),
            call("call_7", json!({})),
        ];
        let normalize = Normalize {
            source: Some("call_7"),
            keep_extra: true,
        };
        let once = normalize.apply(&events);
        assert_eq!(normalize.apply(&once), once);
    }
}
