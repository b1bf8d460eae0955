//! The request's options (`specs/protocol.md` §6): `tool_choice`, `parallel_tool_calls` and
//! `n` as a chat-completion request carries them, as a case's `NAME.request.json` and a
//! `begin` carry them, and what the reference does under each: a layer around a dialect's
//! parser, so that `dialect/` never sees the protocol.

use std::fmt;
use std::ops::Range;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use crate::event::Event;
use crate::parser::StreamParser;

/// An option a candidate declares in its hello's `options` (P6.1), by its request field's name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RequestOption {
    /// `tool_choice`: `auto`, `none`, `required`, or a named function (P6.3–P6.5).
    ToolChoice,
    /// `parallel_tool_calls`: `false` allows at most one call (P6.6).
    ParallelToolCalls,
    /// `n`: several choices of one request, kept apart (P6.7).
    N,
}

impl RequestOption {
    /// The request field's name.
    pub fn name(self) -> &'static str {
        match self {
            RequestOption::ToolChoice => "tool_choice",
            RequestOption::ParallelToolCalls => "parallel_tool_calls",
            RequestOption::N => "n",
        }
    }
}

impl fmt::Display for RequestOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `tool_choice`, as the OpenAI chat-completion request writes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ToolChoice {
    /// `"auto"`: the model decides; what every case without options is.
    #[default]
    Auto,
    /// `"none"`: no tool is called; the reply is a message (P6.3).
    None,
    /// `"required"`: at least one call (P6.4).
    Required,
    /// `{"type":"function","function":{"name":…}}`: this tool is called (P6.5).
    Named(String),
}

impl Serialize for ToolChoice {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            ToolChoice::Auto => serializer.serialize_str("auto"),
            ToolChoice::None => serializer.serialize_str("none"),
            ToolChoice::Required => serializer.serialize_str("required"),
            ToolChoice::Named(name) => {
                json!({"type": "function", "function": {"name": name}}).serialize(serializer)
            }
        }
    }
}

impl<'de> Deserialize<'de> for ToolChoice {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ToolChoice, D::Error> {
        let value = Value::deserialize(deserializer)?;
        match &value {
            Value::String(word) => match word.as_str() {
                "auto" => Ok(ToolChoice::Auto),
                "none" => Ok(ToolChoice::None),
                "required" => Ok(ToolChoice::Required),
                other => Err(D::Error::custom(format!(
                    "tool_choice \"{other}\" is none of auto, none, required"
                ))),
            },
            _ => match value.pointer("/function/name").and_then(Value::as_str) {
                Some(name) if value.get("type").and_then(Value::as_str) == Some("function") => {
                    Ok(ToolChoice::Named(name.to_owned()))
                }
                _ => Err(D::Error::custom(
                    "a named tool_choice is {\"type\":\"function\",\"function\":{\"name\":…}}",
                )),
            },
        }
    }
}

/// The options of one request: a case's `NAME.request.json`, and the fields `begin` carries
/// (P6.2). Absent fields read as the API's defaults: `auto`, `true`, 1.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RequestOptions {
    /// `tool_choice`; absent reads as `auto`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// `parallel_tool_calls`; absent reads as `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    /// `n`, the number of choices; absent reads as 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
}

impl RequestOptions {
    /// The options these fields set, which a candidate must declare to be sent them (P6.2).
    pub fn set(&self) -> Vec<RequestOption> {
        let mut set = Vec::new();
        if self.tool_choice.is_some() {
            set.push(RequestOption::ToolChoice);
        }
        if self.parallel_tool_calls.is_some() {
            set.push(RequestOption::ParallelToolCalls);
        }
        if self.n.is_some() {
            set.push(RequestOption::N);
        }
        set
    }

    /// The number of choices: `n`, at least 1.
    pub fn choices(&self) -> u32 {
        self.n.unwrap_or(1).max(1)
    }

    /// The reference for one choice under these options (`specs/protocol.md` P6.3–P6.6):
    /// `parser`, the dialect's reference, as the options leave it.
    pub fn reference(&self, parser: Box<dyn StreamParser>) -> Box<dyn StreamParser> {
        if self.tool_choice == Some(ToolChoice::None) {
            return Box::new(NoTools::default());
        }
        if self.parallel_tool_calls == Some(false) {
            return Box::new(FirstCallOnly {
                parser,
                first: None,
                calls: Vec::new(),
                markup: Vec::new(),
                seen: (0, 0),
                last: (None, None),
            });
        }
        parser
    }
}

/// `tool_choice: "none"` (P6.3): no tool parser runs, so the whole reply is text, released
/// as it comes. Reasoning is not read either: P6.3 judges `none` on replies without it.
#[derive(Default)]
struct NoTools {
    spans: Vec<Range<usize>>,
}

impl StreamParser for NoTools {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        if !chunk.is_empty() {
            out.push(Event::text(chunk));
        }
    }

    fn finish(&mut self, _out: &mut Vec<Event>) {}

    fn call_spans(&self) -> &[Range<usize>] {
        &self.spans
    }
}

/// `parallel_tool_calls: false` (P6.6): the dialect's parser, with every event of a call
/// after the first left out. A left-out call's bytes were read as a call, then not handed
/// on: they count as markup (neither text nor a call), so that text stays conserved.
struct FirstCallOnly {
    parser: Box<dyn StreamParser>,
    /// The first call's id, once seen.
    first: Option<String>,
    /// The first call's span, once the parser reports it.
    calls: Vec<Range<usize>>,
    /// The parser's markup spans, and the spans of the calls left out.
    markup: Vec<Range<usize>>,
    /// How many of the parser's call and markup spans are copied.
    seen: (usize, usize),
    /// Where the copies of the parser's last call span (`calls`, or `markup` when left out)
    /// and of its last markup span are: a parser's last span may still grow (adjacent markup
    /// merges into it), so those two are copied again.
    last: (Option<CopiedCall>, Option<usize>),
}

/// Where a copied call span is.
#[derive(Clone, Copy)]
enum CopiedCall {
    /// The first call's, in `calls`.
    Kept,
    /// A left-out call's, in `markup` at this index.
    LeftOut(usize),
}

impl FirstCallOnly {
    /// Copies the spans the parser reported since the last time, and its last ones again:
    /// amortised O(1) per span.
    fn sync_spans(&mut self) {
        let calls = self.parser.call_spans();
        match (self.last.0, calls.get(self.seen.0.wrapping_sub(1))) {
            (Some(CopiedCall::Kept), Some(span)) => self.calls[0] = span.clone(),
            (Some(CopiedCall::LeftOut(at)), Some(span)) => self.markup[at] = span.clone(),
            _ => {}
        }
        for span in calls.get(self.seen.0..).unwrap_or_default() {
            if self.calls.is_empty() {
                self.calls.push(span.clone());
                self.last.0 = Some(CopiedCall::Kept);
            } else {
                self.last.0 = Some(CopiedCall::LeftOut(self.markup.len()));
                self.markup.push(span.clone());
            }
        }
        self.seen.0 = calls.len();
        let markup = self.parser.markup_spans();
        if let (Some(at), Some(span)) = (self.last.1, markup.get(self.seen.1.wrapping_sub(1))) {
            self.markup[at] = span.clone();
        }
        for span in markup.get(self.seen.1..).unwrap_or_default() {
            self.last.1 = Some(self.markup.len());
            self.markup.push(span.clone());
        }
        self.seen.1 = markup.len();
    }

    fn keep(&mut self, events: Vec<Event>, out: &mut Vec<Event>) {
        self.sync_spans();
        for mut event in events {
            let kept = match event.call_id_mut() {
                Some(id) => *self.first.get_or_insert_with(|| id.clone()) == *id,
                None => true,
            };
            if kept {
                out.push(event);
            }
        }
    }
}

impl StreamParser for FirstCallOnly {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        let mut events = Vec::new();
        self.parser.push(chunk, &mut events);
        self.keep(events, out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        let mut events = Vec::new();
        self.parser.finish(&mut events);
        self.keep(events, out);
    }

    fn call_spans(&self) -> &[Range<usize>] {
        &self.calls
    }

    fn markup_spans(&self) -> &[Range<usize>] {
        &self.markup
    }

    fn prefill(&mut self, context: &str) {
        self.parser.prefill(context);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_choice_reads_and_writes_the_api_forms() {
        for (form, choice) in [
            (json!("auto"), ToolChoice::Auto),
            (json!("none"), ToolChoice::None),
            (json!("required"), ToolChoice::Required),
            (
                json!({"type": "function", "function": {"name": "get_weather"}}),
                ToolChoice::Named("get_weather".into()),
            ),
        ] {
            assert_eq!(
                serde_json::from_value::<ToolChoice>(form.clone()).ok(),
                Some(choice.clone())
            );
            assert_eq!(serde_json::to_value(&choice).ok(), Some(form));
        }
        assert!(serde_json::from_value::<ToolChoice>(json!("any")).is_err());
        assert!(serde_json::from_value::<ToolChoice>(json!({"name": "f"})).is_err());
    }

    #[test]
    fn a_request_file_sets_only_what_it_names() {
        let options: RequestOptions =
            serde_json::from_str(r#"{"parallel_tool_calls": false, "n": 2}"#).expect("reads");
        assert_eq!(
            options.set(),
            [RequestOption::ParallelToolCalls, RequestOption::N]
        );
        assert_eq!(options.choices(), 2);
        assert_eq!(RequestOptions::default().choices(), 1);
    }

    #[test]
    fn not_parallel_keeps_the_first_call_only() {
        let registry =
            std::sync::Arc::new(crate::definitions::bundled_registry().expect("the bundled tools"));
        let options = RequestOptions {
            parallel_tool_calls: Some(false),
            ..RequestOptions::default()
        };
        let mut parser =
            options.reference(crate::dialect::Dialect::Hermes.reference_parser(&registry, ""));
        let stream = "a<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>b<tool_call>{\"name\": \"g\", \"arguments\": {}}</tool_call>";
        let run = crate::parser::run(parser.as_mut(), [stream]);
        let names: Vec<&str> = run.events.iter().filter_map(Event::tool_name).collect();
        assert_eq!(names, ["f"]);
    }
}
