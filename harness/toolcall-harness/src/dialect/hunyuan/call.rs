//! What one complete call object of a `hunyuan` tools section means
//! (`specs/dialects/hunyuan.md` §3): `{"name": …, "arguments": {…}}`, its other fields kept in
//! `extra`, or the first reason, in the order HY3.6 gives, why it is no call.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::event::ToolCall;

/// Why a call object is not a call. Each message starts with the fixed phrase of the error
/// table (`specs/dialects/hunyuan.md` §4).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// The object is not one JSON object under C8, the depth limit included (HY3.2); what is
    /// wrong.
    #[error("invalid JSON in hunyuan tool call: {0}")]
    InvalidJson(String),
    /// No `name`, or a `name` that is not a string (HY3.6, HY4.3).
    #[error("hunyuan tool call has no string \"name\"")]
    NoName,
    /// `arguments` present and neither an object nor a string holding one (HY3.4, HY3.6).
    #[error("hunyuan tool call \"arguments\" is not an object")]
    ArgumentsNotObject,
    /// `</tool_calls>` inside the open object (HY1.7).
    #[error("hunyuan tool call cut by {0}")]
    Cut(&'static str),
    /// The stream ended inside the object (HY4.4).
    #[error("unterminated hunyuan tool call")]
    Unterminated,
}

/// The call of one complete object, from its `{` through the `}` that closes it (HY3.1): its
/// `name`, its `arguments` (HY3.3, HY3.4), every other field (`id` too: the format carries no
/// ids, C7) in `extra`, in source order.
pub(super) fn read(object: &str, generated_id: String) -> Result<ToolCall, CallError> {
    let mut fields = match json::from_str(object) {
        Ok(Value::Object(fields)) => fields,
        // A block opened by `{` and closed by its `}` that is JSON is an object.
        Ok(_) => return Err(CallError::InvalidJson("not an object".to_owned())),
        Err(error) => return Err(CallError::InvalidJson(error.to_string())),
    };
    // `shift_remove` keeps the remaining fields in source order for `extra`.
    let name = match fields.shift_remove("name") {
        Some(Value::String(name)) => name,
        _ => return Err(CallError::NoName),
    };
    let input = arguments(fields.shift_remove("arguments"))?;
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name,
        input,
        extra: fields,
    })
}

/// HY3.3, HY3.4: absent is `{}`; an object is itself; a string is decoded once and must hold
/// an object; anything else (`null` too) is no object.
fn arguments(value: Option<Value>) -> Result<Value, CallError> {
    match value {
        None => Ok(Value::Object(Map::new())),
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

    fn call(name: &str, input: Value, extra: Value) -> ToolCall {
        let Value::Object(extra) = extra else {
            panic!("extra must be an object");
        };
        ToolCall {
            tool_call_id: "tool-call-1".to_owned(),
            tool_name: name.to_owned(),
            input,
            extra,
        }
    }

    fn read(object: &str) -> Result<ToolCall, CallError> {
        super::read(object, "tool-call-1".to_owned())
    }

    #[test]
    fn fields_and_extra() {
        assert_eq!(
            read(r#"{"name": "f", "arguments": {"a": 1}}"#),
            Ok(call("f", json!({"a": 1}), json!({})))
        );
        // `id` is a field like any other (HY3.1); no `arguments` is `{}` (HY3.3).
        assert_eq!(
            read(r#"{"z": 1, "id": "c1", "name": "f", "type": "function"}"#),
            Ok(call(
                "f",
                json!({}),
                json!({"z": 1, "id": "c1", "type": "function"})
            ))
        );
    }

    #[test]
    fn string_arguments_are_decoded_once() {
        assert_eq!(
            read(r#"{"name": "f", "arguments": "{\"a\": [1]}"}"#),
            Ok(call("f", json!({"a": [1]}), json!({})))
        );
        for bad in [
            r#""[1]""#,
            r#""{""#,
            r#""\"{}\"""#,
            "null",
            "[]",
            "3",
            "true",
        ] {
            let object = format!(r#"{{"name": "f", "arguments": {bad}}}"#);
            assert_eq!(
                read(&object),
                Err(CallError::ArgumentsNotObject),
                "{object}"
            );
        }
    }

    #[test]
    fn errors_in_the_order_of_hy3_6() {
        for object in ["{", "{\"name\": \"f\",}", "{'name': 'f'}", "{\"a\": NaN}"] {
            assert!(
                matches!(read(object), Err(CallError::InvalidJson(_))),
                "{object:?}"
            );
        }
        assert_eq!(read("{}"), Err(CallError::NoName));
        assert_eq!(read(r#"{"name": 1}"#), Err(CallError::NoName));
        // The name is checked before the arguments.
        assert_eq!(read(r#"{"arguments": 1}"#), Err(CallError::NoName));
    }

    #[test]
    fn messages_start_with_the_error_table() {
        assert_eq!(
            CallError::Cut("</tool_calls>").to_string(),
            "hunyuan tool call cut by </tool_calls>"
        );
        assert!(
            CallError::InvalidJson("x".to_owned())
                .to_string()
                .starts_with("invalid JSON in hunyuan tool call")
        );
    }
}
