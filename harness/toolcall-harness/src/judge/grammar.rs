//! Event grammar (`specs/protocol.md` §3, verdict `grammar`): what a candidate's events must
//! satisfy whatever the stream, judged against the candidate's own output.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use crate::event::{Event, ToolCall};
use crate::normalize::Normalize;
use crate::protocol::lenient;

#[derive(Default)]
struct InputStream {
    text: String,
    ended: bool,
}

/// Every grammar rule the events break, in stream order of discovery. `misnamed_inputs` are
/// the calls the transport read with `args`/`arguments`/`params` in place of `input`.
pub fn violations(events: &[Event], misnamed_inputs: &[String]) -> Vec<String> {
    let mut found: Vec<String> = misnamed_inputs
        .iter()
        .map(|field| format!("a tool-call carries \"{field}\" instead of \"input\""))
        .collect();
    let mut inputs: HashMap<&str, InputStream> = HashMap::new();
    let mut calls: HashSet<&str> = HashSet::new();
    for event in events {
        match event {
            Event::ToolInputStart { id, .. } => {
                if calls.contains(id.as_str()) {
                    found.push(format!("tool-input-start for \"{id}\" after its tool-call"));
                } else if inputs.insert(id, InputStream::default()).is_some() {
                    found.push(format!("tool-input-start for \"{id}\" twice"));
                }
            }
            Event::ToolInputDelta { id, delta } => match inputs.get_mut(id.as_str()) {
                None => found.push(format!(
                    "tool-input-delta for \"{id}\" without tool-input-start"
                )),
                Some(stream) if stream.ended => found.push(format!(
                    "tool-input-delta for \"{id}\" after tool-input-end"
                )),
                Some(stream) => stream.text.push_str(delta),
            },
            Event::ToolInputEnd { id } => match inputs.get_mut(id.as_str()) {
                None => found.push(format!(
                    "tool-input-end for \"{id}\" without tool-input-start"
                )),
                Some(stream) if stream.ended => {
                    found.push(format!("tool-input-end for \"{id}\" twice"))
                }
                Some(stream) => stream.ended = true,
            },
            Event::ToolCall(call) => {
                if !calls.insert(&call.tool_call_id) {
                    found.push(format!(
                        "two tool-calls with toolCallId \"{}\"",
                        call.tool_call_id
                    ));
                }
                if let Some(stream) = inputs.get(call.tool_call_id.as_str()) {
                    check_streamed_input(call, stream, &mut found);
                }
            }
            Event::ToolResult { tool_call_id, .. } | Event::ToolError { tool_call_id, .. } => {
                if !calls.contains(tool_call_id.as_str()) {
                    let kind = if matches!(event, Event::ToolResult { .. }) {
                        "tool-result"
                    } else {
                        "tool-error"
                    };
                    found.push(format!(
                        "{kind} for \"{tool_call_id}\", which no earlier tool-call has"
                    ));
                }
            }
            Event::TextDelta { .. } | Event::ReasoningDelta { .. } | Event::Error { .. } => {}
        }
    }
    let mut orphans: Vec<&&str> = inputs.keys().filter(|id| !calls.contains(**id)).collect();
    orphans.sort();
    found.extend(
        orphans
            .into_iter()
            .map(|id| format!("tool-input-start for \"{id}\" but no tool-call")),
    );
    found
}

/// A call whose input was streamed: the stream ended first, and its text is the input's JSON.
fn check_streamed_input(call: &ToolCall, stream: &InputStream, found: &mut Vec<String>) {
    let id = &call.tool_call_id;
    if !stream.ended {
        found.push(format!("tool-call \"{id}\" before its tool-input-end"));
    }
    // The AI SDK reads an input text that is empty or blank as `{}` (a call with no
    // arguments, streamed as one empty delta, as SGLang does).
    let text = if stream.text.trim().is_empty() {
        "{}"
    } else {
        stream.text.as_str()
    };
    // Read as the call's own input text is read (P1.2): a text tch cannot read as JSON is
    // consistent with a call whose input is that text, marked.
    match lenient::read_json_text(text) {
        Err(_) if call.input == lenient::not_json(text) => {}
        Err(_) => found.push(format!(
            "the streamed input of \"{id}\" is not JSON: {:?}",
            stream.text
        )),
        Ok((streamed, _)) => {
            // Compare as the normalizer would: 18.0 and 18 are the same input.
            let canonical = |input: &Value| {
                Normalize::default().apply(&[Event::ToolCall(ToolCall {
                    input: input.clone(),
                    ..call.clone()
                })])
            };
            if canonical(&streamed) != canonical(&call.input) {
                found.push(format!(
                    "tool-call \"{id}\" input differs from its streamed deltas"
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, input: Value) -> Event {
        Event::call(id, "t", input)
    }
    fn start(id: &str) -> Event {
        Event::ToolInputStart {
            id: id.into(),
            tool_name: "t".into(),
        }
    }
    fn delta(id: &str, d: &str) -> Event {
        Event::ToolInputDelta {
            id: id.into(),
            delta: d.into(),
        }
    }
    fn end(id: &str) -> Event {
        Event::ToolInputEnd { id: id.into() }
    }

    #[test]
    fn a_well_formed_stream_has_no_violations() {
        let events = [
            Event::text("a"),
            start("c"),
            delta("c", "{\"a\":"),
            delta("c", "1.0}"),
            end("c"),
            call("c", json!({"a": 1})),
            Event::ToolResult {
                tool_call_id: "c".into(),
                tool_name: "t".into(),
                output: json!(null),
            },
            call("d", json!({})),
            // No arguments: one empty delta, read as `{}` (AI SDK, SGLang).
            start("e"),
            delta("e", ""),
            end("e"),
            call("e", json!({})),
        ];
        assert_eq!(violations(&events, &[]), Vec::<String>::new());
        let empty_but_not_empty_input = [
            start("e"),
            delta("e", ""),
            end("e"),
            call("e", json!({"a": 1})),
        ];
        assert!(violations(&empty_but_not_empty_input, &[])[0].contains("differs"));
        // A non-streaming result (P2.11): calls with no tool-input-* parts at all (P3.3).
        let non_streaming = [
            Event::ReasoningDelta { delta: "r".into() },
            Event::text("a"),
            call("c", json!({"a": 1})),
            call("d", json!({})),
        ];
        assert_eq!(violations(&non_streaming, &[]), Vec::<String>::new());
    }

    #[test]
    fn names_each_broken_rule() {
        let cases: [(&[Event], &str); 8] = [
            (
                &[start("x"), end("x"), call("x", json!({})), start("x")],
                "after its tool-call",
            ),
            (&[delta("x", "{}")], "without tool-input-start"),
            (
                &[start("x"), start("x"), end("x"), call("x", json!({}))],
                "twice",
            ),
            (
                &[start("x"), end("x"), delta("x", "{}"), call("x", json!({}))],
                "after tool-input-end",
            ),
            (
                &[start("x"), delta("x", "{}"), call("x", json!({}))],
                "before its tool-input-end",
            ),
            (
                &[
                    start("x"),
                    delta("x", "{\"a\":2}"),
                    end("x"),
                    call("x", json!({"a": 1})),
                ],
                "differs from its streamed deltas",
            ),
            (
                &[call("x", json!({})), call("x", json!({}))],
                "two tool-calls",
            ),
            (&[start("x"), end("x")], "but no tool-call"),
        ];
        for (events, expected) in cases {
            let found = violations(events, &[]);
            assert!(
                found.iter().any(|v| v.contains(expected)),
                "{expected}: {found:?}"
            );
        }
        let orphan = [Event::ToolError {
            tool_call_id: "z".into(),
            tool_name: "t".into(),
            error_text: "e".into(),
        }];
        assert!(violations(&orphan, &[])[0].contains("which no earlier tool-call has"));
        assert_eq!(
            violations(&[], &["args".into()]),
            ["a tool-call carries \"args\" instead of \"input\""]
        );
    }
}
