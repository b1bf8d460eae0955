//! The facts of the retired Python and Node bridges' unit tests (which read engines' deltas
//! for adapters before `tch` read the wire), reasoned by hand from doStream, over whole
//! chunks.

use serde_json::{Value, json};

use super::*;

fn text(delta: &str) -> Value {
    json!({"type": "text-delta", "delta": delta})
}

fn reasoning(delta: &str) -> Value {
    json!({"type": "reasoning-delta", "delta": delta})
}

fn start(id: &str, name: &str) -> Value {
    json!({"type": "tool-input-start", "id": id, "toolName": name})
}

fn delta(id: &str, fragment: &str) -> Value {
    json!({"type": "tool-input-delta", "id": id, "delta": fragment})
}

fn end(id: &str) -> Value {
    json!({"type": "tool-input-end", "id": id})
}

fn call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": arguments})
}

/// A tool-call delta; `None` leaves the field out.
fn tool(index: u64, id: Option<&str>, name: Option<&str>, arguments: Option<&str>) -> Value {
    let mut function = serde_json::Map::new();
    if let Some(name) = name {
        function.insert("name".into(), json!(name));
    }
    if let Some(arguments) = arguments {
        function.insert("arguments".into(), json!(arguments));
    }
    let mut item = json!({"index": index, "function": function});
    if let Some(id) = id {
        item["id"] = json!(id);
    }
    item
}

fn calls(items: Vec<Value>) -> Value {
    json!({"tool_calls": items})
}

/// A chunk around one delta.
fn chunk(delta: Value) -> Value {
    json!({"object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta}]})
}

/// Every delta in order, then the end: the events of each, and the end's last.
fn run(deltas: Vec<Value>) -> Vec<Vec<Value>> {
    let mut client = AiSdkClient::default();
    let mut out: Vec<Vec<Value>> = deltas
        .into_iter()
        .map(|d| client.chunk(&chunk(d)))
        .collect();
    out.push(client.finish());
    out
}

#[test]
fn content_is_text_and_empty_content_nothing() {
    assert_eq!(
        run(vec![
            json!({"role": "assistant", "content": "Hel"}),
            json!({"content": "lo"})
        ]),
        [vec![text("Hel")], vec![text("lo")], vec![]]
    );
    assert_eq!(
        run(vec![
            json!({"content": ""}),
            json!({"content": null}),
            json!({})
        ]),
        vec![Vec::<Value>::new(); 4]
    );
}

#[test]
fn reasoning_content_or_else_reasoning_comes_before_content() {
    assert_eq!(
        run(vec![
            json!({"reasoning_content": "think"}),
            json!({"reasoning": "hmm"})
        ]),
        [vec![reasoning("think")], vec![reasoning("hmm")], vec![]]
    );
    // `??` falls through only on null: an empty reasoning_content hides `reasoning`.
    assert_eq!(
        run(vec![
            json!({"reasoning_content": "a", "reasoning": "b"}),
            json!({"reasoning_content": "", "reasoning": "c"})
        ]),
        [vec![reasoning("a")], vec![], vec![]]
    );
    assert_eq!(
        run(vec![json!({"content": "text", "reasoning_content": "why"})]),
        [vec![reasoning("why"), text("text")], vec![]]
    );
}

#[test]
fn a_call_in_one_delta_is_complete_at_once() {
    let arguments = r#"{"city": "Paris"}"#;
    assert_eq!(
        run(vec![
            calls(vec![tool(
                0,
                Some("call_1"),
                Some("get_weather"),
                Some(arguments)
            )]),
            json!({"content": "after"}),
        ]),
        [
            vec![
                start("call_1", "get_weather"),
                delta("call_1", arguments),
                end("call_1"),
                call("call_1", "get_weather", arguments)
            ],
            vec![text("after")],
            vec![]
        ]
    );
}

#[test]
fn a_call_streamed_in_fragments_completes_when_its_json_parses() {
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("call_1"), Some("f"), None)]),
            calls(vec![tool(0, None, None, Some(r#"{"a": "#))]),
            calls(vec![tool(0, None, None, Some("1"))]),
            calls(vec![tool(0, None, None, Some("}"))]),
        ]),
        [
            vec![start("call_1", "f")],
            vec![delta("call_1", r#"{"a": "#)],
            vec![delta("call_1", "1")],
            vec![
                delta("call_1", "}"),
                end("call_1"),
                call("call_1", "f", r#"{"a": 1}"#)
            ],
            vec![]
        ]
    );
}

#[test]
fn arguments_after_completion_and_a_second_call_under_its_index_are_ignored() {
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("call_1"), Some("f"), Some("{}"))]),
            calls(vec![tool(0, None, None, Some(r#", "late": 1}"#))]),
            calls(vec![tool(0, Some("call_2"), Some("g"), Some("{}"))]),
        ]),
        [
            vec![
                start("call_1", "f"),
                delta("call_1", "{}"),
                end("call_1"),
                call("call_1", "f", "{}")
            ],
            vec![],
            vec![],
            vec![]
        ]
    );
}

#[test]
fn a_number_completes_a_call_early() {
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("c"), Some("f"), Some(""))]),
            calls(vec![tool(0, None, None, Some("1"))]),
            calls(vec![tool(0, None, None, Some("2"))]),
        ]),
        [
            vec![start("c", "f")],
            vec![delta("c", "1"), end("c"), call("c", "f", "1")],
            vec![],
            vec![]
        ]
    );
}

#[test]
fn two_calls_by_index() {
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("a"), Some("f"), Some(r#"{"x":"#))]),
            calls(vec![tool(1, Some("b"), Some("g"), Some(r#"{"y":"#))]),
            calls(vec![
                tool(1, None, None, Some("2}")),
                tool(0, None, None, Some("1}"))
            ]),
        ]),
        [
            vec![start("a", "f"), delta("a", r#"{"x":"#)],
            vec![start("b", "g"), delta("b", r#"{"y":"#)],
            vec![
                delta("b", "2}"),
                end("b"),
                call("b", "g", r#"{"y":2}"#),
                delta("a", "1}"),
                end("a"),
                call("a", "f", r#"{"x":1}"#)
            ],
            vec![]
        ]
    );
}

#[test]
fn a_later_delta_reads_arguments_only_and_an_empty_one_streams_an_empty_delta() {
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("a"), Some("f"), Some("{"))]),
            calls(vec![tool(0, Some("other"), Some("g"), Some("}"))]),
        ]),
        [
            vec![start("a", "f"), delta("a", "{")],
            vec![delta("a", "}"), end("a"), call("a", "f", "{}")],
            vec![]
        ]
    );
    assert_eq!(
        run(vec![
            calls(vec![tool(0, Some("a"), Some("f"), None)]),
            calls(vec![tool(0, None, None, None)]),
        ]),
        [
            vec![start("a", "f")],
            vec![delta("a", "")],
            vec![end("a"), call("a", "f", "")]
        ]
    );
}

#[test]
fn ids_are_kept_exactly_and_empty_ones_are_strings() {
    let events = run(vec![calls(vec![tool(
        0,
        Some("functions.get_weather:0"),
        Some("get_weather"),
        Some("{}"),
    )])]);
    assert_eq!(events[0][3]["toolCallId"], "functions.get_weather:0");
    assert_eq!(
        run(vec![calls(vec![tool(0, Some(""), Some(""), Some("{}"))])]),
        [
            vec![start("", ""), delta("", "{}"), end(""), call("", "", "{}")],
            vec![]
        ]
    );
}

#[test]
fn unfinished_calls_finish_at_the_end_in_index_order_as_they_are() {
    assert_eq!(
        run(vec![calls(vec![tool(0, Some("a"), Some("f"), None)])])[1],
        [end("a"), call("a", "f", "")]
    );
    let prefix = r#"{"city": "Par"#;
    assert_eq!(
        run(vec![calls(vec![tool(
            0,
            Some("a"),
            Some("f"),
            Some(prefix)
        )])])[1],
        [end("a"), call("a", "f", prefix)]
    );
    assert_eq!(
        run(vec![
            calls(vec![tool(2, Some("c"), Some("h"), Some("{"))]),
            calls(vec![tool(0, Some("a"), Some("f"), Some("["))]),
        ])[2],
        [end("a"), call("a", "f", "["), end("c"), call("c", "h", "{")]
    );
    assert_eq!(
        run(vec![calls(vec![
            tool(0, Some("a"), Some("f"), Some("{}")),
            tool(1, Some("b"), Some("g"), Some("{"))
        ])])[1],
        [end("b"), call("b", "g", "{")]
    );
}

#[test]
fn a_first_delta_without_id_or_name_errors_the_stream() {
    let mut client = AiSdkClient::default();
    let events = client.chunk(&chunk(json!({
        "content": "hi",
        "tool_calls": [tool(0, None, Some("f"), Some("{}"))],
    })));
    assert_eq!(events[0], text("hi"));
    assert_eq!(events.len(), 2);
    assert!(
        events[1]["errorText"]
            .as_str()
            .is_some_and(|e| e.contains("Expected 'id' to be a string."))
    );
    assert_eq!(
        client.chunk(&chunk(json!({"content": "more"}))),
        Vec::<Value>::new()
    );
    assert_eq!(client.finish(), Vec::<Value>::new());

    let mut client = AiSdkClient::default();
    let events = client.chunk(&chunk(calls(vec![tool(0, Some("a"), None, Some("{}"))])));
    assert!(
        events[0]["errorText"]
            .as_str()
            .is_some_and(|e| e.contains("Expected 'function.name' to be a string."))
    );
    // A started call, then an error: it is never finished.
    let mut client = AiSdkClient::default();
    assert_eq!(
        client.chunk(&chunk(calls(vec![tool(
            0,
            Some("a"),
            Some("f"),
            Some("{")
        )]))),
        [start("a", "f"), delta("a", "{")]
    );
    assert_eq!(
        client.chunk(&chunk(calls(vec![tool(1, None, None, Some("{}"))])))[0]["type"],
        "error"
    );
    assert_eq!(client.finish(), Vec::<Value>::new());
}

#[test]
fn a_chunk_that_fails_the_schema_is_skipped_with_an_error() {
    let mut client = AiSdkClient::default();
    let events = client.chunk(&chunk(json!({
        "content": "lost",
        "tool_calls": [{"id": "a", "function": {"name": "f"}}],
    })));
    assert_eq!(events.len(), 1);
    assert!(
        events[0]["errorText"]
            .as_str()
            .is_some_and(|e| e.contains("index"))
    );
    assert_eq!(
        client.chunk(&chunk(json!({"content": "kept"}))),
        [text("kept")]
    );
    // No `choices`: refused too; a server's error object gives its message.
    assert_eq!(client.chunk(&json!({"usage": {}}))[0]["type"], "error");
    assert_eq!(
        client.chunk(&json!({"error": {"message": "overloaded"}})),
        [json!({"type": "error", "errorText": "overloaded"})]
    );
    // A usage chunk with no choice reads nothing, and is no error.
    assert_eq!(
        client.chunk(&json!({"choices": [], "usage": {"total_tokens": 3}})),
        Vec::<Value>::new()
    );
}

#[test]
fn parsable_json_is_json_parse_and_the_prototype_filter() {
    for good in [
        "{}",
        r#" {"a": [1, 2.5e3, null, true]} "#,
        r#""s""#,
        "1",
        "-0",
        "[]",
        r#""\ud800""#,
        r#"{"constructor": {"name": "x"}}"#,
        r#"{"constructor": "prototype"}"#,
        r#"{"constructor": {"prototype": 1}, "constructor": 2}"#,
    ] {
        assert!(is_parsable_json(good), "{good}");
    }
    for bad in [
        "",
        " ",
        "{",
        "NaN",
        "[Infinity]",
        "-Infinity",
        "{'a': 1}",
        "\u{feff}{}",
        "{} x",
        "01",
        r#"{"a": 1,}"#,
        "\u{a0}{}",
        r#"{"__proto__": {}}"#,
        r#"{"a": [{"\u005f_proto__": 1}]}"#,
        r#"{"constructor": {"prototype": {}}}"#,
    ] {
        assert!(!is_parsable_json(bad), "{bad:?}");
    }
}
