//! What one complete invoke block means (`specs/dialects/minimax-m2.md` MM1.5–MM1.8, §3): its
//! name, its parameters, and their values typed by the tool's schema; or the first reason,
//! read left to right, why it is invalid (`specs/dialects/minimax-m2.md` §5, MM5.1).
//!
//! The block is complete: it runs from `<invoke` through the first `</invoke>` after it (the
//! kit found where). So the reading can use plain searches: a tag ends at its first `>`, a
//! value at its first `</parameter>`, exactly as the template writes them.
//!
//! The reading of an invoke element ([`element`]) is shared with Step3's
//! `<steptml:invoke>` (`specs/dialects/step3.md` STP3.4–STP3.10), which spells the same
//! elements with a prefix, finds their end inside a larger block by reading left to right, and
//! types values by its own table, and with glimmer's `<atem:invoke>`
//! (`specs/dialects/glimmer.md` MG4.4–MG4.6, MG8.1), whose values are JSON or their text
//! whatever the schema says (MG5.2): [`Syntax`] says each of these.

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

impl From<Broken> for InvokeError {
    fn from(broken: Broken) -> InvokeError {
        match broken {
            Broken::InvokeTag => InvokeError::InvokeTag,
            Broken::ParameterTag => InvokeError::ParameterTag,
            Broken::UnclosedParameter(key) => InvokeError::UnclosedParameter(key),
            Broken::StrayText => InvokeError::StrayText,
            // Never here: the kit ended the block at its `</invoke>`.
            Broken::Unclosed => InvokeError::Unclosed,
        }
    }
}

/// MiniMax-M2's elements and its table of typed values.
static SYNTAX: Syntax = Syntax {
    invoke_closer: INVOKE_CLOSER,
    parameter_opener: "<parameter",
    parameter_closer: "</parameter>",
    typed,
};

/// Blanks (`specs/dialects/minimax-m2.md` §1, `specs/dialects/step3.md` §1).
pub(crate) const BLANKS: [char; 4] = [' ', '\t', '\r', '\n'];

/// The call of the complete block `block` (from `<invoke` through `</invoke>`), with id
/// `generated_id` (the format has no ids, `specs/streaming.md` C7).
pub(super) fn read(
    block: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, InvokeError> {
    // The block ends at its first `</invoke>` (MM1.4), so the element read left to right ends
    // there too, with nothing after it.
    let text = block.strip_prefix(INVOKE_OPENER).unwrap_or_default();
    let element = element(&SYNTAX, text, tools)?;
    Ok(element.into_call(generated_id))
}

/// How a dialect spells an invoke element after its opener (`<invoke`, `<steptml:invoke`,
/// `<atem:invoke`), and what its values mean.
#[derive(Debug)]
pub(crate) struct Syntax {
    /// Ends the element's body (`</invoke>`).
    pub(crate) invoke_closer: &'static str,
    /// Opens a parameter element (`<parameter`).
    pub(crate) parameter_opener: &'static str,
    /// Ends a parameter's value (`</parameter>`).
    pub(crate) parameter_closer: &'static str,
    /// The dialect's table: a VALUE as the `input` value a parameter of the declared type gets.
    pub(crate) typed: fn(&str, Option<&str>) -> Value,
}

/// Why the text of an invoke element is not one, before a dialect names it in its own words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Broken {
    /// The tag is not ` name="NAME">` after the opener.
    InvokeTag,
    /// A parameter tag is not ` name="KEY">` after its opener.
    ParameterTag,
    /// This parameter's closer does not come before the end of the text.
    UnclosedParameter(String),
    /// A body byte that is neither a blank nor part of a parameter element.
    StrayText,
    /// The body reached the end of the text without the invoke closer.
    Unclosed,
}

/// An invoke element, read: its name, its typed input, and the text after its closer.
#[derive(Debug)]
pub(crate) struct Element<'a> {
    pub(crate) name: &'a str,
    pub(crate) input: Map<String, Value>,
    pub(crate) after: &'a str,
}

impl Element<'_> {
    /// The element as a call with id `id` (neither format names ids).
    pub(crate) fn into_call(self, id: String) -> ToolCall {
        ToolCall {
            tool_call_id: id,
            tool_name: self.name.to_owned(),
            input: Value::Object(self.input),
            extra: Map::new(),
        }
    }
}

/// The invoke element that `text` (what follows the invoke opener) starts with, read left to
/// right (MM5.1, `specs/dialects/step3.md` STP3.10 (5)–(6)): (1) its tag, up to its first `>`;
/// (2) blanks, then its closer, which ends the body, or a parameter element, (a) its tag up to
/// its first `>`, (b) its value up to the first parameter closer (nothing else ends it); the
/// end of `text` leaves the body unclosed; (3) anything else is stray text.
pub(crate) fn element<'a>(
    syntax: &Syntax,
    text: &'a str,
    tools: &Registry,
) -> Result<Element<'a>, Broken> {
    // (1) The invoke tag, up to its first `>`.
    let (tag, mut body) = split_tag(text).ok_or(Broken::InvokeTag)?;
    let name = quoted_name(tag).ok_or(Broken::InvokeTag)?;
    let mut input = Map::new();
    loop {
        // (2) Blanks, then the closer or a parameter element.
        body = body.trim_start_matches(BLANKS);
        if let Some(after) = body.strip_prefix(syntax.invoke_closer) {
            return Ok(Element { name, input, after });
        }
        if body.is_empty() {
            return Err(Broken::Unclosed);
        }
        let Some(element) = body.strip_prefix(syntax.parameter_opener) else {
            // (3) Anything else.
            return Err(Broken::StrayText);
        };
        // (a) Its tag, up to its first `>`.
        let (tag, rest) = split_tag(element).ok_or(Broken::ParameterTag)?;
        let key = quoted_name(tag).ok_or(Broken::ParameterTag)?;
        // (b) Its value, up to the first closer: nothing else ends it (MM1.7).
        let value_end = rest
            .find(syntax.parameter_closer)
            .ok_or_else(|| Broken::UnclosedParameter(key.to_owned()))?;
        let (value, after) = rest.split_at(value_end);
        // MM3.1: a key given twice keeps its last value.
        input.insert(
            key.to_owned(),
            (syntax.typed)(value, declared_type(tools, name, key)),
        );
        body = after
            .strip_prefix(syntax.parameter_closer)
            .unwrap_or_default();
    }
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
