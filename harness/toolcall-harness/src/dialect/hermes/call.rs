//! What the content of one complete `<tool_call>` element means (`specs/dialects/hermes.md`
//! §2–§3): the call it gives, or why it is invalid.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::event::ToolCall;

/// Why a `<tool_call>` block is not a valid call. Each message starts with the spec's fixed
/// phrase.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallError {
    /// The content is not one JSON object (H1.2, H2.3); what is wrong.
    #[error("invalid JSON in tool_call: {0}")]
    InvalidJson(String),
    /// The object has no string `name` (H2.1).
    #[error("tool_call has no string \"name\"")]
    NoName,
    /// `arguments` is not an object, nor a string holding one, nor null (H2.1).
    #[error("tool_call \"arguments\" is not an object")]
    ArgumentsNotObject,
    /// No `</tool_call>` before the end of the stream (`specs/streaming.md` C4).
    #[error("unterminated tool_call")]
    Unterminated,
}

/// JSON's insignificant whitespace, and the spec's blanks (H1.2).
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The call of a complete element whose content (between opener and closer) is `content`.
/// `generated_id` is its id if the object names none (`specs/streaming.md` C7).
pub(super) fn interpret(content: &str, generated_id: String) -> Result<ToolCall, CallError> {
    let object = match json::from_str(content.trim_matches(is_blank)) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err(CallError::InvalidJson("not an object".to_owned())),
        Err(error) => return Err(CallError::InvalidJson(error.to_string())),
    };
    // `shift_remove` keeps the remaining fields in source order for `extra` (H2.2).
    let mut extra = object;
    let name = match extra.shift_remove("name") {
        Some(Value::String(name)) => name,
        _ => return Err(CallError::NoName),
    };
    let input = arguments(extra.shift_remove("arguments"))?;
    // A non-string `id` names no id: the call gets a generated one (H2.2 takes a string `id`).
    let tool_call_id = match extra.shift_remove("id") {
        Some(Value::String(id)) => id,
        _ => generated_id,
    };
    Ok(ToolCall {
        tool_call_id,
        tool_name: name,
        input,
        extra,
    })
}

/// H2.1: an object, a JSON string holding one (double-encoded), or absent/null for `{}`.
fn arguments(value: Option<Value>) -> Result<Value, CallError> {
    match value {
        None | Some(Value::Null) => Ok(Value::Object(Map::new())),
        Some(object @ Value::Object(_)) => Ok(object),
        Some(Value::String(encoded)) => match json::from_str(&encoded) {
            Ok(object @ Value::Object(_)) => Ok(object),
            _ => Err(CallError::ArgumentsNotObject),
        },
        Some(_) => Err(CallError::ArgumentsNotObject),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call(id: &str, name: &str, input: Value, extra: Value) -> ToolCall {
        let Value::Object(extra) = extra else {
            panic!("extra must be an object");
        };
        ToolCall {
            tool_call_id: id.to_owned(),
            tool_name: name.to_owned(),
            input,
            extra,
        }
    }

    #[test]
    fn fields_ids_and_extra() {
        assert_eq!(
            interpret(
                r#" {"name": "f", "arguments": {"a": 1}} "#,
                "tool-call-3".to_owned()
            ),
            Ok(call("tool-call-3", "f", json!({"a": 1}), json!({})))
        );
        assert_eq!(
            interpret(
                r#"{"z": 1, "id": "c1", "name": "f", "y": [2]}"#,
                "tool-call-1".to_owned()
            ),
            Ok(call("c1", "f", json!({}), json!({"z": 1, "y": [2]})))
        );
        assert_eq!(
            interpret(
                r#"{"name": "f", "arguments": null, "id": 7}"#,
                "tool-call-2".to_owned()
            ),
            Ok(call("tool-call-2", "f", json!({}), json!({})))
        );
    }

    #[test]
    fn double_encoded_arguments() {
        assert_eq!(
            interpret(
                r#"{"name": "f", "arguments": "{\"a\": [1]}"}"#,
                "tool-call-1".to_owned()
            ),
            Ok(call("tool-call-1", "f", json!({"a": [1]}), json!({})))
        );
        for bad in [r#""[1]""#, r#""{""#, "[]", "3", "\"\""] {
            let content = format!(r#"{{"name": "f", "arguments": {bad}}}"#);
            assert_eq!(
                interpret(&content, "tool-call-1".to_owned()),
                Err(CallError::ArgumentsNotObject),
                "{content}"
            );
        }
    }

    #[test]
    fn content_must_be_one_object_with_a_string_name() {
        for content in ["", "[]", "{} {}", "x {}", "{\"name\": \"f\"} x", "{"] {
            assert!(
                matches!(
                    interpret(content, "tool-call-1".to_owned()),
                    Err(CallError::InvalidJson(_))
                ),
                "{content:?}"
            );
        }
        assert_eq!(
            interpret("{}", "tool-call-1".to_owned()),
            Err(CallError::NoName)
        );
        assert_eq!(
            interpret(r#"{"name": 1}"#, "tool-call-1".to_owned()),
            Err(CallError::NoName)
        );
        // The name is checked before the arguments (the error table's order).
        assert_eq!(
            interpret(r#"{"arguments": 1}"#, "tool-call-1".to_owned()),
            Err(CallError::NoName)
        );
    }
}
