//! The `minimax-m3` reference parser (`specs/dialects/minimax-m3.md`): `]<]minimax[>[`, the
//! namespace token (`NS`), glued to every tag; `NS<tool_call>` opens a section of
//! `NS<invoke name="NAME">` blocks whose arguments are elements named by their keys
//! (`NS<city>Paris NS</city>`), objects nested as child elements and lists as `NS<item>`
//! children, typed by the tool's schema; `<mm:think>…</mm:think>` is the reply's one thought.
//! A grammar for the dialect kit: the reply starts at a lead (where `</mm:think>` is the empty
//! thought, MX2.2), then prose, reasoning or the answer; the section is a gap (blanks markup,
//! stray text text), and each invoke block is captured to its `NS</invoke>` (or an
//! `NS</tool_call>` that cuts it) and read whole (`invoke.rs`).

mod invoke;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};

use invoke::InvokeError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the template's default `]~b]ai\n` opens nothing (MX2.8).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `minimax-m3`, described (`Dialect::MinimaxM3`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "minimax-m3",
    models: "MiniMax-M3",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"GetWeather\">]<]minimax[>[<location>",
        after: "]<]minimax[>[</location>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
        values: Values::Text,
    },
    fragments: &[
        "]<]minimax[>[",
        "]<]minimax[>[<tool_call>",
        "]<]minimax[>[</tool_call>",
        "]<]minimax[>[<invoke",
        "]<]minimax[>[<invoke name=\"GetWeather\">",
        "]<]minimax[>[<invoke name=\"search_files\">",
        "]<]minimax[>[</invoke>",
        "]<]minimax[>[<location>",
        "]<]minimax[>[</location>",
        "]<]minimax[>[<paths>",
        "]<]minimax[>[</paths>",
        "]<]minimax[>[<item>",
        "]<]minimax[>[</item>",
        "]<]mini",
        "]<]minimax[>[<inv",
        "<mm:think>",
        "</mm:think>",
        "</mm:thi",
        "]<]minimax[>[<invoke name='f'>",
    ],
    prefills: &["]~b]ai\n", "]~b]ai\n<mm:think>", "]~b]ai\n</mm:think>"],
    samples: &[
        "</mm:think>]<]minimax[>[<tool_call>\n]<]minimax[>[<invoke name=\"GetWeather\">]<]minimax[>[<location>Paris]<]minimax[>[</location>]<]minimax[>[</invoke>\n]<]minimax[>[</tool_call>",
    ],
};

/// The namespace token, one vocabulary token, written before every tag (MX1.1).
const NS: &str = "]<]minimax[>[";
const SECTION_OPENER: &str = "]<]minimax[>[<tool_call>";
const SECTION_CLOSER: &str = "]<]minimax[>[</tool_call>";
const INVOKE_OPENER: &str = "]<]minimax[>[<invoke";
const INVOKE_CLOSER: &str = "]<]minimax[>[</invoke>";
const THINK: &str = "<mm:think>";
const END_THINK: &str = "</mm:think>";

/// The modes of the table of `specs/dialects/minimax-m3.md` §2.
const LEAD: ModeId = ModeId(0);
const PROSE: ModeId = ModeId(1);
const REASONING: ModeId = ModeId(2);
const ANSWER: ModeId = ModeId(3);
const SECTION: ModeId = ModeId(4);
const STRAY: ModeId = ModeId(5);

/// `NS<tool_call>` where a section may open (MX1.3).
const OPEN_SECTION: Marker = Marker {
    literal: SECTION_OPENER,
    action: Action::Switch(SECTION),
};

/// `<mm:think>` in the lead and in prose (MX2.2, MX2.4).
const OPEN_THOUGHT: Marker = Marker {
    literal: THINK,
    action: Action::Switch(REASONING),
};

/// The section's markers, the same after stray text (MX1.3, MX1.4).
static SECTION_MARKERS: [Marker; 2] = [
    Marker {
        literal: INVOKE_OPENER,
        action: Action::Block(&INVOKE),
    },
    Marker {
        literal: SECTION_CLOSER,
        action: Action::Switch(ANSWER),
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // MX2.2: the reply's start; its first char that is not blank makes it prose.
    Mode {
        id: LEAD,
        content: Content::Lead { then: PROSE },
        markers: &[
            OPEN_THOUGHT,
            // The empty thought: markup, and the reply goes on in the answer.
            Marker {
                literal: END_THINK,
                action: Action::Switch(ANSWER),
            },
            OPEN_SECTION,
        ],
    },
    // MX2.4: prose before any thought.
    Mode {
        id: PROSE,
        content: Content::Text,
        markers: &[OPEN_THOUGHT, OPEN_SECTION],
    },
    // MX2.3: only `</mm:think>` ends the thought.
    Mode {
        id: REASONING,
        content: Content::Reasoning,
        markers: &[Marker {
            literal: END_THINK,
            action: Action::Switch(ANSWER),
        }],
    },
    // MX2.5, MX1.13: after the thought or a section, both thought markers are text.
    Mode {
        id: ANSWER,
        content: Content::Text,
        markers: &[OPEN_SECTION],
    },
    // MX1.3: between invokes.
    Mode {
        id: SECTION,
        content: Content::Gap { stray: STRAY },
        markers: &SECTION_MARKERS,
    },
    // MX1.4: stray text in a section, text up to the next invoke or the closer.
    Mode {
        id: STRAY,
        content: Content::Text,
        markers: &SECTION_MARKERS,
    },
]);

/// MX1.5: an invoke block ends at the first `NS</invoke>` or `NS</tool_call>`.
static INVOKE: Block = Block::new(&[INVOKE_CLOSER, SECTION_CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end != End::Closer(INVOKE_CLOSER) {
        // No `NS</invoke>`: invalid, and the `NS</tool_call>` in its bytes closed the section
        // (MX1.5).
        return Outcome::Reject(InvokeError::Unclosed.to_string(), ANSWER);
    }
    Outcome::of_call(
        invoke::read(reading.block, reading.tools, reading.generated_id.clone()),
        SECTION,
    )
}

/// MX1.14, MX1.15: only an opened invoke block is unterminated; its section needs no closer.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(InvokeError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes that the corpus reaches only through whole streams, checked here
    //! whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::events;

    /// `s` with `NS` standing for the namespace token.
    fn ns(s: &str) -> String {
        s.replace("NS", NS)
    }

    #[test]
    fn a_call_comes_out_at_its_invoke_closer() {
        assert_eq!(
            events(
                &GRAMMAR,
                &ns("NS<tool_call>\nNS<invoke name=\"f\">NS<a>x NS</a>NS</invoke>")
            ),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"a":"x "}}"#
            ]
        );
    }

    #[test]
    fn the_section_closer_cuts_an_invoke_and_ends_the_section() {
        let stream =
            ns("NS<tool_call>NS<invoke name=\"f\">NS</tool_call> NS<invoke name=\"g\">NS</invoke>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"error","errorText":"unclosed minimax invoke"}"#.to_owned(),
                format!(
                    r#"{{"type":"text-delta","delta":"{}"}}"#,
                    ns(r#"NS<invoke name=\"f\">NS</tool_call> NS<invoke name=\"g\">NS</invoke>"#)
                ),
            ]
        );
    }

    #[test]
    fn an_invoke_closer_in_the_tag_ends_the_block_malformed() {
        let stream =
            ns("NS<tool_call>NS<invoke name=\"fNS</invoke>\nNS<invoke name=\"g\">NS</invoke>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"error","errorText":"malformed minimax invoke tag"}"#.to_owned(),
                format!(
                    r#"{{"type":"text-delta","delta":"{}"}}"#,
                    ns(r#"NS<invoke name=\"fNS</invoke>"#)
                ),
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"g","input":{}}"#
                    .to_owned(),
            ]
        );
    }

    #[test]
    fn an_element_named_invoke_ends_the_block_at_its_closer() {
        // MX1.5: the first `NS</invoke>` ends the block, whatever stands before it.
        let stream = ns("NS<tool_call>NS<invoke name=\"f\">NS<invoke>xNS</invoke>NS</invoke>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"error","errorText":"unclosed minimax element \"invoke\""}"#.to_owned(),
                // The block's text, then the stray `NS</invoke>` in the section.
                format!(
                    r#"{{"type":"text-delta","delta":"{}"}}"#,
                    ns(r#"NS<invoke name=\"f\">NS<invoke>xNS</invoke>NS</invoke>"#)
                ),
            ]
        );
    }

    #[test]
    fn an_unterminated_invoke_keeps_the_calls_before_it() {
        let stream = ns("NS<tool_call>NS<invoke name=\"f\">NS</invoke>NS<invoke name=\"g\">");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#
                    .to_owned(),
                r#"{"type":"error","errorText":"unterminated minimax invoke"}"#.to_owned(),
                format!(
                    r#"{{"type":"text-delta","delta":"{}"}}"#,
                    ns(r#"NS<invoke name=\"g\">"#)
                ),
            ]
        );
    }

    #[test]
    fn the_lead_opens_a_section_after_blanks_and_prose_after_text() {
        let stream = ns(" \nNS<tool_call>NS<invoke name=\"f\">NS</invoke>NS</tool_call><mm:think>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"text-delta","delta":" \n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
                r#"{"type":"text-delta","delta":"<mm:think>"}"#,
            ]
        );
        // Prose: `</mm:think>` is text, `<mm:think>` and the section opener are markers.
        let stream = ns("a</mm:think>NS<tool_call>NS</tool_call></mm:think>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [r#"{"type":"text-delta","delta":"a</mm:think></mm:think>"}"#]
        );
    }

    #[test]
    fn a_lead_prefix_that_prose_does_not_hold_is_prose_once_the_lead_ends() {
        // `</` is held in the lead (it may start `</mm:think>`), and the `A` before it in the
        // same chunk makes the reply prose, where it starts no marker: it is text at once.
        use crate::dialect::kit::KitParser;
        use crate::event::Event;
        use crate::parser::StreamParser;
        let text = |events: &[Event]| -> String {
            events
                .iter()
                .map(|event| match event {
                    Event::TextDelta { delta } => delta.as_str(),
                    _ => "?",
                })
                .collect()
        };
        let mut parser = KitParser::new(&GRAMMAR, std::sync::Arc::default());
        let mut out = Vec::new();
        parser.push("A </", &mut out);
        assert_eq!(text(&out), "A </");
        out.clear();
        parser.push("mm:think>", &mut out);
        parser.finish(&mut out);
        assert_eq!(text(&out), "mm:think>");
    }

    #[test]
    fn a_section_in_the_answer_after_a_thought() {
        let stream =
            ns("<mm:think>r</mm:think>NS<tool_call>NS<invoke name=\"f\">NS</invoke>NS</tool_call>");
        assert_eq!(
            events(&GRAMMAR, &stream),
            [
                r#"{"type":"reasoning-delta","delta":"r"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }
}
