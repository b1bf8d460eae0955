//! What one complete invoke block means (`specs/dialects/minimax-m3.md` MX1.6–MX1.10, MX1.16
//! and MX3.1–MX3.14): its name, its elements, read into the arguments and typed by walking
//! down the tool's schema; or the first reason, read left to right, why it is invalid (its
//! errors table, MX5.1).
//!
//! The block is complete: it runs from `NS<invoke` through the first `NS</invoke>` after it
//! (the kit found where). Elements nest, so they are read with a stack of the open ones (no
//! recursion), at most [`json::MAX_DEPTH`] deep: the call's input and each container are a
//! level of arrays and objects (`specs/streaming.md` C8.2). Every search starts where the last
//! one stopped, so the block is read in one pass.

use std::collections::HashMap;

use serde_json::{Map, Value};
use thiserror::Error;

use super::{INVOKE_CLOSER, INVOKE_OPENER, NS};
use crate::dialect::json;
use crate::dialect::typed::{integer, number, trim};
use crate::event::ToolCall;
use crate::tools::Registry;

/// Why an invoke block is not a call; each message starts with the fixed phrase of
/// `specs/dialects/minimax-m3.md` §5.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum InvokeError {
    /// Still open at the end of the stream (MX1.15, `specs/streaming.md` C4).
    #[error("unterminated minimax invoke")]
    Unterminated,
    /// Ended by `NS</tool_call>`: no `NS</invoke>` (MX1.5).
    #[error("unclosed minimax invoke")]
    Unclosed,
    /// The tag is not `NS<invoke name="NAME">` (MX1.6).
    #[error("malformed minimax invoke tag")]
    InvokeTag,
    /// A body byte outside the elements that is neither a blank nor an element's start (MX1.7).
    #[error("stray text in minimax invoke")]
    StrayText,
    /// An element tag with an empty key, or with no `>` before the end of the body (MX1.8).
    #[error("malformed minimax element tag")]
    ElementTag,
    /// This element has no closer before the end of the body (MX1.9 d).
    #[error("unclosed minimax element {0:?}")]
    UnclosedElement(String),
    /// In this element, a closer with another key (MX1.9 c).
    #[error("mismatched minimax closing tag in element {0:?}")]
    Mismatched(String),
    /// In an element, the namespace token not followed by `<` (MX1.9 c).
    #[error("stray minimax namespace token")]
    StrayNamespace,
    /// A byte other than a blank beside this container's children (MX1.10).
    #[error("stray text in minimax element {0:?}")]
    StrayElementText(String),
    /// An element nested in [`json::MAX_DEPTH`] others (MX1.16).
    #[error("minimax elements nested too deep")]
    TooDeep,
}

/// Blanks (`specs/dialects/minimax-m3.md`, before §1).
fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn all_blank(text: &str) -> bool {
    text.bytes().all(is_blank)
}

/// The call of the complete block `block` (from `NS<invoke` through `NS</invoke>`), with id
/// `generated_id` (the format has no ids, `specs/streaming.md` C7).
pub(super) fn read(
    block: &str,
    tools: &Registry,
    generated_id: String,
) -> Result<ToolCall, InvokeError> {
    let inner = block
        .strip_prefix(INVOKE_OPENER)
        .and_then(|rest| rest.strip_suffix(INVOKE_CLOSER))
        .unwrap_or_default();
    // (1) The invoke tag, up to its first `>`.
    let end = inner.find('>').ok_or(InvokeError::InvokeTag)? + 1;
    let (tag, body) = inner.split_at(end);
    let name = tag
        .strip_prefix(" name=\"")
        .and_then(|rest| rest.strip_suffix("\">"))
        .filter(|name| !name.is_empty() && !name.contains('"'))
        .ok_or(InvokeError::InvokeTag)?;
    // MX3.3: a top-level element's node is `properties.KEY` of the tool's input schema.
    let properties = tools
        .get(name)
        .and_then(|tool| tool.input_schema.get("properties"));
    let mut input = Entries::default();
    let mut at = 0;
    loop {
        // (2) Blanks, then an element or the end of the body.
        at += body[at..].bytes().take_while(|&b| is_blank(b)).count();
        if at == body.len() {
            break;
        }
        if !opens_element(&body[at..]) {
            // (3) Anything else.
            return Err(InvokeError::StrayText);
        }
        let (key, value, end) = element(body, at, |key| properties?.get(key))?;
        input.push(key, value);
        at = end;
    }
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name.to_owned(),
        input: input.into_object(),
        extra: Map::new(),
    })
}

/// Whether `text` starts an element (MX1.8): `NS<` and a byte other than `/`.
fn opens_element(text: &str) -> bool {
    text.strip_prefix(NS)
        .and_then(|rest| rest.strip_prefix('<'))
        .and_then(|rest| rest.bytes().next())
        .is_some_and(|b| b != b'/')
}

/// The element tag at `at` of `body` (`NS<KEY>`, MX1.8): its KEY and where its content starts.
fn tag(body: &str, at: usize) -> Result<(&str, usize), InvokeError> {
    let key_start = at + NS.len() + 1;
    let rest = body.get(key_start..).unwrap_or_default();
    let key_len = rest.find('>').ok_or(InvokeError::ElementTag)?;
    if key_len == 0 {
        return Err(InvokeError::ElementTag);
    }
    Ok((&rest[..key_len], key_start + key_len + 1))
}

/// An element still open: its key, its schema node, where its content starts, and its
/// children read so far.
struct Open<'b, 'r> {
    key: &'b str,
    node: Option<&'r Value>,
    start: usize,
    children: Vec<(&'b str, Value)>,
}

/// The element whose tag starts at `at` of `body` (MX1.8, MX1.9), its schema node found by
/// `node` from its key: its key, its value (MX3.4, MX3.5), and where it ends.
fn element<'b, 'r>(
    body: &'b str,
    at: usize,
    node: impl FnOnce(&str) -> Option<&'r Value>,
) -> Result<(&'b str, Value, usize), InvokeError> {
    let (key, start) = tag(body, at)?;
    let mut stack = vec![Open {
        key,
        node: node(key),
        start,
        children: Vec::new(),
    }];
    // Where the text not read yet starts: after the innermost open tag, or the last child.
    let mut cursor = start;
    while let Some(open) = stack.last() {
        let found = body[cursor..].find(NS).map(|at| cursor + at);
        let between = &body[cursor..found.unwrap_or(body.len())];
        let after = found.map_or("", |at| &body[at + NS.len()..]);
        let opens_child = found.is_some_and(|at| opens_element(&body[at..]));
        // MX1.10: a container holds elements and blanks only, read left to right.
        if (opens_child || !open.children.is_empty()) && !all_blank(between) {
            return Err(InvokeError::StrayElementText(open.key.to_owned()));
        }
        // (d) No token before the end of the body.
        let Some(found) = found else {
            return Err(InvokeError::UnclosedElement(open.key.to_owned()));
        };
        if opens_child {
            // (b) A child, one level deeper.
            if stack.len() >= json::MAX_DEPTH {
                return Err(InvokeError::TooDeep);
            }
            let (key, start) = tag(body, found)?;
            let node = child_node(open.node, key);
            stack.push(Open {
                key,
                node,
                start,
                children: Vec::new(),
            });
            cursor = start;
            continue;
        }
        let closes = after
            .strip_prefix("</")
            .and_then(|rest| rest.strip_prefix(open.key))
            .is_some_and(|rest| rest.starts_with('>'));
        if !closes {
            // (c) Any other token: a closer of another key, `NS<` with nothing after it in the
            // body, or the token alone.
            return Err(if after.starts_with("</") {
                InvokeError::Mismatched(open.key.to_owned())
            } else if after.starts_with('<') {
                InvokeError::ElementTag
            } else {
                InvokeError::StrayNamespace
            });
        }
        // (a) Its closer.
        let end = found + NS.len() + "</".len() + open.key.len() + ">".len();
        // The call's input is the first level; this element's value is one deeper than it.
        let level = stack.len() + 1;
        let Some(open) = stack.pop() else { break };
        let value = if open.children.is_empty() {
            leaf(&body[open.start..found], open.node, level)
        } else {
            container(open.children, open.node)
        };
        match stack.last_mut() {
            Some(parent) => parent.children.push((open.key, value)),
            None => return Ok((open.key, value, end)),
        }
        cursor = end;
    }
    // The loop returns when the outermost element closes.
    Err(InvokeError::UnclosedElement(key.to_owned()))
}

/// MX3.3: a node's declared type: its `type` when a string; when an array of strings, its
/// first entry other than `null` (`null` when it has no other).
fn declared_type(node: &Value) -> Option<&str> {
    match node.get("type")? {
        Value::String(kind) => Some(kind),
        Value::Array(kinds) => {
            let mut kinds = kinds.iter().filter_map(Value::as_str).peekable();
            let first = *kinds.peek()?;
            Some(kinds.find(|kind| *kind != "null").unwrap_or(first))
        }
        _ => None,
    }
}

/// MX3.3: the node of a child `key` of a container whose node is `parent`: its `items` under
/// an `array`, else `properties.KEY`; none under an untyped container.
fn child_node<'r>(parent: Option<&'r Value>, key: &str) -> Option<&'r Value> {
    let parent = parent?;
    if declared_type(parent) == Some("array") {
        parent.get("items")
    } else {
        parent.get("properties")?.get(key)
    }
}

/// MX3.4: a container's value from its children: an array of their values under an `array`,
/// else an object of them by key (MX3.2: a repeated key has the array of its values).
fn container(children: Vec<(&str, Value)>, node: Option<&Value>) -> Value {
    if node.and_then(declared_type) == Some("array") {
        return Value::Array(children.into_iter().map(|(_, value)| value).collect());
    }
    let mut entries = Entries::default();
    for (key, value) in children {
        entries.push(key, value);
    }
    entries.into_object()
}

/// An object's entries in the order of their keys' first elements, each key with every value
/// it was given (MX3.2).
#[derive(Default)]
struct Entries<'b> {
    entries: Vec<(&'b str, Vec<Value>)>,
    index: HashMap<&'b str, usize>,
}

impl<'b> Entries<'b> {
    fn push(&mut self, key: &'b str, value: Value) {
        match self.index.get(key) {
            Some(&i) => self.entries[i].1.push(value),
            None => {
                self.index.insert(key, self.entries.len());
                self.entries.push((key, vec![value]));
            }
        }
    }

    fn into_object(self) -> Value {
        let mut object = Map::new();
        for (key, mut values) in self.entries {
            let value = if values.len() == 1 {
                values.pop().unwrap_or_default()
            } else {
                Value::Array(values)
            };
            object.insert(key.to_owned(), value);
        }
        Value::Object(object)
    }
}

/// MX3.5's table: a leaf's `value` as the `input` value its schema `node` gives it; `level`
/// is where a JSON value it holds would stand (the call's input is level 1, C8.2). Only a
/// conversion reads the trimmed value; a string keeps every byte (MX3.12).
fn leaf(value: &str, node: Option<&Value>, level: usize) -> Value {
    let trimmed = trim(value);
    let converted = match node.and_then(declared_type) {
        Some("integer") => integer(trimmed),
        Some("number") => number(trimmed),
        Some("boolean") => boolean(trimmed),
        // MX3.11: the template's empty mapping and list.
        Some("object") if trimmed.is_empty() => Some(Value::Object(Map::new())),
        Some("array") if trimmed.is_empty() => Some(Value::Array(Vec::new())),
        // MX3.10: JSON itself allows the blanks around a value.
        Some("object" | "array") => json::value_at_level(value, level).ok(),
        // MX3.7: only a `null` leaf reads `null`.
        Some("null") if trimmed.eq_ignore_ascii_case("null") => Some(Value::Null),
        _ => None,
    };
    converted.unwrap_or_else(|| Value::String(value.to_owned()))
}

/// MX3.9: `true`, `1`, `false`, `0` (any case); anything else does not convert.
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

    /// `s` with `NS` standing for the namespace token.
    fn ns(s: &str) -> String {
        s.replace("NS", NS)
    }

    fn input(body: &str) -> Result<Value, InvokeError> {
        let block = ns(&format!("NS<invoke name=\"f\">{body}NS</invoke>"));
        read(&block, &Registry::default(), "tool-call-1".to_owned()).map(|call| call.input)
    }

    fn typed(value: &str, node: Value) -> Value {
        leaf(value, Some(&node), 2)
    }

    #[test]
    fn typing_reads_the_trimmed_value_and_keeps_strings_verbatim() {
        assert_eq!(leaf(" 7 ", None, 2), json!(" 7 "));
        assert_eq!(typed(" null ", json!({"type": "string"})), json!(" null "));
        assert_eq!(typed(" Null\n", json!({"type": "null"})), Value::Null);
        assert_eq!(typed("null", json!({"type": ["null"]})), Value::Null);
        assert_eq!(
            typed("null", json!({"type": ["null", "integer"]})),
            json!("null")
        );
        assert_eq!(typed("7", json!({"type": ["null", "integer"]})), json!(7));
        assert_eq!(typed("\t7\n", json!({"type": "integer"})), json!(7));
        assert_eq!(typed("4.0", json!({"type": "integer"})), json!("4.0"));
        assert_eq!(typed("TRUE", json!({"type": "boolean"})), json!(true));
        assert_eq!(typed(" 0", json!({"type": "boolean"})), json!(false));
        assert_eq!(typed("yes", json!({"type": "boolean"})), json!("yes"));
        assert_eq!(typed(" [1] ", json!({"type": "array"})), json!([1]));
        assert_eq!(typed(" \n", json!({"type": "array"})), json!([]));
        assert_eq!(typed("", json!({"type": "object"})), json!({}));
        assert_eq!(typed("['a']", json!({"type": "array"})), json!("['a']"));
        assert_eq!(typed("1", json!({"type": "null"})), json!("1"));
        assert_eq!(
            typed("x", json!({"anyOf": [{"type": "integer"}]})),
            json!("x")
        );
    }

    #[test]
    fn tags_are_the_templates_byte_for_byte() {
        assert_eq!(input("NS<a>x NS</a>"), Ok(json!({"a": "x "})));
        assert_eq!(input(" NS< a >xNS</ a >\n"), Ok(json!({" a ": "x"})));
        assert_eq!(input(""), Ok(json!({})));
        for tag in [
            "NS<invoke name=\"\">",
            "NS<invoke  name=\"f\">",
            "NS<invoke name=\"f\" >",
            "NS<invoke name='f'>",
            "NS<invoke name=f>",
            "NS<invoke name=\"a\"b\">",
            "NS<invoke>",
            "NS<invoke name=\"f\"",
        ] {
            let block = ns(&format!("{tag}NS</invoke>"));
            let read = read(&block, &Registry::default(), "tool-call-1".to_owned());
            assert_eq!(read.map(|_| ()), Err(InvokeError::InvokeTag), "{tag}");
        }
        assert_eq!(input("NS<>xNS</>"), Err(InvokeError::ElementTag));
        assert_eq!(input("NS<a"), Err(InvokeError::ElementTag));
        assert_eq!(input("NS<a>NS<bx"), Err(InvokeError::ElementTag));
    }

    #[test]
    fn the_first_failure_names_the_error() {
        let stray_in = |key: &str| Err(InvokeError::StrayElementText(key.to_owned()));
        assert_eq!(input("x NS<a>1NS</a>"), Err(InvokeError::StrayText));
        assert_eq!(input("NS<a>1NS</a>x"), Err(InvokeError::StrayText));
        assert_eq!(input("NS</a>"), Err(InvokeError::StrayText));
        assert_eq!(input("NS"), Err(InvokeError::StrayText));
        assert_eq!(input("NS<"), Err(InvokeError::StrayText));
        assert_eq!(input("{\"a\": 1}"), Err(InvokeError::StrayText));
        assert_eq!(
            input("NS<a>1"),
            Err(InvokeError::UnclosedElement("a".to_owned()))
        );
        assert_eq!(
            input("NS<a>NS<b>1NS</b>"),
            Err(InvokeError::UnclosedElement("a".to_owned()))
        );
        assert_eq!(
            input("NS<a>1NS</b>"),
            Err(InvokeError::Mismatched("a".to_owned()))
        );
        assert_eq!(
            input("NS<a>1NS</a"),
            Err(InvokeError::Mismatched("a".to_owned()))
        );
        assert_eq!(input("NS<a>1NS"), Err(InvokeError::StrayNamespace));
        assert_eq!(input("NS<a>1NS2NS</a>"), Err(InvokeError::StrayNamespace));
        // `NS<` with nothing after it in the body: the tag of no element.
        assert_eq!(input("NS<a>1NS<"), Err(InvokeError::ElementTag));
        // Beside children, left to right: the text before a child, between, after the last.
        assert_eq!(input("NS<a>x NS<b>1NS</b>NS</a>"), stray_in("a"));
        assert_eq!(
            input("NS<a>NS<b>1NS</b> x NS<c>2NS</c>NS</a>"),
            stray_in("a")
        );
        assert_eq!(input("NS<a>NS<b>1NS</b> x NS</c>"), stray_in("a"));
        assert_eq!(input("NS<a>NS<b>1NS</b> x"), stray_in("a"));
        assert_eq!(input("NS<a>NS<b>1NS</b> x NS"), stray_in("a"));
        assert_eq!(
            input("NS<a>NS<b>1NS</b>NS</c>"),
            Err(InvokeError::Mismatched("a".to_owned()))
        );
    }

    #[test]
    fn containers_nest_and_repeated_keys_collect() {
        assert_eq!(
            input("NS<a>\n NS<b>1NS</b>\nNS<c>NS<d>2NS</d>NS</c>NS<b>3NS</b> NS</a>NS<e>NS</e>"),
            Ok(json!({"a": {"b": ["1", "3"], "c": {"d": "2"}}, "e": ""}))
        );
        // Untyped `<item>`s are an object (MX3.4).
        assert_eq!(
            input("NS<l>NS<item>x</item>NS</item>NS</l>"),
            Ok(json!({"l": {"item": "x</item>"}}))
        );
    }

    #[test]
    fn typing_walks_down_the_schema() {
        let schema = json!({
            "type": "object",
            "properties": {
                "list": {"type": "array", "items": {"type": "integer"}},
                "obj": {"type": "object", "properties": {
                    "n": {"type": "number"},
                    "inner": {"type": ["null", "array"], "items": {"type": "boolean"}},
                }},
                "n": {"type": "integer"},
            }
        });
        let item = |text: &str| ns(&format!("NS<item>{text}NS</item>"));
        let body = ns(&format!(
            "NS<list>{}{}NS</list>NS<obj>NS<n>0.5NS</n>NS<inner>NS<x>trueNS</x>NS<y>0NS</y>NS</inner>NS<n>2NS</n>NS</obj>NS<n>NS<k>1NS</k>NS</n>",
            item("1"),
            item("x")
        ));
        let mut values = Map::new();
        let properties = schema.get("properties");
        let mut at = 0;
        while at < body.len() {
            let (key, value, end) =
                element(&body, at, |key| properties?.get(key)).expect("valid elements");
            values.insert(key.to_owned(), value);
            at = end;
        }
        assert_eq!(
            Value::Object(values),
            json!({
                "list": [1, "x"],
                "obj": {"n": [0.5, 2], "inner": [true, false]},
                // A container whose node is a scalar type is an object of untyped children.
                "n": {"k": "1"},
            })
        );
    }

    #[test]
    fn elements_nest_as_deep_as_a_calls_json() {
        // C8.2: the input and 125 containers are 126 levels, and the innermost element a leaf.
        let nested =
            |elements: usize| format!("{}x{}", "NS<a>".repeat(elements), "NS</a>".repeat(elements));
        let deepest = input(&nested(json::MAX_DEPTH)).expect("126 elements deep");
        let mut value = &deepest;
        for _ in 0..json::MAX_DEPTH {
            value = &value["a"];
        }
        assert_eq!(value, &json!("x"));
        assert_eq!(
            input(&nested(json::MAX_DEPTH + 1)),
            Err(InvokeError::TooDeep)
        );
        // A JSON leaf counts the levels of the elements above it.
        let schema = json!({"type": "array"});
        let deep = |levels: usize| format!("{}{}", "[".repeat(levels), "]".repeat(levels));
        assert!(leaf(&deep(126 - 3), Some(&schema), 4).is_array());
        assert!(leaf(&deep(126 - 2), Some(&schema), 4).is_string());
    }
}
