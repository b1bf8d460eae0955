//! The `phi4-mini` reference parser (`specs/dialects/phi4-mini.md`): Phi-4-mini, served with
//! vLLM's tool template, writes `functools[{"name": …, "arguments": {…}}, …]` with no closing
//! marker. A grammar for the dialect kit: text, and a list opened by `functools[` and closed by
//! its `]` (PM1.3), whose gap reads each call object as a JSON-object block of its own, ended
//! where its braces balance (a `]` inside an object is its byte, PM1.4), and read whole by
//! [`json_call`](super::json_call).

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{self, LIST, LIST_TEXT as TEXT, Shape};
use super::kit::{Action, Block, Grammar, Marker, Mode};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the templates' `<|assistant|>` opens nothing (PM2.2).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `phi4-mini`, described (`Dialect::Phi4Mini`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "phi4-mini",
    models: "Phi-4-mini-instruct (with vLLM's `functools` tool template)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "functools[{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}]",
        values: Values::Json,
    },
    fragments: &[
        OPENER,
        "functools",
        "functool",
        "import functools\n",
        "functools[{\"name\": \"",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "\"parameters\": {\"path\": \"a]b\"}",
        "}, {",
        "}]",
        "<|end|>",
    ],
    prefills: &["<|assistant|>"],
    samples: &["functools[{\"name\": \"f\", \"arguments\": {}}]"],
};

const OPENER: &str = "functools[";

/// The call objects' shape (PM3.1): `name`, and `arguments` or else `parameters`.
static SHAPE: Shape = Shape {
    dialect: "phi4-mini",
    arguments: &["arguments", "parameters"],
};

/// PM1.3: `{` opens a call object, `[` and `,` are markup, `]` closes the list.
static LIST_MARKERS: [Marker; 4] = json_call::section_markers(&OBJECT, LIST, TEXT);

/// PM1.1, PM1.2: in text only `functools[` is a marker.
static MODES: [Mode; 3] = json_call::list_modes(
    &[Marker {
        literal: OPENER,
        action: Action::Switch(LIST),
    }],
    &LIST_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// PM1.4, PM3.1, PM4.2, PM4.3: a call object, which nothing cuts (a `]` inside it is its
/// byte), read at its closing brace, then the list's gap.
static OBJECT: Block = json_call::object_block!(SHAPE, &[], LIST, TEXT);

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

    #[test]
    fn the_list_ends_at_its_own_bracket() {
        // PM1.3, PM1.4: the `]` in the value and the array's `]` are the object's; the list's
        // `]` closes it, and an object after it is text.
        assert_eq!(
            events(
                "functools[{\"name\": \"f\", \"arguments\": {\"a\": [\"]\"]}}] {\"name\": \"g\"}"
            ),
            [
                call("tool-call-1", "f", r#"{"a":["]"]}"#),
                text(" {\"name\": \"g\"}"),
            ]
        );
    }

    #[test]
    fn stray_text_and_doubled_commas() {
        assert_eq!(
            events("functools[, x {\"name\": \"f\"},,{\"name\": \"g\"}]!"),
            [
                text("x "),
                call("tool-call-1", "f", "{}"),
                call("tool-call-2", "g", "{}"),
                text("!"),
            ]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events("functools[{\"name\": \"f\", \"arguments\": {\"]\": "),
            [
                error("unterminated phi4-mini tool call"),
                text("{\"name\": \"f\", \"arguments\": {\"]\": "),
            ]
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_list() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("import functools", &mut out);
        assert_eq!(out, [Event::text("import ")]);
        out.clear();
        parser.push(".partial\nfunctools[{\"name\": \"f\"", &mut out);
        assert_eq!(out, [Event::text("functools.partial\n")]);
        out.clear();
        parser.push("}]", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }
}
