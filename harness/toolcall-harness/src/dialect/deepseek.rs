//! The `deepseek-v3` and `deepseek-v3.1` reference parsers (`specs/dialects/deepseek-v3.md`,
//! `specs/dialects/deepseek-v3.1.md`): a `<｜tool▁calls▁begin｜>` … `<｜tool▁calls▁end｜>`
//! section of `<｜tool▁call▁begin｜>` … `<｜tool▁call▁end｜>` call blocks; `<think>…</think>`
//! is reasoning. Two grammars for the dialect kit that share every mode and marker (DSV1.1)
//! and differ only in how a complete call block is read ([`call`]): V3's
//! `function<｜tool▁sep｜>NAME` and fenced JSON (DS3), V3.1's `NAME<｜tool▁sep｜>JSON` (DSV2).

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, END_THINK, End, Grammar, Marker, Mode, Outcome, Reading, THINK, section_markers,
    sectioned,
};
use sectioned::SECTION;

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const V3_DEFAULT_PREFILL: &str = "";

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const V31_DEFAULT_PREFILL: &str = "";

/// `deepseek-v3`, described (`Dialect::DeepSeekV3`).
pub(crate) static V3_DIALECT: Descriptor = Descriptor {
    name: "deepseek-v3",
    models: "DeepSeek V3, R1",
    parser: Parser::Kit(&V3),
    default_prefill: V3_DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>GetWeather\n```json\n{\"location\": \"",
        after: "\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        values: Values::Json,
    },
    fragments: &[
        "<｜tool▁calls▁begin｜>",
        "<｜tool▁call▁begin｜>",
        "<｜tool▁sep｜>",
        "<｜tool▁call▁end｜>",
        "<｜tool▁calls▁end｜>",
        "function<｜tool▁sep｜>get_weather\n```json\n",
        "\n```",
    ],
    prefills: &["<｜Assistant｜></think>", "<｜Assistant｜><think>"],
    samples: &[
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{}\n```<｜tool▁call▁end｜>",
    ],
};

/// `deepseek-v3.1`, described (`Dialect::DeepSeekV31`).
pub(crate) static V31_DIALECT: Descriptor = Descriptor {
    name: "deepseek-v3.1",
    models: "DeepSeek V3.1",
    parser: Parser::Kit(&V31),
    default_prefill: V31_DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>GetWeather<｜tool▁sep｜>{\"location\": \"",
        after: "\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        values: Values::Json,
    },
    fragments: &[],
    prefills: &["<｜Assistant｜></think>", "<｜Assistant｜><think>"],
    samples: &["<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>f<｜tool▁sep｜>{}<｜tool▁call▁end｜>"],
};

const SECTION_OPENER: &str = "<｜tool▁calls▁begin｜>";
const SECTION_CLOSER: &str = "<｜tool▁calls▁end｜>";
const CALL_OPENER: &str = "<｜tool▁call▁begin｜>";
const CALL_CLOSER: &str = "<｜tool▁call▁end｜>";

/// DS2.2: in text only the section opener and `<think>` are markers; a call opener outside a
/// section is text (DS2.8). DS2.3: in reasoning only `</think>` is (E4.4).
const TEXT_MARKERS: &[Marker] = &[
    Marker {
        literal: SECTION_OPENER,
        action: Action::Switch(SECTION),
    },
    THINK,
];

/// DS2.4, DS2.5: between calls and in stray text, the call opener and the section closer.
static V3_SECTION: [Marker; 2] = section_markers(CALL_OPENER, &V3_CALL, SECTION_CLOSER);
static V31_SECTION: [Marker; 2] = section_markers(CALL_OPENER, &V31_CALL, SECTION_CLOSER);

static V3_MODES: [Mode; 4] = sectioned(TEXT_MARKERS, END_THINK, &V3_SECTION);
static V31_MODES: [Mode; 4] = sectioned(TEXT_MARKERS, END_THINK, &V31_SECTION);

/// DeepSeek-V3, V3-0324, R1: `function<｜tool▁sep｜>NAME` and a ```` ```json ```` fence.
pub(crate) static V3: Grammar = Grammar::new(&V3_MODES);

/// DeepSeek-V3.1: `NAME<｜tool▁sep｜>JSON`.
pub(crate) static V31: Grammar = Grammar::new(&V31_MODES);

/// DS2.6: a block ends at its first `<｜tool▁call▁end｜>`, nothing else ends it.
static V3_CALL: Block = Block::new(&[CALL_CLOSER], decode_v3, unterminated);
static V31_CALL: Block = Block::new(&[CALL_CLOSER], decode_v31, unterminated);

/// The content of a complete block: between its opener and its closer.
fn content<'a>(reading: &Reading<'a>) -> &'a str {
    reading
        .block
        .get(CALL_OPENER.len()..reading.block.len().saturating_sub(CALL_CLOSER.len()))
        .unwrap_or_default()
}

fn decode_v3(reading: &Reading<'_>, _: End) -> Outcome {
    settle(call::v3(content(reading)), reading)
}

fn decode_v31(reading: &Reading<'_>, _: End) -> Outcome {
    settle(call::v31(content(reading)), reading)
}

/// DS4.1, DS4.3: a call or an error; either way the parser is between calls again (DS2.4).
fn settle(call: Result<call::Call, CallError>, reading: &Reading<'_>) -> Outcome {
    let id = reading.generated_id.clone();
    Outcome::of_call(call.map(|call| call.into_event(id)), SECTION)
}

/// DS2.7: only an open block is unterminated; the section that held it needs no closer.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::events;

    /// DS2.5: in a section, `<think>`, `</think>` and a second section opener are stray text,
    /// and the section goes on after them.
    #[test]
    fn reasoning_and_section_openers_in_a_section_are_stray_text() {
        for grammar in [&V3, &V31] {
            assert_eq!(
                events(
                    grammar,
                    "<｜tool▁calls▁begin｜> \n<think>x</think> <｜tool▁calls▁begin｜>\n\
                     <｜tool▁calls▁end｜><think>r</think>"
                ),
                [
                    r#"{"type":"text-delta","delta":"<think>x</think> <｜tool▁calls▁begin｜>\n"}"#,
                    r#"{"type":"reasoning-delta","delta":"r"}"#,
                ]
            );
        }
    }

    /// DS2.5, DS7.3: a partial call opener that fails in a section is stray text from its `<`;
    /// the blanks before it were markup, those after it are text.
    #[test]
    fn failed_partial_marker_in_a_section_starts_stray_text() {
        assert_eq!(
            events(
                &V31,
                "<｜tool▁calls▁begin｜>\n<｜tool▁call▁en \n<｜tool▁call▁begin｜>f<｜tool▁sep｜>{}\
                 <｜tool▁call▁end｜>"
            ),
            [
                r#"{"type":"text-delta","delta":"<｜tool▁call▁en \n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }
}
