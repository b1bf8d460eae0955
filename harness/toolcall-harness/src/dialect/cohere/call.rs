//! What one complete `cohere` call object means (`specs/dialects/cohere.md` §3): its
//! `tool_name`, `parameters` and `tool_call_id`, its other fields, or the first reason, in the
//! order CM3.8 gives, why it is no call.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::event::ToolCall;

/// Why an object is not a call. Each message starts with its fixed phrase (the error table,
/// `specs/dialects/cohere.md` §8); the duplicate id (`specs/streaming.md` C7.1) is found by
/// the kit, which knows the earlier calls.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// The stream ended inside the object (CM2.5).
    #[error("unterminated cohere tool call")]
    Unterminated,
    /// An `<|END_ACTION|>` came before the object's braces balanced (CM2.4).
    #[error("cohere tool call cut by <|END_ACTION|>")]
    Cut,
    /// The object is not one JSON value under C8 (CM3.1); what is wrong.
    #[error("invalid JSON in cohere tool call: {0}")]
    InvalidJson(String),
    /// No `tool_name`, or one that is not a string (CM3.2, CM3.6).
    #[error("cohere tool call has no string \"tool_name\"")]
    NoName,
    /// `parameters` present, not `null` and not an object (CM3.3).
    #[error("cohere tool call \"parameters\" is not an object")]
    ParametersNotObject,
}

/// The call the object `text` (from its `{` through the `}` that closes it) writes; a call
/// that names no id gets `generated_id` (CM3.4).
pub(super) fn read(text: &str, generated_id: String) -> Result<ToolCall, CallError> {
    // CM3.1: one JSON value, C8 (depth included); the block begins with `{`, so a value read
    // from it is an object.
    let mut fields = match json::from_str(text) {
        Ok(Value::Object(fields)) => fields,
        Ok(_) => return Err(CallError::InvalidJson("not an object".to_owned())),
        Err(error) => return Err(CallError::InvalidJson(error.to_string())),
    };
    // `shift_remove` keeps the remaining fields in source order for `extra` (CM3.5).
    let tool_name = match fields.shift_remove("tool_name") {
        Some(Value::String(name)) => name,
        _ => return Err(CallError::NoName),
    };
    let input = match fields.shift_remove("parameters") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(object @ Value::Object(_)) => object,
        Some(_) => return Err(CallError::ParametersNotObject),
    };
    // A `tool_call_id` that is not a string names no id, and is dropped.
    let tool_call_id = match fields.shift_remove("tool_call_id") {
        Some(Value::String(id)) => id,
        _ => generated_id,
    };
    Ok(ToolCall {
        tool_call_id,
        tool_name,
        input,
        extra: fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Result<ToolCall, CallError> {
        super::read(text, "tool-call-1".to_owned())
    }

    #[test]
    fn a_call_as_the_template_writes_it() {
        let call = read(
            r#"{"tool_call_id": "0", "tool_name": "GetWeather", "parameters": {"location": "Paris"}}"#,
        )
        .expect("a call");
        assert_eq!(call.tool_call_id, "0");
        assert_eq!(call.tool_name, "GetWeather");
        assert_eq!(call.input, json!({"location": "Paris"}));
        assert!(call.extra.is_empty());
    }

    #[test]
    fn ids_parameters_and_other_fields() {
        // No id, or one that is not a string: the generated one; the latter is not kept.
        for text in [
            r#"{"tool_name": "f"}"#,
            r#"{"tool_call_id": 3, "tool_name": "f", "parameters": null}"#,
        ] {
            let call = read(text).expect("a call");
            assert_eq!(call.tool_call_id, "tool-call-1", "{text}");
            assert_eq!(call.input, json!({}), "{text}");
            assert!(call.extra.is_empty(), "{text}");
        }
        let call = read(r#"{"z": 1, "tool_name": "f", "name": "g", "arguments": {}, "id": "x"}"#)
            .expect("a call");
        assert_eq!(
            Value::Object(call.extra),
            json!({"z": 1, "name": "g", "arguments": {}, "id": "x"})
        );
    }

    #[test]
    fn errors_in_the_order_of_cm3_8() {
        assert!(matches!(
            read(r#"{"parameters": 1, "tool_name": 2,}"#),
            Err(CallError::InvalidJson(_))
        ));
        assert_eq!(
            read(r#"{"parameters": 1, "tool_name": 2}"#),
            Err(CallError::NoName)
        );
        assert_eq!(
            read(r#"{"name": "f", "arguments": {}}"#),
            Err(CallError::NoName)
        );
        for parameters in [r#""{}""#, "[]", "3", "false"] {
            let text = format!(r#"{{"tool_name": "f", "parameters": {parameters}}}"#);
            assert_eq!(read(&text), Err(CallError::ParametersNotObject), "{text}");
        }
    }
}
