//! The `minimax-m2` reference parser (`specs/dialects/minimax-m2.md`): `<minimax:tool_call>`
//! opens a section of `<invoke name="NAME">` blocks whose `<parameter name="KEY">` values are
//! typed by the tool's schema; `<think>…</think>` is reasoning, and the generation prompt
//! opens it (MM2.2). A grammar for the dialect kit: the section is a gap (blanks markup, stray
//! text text), each invoke block is captured to its `</invoke>` (or a `</minimax:tool_call>`
//! that cuts it) and read whole (`invoke.rs`).

mod invoke;

use super::kit::{
    Action, Block, Content, Grammar, Marker, Mode, Outcome, Reading, THINK, THINKING,
};

use invoke::InvokeError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "]~b]ai\n<think>\n";

const SECTION_OPENER: &str = "<minimax:tool_call>";
const SECTION_CLOSER: &str = "</minimax:tool_call>";
const INVOKE_OPENER: &str = "<invoke";
const INVOKE_CLOSER: &str = "</invoke>";

/// Modes (MM1.1, MM1.3, and the table of `specs/dialects/minimax-m2.md` §2): text, reasoning,
/// a section between invokes, and stray text in a section.
const TEXT: usize = 0;
const SECTION: usize = 2;
const STRAY: usize = 3;

/// The section's markers, the same after stray text (MM1.3).
const SECTION_MARKERS: &[Marker] = &[
    Marker {
        literal: INVOKE_OPENER,
        action: Action::Block(&INVOKE),
    },
    Marker {
        literal: SECTION_CLOSER,
        action: Action::Switch(TEXT),
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    Mode {
        content: Content::Text,
        markers: &[
            Marker {
                literal: SECTION_OPENER,
                action: Action::Switch(SECTION),
            },
            THINK,
        ],
    },
    THINKING,
    Mode {
        content: Content::Gap { stray: STRAY },
        markers: SECTION_MARKERS,
    },
    Mode {
        content: Content::Text,
        markers: SECTION_MARKERS,
    },
]);

/// The order of [`INVOKE`]'s closers.
const ENDED_BY_INVOKE_CLOSER: usize = 0;

/// MM1.4: an invoke block ends at the first `</invoke>` or `</minimax:tool_call>`.
static INVOKE: Block = Block::new(&[INVOKE_CLOSER, SECTION_CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, closer: usize) -> Outcome {
    if closer != ENDED_BY_INVOKE_CLOSER {
        // No `</invoke>`: invalid, and the `</minimax:tool_call>` in its bytes closed the
        // section (MM1.4).
        return Outcome::Reject(InvokeError::Unclosed.to_string(), TEXT);
    }
    Outcome::of_call(
        invoke::read(reading.block, reading.tools, reading.generated_id.clone()),
        SECTION,
    )
}

/// MM1.10: only an opened invoke block is unterminated; its section needs no closer.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(InvokeError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes that the corpus reaches only through whole streams, checked here
    //! whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::events;

    #[test]
    fn a_call_comes_out_at_its_invoke_closer() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<minimax:tool_call>\n<invoke name=\"f\">\n<parameter name=\"a\">x</parameter>\n</invoke>"
            ),
            [r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"a":"x"}}"#]
        );
    }

    #[test]
    fn the_section_closer_cuts_an_invoke_and_ends_the_section() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<minimax:tool_call><invoke name=\"f\"></minimax:tool_call> <invoke name=\"g\"></invoke>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed minimax invoke"}"#,
                r#"{"type":"text-delta","delta":"<invoke name=\"f\"></minimax:tool_call> <invoke name=\"g\"></invoke>"}"#,
            ]
        );
    }

    #[test]
    fn an_invoke_closer_in_the_tag_ends_the_block_malformed() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<minimax:tool_call><invoke name=\"f</invoke>\n<invoke name=\"g\"></invoke>"
            ),
            [
                r#"{"type":"error","errorText":"malformed minimax invoke tag"}"#,
                r#"{"type":"text-delta","delta":"<invoke name=\"f</invoke>"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"g","input":{}}"#,
            ]
        );
    }

    #[test]
    fn an_unterminated_invoke_keeps_the_calls_before_it() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<minimax:tool_call><invoke name=\"f\"></invoke><invoke name=\"g\">"
            ),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
                r#"{"type":"error","errorText":"unterminated minimax invoke"}"#,
                r#"{"type":"text-delta","delta":"<invoke name=\"g\">"}"#,
            ]
        );
    }
}
