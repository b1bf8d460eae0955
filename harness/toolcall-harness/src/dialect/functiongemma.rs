//! The `functiongemma` reference parser (`specs/dialects/functiongemma.md`): FunctionGemma's
//! `<start_function_call>call:NAME{key:<escape>text<escape>}<end_function_call>`. In text,
//! `<start_function_call>` opens a call block, captured to the first `<end_function_call>` (or
//! cut by the next `<start_function_call>`, FG1.2) and read whole by Gemma 4's call reader
//! (`gemma4/call.rs`, whose arguments are Gemma's value syntax, `gemma4/value.rs`) with
//! `<escape>` as the string token (FG2.1). No reasoning (FG3.1). A grammar for the dialect kit:
//! outside a block it holds back only a possible opener prefix; inside one, the whole block.

use thiserror::Error;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::gemma4::call::{self, Invalid};
use super::gemma4::value::ValueError;
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// FG3.3, the template's `<start_of_turn>model\n` opens nothing, so a stream starts in text.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `functiongemma`, described (`Dialect::FunctionGemma`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "functiongemma",
    models: "FunctionGemma (270M)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<start_function_call>call:GetWeather{location:<escape>",
        after: "<escape>}<end_function_call>",
        values: Values::Text,
    },
    fragments: &[
        "<start_function_call>",
        "<end_function_call>",
        "<start_function_",
        "<escape>",
        "call:GetWeather{",
        "location:",
        "call:f{n:1,o:{a:[true,null]}}",
        "None",
        "<start_function_response>",
    ],
    prefills: &["<start_of_turn>model\n"],
    samples: &["<start_function_call>call:f{n:1,o:{a:[true,null]}}<end_function_call>"],
};

const OPENER: &str = "<start_function_call>";
const CLOSER: &str = "<end_function_call>";
/// FG2.1: the string token, where Gemma 4 writes `<|"|>`.
const QUOTE: &str = "<escape>";

/// The only mode (the table of `specs/dialects/functiongemma.md` §3).
const TEXT: ModeId = ModeId(0);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[Mode {
    id: TEXT,
    content: Content::Text,
    markers: &[Marker {
        literal: OPENER,
        action: Action::Block(&CALL),
    }],
}]);

/// FG1.1, FG1.2: a block ends at its closer, or is cut by the next opener.
static CALL: Block = Block::new(&[CLOSER, OPENER], decode, unterminated);

/// Why a call block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/functiongemma.md` §6.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// Still open at the end of the stream (C4).
    #[error("unterminated function_call")]
    Unterminated,
    /// Cut by the next `<start_function_call>` before its `<end_function_call>` (FG1.2).
    #[error("unclosed function_call: <start_function_call> before <end_function_call>")]
    Unclosed,
    /// The `call:NAME{…}` frame is not FG1.4's.
    #[error("invalid call in function_call: {0}")]
    Call(&'static str),
    /// The arguments are not FG2.1–FG2.4's.
    #[error("invalid arguments in function_call: {0}")]
    Arguments(ValueError),
}

impl From<Invalid> for CallError {
    fn from(invalid: Invalid) -> Self {
        match invalid {
            Invalid::NoCall => CallError::Call("no call: right after <start_function_call>"),
            Invalid::Call(detail) => CallError::Call(detail),
            Invalid::Arguments(error) => CallError::Arguments(error),
        }
    }
}

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end == End::Closer(OPENER) {
        return Outcome::Reopen(Some(CallError::Unclosed.to_string()), &CALL);
    }
    let inner = reading.inner(OPENER, CLOSER);
    let read = call::read(inner, reading.generated_id.clone(), QUOTE);
    Outcome::of_call(read.map_err(CallError::from), TEXT)
}

fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::event::Event;
    use crate::parser::StreamParser;
    use std::ops::Range;
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    #[test]
    fn calls_in_a_row_with_text_around() {
        assert_eq!(
            events(
                "Sure. <start_function_call>call:GetWeather{location:<escape>Paris<escape>}\
                 <end_function_call><start_function_call>call:f{n:1,o:{a:[true,null]}}\
                 <end_function_call> done"
            ),
            [
                r#"{"type":"text-delta","delta":"Sure. "}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"GetWeather","input":{"location":"Paris"}}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-2","toolName":"f","input":{"n":1,"o":{"a":[true,null]}}}"#,
                r#"{"type":"text-delta","delta":" done"}"#,
            ]
        );
    }

    #[test]
    fn there_is_no_reasoning() {
        // FG3.1: Gemma 4's channel and `<think>` are text.
        let stream = "<think>a</think><|channel>thought\nb<channel|>";
        assert_eq!(
            events(stream),
            [format!(
                r#"{{"type":"text-delta","delta":{}}}"#,
                serde_json::to_string(stream).unwrap_or_default()
            )]
        );
    }

    #[test]
    fn a_second_opener_cuts_the_block() {
        assert_eq!(
            events(
                "<start_function_call>call:a{x:1}<start_function_call>call:b{}<end_function_call>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed function_call: <start_function_call> before <end_function_call>"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>call:a{x:1}"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"b","input":{}}"#,
            ]
        );
    }

    #[test]
    fn a_block_cut_twice_then_left_open() {
        // FG1.2 then C4: two cuts, and the last block runs to the end of the stream.
        assert_eq!(
            events("<start_function_call>x<start_function_call>y<start_function_call>z"),
            [
                r#"{"type":"error","errorText":"unclosed function_call: <start_function_call> before <end_function_call>"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>x"}"#,
                r#"{"type":"error","errorText":"unclosed function_call: <start_function_call> before <end_function_call>"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>y"}"#,
                r#"{"type":"error","errorText":"unterminated function_call"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>z"}"#,
            ]
        );
    }

    #[test]
    fn unterminated_block_is_an_error_then_text() {
        // A closer cut short at the end of the stream is part of the unterminated block.
        assert_eq!(
            events("a <start_function_call>call:f{x:<escape>y<escape>}<end_function_ca"),
            [
                r#"{"type":"text-delta","delta":"a "}"#,
                r#"{"type":"error","errorText":"unterminated function_call"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>call:f{x:<escape>y<escape>}<end_function_ca"}"#,
            ]
        );
    }

    #[test]
    fn the_errors_name_function_call() {
        for (stream, error) in [
            (
                "<start_function_call>f{}<end_function_call>",
                "invalid call in function_call: no call: right after <start_function_call>",
            ),
            (
                "<start_function_call>call:f{}}<end_function_call>",
                "invalid call in function_call: text after the arguments",
            ),
            (
                "<start_function_call>call:f{a:<escape>x}<end_function_call>",
                "invalid arguments in function_call: a string is not closed (no <escape> after it)",
            ),
            (
                "<start_function_call>call:f{\"a\":1}<end_function_call>",
                "invalid arguments in function_call: expected a key (bare, or a <escape> string)",
            ),
            (
                "<start_function_call>call:f{a:<|\"|>x<|\"|>}<end_function_call>",
                "invalid arguments in function_call: expected a value",
            ),
        ] {
            let out = events(stream);
            assert_eq!(
                out.first().map(String::as_str),
                Some(
                    format!(
                        r#"{{"type":"error","errorText":"{}"}}"#,
                        error.replace('"', "\\\"")
                    )
                    .as_str()
                ),
                "{stream}"
            );
        }
    }

    #[test]
    fn invalid_blocks_do_not_count_for_ids() {
        assert_eq!(
            events(
                "<start_function_call>call:f{x:Paris}<end_function_call>\
                 <start_function_call>call:g{}<end_function_call>"
            ),
            [
                r#"{"type":"error","errorText":"invalid arguments in function_call: a bare value is not a number, true, false, null or None"}"#,
                r#"{"type":"text-delta","delta":"<start_function_call>call:f{x:Paris}<end_function_call>"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"g","input":{}}"#,
            ]
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_anything() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("a <start_function", &mut out);
        assert_eq!(out, [Event::text("a ")]);
        out.clear();
        // FG7.1: `<end_function_call>` and `<escape>` are no markers in text.
        parser.push("_x <end_function_call><escape><", &mut out);
        assert_eq!(
            out,
            [Event::text("<start_function_x <end_function_call><escape>")]
        );
        out.clear();
        parser.push("start_function_call>call:f{}<end_function_call", &mut out);
        assert_eq!(out, []);
        parser.push(">", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }

    #[test]
    fn a_prefill_inside_a_block_is_context() {
        // C9.3: the block the prefill opened is read whole; only its stream part is output.
        let tools = Arc::default();
        let mut parser = KitParser::new(&GRAMMAR, tools);
        parser.prefill("<start_of_turn>model\n<start_function_call>call:");
        let result = crate::parser::run(&mut parser, ["f{a:1}<end_function_call>ok"]);
        assert_eq!(result.call_spans, vec![Range { start: 0, end: 25 }]);
        assert!(
            matches!(result.events.as_slice(), [Event::ToolCall(call), Event::TextDelta { delta }]
                if call.tool_name == "f" && delta == "ok"),
            "{:?}",
            result.events
        );
    }
}
