//! The `glimmer` reference parser (`specs/dialects/glimmer.md`): Muse Glimmer's recipient
//! messages. Outside a message, `<|start|>` opens a header, read whole up to `<|message|>`; its
//! recipient (MG3) makes the message reasoning (`to=self`), text (`to=user`, or none) or a tool
//! message (any other). A reasoning or text body is released eagerly up to its ender
//! (`<|eom|>` or `<|eot|>`, MG2.3). A tool message is a gap of ATEM markup: blanks and the
//! `<atem:function_calls>` wrapper are markup, other bytes stray text, and each
//! `<atem:invoke` opens a block captured to its `</atem:invoke>` alone (MG4.3) and read whole
//! (`invoke.rs`, MiniMax-M2's invoke reader under the ATEM tags).
//!
//! A grammar for the dialect kit: five modes (outside, reasoning body, text body, a tool
//! message's gap and its stray text) and two blocks (the header, and the invoke). The header's
//! decoder only switches the mode: it never makes a call.

mod header;
mod invoke;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Outcome, Reading};
use header::{HeaderError, Kind};
use invoke::InvokeError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it (MG6.5).
pub(crate) const DEFAULT_PREFILL: &str = "<|start|>assistant";

/// `glimmer`, described (`Dialect::Glimmer`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "glimmer",
    models: "Muse Glimmer",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|start|>assistant to=GetWeather<|message|><atem:function_calls>\n<atem:invoke name=\"GetWeather\">\n<atem:parameter name=\"location\">",
        after: "</atem:parameter>\n</atem:invoke>\n</atem:function_calls><|eom|>",
        values: Values::Text,
    },
    fragments: &[
        "<|start|>",
        "<|start|>assistant",
        " to=self",
        " to=user",
        " to=GetWeather",
        "<|message|>",
        "<|eom|>",
        "<|eot|>",
        "<|eo",
        "<atem:function_calls>",
        "</atem:function_calls>",
        "<atem:invoke",
        "<atem:invoke name=\"GetWeather\">",
        "<atem:invoke name=\"search_files\">",
        "</atem:invoke>",
        "<atem:parameter name=\"location\">",
        "<atem:parameter name=\"max_results\">",
        "</atem:parameter>",
        "<atem:invoke name='f'>",
    ],
    prefills: &["<|start|>assistant"],
    samples: &[
        "<|start|>assistant to=GetWeather<|message|><atem:function_calls>\n<atem:invoke name=\"GetWeather\">\n<atem:parameter name=\"location\">Paris</atem:parameter>\n</atem:invoke>\n</atem:function_calls>",
    ],
};

const START: &str = "<|start|>";
const MESSAGE: &str = "<|message|>";
const EOM: &str = "<|eom|>";
const EOT: &str = "<|eot|>";
const WRAPPER_OPENER: &str = "<atem:function_calls>";
const WRAPPER_CLOSER: &str = "</atem:function_calls>";
const INVOKE_OPENER: &str = "<atem:invoke";
const INVOKE_CLOSER: &str = "</atem:invoke>";

/// Modes (MG1.2): outside any message, a reasoning body, a text body, a tool message between
/// its calls, and stray text in a tool message.
const OUTSIDE: ModeId = ModeId(0);
const REASONING_BODY: ModeId = ModeId(1);
const TEXT_BODY: ModeId = ModeId(2);
const TOOL_MESSAGE: ModeId = ModeId(3);
const STRAY_TEXT: ModeId = ModeId(4);

/// Either ender ends any body (MG2.3); it is markup.
const ENDERS: [Marker; 2] = [
    Marker {
        literal: EOM,
        action: Action::Switch(OUTSIDE),
    },
    Marker {
        literal: EOT,
        action: Action::Switch(OUTSIDE),
    },
];

/// A tool message's markers, the same in its stray text (MG4.1): an invoke block, the
/// wrapper's tags (markup, back between calls), the enders.
const TOOL_MARKERS: &[Marker] = &[
    Marker {
        literal: INVOKE_OPENER,
        action: Action::Block(&INVOKE),
    },
    Marker {
        literal: WRAPPER_OPENER,
        action: Action::Switch(TOOL_MESSAGE),
    },
    Marker {
        literal: WRAPPER_CLOSER,
        action: Action::Switch(TOOL_MESSAGE),
    },
    Marker {
        literal: EOM,
        action: Action::Switch(OUTSIDE),
    },
    Marker {
        literal: EOT,
        action: Action::Switch(OUTSIDE),
    },
];

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // MG2.1: outside, `<|start|>` opens a header; anything else, enders and `<|message|>`
    // included, is text.
    Mode {
        id: OUTSIDE,
        content: Content::Text,
        markers: &[Marker {
            literal: START,
            action: Action::Block(&HEADER),
        }],
    },
    // MG6.1, MG2.4: only an ender ends a body; `<|start|>` and ATEM markup in it are content.
    Mode {
        id: REASONING_BODY,
        content: Content::Reasoning,
        markers: &ENDERS,
    },
    Mode {
        id: TEXT_BODY,
        content: Content::Text,
        markers: &ENDERS,
    },
    Mode {
        id: TOOL_MESSAGE,
        content: Content::Gap { stray: STRAY_TEXT },
        markers: TOOL_MARKERS,
    },
    Mode {
        id: STRAY_TEXT,
        content: Content::Text,
        markers: TOOL_MARKERS,
    },
]);

/// A header, from its `<|start|>` (or the prefill's part of it) up to `<|message|>` or a
/// marker that breaks it (MG2.2, MG2.5).
static HEADER: Block = Block::new(
    &[MESSAGE, START, EOM, EOT],
    decode_header,
    unterminated_header,
);

/// An invoke block, from `<atem:invoke` to the first `</atem:invoke>`: nothing else ends it,
/// enders included (MG4.3).
static INVOKE: Block = Block::new(&[INVOKE_CLOSER], decode_invoke, unterminated_invoke);

/// Whether the header has no byte in the stream before its end (it lay wholly in the prefill,
/// MG2.5, MG2.6).
fn only_in_prefill(reading: &Reading<'_>, header: &str) -> bool {
    header.len() <= reading.from_prefill
}

fn decode_header(reading: &Reading<'_>, end: End) -> Outcome {
    let header = reading.before(end);
    match end {
        // MG2.2, MG3.3: the header is markup, and its recipient makes the message.
        End::Closer(MESSAGE) => Outcome::Markup(match header::read(header) {
            Kind::Reasoning => REASONING_BODY,
            Kind::Text => TEXT_BODY,
            Kind::Tool => TOOL_MESSAGE,
        }),
        // MG2.5: a new message begins; the broken header is text, unless it has no byte in
        // the stream (a stream that repeats the prompt's `<|start|>assistant`).
        End::Closer(START) => {
            let error = (!only_in_prefill(reading, header))
                .then(|| HeaderError::Malformed(START).to_string());
            Outcome::Reopen(error, &HEADER)
        }
        // MG2.5: an ender in a header: the header through the ender is text, and the parser is
        // outside again.
        End::Closer(ender) => Outcome::Reject(HeaderError::Malformed(ender).to_string(), OUTSIDE),
        // A header is no nested block: it ends at closers only.
        End::Balanced | End::Mismatched | End::TooDeep => {
            Outcome::Reject(HeaderError::Unterminated.to_string(), OUTSIDE)
        }
    }
}

fn unterminated_header(reading: &Reading<'_>) -> Outcome {
    if only_in_prefill(reading, reading.block) {
        // MG2.6: nothing of it is in the stream, so nothing is emitted (an empty markup span).
        Outcome::Markup(OUTSIDE)
    } else {
        Outcome::Reject(HeaderError::Unterminated.to_string(), OUTSIDE)
    }
}

/// MG4.5–MG5.5: the block read whole; valid or not, the tool message goes on after it.
fn decode_invoke(reading: &Reading<'_>, _: End) -> Outcome {
    Outcome::of_call(
        invoke::read(reading.block, reading.tools, reading.generated_id.clone()),
        TOOL_MESSAGE,
    )
}

/// MG4.10: only an opened invoke block is unterminated.
fn unterminated_invoke(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(InvokeError::Unterminated.to_string(), TOOL_MESSAGE)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes that the corpus reaches only through whole streams (or not at
    //! all), checked here whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::{KitParser, events};
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
    fn the_literals_are_the_eight_markers() {
        let mut literals = GRAMMAR.literals();
        literals.sort_unstable();
        literals.dedup();
        let mut markers = [
            START,
            MESSAGE,
            EOM,
            EOT,
            WRAPPER_OPENER,
            WRAPPER_CLOSER,
            INVOKE_OPENER,
            INVOKE_CLOSER,
        ];
        markers.sort_unstable();
        assert_eq!(literals, markers);
    }

    #[test]
    fn an_ender_right_after_the_prefill_breaks_its_header() {
        // The header's only stream byte is the ender: error, then the ender as text.
        let (events, _) = run(DEFAULT_PREFILL, &["<|eom|>x"]);
        assert_eq!(
            events,
            [
                Event::error("malformed glimmer header: broken by <|eom|>"),
                Event::text("<|eom|>x"),
            ]
        );
    }

    #[test]
    fn a_header_in_the_stream_broken_by_start() {
        assert_eq!(
            events(
                &GRAMMAR,
                "a<|start|>assistant to=<|start|>assistant to=user<|message|>b"
            ),
            [
                r#"{"type":"text-delta","delta":"a"}"#,
                r#"{"type":"error","errorText":"malformed glimmer header: broken by <|start|>"}"#,
                r#"{"type":"text-delta","delta":"<|start|>assistant to=b"}"#,
            ]
        );
    }

    #[test]
    fn an_unterminated_header_in_the_stream_is_text() {
        assert_eq!(
            events(&GRAMMAR, "a<|start|>assistant to=us"),
            [
                r#"{"type":"text-delta","delta":"a"}"#,
                r#"{"type":"error","errorText":"unterminated glimmer header"}"#,
                r#"{"type":"text-delta","delta":"<|start|>assistant to=us"}"#,
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_its_invoke_closer_and_its_span_is_the_invoke() {
        let head = "<|start|>assistant to=f<|message|><atem:function_calls>\n";
        let invoke = "<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">1</atem:parameter>\n</atem:invoke>";
        let (events, parser) = run("", &[head, invoke]);
        assert_eq!(
            events,
            [Event::ToolCall(crate::event::ToolCall {
                tool_call_id: "tool-call-1".to_owned(),
                tool_name: "f".to_owned(),
                input: serde_json::json!({"a": 1}),
                extra: serde_json::Map::new(),
            })]
        );
        assert_eq!(
            parser.call_spans(),
            [Range {
                start: head.len(),
                end: head.len() + invoke.len()
            }]
        );
    }

    #[test]
    fn enders_inside_an_invoke_are_its_bytes_and_end_the_message_after_it() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|start|>assistant to=f<|message|><atem:invoke name=\"f\"><|eot|></atem:invoke><|eot|>x<atem:invoke name=\"g\"></atem:invoke>"
            ),
            [
                r#"{"type":"error","errorText":"stray text in ATEM invoke"}"#,
                r#"{"type":"text-delta","delta":"<atem:invoke name=\"f\"><|eot|></atem:invoke>x<atem:invoke name=\"g\"></atem:invoke>"}"#,
            ]
        );
    }

    #[test]
    fn stray_text_and_the_wrapper_in_a_tool_message() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|start|>assistant to=f<|message|> \n</atem:invoke> <atem:function_calls>\n<atem:invoke name=\"f\"></atem:invoke>\n</atem:function_calls> <|eom|>"
            ),
            [
                r#"{"type":"text-delta","delta":"</atem:invoke> "}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }

    #[test]
    fn an_unterminated_invoke_keeps_the_calls_before_it() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<|start|>assistant to=f<|message|><atem:invoke name=\"f\"></atem:invoke><atem:invoke name=\"g\"><|eot|>"
            ),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
                r#"{"type":"error","errorText":"unterminated ATEM invoke"}"#,
                r#"{"type":"text-delta","delta":"<atem:invoke name=\"g\"><|eot|>"}"#,
            ]
        );
    }

    #[test]
    fn a_prefill_may_leave_a_text_body_or_a_tool_message() {
        let (events, _) = run(
            "<|start|>assistant to=user<|message|>So far",
            &[" and more<|eot|>"],
        );
        assert_eq!(events, [Event::text(" and more")]);
        let (events, _) = run(
            "<|start|>assistant to=f<|message|>",
            &["\n<atem:invoke name=\"f\"></atem:invoke>"],
        );
        assert!(
            matches!(events.as_slice(), [Event::ToolCall(_)]),
            "{events:?}"
        );
    }
}
