//! The `kimi-k3` reference parser (`specs/dialects/kimi-k3.md`): Kimi K3's XTML channels.
//! `<|open|>think<|sep|>…<|close|>think<|sep|>` is reasoning; the response and message
//! markers are markup around text; `<|open|>tools<|sep|>` … `<|close|>tools<|sep|>` is a
//! section of `<|open|>call tool="NAME" …<|sep|>` … `<|close|>call<|sep|>` call blocks whose
//! `argument` elements are typed by their `type` attribute. A grammar for the dialect kit;
//! the meaning of a complete block is in [`call`].

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, End, Grammar, Marker, Mode, Outcome, Reading, section_markers, sectioned,
};
use crate::event::Event;
use sectioned::{REASONING, SECTION, TEXT};

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str =
    "<|open|>message role=\"assistant\"<|sep|><|open|>think<|sep|>";

/// `kimi-k3`, described (`Dialect::KimiK3`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "kimi-k3",
    models: "Kimi K3",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|open|>tools<|sep|><|open|>call tool=\"GetWeather\" index=\"{n}\"<|sep|><|open|>argument key=\"location\" type=\"string\"<|sep|>",
        after: "<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>",
        values: Values::Text,
    },
    fragments: &[
        "<|open|>think<|sep|>",
        "<|close|>think<|sep|>",
        "<|open|>tools<|sep|>",
        "<|close|>tools<|sep|>",
        "<|open|>call tool=\"get_weather\" index=\"1\"<|sep|>",
        "<|open|>argument key=\"city\" type=\"string\"<|sep|>",
        "<|close|>argument<|sep|>",
        "<|close|>call<|sep|>",
        "<|open|>response<|sep|>",
        "<|close|>response<|sep|>",
        "<|close|>message<|sep|>",
    ],
    prefills: &["<|open|>message role=\"assistant\"<|sep|><|open|>think<|sep|>"],
    samples: &[
        "<|open|>tools<|sep|><|open|>call tool=\"get_weather\" index=\"1\"<|sep|><|close|>call<|sep|>",
    ],
};

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

/// The markers of the tools channel, between calls and in stray text (KX1.2, KX1.3, KX3).
static SECTION_MARKERS: [Marker; 2] = section_markers(CALL_OPEN, &CALL, TOOLS_CLOSE);

/// The modes of KX1.2, the kit's sectioned layout; stray text (KX3.2) still recognises the
/// section's markers.
static MODES: [Mode; 4] = sectioned(
    // Text: the response channel is not a mode (KX3.1): its markers and the message closer
    // are markup and the parser stays in text; a call element here is text (KX1.3).
    &[
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
    // Reasoning: only its closer is a marker; the tools syntax there is reasoning (KX1.3,
    // E4.4), and so is a second `<|open|>think<|sep|>` (KX2.2).
    &[Marker {
        literal: THINK_CLOSE,
        action: Action::Switch(TEXT),
    }],
    &SECTION_MARKERS,
);

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// KX4.1: a block ends at its first `<|close|>call<|sep|>`, whatever lies before it.
static CALL: Block = Block::new(&[CALL_CLOSE], decode, unterminated);

/// A call or an error (KX5.1, KX6); either way the channel goes on with a new gap (KX3.2).
fn decode(reading: &Reading<'_>, _: End) -> Outcome {
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
