//! The `jamba` reference parser (`specs/dialects/jamba.md`): AI21's Jamba 1.5, 1.6 and 1.7
//! write `<tool_calls>[{"name": …, "arguments": {…}}, …]</tool_calls>` after the reply's text.
//! A grammar for the dialect kit: text, and a tools section whose gap reads each call object
//! as a JSON-object block of its own (JB1.3, JB1.5), ended where its braces balance, cut by
//! `</tool_calls>` (JB1.6), and read whole by [`json_call`](super::json_call).

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{self, LIST as SECTION, LIST_TEXT as TEXT, Shape};
use super::kit::{Action, Block, Grammar, Marker, Mode};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the template's `<|bom|><|assistant|>` opens nothing (JB2.2).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `jamba`, described (`Dialect::Jamba`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "jamba",
    models: "AI21 Jamba 1.5 Mini and Large, Jamba 1.6, Jamba Mini 1.7 and Large 1.7",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_calls>[\n    {\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}\n]</tool_calls>",
        values: Values::Json,
    },
    fragments: &[
        TOOL_CALLS,
        END_TOOL_CALLS,
        "<tool_ca",
        "</tool_",
        "<tool_calls>[\n    ",
        "\n]</tool_calls>",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "\"arguments\": \"{\\\"a\\\": 1}\"",
        "<citations>[0]</citations>",
        "<|eom|>",
    ],
    prefills: &["<|bom|><|assistant|>"],
    samples: &["<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>"],
};

const TOOL_CALLS: &str = "<tool_calls>";
const END_TOOL_CALLS: &str = "</tool_calls>";

/// The call objects' shape (JB3.1): `name` and `arguments`.
static SHAPE: Shape = Shape {
    dialect: "jamba",
    arguments: &["arguments"],
};

/// JB1.3: `{` opens a call object, `[`, `,` and `]` are markup, `</tool_calls>` goes back to
/// text; the same in the gap and after stray text.
static SECTION_MARKERS: [Marker; 5] = {
    let [object, open, comma, close] = json_call::section_markers(&OBJECT, SECTION, SECTION);
    [
        object,
        open,
        comma,
        close,
        Marker {
            literal: END_TOOL_CALLS,
            action: Action::Switch(TEXT),
        },
    ]
};

/// JB1.2, JB1.3: in text only `<tool_calls>` is a marker.
static MODES: [Mode; 3] = json_call::list_modes(
    &[Marker {
        literal: TOOL_CALLS,
        action: Action::Switch(SECTION),
    }],
    &SECTION_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// JB1.5, JB1.6, JB3.1, JB4.2, JB4.3: a call object, cut by `</tool_calls>` wherever it stands
/// (then back to text), read at its closing brace (then the gap).
static OBJECT: Block = json_call::object_block!(SHAPE, &[END_TOOL_CALLS], SECTION, TEXT);

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
    fn a_cut_object_closes_the_section() {
        // JB1.6: the `{` after the cut is text again.
        assert_eq!(
            events("<tool_calls>[{\"name\": \"f</tool_calls> {\"name\": \"g\"}"),
            [
                error("jamba tool call cut by </tool_calls>"),
                text("{\"name\": \"f</tool_calls> {\"name\": \"g\"}"),
            ]
        );
    }

    #[test]
    fn stray_text_keeps_the_section() {
        // JB1.3: stray text, then blanks as text, then a call; doubled commas are markup.
        assert_eq!(
            events("<tool_calls>[ok then {\"name\": \"f\"},, {\"name\": \"g\"}]</tool_calls>!"),
            [
                text("ok then "),
                call("tool-call-1", "f", "{}"),
                call("tool-call-2", "g", "{}"),
                text("!"),
            ]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events("<tool_calls>[{\"name\": \"f\", \"arguments\": {\"}\": "),
            [
                error("unterminated jamba tool call"),
                text("{\"name\": \"f\", \"arguments\": {\"}\": "),
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_its_last_byte() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push(" Sure.<tool_c", &mut out);
        assert_eq!(out, [Event::text(" Sure.")]);
        out.clear();
        parser.push(
            "alls>[\n    {\"name\": \"f\", \"arguments\": {\"k\": \"}",
            &mut out,
        );
        assert_eq!(out, []);
        parser.push("\"}}", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push("\n]</tool_calls> bye</tool_calls><tool", &mut out);
        // Outside a section `</tool_calls>` is text; `<tool` may open one, held.
        assert_eq!(out, [Event::text(" bye</tool_calls>")]);
    }

    #[test]
    fn objects_are_calls_and_punctuation_markup() {
        // JB4.1: each object is a call span; the markers, the gap's blanks and punctuation
        // are markup (adjacent spans merge); stray text and the blank after it are neither.
        let stream = "<tool_calls>[{\"name\": \"a\"} x {\"name\": \"b\"}]</tool_calls>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let cut = |spans: &[std::ops::Range<usize>]| -> Vec<String> {
            spans
                .iter()
                .map(|span| stream[span.clone()].to_owned())
                .collect()
        };
        let calls = cut(&run(&mut parser, [stream]).call_spans);
        assert_eq!(calls, ["{\"name\": \"a\"}", "{\"name\": \"b\"}"]);
        assert_eq!(
            cut(parser.markup_spans()),
            ["<tool_calls>[", " ", "]</tool_calls>"]
        );
    }
}
