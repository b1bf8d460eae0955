//! The `minimax-m2` reference parser (`specs/dialects/minimax-m2.md`): `<minimax:tool_call>`
//! opens a section of `<invoke name="NAME">` blocks whose `<parameter name="KEY">` values are
//! typed by the tool's schema; `<think>…</think>` is reasoning, and the generation prompt
//! opens it (MM2.2). A grammar for the dialect kit: the section is a gap (blanks markup, stray
//! text text), each invoke block is captured to its `</invoke>` (or a `</minimax:tool_call>`
//! that cuts it) and read whole (`invoke.rs`).

pub(super) mod invoke;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, END_THINK, End, Grammar, Marker, Mode, Outcome, Reading, THINK, section_markers,
    sectioned,
};
use sectioned::{SECTION, TEXT};

use invoke::InvokeError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "]~b]ai\n<think>\n";

/// `minimax-m2`, described (`Dialect::MinimaxM2`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "minimax-m2",
    models: "MiniMax-M2, M2.1, M2.5",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<minimax:tool_call>\n<invoke name=\"GetWeather\">\n<parameter name=\"location\">",
        after: "</parameter>\n</invoke>\n</minimax:tool_call>\n",
        values: Values::Text,
    },
    fragments: &[
        "<minimax:tool_call>",
        "</minimax:tool_call>",
        "<invoke name=\"GetWeather\">",
        "<invoke name=\"search_files\">",
        "</invoke>",
        "<parameter name=\"location\">",
        "<parameter name=\"max_results\">",
        "</parameter>",
        "<invoke name='f'>",
    ],
    prefills: &["]~b]ai\n<think>\n"],
    samples: &[
        "<minimax:tool_call><invoke name=\"GetWeather\"><parameter name=\"location\">Paris</parameter></invoke>",
    ],
};

const SECTION_OPENER: &str = "<minimax:tool_call>";
const SECTION_CLOSER: &str = "</minimax:tool_call>";
const INVOKE_OPENER: &str = "<invoke";
const INVOKE_CLOSER: &str = "</invoke>";

/// The section's markers, the same after stray text (MM1.3).
static SECTION_MARKERS: [Marker; 2] = section_markers(INVOKE_OPENER, &INVOKE, SECTION_CLOSER);

/// The modes of MM1.1, MM1.3 and the table of `specs/dialects/minimax-m2.md` §2: text,
/// reasoning, a section between invokes, and stray text in a section.
static MODES: [Mode; 4] = sectioned(
    &[
        Marker {
            literal: SECTION_OPENER,
            action: Action::Switch(SECTION),
        },
        THINK,
    ],
    END_THINK,
    &SECTION_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// MM1.4: an invoke block ends at the first `</invoke>` or `</minimax:tool_call>`.
static INVOKE: Block = Block::new(&[INVOKE_CLOSER, SECTION_CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end != End::Closer(INVOKE_CLOSER) {
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
