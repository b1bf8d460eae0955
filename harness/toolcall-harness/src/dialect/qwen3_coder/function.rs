//! What one complete function block means (`specs/dialects/qwen3-coder.md` Q1.5–Q1.7, §3):
//! its name, its parameters, and their values typed by the tool's schema; or why it is
//! invalid (`specs/dialects/qwen3-coder.md` §5). The reader is shared with `seed_oss`, whose
//! functions are the same syntax with values read otherwise ([`ValueSyntax`]) and faults told in
//! its own words ([`Fault`]).

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json;
use crate::dialect::typed::{declared_type, integer, number, trim};
use crate::event::ToolCall;
use crate::tools::Registry;

/// Why a function block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/qwen3-coder.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum FunctionError {
    /// Still open at the end of the stream (C4).
    #[error("unterminated tool_call")]
    Unterminated,
    /// Ended by `</tool_call>`: no `</function>` (Q1.4).
    #[error("invalid function in tool_call: no </function>")]
    NoCloser,
    /// The name or the body is not Q1.5's.
    #[error("invalid function in tool_call: {0}")]
    Function(&'static str),
    /// A parameter is not Q1.6's.
    #[error("invalid parameter in tool_call: {0}")]
    Parameter(&'static str),
}

const PARAMETER_OPENER: &str = "<parameter=";
const PARAMETER_CLOSER: &str = "</parameter>";

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// A NAME or KEY: not empty, no blank, no `<` (Q1.5, Q1.6).
fn is_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(|c| is_blank(c) || c == '<')
}

/// How a dialect of Qwen3-Coder's function syntax reads its values, where the dialects differ:
/// [`QWEN3_CODER`] is Q1.6's and Q3.2's.
#[derive(Debug)]
pub(crate) struct ValueSyntax {
    /// Whether `<parameter=` ends a raw value (Q1.6) or is data in it.
    pub(crate) opener_ends_value: bool,
    /// How an `object` or `array` VALUE that is no JSON is read; `None`, or no such reader: it
    /// stays its string.
    pub(crate) not_json: Option<fn(&str) -> Option<Value>>,
}

/// Q1.6 and Q3.2: a value runs to `</parameter>` or `<parameter=`, and structured values are
/// JSON.
pub(crate) const QWEN3_CODER: ValueSyntax = ValueSyntax {
    opener_ends_value: true,
    not_json: None,
};

/// Why a function block is not a call, as the dialects of this syntax tell it (each in its own
/// words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fault {
    /// No `>` after `<function=`, or the NAME is not a name; which.
    Name(&'static str),
    /// No `>` after `<parameter=`, or the KEY is not a name; which.
    Key(&'static str),
    /// A parameter's raw value meets no `</parameter>` (nor, where it ends one, `<parameter=`).
    Unclosed,
    /// Something in the body that is not a blank and not a parameter element.
    Stray,
}

impl From<Fault> for FunctionError {
    fn from(fault: Fault) -> FunctionError {
        match fault {
            Fault::Name(what) => FunctionError::Function(what),
            Fault::Key(what) => FunctionError::Parameter(what),
            Fault::Unclosed => FunctionError::Parameter("its value is not closed"),
            Fault::Stray => FunctionError::Function("stray text in its body"),
        }
    }
}

/// The call of the function whose text between `<function=` and `</function>` is `inner`.
pub(super) fn read(
    inner: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, FunctionError> {
    read_function(inner, tools, generated_id, &QWEN3_CODER).map_err(FunctionError::from)
}

/// The call of the function whose text between `<function=` and `</function>` is `inner`, its
/// values read as `values` says; or the first fault, reading from left to right.
pub(crate) fn read_function(
    inner: &str,
    tools: &Registry,
    generated_id: String,
    values: &ValueSyntax,
) -> Result<ToolCall, Fault> {
    let Some((name, mut body)) = inner.split_once('>') else {
        return Err(Fault::Name("no > after <function="));
    };
    if !is_name(name) {
        return Err(Fault::Name("the name is empty or holds a blank or <"));
    }
    let mut input = Map::new();
    loop {
        body = body.trim_start_matches(is_blank);
        if body.is_empty() {
            break;
        }
        let Some(parameter) = body.strip_prefix(PARAMETER_OPENER) else {
            return Err(Fault::Stray);
        };
        let Some((key, rest)) = parameter.split_once('>') else {
            return Err(Fault::Key("no > after <parameter="));
        };
        if !is_name(key) {
            return Err(Fault::Key("the key is empty or holds a blank or <"));
        }
        // Q1.6: the raw value runs to the first `</parameter>`, or `<parameter=` if it ends one.
        let closer = rest.find(PARAMETER_CLOSER);
        let next = if values.opener_ends_value {
            rest.find(PARAMETER_OPENER)
        } else {
            None
        };
        let (raw, after) = match (closer, next) {
            (Some(c), Some(n)) if n < c => (&rest[..n], &rest[n..]),
            (Some(c), _) => (&rest[..c], &rest[c + PARAMETER_CLOSER.len()..]),
            (None, Some(n)) => (&rest[..n], &rest[n..]),
            (None, None) => return Err(Fault::Unclosed),
        };
        let value = raw.strip_prefix('\n').unwrap_or(raw);
        let value = value.strip_suffix('\n').unwrap_or(value);
        input.insert(
            key.to_owned(),
            typed(value, declared_type(tools, name, key), values.not_json),
        );
        body = after;
    }
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name.to_owned(),
        input: Value::Object(input),
        extra: Map::new(),
    })
}

/// Q3.2's table: `value` as the `input` value a parameter of `declared` type gets; an `object`
/// or `array` VALUE that is no JSON is read by `not_json`, if given.
fn typed(
    value: &str,
    declared: Option<&str>,
    not_json: Option<fn(&str) -> Option<Value>>,
) -> Value {
    if value.eq_ignore_ascii_case("null") {
        return Value::Null;
    }
    let converted = match declared {
        Some("integer") => integer(trim(value)),
        Some("number") => number(trim(value)),
        Some("boolean") => Some(Value::Bool(value.eq_ignore_ascii_case("true"))),
        Some("object" | "array") => json::value_in_input(value)
            .ok()
            .or_else(|| not_json.and_then(|read| read(value))),
        _ => None,
    };
    converted.unwrap_or_else(|| Value::String(value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn null_comes_first_and_booleans_are_untrimmed() {
        assert_eq!(typed("NULL", Some("string"), None), Value::Null);
        assert_eq!(typed("True", Some("boolean"), None), json!(true));
        assert_eq!(typed(" true", Some("boolean"), None), json!(false));
        assert_eq!(typed("['a']", Some("array"), None), json!("['a']"));
        assert_eq!(typed("7", None, None), json!("7"));
    }
}
