//! The AI SDK v5 openai-compatible client's reading of OpenAI chunks (`specs/wire.md` §2): `OpenAICompatibleChatLanguageModel.doStream`'s `transform`
//! and `flush`, rule for rule, giving the events (as JSON objects, read afterwards exactly as
//! a candidate's event lines are) that the AI SDK hands an application. It never repairs what
//! the server sent.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::protocol::lenient;

/// Where a call lives in doStream's `toolCalls` array: an array slot (visited at `flush`, in
/// order) or, for an index that is no array index (negative, fractional, huge), a plain
/// property that `flush` never visits.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    Array(u64),
    Property(String),
}

/// JavaScript's largest array index: `toolCalls.filter(…)` visits slots up to it.
const MAX_ARRAY_INDEX: f64 = 4_294_967_294.0;

impl Slot {
    fn of(index: f64) -> Slot {
        if index.fract() == 0.0 && (0.0..=MAX_ARRAY_INDEX).contains(&index) {
            Slot::Array(index as u64)
        } else {
            Slot::Property(index.to_string())
        }
    }
}

#[derive(Debug)]
struct Call {
    id: String,
    name: String,
    arguments: String,
    finished: bool,
}

/// One stream's client: doStream's `toolCalls`, and whether it has thrown.
#[derive(Debug, Default)]
pub struct AiSdkClient {
    calls: BTreeMap<Slot, Call>,
    /// The client threw (`InvalidResponseDataError`): its stream is errored, nothing more
    /// comes out, not even at the end.
    dead: bool,
}

impl AiSdkClient {
    /// The events one chunk gives (`transform`).
    pub fn chunk(&mut self, chunk: &Value) -> Vec<Value> {
        if self.dead {
            return Vec::new();
        }
        if let Some(problem) = schema_problem(chunk) {
            // `!chunk.success`, or the error schema: an error part; nothing of it is read.
            return vec![error(match server_error(chunk) {
                Some(message) => message,
                None => format!("Type validation failed: {problem}. Value: {chunk}"),
            })];
        }
        let Some(delta) = chunk["choices"]
            .get(0)
            .map(|choice| &choice["delta"])
            .filter(|delta| !delta.is_null())
        else {
            return Vec::new();
        };
        let mut events = Vec::new();
        // "enqueue reasoning before text deltas"; `reasoning_content ?? reasoning`.
        let reasoning = match &delta["reasoning_content"] {
            Value::Null => &delta["reasoning"],
            set => set,
        };
        if let Some(reasoning) = reasoning.as_str().filter(|r| !r.is_empty()) {
            events.push(json!({"type": "reasoning-delta", "delta": reasoning}));
        }
        if let Some(content) = delta["content"].as_str().filter(|c| !c.is_empty()) {
            events.push(json!({"type": "text-delta", "delta": content}));
        }
        let no_calls = Vec::new();
        for tool_delta in delta["tool_calls"].as_array().unwrap_or(&no_calls) {
            let slot = Slot::of(tool_delta["index"].as_f64().unwrap_or_default());
            let function = &tool_delta["function"];
            let arguments = function["arguments"].as_str();
            let Some(call) = self.calls.get_mut(&slot) else {
                // A new call: without `id` or `function.name` doStream throws, which errors
                // the TransformStream: the error, and nothing after it.
                let (Some(id), Some(name)) = (tool_delta["id"].as_str(), function["name"].as_str())
                else {
                    let field = if tool_delta["id"].is_null() {
                        "id"
                    } else {
                        "function.name"
                    };
                    self.dead = true;
                    events.push(error(format!(
                        "InvalidResponseDataError: Expected '{field}' to be a string. Data: {tool_delta}"
                    )));
                    return events;
                };
                let mut call = Call {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    arguments: arguments.unwrap_or_default().to_owned(),
                    finished: false,
                };
                events.push(json!({"type": "tool-input-start", "id": id, "toolName": name}));
                // "send delta if the argument text has already started"
                if !call.arguments.is_empty() {
                    events.push(
                        json!({"type": "tool-input-delta", "id": id, "delta": call.arguments}),
                    );
                }
                // "some providers send the full tool call in one chunk"
                if is_parsable_json(&call.arguments) {
                    events.extend(finish_call(&mut call));
                }
                self.calls.insert(slot, call);
                continue;
            };
            // A known call: its arguments appended, its `id` and `name` unread; a finished
            // one is ignored.
            if call.finished {
                continue;
            }
            call.arguments.push_str(arguments.unwrap_or_default());
            events.push(json!({
                "type": "tool-input-delta",
                "id": call.id,
                "delta": arguments.unwrap_or_default(),
            }));
            if is_parsable_json(&call.arguments) {
                events.extend(finish_call(call));
            }
        }
        events
    }

    /// The events of the stream's end (`flush`): every unfinished call in an array slot, in
    /// index order, finished with its arguments text as it is.
    pub fn finish(&mut self) -> Vec<Value> {
        if self.dead {
            return Vec::new();
        }
        self.calls
            .iter_mut()
            .filter(|(slot, call)| matches!(slot, Slot::Array(_)) && !call.finished)
            .flat_map(|(_, call)| finish_call(call))
            .collect()
    }
}

fn finish_call(call: &mut Call) -> [Value; 2] {
    call.finished = true;
    [
        json!({"type": "tool-input-end", "id": call.id}),
        json!({"type": "tool-call", "toolCallId": call.id, "toolName": call.name, "input": call.arguments}),
    ]
}

pub(super) fn error(text: String) -> Value {
    json!({"type": "error", "errorText": text})
}

/// The message of a server's error object (`{"error": {"message": …}}`), which the AI SDK's
/// union schema reads as an error part.
pub(super) fn server_error(chunk: &Value) -> Option<String> {
    chunk
        .get("choices")
        .is_none()
        .then(|| chunk["error"]["message"].as_str())
        .flatten()
        .map(str::to_owned)
}

/// What is wrong with a chunk under doStream's chunk schema
/// (`createOpenAICompatibleChatChunkSchema`, zod: unknown keys are allowed), or `None`.
pub fn schema_problem(chunk: &Value) -> Option<String> {
    body_problem(chunk, Shape::Delta)
}

/// What is wrong with a chunk (`shape` [`Shape::Delta`]) or a non-streaming response body
/// ([`Shape::Message`], `OpenAICompatibleChatResponseSchema`): the same fields around each
/// choice's `delta` or `message`.
pub(super) fn body_problem(chunk: &Value, shape: Shape) -> Option<String> {
    let string_or_null = |value: &Value| value.is_null() || value.is_string();
    let Some(object) = chunk.as_object() else {
        return Some("expected object".into());
    };
    for key in ["id", "model"] {
        if !string_or_null(&chunk[key]) {
            return Some(format!("{key}: expected string"));
        }
    }
    if !(chunk["created"].is_null() || chunk["created"].is_number()) {
        return Some("created: expected number".into());
    }
    if !(chunk["usage"].is_null() || chunk["usage"].is_object()) {
        return Some("usage: expected object".into());
    }
    let Some(choices) = object.get("choices").and_then(Value::as_array) else {
        return Some("choices: expected array".into());
    };
    for (i, choice) in choices.iter().enumerate() {
        if !choice.is_object() {
            return Some(format!("choices[{i}]: expected object"));
        }
        if !string_or_null(&choice["finish_reason"]) {
            return Some(format!("choices[{i}].finish_reason: expected string"));
        }
        let field = match shape {
            Shape::Delta => "delta",
            Shape::Message => "message",
        };
        if let Some(problem) = message_problem(&choice[field], shape) {
            return Some(format!("choices[{i}].{field}{problem}"));
        }
    }
    None
}

/// Which schema [`message_problem`] checks: a chunk's `delta` or a non-streaming response's
/// `message`, which differ only in their calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Shape {
    /// A `delta` (`createOpenAICompatibleChatChunkSchema`): may be absent; a call has a
    /// numeric `index`, and its `function.name` and `arguments` may be null.
    Delta,
    /// A `message` (`OpenAICompatibleChatResponseSchema`): required; a call has no `index`,
    /// and its `function.name` and `arguments` are strings.
    Message,
}

/// What is wrong with a `delta` or a `message` (the bridge's `_schema_problem`), as a path
/// suffix and a message.
pub(super) fn message_problem(delta: &Value, shape: Shape) -> Option<String> {
    let string_or_null = |value: &Value| value.is_null() || value.is_string();
    if delta.is_null() && shape == Shape::Delta {
        return None;
    }
    if !delta.is_object() {
        return Some(": expected object".into());
    }
    if !(delta["role"].is_null() || delta["role"] == "assistant") {
        return Some(".role: expected 'assistant'".into());
    }
    for key in ["content", "reasoning_content", "reasoning"] {
        if !string_or_null(&delta[key]) {
            return Some(format!(".{key}: expected string"));
        }
    }
    let calls = &delta["tool_calls"];
    if calls.is_null() {
        return None;
    }
    let Some(calls) = calls.as_array() else {
        return Some(".tool_calls: expected array".into());
    };
    for (i, call) in calls.iter().enumerate() {
        let at = format!(".tool_calls[{i}]");
        if !call.is_object() {
            return Some(format!("{at}: expected object"));
        }
        if shape == Shape::Delta && !call["index"].is_number() {
            return Some(format!("{at}.index: expected number"));
        }
        if !string_or_null(&call["id"]) {
            return Some(format!("{at}.id: expected string"));
        }
        let function = &call["function"];
        if !function.is_object() {
            return Some(format!("{at}.function: expected object"));
        }
        for key in ["name", "arguments"] {
            let read = match shape {
                Shape::Delta => string_or_null(&function[key]),
                Shape::Message => function[key].is_string(),
            };
            if !read {
                return Some(format!("{at}.function.{key}: expected string"));
            }
        }
    }
    None
}

/// provider-utils' `isParsableJson`: `JSON.parse` accepts the text (halves of surrogate
/// pairs included, as JavaScript strings hold them) and `secureJsonParse` finds no own
/// `__proto__` key and no `constructor` object with a `prototype` key, at any depth. One
/// divergence: past 127 levels of nesting serde_json gives up (V8 does not), and such text
/// counts as not parsable here, as it does in the Python bridge past about 1000.
pub fn is_parsable_json(text: &str) -> bool {
    lenient::read_json_text(text).is_ok_and(|(value, _)| !has_prototype_keys(&value))
}

fn has_prototype_keys(value: &Value) -> bool {
    match value {
        Value::Object(object) => {
            object.contains_key("__proto__")
                || object
                    .get("constructor")
                    .is_some_and(|c| c.get("prototype").is_some())
                || object.values().any(has_prototype_keys)
        }
        Value::Array(items) => items.iter().any(has_prototype_keys),
        _ => false,
    }
}

#[cfg(test)]
mod tests;
