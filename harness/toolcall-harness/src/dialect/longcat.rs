//! The `longcat` reference parser (`specs/dialects/longcat.md`): Meituan LongCat-Flash's
//! `<longcat_tool_call>{"name": …, "arguments": …}</longcat_tool_call>` and
//! `<longcat_think>…</longcat_think>` reasoning. The format is `hermes` with LongCat's own tags
//! (LC1.1), so the grammar is hermes's two modes with these literals, and each block is read by
//! `hermes`'s JSON reader ([`super::hermes::decode_between`]).

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::hermes;
use super::kit::{Block, End, Grammar, Outcome, Reading};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// LongCat-Flash-Chat's ` ASSISTANT:`, which opens nothing (LC2.2).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `longcat`, described (`Dialect::Longcat`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "longcat",
    models: "LongCat-Flash-Chat; LongCat-Flash-Thinking (reasoning)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<longcat_tool_call>{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}</longcat_tool_call>",
        values: Values::Json,
    },
    fragments: &[
        OPENER,
        CLOSER,
        THINK_OPENER,
        THINK_CLOSER,
        "<longcat_",
        "</longcat_s>",
        "<longcat_tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"",
    ],
    // LC2.1: LongCat-Flash-Thinking's prompt, which opens the thought.
    prefills: &["<longcat_assistant><longcat_think>\n"],
    samples: &["<longcat_tool_call>{\"name\": \"f\", \"arguments\": {}}</longcat_tool_call>"],
};

const OPENER: &str = "<longcat_tool_call>";
const CLOSER: &str = "</longcat_tool_call>";
const THINK_OPENER: &str = "<longcat_think>";
const THINK_CLOSER: &str = "</longcat_think>";

/// In text, `<longcat_tool_call>` opens a call block and `<longcat_think>` reasoning; in
/// reasoning only `</longcat_think>` is a marker (LC1.1, LC2.1; hermes H5.3).
pub(crate) static GRAMMAR: Grammar =
    hermes::tagged_calls_grammar!(OPENER, &CALL, THINK_OPENER, THINK_CLOSER);

/// H1.1 with LongCat's tags: a block ends at the first `</longcat_tool_call>`.
static CALL: Block = Block::new(&[CLOSER], decode, hermes::unterminated);

fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    hermes::decode_between(reading, OPENER, CLOSER)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::lines::{call, text};

    #[test]
    fn hermes_tags_are_text_here() {
        // LC1.2: `<tool_call>` and `<think>` are no markers of this dialect.
        assert_eq!(
            crate::dialect::kit::events(
                &GRAMMAR,
                "<think>x</think><tool_call>{\"name\": \"f\"}</tool_call>\
                 <longcat_tool_call>{\"name\": \"f\"}</longcat_tool_call>"
            ),
            [
                text("<think>x</think><tool_call>{\"name\": \"f\"}</tool_call>"),
                call("tool-call-1", "f", "{}")
            ]
        );
    }
}
