//! The `gemma4` reference parser (`specs/dialects/gemma4.md`): `<|tool_call>` anywhere in text
//! opens a call block, captured to the first `<tool_call|>` (or cut by the next `<|tool_call>`)
//! and read whole (`call.rs`, whose arguments are Gemma's own value syntax, `value.rs`);
//! `<|channel>thought\n…<channel|>` is reasoning. A grammar for the dialect kit: outside a
//! block it holds back only a possible marker prefix; inside one, the whole block.

pub(super) mod call;
pub(super) mod value;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};

pub(crate) use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `gemma4`, described (`Dialect::Gemma4`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "gemma4",
    models: "Gemma 4 (E2B, E4B, 26B-A4B, 31B)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|tool_call>call:GetWeather{location:<|\"|>",
        after: "<|\"|>}<tool_call|>",
        values: Values::Text,
    },
    fragments: &[
        "<|tool_call>",
        "<tool_call|>",
        "<|\"|>",
        "call:GetWeather{",
        "location:",
        "call:f{n:1,o:{a:[true,null]}}",
        "None",
        "<|channel>thought\n",
        "<|channel>",
        "<channel|>",
    ],
    prefills: &[
        "<|turn>model\n",
        "<|turn>model\n<|channel>thought\n<channel|>",
    ],
    samples: &["<|tool_call>call:f{n:1,o:{a:[true,null]}}<tool_call|>"],
};

const OPENER: &str = "<|tool_call>";
const CLOSER: &str = "<tool_call|>";

/// Modes (the table of `specs/dialects/gemma4.md` §3).
const TEXT: ModeId = ModeId(0);
const REASONING: ModeId = ModeId(1);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: &[
            Marker {
                literal: OPENER,
                action: Action::Block(&CALL),
            },
            // GM3.1: the channel token, its label and the label's newline open reasoning.
            Marker {
                literal: "<|channel>thought\n",
                action: Action::Switch(REASONING),
            },
        ],
    },
    // GM3.3: in reasoning only the channel closer is a marker (E4.4).
    Mode {
        id: REASONING,
        content: Content::Reasoning,
        markers: &[Marker {
            literal: "<channel|>",
            action: Action::Switch(TEXT),
        }],
    },
]);

/// GM1.1, GM1.2: a block ends at its closer, or is cut by the next opener.
static CALL: Block = Block::new(&[CLOSER, OPENER], decode, unterminated);

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end == End::Closer(OPENER) {
        return Outcome::Reopen(Some(CallError::Unclosed.to_string()), &CALL);
    }
    let inner = reading.inner(OPENER, CLOSER);
    let read = call::read(inner, reading.generated_id.clone(), value::QUOTE);
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
                "Sure. <|tool_call>call:GetWeather{location:<|\"|>Paris<|\"|>}<tool_call|>\
                 <|tool_call>call:f{n:1,o:{a:[true,null]}}<tool_call|> done"
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
    fn thought_channel_is_reasoning_and_its_markers_markup() {
        assert_eq!(
            events("<|channel>thought\nCall <|tool_call> later.<channel|>Hi <channel|>"),
            [
                r#"{"type":"reasoning-delta","delta":"Call <|tool_call> later."}"#,
                r#"{"type":"text-delta","delta":"Hi <channel|>"}"#,
            ]
        );
    }

    #[test]
    fn other_channels_are_text() {
        let stream = "<|channel>final\nx <|channel>thought y <|channel>";
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
            events("<|tool_call>call:a{x:1}<|tool_call>call:b{}<tool_call|>"),
            [
                r#"{"type":"error","errorText":"unclosed tool_call: <|tool_call> before <tool_call|>"}"#,
                r#"{"type":"text-delta","delta":"<|tool_call>call:a{x:1}"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"b","input":{}}"#,
            ]
        );
    }

    #[test]
    fn unterminated_block_is_an_error_then_text() {
        assert_eq!(
            events("a <|tool_call>call:f{x:<|\"|>y<|\"|>}<tool_call"),
            [
                r#"{"type":"text-delta","delta":"a "}"#,
                r#"{"type":"error","errorText":"unterminated tool_call"}"#,
                r#"{"type":"text-delta","delta":"<|tool_call>call:f{x:<|\"|>y<|\"|>}<tool_call"}"#,
            ]
        );
    }

    #[test]
    fn invalid_blocks_do_not_count_for_ids() {
        assert_eq!(
            events("<|tool_call>call:f{x:Paris}<tool_call|><|tool_call>call:g{}<tool_call|>"),
            [
                r#"{"type":"error","errorText":"invalid arguments in tool_call: a bare value is not a number, true, false, null or None"}"#,
                r#"{"type":"text-delta","delta":"<|tool_call>call:f{x:Paris}<tool_call|>"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"g","input":{}}"#,
            ]
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_anything() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("a <|", &mut out);
        assert_eq!(out, [Event::text("a ")]);
        out.clear();
        parser.push("channel>thought", &mut out);
        assert_eq!(out, []);
        parser.push(" x", &mut out);
        assert_eq!(out, [Event::text("<|channel>thought x")]);
        out.clear();
        parser.push("<|tool_call>call:f{}<tool_call", &mut out);
        assert_eq!(out, []);
        parser.push("|>", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }

    #[test]
    fn a_prefill_inside_a_block_is_context() {
        // C9.3: the block the prefill opened is read whole; only its stream part is output.
        let tools = Arc::default();
        let mut parser = KitParser::new(&GRAMMAR, tools);
        parser.prefill("<|turn>model\n<|tool_call>call:");
        let result = crate::parser::run(&mut parser, ["f{a:1}<tool_call|>ok"]);
        assert_eq!(result.call_spans, vec![Range { start: 0, end: 18 }]);
        assert!(
            matches!(result.events.as_slice(), [Event::ToolCall(call), Event::TextDelta { delta }]
                if call.tool_name == "f" && delta == "ok"),
            "{:?}",
            result.events
        );
    }
}
