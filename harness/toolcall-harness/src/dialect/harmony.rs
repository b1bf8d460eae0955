//! The `harmony` reference parser (`specs/dialects/harmony.md`): gpt-oss's Harmony messages.
//! Outside a message, `<|start|>` or `<|channel|>` opens a header, read whole up to
//! `<|message|>`; the header's channel and recipient (HM3) make the message reasoning, text
//! or a call to `functions.NAME`. A text or reasoning body is released eagerly up to its ender
//! (`<|end|>`, `<|call|>` or `<|return|>`, HM2.3); a call is held whole, header included, and
//! decoded at its ender or at the end of the stream (HM4.3, HM4.4).
//!
//! A grammar for the dialect kit: three modes (outside, reasoning body, text body) and two
//! blocks (the header, then for a call the rest of the message).

mod call;
mod header;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};
use call::CallError;
use header::{HeaderError, Kind};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "<|start|>assistant";

/// `harmony`, described (`Dialect::Harmony`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "harmony",
    models: "gpt-oss",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|start|>assistant to=functions.GetWeather<|channel|>commentary <|constrain|>json<|message|>{\"location\": \"",
        after: "\"}<|call|>",
        values: Values::Json,
    },
    fragments: &[
        "<|start|>",
        "<|start|>assistant",
        "<|channel|>",
        "analysis",
        "final",
        "commentary",
        " to=functions.get_weather",
        "<|constrain|>json",
        "<|message|>",
        "<|end|>",
        "<|call|>",
        "<|return|>",
    ],
    prefills: &["<|start|>assistant"],
    samples: &[
        "<|start|>assistant<|channel|>commentary to=functions.get_weather<|constrain|>json<|message|>{}<|call|>",
    ],
};

const START: &str = "<|start|>";
const CHANNEL: &str = "<|channel|>";
const CONSTRAIN: &str = "<|constrain|>";
const MESSAGE: &str = "<|message|>";
const END: &str = "<|end|>";
const CALL_END: &str = "<|call|>";
const RETURN: &str = "<|return|>";

/// Modes: outside any message, in a reasoning body, in a text body (HM1.2).
const OUTSIDE: ModeId = ModeId(0);
const REASONING_BODY: ModeId = ModeId(1);
const TEXT_BODY: ModeId = ModeId(2);

/// Any of the three stop tokens ends any body, whatever its channel (HM2.3); it is markup.
const ENDERS: &[Marker] = &[
    Marker {
        literal: END,
        action: Action::Switch(OUTSIDE),
    },
    Marker {
        literal: CALL_END,
        action: Action::Switch(OUTSIDE),
    },
    Marker {
        literal: RETURN,
        action: Action::Switch(OUTSIDE),
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // HM2.1: outside, both `<|start|>` and `<|channel|>` open a header (a client that does not
    // see the prompt's `<|start|>assistant` sees a message start at `<|channel|>`). Anything
    // else, enders included, is text (HM2.5).
    Mode {
        id: OUTSIDE,
        content: Content::Text,
        markers: &[
            Marker {
                literal: START,
                action: Action::Block(&HEADER),
            },
            Marker {
                literal: CHANNEL,
                action: Action::Block(&HEADER),
            },
        ],
    },
    Mode {
        id: REASONING_BODY,
        content: Content::Reasoning,
        markers: ENDERS,
    },
    Mode {
        id: TEXT_BODY,
        content: Content::Text,
        markers: ENDERS,
    },
]);

/// A header, from its opening marker (or the prefill's part of it) up to `<|message|>` or a
/// marker that breaks it (HM2.2, HM4.6). `<|channel|>` and `<|constrain|>` only split its words
/// (HM3.1): they are closers that continue the header, so that the grammar's literals are
/// the format's seven special tokens (a realistic splitting never cuts one).
static HEADER: Block = Block::new(HEADER_CLOSERS, decode_header, unterminated_header);
const HEADER_CLOSERS: &[&str] = &[MESSAGE, START, END, CALL_END, RETURN, CHANNEL, CONSTRAIN];

/// The rest of a call message after its header: the body, up to an ender (HM2.3). Only the
/// enders end it, so every other marker in the JSON is data (HM1.2).
static CALL_BODY: Block = Block::new(&[END, CALL_END, RETURN], decode_call, unterminated_call);

/// Whether the header has no byte in the stream before its end (it lay wholly in the prefill,
/// HM4.6, HM4.7).
fn only_in_prefill(reading: &Reading<'_>, header: &str) -> bool {
    header.len() <= reading.from_prefill
}

fn decode_header(reading: &Reading<'_>, end: End) -> Outcome {
    let header = reading.before(end);
    match end {
        End::Closer(MESSAGE) => match header::read(header) {
            // HM4.3: the call's span is the whole message; it is decoded at its ender.
            Kind::Call { .. } => Outcome::Extend(&CALL_BODY),
            Kind::Reasoning => Outcome::Markup(REASONING_BODY),
            Kind::Text => Outcome::Markup(TEXT_BODY),
        },
        // HM4.6: a new message begins; the broken header is text, unless it has no byte in
        // the stream (a stream that repeats the prompt's `<|start|>assistant`).
        End::Closer(START) => {
            let error = (!only_in_prefill(reading, header))
                .then(|| HeaderError::Malformed(START).to_string());
            Outcome::Reopen(error, &HEADER)
        }
        // Words are read from the whole header at `<|message|>`.
        End::Closer(CHANNEL | CONSTRAIN) => Outcome::Extend(&HEADER),
        // HM4.6: an ender in a header (`I must refuse<|end|>` after `<|start|>assistant`):
        // the header through the ender is text, and the parser is outside again.
        End::Closer(ender) => Outcome::Reject(HeaderError::Malformed(ender).to_string(), OUTSIDE),
        // A header is no nested block: it ends at closers only.
        End::Balanced | End::Mismatched | End::TooDeep => {
            Outcome::Reject(HeaderError::Unterminated.to_string(), OUTSIDE)
        }
    }
}

fn unterminated_header(reading: &Reading<'_>) -> Outcome {
    if only_in_prefill(reading, reading.block) {
        // HM4.7: nothing of it is in the stream, so nothing is emitted (an empty markup span).
        Outcome::Markup(OUTSIDE)
    } else {
        Outcome::Reject(HeaderError::Unterminated.to_string(), OUTSIDE)
    }
}

fn decode_call(reading: &Reading<'_>, end: End) -> Outcome {
    settle_call(reading, reading.before(end), false)
}

/// HM4.4: a call still open at the end of the stream is complete when its JSON is.
fn unterminated_call(reading: &Reading<'_>) -> Outcome {
    settle_call(reading, reading.block, true)
}

/// The call of `message` (its header, `<|message|>` and its body, without the ender).
fn settle_call(reading: &Reading<'_>, message: &str, at_end: bool) -> Outcome {
    // A call whose body began in the prefill arrives here too: the kit keeps every block the
    // prefill left open, where `specs/streaming.md` C9.3 (HM6.3) drops a call's; its decoders
    // cannot tell the prefill from the stream when the header closes.
    // The header holds no `<|message|>` before its own (it is the header's closer), so the
    // first one ends it.
    let (header, body) = message.split_once(MESSAGE).unwrap_or((message, ""));
    let result = match header::read(header) {
        Kind::Call { name } => call::interpret(name, body, at_end, reading.generated_id.clone()),
        // The header decoder made this block a call: its header reads as one.
        _ => Err(CallError::NoName),
    };
    Outcome::of_call(result, OUTSIDE)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::event::Event;
    use crate::parser::StreamParser;
    use std::ops::Range;
    use std::sync::Arc;

    fn run(prefill: &str, chunks: &[&str]) -> (Vec<Event>, KitParser) {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        if !prefill.is_empty() {
            parser.prefill(prefill);
        }
        let mut out = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut out);
        }
        parser.finish(&mut out);
        (out, parser)
    }

    #[test]
    fn the_literals_are_the_seven_special_tokens() {
        let mut literals = GRAMMAR.literals();
        literals.sort_unstable();
        literals.dedup();
        let mut tokens = [START, CHANNEL, CONSTRAIN, MESSAGE, END, CALL_END, RETURN];
        tokens.sort_unstable();
        assert_eq!(literals, tokens);
    }

    #[test]
    fn an_ender_right_after_the_prefill_breaks_its_header() {
        // The header's only stream byte is the ender: error, then the ender as text.
        let (events, _) = run("<|start|>assistant", &["<|end|>x"]);
        assert_eq!(
            events,
            [
                Event::error("malformed harmony header: broken by <|end|>"),
                Event::text("<|end|>x"),
            ]
        );
    }

    #[test]
    fn a_call_span_starts_at_its_opening_marker() {
        let stream =
            "hi<|start|>assistant to=functions.f<|channel|>commentary<|message|>{}<|call|>";
        let (events, parser) = run("", &[stream]);
        assert!(
            matches!(events.as_slice(), [_, Event::ToolCall(_)]),
            "{events:?}"
        );
        assert_eq!(
            parser.call_spans(),
            [Range {
                start: 2,
                end: stream.len()
            }]
        );
    }
}
