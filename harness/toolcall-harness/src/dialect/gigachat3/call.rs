//! What one complete call object means (`specs/dialects/gigachat3.md` §2): a call's name,
//! arguments and other keys, or why it is no call (`specs/dialects/gigachat3.md` §5's fixed
//! phrases, checked in that section's order).

use serde_json::Value;
use thiserror::Error;

use crate::dialect::json;
use crate::event::ToolCall;

/// Why an object is not a call; each message starts with the fixed phrase of
/// `specs/dialects/gigachat3.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// The stream ended inside the object (GC2.10, GC4.2).
    #[error("unterminated gigachat3 call")]
    Unterminated,
    /// Not JSON as C8 reads it (GC2.2, GC2.3); what is wrong.
    #[error("invalid gigachat3 call: not JSON: {0}")]
    NotJson(String),
    /// No `name`, or one that is not a non-empty string (GC2.4).
    #[error("invalid gigachat3 call: no name")]
    NoName,
    /// No `arguments` (GC2.5).
    #[error("invalid gigachat3 call: no arguments")]
    NoArguments,
    /// `arguments` that are not an object: `null`, a string (one holding an object too), an
    /// array, a number, a boolean (GC2.5).
    #[error("invalid gigachat3 call: arguments not an object")]
    ArgumentsNotObject,
}

/// The call the object `text` (from its `{` to the `}` that balances it) writes; its id is
/// always `generated_id` (GC2.6: the format carries none).
pub(super) fn read(text: &str, generated_id: String) -> Result<ToolCall, CallError> {
    // A block opened by `{` and ended where its braces balance is an object if it is JSON at
    // all; anything else is no JSON object either.
    let mut extra = match json::from_str(text) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err(CallError::NotJson("not an object".to_owned())),
        Err(error) => return Err(CallError::NotJson(error.to_string())),
    };
    // `shift_remove` keeps the other keys in source order for `extra` (GC2.6).
    let name = match extra.shift_remove("name") {
        Some(Value::String(name)) if !name.is_empty() => name,
        _ => return Err(CallError::NoName),
    };
    let input = match extra.shift_remove("arguments") {
        Some(input @ Value::Object(_)) => input,
        Some(_) => return Err(CallError::ArgumentsNotObject),
        None => return Err(CallError::NoArguments),
    };
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name,
        input,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(text: &str) -> CallError {
        read(text, "t".to_owned()).unwrap_err()
    }

    #[test]
    fn what_is_no_call_in_the_order_of_the_checks() {
        assert!(matches!(
            error(r#"{"name": "f", "arguments": {},}"#),
            CallError::NotJson(_)
        ));
        assert!(matches!(error(r#"{"name": NaN}"#), CallError::NotJson(_)));
        assert_eq!(error(r#"{"arguments": "x"}"#), CallError::NoName);
        assert_eq!(error(r#"{"name": "", "arguments": {}}"#), CallError::NoName);
        assert_eq!(error(r#"{"name": 7, "arguments": {}}"#), CallError::NoName);
        assert_eq!(error(r#"{"name": "f"}"#), CallError::NoArguments);
        for arguments in ["null", "\"{}\"", "[]", "1", "true"] {
            let object = format!(r#"{{"name": "f", "arguments": {arguments}}}"#);
            assert_eq!(error(&object), CallError::ArgumentsNotObject, "{object}");
        }
        assert!(
            error("{\"name\": \"f\"")
                .to_string()
                .starts_with("invalid gigachat3 call: not JSON")
        );
    }

    #[test]
    fn other_keys_go_to_extra_in_source_order_and_the_id_is_generated() {
        let call = read(
            r#"{"type": "function", "name": "f", "id": "call_1", "arguments": {"a": 1}, "index": 0}"#,
            "tool-call-3".to_owned(),
        )
        .expect("a call");
        assert_eq!(call.tool_call_id, "tool-call-3");
        assert_eq!(call.tool_name, "f");
        assert_eq!(call.input, serde_json::json!({"a": 1}));
        let keys: Vec<&str> = call.extra.keys().map(String::as_str).collect();
        assert_eq!(keys, ["type", "id", "index"]);
    }
}
