//! The `llama3-json` reference parser (`specs/dialects/llama3-json.md`): a reply that is a JSON
//! object `{"name": …, "parameters": …}` (or `arguments`), from its first char that is not
//! blank or after `<|python_tag|>`, several separated by `;`. A grammar for the dialect kit:
//! the reply's start is a lead (a reply that began as prose is prose), and each object is a
//! JSON-object block, ended where its braces balance and read whole (`call.rs`).

mod call;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading,
};

pub(crate) use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `llama3-json`, described (`Dialect::Llama3Json`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "llama3-json",
    models: "Llama 3.1, 3.2, 3.3",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|python_tag|>{\"name\": \"GetWeather\", \"parameters\": {\"location\": \"",
        after: "\"}}",
        values: Values::Json,
    },
    fragments: &[
        "<|python_tag|>",
        "{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}",
        "{\"name\": \"f\", \"arguments\": {}}",
        "; ",
        "{\"name\": \"",
        "}}",
    ],
    prefills: &["<|start_header_id|>assistant<|end_header_id|>\n\n"],
    samples: &["<|python_tag|>{\"name\": \"f\", \"arguments\": {}}"],
};

const PYTHON_TAG: &str = "<|python_tag|>";

/// Modes (LJ1.1–LJ1.6).
const REPLY_START: ModeId = ModeId(0);
const PROSE: ModeId = ModeId(1);
const TAGGED: ModeId = ModeId(2);
const AFTER_CALL: ModeId = ModeId(3);
const AFTER_SEPARATOR: ModeId = ModeId(4);

/// `<|python_tag|>` in any mode but a call: a call may follow (LJ1.3).
const TAG: Marker = Marker {
    literal: PYTHON_TAG,
    action: Action::Switch(TAGGED),
};

/// `{` where a call may start.
const OBJECT_OPENER: Marker = Marker {
    literal: "{",
    action: Action::Block(&OBJECT),
};

pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    // LJ1.1: the reply's start.
    Mode {
        id: REPLY_START,
        content: Content::Lead { then: PROSE },
        markers: &[OBJECT_OPENER, TAG],
    },
    // LJ1.2: prose.
    Mode {
        id: PROSE,
        content: Content::Text,
        markers: &[TAG],
    },
    // LJ1.3: after `<|python_tag|>`.
    Mode {
        id: TAGGED,
        content: Content::Gap { stray: PROSE },
        markers: &[OBJECT_OPENER, TAG],
    },
    // LJ1.5: after a call.
    Mode {
        id: AFTER_CALL,
        content: Content::Gap { stray: PROSE },
        markers: &[
            Marker {
                literal: ";",
                action: Action::Switch(AFTER_SEPARATOR),
            },
            TAG,
        ],
    },
    // LJ1.5: after `;`.
    Mode {
        id: AFTER_SEPARATOR,
        content: Content::Gap { stray: PROSE },
        markers: &[OBJECT_OPENER, TAG],
    },
]);

/// LJ1.4: an object, to the `}` that closes it.
static OBJECT: Block = Block::nested(&[], &Nesting::JSON_OBJECT, decode, unterminated);

fn decode(reading: &Reading<'_>, _: End) -> Outcome {
    match call::read(reading.block, reading.generated_id.clone()) {
        Ok(call) => Outcome::of_call(Ok::<_, CallError>(call), AFTER_CALL),
        Err(error) => Outcome::Reject(error.to_string(), PROSE),
    }
}

fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), PROSE)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::events;

    #[test]
    fn a_reply_that_is_an_object_is_a_call() {
        let events = events(
            &GRAMMAR,
            r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#,
        );
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(events[0].contains(r#""toolName":"get_weather""#));
    }

    #[test]
    fn prose_first_makes_braces_text() {
        let events = events(&GRAMMAR, r#"Sure: {"name": "f", "parameters": {}}"#);
        assert_eq!(events.len(), 1, "{events:?}");
        assert!(events[0].contains("text-delta"));
    }

    #[test]
    fn the_tag_opens_a_call_after_prose_and_semicolons_separate_calls() {
        let events = events(
            &GRAMMAR,
            r#"Let me check.<|python_tag|>{"name": "f", "parameters": {"a": "}"}}; {"name": "g", "arguments": {}}"#,
        );
        let calls = events.iter().filter(|e| e.contains("tool-call")).count();
        assert_eq!(calls, 2, "{events:?}");
    }
}
