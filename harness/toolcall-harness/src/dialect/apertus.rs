//! The `apertus` reference parser (`specs/dialects/apertus.md`): Swiss AI's Apertus writes
//! `<|tools_prefix|>[{"NAME": {…}}, …]<|tools_suffix|>`, each call an object whose one key is
//! the tool's name, and deliberates between `<|inner_prefix|>` and `<|inner_suffix|>`, where
//! it calls tools too.
//! A grammar for the dialect kit in its sectioned layout: a tools section whose gap reads
//! each call object as a JSON-object block of its own (AP1.3, AP1.5), ended where its braces
//! balance, cut by `<|tools_suffix|>` (AP1.6), and read whole by
//! [`json_call::NamedByKey`](super::json_call::NamedByKey).
//!
//! A section's `<|tools_suffix|>` goes back to the mode that opened it (AP2.3), so the
//! section's two modes and the call block exist twice: once for a section opened in text,
//! once for one opened in reasoning.

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json_call::{self, NamedByKey};
use super::kit::{Action, Block, Content, Grammar, Marker, Mode, ModeId, sectioned};
use sectioned::{REASONING, SECTION, TEXT};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the template's `<|assistant_start|>` opens nothing (AP2.4).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `apertus`, described (`Dialect::Apertus`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "apertus",
    models: "Swiss AI Apertus 8B and 70B Instruct (2509)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|tools_prefix|>[{\"GetWeather\": {\"location\": \"",
        after: "\"}}]<|tools_suffix|>",
        values: Values::Json,
    },
    fragments: &[
        TOOLS_PREFIX,
        TOOLS_SUFFIX,
        INNER_PREFIX,
        INNER_SUFFIX,
        "<|tools_",
        "<|inner_",
        "<|tools_prefix|>[{\"",
        "{\"GetWeather\": {\"location\": \"Paris\"}}",
        "{\"GetWeather\": \"{\\\"location\\\": \\\"Paris\\\"}\"}",
        "}, {",
        "}]<|tools_suffix|>",
        "[{\"temperature\": 21}]",
        "<|assistant_end|>",
        "<think>",
    ],
    prefills: &[
        "<|assistant_start|>",
        // AP2.4: a continued message whose reasoning called a tool and got its output.
        "<|assistant_start|><|inner_prefix|>Checking.<|tools_prefix|>[{\"GetWeather\": {}}]<|tools_suffix|>[{\"temperature\": 21}]",
    ],
    samples: &["<|tools_prefix|>[{\"f\": {}}]<|tools_suffix|>"],
};

const TOOLS_PREFIX: &str = "<|tools_prefix|>";
const TOOLS_SUFFIX: &str = "<|tools_suffix|>";
const INNER_PREFIX: &str = "<|inner_prefix|>";
const INNER_SUFFIX: &str = "<|inner_suffix|>";

/// The call objects' layout (AP3.1): `{"NAME": ARGUMENTS}`.
static SHAPE: NamedByKey = NamedByKey { dialect: "apertus" };

/// A section opened in reasoning: its gap and its stray text (AP2.3), after `sectioned`'s
/// four modes.
const INNER_SECTION: ModeId = ModeId(4);
const INNER_STRAY: ModeId = ModeId(5);

/// AP1.3: `{` opens a call object, `[`, `,` and `]` are markup, `<|tools_suffix|>` goes back
/// to `back`; the same in the gap and after stray text.
const fn section_markers(object: &'static Block, gap: ModeId, back: ModeId) -> [Marker; 5] {
    let [object, open, comma, close] = json_call::section_markers(object, gap, gap);
    [
        object,
        open,
        comma,
        close,
        Marker {
            literal: TOOLS_SUFFIX,
            action: Action::Switch(back),
        },
    ]
}

static SECTION_MARKERS: [Marker; 5] = section_markers(&OBJECT, SECTION, TEXT);
static INNER_SECTION_MARKERS: [Marker; 5] =
    section_markers(&INNER_OBJECT, INNER_SECTION, REASONING);

/// The table of `specs/dialects/apertus.md` §2: text (AP1.2, AP2.1), reasoning (AP2.2, AP2.3),
/// a section opened in text and one opened in reasoning, each with its stray text (AP1.3).
static MODES: [Mode; 6] = {
    let [text, reasoning, section, stray] = sectioned(
        &[
            Marker {
                literal: TOOLS_PREFIX,
                action: Action::Switch(SECTION),
            },
            Marker {
                literal: INNER_PREFIX,
                action: Action::Switch(REASONING),
            },
        ],
        &[
            Marker {
                literal: INNER_SUFFIX,
                action: Action::Switch(TEXT),
            },
            Marker {
                literal: TOOLS_PREFIX,
                action: Action::Switch(INNER_SECTION),
            },
        ],
        &SECTION_MARKERS,
    );
    [
        text,
        reasoning,
        section,
        stray,
        Mode {
            id: INNER_SECTION,
            content: Content::Gap { stray: INNER_STRAY },
            markers: &INNER_SECTION_MARKERS,
        },
        Mode {
            id: INNER_STRAY,
            content: Content::Text,
            markers: &INNER_SECTION_MARKERS,
        },
    ]
};

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// AP1.5, AP1.6, AP3.1, AP4.2, AP4.3: a call object of a section opened in text, cut by
/// `<|tools_suffix|>` wherever it stands (then back to text), read at its closing brace (then
/// the gap).
static OBJECT: Block = json_call::object_block!(SHAPE, &[TOOLS_SUFFIX], SECTION, TEXT);

/// The same in a section opened in reasoning, whose cut goes back to reasoning.
static INNER_OBJECT: Block =
    json_call::object_block!(SHAPE, &[TOOLS_SUFFIX], INNER_SECTION, REASONING);

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::lines::{call, error, reasoning, text};

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    #[test]
    fn a_section_in_reasoning_goes_back_to_reasoning() {
        // AP2.3: the call inside the inner block is a call; after `<|tools_suffix|>` the
        // stream is reasoning again, until `<|inner_suffix|>`.
        assert_eq!(
            events(
                "<|inner_prefix|>a<|tools_prefix|>[{\"f\": {}}]<|tools_suffix|>[1]b<|inner_suffix|>c"
            ),
            [
                reasoning("a"),
                call("tool-call-1", "f", "{}"),
                reasoning("[1]b"),
                text("c"),
            ]
        );
    }

    #[test]
    fn a_cut_object_goes_back_to_the_mode_that_opened_the_section() {
        // AP1.6: cut in reasoning, the object's bytes are text and reasoning follows.
        assert_eq!(
            events("<|inner_prefix|><|tools_prefix|>[{\"f\": {\"<|tools_suffix|>x"),
            [
                error("apertus tool call cut by <|tools_suffix|>"),
                text("{\"f\": {\"<|tools_suffix|>"),
                reasoning("x"),
            ]
        );
    }

    #[test]
    fn an_open_object_at_the_end_is_unterminated() {
        assert_eq!(
            events("<|tools_prefix|>[{\"f\": {\"]\": "),
            [
                error("unterminated apertus tool call"),
                text("{\"f\": {\"]\": "),
            ]
        );
    }

    #[test]
    fn two_keys_are_no_call() {
        // AP3.3: the object is an error with its bytes; the next one is tool-call-1.
        assert_eq!(
            events("<|tools_prefix|>[{\"f\": {}, \"g\": {}}, {\"h\": {}}]<|tools_suffix|>"),
            [
                error("apertus tool call object has 2 keys, not one"),
                text("{\"f\": {}, \"g\": {}}"),
                call("tool-call-1", "h", "{}"),
            ]
        );
    }
}
