//! The `seed-oss` reference parser (`specs/dialects/seed-oss.md`): ByteDance Seed-OSS writes
//! Qwen3-Coder's `<function=NAME>` blocks, whose `<parameter=KEY>` values are typed by the
//! tool's schema, inside its own `<seed:tool_call>` sections, and reasons between
//! `<seed:think>` and `</seed:think>`. A grammar for the dialect kit, `qwen3_coder`'s with Seed's
//! literals: the section is a gap (blanks markup, stray text text), each function block is
//! captured to its `</function>` (or a `</seed:tool_call>` that cuts it) and read whole by
//! `qwen3_coder`'s function reader, told Seed's values (SO1.6, SO3.3) and its own errors (`specs/dialects/seed-oss.md` §5).
//! Budget reflections (`<seed:cot_budget_reflect>`) are no markers (SO2.5).

use serde_json::Value;
use thiserror::Error;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, End, Grammar, Marker, Mode, Outcome, Reading, section_markers, sectioned,
};
use super::pythonic::literal;
use super::qwen3_coder::{Fault, ValueSyntax, read_function};
use super::typed::trim;
use sectioned::{REASONING, SECTION, TEXT};

/// `seed-oss`, described (`Dialect::SeedOss`). Its default generation prompt,
/// `<seed:bos>assistant\n`, opens nothing (SO2.8): the default prefill is `""`.
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "seed-oss",
    models: "Seed-OSS-36B",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: "",
    call: CallAround {
        before: "<seed:tool_call>\n<function=GetWeather>\n<parameter=location>",
        after: "</parameter>\n</function>\n</seed:tool_call>\n",
        values: Values::Text,
    },
    fragments: &[
        "<seed:tool_call>",
        "</seed:tool_call>",
        "<seed:think>",
        "</seed:think>",
        "<seed:t",
        "</seed:th",
        "<function=",
        "</function>",
        "<parameter=",
        "</parameter>",
        "<seed:tool_call>\n<function=GetWeather>\n<parameter=location>",
        "<function=search_files>\n<parameter=max_results>",
        "<seed:cot_budget_reflect>",
        "</seed:cot_budget_reflect>",
        "<seed:eos>",
    ],
    // SO2.7: the prompt of no budget or a budget above 0, and the budget-0 prompts of the
    // template's first and later revisions.
    prefills: &[
        "<seed:bos>assistant\n",
        "<seed:bos>assistant\n<seed:think><seed:cot_budget_reflect>",
        "<seed:bos>assistant\n<seed:think>\n<seed:cot_budget_reflect>The current thinking budget is 0, so I will directly start answering the question.</seed:cot_budget_reflect>\n</seed:think>",
    ],
    samples: &[
        "<seed:tool_call><function=search_files>\n<parameter=max_results>1</parameter></function>",
    ],
};

const SECTION_OPENER: &str = "<seed:tool_call>";
const SECTION_CLOSER: &str = "</seed:tool_call>";
const THINK_OPENER: &str = "<seed:think>";
const THINK_CLOSER: &str = "</seed:think>";
const FUNCTION_OPENER: &str = "<function=";
const FUNCTION_CLOSER: &str = "</function>";

/// The section's markers, the same after stray text (SO1.3).
static SECTION_MARKERS: [Marker; 2] = section_markers(FUNCTION_OPENER, &FUNCTION, SECTION_CLOSER);

/// The modes of SO1.1, SO1.3, SO2.1 and the table of `specs/dialects/seed-oss.md` §2: text,
/// reasoning (only `</seed:think>` ends it, SO2.2), a section between function blocks, and
/// stray text in a section.
static MODES: [Mode; 4] = sectioned(
    &[
        Marker {
            literal: SECTION_OPENER,
            action: Action::Switch(SECTION),
        },
        Marker {
            literal: THINK_OPENER,
            action: Action::Switch(REASONING),
        },
    ],
    &[Marker {
        literal: THINK_CLOSER,
        action: Action::Switch(TEXT),
    }],
    &SECTION_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// SO1.4: a function block ends at the first `</function>` or `</seed:tool_call>`.
static FUNCTION: Block = Block::new(&[FUNCTION_CLOSER, SECTION_CLOSER], decode, unterminated);

/// Why a function block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/seed-oss.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum FunctionError {
    /// Still open at the end of the stream (C4).
    #[error("unterminated seed function")]
    Unterminated,
    /// Ended by `</seed:tool_call>`: no `</function>` (SO1.12).
    #[error("unclosed seed function: </seed:tool_call> before </function>")]
    Unclosed,
    /// The NAME is not SO1.5's; why.
    #[error("invalid seed function name: {0}")]
    Name(&'static str),
    /// A KEY is not SO1.6's; why.
    #[error("invalid seed parameter name: {0}")]
    Key(&'static str),
    /// A parameter without its `</parameter>` (SO1.13).
    #[error("unclosed seed parameter: no </parameter> before </function>")]
    UnclosedParameter,
    /// A byte of the body outside the parameters (SO1.15).
    #[error("stray text in seed function body")]
    Stray,
}

impl From<Fault> for FunctionError {
    fn from(fault: Fault) -> FunctionError {
        match fault {
            Fault::Name(why) => FunctionError::Name(why),
            Fault::Key(why) => FunctionError::Key(why),
            Fault::Unclosed => FunctionError::UnclosedParameter,
            Fault::Stray => FunctionError::Stray,
        }
    }
}

/// SO1.6: a value runs to its first `</parameter>`, `<parameter=` in it is data; SO3.3: an
/// `object` or `array` value that is no JSON is read as a Python literal.
const SEED: ValueSyntax = ValueSyntax {
    opener_ends_value: false,
    not_json: Some(python_literal),
};

/// SO3.3: the VALUE, trimmed as Q3.2 trims, as one Python literal (PY3.3, PY3.4).
fn python_literal(value: &str) -> Option<Value> {
    literal::value_in_input(trim(value))
}

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end == End::Closer(SECTION_CLOSER) {
        // SO1.12: no `</function>`: invalid, and the `</seed:tool_call>` in its bytes closed
        // the section (SO1.4).
        return Outcome::Reject(FunctionError::Unclosed.to_string(), TEXT);
    }
    let inner = reading.inner(FUNCTION_OPENER, FUNCTION_CLOSER);
    let call = read_function(inner, reading.tools, reading.generated_id.clone(), &SEED);
    Outcome::of_call(call.map_err(FunctionError::from), SECTION)
}

fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(FunctionError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends, modes and readings that the corpus reaches only through whole streams, or not
    //! at all, checked here whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::events;
    use serde_json::json;

    #[test]
    fn a_call_comes_out_at_its_function_closer() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<seed:tool_call>\n<function=f>\n<parameter=a>x</parameter>\n</function>"
            ),
            [r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"a":"x"}}"#]
        );
    }

    #[test]
    fn the_section_closer_cuts_a_function_and_ends_the_section() {
        // SO1.4, SO1.12: the cut block is text, the section is closed, so the next
        // `<function=` is text (SO1.14).
        assert_eq!(
            events(
                &GRAMMAR,
                "<seed:tool_call><function=f></seed:tool_call> <function=g></function>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed seed function: </seed:tool_call> before </function>"}"#,
                r#"{"type":"text-delta","delta":"<function=f></seed:tool_call> <function=g></function>"}"#,
            ]
        );
    }

    #[test]
    fn a_section_closer_in_a_value_cuts_the_function() {
        // SO1.8: a value cannot hold `</seed:tool_call>`.
        assert_eq!(
            events(
                &GRAMMAR,
                "<seed:tool_call><function=f><parameter=a>x</seed:tool_call>y</parameter></function>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed seed function: </seed:tool_call> before </function>"}"#,
                r#"{"type":"text-delta","delta":"<function=f><parameter=a>x</seed:tool_call>y</parameter></function>"}"#,
            ]
        );
    }

    #[test]
    fn an_unterminated_function_keeps_the_calls_before_it() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<seed:tool_call><function=f></function><function=g>"
            ),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
                r#"{"type":"error","errorText":"unterminated seed function"}"#,
                r#"{"type":"text-delta","delta":"<function=g>"}"#,
            ]
        );
    }

    #[test]
    fn faults_are_told_in_order_and_in_seeds_words() {
        // SO5.1: the first failure from the left names the error.
        let cases = [
            ("<function=>", "invalid seed function name"),
            ("<function=f g>", "invalid seed function name"),
            ("<function=f", "invalid seed function name"),
            (
                "<function=f><parameter=>x</parameter>",
                "invalid seed parameter name",
            ),
            (
                "<function=f><parameter=a b>x</parameter>",
                "invalid seed parameter name",
            ),
            ("<function=f><parameter=a", "invalid seed parameter name"),
            (
                "<function=f><parameter=a>x<parameter=b>y",
                "unclosed seed parameter",
            ),
            ("<function=f></parameter>", "stray text in seed function"),
            (
                "<function=f><parameter=a>x</parameter>y",
                "stray text in seed function",
            ),
        ];
        for (block, phrase) in cases {
            let stream = format!("<seed:tool_call>{block}</function>");
            let events = events(&GRAMMAR, &stream);
            assert!(
                events[0].starts_with(&format!(r#"{{"type":"error","errorText":"{phrase}"#)),
                "{block}: {events:?}"
            );
            assert_eq!(events.len(), 2, "{block}: {events:?}");
        }
    }

    #[test]
    fn reflections_and_other_tokens_are_words_everywhere() {
        // SO2.5, SO2.6: in a section, a reflection is stray text; in a value, data.
        assert_eq!(
            events(
                &GRAMMAR,
                "<seed:tool_call><seed:cot_budget_reflect>\n<function=f><parameter=a><seed:eos></parameter></function></seed:tool_call>"
            ),
            [
                r#"{"type":"text-delta","delta":"<seed:cot_budget_reflect>\n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"a":"<seed:eos>"}}"#,
            ]
        );
    }

    #[test]
    fn structured_values_are_json_then_python_then_the_string() {
        // SO3.3, typed by the raw reader: `not_json` is what Seed adds to Q3.2.
        let read = |value: &str| python_literal(value);
        assert_eq!(
            read(" ['a', (1, 2.5), {'k': None}]\n"),
            Some(json!(["a", [1, 2.5], {"k": null}]))
        );
        assert_eq!(read("('docs',)"), Some(json!(["docs"])));
        assert_eq!(read("{'regex': False}"), Some(json!({"regex": false})));
        assert_eq!(read("['a'] x"), None);
        assert_eq!(read("{regex: true}"), None);
        assert_eq!(read(""), None);
        // 125 brackets below the input fit, one more does not (C8.2, PY3.6).
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(read(&deep(125)).is_some());
        assert_eq!(read(&deep(126)), None);
    }
}
