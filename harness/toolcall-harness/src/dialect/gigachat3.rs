//! The `gigachat3` reference parser (`specs/dialects/gigachat3.md`): GigaChat 3's
//! `CONTENT<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": …, "arguments": …}` and
//! GigaChat 3.1's `CONTENT<|function_call|>{…}`. A grammar for the dialect kit: text, where
//! `<|message_sep|>` ends the message and `<|function_call|>` opens a call; three modes whose
//! blanks are markup (after a message, where the `function call` header opens a call; a call,
//! where `{` opens the object; after a call), any other char there starting text again; and the
//! object, a JSON-object block ended where its braces balance and read whole (`call.rs`).

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading,
};

pub(crate) use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`):
/// the template's `assistant<|role_sep|>\n` leaves the reply at its start (GC3.3).
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `gigachat3`, described (`Dialect::GigaChat3`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "gigachat3",
    models: "GigaChat 3, GigaChat 3.1",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"",
        after: "\"}}",
        values: Values::Json,
    },
    fragments: &[
        MESSAGE_SEP,
        "<|message_sep|>\n\n",
        "<|message_se",
        HEADER,
        "function call<|role_sep|>",
        "function c",
        FUNCTION_CALL,
        "<|function_c",
        "<|role_sep|>\n",
        "{\"name\": \"GetWeather\", \"arguments\": {\"location\": \"Paris\"}}",
        "{\"name\": \"",
        "\", \"arguments\": {",
        "}}",
    ],
    prefills: &[
        "assistant<|role_sep|>\n",
        "assistant<|role_sep|>\n<|message_sep|>\n\nfunction call<|role_sep|>\n",
    ],
    samples: &[
        "<|message_sep|>\n\nfunction call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}",
        "<|function_call|>{\"name\": \"f\", \"arguments\": {}}",
    ],
};

/// The end of a message (GC1.5: without the `\n\n` of GigaChat 3's token, blanks of GC1.3).
const MESSAGE_SEP: &str = "<|message_sep|>";
/// The header of a function-call message, the `\n` of its `<|role_sep|>` token included (GC1.1).
const HEADER: &str = "function call<|role_sep|>\n";
/// GigaChat 3.1's call token (GC1.2).
const FUNCTION_CALL: &str = "<|function_call|>";

/// Modes (GC1.2, GC1.3, GC1.6, GC1.7).
const TEXT: ModeId = ModeId(0);
const AFTER_MESSAGE: ModeId = ModeId(1);
const CALL: ModeId = ModeId(2);
const AFTER_CALL: ModeId = ModeId(3);

/// `<|message_sep|>` in any mode: the message ends (GC1.2, GC1.3, GC1.6, GC1.7).
const END_MESSAGE: Marker = Marker {
    literal: MESSAGE_SEP,
    action: Action::Switch(AFTER_MESSAGE),
};

/// `<|function_call|>` in any mode: a call follows (GC1.2).
const CALL_TOKEN: Marker = Marker {
    literal: FUNCTION_CALL,
    action: Action::Switch(CALL),
};

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // GC1.2: the assistant's content.
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: &[END_MESSAGE, CALL_TOKEN],
    },
    // GC1.3, GC1.4: after a message, where the header stands.
    Mode {
        id: AFTER_MESSAGE,
        content: Content::Gap { stray: TEXT },
        markers: &[
            Marker {
                literal: HEADER,
                action: Action::Switch(CALL),
            },
            CALL_TOKEN,
            END_MESSAGE,
        ],
    },
    // GC1.6: after a header, where the object opens.
    Mode {
        id: CALL,
        content: Content::Gap { stray: TEXT },
        markers: &[
            Marker {
                literal: "{",
                action: Action::Block(&OBJECT),
            },
            CALL_TOKEN,
            END_MESSAGE,
        ],
    },
    // GC1.7: after a call.
    Mode {
        id: AFTER_CALL,
        content: Content::Gap { stray: TEXT },
        markers: &[END_MESSAGE, CALL_TOKEN],
    },
]);

/// GC2.1: the call object, to the `}` that closes it; markers inside it mean nothing.
static OBJECT: Block = Block::nested(&[], &Nesting::JSON_OBJECT, decode, unterminated);

/// GC2.1, GC2.10: a valid object is a call, then *after a call*; any other is `error` and its
/// text, then text. (`JSON_OBJECT` counts braces only, with no depth limit of its own: the
/// object always ends balanced, and C8.2's limit is the JSON reader's.)
fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    match call::read(reading.block, reading.generated_id.clone()) {
        Ok(call) => Outcome::of_call(Ok::<_, CallError>(call), AFTER_CALL),
        Err(error) => Outcome::Reject(error.to_string(), TEXT),
    }
}

/// GC4.2: an object still open at the end of the stream.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::events;

    fn calls(events: &[String]) -> usize {
        events.iter().filter(|e| e.contains("tool-call")).count()
    }

    #[test]
    fn a_marker_outside_a_string_is_part_of_the_object_and_breaks_its_json() {
        // GC2.1: the object does not end at a marker; it ends where its braces balance.
        let events = events(
            &GRAMMAR,
            "<|function_call|>{\"name\": \"f\", <|message_sep|> \"arguments\": {}}tail",
        );
        assert_eq!(calls(&events), 0, "{events:?}");
        assert!(
            events[0].contains("invalid gigachat3 call: not JSON"),
            "{events:?}"
        );
        assert!(
            events[1].contains(r#"{\"name\": \"f\", <|message_sep|> \"arguments\": {}}tail"#),
            "{events:?}"
        );
    }

    #[test]
    fn an_object_deeper_than_c8_allows_is_no_json() {
        let depth = 127;
        let arguments = format!(
            "{}{}",
            "{\"a\": ".repeat(depth - 1),
            "1".to_owned() + &"}".repeat(depth - 1)
        );
        let stream = format!("<|function_call|>{{\"name\": \"f\", \"arguments\": {arguments}}}");
        let events = events(&GRAMMAR, &stream);
        assert_eq!(calls(&events), 0, "{events:?}");
        assert!(events[0].contains("not JSON"), "{events:?}");
    }

    #[test]
    fn a_header_before_anything_but_an_object_is_markup_and_the_rest_text() {
        // GC1.6: no block was opened, so there is no error; the array is text, and a `{` in
        // text opens nothing.
        let events = events(
            &GRAMMAR,
            "<|message_sep|>\n\nfunction call<|role_sep|>\n [{\"name\": \"f\", \"arguments\": {}}]",
        );
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(events[0].contains(r#""delta":"[{\"name\""#), "{events:?}");
    }

    #[test]
    fn separators_in_a_row_stay_markup_and_a_header_after_stray_text_is_text() {
        // GC1.3: `<|message_sep|>` again after a message is markup; once text has started, a
        // header is text (GC1.4) until the next separator.
        let events = events(
            &GRAMMAR,
            "Hi.<|message_sep|>\n\n<|message_sep|>\nuser function call<|role_sep|>\n{}<|message_sep|>function call<|role_sep|>\n{\"name\": \"f\", \"arguments\": {}}",
        );
        assert_eq!(calls(&events), 1, "{events:?}");
        let text: String = events
            .iter()
            .filter(|e| e.contains("text-delta"))
            .cloned()
            .collect();
        assert!(text.contains("Hi."), "{events:?}");
        assert!(
            text.contains(r#"user function call<|role_sep|>\n{}"#),
            "{events:?}"
        );
    }

    #[test]
    fn after_a_call_the_3_1_token_opens_another_and_stray_text_ends_the_calls() {
        let events = events(
            &GRAMMAR,
            "<|function_call|>{\"name\": \"f\", \"arguments\": {}}\n<|function_call|>\n{\"name\": \"g\", \"arguments\": {}} ok {\"name\": \"h\", \"arguments\": {}}",
        );
        assert_eq!(calls(&events), 2, "{events:?}");
        assert!(
            events[1].contains(r#""toolCallId":"tool-call-2""#),
            "{events:?}"
        );
        assert!(events[2].contains("ok {"), "{events:?}");
    }

    #[test]
    fn an_object_open_at_the_end_is_unterminated() {
        let events = events(
            &GRAMMAR,
            "<|function_call|>{\"name\": \"f\", \"arguments\": {\"a\": \"}",
        );
        assert!(
            events[0].contains("unterminated gigachat3 call"),
            "{events:?}"
        );
        assert_eq!(events.len(), 2, "{events:?}");
    }

    #[test]
    fn a_marker_prefix_held_when_stray_text_starts_is_released_as_text() {
        // After a message, `f` may start the header; when a stray char comes first in the same
        // chunk, the mode is text, where `f` is nothing: it goes out at once (C3), not lost.
        use crate::dialect::kit::KitParser;
        use crate::event::Event;
        use crate::parser::{StreamParser, run};
        fn text(events: &[Event]) -> String {
            events
                .iter()
                .map(|e| match e {
                    Event::TextDelta { delta } => delta.as_str(),
                    _ => "",
                })
                .collect()
        }
        let mut parser = KitParser::new(&GRAMMAR, std::sync::Arc::default());
        let mut out = Vec::new();
        parser.push("<|message_sep|>\n\nA f", &mut out);
        assert_eq!(text(&out), "A f", "{out:?}");
        // Of `function call<|`, held as the header's prefix, `<|` may still start a marker of
        // text: only it is held.
        let mut parser = KitParser::new(&GRAMMAR, std::sync::Arc::default());
        parser.push("<|message_sep|>Xfunction call<|", &mut out);
        assert_eq!(text(&out), "A fXfunction call", "{out:?}");
        let events = run(&mut parser, ["x"]).events;
        assert_eq!(text(&events), "<|x", "{events:?}");
    }
}
