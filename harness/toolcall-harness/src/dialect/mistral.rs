//! The `mistral` reference parser (`specs/dialects/mistral.md`): `[TOOL_CALLS]` opens a call,
//! either named (`NAME[ARGS]{…}`, `NAME[CALL_ID]ID[ARGS]{…}`: tokenizers v11 and later) or an
//! array of call objects (`[{"name": …, "arguments": …}, …]`: v2 to v7), told apart by what
//! stands before the first `{` (MS1.2); `[THINK]…[/THINK]` is reasoning. A grammar for the
//! dialect kit. The format has no closer: a call ends with its JSON object, a nested block
//! ([`OBJECT`]); what a complete call means is in [`call`].

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json::MAX_DEPTH;
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading,
};

use crate::event::Event;
use call::{ARGS, CALL_ID, CallError};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `mistral`, described (`Dialect::Mistral`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "mistral",
    models: "Mistral 7B v0.3, Mistral Nemo (v3–v7 arrays); Mistral Small 3.2, Magistral, Ministral 3 (v11+)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "[TOOL_CALLS]GetWeather[ARGS]{\"location\": \"",
        after: "\"}",
        values: Values::Json,
    },
    fragments: &[
        "[TOOL_CALLS]",
        "[ARGS]",
        "[CALL_ID]",
        "[THINK]",
        "[/THINK]",
        "[TOOL_CA",
        "[TOOL_CALLS] [",
        "\"arguments\":{\"location\":\"Paris\"}",
        "\"id\":\"abcDEF123\"",
        "\\\"",
        "\\\\",
        "GetWeather",
    ],
    prefills: &[],
    samples: &["[TOOL_CALLS]x[ARGS]{}"],
};

const TOOL_CALLS: &str = "[TOOL_CALLS]";
const THINK: &str = "[THINK]";
const END_THINK: &str = "[/THINK]";

/// The modes of the table in `specs/dialects/mistral.md` §2.
const TEXT: ModeId = ModeId(0);
const REASONING: ModeId = ModeId(1);
/// After a named call (MS1.8): text, but blanks are markup until something else comes.
const AFTER_CALL: ModeId = ModeId(2);
/// Between the objects of an array (MS1.9), and its stray text.
const ARRAY: ModeId = ModeId(3);
const ARRAY_STRAY: ModeId = ModeId(4);

/// Text and the gap after a named call share their markers (MS1.2, MS2.1).
const TEXT_MARKERS: &[Marker] = &[
    Marker {
        literal: TOOL_CALLS,
        action: Action::Block(&HEAD),
    },
    Marker {
        literal: THINK,
        action: Action::Switch(REASONING),
    },
];

/// MS1.9: an array's punctuation, its next object, and a new `[TOOL_CALLS]`; the same after
/// stray text.
const ARRAY_MARKERS: &[Marker] = &[
    Marker {
        literal: "{",
        action: Action::Block(&OBJECT),
    },
    Marker {
        literal: ",",
        action: Action::Switch(ARRAY),
    },
    Marker {
        literal: "]",
        action: Action::Switch(AFTER_CALL),
    },
    Marker {
        literal: TOOL_CALLS,
        action: Action::Block(&HEAD),
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: TEXT_MARKERS,
    },
    // MS2.2: in reasoning only `[/THINK]` is a marker.
    Mode {
        id: REASONING,
        content: Content::Reasoning,
        markers: &[Marker {
            literal: END_THINK,
            action: Action::Switch(TEXT),
        }],
    },
    Mode {
        id: AFTER_CALL,
        content: Content::Gap { stray: TEXT },
        markers: TEXT_MARKERS,
    },
    Mode {
        id: ARRAY,
        content: Content::Gap { stray: ARRAY_STRAY },
        markers: ARRAY_MARKERS,
    },
    Mode {
        id: ARRAY_STRAY,
        content: Content::Text,
        markers: ARRAY_MARKERS,
    },
]);

/// MS1.2: from `[TOOL_CALLS]` to the first `{` (an array's first object, or a named call's
/// arguments when `[ARGS]` is left out), `[ARGS]`, `[CALL_ID]`, or a next `[TOOL_CALLS]`.
static HEAD: Block = Block::new(&["{", ARGS, CALL_ID, TOOL_CALLS], decode_head, unterminated);

/// MS1.4: after `[CALL_ID]`, the id runs to `[ARGS]` or the arguments' `{`.
static ID: Block = Block::new(&["{", ARGS, TOOL_CALLS], decode_id, unterminated);

/// MS1.4: after `[ARGS]`, blanks up to the arguments' `{`.
static ARGUMENTS: Block = Block::new(&["{", TOOL_CALLS], decode_arguments, unterminated);

/// MS1.6: a call's JSON object ends at the `}` that closes its first `{`, braces inside JSON
/// strings not counted; MS3.3: a `{` that would open a 127th level makes it invalid at once
/// (`specs/streaming.md` C8.2); MS1.7: `[TOOL_CALLS]` cuts it wherever it stands.
static OBJECT: Block = Block::nested(&[TOOL_CALLS], &OBJECT_NESTING, decode_object, unterminated);
static OBJECT_NESTING: Nesting = Nesting {
    max_depth: MAX_DEPTH,
    ..Nesting::JSON_OBJECT
};

/// What follows the first `marker` in `text` (all of it when there is none).
fn after<'a>(text: &'a str, marker: &str) -> &'a str {
    text.split_once(marker).map_or(text, |(_, rest)| rest)
}

/// A part of a named call's head, checked as it arrives (MS3.4): valid, the block goes on in
/// `next`; invalid, it ends here and the stream is in text.
fn go_on<T>(read: Result<T, CallError>, next: &'static Block) -> Outcome {
    match read {
        Ok(_) => Outcome::Extend(next),
        Err(error) => Outcome::Reject(error.to_string(), TEXT),
    }
}

fn decode_head(reading: &Reading<'_>, end: End) -> Outcome {
    let head = after(reading.before(end), TOOL_CALLS);
    match end {
        // MS1.3: blanks, `[` and blanks before the first `{` open an array.
        End::Closer("{") if call::opens_array(head) => Outcome::Extend(&OBJECT),
        End::Closer("{") => go_on(call::name(head), &OBJECT),
        End::Closer(ARGS) => go_on(call::name(head), &ARGUMENTS),
        End::Closer(CALL_ID) => go_on(call::name(head), &ID),
        _ => cut(),
    }
}

fn decode_id(reading: &Reading<'_>, end: End) -> Outcome {
    let id = after(reading.before(end), CALL_ID);
    match end {
        End::Closer("{") => go_on(call::id(id), &OBJECT),
        End::Closer(ARGS) => go_on(call::id(id), &ARGUMENTS),
        _ => cut(),
    }
}

fn decode_arguments(reading: &Reading<'_>, end: End) -> Outcome {
    let gap = after(reading.before(end), ARGS);
    match end {
        End::Closer("{") => go_on(call::gap_before_arguments(gap), &OBJECT),
        _ => cut(),
    }
}

fn decode_object(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        End::Balanced | End::Mismatched => complete(reading),
        End::TooDeep => too_deep(reading),
        End::Closer(_) => cut(),
    }
}

/// Which of the two forms a block holding a JSON object is (MS1.2, MS1.3).
enum Form<'a> {
    /// An object of an array: the mode after it is the array's (MS1.9).
    Array,
    /// A named call, whose head (after `[TOOL_CALLS]`, up to the object's `{`) is this.
    Named(&'a str),
}

/// The form of a block that has reached its object, and the object: from its first `{` (no
/// name, id or head holds one, MS1.4) to the block's end.
fn form<'a>(block: &'a str) -> (Form<'a>, &'a str) {
    let (head, object) = block.split_at(block.find('{').unwrap_or(block.len()));
    // A later object of an array is a block of its own, opened by its `{` (MS1.9).
    if head.is_empty() {
        return (Form::Array, object);
    }
    let head = after(head, TOOL_CALLS);
    if call::opens_array(head) {
        (Form::Array, object)
    } else {
        (Form::Named(head), object)
    }
}

/// The object's closing `}` has come: the block is one call, or invalid (MS3.1 to MS3.4). A
/// named call is followed by the gap after calls (MS1.8), an array's object by the array
/// (MS1.9); an invalid named call by text.
fn complete(reading: &Reading<'_>) -> Outcome {
    let generated_id = reading.generated_id.clone();
    match form(reading.block) {
        (Form::Array, object) => Outcome::of_call(call::array_item(object, generated_id), ARRAY),
        (Form::Named(head), object) => match call::named(head, object, generated_id) {
            Ok(call) => Outcome::Call(vec![Event::ToolCall(call)], AFTER_CALL),
            Err(error) => Outcome::Reject(error.to_string(), TEXT),
        },
    }
}

/// MS3.3: a `{` that would open a 127th level makes the call's JSON invalid at once
/// (`specs/streaming.md` C8.2).
fn too_deep(reading: &Reading<'_>) -> Outcome {
    let error = CallError::InvalidJson(format!(
        "nesting deeper than {} levels of arrays and objects",
        MAX_DEPTH
    ));
    let mode = match form(reading.block).0 {
        Form::Array => ARRAY,
        Form::Named(_) => TEXT,
    };
    Outcome::Reject(error.to_string(), mode)
}

/// MS1.7: a `[TOOL_CALLS]` inside an open call cuts it: the call is invalid, and the marker
/// opens the next one.
fn cut() -> Outcome {
    Outcome::Reopen(Some(CallError::Cut.to_string()), &HEAD)
}

/// MS4.3: a call still open at the end of the stream.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::parser::{StreamParser, run};
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    fn call(id: &str, name: &str, input: &str) -> String {
        format!(r#"{{"type":"tool-call","toolCallId":"{id}","toolName":"{name}","input":{input}}}"#)
    }

    fn text(delta: &str) -> String {
        serde_json::to_string(&Event::text(delta)).expect("an event")
    }

    #[test]
    fn named_calls_in_a_row_and_text_around_them() {
        assert_eq!(
            events(
                "Sure.[TOOL_CALLS]a[ARGS]{\"x\": {\"y\": \"}\"}}\n[TOOL_CALLS]b[CALL_ID]Ab3[ARGS] {}\
                 \n\nDone, {ok}."
            ),
            [
                text("Sure."),
                call("tool-call-1", "a", r#"{"x":{"y":"}"}}"#),
                call("Ab3", "b", "{}"),
                text("Done, {ok}."),
            ]
        );
    }

    #[test]
    fn arrays_of_calls() {
        assert_eq!(
            events(
                "[TOOL_CALLS] [{\"name\": \"a\", \"arguments\": {\"q\": \"[{,]}\"}, \"id\": \"x1\"}, \
                 {\"name\": \"b\", \"arguments\": {}}] ok"
            ),
            [
                call("x1", "a", r#"{"q":"[{,]}"}"#),
                call("tool-call-2", "b", "{}"),
                text("ok"),
            ]
        );
    }

    #[test]
    fn escapes_inside_strings() {
        assert_eq!(
            events(r#"[TOOL_CALLS]f[ARGS]{"a": "\\", "b": "\"}", "c": "\\\"{"}"#),
            [call(
                "tool-call-1",
                "f",
                r#"{"a":"\\","b":"\"}","c":"\\\"{"}"#
            )]
        );
    }

    #[test]
    fn a_next_call_cuts_an_open_one() {
        assert_eq!(
            events("[TOOL_CALLS]a[ARGS]{\"x\": \"[TOOL_CALLS]b[ARGS]{}"),
            [
                r#"{"type":"error","errorText":"mistral tool call cut by [TOOL_CALLS]"}"#
                    .to_owned(),
                text("[TOOL_CALLS]a[ARGS]{\"x\": \""),
                call("tool-call-1", "b", "{}"),
            ]
        );
    }

    #[test]
    fn nesting_is_capped_by_c8() {
        let deepest = format!(
            "{}{}",
            "{\"a\":".repeat(125),
            "{}".to_owned() + &"}".repeat(125)
        );
        let stream = format!("[TOOL_CALLS]f[ARGS]{deepest}");
        let valid = events(&stream);
        assert!(valid[0].contains("\"type\":\"tool-call\""), "{valid:?}");
        let too_deep = format!("[TOOL_CALLS]f[ARGS]{{\"b\":{deepest}}}");
        let invalid = events(&too_deep);
        assert!(
            invalid[0].contains("invalid JSON in mistral tool call: nesting deeper than 126"),
            "{invalid:?}"
        );
        assert_eq!(invalid.len(), 2);
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_call() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("a [TOOL", &mut out);
        assert_eq!(out, [Event::text("a ")]);
        out.clear();
        parser.push("_CALLS]f[ARGS]{\"k\": \"}", &mut out);
        assert_eq!(out, []);
        parser.push("\"}", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push(" \nthen", &mut out);
        assert_eq!(out, [Event::text("then")]);
    }

    #[test]
    fn call_spans_cover_each_call() {
        let stream = "x[TOOL_CALLS] [{\"name\": \"a\"}, {\"name\": \"b\"}]\n[TOOL_CALLS]c{}";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        let first_end = stream.find('}').expect("a brace") + 1;
        let second = stream.rfind("{\"name\"").expect("an object");
        let third = stream.rfind("[TOOL_CALLS]").expect("a marker");
        assert_eq!(
            result.call_spans,
            [1..first_end, second..second + 13, third..stream.len()]
        );
        assert_eq!(parser.markup_spans().len(), 2);
    }
}
