//! What one complete call block means (`specs/dialects/gemma4.md` GM1.4, GM1.5, §4): its name
//! and its arguments, or why it is invalid (`specs/dialects/gemma4.md` §6). The reader
//! ([`read`]) takes the string token, so FunctionGemma's blocks (`<escape>` strings,
//! `specs/dialects/functiongemma.md` FG1.4) are read by it too; each dialect names its errors.

use serde_json::{Map, Value};
use thiserror::Error;

use super::value::{self, ValueError};
use crate::event::ToolCall;

/// Why a call block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/gemma4.md` §6.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// Still open at the end of the stream (C4).
    #[error("unterminated tool_call")]
    Unterminated,
    /// Cut by the next `<|tool_call>` before its `<tool_call|>` (GM1.2).
    #[error("unclosed tool_call: <|tool_call> before <tool_call|>")]
    Unclosed,
    /// The `call:NAME{…}` frame is not GM1.4's.
    #[error("invalid call in tool_call: {0}")]
    Call(&'static str),
    /// The arguments are not GM2.1–GM2.7's.
    #[error("invalid arguments in tool_call: {0}")]
    Arguments(#[from] ValueError),
}

impl From<Invalid> for CallError {
    fn from(invalid: Invalid) -> Self {
        match invalid {
            Invalid::NoCall => CallError::Call("no call: right after <|tool_call>"),
            Invalid::Call(detail) => CallError::Call(detail),
            Invalid::Arguments(error) => CallError::Arguments(error),
        }
    }
}

/// Why the text of a block is no call, for the dialect to name in its errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Invalid {
    /// `call:` does not stand right after the opener (GM1.4).
    NoCall,
    /// The rest of the `call:NAME{…}` frame is not GM1.4's or GM1.5's: the detail.
    Call(&'static str),
    /// The arguments are not GM2.1–GM2.7's.
    Arguments(ValueError),
}

/// The call of the block whose text between its opener and its closer is `inner`, its strings
/// between `quote` tokens; it gets `generated_id` (C7: the format names no ids).
pub(crate) fn read(
    inner: &str,
    generated_id: String,
    quote: &'static str,
) -> Result<ToolCall, Invalid> {
    let Some(rest) = inner.strip_prefix("call:") else {
        return Err(Invalid::NoCall);
    };
    let (name, arguments) = rest.split_at(value::word_len(rest));
    if name.is_empty() {
        return Err(Invalid::Call("the name is empty"));
    }
    if !arguments.starts_with('{') {
        return Err(Invalid::Call(
            "the name is not followed by { (a blank or one of : , } [ ] < \" in it?)",
        ));
    }
    let (input, read) = value::arguments(arguments, quote).map_err(Invalid::Arguments)?;
    if read < arguments.len() {
        return Err(Invalid::Call("text after the arguments"));
    }
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name.to_owned(),
        input: Value::Object(input),
        extra: Map::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::gemma4::value::QUOTE;
    use serde_json::json;

    fn read(inner: &str, generated_id: String) -> Result<ToolCall, CallError> {
        super::read(inner, generated_id, QUOTE).map_err(CallError::from)
    }

    fn input(inner: &str) -> Result<Value, CallError> {
        read(inner, "tool-call-1".to_owned()).map(|call| call.input)
    }

    #[test]
    fn the_frame() {
        let call = read("call:get-weather.v2{}", "tool-call-3".to_owned());
        assert_eq!(
            call.map(|c| (c.tool_call_id, c.tool_name)),
            Ok(("tool-call-3".to_owned(), "get-weather.v2".to_owned()))
        );
        assert_eq!(input("call:città{a:1}"), Ok(json!({"a": 1})));
        for (inner, error) in [
            (
                "{a:1}",
                CallError::Call("no call: right after <|tool_call>"),
            ),
            (
                " call:f{}",
                CallError::Call("no call: right after <|tool_call>"),
            ),
            (
                "Call:f{}",
                CallError::Call("no call: right after <|tool_call>"),
            ),
            ("call:{}", CallError::Call("the name is empty")),
            ("call: f{}", CallError::Call("the name is empty")),
        ] {
            assert_eq!(input(inner), Err(error), "{inner}");
        }
        for inner in [
            "call:f {}",
            "call:f(a:1)",
            "call:f",
            "call:ns:f{}",
            "call:f<x>{}",
        ] {
            assert!(
                matches!(input(inner), Err(CallError::Call(m)) if m.starts_with("the name is not")),
                "{inner}"
            );
        }
        for inner in ["call:f{} ", "call:f{}}", "call:f{}{}", "call:f{}\n"] {
            assert_eq!(
                input(inner),
                Err(CallError::Call("text after the arguments")),
                "{inner}"
            );
        }
    }

    #[test]
    fn messages_start_with_the_fixed_phrases() {
        assert_eq!(
            input("call:f{a:b}").map_err(|e| e.to_string()),
            Err("invalid arguments in tool_call: a bare value is not a number, true, false, null or None".to_owned())
        );
        assert!(
            CallError::Call("x")
                .to_string()
                .starts_with("invalid call in tool_call")
        );
    }
}
