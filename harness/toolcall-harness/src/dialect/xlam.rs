//! The `xlam` reference parser (`specs/dialects/xlam.md`): Salesforce's xLAM-2 models make
//! calls with a reply that is one JSON array, `[{"name": …, "arguments": {…}}, …]`, bare or
//! in a ```` ```json ```` fence, and answer with prose otherwise. A grammar for the dialect
//! kit: the reply's start is a lead where `[{` (or ```` ```json\n[{ ````) opens the list; a
//! reply that began any other way is prose to its end (XL1.2), released as it comes. The
//! list's gap reads each call object as a JSON-object block of its own, ended where its braces
//! balance and read whole by [`json_call`](super::json_call); the first block holds the list's
//! opening too.

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{self, Shape};
use super::kit::{Action, Block, Content, Grammar, Marker, Mode, ModeId};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the templates' assistant header opens nothing (XL2.2).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `xlam`, described (`Dialect::Xlam`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "xlam",
    models: "Salesforce xLAM-2 (Llama-xLAM-2-8b/70b-fc-r, xLAM-2-1b/3b/32b-fc-r)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "[{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        // No `]`: a list need not close (XL1.6), so calls written one after another, each
        // with its `[`, are one list (`[` is markup in it), as the scaling streams write them.
        after: "\"}}",
        values: Values::Json,
    },
    fragments: &[
        BARE_OPENER,
        EMPTY_LIST,
        FENCE_OPENER,
        "```json\n",
        "\n```",
        "[",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "\"arguments\": {\"code\": \"```py\\nx = [1]\\n```\"}",
        "}, {",
        "}]",
        "[TOOL_CALLS]",
        "<tool_call>",
        "</think>",
        "<|eot_id|>",
    ],
    prefills: &[
        "<|start_header_id|>assistant<|end_header_id|>\n\n",
        "<|im_start|>assistant\n",
    ],
    samples: &["[{\"name\": \"f\", \"arguments\": {}}]"],
};

/// XL1.3: the bare list's opening, as the templates write it: `[` and the first object's `{`.
const BARE_OPENER: &str = "[{";
/// XL1.5: the empty list the templates write for a turn without calls.
const EMPTY_LIST: &str = "[]";
/// XL1.8: a fenced list's opening.
const FENCE_OPENER: &str = "```json\n[{";
/// XL1.8: the fence's end; `\n` first in a closer, which no JSON string holds raw.
const FENCE: &str = "```";
const FENCE_CUT: &str = "\n```";

/// The call objects' shape (XL3.1): `name` and `arguments`.
static SHAPE: Shape = Shape {
    dialect: "xlam",
    arguments: &["arguments"],
};

/// XL1.1: the reply's start.
const LEAD: ModeId = ModeId(0);
/// XL1.2: prose, to the end of the reply.
const PROSE: ModeId = ModeId(1);
/// XL1.4: a bare list's gap, and its stray text.
const LIST: ModeId = ModeId(2);
const LIST_STRAY: ModeId = ModeId(3);
/// XL1.8: a fenced list's gap, its stray text, and what follows its `]`.
const FENCED: ModeId = ModeId(4);
const FENCED_STRAY: ModeId = ModeId(5);
const FENCE_TAIL: ModeId = ModeId(6);

/// XL1.4: `{` opens a call object, `[` and `,` are markup, `]` ends the list and the reply's
/// calls.
static LIST_MARKERS: [Marker; 4] = json_call::section_markers(&OBJECT, LIST, PROSE);

/// XL1.8: a bare list's markers, and the fence's end before the list's `]`.
static FENCED_MARKERS: [Marker; 5] = {
    let [object, open, comma, close] =
        json_call::section_markers(&FENCED_OBJECT, FENCED, FENCE_TAIL);
    [
        object,
        open,
        comma,
        close,
        Marker {
            literal: FENCE,
            action: Action::Switch(PROSE),
        },
    ]
};

static MODES: [Mode; 7] = [
    Mode {
        id: LEAD,
        content: Content::Lead { then: PROSE },
        markers: &[
            Marker {
                literal: BARE_OPENER,
                action: Action::Block(&OBJECT),
            },
            Marker {
                literal: EMPTY_LIST,
                action: Action::Switch(PROSE),
            },
            Marker {
                literal: FENCE_OPENER,
                action: Action::Block(&FENCED_OBJECT),
            },
        ],
    },
    Mode {
        id: PROSE,
        content: Content::Text,
        markers: &[],
    },
    Mode {
        id: LIST,
        content: Content::Gap { stray: LIST_STRAY },
        markers: &LIST_MARKERS,
    },
    Mode {
        id: LIST_STRAY,
        content: Content::Text,
        markers: &LIST_MARKERS,
    },
    Mode {
        id: FENCED,
        content: Content::Gap {
            stray: FENCED_STRAY,
        },
        markers: &FENCED_MARKERS,
    },
    Mode {
        id: FENCED_STRAY,
        content: Content::Text,
        markers: &FENCED_MARKERS,
    },
    Mode {
        id: FENCE_TAIL,
        content: Content::Gap { stray: PROSE },
        markers: &[Marker {
            literal: FENCE,
            action: Action::Switch(PROSE),
        }],
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// XL1.4, XL3.1, XL4.2, XL4.3: a bare list's call object (the first one with its `[`), which
/// nothing cuts, read at its closing brace, then the list's gap.
static OBJECT: Block = json_call::object_block!(SHAPE, &[], LIST, PROSE);

/// XL1.8, XL4.4: a fenced list's call object (the first one with the fence's opening), cut
/// by a line that starts with the fence's end (then prose), read at its closing brace, then
/// the list's gap.
static FENCED_OBJECT: Block = json_call::object_block!(SHAPE, &[FENCE_CUT], FENCED, PROSE);

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
    fn a_reply_that_is_a_list_is_calls() {
        // XL1.3, XL1.4: the `]` inside the value is the object's; the list's `]` ends it.
        assert_eq!(
            events(
                "[{\"name\": \"f\", \"arguments\": {\"a\": [\"]\"]}}, {\"name\": \"g\", \"arguments\": {}}]"
            ),
            [
                call("tool-call-1", "f", r#"{"a":["]"]}"#),
                call("tool-call-2", "g", "{}"),
            ]
        );
    }

    #[test]
    fn a_reply_that_began_as_prose_stays_prose() {
        // XL1.2: the list after prose is text, and so is a bracket not followed by `{`.
        for stream in [
            "Sure: [{\"name\": \"f\", \"arguments\": {}}]",
            "[1] is a footnote",
            "[ {\"name\": \"f\", \"arguments\": {}}]",
        ] {
            assert_eq!(events(stream), [text(stream)], "{stream:?}");
        }
    }

    #[test]
    fn a_fenced_list_and_its_end() {
        // XL1.8: the fence around the list is markup; a raw ``` in a string is the value's.
        assert_eq!(
            events("```json\n[{\"name\": \"f\", \"arguments\": {\"c\": \"```x```\"}}]\n```\nDone."),
            [
                call("tool-call-1", "f", r#"{"c":"```x```"}"#),
                text("\nDone.")
            ]
        );
        // XL4.4: a line starting with the fence's end cuts an open object.
        assert_eq!(
            events("```json\n[{\"name\": \"f\",\n```\nok"),
            [
                error("xlam tool call cut by \n```"),
                text("```json\n[{\"name\": \"f\",\n```\nok"),
            ]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events("[{\"name\": \"f\", \"arguments\": {\"]\": "),
            [
                error("unterminated xlam tool call"),
                text("[{\"name\": \"f\", \"arguments\": {\"]\": "),
            ]
        );
    }

    #[test]
    fn releases_prose_at_its_second_char() {
        // XL5.1: a held `[` goes out as soon as the next char is not `{` or `]`.
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("[", &mut out);
        assert_eq!(out, []);
        parser.push("N", &mut out);
        assert_eq!(out, [Event::text("[N")]);
        out.clear();
        parser.push("ote] [{\"name\": \"f\"}]", &mut out);
        assert_eq!(out, [Event::text("ote] [{\"name\": \"f\"}]")]);
    }
}
