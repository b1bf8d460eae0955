//! What one complete `tool` fence means (`specs/dialects/md-fence.md` §4–§6): its info string,
//! its YAML body under budgets, and the events they give, or why the block is invalid.

use std::borrow::Cow;

use serde_json::{Map, Value};
use serde_saphyr::budget::BudgetBreach;
use thiserror::Error;

use crate::event::{Event, ToolCall};

/// Why a tool fence is not a valid call. Each message starts with the spec's fixed phrase.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum BlockError {
    /// The body is not valid YAML, or breaks F5.9–F5.12 (a float with no JSON form, several
    /// documents, duplicate keys, half a surrogate pair); the YAML parser's message.
    #[error("invalid YAML in tool block: {0}")]
    Yaml(String),
    /// Reading the body went over a budget (F6.1); the YAML parser's message.
    #[error("tool block YAML over budget: {0}")]
    OverBudget(String),
    /// The body is neither a mapping nor null (F5.1).
    #[error("tool block body is not a mapping")]
    NotMapping,
    /// A string field holds a sequence or a mapping (F5.4); the field.
    #[error("tool block field `{0}` must be a string, number or boolean")]
    FieldType(String),
    /// `input` is neither a mapping nor null (F5.6).
    #[error("tool block field `input` must be a mapping")]
    InputNotMapping,
    /// `state` is not one of the four states (F5.5); the state.
    #[error("unknown tool state \"{0}\"")]
    UnknownState(String),
    /// No closer before the end of the stream (F6.2).
    #[error("unterminated tool fence")]
    Unterminated,
}

const STATES: [&str; 4] = [
    "input-streaming",
    "input-available",
    "output-available",
    "output-error",
];

/// Body keys with a meaning; every other key goes to `extra` (F5.8).
const KNOWN_FIELDS: [&str; 9] = [
    "toolCallId",
    "id",
    "toolName",
    "name",
    "state",
    "input",
    "output",
    "errorText",
    "error",
];

/// The events of a complete tool fence, or why it is invalid. `generated_id` is the call's id
/// if neither body nor info string names one (`specs/streaming.md` C7).
pub(super) fn interpret(
    info: &str,
    body: &str,
    indent: usize,
    generated_id: String,
) -> Result<Vec<Event>, BlockError> {
    let info = Info::parse(info);
    let mut fields = match parse_yaml(&dedent(body, indent))? {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => return Err(BlockError::NotMapping),
    };
    // F6.3: every field's type first, in F5.4's order, then the state's value.
    let id = string_field(&fields, &["toolCallId", "id"])?;
    let name = string_field(&fields, &["toolName", "name"])?;
    let error_text = string_field(&fields, &["errorText", "error"])?;
    let state = string_field(&fields, &["state"])?;
    let input = match fields.remove("input") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(input @ Value::Object(_)) => input,
        Some(_) => return Err(BlockError::InputNotMapping),
    };
    if let Some(state) = &state
        && !STATES.contains(&state.as_str())
    {
        return Err(BlockError::UnknownState(state.clone()));
    }
    let tool_call_id = id.or(info.id).unwrap_or(generated_id);
    let tool_name = name.or(info.name).unwrap_or_else(|| "tool".to_owned());
    let output = fields.remove("output");
    fields.retain(|key, _| !KNOWN_FIELDS.contains(&key.as_str()));

    let mut events = vec![Event::ToolCall(ToolCall {
        tool_call_id: tool_call_id.clone(),
        tool_name: tool_name.clone(),
        input,
        extra: fields,
    })];
    if output.is_some() || state.as_deref() == Some("output-available") {
        events.push(Event::ToolResult {
            tool_call_id: tool_call_id.clone(),
            tool_name: tool_name.clone(),
            output: output.unwrap_or(Value::Null),
        });
    }
    if error_text.is_some() || state.as_deref() == Some("output-error") {
        events.push(Event::ToolError {
            tool_call_id,
            tool_name,
            error_text: error_text.unwrap_or_default(),
        });
    }
    Ok(events)
}

/// The name and id an info string gives (F4.1, F4.2).
#[derive(Debug, Default, PartialEq)]
struct Info {
    name: Option<String>,
    id: Option<String>,
}

impl Info {
    /// Parses the info string of a tool opener (its first word is `tool`).
    fn parse(info: &str) -> Info {
        let rest = info
            .trim_start_matches(is_blank)
            .strip_prefix("tool")
            .unwrap_or("");
        let mut positional = Vec::new();
        let (mut name, mut id) = (None, None);
        for token in (Tokens { rest }) {
            match token.split_once('=') {
                Some(("name", value)) => name = Some(unquote(value)),
                Some(("id", value)) => id = Some(unquote(value)),
                Some(_) => {}
                None => positional.push(unquote(token)),
            }
        }
        // An empty value counts as absent (F4.1).
        let (name, id) = (name.filter(|v| !v.is_empty()), id.filter(|v| !v.is_empty()));
        let mut positional = positional.into_iter().filter(|v| !v.is_empty());
        let (first, second) = (positional.next(), positional.next());
        Info {
            name: name.or(first),
            id: id.or(second),
        }
    }
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

/// Info-string tokens: blank-separated, where a quote (at a token's start or after `=`) runs
/// to the next same quote, blanks included.
struct Tokens<'a> {
    rest: &'a str,
}

impl<'a> Iterator for Tokens<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let text = self.rest.trim_start_matches(is_blank);
        if text.is_empty() {
            return None;
        }
        let mut end = text.len();
        let mut quote = None;
        for (i, c) in text.char_indices() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if is_blank(c) => {
                    end = i;
                    break;
                }
                None if (c == '"' || c == '\'') && (i == 0 || text[..i].ends_with('=')) => {
                    quote = Some(c);
                }
                None => {}
            }
        }
        self.rest = &text[end..];
        Some(&text[..end])
    }
}

/// A value without its quotes; an unclosed quote runs to the end (F4.1).
fn unquote(value: &str) -> String {
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote) {
            return inner.strip_suffix(quote).unwrap_or(inner).to_owned();
        }
    }
    value.to_owned()
}

/// The body with up to `indent` leading spaces removed from each line (F3.3).
fn dedent(body: &str, indent: usize) -> Cow<'_, str> {
    if indent == 0 {
        return Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let spaces = line.bytes().take(indent).take_while(|&b| b == b' ').count();
        out.push_str(&line[spaces..]);
    }
    Cow::Owned(out)
}

/// The first of `names` present and not null, as a string; every one of them must be a
/// scalar (F5.4).
fn string_field(fields: &Map<String, Value>, names: &[&str]) -> Result<Option<String>, BlockError> {
    let mut found = None;
    for &name in names {
        let value = match fields.get(name) {
            None | Some(Value::Null) => continue,
            Some(Value::String(s)) => s.clone(),
            Some(scalar @ (Value::Number(_) | Value::Bool(_))) => scalar.to_string(),
            Some(Value::Array(_) | Value::Object(_)) => {
                return Err(BlockError::FieldType(name.to_owned()));
            }
        };
        found.get_or_insert(value);
    }
    Ok(found)
}

/// YAML 1.2 core schema, one document, under budgets (F5.*, F6.1).
fn parse_yaml(body: &str) -> Result<Value, BlockError> {
    let options = serde_saphyr::options! {
        budget: serde_saphyr::budget! {
            max_documents: 1,
            max_events: 100_000,
            max_aliases: 1_000,
            max_anchors: 1_000,
            max_depth: 64,
        },
        strict_booleans: true,
    };
    serde_saphyr::from_str_with_options(body, options).map_err(|error| {
        let message = first_line(&error.to_string());
        match budget_breach(&error) {
            // More than one document is a YAML error in this dialect, not a resource problem.
            Some(BudgetBreach::Documents { .. }) | None => BlockError::Yaml(message),
            Some(_) => BlockError::OverBudget(message),
        }
    })
}

fn budget_breach(mut error: &serde_saphyr::Error) -> Option<&BudgetBreach> {
    loop {
        match error {
            serde_saphyr::Error::Budget { breach, .. } => return Some(breach),
            serde_saphyr::Error::WithSnippet { error: inner, .. }
            | serde_saphyr::Error::AliasError { error: inner, .. } => error = inner,
            _ => return None,
        }
    }
}

fn first_line(message: &str) -> String {
    let line = message.lines().next().unwrap_or("");
    line.strip_prefix("error: ").unwrap_or(line).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(name: Option<&str>, id: Option<&str>) -> Info {
        Info {
            name: name.map(str::to_owned),
            id: id.map(str::to_owned),
        }
    }

    #[test]
    fn info_string_forms() {
        assert_eq!(Info::parse("tool"), info(None, None));
        assert_eq!(
            Info::parse(" tool search call_1 extra"),
            info(Some("search"), Some("call_1"))
        );
        assert_eq!(
            Info::parse("tool name=search id=c"),
            info(Some("search"), Some("c"))
        );
        assert_eq!(
            Info::parse(r#"tool name="weather lookup" id='a b'"#),
            info(Some("weather lookup"), Some("a b"))
        );
        assert_eq!(
            Info::parse("tool pos1 pos2 name=named"),
            info(Some("named"), Some("pos2"))
        );
        assert_eq!(Info::parse("tool\tx\r"), info(Some("x"), None));
        assert_eq!(Info::parse(r#"tool name="open"#), info(Some("open"), None));
        assert_eq!(Info::parse("tool color=red x"), info(Some("x"), None));
        assert_eq!(
            Info::parse("tool x y name= id=\"\""),
            info(Some("x"), Some("y"))
        );
    }

    #[test]
    fn dedent_removes_at_most_the_opener_indent() {
        assert_eq!(dedent("  a: 1\n    b\nc\n", 2), "a: 1\n  b\nc\n");
        assert_eq!(dedent(" a\n", 3), "a\n");
    }

    #[test]
    fn yaml_is_core_schema() {
        assert_eq!(
            parse_yaml("a: no\nb: true\nc: ~\n"),
            Ok(serde_json::json!({"a": "no", "b": true, "c": null}))
        );
    }

    #[test]
    fn budgets_and_documents() {
        let bomb = "a: &a [1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n\
                    c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n\
                    e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n";
        assert!(
            matches!(parse_yaml(bomb), Err(BlockError::OverBudget(_))),
            "{:?}",
            parse_yaml(bomb)
        );
        assert!(matches!(
            parse_yaml("a: 1\n---\nb: 2\n"),
            Err(BlockError::Yaml(_))
        ));
        assert!(matches!(parse_yaml("a: .inf\n"), Err(BlockError::Yaml(_))));
    }
}
