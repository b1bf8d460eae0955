//! What the content of one complete Step3 call block means (`specs/dialects/step3.md` §3, §4):
//! `function<｜tool_sep｜>` and one `<steptml:invoke>` element whose parameters are typed by the
//! tool's schema; or the first reason, in STP3.10's reading order, why it is invalid
//! (`specs/dialects/step3.md` §5).
//!
//! The element is MiniMax-M2's with a `steptml:` prefix, read by MiniMax-M2's reader
//! ([`invoke::element`]) told Step3's tag names and Step3's table of typed values (STP4.2). The
//! block is complete (the kit ended it at its first `<｜tool_call_end｜>`, STP2.6), and the
//! invoke inside it is read left to right, so a `</steptml:invoke>` or a `<｜tool_sep｜>` in a
//! value is value text.

use serde_json::Value;
use thiserror::Error;

use crate::dialect::json;
use crate::dialect::minimax_m2::invoke::{self, BLANKS, Broken, Syntax};
use crate::dialect::typed::{integer, number, trim};
use crate::event::ToolCall;
use crate::tools::Registry;

const SEPARATOR: &str = "<｜tool_sep｜>";
const INVOKE_OPENER: &str = "<steptml:invoke";

/// Step3's elements (STP3.4–STP3.7) and its table of typed values (STP4.2).
static SYNTAX: Syntax = Syntax {
    invoke_closer: "</steptml:invoke>",
    parameter_opener: "<steptml:parameter",
    parameter_closer: "</steptml:parameter>",
    typed,
};

/// Why a call block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/step3.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// No `<｜tool_call_end｜>` before the end of the stream (STP2.6, STP5.4).
    #[error("unterminated step3 tool call")]
    Unterminated,
    /// No `<｜tool_sep｜>` in the content (STP3.2).
    #[error("malformed step3 tool call: no <｜tool_sep｜>")]
    NoSeparator,
    /// TYPE, blanks taken off, is not `function` (STP3.2).
    #[error("step3 tool call type is not \"function\": {0:?}")]
    TypeNotFunction(String),
    /// No `<steptml:invoke` after the separator (STP3.1).
    #[error("missing step3 invoke")]
    MissingInvoke,
    /// A byte that is no blank before the invoke tag or after `</steptml:invoke>` (STP3.3).
    #[error("stray text in step3 tool call")]
    StrayText,
    /// The invoke tag is not `<steptml:invoke name="NAME">` (STP3.4).
    #[error("malformed step3 invoke tag")]
    InvokeTag,
    /// A parameter tag is not `<steptml:parameter name="KEY">` (STP3.6).
    #[error("malformed step3 parameter tag")]
    ParameterTag,
    /// This parameter's `</steptml:parameter>` does not come before the end of the content
    /// (STP3.7).
    #[error("unclosed step3 parameter {0:?}")]
    UnclosedParameter(String),
    /// A body byte that is neither a blank nor part of a parameter element (STP3.3).
    #[error("stray text in step3 invoke")]
    StrayInInvoke,
    /// The body reaches the end of the content without `</steptml:invoke>` (STP3.5).
    #[error("unclosed step3 invoke")]
    UnclosedInvoke,
}

impl From<Broken> for CallError {
    fn from(broken: Broken) -> CallError {
        match broken {
            Broken::InvokeTag => CallError::InvokeTag,
            Broken::ParameterTag => CallError::ParameterTag,
            Broken::UnclosedParameter(key) => CallError::UnclosedParameter(key),
            Broken::StrayText => CallError::StrayInInvoke,
            Broken::Unclosed => CallError::UnclosedInvoke,
        }
    }
}

/// The call of a block whose content (between `<｜tool_call_begin｜>` and
/// `<｜tool_call_end｜>`) is `content`, with id `generated_id` (the format has no ids, STP5.2).
/// STP3.10: (1) a separator, (2) TYPE, (3) an invoke opener in REST, (4) only blanks before
/// it, (5)–(6) the invoke element, (7) only blanks after it.
pub(super) fn read(
    content: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, CallError> {
    // (1) The first separator; a later one is REST's, value text if anything (STP3.7).
    let (kind, rest) = content
        .split_once(SEPARATOR)
        .ok_or(CallError::NoSeparator)?;
    // (2) TYPE, blanks taken off both ends.
    if kind.trim_matches(BLANKS) != "function" {
        return Err(CallError::TypeNotFunction(kind.to_owned()));
    }
    // (3), (4) The invoke opener, after blanks only.
    let (before, element) = rest
        .split_once(INVOKE_OPENER)
        .ok_or(CallError::MissingInvoke)?;
    if !before.trim_matches(BLANKS).is_empty() {
        return Err(CallError::StrayText);
    }
    // (5), (6) The tag, then the body read left to right to its closer.
    let element = invoke::element(&SYNTAX, element, tools)?;
    // (7) Blanks only after `</steptml:invoke>`.
    if !element.after.trim_matches(BLANKS).is_empty() {
        return Err(CallError::StrayText);
    }
    Ok(element.into_call(generated_id))
}

/// STP4.2's table: `value` as the `input` value a parameter of `declared` type gets. Only a
/// conversion reads the trimmed value; a string keeps every byte (STP4.3). MiniMax-M2's table
/// (MM3.2) with two rows changed: a `string` or untyped `null` stays the string, and `1` and
/// `0` are no booleans.
fn typed(value: &str, declared: Option<&str>) -> Value {
    let trimmed = trim(value);
    let converted = match declared {
        Some("integer" | "number" | "boolean" | "object" | "array" | "null")
            if trimmed.eq_ignore_ascii_case("null") =>
        {
            Some(Value::Null)
        }
        Some("integer") => integer(trimmed),
        Some("number") => number(trimmed),
        Some("boolean") => boolean(trimmed),
        // JSON itself allows the blanks around a value.
        Some("object" | "array") => json::value_in_input(value).ok(),
        _ => None,
    };
    converted.unwrap_or_else(|| Value::String(value.to_owned()))
}

/// STP4.2: `true` or `false` in any case, the one spelling vLLM and SGLang both read as a
/// boolean (`specs/dialects/step3.md` §8, choice 4).
fn boolean(trimmed: &str) -> Option<Value> {
    if trimmed.eq_ignore_ascii_case("true") {
        Some(Value::Bool(true))
    } else if trimmed.eq_ignore_ascii_case("false") {
        Some(Value::Bool(false))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(content: &str) -> Result<Value, CallError> {
        read(content, &Registry::default(), "tool-call-1".to_owned()).map(|call| call.input)
    }

    const OK: &str = "<steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x</steptml:parameter></steptml:invoke>";

    #[test]
    fn typing_reads_the_trimmed_value_and_keeps_strings_verbatim() {
        assert_eq!(typed(" Null\n", Some("integer")), Value::Null);
        assert_eq!(typed("null", Some("null")), Value::Null);
        assert_eq!(typed("null", Some("string")), json!("null"));
        assert_eq!(typed("null", None), json!("null"));
        assert_eq!(typed("null", Some("date")), json!("null"));
        assert_eq!(typed(" 7 ", None), json!(" 7 "));
        assert_eq!(typed("\t7\n", Some("integer")), json!(7));
        assert_eq!(typed("4.0", Some("integer")), json!("4.0"));
        assert_eq!(typed(" 2.50 ", Some("number")), json!(2.5));
        assert_eq!(typed("inf", Some("number")), json!("inf"));
        assert_eq!(typed("TRUE", Some("boolean")), json!(true));
        assert_eq!(typed(" False", Some("boolean")), json!(false));
        assert_eq!(typed("1", Some("boolean")), json!("1"));
        assert_eq!(typed("0", Some("boolean")), json!("0"));
        assert_eq!(typed(" [1] ", Some("array")), json!([1]));
        assert_eq!(typed("{\"a\": 1}", Some("array")), json!({"a": 1}));
        assert_eq!(typed("['a']", Some("array")), json!("['a']"));
        assert_eq!(typed("", Some("object")), json!(""));
        assert_eq!(typed("1", Some("null")), json!("1"));
    }

    #[test]
    fn the_type_word_comes_before_the_first_separator() {
        assert_eq!(
            input(&format!("function<｜tool_sep｜>{OK}")),
            Ok(json!({"a": "x"}))
        );
        assert_eq!(
            input(&format!("\n function \r\n<｜tool_sep｜>\n{OK}\n ")),
            Ok(json!({"a": "x"}))
        );
        assert_eq!(input(OK), Err(CallError::NoSeparator));
        assert_eq!(
            input(&format!("Function<｜tool_sep｜>{OK}")),
            Err(CallError::TypeNotFunction("Function".to_owned()))
        );
        assert_eq!(
            input(&format!("my_function<｜tool_sep｜>{OK}")),
            Err(CallError::TypeNotFunction("my_function".to_owned()))
        );
        // A second separator is REST's: before the invoke it is stray text, in a value it is
        // the value's.
        assert_eq!(
            input(&format!("function<｜tool_sep｜><｜tool_sep｜>{OK}")),
            Err(CallError::StrayText)
        );
        assert_eq!(
            input(
                "function<｜tool_sep｜><steptml:invoke name=\"f\"><steptml:parameter name=\"a\">\
                 <｜tool_sep｜></steptml:parameter></steptml:invoke>"
            ),
            Ok(json!({"a": "<｜tool_sep｜>"}))
        );
    }

    #[test]
    fn the_first_failure_names_the_error() {
        let block = |rest: &str| input(&format!("function<｜tool_sep｜>{rest}"));
        assert_eq!(block(" \n"), Err(CallError::MissingInvoke));
        assert_eq!(block("f(x)"), Err(CallError::MissingInvoke));
        assert_eq!(block(&format!("f {OK}")), Err(CallError::StrayText));
        assert_eq!(block(&format!("{OK} x")), Err(CallError::StrayText));
        assert_eq!(block(&format!("{OK}{OK}")), Err(CallError::StrayText));
        assert_eq!(
            block("<steptml:invoke name='f'></steptml:invoke>"),
            Err(CallError::InvokeTag)
        );
        assert_eq!(
            block("<steptml:invoke name=\"f></steptml:invoke>"),
            Err(CallError::InvokeTag)
        );
        assert_eq!(
            block(
                "<steptml:invoke name=\"f\"><steptml:parameter name=a>x</steptml:parameter></steptml:invoke>"
            ),
            Err(CallError::ParameterTag)
        );
        assert_eq!(
            block("<steptml:invoke name=\"f\"><steptml:parameter name=\"a\">x</steptml:invoke>"),
            Err(CallError::UnclosedParameter("a".to_owned()))
        );
        assert_eq!(
            block("<steptml:invoke name=\"f\">x<steptml:parameter name=\"a\"></steptml:invoke>"),
            Err(CallError::StrayInInvoke)
        );
        assert_eq!(
            block(
                "<steptml:invoke name=\"f\">\n<steptml:parameter name=\"a\">x</steptml:parameter>\n"
            ),
            Err(CallError::UnclosedInvoke)
        );
        assert_eq!(
            block("<steptml:invoke name=\"f\">"),
            Err(CallError::UnclosedInvoke)
        );
        // Read left to right: a `</steptml:invoke>` in a value does not end the invoke.
        assert_eq!(
            block(
                "<steptml:invoke name=\"f\"><steptml:parameter name=\"a\"></steptml:invoke>\
                 </steptml:parameter></steptml:invoke>"
            ),
            Ok(json!({"a": "</steptml:invoke>"}))
        );
        assert_eq!(
            block("<steptml:invoke name=\"f\"> \n </steptml:invoke>"),
            Ok(json!({}))
        );
    }

    #[test]
    fn errors_start_with_the_spec_phrases() {
        for (error, phrase) in [
            (CallError::Unterminated, "unterminated step3 tool call"),
            (CallError::NoSeparator, "malformed step3 tool call"),
            (
                CallError::TypeNotFunction("x".to_owned()),
                "step3 tool call type is not \"function\"",
            ),
            (CallError::MissingInvoke, "missing step3 invoke"),
            (CallError::StrayText, "stray text in step3 tool call"),
            (CallError::InvokeTag, "malformed step3 invoke tag"),
            (CallError::ParameterTag, "malformed step3 parameter tag"),
            (
                CallError::UnclosedParameter("a".to_owned()),
                "unclosed step3 parameter",
            ),
            (CallError::StrayInInvoke, "stray text in step3 invoke"),
            (CallError::UnclosedInvoke, "unclosed step3 invoke"),
        ] {
            assert!(error.to_string().starts_with(phrase), "{error}");
        }
    }
}
