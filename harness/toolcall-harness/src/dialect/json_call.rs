//! A call written as one JSON object, as the dialects that write a list or a block of such
//! objects read it: `{"name": …, "arguments": {…}}` ([`Shape`]: `jamba`, `granite`,
//! `phi4-mini`, `internlm2`, `xlam`) or `{"NAME": {…}}`, the name the object's one key
//! ([`NamedByKey`]: `apertus`). Either gives its name, its arguments, its other fields in
//! `extra`, or the first reason why it is no call ([`CallObject`]). Each dialect's spec says
//! which layout and which key holds the arguments, and names the same checks, in the same order.
//!
//! The grammar around it is the dialect's; what the dialects that write a list of such objects
//! share is here too: a list's markers ([`section_markers`]), the three modes of a list opened
//! in text ([`list_modes`]), and a call object's block ([`object_block!`]).

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::dialect::kit::{Action, Block, Content, End, Marker, Mode, ModeId, Outcome, Reading};
use crate::event::ToolCall;

/// What a dialect's call object looks like.
#[derive(Debug)]
pub(crate) struct Shape {
    /// The dialect's name, with which its error messages start.
    pub(crate) dialect: &'static str,
    /// The keys that hold the arguments, the first present one read (InternLM2's template
    /// writes `parameters`, its engines read `arguments` too); the others go to `extra`.
    pub(crate) arguments: &'static [&'static str],
}

/// Why an object is not a call. Each message starts with a fixed phrase of the dialect's error
/// table, the dialect's name in it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// The object is not one JSON object under `specs/streaming.md` C8 (its depth limit
    /// included); what is wrong.
    #[error("invalid JSON in {0} tool call: {1}")]
    InvalidJson(&'static str, String),
    /// No `name`, or a `name` that is not a string.
    #[error("{0} tool call has no string \"name\"")]
    NoName(&'static str),
    /// The arguments are neither an object, nor a string holding one, nor `null`.
    #[error("{0} tool call arguments are not an object")]
    ArgumentsNotObject(&'static str),
    /// A `{"NAME": ARGUMENTS}` object with another number of keys than one (after C8's last
    /// duplicate wins).
    #[error("{0} tool call object has {1} keys, not one")]
    KeyCount(&'static str, usize),
    /// The section's closer came inside the open object.
    #[error("{0} tool call cut by {1}")]
    Cut(&'static str, &'static str),
    /// The stream ended inside the object.
    #[error("unterminated {0} tool call")]
    Unterminated(&'static str),
}

/// A layout of call objects: what a call object's block reads, whatever its keys.
pub(crate) trait CallObject {
    /// The dialect's name, with which its error messages start.
    fn dialect(&self) -> &'static str;

    /// The call of one complete object (`text`, blanks around it allowed), or the first
    /// reason why it is none. The formats carry no ids, so the call gets `generated_id`.
    fn call(&self, text: &str, generated_id: String) -> Result<ToolCall, CallError>;
}

impl Shape {
    /// The call of one complete object: JSON first, then `name`, then the arguments; an `id`
    /// field goes to `extra` like any other.
    pub(crate) fn read(&self, text: &str, generated_id: String) -> Result<ToolCall, CallError> {
        let mut fields = object(self.dialect, text)?;
        // `shift_remove` keeps the remaining fields in source order for `extra`.
        let name = match fields.shift_remove("name") {
            Some(Value::String(name)) => name,
            _ => return Err(CallError::NoName(self.dialect)),
        };
        let key = self.arguments.iter().find(|key| fields.contains_key(**key));
        let arguments = key.and_then(|key| fields.shift_remove(*key));
        Ok(ToolCall {
            tool_call_id: generated_id,
            tool_name: name,
            input: input(self.dialect, arguments)?,
            extra: fields,
        })
    }
}

impl CallObject for Shape {
    fn dialect(&self) -> &'static str {
        self.dialect
    }

    fn call(&self, text: &str, generated_id: String) -> Result<ToolCall, CallError> {
        self.read(text, generated_id)
    }
}

/// The layout `{"NAME": ARGUMENTS}`: the object's one key is the name, its value the
/// arguments, read as [`Shape`] reads its `arguments`; nothing goes to `extra`.
#[derive(Debug)]
pub(crate) struct NamedByKey {
    /// The dialect's name, with which its error messages start.
    pub(crate) dialect: &'static str,
}

impl CallObject for NamedByKey {
    fn dialect(&self) -> &'static str {
        self.dialect
    }

    /// JSON first, then one key, then its value as the arguments.
    fn call(&self, text: &str, generated_id: String) -> Result<ToolCall, CallError> {
        let fields = object(self.dialect, text)?;
        if fields.len() != 1 {
            return Err(CallError::KeyCount(self.dialect, fields.len()));
        }
        let Some((name, arguments)) = fields.into_iter().next() else {
            return Err(CallError::KeyCount(self.dialect, 0));
        };
        Ok(ToolCall {
            tool_call_id: generated_id,
            tool_name: name,
            input: input(self.dialect, Some(arguments))?,
            extra: Map::new(),
        })
    }
}

/// `text` as one JSON object under `specs/streaming.md` C8, its fields in source order.
fn object(dialect: &'static str, text: &str) -> Result<Map<String, Value>, CallError> {
    match json::from_str(text) {
        Ok(Value::Object(fields)) => Ok(fields),
        Ok(_) => Err(CallError::InvalidJson(dialect, "not an object".to_owned())),
        Err(error) => Err(CallError::InvalidJson(dialect, error.to_string())),
    }
}

/// The arguments as the input: absent or `null` is `{}`; an object is itself; a string is
/// decoded once and must hold an object; anything else is no object.
fn input(dialect: &'static str, arguments: Option<Value>) -> Result<Value, CallError> {
    match arguments {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(object @ Value::Object(_)) => Ok(object),
        Some(Value::String(encoded)) => match json::from_str(&encoded) {
            Ok(object @ Value::Object(_)) => Ok(object),
            _ => Err(CallError::ArgumentsNotObject(dialect)),
        },
        Some(_) => Err(CallError::ArgumentsNotObject(dialect)),
    }
}

/// The markers of a section that holds a JSON array of call objects: `{` opens `object`, `[`
/// and `,` are markup that stay in the section's gap `gap`, and `]` is markup that goes to
/// `after_bracket` (the gap again where a closer ends the section, text where the array's `]`
/// does).
pub(crate) const fn section_markers(
    object: &'static Block,
    gap: ModeId,
    after_bracket: ModeId,
) -> [Marker; 4] {
    [
        Marker {
            literal: "{",
            action: Action::Block(object),
        },
        Marker {
            literal: "[",
            action: Action::Switch(gap),
        },
        Marker {
            literal: ",",
            action: Action::Switch(gap),
        },
        Marker {
            literal: "]",
            action: Action::Switch(after_bracket),
        },
    ]
}

/// The modes of a dialect whose calls are a list of call objects opened in text: text
/// ([`LIST_TEXT`], with the `text` markers that open the list), the list's gap ([`LIST`]) and
/// its stray text ([`LIST_STRAY`]), both with the list's `markers`.
pub(crate) const fn list_modes(text: &'static [Marker], markers: &'static [Marker]) -> [Mode; 3] {
    [
        Mode {
            id: LIST_TEXT,
            content: Content::Text,
            markers: text,
        },
        Mode {
            id: LIST,
            content: Content::Gap { stray: LIST_STRAY },
            markers,
        },
        Mode {
            id: LIST_STRAY,
            content: Content::Text,
            markers,
        },
    ]
}

/// Text, in [`list_modes`].
pub(crate) const LIST_TEXT: ModeId = ModeId(0);
/// A list's gap, in [`list_modes`].
pub(crate) const LIST: ModeId = ModeId(1);
/// A list's stray text, in [`list_modes`].
pub(crate) const LIST_STRAY: ModeId = ModeId(2);

/// A call object's block: a JSON object, to the `}` that closes its `{` (braces in JSON
/// strings not counted; C8.2's depth is checked when it is read), cut by `$closers`; read by
/// `$shape`, a [`CallObject`] ([`decode`]), then the list's `$gap`, or, cut, invalid and then
/// `$cut`.
macro_rules! object_block {
    ($shape:expr, $closers:expr, $gap:expr, $cut:expr) => {{
        fn decode(
            reading: &$crate::dialect::kit::Reading<'_>,
            end: $crate::dialect::kit::End,
        ) -> $crate::dialect::kit::Outcome {
            $crate::dialect::json_call::decode(&$shape, reading, end, $gap, $cut)
        }
        fn unterminated(_: &$crate::dialect::kit::Reading<'_>) -> $crate::dialect::kit::Outcome {
            $crate::dialect::json_call::unterminated(&$shape, $gap)
        }
        $crate::dialect::kit::Block::nested(
            $closers,
            &$crate::dialect::kit::Nesting::JSON_OBJECT,
            decode,
            unterminated,
        )
    }};
}
pub(crate) use object_block;

/// A call object of a section that ended: read at its closing brace (then the section's
/// `gap`), or cut by a closer (invalid, then `cut`, the mode the closer leads to). The object
/// is read from the block's first `{`: a block whose opener also holds the list's own opening
/// (`xlam`'s `[{`) keeps that opening in its span and out of the JSON.
pub(crate) fn decode(
    shape: &dyn CallObject,
    reading: &Reading<'_>,
    end: End,
    gap: ModeId,
    cut: ModeId,
) -> Outcome {
    match end {
        End::Closer(closer) => {
            Outcome::Reject(CallError::Cut(shape.dialect(), closer).to_string(), cut)
        }
        // Braces pair only with braces, and the object's nesting has no limit of its own (C8.2
        // is checked when it is read): an object always ends balanced.
        End::Balanced | End::Mismatched | End::TooDeep => {
            // A nested block is entered by its `{`, so the block holds one.
            let object = reading
                .block
                .find('{')
                .and_then(|at| reading.block.get(at..))
                .unwrap_or(reading.block);
            Outcome::of_call(shape.call(object, reading.generated_id.clone()), gap)
        }
    }
}

/// A call object still open at the end of the stream: invalid, then the section's `gap`.
pub(crate) fn unterminated(shape: &dyn CallObject, gap: ModeId) -> Outcome {
    Outcome::Reject(CallError::Unterminated(shape.dialect()).to_string(), gap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SHAPE: Shape = Shape {
        dialect: "d",
        arguments: &["parameters", "arguments"],
    };

    fn read(text: &str) -> Result<ToolCall, CallError> {
        SHAPE.read(text, "tool-call-1".to_owned())
    }

    #[test]
    fn name_arguments_and_extra() {
        let call = read(r#" {"id": "c", "name": "f", "parameters": {"a": 1}, "arguments": 2} "#)
            .expect("a call");
        assert_eq!(call.tool_name, "f");
        assert_eq!(call.tool_call_id, "tool-call-1");
        assert_eq!(call.input, json!({"a": 1}));
        // The first key present is the arguments; the other key is a field like `id`.
        assert_eq!(
            Value::Object(call.extra),
            json!({"id": "c", "arguments": 2})
        );
        let call = read(r#"{"name": "f", "arguments": {"b": [1]}}"#).expect("a call");
        assert_eq!(call.input, json!({"b": [1]}));
    }

    #[test]
    fn absent_null_and_string_arguments() {
        for object in [r#"{"name": "f"}"#, r#"{"name": "f", "parameters": null}"#] {
            assert_eq!(read(object).expect("a call").input, json!({}), "{object}");
        }
        let call = read(r#"{"name": "f", "arguments": "{\"a\": 1}"}"#).expect("a call");
        assert_eq!(call.input, json!({"a": 1}));
        for bad in [r#""[1]""#, r#""{""#, "[]", "3", "true", r#""\"{}\"""#] {
            let object = format!(r#"{{"name": "f", "arguments": {bad}}}"#);
            assert_eq!(
                read(&object),
                Err(CallError::ArgumentsNotObject("d")),
                "{object}"
            );
        }
    }

    #[test]
    fn errors_in_order() {
        for object in ["{", "{\"name\": \"f\",}", "{'name': 'f'}", "[1]"] {
            assert!(
                matches!(read(object), Err(CallError::InvalidJson("d", _))),
                "{object:?}"
            );
        }
        assert_eq!(read("{}"), Err(CallError::NoName("d")));
        assert_eq!(
            read(r#"{"name": 1, "arguments": 1}"#),
            Err(CallError::NoName("d"))
        );
    }

    #[test]
    fn the_one_key_is_the_name() {
        const KEYED: NamedByKey = NamedByKey { dialect: "k" };
        let read = |text: &str| KEYED.call(text, "tool-call-1".to_owned());
        let call = read(r#" {"get_weather": {"city": "Bern"}} "#).expect("a call");
        assert_eq!(call.tool_name, "get_weather");
        assert_eq!(call.input, json!({"city": "Bern"}));
        assert!(call.extra.is_empty());
        // C8: the last duplicate wins, so one key is left.
        let call = read(r#"{"f": {"a": 1}, "f": {"a": 2}}"#).expect("a call");
        assert_eq!(call.input, json!({"a": 2}));
        // The arguments are read as `Shape` reads them.
        assert_eq!(read(r#"{"f": null}"#).expect("a call").input, json!({}));
        let call = read(r#"{"f": "{\"a\": 1}"}"#).expect("a call");
        assert_eq!(call.input, json!({"a": 1}));
        assert_eq!(
            read(r#"{"f": [1]}"#),
            Err(CallError::ArgumentsNotObject("k"))
        );
        assert_eq!(read("{}"), Err(CallError::KeyCount("k", 0)));
        assert_eq!(
            read(r#"{"f": {}, "g": {}}"#),
            Err(CallError::KeyCount("k", 2))
        );
        assert!(matches!(
            read(r#"{"f": }"#),
            Err(CallError::InvalidJson("k", _))
        ));
        assert_eq!(
            CallError::KeyCount("apertus", 2).to_string(),
            "apertus tool call object has 2 keys, not one"
        );
    }

    #[test]
    fn messages_start_with_the_dialect() {
        assert_eq!(
            CallError::Cut("jamba", "</tool_calls>").to_string(),
            "jamba tool call cut by </tool_calls>"
        );
        assert_eq!(
            CallError::Unterminated("d").to_string(),
            "unterminated d tool call"
        );
        assert_eq!(
            CallError::ArgumentsNotObject("d").to_string(),
            "d tool call arguments are not an object"
        );
    }
}
