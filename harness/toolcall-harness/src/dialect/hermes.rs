//! The `hermes` reference parser (`specs/dialects/hermes.md`): `<tool_call>` anywhere in the
//! text, up to the first `</tool_call>`, around one JSON object; `<think>…</think>` is
//! reasoning. A grammar for the dialect kit: outside a call it holds back only a possible
//! marker prefix; inside one, the whole block until its closer.

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Block, End, Grammar, Outcome, Reading, sectioned::TEXT};

pub use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `hermes`, described (`Dialect::Hermes`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "hermes",
    models: "Hermes 2/3, Qwen 2.5, Qwen3",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_call>\n{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}\n</tool_call>\n",
        values: Values::Json,
    },
    fragments: &[
        "<tool_call>",
        "</tool_call>",
        "<tool_",
        "\"name\":\"f\"",
        "\"name\":\"read_file\"",
        "\"arguments\":{}",
        "\"arguments\":\"{\\\"path\\\":\\\"x\\\"}\"",
    ],
    prefills: &["<|im_start|>assistant\n<think>\n"],
    samples: &["<tool_call>{\"name\":\"f\",\"arguments\":{}}</tool_call>"],
};

const OPENER: &str = "<tool_call>";
const CLOSER: &str = "</tool_call>";

/// The grammar of a hermes-like dialect: in text, `$opener` opens the call block `$call` and
/// `$think` opens reasoning, anywhere; in reasoning only `$end_think` is a marker (H5). The
/// kit's tables are `'static` data, which a `const fn` cannot build from a parameter.
macro_rules! tagged_calls_grammar {
    ($opener:expr, $call:expr, $think:expr, $end_think:expr) => {{
        use $crate::dialect::kit::{Action, Content, Grammar, Marker, Mode, sectioned};
        Grammar::new(&[
            Mode {
                id: sectioned::TEXT,
                content: Content::Text,
                markers: &[
                    Marker {
                        literal: $opener,
                        action: Action::Block($call),
                    },
                    Marker {
                        literal: $think,
                        action: Action::Switch(sectioned::REASONING),
                    },
                ],
            },
            Mode {
                id: sectioned::REASONING,
                content: Content::Reasoning,
                markers: &[Marker {
                    literal: $end_think,
                    action: Action::Switch(sectioned::TEXT),
                }],
            },
        ])
    }};
}
pub(super) use tagged_calls_grammar;

/// `<think>` opens reasoning anywhere in text; in reasoning only `</think>` is a marker (H5).
pub(crate) static GRAMMAR: Grammar = tagged_calls_grammar!(OPENER, &CALL, "<think>", "</think>");

static CALL: Block = Block::new(&[CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    decode_between(reading, OPENER, CLOSER)
}

/// A block of a hermes-like dialect read whole: the JSON object between `opener` and `closer`
/// (H1.2, H2.1–H2.3), then text. `longcat` reads its `<longcat_tool_call>` blocks with it.
pub(super) fn decode_between(reading: &Reading<'_>, opener: &str, closer: &str) -> Outcome {
    let content = reading.inner(opener, closer);
    Outcome::of_call(call::interpret(content, reading.generated_id.clone()), TEXT)
}

/// A block still open at the end of the stream (C4), then text.
pub(super) fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::event::Event;
    use crate::parser::{StreamParser, run};
    use std::ops::Range;
    use std::sync::Arc;

    fn parser() -> KitParser {
        KitParser::new(&GRAMMAR, Arc::default())
    }

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    #[test]
    fn text_before_between_and_after_calls() {
        assert_eq!(
            events(
                "Hi <tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call> and \
                 <tool_call>{\"name\": \"b\", \"id\": \"c9\"}</tool_call>\r\nbye"
            ),
            [
                r#"{"type":"text-delta","delta":"Hi "}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"a","input":{"x":1}}"#,
                r#"{"type":"text-delta","delta":" and "}"#,
                r#"{"type":"tool-call","toolCallId":"c9","toolName":"b","input":{}}"#,
                r#"{"type":"text-delta","delta":"\r\nbye"}"#,
            ]
        );
    }

    #[test]
    fn call_spans_are_absolute() {
        let stream = "ab<tool_call>{\"name\":\"f\"}</tool_call>c";
        let mut parser = parser();
        let chunks = ["ab<to", "ol_call>{\"name\":\"f\"}</tool", "_call>c"];
        let result = run(&mut parser, chunks);
        assert_eq!(
            result.call_spans,
            vec![Range {
                start: 2,
                end: stream.len() - 1
            }]
        );
    }

    #[test]
    fn double_encoded_arguments() {
        assert_eq!(
            events(r#"<tool_call>{"name": "f", "arguments": "{\"q\": \"é😀\"}"}</tool_call>"#),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"q":"é😀"}}"#
            ]
        );
    }

    #[test]
    fn invalid_blocks_do_not_count_for_ids() {
        assert_eq!(
            events(
                "<tool_call>{\"arguments\": {}}</tool_call>x<tool_call>{\"name\":\"f\"}</tool_call>"
            ),
            [
                r#"{"type":"error","errorText":"tool_call has no string \"name\""}"#,
                r#"{"type":"text-delta","delta":"<tool_call>{\"arguments\": {}}</tool_call>x"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }

    #[test]
    fn lookalike_tags_are_text() {
        let stream = "</tool_call> <tool_call > <Tool_Call> <tool_calls> <tool_ <";
        assert_eq!(
            events(stream),
            [format!(r#"{{"type":"text-delta","delta":"{stream}"}}"#)]
        );
    }

    #[test]
    fn unterminated_call_is_an_error_then_text() {
        assert_eq!(
            events("a <tool_call>{\"name\": \"f\"}</tool_cal"),
            [
                r#"{"type":"text-delta","delta":"a "}"#,
                r#"{"type":"error","errorText":"unterminated tool_call"}"#,
                r#"{"type":"text-delta","delta":"<tool_call>{\"name\": \"f\"}</tool_cal"}"#,
            ]
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_call() {
        let mut parser = parser();
        let mut out = Vec::new();
        parser.push("a <tool", &mut out);
        assert_eq!(out, [Event::text("a ")]);
        out.clear();
        parser.push("_c", &mut out);
        assert_eq!(out, []);
        parser.push("x <", &mut out);
        assert_eq!(out, [Event::text("<tool_cx ")]);
        out.clear();
        parser.push("tool_call>{", &mut out);
        assert_eq!(out, []);
        parser.push("\"name\":\"f\"}</tool_call", &mut out);
        assert_eq!(out, []);
        parser.push(">", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }
}
