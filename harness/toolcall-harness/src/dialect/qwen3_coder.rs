//! The `qwen3-coder` reference parser (`specs/dialects/qwen3-coder.md`): `<tool_call>` opens a
//! section of `<function=NAME>` blocks whose `<parameter=KEY>` values are typed by the tool's
//! schema; `<think>…</think>` is reasoning, as in `hermes`. A grammar for the dialect kit: the
//! section is a gap (blanks markup, stray text text), each function block is captured to its
//! `</function>` (or a `</tool_call>` that cuts it) and decoded whole (`function.rs`).

mod function;

use super::kit::{
    Action, Block, Content, Grammar, Marker, Mode, Outcome, Reading, THINK, THINKING,
};

pub(crate) use function::FunctionError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it: Qwen3.5's and Qwen3.6's, which open reasoning
/// (`specs/dialects/qwen3-coder.md` Q2.2).
pub(crate) const DEFAULT_PREFILL: &str = "<|im_start|>assistant\n<think>\n";

const FUNCTION_OPENER: &str = "<function=";
const FUNCTION_CLOSER: &str = "</function>";
const SECTION_CLOSER: &str = "</tool_call>";

/// Modes (Q1.1–Q1.3, and the table of `specs/dialects/qwen3-coder.md` §2).
const TEXT: usize = 0;
const SECTION: usize = 2;
const STRAY: usize = 3;

/// The section's markers, the same after stray text (Q1.3).
const SECTION_MARKERS: &[Marker] = &[
    Marker {
        literal: FUNCTION_OPENER,
        action: Action::Block(&FUNCTION),
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
                literal: "<tool_call>",
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

/// Q1.4: a function block ends at the first `</function>` or `</tool_call>`.
static FUNCTION: Block = Block::new(&[FUNCTION_CLOSER, SECTION_CLOSER], decode, unterminated);

fn decode(reading: &Reading<'_>, closer: usize) -> Outcome {
    if closer == 1 {
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
