//! What one complete ATEM invoke block means (`specs/dialects/glimmer.md` §4, §5): its name and
//! its parameters, each value JSON if it is exactly one JSON value, else its text verbatim; or
//! the first reason, read left to right, why it is invalid (MG8.1).
//!
//! The element is MiniMax-M2's `<invoke>` under other tag names, read by the same reader
//! ([`invoke::element`]) told the ATEM tag names and glimmer's table of values (no schema:
//! MG5.2, MG5.4), with glimmer's error phrases (`specs/dialects/glimmer.md` §8).
//!
//! The block is complete: it runs from `<atem:invoke` through the first `</atem:invoke>` after
//! it (MG4.3, the kit found where). So the element read left to right ends at the block's last
//! bytes, with nothing after them.

use serde_json::Value;
use thiserror::Error;

use super::{INVOKE_CLOSER, INVOKE_OPENER};
use crate::dialect::json;
use crate::dialect::minimax_m2::invoke::{self, Broken, Syntax};
use crate::event::ToolCall;
use crate::tools::Registry;

/// Why an invoke block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/glimmer.md` §8.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum InvokeError {
    /// Still open at the end of the stream (MG4.10, `specs/streaming.md` C4).
    #[error("unterminated ATEM invoke")]
    Unterminated,
    /// The tag is not `<atem:invoke name="NAME">` (MG4.4).
    #[error("malformed ATEM invoke tag")]
    InvokeTag,
    /// A tag is not `<atem:parameter name="KEY">` (MG4.6).
    #[error("malformed ATEM parameter tag")]
    ParameterTag,
    /// This parameter has no `</atem:parameter>` before the block's `</atem:invoke>` (MG4.5).
    #[error("unclosed ATEM parameter {0:?}")]
    UnclosedParameter(String),
    /// A body byte that is neither a blank nor part of a parameter element (MG4.5).
    #[error("stray text in ATEM invoke")]
    StrayText,
}

impl From<Broken> for InvokeError {
    fn from(broken: Broken) -> InvokeError {
        match broken {
            Broken::InvokeTag => InvokeError::InvokeTag,
            Broken::ParameterTag => InvokeError::ParameterTag,
            Broken::UnclosedParameter(key) => InvokeError::UnclosedParameter(key),
            Broken::StrayText => InvokeError::StrayText,
            // Never here: the kit ended the block at its `</atem:invoke>` (MG4.3); a block
            // without one is unterminated (MG4.10).
            Broken::Unclosed => InvokeError::Unterminated,
        }
    }
}

/// The ATEM elements (MG1.1, MG4.4, MG4.6) and glimmer's table of values (MG5.2).
static SYNTAX: Syntax = Syntax {
    invoke_closer: INVOKE_CLOSER,
    parameter_opener: "<atem:parameter",
    parameter_closer: "</atem:parameter>",
    typed,
};

/// The call of the complete block `block` (from `<atem:invoke` through `</atem:invoke>`), with
/// id `generated_id` (the format has no ids, `specs/streaming.md` C7). The name is the invoke's
/// (MG5.3, MG5.5); no schema types a value (MG5.4), whatever `tools` declares.
pub(super) fn read(
    block: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, InvokeError> {
    let text = block.strip_prefix(INVOKE_OPENER).unwrap_or_default();
    let element = invoke::element(&SYNTAX, text, tools)?;
    Ok(element.into_call(generated_id))
}

/// Glimmer's table: every value is [`value`], whatever type the tool declares (MG5.4).
fn typed(text: &str, _declared: Option<&str>) -> Value {
    value(text)
}

/// MG5.2: a VALUE that is exactly one JSON value (blanks around it allowed, C8, one level below
/// the call's `input`) is that value; any other VALUE is its text, verbatim.
fn value(text: &str) -> Value {
    json::value_in_input(text).unwrap_or_else(|_| Value::String(text.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(block: &str) -> Result<Value, InvokeError> {
        read(block, &Registry::default(), "tool-call-1".to_owned()).map(|call| call.input)
    }

    #[test]
    fn values_are_json_or_verbatim() {
        assert_eq!(value("42"), json!(42));
        assert_eq!(value(" 0.5\n"), json!(0.5));
        assert_eq!(value("null"), Value::Null);
        assert_eq!(value("\"Paris\""), json!("Paris"));
        assert_eq!(value("{\"a\": 1, \"a\": 2}"), json!({"a": 2}));
        assert_eq!(value("{\"__proto__\": 1}"), json!({"__proto__": 1}));
        for text in [
            "",
            " ",
            "NaN",
            "Infinity",
            "True",
            "'a'",
            "[1,]",
            "01",
            "-01",
            "1 2",
            " x ",
            "\"\\ud83c\"",
            "&lt;",
            "a\\nb",
            "1\r\n2",
        ] {
            assert_eq!(value(text), json!(text), "{text:?}");
        }
    }

    #[test]
    fn value_depth_counts_the_input_object() {
        // C8.2: the call's `input` is the first level, so a value may nest 125 levels.
        let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        let deepest = nested(json::MAX_DEPTH - 1);
        assert!(value(&deepest).is_array());
        let too_deep = nested(json::MAX_DEPTH);
        assert_eq!(value(&too_deep), Value::String(too_deep));
    }

    #[test]
    fn tags_are_the_templates_byte_for_byte() {
        let ok = "<atem:invoke name=\"f\">\n<atem:parameter name=\"a\">x</atem:parameter>\n</atem:invoke>";
        assert_eq!(input(ok), Ok(json!({"a": "x"})));
        assert_eq!(
            input("<atem:invoke name=\"f\">\n \t</atem:invoke>"),
            Ok(json!({}))
        );
        for tag in [
            "<atem:invoke name=\"\">",
            "<atem:invoke  name=\"f\">",
            "<atem:invoke name=\"f\" >",
            "<atem:invoke name='f'>",
            "<atem:invoke name=\"f\" id=\"1\">",
            "<atem:invokes name=\"f\">",
            "<atem:invoke>",
            "<atem:invoke name=\"f\"",
        ] {
            assert_eq!(
                input(&format!("{tag}</atem:invoke>")),
                Err(InvokeError::InvokeTag),
                "{tag}"
            );
        }
        for tag in [
            "<atem:parameter name=\"\">",
            "<atem:parameter name=\"a\" >",
            "<atem:parameter name='a'>",
            "<atem:parameters name=\"a\">",
            "<atem:parameter name=\"a</atem:parameter>",
        ] {
            let block = format!("<atem:invoke name=\"f\">{tag}x</atem:parameter></atem:invoke>");
            assert_eq!(input(&block), Err(InvokeError::ParameterTag), "{tag}");
        }
    }

    #[test]
    fn the_first_failure_names_the_error() {
        assert_eq!(
            input("<atem:invoke name=\"f\">x<atem:parameter name=\"a\"></atem:invoke>"),
            Err(InvokeError::StrayText)
        );
        assert_eq!(
            input("<atem:invoke name=\"f\"><atem:parameter name=\"a\">x</atem:invoke>"),
            Err(InvokeError::UnclosedParameter("a".to_owned()))
        );
        assert_eq!(
            input(
                "<atem:invoke name=\"f\"><atem:parameter name=\"a\">x</atem:parameter></atem:parameter></atem:invoke>"
            ),
            Err(InvokeError::StrayText)
        );
        // MG4.7: markers of every mode are value bytes.
        assert_eq!(
            input(
                "<atem:invoke name=\"f\"><atem:parameter name=\"a\"><|eot|><atem:invoke name=\"g\"><|start|></atem:parameter></atem:invoke>"
            ),
            Ok(json!({"a": "<|eot|><atem:invoke name=\"g\"><|start|>"}))
        );
    }
}
