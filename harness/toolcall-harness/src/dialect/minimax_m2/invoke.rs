//! What one complete invoke block means (`specs/dialects/minimax-m2.md` MM1.5–MM1.8, §3): its
//! name, its parameters, and their values typed by the tool's schema; or the first reason,
//! read left to right, why it is invalid (`specs/dialects/minimax-m2.md` §5, MM5.1).
//!
//! The block is complete: it runs from `<invoke` through the first `</invoke>` after it (the
//! kit found where). So the reading can use plain searches: a tag ends at its first `>`, a
//! value at its first `</parameter>`, exactly as the template writes them.
//!
//! The reading of the element itself ([`read_element`]) is shared with `glimmer`, whose ATEM
//! invokes are the same element under other tag names (`specs/dialects/glimmer.md` MG4.4–MG4.6,
//! MG8.1), with its own values: it takes the tags and the value reader as parameters.

use serde_json::{Map, Value};
use thiserror::Error;

use super::{INVOKE_CLOSER, INVOKE_OPENER};
use crate::dialect::json;
use crate::dialect::typed::{declared_type, integer, number, trim};
use crate::event::ToolCall;
use crate::tools::Registry;

/// Why an invoke block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/minimax-m2.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum InvokeError {
    /// Still open at the end of the stream (MM1.10, `specs/streaming.md` C4).
    #[error("unterminated minimax invoke")]
    Unterminated,
    /// Ended by `</minimax:tool_call>`: no `</invoke>` (MM1.4).
    #[error("unclosed minimax invoke")]
    Unclosed,
    /// The tag is not `<invoke name="NAME">` (MM1.5).
    #[error("malformed minimax invoke tag")]
    InvokeTag,
    /// A tag is not `<parameter name="KEY">` (MM1.7).
    #[error("malformed minimax parameter tag")]
    ParameterTag,
    /// This parameter has no `</parameter>` before the end of the body (MM1.7).
    #[error("unclosed minimax parameter {0:?}")]
    UnclosedParameter(String),
    /// A body byte that is neither a blank nor part of a parameter element (MM1.6).
    #[error("stray text in minimax invoke")]
    StrayText,
}

impl From<Malformed> for InvokeError {
    fn from(malformed: Malformed) -> InvokeError {
        match malformed {
            Malformed::InvokeTag => InvokeError::InvokeTag,
            Malformed::ParameterTag => InvokeError::ParameterTag,
            Malformed::UnclosedParameter(key) => InvokeError::UnclosedParameter(key),
            Malformed::StrayText => InvokeError::StrayText,
        }
    }
}

/// The tag names of an invoke element, as a dialect spells them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Tags {
    /// What opens the element, up to the blank before `name` (`<invoke`).
    pub(crate) invoke_opener: &'static str,
    /// What ends the element (`</invoke>`).
    pub(crate) invoke_closer: &'static str,
    /// What opens a parameter, up to the blank before `name` (`<parameter`).
    pub(crate) parameter_opener: &'static str,
    /// What ends a parameter's value (`</parameter>`).
    pub(crate) parameter_closer: &'static str,
}

/// MiniMax-M2's tags (MM1.5, MM1.7).
const TAGS: Tags = Tags {
    invoke_opener: INVOKE_OPENER,
    invoke_closer: INVOKE_CLOSER,
    parameter_opener: "<parameter",
    parameter_closer: "</parameter>",
};

/// Why an invoke element is not a call, in the order [`read_element`] looks (MM5.1); each
/// dialect words it in its own error type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Malformed {
    /// The invoke tag is not `OPENER name="NAME">`.
    InvokeTag,
    /// A parameter tag is not `OPENER name="KEY">`.
    ParameterTag,
    /// This parameter has no closer before the end of the body.
    UnclosedParameter(String),
    /// A body byte that is neither a blank nor part of a parameter element.
    StrayText,
}

/// Blanks (`specs/dialects/minimax-m2.md` §1).
const BLANKS: [char; 4] = [' ', '\t', '\r', '\n'];

/// The call of the complete block `block` (from `<invoke` through `</invoke>`), with id
/// `generated_id` (the format has no ids, `specs/streaming.md` C7).
pub(super) fn read(
    block: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, InvokeError> {
    let (name, input) = read_element(block, &TAGS, |name, key, value| {
        typed(value, declared_type(tools, name, key))
    })?;
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name.to_owned(),
        input: Value::Object(input),
        extra: Map::new(),
    })
}

/// The name and the arguments of the complete invoke element `block` (from its opener through
/// its closer) spelled with `tags`, each argument's value read by `value` (given the name,
/// the key and the value's text); or the first failure, read left to right (MM5.1): (1) the
/// invoke tag, up to its first `>`; (2) in the body, blanks skipped, each parameter element's
/// (a) tag, up to its first `>`, (b) value, up to its first closer; (3) any other byte. A key
/// given twice keeps its last value.
pub(crate) fn read_element<'a>(
    block: &'a str,
    tags: &Tags,
    mut value: impl FnMut(&str, &str, &str) -> Value,
) -> Result<(&'a str, Map<String, Value>), Malformed> {
    let inner = block
        .strip_prefix(tags.invoke_opener)
        .and_then(|rest| rest.strip_suffix(tags.invoke_closer))
        .unwrap_or_default();
    // (1) The invoke tag, up to its first `>`.
    let (tag, mut body) = split_tag(inner).ok_or(Malformed::InvokeTag)?;
    let name = quoted_name(tag).ok_or(Malformed::InvokeTag)?;
    let mut input = Map::new();
    loop {
        // (2) Blanks, then a parameter element or the end of the body.
        body = body.trim_start_matches(BLANKS);
        if body.is_empty() {
            break;
        }
        let Some(element) = body.strip_prefix(tags.parameter_opener) else {
            // (3) Anything else.
            return Err(Malformed::StrayText);
        };
        // (a) Its tag, up to its first `>`.
        let (tag, rest) = split_tag(element).ok_or(Malformed::ParameterTag)?;
        let key = quoted_name(tag).ok_or(Malformed::ParameterTag)?;
        // (b) Its value, up to the first closer: nothing else ends it (MM1.7).
        let value_end = rest
            .find(tags.parameter_closer)
            .ok_or_else(|| Malformed::UnclosedParameter(key.to_owned()))?;
        let (text, after) = rest.split_at(value_end);
        // MM3.1: a key given twice keeps its last value.
        input.insert(key.to_owned(), value(name, key, text));
        body = after
            .strip_prefix(tags.parameter_closer)
            .unwrap_or_default();
    }
    Ok((name, input))
}

/// A tag after its opener, through its first `>`, and what follows it.
fn split_tag(text: &str) -> Option<(&str, &str)> {
    let end = text.find('>')? + 1;
    Some(text.split_at(end))
}

/// MM1.5, MM1.7: a tag after its opener is exactly ` name="NAME">`, NAME one or more
/// characters none of which is `"` (nor `>`, which ends the tag).
fn quoted_name(tag: &str) -> Option<&str> {
    let name = tag.strip_prefix(" name=\"")?.strip_suffix("\">")?;
    (!name.is_empty() && !name.contains('"')).then_some(name)
}

/// MM3.2's table: `value` as the `input` value a parameter of `declared` type gets. Only a
/// conversion reads the trimmed value; a string keeps every byte (MM1.8).
fn typed(value: &str, declared: Option<&str>) -> Value {
    let trimmed = trim(value);
    if trimmed.eq_ignore_ascii_case("null") {
        return Value::Null;
    }
    let converted = match declared {
        Some("integer") => integer(trimmed),
        Some("number") => number(trimmed),
        Some("boolean") => boolean(trimmed),
        // JSON itself allows the blanks around a value.
        Some("object" | "array") => json::value_in_input(value).ok(),
        _ => None,
    };
    converted.unwrap_or_else(|| Value::String(value.to_owned()))
}

/// MM3.2: the booleans the readers that type by schema all agree on
/// (`specs/dialects/minimax-m2.md` §7, choice 4); anything else does not convert.
fn boolean(trimmed: &str) -> Option<Value> {
    if trimmed.eq_ignore_ascii_case("true") || trimmed == "1" {
        Some(Value::Bool(true))
    } else if trimmed.eq_ignore_ascii_case("false") || trimmed == "0" {
        Some(Value::Bool(false))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(block: &str) -> Result<Value, InvokeError> {
        read(block, &Registry::default(), "tool-call-1".to_owned()).map(|call| call.input)
    }

    #[test]
    fn typing_reads_the_trimmed_value_and_keeps_strings_verbatim() {
        assert_eq!(typed(" Null\n", Some("string")), Value::Null);
        assert_eq!(typed(" 7 ", None), json!(" 7 "));
        assert_eq!(typed("\t7\n", Some("integer")), json!(7));
        assert_eq!(typed("4.0", Some("integer")), json!("4.0"));
        assert_eq!(typed("TRUE", Some("boolean")), json!(true));
        assert_eq!(typed(" 0", Some("boolean")), json!(false));
        assert_eq!(typed("yes", Some("boolean")), json!("yes"));
        assert_eq!(typed(" [1] ", Some("array")), json!([1]));
        assert_eq!(typed("['a']", Some("array")), json!("['a']"));
        assert_eq!(typed("1", Some("null")), json!("1"));
    }

    #[test]
    fn tags_are_the_templates_byte_for_byte() {
        let ok = "<invoke name=\"f\">\n<parameter name=\"a\">x</parameter>\n</invoke>";
        assert_eq!(input(ok), Ok(json!({"a": "x"})));
        assert_eq!(input("<invoke name=\"f\"></invoke>"), Ok(json!({})));
        for tag in [
            "<invoke name=\"\">",
            "<invoke  name=\"f\">",
            "<invoke name=\"f\" >",
            "<invoke name='f'>",
            "<invoke name=f>",
            "<invoke name=\"a\"b\">",
            "<invoke>",
            "<invoke name=\"f\"",
        ] {
            assert_eq!(
                input(&format!("{tag}</invoke>")),
                Err(InvokeError::InvokeTag),
                "{tag}"
            );
        }
        for tag in [
            "<parameter name=\"\">",
            "<parameter name = \"a\">",
            "<parameter name=\"a\" >",
            "<parameter name='a'>",
            "<parameters name=\"a\">",
            "<parameter name=\"a</parameter>",
        ] {
            let block = format!("<invoke name=\"f\">{tag}x</parameter></invoke>");
            assert_eq!(input(&block), Err(InvokeError::ParameterTag), "{tag}");
        }
    }

    #[test]
    fn the_first_failure_names_the_error() {
        assert_eq!(
            input("<invoke name=\"f\">x<parameter name=\"a\"></invoke>"),
            Err(InvokeError::StrayText)
        );
        assert_eq!(
            input("<invoke name=\"f\"><parameter name=\"a\">x</invoke>"),
            Err(InvokeError::UnclosedParameter("a".to_owned()))
        );
        assert_eq!(
            input("<invoke name=\"f\"><parameter name=\"a\">x</parameter></parameter></invoke>"),
            Err(InvokeError::StrayText)
        );
    }

    #[test]
    fn value_depth_counts_the_input_object() {
        // C8.2: the call's `input` is the first level, so an `array` value may nest one level
        // less than a whole call may.
        let nested = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        let deepest = nested(json::MAX_DEPTH - 1);
        assert_eq!(typed(&deepest, Some("array")).as_str(), None);
        let too_deep = nested(json::MAX_DEPTH);
        assert_eq!(typed(&too_deep, Some("array")), Value::String(too_deep));
    }
}
