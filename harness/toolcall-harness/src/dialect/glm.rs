//! The `glm-4.5` and `glm-4.7` reference parsers (`specs/dialects/glm-4.5.md`,
//! `specs/dialects/glm-4.7.md`): `<tool_call>` anywhere in the text opens a call block, captured
//! to the first `</tool_call>` and read whole (`call.rs`): a name, then `<arg_key>`/`<arg_value>`
//! pairs whose values are typed by the tool's schema; `<think>…</think>` is reasoning, as in
//! `hermes`.
//!
//! One grammar for the dialect kit, written once by [`glm_grammar!`] and instantiated per
//! layout: the two differ only in where a call's name ends ([`NameEnd`]), which their blocks'
//! decoders pass on.

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, Outcome, Reading, THINK, THINKING,
    sectioned::TEXT,
};

use call::{CallError, NameEnd};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const GLM45_DEFAULT_PREFILL: &str = "";

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const GLM47_DEFAULT_PREFILL: &str = "<|assistant|><think>";

/// `glm-4.5`, described (`Dialect::Glm45`).
pub(crate) static GLM45_DIALECT: Descriptor = Descriptor {
    name: "glm-4.5",
    models: "GLM-4.5, GLM-4.5-Air, GLM-4.6",
    parser: Parser::Kit(&GLM45),
    default_prefill: GLM45_DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_call>GetWeather\n<arg_key>location</arg_key>\n<arg_value>",
        after: "</arg_value>\n</tool_call>",
        values: Values::Text,
    },
    fragments: &[
        "<arg_key>",
        "</arg_key>",
        "<arg_value>",
        "</arg_value>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>",
        "<tool_call>get_time</tool_call>",
    ],
    prefills: &["<|assistant|><think>"],
    samples: &[
        "<tool_call>search_files\n<arg_key>max_results</arg_key>\n<arg_value>1</arg_value>\n</tool_call>",
    ],
};

/// `glm-4.7`, described (`Dialect::Glm47`).
pub(crate) static GLM47_DIALECT: Descriptor = Descriptor {
    name: "glm-4.7",
    models: "GLM-4.7, GLM-4.7-Flash, GLM-5",
    parser: Parser::Kit(&GLM47),
    default_prefill: GLM47_DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_call>GetWeather<arg_key>location</arg_key><arg_value>",
        after: "</arg_value></tool_call>",
        values: Values::Text,
    },
    fragments: &["<tool_call>get_weather<arg_key>city</arg_key><arg_value>"],
    prefills: &["<|assistant|><think>"],
    samples: &["<tool_call>get_time</tool_call>"],
};

const OPENER: &str = "<tool_call>";
const CLOSER: &str = "</tool_call>";

/// The grammar of one layout, whose call block is `$call`: in text, `<tool_call>` opens a call
/// block and `<think>` reasoning; in reasoning only `</think>` is a marker (GL2.1). The kit's
/// tables are `'static` data, which a `const fn` cannot build from a parameter.
macro_rules! glm_grammar {
    ($call:expr) => {
        Grammar::new(&[
            Mode {
                id: TEXT,
                content: Content::Text,
                markers: &[
                    Marker {
                        literal: OPENER,
                        action: Action::Block($call),
                    },
                    THINK,
                ],
            },
            THINKING,
        ])
    };
}

pub(crate) static GLM45: Grammar = glm_grammar!(&CALL_45);
pub(crate) static GLM47: Grammar = glm_grammar!(&CALL_47);

/// GL1.1: a call block ends at the first `</tool_call>`.
static CALL_45: Block = Block::new(&[CLOSER], decode_45, unterminated);
static CALL_47: Block = Block::new(&[CLOSER], decode_47, unterminated);

fn decode_45(reading: &Reading<'_>, _: End) -> Outcome {
    decode(reading, NameEnd::LineBreak)
}

fn decode_47(reading: &Reading<'_>, _: End) -> Outcome {
    decode(reading, NameEnd::ArgKey)
}

fn decode(reading: &Reading<'_>, name_end: NameEnd) -> Outcome {
    let body = reading.inner(OPENER, CLOSER);
    Outcome::of_call(
        call::read(body, name_end, reading.tools, reading.generated_id.clone()),
        TEXT,
    )
}

fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn events(grammar: &'static Grammar, stream: &str) -> Vec<String> {
        crate::dialect::kit::events(grammar, stream)
    }

    #[test]
    fn each_layout_as_its_template_writes_it() {
        let call = r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"get_weather","input":{"city":"Paris","days":3}}"#;
        assert_eq!(
            events(
                &GLM45,
                "Sure.\n<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n\
                 <arg_key>days</arg_key>\n<arg_value>3</arg_value>\n</tool_call>"
            ),
            [r#"{"type":"text-delta","delta":"Sure.\n"}"#, call]
        );
        assert_eq!(
            events(
                &GLM47,
                "Sure.<tool_call>get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value>\
                 <arg_key>days</arg_key><arg_value>3</arg_value></tool_call>"
            ),
            [r#"{"type":"text-delta","delta":"Sure."}"#, call]
        );
    }

    #[test]
    fn the_compact_layout_is_no_glm45_call() {
        let stream = "<tool_call>get_time</tool_call>";
        assert_eq!(
            events(&GLM47, stream),
            [r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"get_time","input":{}}"#]
        );
        assert_eq!(
            events(&GLM45, stream),
            [
                r#"{"type":"error","errorText":"invalid tool_call name: no line break after it"}"#,
                r#"{"type":"text-delta","delta":"<tool_call>get_time</tool_call>"}"#,
            ]
        );
    }

    #[test]
    fn reasoning_then_an_unterminated_call() {
        assert_eq!(
            events(
                &GLM47,
                "<think>A <tool_call> here is thought.</think>Ok<tool_call>f"
            ),
            [
                r#"{"type":"reasoning-delta","delta":"A <tool_call> here is thought."}"#,
                r#"{"type":"text-delta","delta":"Ok"}"#,
                r#"{"type":"error","errorText":"unterminated tool_call"}"#,
                r#"{"type":"text-delta","delta":"<tool_call>f"}"#,
            ]
        );
    }
}
