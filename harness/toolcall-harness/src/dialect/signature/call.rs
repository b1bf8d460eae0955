//! What the object of one complete `###:` block means (`specs/dialects/signature.md` §2–§3):
//! the call it gives, or why it is invalid.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::event::ToolCall;
use crate::tools::Registry;

/// The `signature` value that marks an object as a client tool call (S2.1).
const CLIENT_TOOL_CALL: &str = "CLIENT_TOOL_CALL";

/// Why a `###:` block is not a valid call. Each message starts with the spec's fixed phrase
/// (the first two are seed 001's own messages).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallError {
    /// Invalid JSON, a wrong or missing `signature`, no string `toolName`, or an `input` that
    /// is not an object (S2.1, S2.4); what is wrong.
    #[error("Invalid tool call format: {0}")]
    InvalidFormat(String),
    /// The `toolName` is not in the registry (S2.2); the name.
    #[error("Tool {0} not available")]
    NotAvailable(String),
    /// The object is not closed before the end of the stream (`specs/streaming.md` C4).
    #[error("unterminated tool call")]
    Unterminated,
}

fn invalid(reason: &str) -> CallError {
    CallError::InvalidFormat(reason.to_owned())
}

/// The call of a complete block whose object's source is `object`. `generated_id` is its id
/// if the object names none (`specs/streaming.md` C7).
pub(super) fn interpret(
    object: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, CallError> {
    let mut extra = match json::from_str(object) {
        Ok(Value::Object(object)) => object,
        Ok(_) => return Err(invalid("not a JSON object")),
        Err(error) => return Err(CallError::InvalidFormat(error.to_string())),
    };
    // `shift_remove` keeps the remaining fields in source order for `extra` (S2.3).
    match extra.shift_remove("signature") {
        Some(Value::String(signature)) if signature == CLIENT_TOOL_CALL => {}
        _ => return Err(invalid("\"signature\" is not \"CLIENT_TOOL_CALL\"")),
    }
    let Some(Value::String(tool_name)) = extra.shift_remove("toolName") else {
        return Err(invalid("no string \"toolName\""));
    };
    let input = match extra.shift_remove("input") {
        None => Value::Object(Map::new()),
        Some(input @ Value::Object(_)) => input,
        Some(_) => return Err(invalid("\"input\" is not an object")),
    };
    // The format is checked first, as the seed does (S3's table order); then the registry.
    if tools.get(&tool_name).is_none() {
        return Err(CallError::NotAvailable(tool_name));
    }
    // A non-string `toolCallId` names no id: the call gets a generated one (S2.3 takes a
    // string `toolCallId`).
    let tool_call_id = match extra.shift_remove("toolCallId") {
        Some(Value::String(id)) => id,
        _ => generated_id,
    };
    Ok(ToolCall {
        tool_call_id,
        tool_name,
        input,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tool;
    use serde_json::json;

    fn registry() -> Registry {
        let tool = Tool::new("add_random_item_to_shop", "", json!({"type": "object"}))
            .expect("valid schema");
        Registry::new(vec![tool]).expect("one tool")
    }

    fn format_error(object: &str) -> bool {
        matches!(
            interpret(object, &registry(), "tool-call-1".to_owned()),
            Err(CallError::InvalidFormat(_))
        )
    }

    #[test]
    fn fields_ids_and_extra() {
        let call = interpret(
            r#"{"v": 1, "signature": "CLIENT_TOOL_CALL", "toolName": "add_random_item_to_shop", "toolCallId": "c7", "input": {"n": 2}, "a": 0}"#,
            &registry(),
            "tool-call-4".to_owned(),
        );
        assert_eq!(
            call,
            Ok(ToolCall {
                tool_call_id: "c7".to_owned(),
                tool_name: "add_random_item_to_shop".to_owned(),
                input: json!({"n": 2}),
                extra: Map::from_iter([("v".to_owned(), json!(1)), ("a".to_owned(), json!(0))]),
            })
        );
        let call = interpret(
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": "add_random_item_to_shop", "toolCallId": 5}"#,
            &registry(),
            "tool-call-4".to_owned(),
        )
        .expect("valid");
        assert_eq!(
            (call.tool_call_id.as_str(), &call.input),
            ("tool-call-4", &json!({}))
        );
    }

    #[test]
    fn format_errors() {
        for object in [
            "{",
            "{'a': 1}",
            r#"{"toolName": "add_random_item_to_shop"}"#,
            r#"{"signature": "client_tool_call", "toolName": "add_random_item_to_shop"}"#,
            r#"{"signature": "CLIENT_TOOL_CALL"}"#,
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": 3}"#,
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": "add_random_item_to_shop", "input": []}"#,
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": "add_random_item_to_shop", "input": null}"#,
            // Format before registry: an unknown tool with a bad input is a format error.
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": "nope", "input": 1}"#,
        ] {
            assert!(format_error(object), "{object}");
        }
    }

    #[test]
    fn unknown_tools_are_not_available() {
        let error = interpret(
            r#"{"signature": "CLIENT_TOOL_CALL", "toolName": "Add_Random_Item_To_Shop"}"#,
            &registry(),
            "tool-call-1".to_owned(),
        );
        assert_eq!(
            error.map_err(|e| e.to_string()),
            Err("Tool Add_Random_Item_To_Shop not available".to_owned())
        );
    }
}
