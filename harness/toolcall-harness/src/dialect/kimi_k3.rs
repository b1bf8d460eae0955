//! The `kimi-k3` reference parser (`specs/dialects/kimi-k3.md`): Kimi K3's XTML channels.
//! `<|open|>think<|sep|>…<|close|>think<|sep|>` is reasoning; the response and message
//! markers are markup around text; `<|open|>tools<|sep|>` … `<|close|>tools<|sep|>` is a
//! section of `<|open|>call tool="NAME" …<|sep|>` … `<|close|>call<|sep|>` call blocks whose
//! `argument` elements are typed by their `type` attribute. A grammar for the dialect kit;
//! the meaning of a complete block is in [`call`].

mod call;

use super::kit::{Action, Block, Content, Grammar, Marker, Mode, ModeId, Outcome, Reading};
use crate::event::Event;

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str =
    "<|open|>message role=\"assistant\"<|sep|><|open|>think<|sep|>";

const THINK_OPEN: &str = "<|open|>think<|sep|>";
const THINK_CLOSE: &str = "<|close|>think<|sep|>";
const RESPONSE_OPEN: &str = "<|open|>response<|sep|>";
const RESPONSE_CLOSE: &str = "<|close|>response<|sep|>";
const MESSAGE_CLOSE: &str = "<|close|>message<|sep|>";
const TOOLS_OPEN: &str = "<|open|>tools<|sep|>";
const TOOLS_CLOSE: &str = "<|close|>tools<|sep|>";
/// KX1.1: the space is part of the opener: every call has attributes, and
/// `<|open|>call<|sep|>` is content.
const CALL_OPEN: &str = "<|open|>call ";
const CALL_CLOSE: &str = "<|close|>call<|sep|>";

/// The modes of KX1.2; `STRAY` is a gap's stray text (KX3.2), text that still recognises the
/// section's markers.
const TEXT: ModeId = 0;
const REASONING: ModeId = 1;
const SECTION: ModeId = 2;
const STRAY: ModeId = 3;

/// The markers of the tools channel, between calls and in stray text (KX1.2, KX1.3).
macro_rules! section_markers {
    () => {
        &[
            Marker {
                literal: CALL_OPEN,
                action: Action::Block(&CALL),
            },
            Marker {
                literal: TOOLS_CLOSE,
                action: Action::Switch(TEXT),
            },
        ]
    };
}

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // TEXT: the response channel is not a mode (KX3.1): its markers and the message closer
    // are markup and the parser stays in text; a call element here is text (KX1.3).
    Mode {
        content: Content::Text,
        markers: &[
            Marker {
                literal: THINK_OPEN,
                action: Action::Switch(REASONING),
            },
            Marker {
                literal: TOOLS_OPEN,
                action: Action::Switch(SECTION),
            },
            Marker {
                literal: RESPONSE_OPEN,
                action: Action::Switch(TEXT),
            },
            Marker {
                literal: RESPONSE_CLOSE,
                action: Action::Switch(TEXT),
            },
            Marker {
                literal: MESSAGE_CLOSE,
                action: Action::Switch(TEXT),
            },
        ],
    },
    // REASONING: only its closer is a marker; the tools syntax there is reasoning (KX1.3,
    // E4.4), and so is a second `<|open|>think<|sep|>` (KX2.2).
    Mode {
        content: Content::Reasoning,
        markers: &[Marker {
            literal: THINK_CLOSE,
            action: Action::Switch(TEXT),
        }],
    },
    // SECTION, STRAY (KX3).
    Mode {
        content: Content::Gap { stray: STRAY },
        markers: section_markers!(),
    },
    Mode {
        content: Content::Text,
        markers: section_markers!(),
    },
]);

/// KX4.1: a block ends at its first `<|close|>call<|sep|>`, whatever lies before it.
static CALL: Block = Block::new(&[CALL_CLOSE], decode, unterminated);

/// A call or an error (KX5.1, KX6); either way the channel goes on with a new gap (KX3.2).
fn decode(reading: &Reading<'_>, _closer: usize) -> Outcome {
    // The header's attribute list starts with the opener's own space (KX4.3).
    let content = reading
        .block
        .get(CALL_OPEN.len() - 1..reading.block.len().saturating_sub(CALL_CLOSE.len()))
        .unwrap_or_default();
    match call::interpret(content) {
        Ok((name, input)) => Outcome::Call(
            vec![Event::call(reading.generated_id.clone(), name, input)],
            SECTION,
        ),
        Err(error) => Outcome::Reject(error.to_string(), SECTION),
    }
}

/// KX6.1: only an open call block is unterminated; nothing follows it.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}
