//! The `qwen3-coder` reference parser (`specs/dialects/qwen3-coder.md`): `<tool_call>` opens a
//! section of `<function=NAME>` blocks whose `<parameter=KEY>` values are typed by the tool's
//! schema; `<think>…</think>` is reasoning, as in `hermes`. A grammar for the dialect kit: the
//! section is a gap (blanks markup, stray text text), each function block is captured to its
//! `</function>` (or a `</tool_call>` that cuts it) and decoded whole (`function.rs`).

mod function;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, END_THINK, End, Grammar, Marker, Mode, Outcome, Reading, THINK, section_markers,
    sectioned,
};
use sectioned::{SECTION, TEXT};

pub(crate) use function::{Fault, FunctionError, ValueSyntax, read_function};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it: Qwen3.5's and Qwen3.6's, which open reasoning
/// (`specs/dialects/qwen3-coder.md` Q2.2).
pub(crate) const DEFAULT_PREFILL: &str = "<|im_start|>assistant\n<think>\n";

/// `qwen3-coder`, described (`Dialect::Qwen3Coder`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "qwen3-coder",
    models: "Qwen3-Coder, Qwen3.5, Qwen3.6",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<tool_call>\n<function=GetWeather>\n<parameter=location>\n",
        after: "\n</parameter>\n</function>\n</tool_call>\n",
        values: Values::Text,
    },
    fragments: &[
        "<function=",
        "</function>",
        "<parameter=",
        "</parameter>",
        "<function=search_files>\n<parameter=max_results>\n",
    ],
    prefills: &["<|im_start|>assistant\n<think>\n"],
    samples: &[
        "<tool_call><function=search_files>\n<parameter=max_results>\n1</parameter></function>",
    ],
};

const FUNCTION_OPENER: &str = "<function=";
const FUNCTION_CLOSER: &str = "</function>";
const SECTION_CLOSER: &str = "</tool_call>";

/// The section's markers, the same after stray text (Q1.3).
static SECTION_MARKERS: [Marker; 2] = section_markers(FUNCTION_OPENER, &FUNCTION, SECTION_CLOSER);

/// The modes of Q1.1–Q1.3 and the table of `specs/dialects/qwen3-coder.md` §2: text,
/// reasoning, a section between function blocks, and stray text in a section.
static MODES: [Mode; 4] = sectioned(
    &[
        Marker {
            literal: "<tool_call>",
            action: Action::Switch(SECTION),
        },
        THINK,
    ],
    END_THINK,
    &SECTION_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// Q1.4: a function block ends at the first `</function>` or `</tool_call>`.
static FUNCTION: Block = Block::new(&[FUNCTION_CLOSER, SECTION_CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, end: End) -> Outcome {
    if end == End::Closer(SECTION_CLOSER) {
        // No `</function>`: invalid, and the `</tool_call>` in its bytes closed the section.
        return Outcome::Reject(FunctionError::NoCloser.to_string(), TEXT);
    }
    let inner = reading.inner(FUNCTION_OPENER, FUNCTION_CLOSER);
    Outcome::of_call(
        function::read(inner, reading.tools, reading.generated_id.clone()),
        SECTION,
    )
}

fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(FunctionError::Unterminated.to_string(), SECTION)
}
