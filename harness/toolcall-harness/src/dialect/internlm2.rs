//! The `internlm2` reference parser (`specs/dialects/internlm2.md`): InternLM2-Chat and
//! Intern-S1 write each call as `<|action_start|><|plugin|>\n{"name": …, "parameters": {…}}<|action_end|>`
//! after their prose, as many as they call; Intern-S1 thinks in `<think>…</think>`. A grammar
//! for the dialect kit: an action is a block from its opener to the first `<|action_end|>`
//! (IL1.3), its content one JSON object read by [`json_call`](super::json_call).

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{CallError, Shape};
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, Outcome, Reading, THINK, THINKING,
    sectioned::TEXT,
};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the templates' `<|im_start|>assistant\n` opens nothing (IL2.3).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `internlm2`, described (`Dialect::Internlm2`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "internlm2",
    models: "InternLM2-Chat and InternLM2.5-Chat; Intern-S1 and Intern-S1-mini (`<think>`)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|action_start|><|plugin|>\n{\"name\": \"GetWeather\", \"parameters\": {\"location\": \"",
        after: "\"}}<|action_end|>",
        values: Values::Json,
    },
    fragments: &[
        OPENER,
        CLOSER,
        "<|action_start|>",
        "<|plugin|>",
        "<|action_start|> <|plugin|>",
        "<|action_start|><|interpreter|>\n",
        "<|action_",
        "{\"name\": \"GetWeather\", \"parameters\": {\"location\": \"Paris\"}}",
        "\"arguments\": {}",
        "<|im_end|>",
    ],
    prefills: &[
        "<|im_start|>assistant\n",
        "<|im_start|>assistant\n<think>\n",
    ],
    samples: &["<|action_start|><|plugin|>\n{\"name\": \"f\", \"parameters\": {}}<|action_end|>"],
};

const OPENER: &str = "<|action_start|><|plugin|>";
const CLOSER: &str = "<|action_end|>";

/// The action's shape (IL3.1): `name`, and `parameters` or else `arguments`.
static SHAPE: Shape = Shape {
    dialect: "internlm2",
    arguments: &["parameters", "arguments"],
};

/// IL1.3, IL2.1: in text, an action opens a block and `<think>` reasoning.
static TEXT_MARKERS: [Marker; 2] = [
    Marker {
        literal: OPENER,
        action: Action::Block(&ACTION),
    },
    THINK,
];

/// Text, and `<think>` reasoning, where only `</think>` is a marker (IL2.1).
pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: &TEXT_MARKERS,
    },
    THINKING,
]);

/// IL1.3: an action runs to the first `<|action_end|>`, in a JSON string too.
static ACTION: Block = Block::new(&[CLOSER], decode, unterminated);

/// IL1.4, IL3.1: the content between the tokens, blanks around it allowed, is one call object.
fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    let content = reading.inner(OPENER, CLOSER);
    Outcome::of_call(SHAPE.read(content, reading.generated_id.clone()), TEXT)
}

/// IL4.3: an action with no `<|action_end|>` before the end of the stream.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated(SHAPE.dialect).to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::dialect::kit::lines::{call, error, text};
    use crate::event::Event;
    use crate::parser::{StreamParser, run};
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    #[test]
    fn several_actions_with_prose_between() {
        assert_eq!(
            events(
                "a<|action_start|><|plugin|>\n{\"name\": \"f\"}<|action_end|>b\
                 <|action_start|><|plugin|>{\"name\": \"g\", \"arguments\": {\"x\": 1}}\n<|action_end|>"
            ),
            [
                text("a"),
                call("tool-call-1", "f", "{}"),
                text("b"),
                call("tool-call-2", "g", r#"{"x":1}"#),
            ]
        );
    }

    #[test]
    fn the_closer_ends_an_action_inside_a_string() {
        assert_eq!(
            events("<|action_start|><|plugin|>{\"name\": \"f<|action_end|>\"}"),
            [
                error(
                    "invalid JSON in internlm2 tool call: EOF while parsing a string at line 1 column 11"
                ),
                text("<|action_start|><|plugin|>{\"name\": \"f<|action_end|>\"}"),
            ]
        );
    }

    #[test]
    fn an_open_action_at_the_end_is_unterminated() {
        assert_eq!(
            events("<|action_start|><|plugin|>\n{\"name\": \"f\"}"),
            [
                error("unterminated internlm2 tool call"),
                text("<|action_start|><|plugin|>\n{\"name\": \"f\"}"),
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_the_closer() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("Sure.<|action_start|><|plu", &mut out);
        assert_eq!(out, [Event::text("Sure.")]);
        out.clear();
        parser.push("gin|>\n{\"name\": \"f\"}<|action_e", &mut out);
        assert_eq!(out, []);
        parser.push("nd|>ok", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_), _]), "{out:?}");
    }

    #[test]
    fn the_call_spans_its_whole_action() {
        let stream = "x<|action_start|><|plugin|>{\"name\": \"a\"}<|action_end|>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        // One span, the whole action, opener and closer included (IL4.1).
        assert_eq!(result.call_spans.len(), 1);
        assert_eq!(result.call_spans[0], 1..stream.len());
    }
}
