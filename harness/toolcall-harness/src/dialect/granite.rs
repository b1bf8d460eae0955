//! The `granite` reference parser (`specs/dialects/granite.md`): IBM Granite 3.x write
//! `<|tool_call|>[{"name": …, "arguments": {…}}, …]`, and Granite 3.3 thinks between `<think>`
//! and `</think>` and wraps its answer in `<response>…</response>`, which is markup.
//! A grammar for the dialect kit in its sectioned layout: the list opened by `<|tool_call|>` is
//! a section closed by its `]` (GR1.4), whose gap reads each call object as a JSON-object block
//! of its own, ended where its braces balance, and read whole by
//! [`json_call`](super::json_call).

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{self, Shape};
use super::kit::{Action, Block, END_THINK, Grammar, Marker, Mode, THINK, sectioned};
use sectioned::{SECTION, TEXT};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the template's `<|start_of_role|>assistant<|end_of_role|>` opens nothing (GR2.5).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `granite`, described (`Dialect::Granite`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "granite",
    models: "IBM Granite 3.0, 3.1, 3.2 and 3.3 Instruct (3.3: `<think>`/`<response>`)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|tool_call|>[{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}]",
        values: Values::Json,
    },
    fragments: &[
        TOOL_CALL,
        RESPONSE,
        END_RESPONSE,
        "<|tool_",
        "<tool_call>",
        "<respo",
        "</resp",
        "<|tool_call|>[{\"name\": \"",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "}, {",
        "}]",
        "Here is my thought process:",
        "Here is my response:",
        "<|end_of_text|>",
    ],
    prefills: &["<|start_of_role|>assistant<|end_of_role|>"],
    samples: &["<|tool_call|>[{\"name\": \"f\", \"arguments\": {}}]"],
};

const TOOL_CALL: &str = "<|tool_call|>";
const RESPONSE: &str = "<response>";
const END_RESPONSE: &str = "</response>";

/// The call objects' shape (GR3.1): `name` and `arguments`.
static SHAPE: Shape = Shape {
    dialect: "granite",
    arguments: &["arguments"],
};

/// A marker that is markup and leaves the parser in text.
const fn text_markup(literal: &'static str) -> Marker {
    Marker {
        literal,
        action: Action::Switch(TEXT),
    }
}

/// GR1.4: `{` opens a call object, `[` and `,` are markup, `]` closes the list.
static LIST_MARKERS: [Marker; 4] = json_call::section_markers(&OBJECT, SECTION, TEXT);

/// The table of `specs/dialects/granite.md` §2: text (GR1.3, GR1.4, GR2.1, GR2.2), reasoning
/// (only `</think>`, GR2.1), and the list's gap and stray text (GR1.4).
static MODES: [Mode; 4] = sectioned(
    &[
        Marker {
            literal: TOOL_CALL,
            action: Action::Switch(SECTION),
        },
        THINK,
        text_markup(RESPONSE),
        text_markup(END_RESPONSE),
    ],
    END_THINK,
    &LIST_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// GR1.5, GR3.1, GR4.2, GR4.3: a call object, which nothing cuts (a `]` inside it is its
/// byte), read at its closing brace, then the list's gap.
static OBJECT: Block = json_call::object_block!(SHAPE, &[], SECTION, TEXT);

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::dialect::kit::lines::{call, error, text};
    use crate::event::Event;
    use crate::parser::StreamParser;
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    /// A `reasoning-delta` line.
    fn reasoning(delta: &str) -> String {
        serde_json::to_string(&Event::reasoning(delta)).expect("an event")
    }

    #[test]
    fn response_tags_are_markup_and_calls_follow_reasoning() {
        assert_eq!(
            events("<think>x</think><response>y</response><|tool_call|>[{\"name\": \"f\"}]z"),
            [
                reasoning("x"),
                text("y"),
                call("tool-call-1", "f", "{}"),
                text("z"),
            ]
        );
    }

    #[test]
    fn markers_in_reasoning_are_reasoning() {
        assert_eq!(
            events("<think><|tool_call|>[{\"name\": \"f\"}]<response></think>ok"),
            [
                reasoning("<|tool_call|>[{\"name\": \"f\"}]<response>"),
                text("ok"),
            ]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events("<|tool_call|>[{\"name\": \"f\", \"arguments\": {\"]\": "),
            [
                error("unterminated granite tool call"),
                text("{\"name\": \"f\", \"arguments\": {\"]\": "),
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_its_last_byte() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("<|tool_", &mut out);
        assert_eq!(out, []);
        parser.push(
            "call|>[{\"name\": \"f\", \"arguments\": {\"k\": \"]",
            &mut out,
        );
        assert_eq!(out, []);
        parser.push("\"}}", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push("] done <resp", &mut out);
        assert_eq!(out, [Event::text(" done ")]);
    }
}
