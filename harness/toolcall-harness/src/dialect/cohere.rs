//! The `cohere` reference parser (`specs/dialects/cohere.md`): Cohere's Command models
//! (Command R7B, Command A, Command A Reasoning, the `<|START_TEXT|>` models) write
//! `<|START_ACTION|>[{"tool_call_id": …, "tool_name": …, "parameters": {…}}, …]<|END_ACTION|>`,
//! think between `<|START_THINKING|>` and `<|END_THINKING|>`, and wrap the answer in
//! `<|START_RESPONSE|>…<|END_RESPONSE|>` (or `<|START_TEXT|>…<|END_TEXT|>`), which is markup.
//! A grammar for the dialect kit in its sectioned layout: the action section is a gap (blanks
//! and the array's `[`, `,`, `]` markup, other chars stray text), each call object a JSON-object
//! block ended where its braces balance (or cut by `<|END_ACTION|>`, CM2.4) and read whole
//! ([`call`]).

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading, sectioned,
};
use sectioned::{REASONING, SECTION, TEXT};

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it (CM6.2): the templates' `<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>`
/// opens nothing.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `cohere`, described (`Dialect::Cohere`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "cohere",
    models: "Command R7B, Command A, Command A Reasoning; Command A Vision and Cohere2 MoE (`<|START_TEXT|>`)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|START_ACTION|>[\n    {\"tool_call_id\": \"{n}\", \"tool_name\": \"GetWeather\", \"parameters\": {\"location\": \"",
        after: "\"}}\n]<|END_ACTION|>",
        values: Values::Json,
    },
    fragments: &[
        START_ACTION,
        END_ACTION,
        START_THINKING,
        END_THINKING,
        START_RESPONSE,
        END_RESPONSE,
        START_TEXT,
        END_TEXT,
        "<|START_ACT",
        "<|END_ACT",
        "<|END_THINK",
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        "<|START_ACTION|>[\n    ",
        "\n]<|END_ACTION|>",
        "{\"tool_call_id\": \"0\", \"tool_name\": \"GetWeather\", \"parameters\": {\"location\": \"Paris\"}}",
        "\"tool_call_id\": \"1\"",
        "\"tool_name\": \"f\"",
        "\"parameters\": {}",
    ],
    prefills: &[
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>",
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|>",
        "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|><|START_THINKING|><|END_THINKING|>",
    ],
    samples: &["<|START_ACTION|>[{\"tool_name\": \"f\", \"parameters\": {}}]<|END_ACTION|>"],
};

const START_ACTION: &str = "<|START_ACTION|>";
const END_ACTION: &str = "<|END_ACTION|>";
const START_THINKING: &str = "<|START_THINKING|>";
const END_THINKING: &str = "<|END_THINKING|>";
const START_RESPONSE: &str = "<|START_RESPONSE|>";
const END_RESPONSE: &str = "<|END_RESPONSE|>";
const START_TEXT: &str = "<|START_TEXT|>";
const END_TEXT: &str = "<|END_TEXT|>";

/// A marker that is markup and leaves the parser in `mode`.
const fn markup(literal: &'static str, mode: ModeId) -> Marker {
    Marker {
        literal,
        action: Action::Switch(mode),
    }
}

/// The table of `specs/dialects/cohere.md` §1: text (CM2.1, CM4.1, CM5.1), reasoning (only
/// `<|END_THINKING|>`, CM4.3), and the action section between objects and in its stray text
/// (CM2.2).
static MODES: [Mode; 4] = sectioned(
    &[
        markup(START_ACTION, SECTION),
        markup(START_THINKING, REASONING),
        markup(START_RESPONSE, TEXT),
        markup(END_RESPONSE, TEXT),
        markup(START_TEXT, TEXT),
        markup(END_TEXT, TEXT),
    ],
    &[markup(END_THINKING, TEXT)],
    &[
        Marker {
            literal: "{",
            action: Action::Block(&OBJECT),
        },
        markup("[", SECTION),
        markup(",", SECTION),
        markup("]", SECTION),
        markup(START_ACTION, SECTION),
        markup(END_ACTION, TEXT),
    ],
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// CM2.3: a call object runs from its `{` to the `}` that balances it, braces in JSON strings
/// not counted; CM2.4: `<|END_ACTION|>` cuts it wherever it stands. Its depth is not capped
/// here: C8.2 is checked when the object is read (CM3.1), so a too-deep object still ends
/// where its braces balance.
static OBJECT: Block = Block::nested(&[END_ACTION], &Nesting::JSON_OBJECT, decode, unterminated);

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        // CM2.4: the object is invalid, its bytes through the marker are text, and the
        // marker closed the section.
        End::Closer(_) => Outcome::Reject(CallError::Cut.to_string(), TEXT),
        // CM3.8, CM7.2: a call or an invalid object, then the section again. (`TooDeep` and
        // `Mismatched` cannot happen with JSON_OBJECT's single bracket and no depth limit; the
        // reader refuses such an object all the same.)
        End::Balanced | End::Mismatched | End::TooDeep => Outcome::of_call(
            call::read(reading.block, reading.generated_id.clone()),
            SECTION,
        ),
    }
}

/// CM2.5: only an open object is unterminated; a section needs no closer (CM2.6).
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes the corpus reaches only through whole streams, checked here whole
    //! and one char per chunk.
    use super::*;

    use crate::dialect::kit::{KitParser, events};
    use crate::event::Event;
    use crate::parser::{StreamParser, run};
    use std::sync::Arc;

    use crate::dialect::kit::lines::{call, error, text};

    #[test]
    fn a_cut_object_leaves_the_section() {
        // The cut closes the section: the `{` after it is text.
        assert_eq!(
            events(
                &GRAMMAR,
                "<|START_ACTION|>[{\"tool_name\": <|END_ACTION|> {\"a\": 1}"
            ),
            [
                error("cohere tool call cut by <|END_ACTION|>"),
                text("{\"tool_name\": <|END_ACTION|> {\"a\": 1}"),
            ]
        );
    }

    #[test]
    fn an_invalid_object_keeps_the_section_and_its_number() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|START_ACTION|>[{\"tool_name\": 1}, x {\"tool_name\": \"f\", \"parameters\": null}]<|END_ACTION|>"
            ),
            [
                error("cohere tool call has no string \"tool_name\""),
                text("{\"tool_name\": 1}x "),
                call("tool-call-1", "f", "{}"),
            ]
        );
    }

    #[test]
    fn a_repeated_opener_and_doubled_commas_are_markup() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|START_ACTION|>{\"tool_name\": \"a\"},,<|START_ACTION|> {\"tool_name\": \"b\"}\n<|END_ACTION|>ok"
            ),
            [
                call("tool-call-1", "a", "{}"),
                call("tool-call-2", "b", "{}"),
                text("ok"),
            ]
        );
    }

    #[test]
    fn reasoning_and_response_markers_in_a_section_are_stray_text() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|START_ACTION|><|START_THINKING|>x<|END_ACTION|><|START_TEXT|>y<|END_TEXT|>"
            ),
            [text("<|START_THINKING|>xy")]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events(
                &GRAMMAR,
                "a<|START_ACTION|>[{\"tool_name\": \"f\", \"x\": \"}"
            ),
            [
                text("a"),
                error("unterminated cohere tool call"),
                text("{\"tool_name\": \"f\", \"x\": \"}"),
            ]
        );
    }

    #[test]
    fn json_depth_is_checked_when_the_object_is_read() {
        // The call object is level 1: 126 levels are a call, 127 invalid JSON, and the object
        // still ends where its braces balance, the rest of the section read as usual.
        let object = |levels: usize| {
            format!(
                "{{\"tool_name\": \"f\", \"parameters\": {}1{}}}",
                "{\"a\": ".repeat(levels - 1),
                "}".repeat(levels - 1)
            )
        };
        let deepest = events(
            &GRAMMAR,
            &format!("<|START_ACTION|>[{}]<|END_ACTION|>", object(126)),
        );
        assert_eq!(deepest.len(), 1, "{deepest:?}");
        assert!(deepest[0].contains("\"tool-call\""), "{deepest:?}");
        let too_deep = object(127);
        assert_eq!(
            events(
                &GRAMMAR,
                &format!("<|START_ACTION|>[{too_deep}, {{\"tool_name\": \"g\"}}]<|END_ACTION|>")
            ),
            [
                error(
                    "invalid JSON in cohere tool call: nesting deeper than 126 levels of arrays and objects"
                ),
                text(&too_deep),
                call("tool-call-1", "g", "{}"),
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_its_last_byte() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("Hi<|START_ACT", &mut out);
        assert_eq!(out, [Event::text("Hi")]);
        out.clear();
        parser.push(
            "ION|>[\n {\"tool_name\": \"f\", \"parameters\": {\"k\": \"}",
            &mut out,
        );
        assert_eq!(out, []);
        parser.push("\"}}", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push("\n]<|END_ACTION|> bye<|END_RE", &mut out);
        assert_eq!(out, [Event::text(" bye")]);
    }

    #[test]
    fn call_spans_cover_each_object() {
        let stream =
            "x<|START_ACTION|>[{\"tool_name\": \"a\"}, {\"tool_name\": \"b\"}]<|END_ACTION|>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        let len = "{\"tool_name\": \"a\"}".len();
        let first = stream.find('{').expect("an object");
        let second = stream.rfind('{').expect("an object");
        assert_eq!(
            result.call_spans,
            [first..first + len, second..second + len]
        );
        assert_eq!(
            parser.markup_spans(),
            [1..first, first + len..second, second + len..stream.len()]
        );
    }
}
