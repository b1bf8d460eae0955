//! The `kimi-k2` reference parser (`specs/dialects/kimi-k2.md`): a
//! `<|tool_calls_section_begin|>` … `<|tool_calls_section_end|>` section (or the singular
//! spellings, KS1.1) of `<|tool_call_begin|>ID<|tool_call_argument_begin|>JSON<|tool_call_end|>`
//! call blocks, the whole `functions.NAME:IDX` header being the call's id; `<think>…</think>`
//! is reasoning. A grammar for the dialect kit; the meaning of a complete block is in
//! [`call`].
//!
//! The one twist is KS2.2/KS2.4: a section opener ends reasoning without a `</think>`, and
//! the `<think>` block it interrupted still owns one late `</think>`. The kit's modes carry
//! no memory, so the section entered from reasoning is a copy of the section modes (section′,
//! stray′) that closes into text′, a copy of text where the first `</think>` is markup too.

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "<|im_assistant|>assistant<|im_middle|><think>";

/// `kimi-k2`, described (`Dialect::KimiK2`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "kimi-k2",
    models: "Kimi K2",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|tool_calls_section_begin|><|tool_call_begin|>functions.GetWeather:{n}<|tool_call_argument_begin|>{\"location\": \"",
        after: "\"}<|tool_call_end|><|tool_calls_section_end|>",
        values: Values::Json,
    },
    fragments: &[
        "<|tool_calls_section_begin|>",
        "<|tool_call_begin|>",
        "functions.get_weather:0",
        "<|tool_call_argument_begin|>",
        "<|tool_call_end|>",
        "<|tool_calls_section_end|>",
        "<|tool_call_section_begin|>",
        "<|tool_call_section_end|>",
    ],
    prefills: &["<|im_assistant|>assistant<|im_middle|><think>"],
    samples: &[
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{}<|tool_call_end|>",
    ],
};

const THINK_OPEN: &str = "<think>";
const THINK_CLOSE: &str = "</think>";
/// KS1.1: the plural spellings and the singular ones, the same markers.
const SECTION_OPEN: &str = "<|tool_calls_section_begin|>";
const SECTION_OPEN_SINGULAR: &str = "<|tool_call_section_begin|>";
const SECTION_CLOSE: &str = "<|tool_calls_section_end|>";
const SECTION_CLOSE_SINGULAR: &str = "<|tool_call_section_end|>";
const CALL_OPEN: &str = "<|tool_call_begin|>";
const CALL_CLOSE: &str = "<|tool_call_end|>";

/// The modes of KS1.2. `STRAY` and `STRAY2` are the stray text of a gap (KS3.2): text that
/// still recognises its section's markers.
const TEXT: ModeId = ModeId(0);
const REASONING: ModeId = ModeId(1);
const SECTION: ModeId = ModeId(2);
const STRAY: ModeId = ModeId(3);
/// Section′ and its stray text: a section that interrupted a `<think>` block (KS2.2).
const SECTION2: ModeId = ModeId(4);
const STRAY2: ModeId = ModeId(5);
/// Text′: text after section′, where the interrupted block's late `</think>` is markup (KS2.4).
const TEXT2: ModeId = ModeId(6);

/// The markers of a section (and of its stray text): a call block, or its closer to `after`.
macro_rules! section_markers {
    ($call:expr, $after:expr) => {
        &[
            Marker {
                literal: CALL_OPEN,
                action: Action::Block($call),
            },
            Marker {
                literal: SECTION_CLOSE,
                action: Action::Switch($after),
            },
            Marker {
                literal: SECTION_CLOSE_SINGULAR,
                action: Action::Switch($after),
            },
        ]
    };
}

/// The markers of text (KS1.2); text′ adds `</think>` to them.
macro_rules! text_markers {
    ($($extra:expr),*) => {
        &[
            Marker {
                literal: THINK_OPEN,
                action: Action::Switch(REASONING),
            },
            Marker {
                literal: SECTION_OPEN,
                action: Action::Switch(SECTION),
            },
            Marker {
                literal: SECTION_OPEN_SINGULAR,
                action: Action::Switch(SECTION),
            },
            $($extra,)*
        ]
    };
}

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // TEXT: a call block outside a section is text (KS1.3).
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: text_markers!(),
    },
    // REASONING: `</think>` ends it; so does a section opener, into section′ (KS2.2).
    // Everything else, `<think>` and `<|tool_call_begin|>` included, is reasoning (KS2.3).
    Mode {
        id: REASONING,
        content: Content::Reasoning,
        markers: &[
            Marker {
                literal: THINK_CLOSE,
                action: Action::Switch(TEXT),
            },
            Marker {
                literal: SECTION_OPEN,
                action: Action::Switch(SECTION2),
            },
            Marker {
                literal: SECTION_OPEN_SINGULAR,
                action: Action::Switch(SECTION2),
            },
        ],
    },
    // SECTION, STRAY (KS3).
    Mode {
        id: SECTION,
        content: Content::Gap { stray: STRAY },
        markers: section_markers!(&CALL, TEXT),
    },
    Mode {
        id: STRAY,
        content: Content::Text,
        markers: section_markers!(&CALL, TEXT),
    },
    // SECTION2, STRAY2: the same, but they close into text′.
    Mode {
        id: SECTION2,
        content: Content::Gap { stray: STRAY2 },
        markers: section_markers!(&CALL2, TEXT2),
    },
    Mode {
        id: STRAY2,
        content: Content::Text,
        markers: section_markers!(&CALL2, TEXT2),
    },
    // TEXT2: the first `</think>` is markup and leads to text; `<think>` or a section opener
    // before it leave text′ as they leave text, and the late closer is forgotten (KS2.4).
    Mode {
        id: TEXT2,
        content: Content::Text,
        markers: text_markers!(Marker {
            literal: THINK_CLOSE,
            action: Action::Switch(TEXT),
        }),
    },
]);

/// KS4.1: a block ends at its first `<|tool_call_end|>`, whatever lies before it. A block
/// decodes back into the section it was opened in: the two differ only in that mode.
static CALL: Block = Block::new(&[CALL_CLOSE], decode, unterminated);
static CALL2: Block = Block::new(&[CALL_CLOSE], decode2, unterminated);

fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    settle(reading, SECTION)
}

fn decode2(reading: &Reading<'_>, _: End) -> Outcome {
    settle(reading, SECTION2)
}

/// A call or an error (KS5.1, KS6); either way the section goes on with a new gap (KS3.2).
/// The duplicate-id check (KS5.2) is the kit's, after this one (KS4.6's order).
fn settle(reading: &Reading<'_>, section: ModeId) -> Outcome {
    let content = reading
        .block
        .get(CALL_OPEN.len()..reading.block.len().saturating_sub(CALL_CLOSE.len()))
        .unwrap_or_default();
    Outcome::of_call(call::interpret(content), section)
}

/// KS6.1: only an open call block is unterminated; nothing follows it, so the mode after it
/// does not matter.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}
