//! The `hunyuan` reference parser (`specs/dialects/hunyuan.md`): Hunyuan-A13B's
//! `<think>\n…\n</think>\n<answer>\n` and `<tool_calls>[{"name": …, "arguments": {…}}, …]`,
//! `</tool_calls>\n</answer>`.
//! A grammar for the dialect kit: text, `<think>` reasoning, the answer (a mode of its own,
//! HY1.2), and a tools section opened in text or in the answer, whose gap reads each call
//! object as a JSON-object block of its own (HY1.4, HY1.6; as `mistral` reads an array), ended
//! where its braces balance, cut by `</tool_calls>` (HY1.7), and read whole ([`call`]).
//!
//! A section's `</tool_calls>` goes back to the mode that opened it, so the section's two
//! modes and the call block exist twice: once for a section opened in text, once for one
//! opened in the answer (where `</answer>` closes the section and the answer at once).

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading, THINK,
    THINKING, sectioned,
};

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// none, the template ends the prompt with the last turn (HY2.7).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `hunyuan`, described (`Dialect::Hunyuan`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "hunyuan",
    models: "Hunyuan-A13B-Instruct (also -FP8, -GPTQ-Int4)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_calls>[{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}]</tool_calls>",
        values: Values::Json,
    },
    fragments: &[
        "<tool_calls>",
        "</tool_calls>",
        "<answer>",
        "</answer>",
        "<answer>\n",
        "\n</answer>",
        "\n</think>\n<answer>\n",
        "<tool_ca",
        "</ans",
        "<tool_calls>[{\"name\": \"",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "\"arguments\": \"{\\\"a\\\": 1}\"",
        "}]</tool_calls>",
        "}, {",
        "助手：",
    ],
    // HY2.6: `enable_thinking=False` (the default, "", opens nothing).
    prefills: &["<|extra_0|><think>\n\n</think>\n"],
    samples: &["<tool_calls>[{\"name\": \"f\", \"arguments\": {}}]</tool_calls>"],
};

const TOOL_CALLS: &str = "<tool_calls>";
const END_TOOL_CALLS: &str = "</tool_calls>";
const ANSWER_OPENER: &str = "<answer>";
const END_ANSWER: &str = "</answer>";

/// The modes of the table in `specs/dialects/hunyuan.md` §2. [`THINKING`] is mode 1 and goes
/// back to text (HY2.1, HY2.2).
const TEXT: ModeId = sectioned::TEXT;
/// The answer (HY1.2).
const ANSWER: ModeId = ModeId(2);
/// A section opened in text: its gap and its stray text (HY1.4).
const SECTION: ModeId = ModeId(3);
const SECTION_STRAY: ModeId = ModeId(4);
/// A section opened in the answer: its gap and its stray text.
const ANSWER_SECTION: ModeId = ModeId(5);
const ANSWER_SECTION_STRAY: ModeId = ModeId(6);

/// HY1.4: a section's markers, the same in its gap and after stray text: `{` opens a call
/// object, `[`, `,` and `]` are markup (back in the gap), then the section's closers.
macro_rules! section_markers {
    ($gap:expr, $object:expr, $($closer:expr),+) => {
        &[
            Marker {
                literal: "{",
                action: Action::Block($object),
            },
            Marker {
                literal: "[",
                action: Action::Switch($gap),
            },
            Marker {
                literal: ",",
                action: Action::Switch($gap),
            },
            Marker {
                literal: "]",
                action: Action::Switch($gap),
            },
            $($closer),+
        ]
    };
}

/// A section opened in text; `</tool_calls>` goes back to text.
const SECTION_MARKERS: &[Marker] = section_markers!(
    SECTION,
    &OBJECT,
    Marker {
        literal: END_TOOL_CALLS,
        action: Action::Switch(TEXT),
    }
);

/// A section opened in the answer; `</tool_calls>` goes back to the answer, `</answer>`
/// closes the section and the answer.
const ANSWER_SECTION_MARKERS: &[Marker] = section_markers!(
    ANSWER_SECTION,
    &OBJECT_IN_ANSWER,
    Marker {
        literal: END_TOOL_CALLS,
        action: Action::Switch(ANSWER),
    },
    Marker {
        literal: END_ANSWER,
        action: Action::Switch(TEXT),
    }
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // HY1.2, HY1.3, HY1.4, HY2.1: text.
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: &[
            Marker {
                literal: TOOL_CALLS,
                action: Action::Switch(SECTION),
            },
            THINK,
            Marker {
                literal: ANSWER_OPENER,
                action: Action::Switch(ANSWER),
            },
        ],
    },
    // HY2.2: only `</think>`.
    THINKING,
    // HY1.2: in the answer only `<tool_calls>` and `</answer>` are markers.
    Mode {
        id: ANSWER,
        content: Content::Text,
        markers: &[
            Marker {
                literal: TOOL_CALLS,
                action: Action::Switch(ANSWER_SECTION),
            },
            Marker {
                literal: END_ANSWER,
                action: Action::Switch(TEXT),
            },
        ],
    },
    Mode {
        id: SECTION,
        content: Content::Gap {
            stray: SECTION_STRAY,
        },
        markers: SECTION_MARKERS,
    },
    Mode {
        id: SECTION_STRAY,
        content: Content::Text,
        markers: SECTION_MARKERS,
    },
    Mode {
        id: ANSWER_SECTION,
        content: Content::Gap {
            stray: ANSWER_SECTION_STRAY,
        },
        markers: ANSWER_SECTION_MARKERS,
    },
    Mode {
        id: ANSWER_SECTION_STRAY,
        content: Content::Text,
        markers: ANSWER_SECTION_MARKERS,
    },
]);

/// HY1.6, HY1.7: a call object of a section opened in text, to the `}` that closes its `{`
/// (braces in JSON strings not counted; no depth limit of its own: C8.2's is found when the
/// object is read, HY3.2), cut by `</tool_calls>` wherever it stands.
static OBJECT: Block = Block::nested(
    &[END_TOOL_CALLS],
    &Nesting::JSON_OBJECT,
    decode::<false>,
    unterminated::<false>,
);

/// The same in a section opened in the answer: only the modes it goes back to differ (HY2.5:
/// `</answer>` in an object is its bytes).
static OBJECT_IN_ANSWER: Block = Block::nested(
    &[END_TOOL_CALLS],
    &Nesting::JSON_OBJECT,
    decode::<true>,
    unterminated::<true>,
);

/// The section's gap, where a section goes on after an object (HY1.4, HY4.2).
fn gap(in_answer: bool) -> ModeId {
    if in_answer { ANSWER_SECTION } else { SECTION }
}

/// The mode a section's `</tool_calls>` goes back to (HY1.4, HY1.7).
fn opener_mode(in_answer: bool) -> ModeId {
    if in_answer { ANSWER } else { TEXT }
}

/// An object that ended: at its closing brace, read (HY3.1, HY3.6), then the section's gap;
/// cut by `</tool_calls>`, invalid and the section closed (HY1.7).
fn decode<const IN_ANSWER: bool>(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        End::Closer(closer) => {
            Outcome::Reject(CallError::Cut(closer).to_string(), opener_mode(IN_ANSWER))
        }
        // Braces only pair with braces, and the nesting has no limit of its own: an object
        // always ends balanced.
        End::Balanced | End::Mismatched | End::TooDeep => Outcome::of_call(
            call::read(reading.block, reading.generated_id.clone()),
            gap(IN_ANSWER),
        ),
    }
}

/// HY4.4: an object still open at the end of the stream.
fn unterminated<const IN_ANSWER: bool>(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), gap(IN_ANSWER))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::event::Event;
    use crate::parser::{StreamParser, run};
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    use crate::dialect::kit::lines::{call, error, text};

    #[test]
    fn a_cut_in_the_answer_goes_back_to_the_answer() {
        // HY1.7: the cut closes the section opened in the answer; the answer goes on, and its
        // `</answer>` is markup.
        assert_eq!(
            events("<answer>\n<tool_calls>[{\"name\": \"f</tool_calls> ok\n</answer>\nbye"),
            [
                text("\n"),
                error("hunyuan tool call cut by </tool_calls>"),
                text("{\"name\": \"f</tool_calls> ok\n\nbye"),
            ]
        );
    }

    #[test]
    fn the_answer_closer_is_data_in_an_object() {
        // HY2.5: only `</tool_calls>` means anything inside an object.
        assert_eq!(
            events(
                "<answer><tool_calls>[{\"name\": \"f\", \"arguments\": {\"a\": \"</answer>\"}}]\
                 </tool_calls></answer>"
            ),
            [call("tool-call-1", "f", r#"{"a":"</answer>"}"#)]
        );
    }

    #[test]
    fn stray_text_then_closers_in_both_sections() {
        // HY1.4: blanks after stray text are text up to the next marker; `</answer>` closes a
        // section opened in the answer and the answer at once; `</answer>` in a section opened
        // in text is stray text (the runs merge across markup).
        assert_eq!(
            events("<answer><tool_calls> oops </answer>x<tool_calls> a </answer> ]b</tool_calls>c"),
            [text("oops xa </answer> bc")]
        );
    }

    #[test]
    fn an_unterminated_object_in_a_text_section() {
        assert_eq!(
            events("<tool_calls>[{\"name\": \"f\", \"arguments\": {\"}\": "),
            [
                error("unterminated hunyuan tool call"),
                text("{\"name\": \"f\", \"arguments\": {\"}\": "),
            ]
        );
    }

    #[test]
    fn a_partial_closer_at_the_end_of_a_section_is_stray_text() {
        // HY1.9.
        assert_eq!(
            events("<answer><tool_calls>[{\"name\": \"f\"}]</"),
            [call("tool-call-1", "f", "{}"), text("</")]
        );
    }

    #[test]
    fn nesting_is_checked_when_the_object_is_read() {
        // HY3.2: 126 levels, the call object counted, are valid; 127 are invalid JSON, found
        // when the object has ended, and the section goes on.
        let object = |levels: usize| {
            format!(
                "{{\"name\": \"f\", \"arguments\": {}{}}}",
                "{\"a\":".repeat(levels - 2),
                "{}".to_owned() + &"}".repeat(levels - 2)
            )
        };
        let valid = events(&format!("<tool_calls>[{}]", object(126)));
        assert!(valid[0].contains("\"type\":\"tool-call\""), "{valid:?}");
        let invalid = events(&format!("<tool_calls>[{}, {}]", object(127), object(3)));
        assert!(
            invalid[0].contains("invalid JSON in hunyuan tool call"),
            "{invalid:?}"
        );
        assert_eq!(invalid.len(), 3, "{invalid:?}");
        assert!(invalid[2].contains("\"type\":\"tool-call\""), "{invalid:?}");
        // Far deeper than serde_json recurses: still an error, no overflow.
        let deep = format!("<tool_calls>{}{}", "{".repeat(100_000), "}".repeat(100_000));
        let deep = events(&deep);
        assert!(
            deep[0].contains("invalid JSON in hunyuan tool call"),
            "{deep:?}"
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_marker() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("<answer>\nok <tool_c", &mut out);
        assert_eq!(out, [Event::text("\nok ")]);
        out.clear();
        parser.push(
            "alls>[{\"name\": \"f\", \"arguments\": {\"k\": \"}",
            &mut out,
        );
        assert_eq!(out, []);
        parser.push("\"}}", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push("]\n</tool_calls>\nthen</", &mut out);
        assert_eq!(out, [Event::text("\nthen")]);
    }

    #[test]
    fn call_spans_cover_each_object() {
        let stream = "x<tool_calls>[{\"name\": \"a\"}, {\"name\": \"b\"}]</tool_calls>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        let first = stream.find('{').expect("an object");
        let second = stream.rfind('{').expect("an object");
        assert_eq!(result.call_spans, [first..first + 13, second..second + 13]);
        // `<tool_calls>`, `[`, `,`, ` `, `]`, `</tool_calls>` (adjacent spans may merge).
        assert!(!parser.markup_spans().is_empty());
    }
}
