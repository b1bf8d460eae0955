//! The event model every parser is compared in (`specs/events.md`): the AI SDK v5 stream parts,
//! how `tch` writes them, and how it reads either AI SDK vocabulary back, diagnosing the
//! classic `args`-instead-of-`input` mistake by name.

use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

/// One stream part. Field names follow the AI SDK v5 `fullStream` / model stream parts.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Event {
    /// `text-delta`: a piece of the reply's plain text, outside any call, in stream order.
    TextDelta {
        /// The text.
        delta: String,
    },
    /// `reasoning-delta`: a piece of the model's reasoning, in stream order; never text
    /// (`specs/events.md` §4).
    ReasoningDelta {
        /// The reasoning text.
        delta: String,
    },
    /// `tool-input-start`: a call's input begins to stream (optional).
    #[serde(rename_all = "camelCase")]
    ToolInputStart {
        /// The call's id, the `toolCallId` of its `tool-call`.
        id: String,
        /// The name of the tool called.
        tool_name: String,
    },
    /// `tool-input-delta`: a piece of the source text of that input (optional).
    ToolInputDelta {
        /// The id of the call whose input this is.
        id: String,
        /// The piece of input text.
        delta: String,
    },
    /// `tool-input-end`: that input is complete (optional).
    ToolInputEnd {
        /// The id of the call whose input ends.
        id: String,
    },
    /// `tool-call`: a recognised call, exactly one per call.
    ToolCall(ToolCall),
    /// `tool-result`: a call's recorded output.
    #[serde(rename_all = "camelCase")]
    ToolResult {
        /// The id of the call this is the output of.
        tool_call_id: String,
        /// The name of the tool called; `""` when read from a UI-stream part that omits it
        /// (`specs/events.md` §2).
        tool_name: String,
        /// The output, any JSON value.
        output: Value,
    },
    /// `tool-error`: a call's recorded failure.
    #[serde(rename_all = "camelCase")]
    ToolError {
        /// The id of the call that failed.
        tool_call_id: String,
        /// The name of the tool called; `""` when read from a UI-stream part that omits it
        /// (`specs/events.md` §2).
        tool_name: String,
        /// The failure's message.
        error_text: String,
    },
    /// `error`: a block that is not a valid call (malformed, or still open at the end of the
    /// stream). It comes before the block's text, which still comes out as text
    /// (`specs/streaming.md` C4, C5).
    #[serde(rename_all = "camelCase")]
    Error {
        /// Why; a reference dialect's message starts with its spec's fixed phrase.
        error_text: String,
    },
}

/// A recognised call: exactly one per call in the stream.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call's id: the one its source names, else one the parser generates (`tool-call-N`,
    /// `specs/streaming.md` C7). Unique within a stream (C7.1).
    pub tool_call_id: String,
    /// The name of the tool called.
    pub tool_name: String,
    /// The call's parameters, a JSON value (an object for every reference dialect). AI SDK v5
    /// names it `input`, not `args`.
    pub input: Value,
    /// Source fields the dialect does not recognise; kept, not compared by default.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub extra: Map<String, Value>,
}

impl Event {
    /// A `text-delta` of `delta`.
    pub fn text(delta: impl Into<String>) -> Event {
        Event::TextDelta {
            delta: delta.into(),
        }
    }

    /// A `reasoning-delta` of `delta`.
    pub fn reasoning(delta: impl Into<String>) -> Event {
        Event::ReasoningDelta {
            delta: delta.into(),
        }
    }

    /// A `tool-call` with no `extra`.
    pub fn call(
        tool_call_id: impl Into<String>,
        tool_name: impl Into<String>,
        input: Value,
    ) -> Event {
        Event::ToolCall(ToolCall {
            tool_call_id: tool_call_id.into(),
            tool_name: tool_name.into(),
            input,
            extra: Map::new(),
        })
    }

    /// An `error` event with `error_text`.
    pub fn error(error_text: impl Into<String>) -> Event {
        Event::Error {
            error_text: error_text.into(),
        }
    }

    /// The tool a call's start or the call itself names (`tool-input-start`, `tool-call`).
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Event::ToolInputStart { tool_name, .. } => Some(tool_name),
            Event::ToolCall(call) => Some(&call.tool_name),
            _ => None,
        }
    }

    /// The id a call-related event refers to, if any, for renaming.
    pub(crate) fn call_id_mut(&mut self) -> Option<&mut String> {
        match self {
            Event::ToolInputStart { id, .. }
            | Event::ToolInputDelta { id, .. }
            | Event::ToolInputEnd { id } => Some(id),
            Event::ToolCall(ToolCall { tool_call_id, .. })
            | Event::ToolResult { tool_call_id, .. }
            | Event::ToolError { tool_call_id, .. } => Some(tool_call_id),
            Event::TextDelta { .. } | Event::ReasoningDelta { .. } | Event::Error { .. } => None,
        }
    }

    /// The event as one compact JSON line (no trailing newline): its fields in the order of
    /// `specs/events.md` §1, the objects inside a call's `input` and `extra` and a result's
    /// `output` with their keys sorted. A JSON object's key order is no behaviour; a parser
    /// that builds one in a hash map writes it differently in every process, and its lines,
    /// diffs and reports would then differ from run to run (R6.6).
    pub fn to_json_line(&self) -> String {
        // Serializing these plain types cannot fail: no maps with non-string keys, no custom
        // serializers.
        let carries_objects = |value: &Value| matches!(value, Value::Object(_) | Value::Array(_));
        let sort = match self {
            Event::ToolCall(call) => carries_objects(&call.input) || !call.extra.is_empty(),
            Event::ToolResult { output, .. } => carries_objects(output),
            _ => false,
        };
        if !sort {
            return serde_json::to_string(self).unwrap_or_default();
        }
        let mut value = serde_json::to_value(self).unwrap_or_default();
        if let Value::Object(fields) = &mut value {
            for field in ["input", "extra", "output"] {
                if let Some(value) = fields.get_mut(field) {
                    value.sort_all_objects();
                }
            }
        }
        value.to_string()
    }

    /// Reads one event in either AI SDK vocabulary (`specs/events.md` §2).
    pub fn from_json_line(line: &str) -> Result<Event, ReadError> {
        let value: Value =
            serde_json::from_str(line).map_err(|e| ReadError::NotJson(e.to_string()))?;
        Event::from_value(value)
    }

    /// Reads one event from a parsed JSON value; bracketing parts that carry nothing
    /// (`text-start`, `text-end`) are [`ReadError::NoContent`].
    pub fn from_value(value: Value) -> Result<Event, ReadError> {
        Event::read(value)?.ok_or(ReadError::NoContent)
    }

    /// Like [`Event::from_value`], but bracketing parts (`text-start`, `text-end`,
    /// `reasoning-start`, `reasoning-end`) read as `None` instead of an error.
    pub fn read(value: Value) -> Result<Option<Event>, ReadError> {
        let Value::Object(mut object) = value else {
            return Err(ReadError::NotObject);
        };
        let kind = match object.remove("type") {
            Some(Value::String(kind)) => kind,
            _ => return Err(ReadError::MissingType),
        };
        let mut fields = Fields {
            kind: &kind,
            object,
        };
        let event = match kind.as_str() {
            "text-start" | "text-end" | "reasoning-start" | "reasoning-end" => return Ok(None),
            "text-delta" => Event::TextDelta {
                delta: fields.string(&["delta", "text"])?,
            },
            "reasoning-delta" => Event::ReasoningDelta {
                delta: fields.string(&["delta", "text"])?,
            },
            "tool-input-start" => Event::ToolInputStart {
                id: fields.string(&["id", "toolCallId"])?,
                tool_name: fields.string(&["toolName"])?,
            },
            "tool-input-delta" => Event::ToolInputDelta {
                id: fields.string(&["id", "toolCallId"])?,
                delta: fields.string(&["delta", "inputTextDelta"])?,
            },
            "tool-input-end" => Event::ToolInputEnd {
                id: fields.string(&["id", "toolCallId"])?,
            },
            "tool-call" | "tool-input-available" => Event::ToolCall(fields.tool_call()?),
            "tool-result" | "tool-output-available" => Event::ToolResult {
                tool_call_id: fields.string(&["toolCallId"])?,
                tool_name: fields.optional_string("toolName")?,
                output: fields.value("output")?,
            },
            "tool-error" | "tool-output-error" => Event::ToolError {
                tool_call_id: fields.string(&["toolCallId"])?,
                tool_name: fields.optional_string("toolName")?,
                error_text: fields.string(&["errorText", "error"])?,
            },
            "error" => Event::Error {
                error_text: fields.string(&["errorText", "error"])?,
            },
            _ => return Err(ReadError::UnknownType(kind)),
        };
        Ok(Some(event))
    }
}

/// Why a JSON line is not an event `tch` understands.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ReadError {
    /// The line is not JSON (serde_json's message).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// The JSON value is not an object.
    #[error("an event must be a JSON object")]
    NotObject,
    /// The object has no `type`, or one that is not a string.
    #[error("an event needs a string \"type\"")]
    MissingType,
    /// The `type` names no event `tch` reads (`specs/events.md` §2); the type as written.
    #[error("unknown event type \"{0}\"")]
    UnknownType(String),
    /// A bracketing part (`text-start`, `text-end`, `reasoning-start`, `reasoning-end`) where
    /// an event is needed ([`Event::from_value`]; [`Event::read`] reads them as `None`).
    #[error("text-start, text-end, reasoning-start and reasoning-end carry no content")]
    NoContent,
    /// A required field is absent.
    #[error("{kind} needs a field \"{field}\"")]
    MissingField {
        /// The event's `type`.
        kind: String,
        /// The field, by its first accepted name.
        field: &'static str,
    },
    /// A field has the wrong JSON type.
    #[error("{kind}: field \"{field}\" must be {expected}")]
    WrongType {
        /// The event's `type`.
        kind: String,
        /// The field, as the event spells it.
        field: &'static str,
        /// What the field must be (`a string`).
        expected: &'static str,
    },
    /// A `tool-call` (or `tool-input-available`) with no `input` but an `args`, `arguments` or
    /// `params` field: seed 002's classic mistake (`specs/events.md` §2).
    #[error(
        "{kind} carries \"{field}\" instead of \"input\" (AI SDK v5 names a call's parameters \"input\")"
    )]
    MisnamedInput {
        /// The event's `type`.
        kind: String,
        /// The misnamed field.
        field: &'static str,
    },
    /// A call's `input` is a string that does not parse as JSON.
    #[error("{kind}: \"input\" is a string but not JSON: {reason}")]
    InputNotJson {
        /// The event's `type`.
        kind: String,
        /// serde_json's message.
        reason: String,
    },
}

/// Field access on one event object, with errors that name the event type and the field.
struct Fields<'k> {
    kind: &'k str,
    object: Map<String, Value>,
}

impl Fields<'_> {
    /// The first of `names` present, which must be a string.
    fn string(&mut self, names: &[&'static str]) -> Result<String, ReadError> {
        for &name in names {
            match self.object.remove(name) {
                Some(Value::String(s)) => return Ok(s),
                Some(_) => return Err(self.wrong_type(name, "a string")),
                None => {}
            }
        }
        Err(ReadError::MissingField {
            kind: self.kind.to_owned(),
            field: names[0],
        })
    }

    /// An optional string field; absent reads as `""` (the UI stream omits `toolName` on
    /// outputs, which are matched by id).
    fn optional_string(&mut self, name: &'static str) -> Result<String, ReadError> {
        match self.object.remove(name) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => Ok(String::new()),
            Some(_) => Err(self.wrong_type(name, "a string")),
        }
    }

    fn value(&mut self, name: &'static str) -> Result<Value, ReadError> {
        self.object.remove(name).ok_or(ReadError::MissingField {
            kind: self.kind.to_owned(),
            field: name,
        })
    }

    fn tool_call(mut self) -> Result<ToolCall, ReadError> {
        let tool_call_id = self.string(&["toolCallId"])?;
        let tool_name = self.string(&["toolName"])?;
        let input = match self.object.remove("input") {
            // The AI SDK reads an empty or blank input text as `{}`: a call without arguments
            // (`specs/events.md` §2).
            Some(Value::String(text)) if text.trim().is_empty() => Value::Object(Map::new()),
            Some(Value::String(text)) => {
                serde_json::from_str(&text).map_err(|e| ReadError::InputNotJson {
                    kind: self.kind.to_owned(),
                    reason: e.to_string(),
                })?
            }
            Some(value) => value,
            None => {
                let misnamed = ["args", "arguments", "params"]
                    .into_iter()
                    .find(|name| self.object.contains_key(*name));
                return Err(match misnamed {
                    Some(field) => ReadError::MisnamedInput {
                        kind: self.kind.to_owned(),
                        field,
                    },
                    None => ReadError::MissingField {
                        kind: self.kind.to_owned(),
                        field: "input",
                    },
                });
            }
        };
        // `tch` writes unknown fields under `extra`; reading merges them with any others.
        let mut extra = match self.object.remove("extra") {
            Some(Value::Object(extra)) => extra,
            Some(other) => Map::from_iter([("extra".to_owned(), other)]),
            None => Map::new(),
        };
        extra.extend(self.object);
        Ok(ToolCall {
            tool_call_id,
            tool_name,
            input,
            extra,
        })
    }

    fn wrong_type(&self, field: &'static str, expected: &'static str) -> ReadError {
        ReadError::WrongType {
            kind: self.kind.to_owned(),
            field,
            expected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(line: &str) -> Result<Event, ReadError> {
        Event::from_json_line(line)
    }

    #[test]
    fn writes_compact_lines_with_type_first() {
        let call = Event::ToolCall(ToolCall {
            tool_call_id: "c1".into(),
            tool_name: "search".into(),
            input: json!({"q": "cats"}),
            extra: Map::new(),
        });
        assert_eq!(
            call.to_json_line(),
            r#"{"type":"tool-call","toolCallId":"c1","toolName":"search","input":{"q":"cats"}}"#
        );
        assert_eq!(
            Event::text("a\n").to_json_line(),
            r#"{"type":"text-delta","delta":"a\n"}"#
        );
    }

    #[test]
    fn objects_in_values_are_written_with_their_keys_sorted() {
        // The same call as two processes of a hash-map parser may build it.
        let read_in = |line: &str| read(line).expect("an event").to_json_line();
        let sorted = r#"{"type":"tool-call","toolCallId":"c1","toolName":"t","input":{"a":[{"x":1,"y":2}],"b":1}}"#;
        assert_eq!(read_in(sorted), sorted);
        assert_eq!(
            read_in(
                r#"{"type":"tool-call","toolCallId":"c1","toolName":"t","input":{"b":1,"a":[{"y":2,"x":1}]}}"#
            ),
            sorted
        );
        assert_eq!(
            read_in(
                r#"{"type":"tool-result","toolCallId":"c1","toolName":"t","output":{"z":0,"m":{"b":1,"a":2}}}"#
            ),
            r#"{"type":"tool-result","toolCallId":"c1","toolName":"t","output":{"m":{"a":2,"b":1},"z":0}}"#
        );
    }

    #[test]
    fn written_events_read_back_identical() {
        let mut extra = Map::new();
        extra.insert("note".into(), json!([1, 2]));
        let events = [
            Event::text("x"),
            Event::reasoning("why"),
            Event::ToolInputStart {
                id: "i".into(),
                tool_name: "t".into(),
            },
            Event::ToolInputDelta {
                id: "i".into(),
                delta: "{".into(),
            },
            Event::ToolInputEnd { id: "i".into() },
            Event::ToolCall(ToolCall {
                tool_call_id: "i".into(),
                tool_name: "t".into(),
                input: json!({}),
                extra,
            }),
            Event::ToolResult {
                tool_call_id: "i".into(),
                tool_name: "t".into(),
                output: json!(null),
            },
            Event::ToolError {
                tool_call_id: "i".into(),
                tool_name: "t".into(),
                error_text: "boom".into(),
            },
            Event::error("bad"),
        ];
        for event in events {
            assert_eq!(read(&event.to_json_line()), Ok(event));
        }
    }

    #[test]
    fn reads_the_ui_message_stream_vocabulary() {
        assert_eq!(
            read(
                r#"{"type":"tool-input-available","toolCallId":"c","toolName":"t","input":{"a":1}}"#
            )
            .map(|e| e.to_json_line()),
            Ok(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":{"a":1}}"#.into())
        );
        assert_eq!(
            read(r#"{"type":"tool-input-delta","toolCallId":"c","inputTextDelta":"{\"a"}"#),
            Ok(Event::ToolInputDelta {
                id: "c".into(),
                delta: "{\"a".into()
            })
        );
        assert_eq!(
            read(r#"{"type":"tool-output-available","toolCallId":"c","output":5}"#),
            Ok(Event::ToolResult {
                tool_call_id: "c".into(),
                tool_name: String::new(),
                output: json!(5)
            })
        );
        assert_eq!(
            read(r#"{"type":"tool-output-error","toolCallId":"c","errorText":"no"}"#),
            Ok(Event::ToolError {
                tool_call_id: "c".into(),
                tool_name: String::new(),
                error_text: "no".into()
            })
        );
        assert_eq!(
            read(r#"{"type":"text-delta","id":"t0","text":"hi"}"#),
            Ok(Event::text("hi"))
        );
        assert_eq!(
            Event::read(json!({"type":"text-start","id":"t0"})),
            Ok(None)
        );
    }

    #[test]
    fn reads_input_given_as_a_json_string() {
        assert_eq!(
            read(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":"{\"a\":[1]}"}"#)
                .map(|e| e.to_json_line()),
            Ok(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":{"a":[1]}}"#.into())
        );
        assert_eq!(
            read(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":" "}"#)
                .map(|e| e.to_json_line()),
            Ok(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":{}}"#.into()),
            "an empty input text is a call without arguments"
        );
        assert!(matches!(
            read(r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":"{oops"}"#),
            Err(ReadError::InputNotJson { .. })
        ));
    }

    #[test]
    fn unknown_tool_call_fields_go_to_extra() {
        let Ok(Event::ToolCall(call)) = read(
            r#"{"type":"tool-call","toolCallId":"c","toolName":"t","input":{},"dynamic":false}"#,
        ) else {
            panic!("not a tool-call")
        };
        assert_eq!(call.extra.get("dynamic"), Some(&json!(false)));
    }

    #[test]
    fn diagnoses_args_instead_of_input_by_name() {
        for field in ["args", "arguments", "params"] {
            let line = format!(
                r#"{{"type":"tool-call","toolCallId":"c","toolName":"t","{field}":{{"a":1}}}}"#
            );
            let error = read(&line).unwrap_err();
            assert_eq!(
                error,
                ReadError::MisnamedInput {
                    kind: "tool-call".into(),
                    field: match field {
                        "args" => "args",
                        "arguments" => "arguments",
                        _ => "params",
                    }
                }
            );
            assert!(
                error
                    .to_string()
                    .contains(&format!("\"{field}\" instead of \"input\""))
            );
        }
    }

    #[test]
    fn names_what_is_wrong() {
        assert_eq!(read("[1]"), Err(ReadError::NotObject));
        assert_eq!(read(r#"{"delta":"x"}"#), Err(ReadError::MissingType));
        assert_eq!(
            read(r#"{"type":"reasoning"}"#),
            Err(ReadError::UnknownType("reasoning".into())),
            "AI SDK v4's reasoning part is not v5's"
        );
        assert_eq!(
            read(r#"{"type":"reasoning-delta","id":"r0","text":"hm"}"#),
            Ok(Event::reasoning("hm"))
        );
        assert_eq!(
            Event::read(json!({"type":"reasoning-end","id":"r0"})),
            Ok(None)
        );
        assert_eq!(
            read(r#"{"type":"text-delta","delta":5}"#)
                .unwrap_err()
                .to_string(),
            r#"text-delta: field "delta" must be a string"#
        );
        assert_eq!(
            read(r#"{"type":"tool-call","toolName":"t","input":{}}"#)
                .unwrap_err()
                .to_string(),
            r#"tool-call needs a field "toolCallId""#
        );
        assert!(matches!(read("{"), Err(ReadError::NotJson(_))));
    }
}
