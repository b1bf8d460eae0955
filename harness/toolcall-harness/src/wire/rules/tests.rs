//! Each rule of `specs/wire.md` §3 broken by a chunk sequence reasoned by hand, beside the
//! same sequence written right, which breaks none.

use serde_json::{Value, json};

use super::*;

/// A chunk around one choice.
fn chunk(choice: Value) -> Value {
    json!({"id": "x", "object": "chat.completion.chunk", "choices": [choice]})
}

fn delta(delta: Value) -> Value {
    chunk(json!({"index": 0, "delta": delta, "finish_reason": null}))
}

fn finish(reason: &str) -> Value {
    chunk(json!({"index": 0, "delta": {}, "finish_reason": reason}))
}

fn usage() -> Value {
    json!({"object": "chat.completion.chunk", "choices": [], "usage": {"total_tokens": 1}})
}

fn first(index: u64, id: &str, name: &str) -> Value {
    delta(json!({"tool_calls": [
        {"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}
    ]}))
}

fn arguments(index: u64, text: &str) -> Value {
    delta(json!({"tool_calls": [{"index": index, "function": {"arguments": text}}]}))
}

/// The rules `chunks` then `[DONE]` break (`done: false` leaves `[DONE]` out).
fn broken(chunks: &[Value], done: bool) -> Vec<Rule> {
    let mut judge = WireJudge::default();
    for chunk in chunks {
        judge.chunk(chunk);
    }
    if done {
        judge.done();
    }
    judge.finish().into_iter().map(|b| b.rule).collect()
}

/// A right stream: text, a call, the finish, usage.
fn right() -> Vec<Value> {
    vec![
        delta(json!({"role": "assistant", "content": ""})),
        delta(json!({"content": "Let me look."})),
        first(0, "call_1", "get_weather"),
        arguments(0, r#"{"city": "#),
        arguments(0, r#""Paris"}"#),
        finish("tool_calls"),
        usage(),
    ]
}

#[test]
fn a_right_stream_breaks_nothing() {
    assert_eq!(broken(&right(), true), []);
    // Without usage (not asked for) and with text only.
    let text = [
        delta(json!({"role": "assistant", "content": "Hi"})),
        finish("stop"),
    ];
    assert_eq!(broken(&text, true), []);
}

#[test]
fn a_chunk_without_its_object_is_dropped_by_py() {
    let mut chunks = right();
    chunks[1]["object"] = json!("chat.completion");
    assert_eq!(broken(&chunks, true), [Rule::ChunkObject]);
    let mut chunks = right();
    chunks[1] = json!({"object": "chat.completion.chunk", "usage": null});
    assert_eq!(broken(&chunks, true), [Rule::ChunkObject]);
}

#[test]
fn a_chunk_that_fails_the_schema_breaks_w1_2() {
    let mut chunks = right();
    chunks[3]["choices"][0]["delta"]["tool_calls"][0]["index"] = json!("0");
    // Its arguments fragment is then not the call's, so W4.6 follows from it.
    assert_eq!(
        broken(&chunks, true),
        [Rule::ChunkSchema, Rule::ArgumentsAreJson]
    );
}

#[test]
fn done_is_written_once_and_last() {
    assert_eq!(broken(&right(), false), [Rule::DoneOnce]);
    let mut judge = WireJudge::default();
    for chunk in right() {
        judge.chunk(&chunk);
    }
    judge.done();
    judge.done();
    judge.chunk(&usage());
    assert_eq!(
        judge
            .finish()
            .into_iter()
            .map(|b| b.rule)
            .collect::<Vec<_>>(),
        [Rule::DoneOnce, Rule::NothingAfterDone, Rule::UsageChunk]
    );
}

#[test]
fn one_choice_with_index_0() {
    let mut chunks = right();
    chunks[1]["choices"][0]["index"] = json!(1);
    assert_eq!(broken(&chunks, true), [Rule::OneChoice]);
}

/// The rules choice `choice`'s `chunks` break, of a request with `options`, with `[DONE]`
/// after them when `done`.
fn broken_under(options: &RequestOptions, choice: u32, chunks: &[Value], done: bool) -> Vec<Rule> {
    let mut judge = WireJudge::for_choice(options, choice);
    for chunk in chunks {
        judge.chunk(chunk);
    }
    if done {
        judge.done();
    }
    judge.finish().into_iter().map(|b| b.rule).collect()
}

#[test]
fn a_choice_writes_its_own_index() {
    // P6.7: choice 1 of two: its chunks carry index 1, and [DONE] comes after the last
    // choice only.
    let two = RequestOptions {
        n: Some(2),
        ..RequestOptions::default()
    };
    let mut chunks = right();
    chunks.pop(); // the usage chunk is the request's, written once
    let marked = |chunks: &[Value], index: u32| -> Vec<Value> {
        let mut chunks = chunks.to_vec();
        for chunk in &mut chunks {
            chunk["choices"][0]["index"] = json!(index);
        }
        chunks
    };
    assert_eq!(broken_under(&two, 0, &marked(&chunks, 0), false), []);
    assert_eq!(broken_under(&two, 1, &marked(&chunks, 1), true), []);
    // Choice 1 written as index 0 (one choice's chunks merged into another's); the last
    // choice without [DONE].
    assert_eq!(
        broken_under(&two, 1, &marked(&chunks, 0), false),
        [Rule::OneChoice, Rule::DoneOnce]
    );
}

#[test]
fn stop_after_a_named_call_is_accepted() {
    // W6.2: the API answers a forced function with `stop`; `tool_calls` stays right.
    let named = RequestOptions {
        tool_choice: Some(ToolChoice::Named("get_weather".into())),
        ..RequestOptions::default()
    };
    let mut chunks = right();
    assert_eq!(broken_under(&named, 0, &chunks, true), []);
    chunks[5] = finish("stop");
    assert_eq!(broken_under(&named, 0, &chunks, true), []);
    assert_eq!(broken(&chunks, true), [Rule::FinishReason]);
}

#[test]
fn the_role_comes_once_first() {
    let mut chunks = right();
    chunks[0]["choices"][0]["delta"] = json!({"content": ""});
    chunks[1]["choices"][0]["delta"]["role"] = json!("assistant");
    assert_eq!(broken(&chunks, true), [Rule::RoleFirst, Rule::RoleOnce]);
}

#[test]
fn a_first_delta_carries_id_type_and_name() {
    let mut chunks = right();
    chunks[2] = delta(json!({"tool_calls": [
        {"index": 0, "function": {"arguments": ""}}
    ]}));
    chunks[3]["choices"][0]["delta"]["tool_calls"][0]["id"] = json!("call_1");
    chunks[3]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = json!("get_weather");
    // The name arriving later (W4.1) is, to the judge, also a later delta carrying them
    // (W4.3): PY concatenates them onto the empty start.
    assert_eq!(
        broken(&chunks, true),
        [
            Rule::FirstDeltaNamesTheCall,
            Rule::FirstDeltaType,
            Rule::NoRepeatedIdOrName
        ]
    );
    // A first delta fused with the arguments.
    let fused = [
        delta(json!({"role": "assistant", "tool_calls": [
            {"index": 0, "id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ]})),
        finish("tool_calls"),
    ];
    assert_eq!(broken(&fused, true), [Rule::ArgumentsAfterFirstDelta]);
}

#[test]
fn later_deltas_repeat_neither_id_nor_name() {
    let mut chunks = right();
    chunks[3]["choices"][0]["delta"]["tool_calls"][0]["id"] = json!("call_1");
    let breaches = {
        let mut judge = WireJudge::default();
        for chunk in &chunks {
            judge.chunk(chunk);
        }
        judge.done();
        judge.finish()
    };
    assert_eq!(breaches.len(), 1);
    assert_eq!(breaches[0].rule, Rule::NoRepeatedIdOrName);
    // The id is named, not quoted: a server's ids are random (specs/runner.md R6.6).
    assert!(
        breaches[0].detail.ends_with("carries id") && !breaches[0].detail.contains("call_1"),
        "{}",
        breaches[0]
    );
    // Null and "" are no repetition.
    let mut chunks = right();
    chunks[3]["choices"][0]["delta"]["tool_calls"][0]["id"] = json!(null);
    chunks[4]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] = json!("");
    assert_eq!(broken(&chunks, true), []);
}

#[test]
fn indexes_count_calls_from_0() {
    let chunks = [
        delta(json!({"role": "assistant"})),
        first(1, "a", "f"),
        arguments(1, "{}"),
        first(3, "b", "g"),
        arguments(3, "{}"),
        finish("tool_calls"),
    ];
    let mut judge = WireJudge::default();
    for chunk in &chunks {
        judge.chunk(chunk);
    }
    judge.done();
    let breaches = judge.finish();
    assert_eq!(
        breaches.iter().map(|b| b.rule).collect::<Vec<_>>(),
        [Rule::ContiguousIndex]
    );
    assert!(breaches[0].detail.contains("\"index\": 1, the next is 0"));
}

#[test]
fn arguments_concatenate_to_a_json_object() {
    for (fragments, rule) in [
        (vec![r#"{"a": 1"#], true),
        (vec!["{}", r#", "b": 2}"#], true),
        (vec![""], true),
        (vec!["[1]"], true),
        (vec!["{", "}"], false),
        (vec![" {}", " "], false),
        // Data, not a prototype: JSON says so, whatever the AI SDK's filter does.
        (vec![r#"{"__proto__": {"admin": true}}"#], false),
    ] {
        let mut chunks = vec![delta(json!({"role": "assistant"})), first(0, "c", "f")];
        chunks.extend(fragments.iter().map(|f| arguments(0, f)));
        chunks.push(finish("tool_calls"));
        let expected: &[Rule] = if rule { &[Rule::ArgumentsAreJson] } else { &[] };
        assert_eq!(broken(&chunks, true), expected, "{fragments:?}");
    }
}

#[test]
fn reasoning_comes_in_one_field() {
    let both = [
        delta(json!({"role": "assistant", "reasoning_content": "a", "reasoning": "a"})),
        finish("stop"),
    ];
    assert_eq!(broken(&both, true), [Rule::OneReasoningField]);
    let mixed = [
        delta(json!({"role": "assistant", "reasoning_content": "a"})),
        delta(json!({"reasoning": "b"})),
        finish("stop"),
    ];
    assert_eq!(broken(&mixed, true), [Rule::OneReasoningField]);
    let one = [
        delta(json!({"role": "assistant", "reasoning": "a"})),
        delta(json!({"reasoning": "b", "reasoning_content": ""})),
        finish("stop"),
    ];
    assert_eq!(broken(&one, true), []);
}

#[test]
fn finish_reason_once_last_and_right() {
    // Missing.
    let mut chunks = right();
    chunks.remove(5);
    assert_eq!(broken(&chunks, true), [Rule::UsageChunk, Rule::FinishOnce]);
    // `stop` after calls.
    let mut chunks = right();
    chunks[5] = finish("stop");
    assert_eq!(broken(&chunks, true), [Rule::FinishReason]);
    // `tool_calls` without a call, and an unknown reason.
    let text = |reason: &str| {
        vec![
            delta(json!({"role": "assistant", "content": "x"})),
            finish(reason),
        ]
    };
    assert_eq!(broken(&text("tool_calls"), true), [Rule::FinishReason]);
    assert_eq!(broken(&text("done"), true), [Rule::FinishReason]);
    assert_eq!(broken(&text("length"), true), []);
    // Twice, and content after it.
    let mut chunks = right();
    chunks.insert(6, delta(json!({"content": "more"})));
    chunks.insert(7, finish("tool_calls"));
    assert_eq!(
        broken(&chunks, true),
        [Rule::NothingAfterFinish, Rule::FinishOnce]
    );
}

#[test]
fn usage_comes_once_in_its_own_chunk() {
    // Before the finish.
    let mut chunks = right();
    chunks.swap(5, 6);
    assert_eq!(broken(&chunks, true), [Rule::UsageChunk]);
    // An empty choices with no usage.
    let mut chunks = right();
    chunks.insert(1, json!({"object": "chat.completion.chunk", "choices": []}));
    assert_eq!(broken(&chunks, true), [Rule::UsageChunk]);
    // Usage beside a choice.
    let mut chunks = right();
    chunks[5]["usage"] = json!({"total_tokens": 1});
    assert_eq!(broken(&chunks, true), [Rule::UsageOnlyThere]);
}

#[test]
fn every_rule_is_in_the_spec_with_its_severity() {
    // Lines joined: a rule's text wraps.
    let spec = include_str!("../../../../../specs/wire.md")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for rule in Rule::ALL {
        let bullet = format!("- **{} ", rule.id());
        let at = spec
            .find(&bullet)
            .unwrap_or_else(|| panic!("{rule} is not a rule of specs/wire.md"));
        let text = &spec[at..];
        let end = text[2..].find(" - **").map_or(text.len(), |e| e + 2);
        let severity = format!("Severity **{}**", rule.severity());
        assert!(
            text[..end].contains(&severity),
            "{rule}: specs/wire.md says another severity than {severity}"
        );
    }
}

#[test]
fn an_error_chunk_cuts_the_stream() {
    // SGLang's `create_streaming_error_response` after a call's first delta, then [DONE]: the
    // error is the breach (W1.5), not its missing `object` (W1.1) nor a missing finish (W6.1);
    // the call it cut off has no arguments (W4.6).
    let mut chunks = right()[..3].to_vec();
    chunks.push(json!({"error": {"object": "error", "message": "boom", "code": 400}}));
    assert_eq!(
        broken(&chunks, true),
        [Rule::ErrorChunk, Rule::ArgumentsAreJson]
    );
}
