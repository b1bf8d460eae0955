//! What the content of one complete tag block means (`specs/dialects/tag.md` T2.5, §4): the
//! JSON object it holds, bare or fenced, checked against the tool's schema, or why it is not a
//! valid call.

use serde_json::{Deserializer, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::tools::Tool;

/// Why a tag block is not a valid call. Each message starts with the spec's fixed phrase
/// (`specs/dialects/tag.md` §4).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CallError {
    /// The content is not of the T2.5 form (a bad fence, text before or after the object, two
    /// objects); what is wrong.
    #[error("malformed tool call: {0}")]
    Malformed(&'static str),
    /// The object is not valid JSON (T4.2, T4.3); serde_json's message.
    #[error("invalid JSON in tool call: {0}")]
    InvalidJson(String),
    /// The value is JSON but not an object (T4.2: only inside a fence); what it is
    /// (`an array`).
    #[error("tool call input is not a JSON object: it is {0}")]
    NotObject(&'static str),
    /// The object violates its tool's input schema (T4.1).
    #[error("tool call input does not match the schema of {tool}: {reason}")]
    Schema {
        /// The tool's name.
        tool: String,
        /// The first violation, and where.
        reason: String,
    },
    /// No closer before the end of the stream (`specs/streaming.md` C4).
    #[error("unterminated tool call")]
    Unterminated,
}

const FENCE: &str = "```";

/// Blanks (T2): what may surround the object, inside and outside a fence.
fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// The call's input: `content` (between opener and closer) must be blanks, a JSON object bare
/// or in a fence, blanks (T2.5), and the object must satisfy `tool`'s schema (T4.1).
///
/// The content is read in order, so a block has the first problem met: a bad fence line, then
/// the object's JSON, then what follows it (closing fence, nothing else), then the value's
/// type, then the schema.
pub(super) fn interpret(content: &str, tool: &Tool) -> Result<Value, CallError> {
    let body = content.trim_matches(is_blank);
    let (object_text, fenced) = match body.strip_prefix(FENCE) {
        Some(after_fence) => (fence_body(after_fence)?, true),
        None => (body, false),
    };
    // The closing fence may follow a value directly (T4.2): serde's stream reader wants a
    // separator after a number or literal (`1````), so try the text before the last fence
    // as exactly one value first. Only a fenced body is searched: a bare one would be scanned
    // whole, from the end, for a fence that could not count.
    let whole_before_fence = fenced
        .then_some(object_text)
        .and_then(|text| text.rsplit_once(FENCE))
        .filter(|(_, tail)| tail.is_empty())
        .and_then(|(inside, _)| json::from_str(inside).ok());
    let value = match whole_before_fence {
        Some(value) => value,
        None => {
            let (value, after) = first_value(object_text)?;
            let after = after.trim_start_matches(is_blank);
            let after = if fenced {
                after.strip_prefix(FENCE).ok_or(CallError::Malformed(
                    "the fence is not closed after the object",
                ))?
            } else {
                after
            };
            if !after.is_empty() {
                return Err(CallError::Malformed(
                    "more than one object, or text after it",
                ));
            }
            value
        }
    };
    let kind = match &value {
        Value::Object(_) => {
            tool.validate(&value).map_err(|reason| CallError::Schema {
                tool: tool.name.clone(),
                reason,
            })?;
            return Ok(value);
        }
        Value::Array(_) => "an array",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    };
    Err(CallError::NotObject(kind))
}

/// What follows a fence's opening backticks once its line is checked (T2.3): optional `json`,
/// optional spaces, tabs or `\r`, then `\n`.
fn fence_body(after_fence: &str) -> Result<&str, CallError> {
    let info = after_fence.strip_prefix("json").unwrap_or(after_fence);
    info.trim_start_matches([' ', '\t', '\r'])
        .strip_prefix('\n')
        .ok_or(CallError::Malformed(
            "a fence is ``` or ```json then a line break",
        ))
}

/// The JSON value at the start of `text` (after blanks) and the text after it.
///
/// Only something that starts like an object is "the object" whose JSON can be invalid
/// (`specs/dialects/tag.md` §4); anything else in its place is text before the object, unless
/// it is a whole JSON value, which is then reported as not an object.
fn first_value(text: &str) -> Result<(Value, &str), CallError> {
    let starts_object = text.trim_start_matches(is_blank).starts_with('{');
    let mut values = Deserializer::from_str(text).into_iter::<Value>();
    let first = values
        .next()
        .map(|read| read.and_then(|value| json::check_depth(&value, text).map(|()| value)));
    match first {
        Some(Ok(value)) => Ok((value, text.get(values.byte_offset()..).unwrap_or(""))),
        Some(Err(error)) if starts_object => Err(CallError::InvalidJson(error.to_string())),
        Some(Err(_)) | None => Err(CallError::Malformed("expected a JSON object")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Tool {
        Tool::new(
            "GetWeather",
            "",
            json!({"type": "object", "properties": {"location": {"type": "string"}}, "required": ["location"]}),
        )
        .expect("valid schema")
    }

    fn error_of(content: &str) -> String {
        match interpret(content, &weather()) {
            Ok(value) => format!("ok {value}"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn bare_and_fenced_objects() {
        let paris = Ok(json!({"location": "Paris"}));
        for content in [
            r#"{"location": "Paris"}"#,
            "\n {\"location\":\"Paris\"} \r\n",
            "\n```json\n{\"location\": \"Paris\"}\n```\n",
            "```\n{\"location\": \"Paris\"}```",
            "```json \t\r\n\n  {\"location\": \"Paris\"}\n\n```  ",
        ] {
            assert_eq!(interpret(content, &weather()), paris, "{content:?}");
        }
        // Backticks inside a JSON string do not close the fence.
        assert_eq!(
            interpret("```json\n{\"location\": \"a```b\"}\n```", &weather()),
            Ok(json!({"location": "a```b"}))
        );
    }

    #[test]
    fn each_error_has_its_prefix() {
        for (content, prefix) in [
            ("```python\n{}\n```", "malformed tool call"),
            ("``\n{}\n```", "malformed tool call"),
            ("```json {\"location\": \"x\"}```", "malformed tool call"),
            ("```json\n{\"location\": \"x\"}\n", "malformed tool call"),
            (
                "```json\nhere: {\"location\": \"x\"}\n```",
                "malformed tool call",
            ),
            ("```json\n```", "malformed tool call"),
            (
                "{\"location\": \"x\"} {\"location\": \"y\"}",
                "malformed tool call",
            ),
            ("{\"location\": \"x\"}\n```", "malformed tool call"),
            (
                "```json\n{\"location\": \"x\"}\n```\nbye",
                "malformed tool call",
            ),
            ("{\"location\": \"", "invalid JSON in tool call"),
            ("{location: 1}", "invalid JSON in tool call"),
            ("```json\n{\"location\": \n```", "invalid JSON in tool call"),
            (
                "```json\n[1, 2]\n```",
                "tool call input is not a JSON object",
            ),
            (
                "```\n\"Paris\"\n```",
                "tool call input is not a JSON object",
            ),
            (
                "{}",
                "tool call input does not match the schema of GetWeather",
            ),
            (
                "{\"location\": 5}",
                "tool call input does not match the schema of GetWeather",
            ),
        ] {
            let error = error_of(content);
            assert!(error.starts_with(prefix), "{content:?} gave {error:?}");
        }
    }
}
