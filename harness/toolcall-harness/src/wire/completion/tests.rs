//! Each rule of `specs/wire.md` §3, "The non-streaming response", broken by an object reasoned
//! by hand from the API reference's chat completion object, beside the object written right,
//! which breaks none; and W0.4's reading.

use serde_json::{Value, json};

use super::*;

/// A right answer: reasoning, text and one call, as the API reference's chat completion
/// object has them (`reasoning_content` is the engines' field).
fn right() -> Value {
    json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant",
            "content": "Let me look.",
            "reasoning_content": "Weather, so a call.",
            "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}],
        }}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    })
}

fn broken(completion: &Value) -> Vec<Rule> {
    read(completion, false)
        .1
        .into_iter()
        .map(|b| b.rule)
        .collect()
}

#[test]
fn a_right_completion_breaks_nothing() {
    let (events, breaches) = read(&right(), false);
    assert_eq!(breaches, []);
    // W0.4: reasoning, text, then the call, its arguments text as the input.
    assert_eq!(
        events,
        [
            json!({"type": "reasoning-delta", "delta": "Weather, so a call."}),
            json!({"type": "text-delta", "delta": "Let me look."}),
            json!({"type": "tool-call", "toolCallId": "call_1", "toolName": "get_weather",
                "input": "{\"city\": \"Paris\"}"}),
        ]
    );
    // W8.4: no role.
    let mut completion = right();
    completion["choices"][0]["message"]
        .as_object_mut()
        .expect("a message")
        .remove("role");
    assert_eq!(broken(&completion), [Rule::CompletionRole]);
}

#[test]
fn a_wrong_object_breaks_w8_1() {
    // A chunk's object name: read all the same (the AI SDK does not look at it).
    let mut completion = right();
    completion["object"] = json!("chat.completion.chunk");
    assert_eq!(broken(&completion), [Rule::CompletionObject]);
    assert_eq!(read(&completion, false).0.len(), 3);
    // Arguments as an object, not a string: doGenerate throws, nothing is read.
    let mut completion = right();
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] =
        json!({"city": "Paris"});
    let (events, breaches) = read(&completion, false);
    assert_eq!(
        breaches.iter().map(|b| b.rule).collect::<Vec<_>>(),
        [Rule::CompletionObject]
    );
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["type"], "error");
    // No choice at all.
    let mut completion = right();
    completion["choices"] = json!([]);
    assert_eq!(broken(&completion), [Rule::CompletionObject]);
    // The server's error object: its message is the error.
    let (events, _) = read(&json!({"error": {"message": "boom"}}), false);
    assert_eq!(events, [json!({"type": "error", "errorText": "boom"})]);
}

#[test]
fn calls_carry_id_name_and_type() {
    let call = |completion: &mut Value| -> Value {
        completion["choices"][0]["message"]["tool_calls"][0].take()
    };
    let mut completion = right();
    let mut without_id = call(&mut completion);
    without_id.as_object_mut().expect("a call").remove("id");
    completion["choices"][0]["message"]["tool_calls"][0] = without_id;
    assert_eq!(broken(&completion), [Rule::CompletionCallNamed]);
    // `id ?? generateId()`: the call is read under an invented id.
    assert_eq!(read(&completion, false).0[2]["toolCallId"], "generated-0");
    let mut completion = right();
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["name"] = json!("");
    assert_eq!(broken(&completion), [Rule::CompletionCallNamed]);
    let mut completion = right();
    completion["choices"][0]["message"]["tool_calls"][0]
        .as_object_mut()
        .expect("a call")
        .remove("type");
    assert_eq!(broken(&completion), [Rule::CompletionCallType]);
}

#[test]
fn the_stream_rules_a_message_breaks() {
    // W4.6: arguments that are no JSON object.
    let mut completion = right();
    completion["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] =
        json!("[\"Paris\"]");
    assert_eq!(broken(&completion), [Rule::ArgumentsAreJson]);
    // W6.1: no finish_reason; W6.2: stop after a call.
    let mut completion = right();
    completion["choices"][0]["finish_reason"] = json!(null);
    assert_eq!(broken(&completion), [Rule::FinishOnce]);
    completion["choices"][0]["finish_reason"] = json!("stop");
    assert_eq!(broken(&completion), [Rule::FinishReason]);
    // ... unless the request named the tool (`specs/protocol.md` §6): the API's own `stop`.
    assert_eq!(read(&completion, true).1, []);
    // W5.2: both reasoning fields, of which `reasoning_content` is read.
    let mut completion = right();
    completion["choices"][0]["message"]["reasoning"] = json!("other");
    assert_eq!(broken(&completion), [Rule::OneReasoningField]);
    assert_eq!(
        read(&completion, false).0[0]["delta"],
        "Weather, so a call."
    );
    // W2.1: a second choice.
    let mut completion = right();
    let second = completion["choices"][0].clone();
    completion["choices"]
        .as_array_mut()
        .expect("choices")
        .push(second);
    assert_eq!(broken(&completion), [Rule::OneChoice]);
}

#[test]
fn the_object_comes_alone() {
    let mut reader = CompletionReader::default();
    assert_eq!(reader.object(&right()).len(), 3);
    assert_eq!(reader.finish(), []);
    // Chunks or [DONE] beside it break W8.1, and the second line gives nothing.
    let mut reader = CompletionReader::default();
    reader.object(&right());
    assert_eq!(reader.object(&right()), Vec::<Value>::new());
    reader.done();
    let breaches = reader.finish();
    assert_eq!(breaches.len(), 1);
    assert_eq!(breaches[0].rule, Rule::CompletionObject);
    // No object at all.
    let breaches = CompletionReader::default().finish();
    assert_eq!(breaches[0].rule, Rule::CompletionObject);
}
