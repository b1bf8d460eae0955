//! OpenAI chat-completion deltas read as a client reads them, as tch events.
//!
//! The client is the AI SDK's `@ai-sdk/openai-compatible` chat model (vercel/ai,
//! `packages/openai-compatible/src/chat/openai-compatible-chat-language-model.ts`, `doStream`:
//! its `transform` per chunk and its `flush` at the end). This is the Rust twin of
//! `adapters/bridge/python/openai_deltas.py` and `adapters/bridge/node/openai-deltas.mjs`:
//!
//! - `content` is a `text-delta`; `reasoning_content` (or `reasoning`) a `reasoning-delta`;
//! - a `tool_calls[i]` delta for an index with no call yet must carry `id` and `function.name`
//!   (else the client throws: one `error` event naming what is missing, and the stream is
//!   over); it gives `tool-input-start` {id, toolName}, a `tool-input-delta` if `arguments` is
//!   not empty, then, if the arguments so far parse as JSON, `tool-input-end` and `tool-call`
//!   {toolCallId, toolName, input: the arguments string}, and the call is finished;
//! - a delta for an existing unfinished index appends its `arguments` (`tool-input-delta`) and
//!   completes the call the same way once they parse as JSON; deltas for a finished call are
//!   ignored;
//! - at the end of the stream every unfinished call gets `tool-input-end` and `tool-call` with
//!   its arguments string as it is ("" or not JSON included).

use std::collections::HashMap;

use serde_json::{json, Value};

/// One call the client tracks, by its `index`.
struct Call {
    id: String,
    name: String,
    arguments: String,
    finished: bool,
}

/// The client's reading of one stream: one per stream.
#[derive(Default)]
pub struct OpenAiDeltas {
    /// Calls by their `tool_calls[].index`, as the client's `toolCalls[index]`.
    calls: HashMap<u64, Call>,
    /// The client threw: the stream errored and nothing more comes out of it.
    failed: bool,
}

impl OpenAiDeltas {
    /// A client at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// The events one `choices[0].delta` object gives.
    pub fn delta(&mut self, delta: &Value) -> Vec<Value> {
        let mut events = Vec::new();
        if self.failed {
            return events;
        }
        // `delta.reasoning_content ?? delta.reasoning`: the second only when the first is
        // absent or null.
        let reasoning = match delta.get("reasoning_content") {
            Some(value) if !value.is_null() => value.as_str(),
            _ => delta.get("reasoning").and_then(Value::as_str),
        };
        if let Some(text) = reasoning.filter(|text| !text.is_empty()) {
            events.push(json!({"type": "reasoning-delta", "delta": text}));
        }
        if let Some(text) = delta.get("content").and_then(Value::as_str) {
            if !text.is_empty() {
                events.push(json!({"type": "text-delta", "delta": text}));
            }
        }
        let Some(tool_calls) = delta.get("tool_calls").and_then(Value::as_array) else {
            return events;
        };
        for tool_call in tool_calls {
            let index = tool_call.get("index").and_then(Value::as_u64).unwrap_or(0);
            let function = tool_call.get("function");
            let arguments = function
                .and_then(|f| f.get("arguments"))
                .and_then(Value::as_str)
                .unwrap_or("");
            match self.calls.get_mut(&index) {
                None => {
                    let id = tool_call.get("id").and_then(Value::as_str);
                    let name = function.and_then(|f| f.get("name")).and_then(Value::as_str);
                    let (Some(id), Some(name)) = (id, name) else {
                        let missing = if id.is_none() {
                            "Expected 'id' to be a string."
                        } else {
                            "Expected 'function.name' to be a string."
                        };
                        events.push(json!({
                            "type": "error",
                            "errorText": format!(
                                "AI SDK InvalidResponseDataError: {missing} (tool_calls delta {tool_call} starts no call)"
                            ),
                        }));
                        self.failed = true;
                        return events;
                    };
                    events.push(json!({"type": "tool-input-start", "id": id, "toolName": name}));
                    let mut call = Call {
                        id: id.to_owned(),
                        name: name.to_owned(),
                        arguments: arguments.to_owned(),
                        finished: false,
                    };
                    if !arguments.is_empty() {
                        events.push(
                            json!({"type": "tool-input-delta", "id": id, "delta": arguments}),
                        );
                    }
                    complete_if_json(&mut call, &mut events);
                    self.calls.insert(index, call);
                }
                Some(call) => {
                    if call.finished {
                        continue;
                    }
                    call.arguments.push_str(arguments);
                    if !arguments.is_empty() {
                        events.push(
                            json!({"type": "tool-input-delta", "id": call.id, "delta": arguments}),
                        );
                    }
                    complete_if_json(call, &mut events);
                }
            }
        }
        events
    }

    /// The events of the end of the stream: every unfinished call completes as it is.
    pub fn finish(&mut self) -> Vec<Value> {
        let mut events = Vec::new();
        if self.failed {
            return events;
        }
        // `toolCalls.filter(...)` walks the client's array in index order.
        let mut indexes: Vec<u64> = self.calls.keys().copied().collect();
        indexes.sort_unstable();
        for index in indexes {
            if let Some(call) = self.calls.get_mut(&index) {
                if !call.finished {
                    call.finished = true;
                    events.push(json!({"type": "tool-input-end", "id": call.id}));
                    events.push(tool_call(call));
                }
            }
        }
        events
    }
}

/// The client's `isParsableJson(arguments)` check after each delta of a call.
fn complete_if_json(call: &mut Call, events: &mut Vec<Value>) {
    if is_parsable_json(&call.arguments) {
        call.finished = true;
        events.push(json!({"type": "tool-input-end", "id": call.id}));
        events.push(tool_call(call));
    }
}

/// provider-utils `isParsableJson`: `secureJsonParse` does not throw. That is `JSON.parse`
/// (serde_json reads the same grammar) and secure-json-parse's filter: no object anywhere with
/// an own `__proto__` key, nor a `constructor` key whose value is an object with a `prototype`
/// key. One divergence: serde_json gives up past 128 levels of nesting, which V8 accepts.
pub fn is_parsable_json(text: &str) -> bool {
    fn clean(value: &Value) -> bool {
        match value {
            Value::Object(map) => {
                if map.contains_key("__proto__") {
                    return false;
                }
                if let Some(Value::Object(constructor)) = map.get("constructor") {
                    if constructor.contains_key("prototype") {
                        return false;
                    }
                }
                map.values().all(clean)
            }
            Value::Array(items) => items.iter().all(clean),
            _ => true,
        }
    }
    serde_json::from_str::<Value>(text).is_ok_and(|value| clean(&value))
}

fn tool_call(call: &Call) -> Value {
    json!({
        "type": "tool-call",
        "toolCallId": call.id,
        "toolName": call.name,
        "input": call.arguments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn types(events: &[Value]) -> Vec<&str> {
        events
            .iter()
            .map(|e| e["type"].as_str().unwrap_or("?"))
            .collect()
    }

    #[test]
    fn content_and_reasoning() {
        let mut b = OpenAiDeltas::new();
        assert_eq!(
            b.delta(&json!({"content": "Hi"})),
            vec![json!({"type": "text-delta", "delta": "Hi"})]
        );
        assert_eq!(
            b.delta(&json!({"reasoning_content": "hmm"})),
            vec![json!({"type": "reasoning-delta", "delta": "hmm"})]
        );
        assert_eq!(
            b.delta(&json!({"reasoning": "so"})),
            vec![json!({"type": "reasoning-delta", "delta": "so"})]
        );
        // A role-only first chunk and empty strings give nothing.
        assert!(b.delta(&json!({"role": "assistant"})).is_empty());
        assert!(b
            .delta(&json!({"role": "assistant", "content": ""}))
            .is_empty());
        assert!(b.finish().is_empty());
    }

    #[test]
    fn a_call_in_one_delta_completes_at_once() {
        let mut b = OpenAiDeltas::new();
        let events = b.delta(&json!({"tool_calls": [{
            "index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}
        }]}));
        assert_eq!(
            events,
            vec![
                json!({"type": "tool-input-start", "id": "call_1", "toolName": "get_weather"}),
                json!({"type": "tool-input-delta", "id": "call_1", "delta": "{\"city\":\"Paris\"}"}),
                json!({"type": "tool-input-end", "id": "call_1"}),
                json!({"type": "tool-call", "toolCallId": "call_1", "toolName": "get_weather",
                       "input": "{\"city\":\"Paris\"}"}),
            ]
        );
        assert!(
            b.finish().is_empty(),
            "a finished call is not completed again"
        );
    }

    #[test]
    fn a_call_in_fragments_completes_when_its_arguments_parse() {
        let mut b = OpenAiDeltas::new();
        let start = b.delta(&json!({"tool_calls": [{
            "index": 0, "id": "call_1", "type": "function", "function": {"name": "f"}
        }]}));
        assert_eq!(types(&start), ["tool-input-start"]);
        let part =
            b.delta(&json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"a\":"}}]}));
        assert_eq!(
            part,
            vec![json!({"type": "tool-input-delta", "id": "call_1", "delta": "{\"a\":"})]
        );
        let end = b.delta(&json!({"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]}));
        assert_eq!(
            types(&end),
            ["tool-input-delta", "tool-input-end", "tool-call"]
        );
        assert_eq!(end[2]["input"], "{\"a\":1}");
        // Arguments after completion are ignored, as the client ignores them.
        assert!(b
            .delta(&json!({"tool_calls": [{"index": 0, "function": {"arguments": "}"}}]}))
            .is_empty());
        assert!(b.finish().is_empty());
    }

    #[test]
    fn two_calls_by_index_and_ids_kept() {
        let mut b = OpenAiDeltas::new();
        b.delta(&json!({"tool_calls": [{"index": 0, "id": "functions.a:0", "function": {"name": "a"}}]}));
        b.delta(&json!({"tool_calls": [{"index": 1, "id": "functions.b:1", "function": {"name": "b", "arguments": "{\"x\""}}]}));
        let first =
            b.delta(&json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}));
        assert_eq!(first[2]["toolCallId"], "functions.a:0");
        let second =
            b.delta(&json!({"tool_calls": [{"index": 1, "function": {"arguments": ":2}"}}]}));
        assert_eq!(
            second[2],
            json!({"type": "tool-call", "toolCallId": "functions.b:1",
                                     "toolName": "b", "input": "{\"x\":2}"})
        );
    }

    #[test]
    fn unfinished_calls_complete_as_they_are_at_the_end() {
        let mut b = OpenAiDeltas::new();
        b.delta(&json!({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "f"}}]}));
        b.delta(&json!({"tool_calls": [{"index": 1, "id": "c1", "function": {"name": "g", "arguments": "{\"a\": [1"}}]}));
        assert_eq!(
            b.finish(),
            vec![
                json!({"type": "tool-input-end", "id": "c0"}),
                json!({"type": "tool-call", "toolCallId": "c0", "toolName": "f", "input": ""}),
                json!({"type": "tool-input-end", "id": "c1"}),
                json!({"type": "tool-call", "toolCallId": "c1", "toolName": "g", "input": "{\"a\": [1"}),
            ]
        );
    }

    #[test]
    fn parsable_json_is_the_clients() {
        assert!(is_parsable_json("{}"));
        assert!(is_parsable_json(" [1, \"a\"] "));
        assert!(is_parsable_json("3"));
        assert!(!is_parsable_json(""));
        assert!(!is_parsable_json("{\"a\":"));
        assert!(!is_parsable_json("NaN"));
        assert!(!is_parsable_json("{\"x\": {\"__proto__\": 1}}"));
        assert!(!is_parsable_json("{\"constructor\": {\"prototype\": {}}}"));
        assert!(is_parsable_json("{\"constructor\": 1}"));
    }

    #[test]
    fn unfinished_calls_complete_in_index_order() {
        let mut b = OpenAiDeltas::new();
        b.delta(&json!({"tool_calls": [{"index": 2, "id": "c2", "function": {"name": "g"}}]}));
        b.delta(&json!({"tool_calls": [{"index": 0, "id": "c0", "function": {"name": "f"}}]}));
        let ids: Vec<Value> = b.finish().iter().map(|e| e["id"].clone()).collect();
        assert_eq!(ids, [json!("c0"), Value::Null, json!("c2"), Value::Null]);
    }

    #[test]
    fn a_first_delta_without_id_or_name_is_the_clients_error() {
        let mut b = OpenAiDeltas::new();
        let events =
            b.delta(&json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}));
        assert_eq!(types(&events), ["error"]);
        assert!(events[0]["errorText"]
            .as_str()
            .unwrap_or("")
            .contains("'id'"));
        // The stream errored: nothing more comes out of it.
        assert!(b.delta(&json!({"content": "more"})).is_empty());
        assert!(b.finish().is_empty());

        let mut b = OpenAiDeltas::new();
        let events = b.delta(
            &json!({"content": "x", "tool_calls": [{"index": 3, "id": "c", "function": {}}]}),
        );
        assert_eq!(types(&events), ["text-delta", "error"]);
        assert!(events[1]["errorText"]
            .as_str()
            .unwrap_or("")
            .contains("'function.name'"));
    }
}
