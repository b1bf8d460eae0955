//! The `step3` reference parser (`specs/dialects/step3.md`): StepFun Step3's
//! `<｜tool_calls_begin｜>` … `<｜tool_calls_end｜>` section of `<｜tool_call_begin｜>` …
//! `<｜tool_call_end｜>` call blocks (DeepSeek-V3's layout with Step3's tokens: fullwidth bars,
//! underscores), each `function<｜tool_sep｜>` and one `<steptml:invoke name="NAME">` element of
//! `<steptml:parameter name="KEY">` values typed by the tool's schema (MiniMax-M2's elements
//! with a `steptml:` prefix, read by its reader, `call.rs`); `<think>…</think>` is reasoning,
//! and the generation prompt opens it (STP6.1). A grammar for the dialect kit: the sectioned
//! layout, each block captured to its first `<｜tool_call_end｜>` and read whole.

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, END_THINK, End, Grammar, Marker, Mode, Outcome, Reading, THINK, section_markers,
    sectioned,
};
use sectioned::SECTION;

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it (STP6.2).
pub(crate) const DEFAULT_PREFILL: &str = "<|BOT|>assistant\n<think>\n";

/// `step3`, described (`Dialect::Step3`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "step3",
    models: "StepFun Step3",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜tool_calls_begin｜>\n<｜tool_call_begin｜>\nfunction<｜tool_sep｜><steptml:invoke name=\"GetWeather\"><steptml:parameter name=\"location\">",
        after: "</steptml:parameter></steptml:invoke><｜tool_call_end｜>\n<｜tool_calls_end｜>",
        values: Values::Text,
    },
    fragments: &[
        "<｜tool_calls_begin｜>",
        "<｜tool_call_begin｜>",
        "<｜tool_sep｜>",
        "<｜tool_call_end｜>",
        "<｜tool_calls_end｜>",
        "<｜tool_call",
        "function<｜tool_sep｜><steptml:invoke name=\"GetWeather\">",
        "<steptml:invoke name=\"search_files\">",
        "</steptml:invoke>",
        "<steptml:parameter name=\"location\">",
        "<steptml:parameter name=\"max_results\">",
        "</steptml:parameter>",
    ],
    prefills: &[DEFAULT_PREFILL],
    samples: &[
        "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"GetWeather\"><steptml:parameter name=\"location\">Paris</steptml:parameter></steptml:invoke><｜tool_call_end｜>",
    ],
};

const SECTION_OPENER: &str = "<｜tool_calls_begin｜>";
const SECTION_CLOSER: &str = "<｜tool_calls_end｜>";
const CALL_OPENER: &str = "<｜tool_call_begin｜>";
const CALL_CLOSER: &str = "<｜tool_call_end｜>";

/// STP2.1: in text only the section opener and `<think>` are markers; a call opener outside a
/// section is text (STP2.8). STP2.2: in reasoning only `</think>` is (E4.4).
const TEXT_MARKERS: &[Marker] = &[
    Marker {
        literal: SECTION_OPENER,
        action: Action::Switch(SECTION),
    },
    THINK,
];

/// STP2.4, STP2.5: between calls and in stray text, the call opener and the section closer.
static SECTION_MARKERS: [Marker; 2] = section_markers(CALL_OPENER, &CALL, SECTION_CLOSER);

/// The modes of STP1.2 and the table at the end of `specs/dialects/step3.md` §6: text,
/// reasoning, a section between calls, and stray text in a section.
static MODES: [Mode; 4] = sectioned(TEXT_MARKERS, END_THINK, &SECTION_MARKERS);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// STP2.6: a block ends at its first `<｜tool_call_end｜>`, nothing else ends it.
static CALL: Block = Block::new(&[CALL_CLOSER], decode, unterminated);

/// STP3.9, STP5.3: a call or an error; either way the parser is between calls again (STP2.4).
fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    let content = reading.inner(CALL_OPENER, CALL_CLOSER);
    Outcome::of_call(
        call::read(content, reading.tools, reading.generated_id.clone()),
        SECTION,
    )
}

/// STP2.7, STP5.4: only an open block is unterminated; the section that held it needs no
/// closer.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes that the corpus reaches only through whole streams, checked here
    //! whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::events;

    /// STP2.5: in a section, `<think>`, `</think>`, a second section opener and a bare invoke
    /// are stray text, and the section goes on after them.
    #[test]
    fn reasoning_and_section_openers_in_a_section_are_stray_text() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<｜tool_calls_begin｜> \n<think>x</think> <｜tool_calls_begin｜>\n\
                 <steptml:invoke name=\"f\"></steptml:invoke><｜tool_calls_end｜><think>r</think>"
            ),
            [
                r#"{"type":"text-delta","delta":"<think>x</think> <｜tool_calls_begin｜>\n<steptml:invoke name=\"f\"></steptml:invoke>"}"#,
                r#"{"type":"reasoning-delta","delta":"r"}"#,
            ]
        );
    }

    /// STP2.5, STP7.3: a partial call opener that fails in a section is stray text from its
    /// `<`; the blanks before it were markup, those after it are text.
    #[test]
    fn failed_partial_marker_in_a_section_starts_stray_text() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<｜tool_calls_begin｜>\n<｜tool_call_en \n<｜tool_call_begin｜>function<｜tool_sep｜>\
                 <steptml:invoke name=\"f\"></steptml:invoke><｜tool_call_end｜>"
            ),
            [
                r#"{"type":"text-delta","delta":"<｜tool_call_en \n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }

    /// STP2.6: a call opener and `<think>` inside a block are its content; the block runs to
    /// its first `<｜tool_call_end｜>`, which cuts a value that holds one.
    #[test]
    fn only_the_call_closer_ends_a_block() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>\
                 <steptml:invoke name=\"f\"><steptml:parameter name=\"a\"><｜tool_call_begin｜>\
                 <think></steptml:parameter></steptml:invoke><｜tool_call_end｜>"
            ),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"a":"<｜tool_call_begin｜><think>"}}"#,
            ]
        );
        assert_eq!(
            events(
                &GRAMMAR,
                "<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜>\
                 <steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x<｜tool_call_end｜>\
                 </steptml:parameter></steptml:invoke><｜tool_call_end｜>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed step3 parameter \"a\""}"#,
                r#"{"type":"text-delta","delta":"<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x<｜tool_call_end｜></steptml:parameter></steptml:invoke><｜tool_call_end｜>"}"#,
            ]
        );
    }

    /// STP2.4, STP5.3: after an invalid block the parser is between calls: the blanks are
    /// markup, a later block a call, and the section closer returns to text.
    #[test]
    fn an_invalid_block_leaves_the_section_open() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<｜tool_calls_begin｜><｜tool_call_begin｜>x<｜tool_call_end｜>\n\
                 <｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name=\"f\"></steptml:invoke>\
                 <｜tool_call_end｜>\n<｜tool_calls_end｜><｜tool_call_begin｜>"
            ),
            [
                r#"{"type":"error","errorText":"malformed step3 tool call: no <｜tool_sep｜>"}"#,
                r#"{"type":"text-delta","delta":"<｜tool_call_begin｜>x<｜tool_call_end｜>"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
                r#"{"type":"text-delta","delta":"<｜tool_call_begin｜>"}"#,
            ]
        );
    }
}
