//! The `poolside` reference parser (`specs/dialects/poolside.md`): poolside's Laguna models
//! write GLM's calls (`<tool_call>NAME<arg_key>K</arg_key><arg_value>V</arg_value></tool_call>`,
//! with or without line breaks between the elements) and `<think>` reasoning, so the parser is
//! `glm-4.7`'s grammar and decoders, which read both layouts (GLS1.2, PL1.1). Only the
//! descriptor is Laguna's own: its name, its generation prompts (PL2.1) and fragments.

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::glm::GLM47;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// Laguna-XS.2's with thinking off, its default, which leaves the reply in text (PL2.2).
pub(crate) const DEFAULT_PREFILL: &str = "<assistant>\n</think>";

/// `poolside`, described (`Dialect::Poolside`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "poolside",
    models: "poolside Laguna-XS.2, Laguna-XS-2.1, Laguna-S-2.1",
    parser: Parser::Kit(&GLM47),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_call>GetWeather\n<arg_key>location</arg_key>\n<arg_value>",
        after: "</arg_value>\n</tool_call>\n",
        values: Values::Text,
    },
    fragments: &[
        "<assistant>",
        "</assistant>",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>",
        "</arg_value>\n</tool_call>\n",
    ],
    // PL2.1: XS thinking, S-2.1's default (thinking), S-2.1 thinking off.
    prefills: &[
        DEFAULT_PREFILL,
        "<assistant>\n<think>",
        "<assistant><think>",
        "<assistant></think>",
    ],
    samples: &[
        "<tool_call>read_file\n<arg_key>path</arg_key>\n<arg_value>a.txt</arg_value>\n</tool_call>\n",
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::Dialect;
    use crate::dialect::kit::lines::text;

    fn events(prefill: &str, stream: &str) -> Vec<String> {
        let tools = std::sync::Arc::default();
        let mut parser = Dialect::Poolside.reference_parser(&tools, prefill);
        crate::parser::run(parser.as_mut(), [stream])
            .events
            .iter()
            .map(|event| event.to_json_line())
            .collect()
    }

    #[test]
    fn the_default_prompt_leaves_text_and_s21_opens_reasoning() {
        // PL2.1, PL2.2.
        assert_eq!(events(DEFAULT_PREFILL, "ok</think>"), [text("ok</think>")]);
        assert_eq!(
            events("<assistant><think>", "hm</think>ok"),
            [
                r#"{"type":"reasoning-delta","delta":"hm"}"#.to_owned(),
                text("ok")
            ]
        );
    }
}
