//! Candidate protocol v1 (`specs/protocol.md`): the messages between the harness and a parser
//! under test, and the reference's side of it (`server`). The harness's side is
//! [`crate::supervisor`].

pub mod lenient;
pub mod options;
pub mod server;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::definitions::Kind;
use crate::dialect::Dialect;
use crate::event::{Event, ReadError};
use crate::tools::Registry;
use crate::wire::Output;
pub use options::{RequestOption, RequestOptions, ToolChoice};

/// The protocol version `tch` speaks, in its `hello` and expected in the candidate's.
pub const PROTOCOL_VERSION: u32 = 1;

/// A request from the harness, one JSON line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "kebab-case")]
pub enum Request {
    /// Opens the session; answered by the candidate's `hello`.
    Hello {
        /// The protocol version the harness speaks.
        protocol: u32,
    },
    /// A stream begins; no reply.
    Begin(Begin),
    /// The next chunk of a stream; answered by the events it produced, then `sync`.
    Chunk {
        /// The stream's id.
        stream: String,
        /// The choice the chunk belongs to, of a stream begun with `n` > 1 (P6.7); absent
        /// reads as 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        choice: Option<u32>,
        /// The chunk's text.
        text: String,
    },
    /// A stream (or, with `choice`, one of its choices, P6.7) ends; answered by its remaining
    /// events, then `done`.
    End {
        /// The stream's id.
        stream: String,
        /// The choice that ends; absent reads as 0.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        choice: Option<u32>,
    },
    /// The whole reply of a begun stream at once, for the parser's non-streaming result
    /// (P2.11); answered by its events, then `done`. Sent only to a candidate whose hello
    /// says `"nonStreaming": true`.
    NonStreaming {
        /// The stream's id.
        stream: String,
        /// The whole reply's text.
        text: String,
    },
    /// A definition file to read (P2.5); answered by its contract or by an `error` event.
    Definition {
        /// What the file defines.
        kind: Kind,
        /// The file's text.
        text: String,
    },
    /// Ends the session: no reply; the candidate exits with status 0.
    Bye,
}

/// What `begin` tells a candidate about the stream that follows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Begin {
    /// The stream's id, opaque to the candidate (P2.3).
    pub stream: String,
    /// The stream's dialect, by name.
    pub dialect: String,
    /// The generation prompt the stream continues (P2.7, `specs/streaming.md` C9): `tch` always
    /// sends it (`""` for none); absent reads as the dialect's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefill: Option<String>,
    /// The registry in use (P2.2); absent reads as empty.
    #[serde(default)]
    pub tools: Vec<ToolInfo>,
    /// The request's options the case sets, sent only to a candidate that declares them
    /// (P6.2); absent fields read as the API's defaults.
    #[serde(flatten)]
    pub options: RequestOptions,
}

/// A tool as `begin` describes it to the candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolInfo {
    /// The tool's name.
    pub name: String,
    /// What the tool does; absent reads as `""`.
    #[serde(default)]
    pub description: String,
    /// The JSON Schema of the tool's input (`inputSchema`); absent reads as `{}`, the schema
    /// every input satisfies (P2.2).
    #[serde(default = "any_input")]
    pub input_schema: Value,
}

/// Whether `stream` holds `name` with no letter, digit or `_` right before or after it.
fn writes_word(stream: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    stream.match_indices(name).any(|(at, _)| {
        !word(stream[..at].chars().next_back()) && !word(stream[at + name.len()..].chars().next())
    })
}

/// `{}`: the JSON Schema every value satisfies.
fn any_input() -> Value {
    Value::Object(serde_json::Map::new())
}

impl ToolInfo {
    /// The tools of a registry.
    pub fn list(registry: &Registry) -> Vec<ToolInfo> {
        registry
            .tools()
            .iter()
            .map(|tool| ToolInfo {
                name: tool.name.clone(),
                description: tool.description.clone(),
                input_schema: tool.input_schema.clone(),
            })
            .collect()
    }

    /// The tools `begin` declares for a stream of `dialect` (P2.2): the registry's, then each
    /// tool the stream's expected events call, then each tool `dialect`'s corpus calls whose
    /// name the stream writes as a word (a malformed call's tool is still one the client
    /// offered); those the registry lacks with the schema every input satisfies. A client
    /// declares the tools its model calls: parsers that drop a call of an undeclared tool are
    /// judged on the stream, not on the registry.
    pub fn for_stream<'e>(
        registry: &Registry,
        dialect: Dialect,
        stream: &str,
        expected: impl IntoIterator<Item = &'e Event>,
    ) -> Vec<ToolInfo> {
        let mut tools = ToolInfo::list(registry);
        let written = crate::corpus::called_tools(dialect)
            .iter()
            .filter(|name| writes_word(stream, name))
            .map(String::as_str);
        for name in expected
            .into_iter()
            .filter_map(Event::tool_name)
            .chain(written)
        {
            if !tools.iter().any(|t| t.name == name) {
                tools.push(ToolInfo {
                    name: name.to_owned(),
                    description: String::new(),
                    input_schema: any_input(),
                });
            }
        }
        tools
    }
}

/// The candidate's answer to `hello`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Hello {
    /// The protocol version the candidate speaks; `tch` needs [`PROTOCOL_VERSION`].
    pub protocol: u32,
    /// The candidate's name, as it gives it; absent reads as `""`.
    #[serde(default)]
    pub name: String,
    /// The dialects it parses, by name (P2.4).
    pub dialects: Vec<String>,
    /// Whether it answers `definition` requests (P2.5); absent reads as `false`.
    #[serde(default)]
    pub definitions: bool,
    /// Whether it answers `non-streaming` requests with the parser's non-streaming result
    /// (P2.11); absent reads as `false`.
    #[serde(
        default,
        rename = "nonStreaming",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub non_streaming: bool,
    /// The dialects whose replies it always reads as starting inside reasoning, as their chat
    /// template's generation prompt always opens it (P2.9): streams whose prefill leaves
    /// reasoning closed are not sent, their cases are `n/a`. Absent reads as none.
    #[serde(
        default,
        rename = "startsInReasoning",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub starts_in_reasoning: Vec<String>,
    /// How to replay a stream through the parser without `tch` (P2.8): a program that reads
    /// one stream's inputs as JSON on stdin, which a bug folder holds once and each root
    /// cause's page runs (`report::bugs`); absent when the adapter gives none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<Reproduction>,
    /// What it answers `chunk` and `end` with (P5.1): events, or OpenAI chunks that `tch`
    /// reads as a client does and judges against `specs/wire.md`. Absent reads as events.
    #[serde(default, skip_serializing_if = "is_events")]
    pub output: Output,
    /// The request's options it honours (P6.1): only cases whose options it lists are sent
    /// to it, with them in `begin`. Absent reads as none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<RequestOption>,
}

fn is_events(output: &Output) -> bool {
    *output == Output::Events
}

/// A program that feeds one stream to the parser as the adapter does, without `tch` (P2.8):
/// it reads one JSON object on stdin, `{"dialect", "prefill", "chunks", "tools"}` (`tch`'s
/// dialect name, the `begin` prefill, the chunks in order, the `begin` tools), and prints what
/// the parser returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reproduction {
    /// The program's language, as a Markdown fence names it (`python`).
    pub language: String,
    /// The program's complete source text.
    pub program: String,
}

/// What an adapter that still gives the hello's `reproduction` in its first form, a template
/// with `{{DIALECT}}`-style placeholders, is told (P2.8): a template dropped in silence would
/// leave every bug page without its reproduction.
pub const REPRODUCTION_TEMPLATE_GONE: &str = "`reproduction.template` (a program with \
     {{DIALECT}}, {{PREFILL}}, {{CHUNKS}} and {{TOOLS}} placeholders) is no longer read: give \
     `reproduction.program`, the complete program, which reads {\"dialect\",\"prefill\",\
     \"chunks\",\"tools\"} as one JSON object on stdin (specs/protocol.md P2.8)";

/// One line from a candidate, read.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// `hello`: the answer to the `hello` request.
    Hello(Hello),
    /// `sync`: a chunk's events are complete.
    Sync,
    /// `done`: a stream's events are complete.
    Done,
    /// `definition`: the contract a `definition` request's file defines (the reply's `value`).
    Definition(Value),
    /// An event (an `error` event is also the error reply to a `definition` request).
    Event(Event),
    /// `text-start` / `text-end`: accepted, carries nothing.
    Nothing,
}

/// Why a candidate's line is not a protocol line.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReplyError {
    /// The line is not JSON as serde_json reads it (P1.2); its message.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// A `hello` reply with a field missing or of the wrong type; serde's message.
    #[error("bad hello: {0}")]
    BadHello(String),
    /// A `definition` reply with no `value`.
    #[error("definition reply without a \"value\"")]
    DefinitionWithoutValue,
    /// Any other line, which is not an event `tch` reads.
    #[error(transparent)]
    Event(#[from] ReadError),
}

impl Reply {
    /// Reads one line from a candidate: a `hello`, `sync`, `done` or `definition` reply by its
    /// `type`, else an event.
    pub fn parse(line: &str) -> Result<Reply, ReplyError> {
        let value: Value =
            serde_json::from_str(line).map_err(|e| ReplyError::NotJson(e.to_string()))?;
        match value.get("type").and_then(Value::as_str) {
            Some("hello") if value.pointer("/reproduction/template").is_some() => {
                Err(ReplyError::BadHello(REPRODUCTION_TEMPLATE_GONE.to_owned()))
            }
            Some("hello") => serde_json::from_value(value)
                .map(Reply::Hello)
                .map_err(|e| ReplyError::BadHello(e.to_string())),
            Some("sync") => Ok(Reply::Sync),
            Some("done") => Ok(Reply::Done),
            Some("definition") => match value {
                Value::Object(mut object) => object
                    .remove("value")
                    .map(Reply::Definition)
                    .ok_or(ReplyError::DefinitionWithoutValue),
                _ => Err(ReplyError::DefinitionWithoutValue),
            },
            _ => Ok(Event::read(value)?.map_or(Reply::Nothing, Reply::Event)),
        }
    }
}

/// A control line as `tch serve` writes it.
pub fn control_line(kind: &str) -> String {
    format!("{{\"type\":\"{kind}\"}}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_declares_the_registry_the_calls_and_the_tools_a_stream_writes() {
        let registry = crate::definitions::bundled_registry().expect("the bundled tools");
        let names = |tools: Vec<ToolInfo>| -> Vec<String> {
            tools
                .into_iter()
                .skip(registry.tools().len())
                .map(|t| t.name)
                .collect()
        };
        // A malformed call calls nothing, yet its tool is one the client offered.
        let malformed = r#"<tool_call>{"name": "get_weather", "arguments": [1]}</tool_call>"#;
        assert_eq!(
            names(ToolInfo::for_stream(
                &registry,
                Dialect::Hermes,
                malformed,
                []
            )),
            ["get_weather"]
        );
        // Whole words only; and only names the dialect's corpus calls.
        let prose = "forget_weather, get_weathers and get_time_zone; deep. but not 天気予報";
        assert_eq!(
            names(ToolInfo::for_stream(&registry, Dialect::Hermes, prose, [])),
            ["deep"]
        );
        let called = Event::call("c", "fresh_tool", serde_json::json!({}));
        let tools = ToolInfo::for_stream(&registry, Dialect::Hermes, "", [&called]);
        assert_eq!(tools[0].name, registry.tools()[0].name);
        let fresh = tools.last().expect("declared");
        assert_eq!(
            (fresh.name.as_str(), &fresh.input_schema),
            ("fresh_tool", &any_input())
        );
    }

    #[test]
    fn requests_are_the_spec_lines() {
        let lines = [
            (
                Request::Hello { protocol: 1 },
                r#"{"op":"hello","protocol":1}"#,
            ),
            (
                Request::Chunk {
                    stream: "s1".into(),
                    choice: None,
                    text: "a\n".into(),
                },
                r#"{"op":"chunk","stream":"s1","text":"a\n"}"#,
            ),
            (
                Request::End {
                    stream: "s1".into(),
                    choice: None,
                },
                r#"{"op":"end","stream":"s1"}"#,
            ),
            (
                Request::Chunk {
                    stream: "s1".into(),
                    choice: Some(1),
                    text: "a".into(),
                },
                r#"{"op":"chunk","stream":"s1","choice":1,"text":"a"}"#,
            ),
            (
                Request::NonStreaming {
                    stream: "s1".into(),
                    text: "a<t>{}</t>".into(),
                },
                r#"{"op":"non-streaming","stream":"s1","text":"a<t>{}</t>"}"#,
            ),
            (Request::Bye, r#"{"op":"bye"}"#),
        ];
        for (request, line) in lines {
            assert_eq!(serde_json::to_string(&request).ok().as_deref(), Some(line));
            assert_eq!(serde_json::from_str::<Request>(line).ok(), Some(request));
        }
        let begin: Request = serde_json::from_str(
            r#"{"op":"begin","stream":"x","dialect":"tag","tools":[{"name":"t"}]}"#,
        )
        .expect("begin parses");
        assert!(matches!(&begin, Request::Begin(Begin { tools, .. }) if tools[0].name == "t"));
        // No inputSchema: any input (it once read as `null`, which no registry accepts).
        assert!(
            matches!(begin, Request::Begin(Begin { tools, .. }) if tools[0].input_schema == serde_json::json!({}))
        );
    }

    #[test]
    fn replies_are_read() {
        assert_eq!(Reply::parse(r#"{"type":"sync"}"#), Ok(Reply::Sync));
        assert_eq!(
            Reply::parse(r#"{"type":"text-start","id":"0"}"#),
            Ok(Reply::Nothing)
        );
        assert_eq!(
            Reply::parse(r#"{"type":"text-delta","delta":"x"}"#),
            Ok(Reply::Event(Event::text("x")))
        );
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":["md-fence"]}"#),
            Ok(Reply::Hello(Hello { protocol: 1, .. }))
        ));
        // A reproduction program is read when given, and absent otherwise.
        let with = r#"{"type":"hello","protocol":1,"dialects":[],"reproduction":{"language":"python","program":"import json, sys\nprint(json.load(sys.stdin))\n"}}"#;
        let Ok(Reply::Hello(hello)) = Reply::parse(with) else {
            panic!("a hello");
        };
        assert_eq!(
            hello.reproduction,
            Some(Reproduction {
                language: "python".into(),
                program: "import json, sys\nprint(json.load(sys.stdin))\n".into()
            })
        );
        // The first form, a template with placeholders, says what changed (P2.8).
        let template = r#"{"type":"hello","protocol":1,"dialects":[],"reproduction":{"language":"python","template":"c = {{CHUNKS}}"}}"#;
        let Err(ReplyError::BadHello(why)) = Reply::parse(template) else {
            panic!("an error for the template form");
        };
        assert!(
            why.contains("`reproduction.template`")
                && why.contains("`reproduction.program`")
                && why.contains("stdin")
                && why.contains("P2.8"),
            "{why}"
        );
        // A reproduction without its program is a bad hello, not one without a reproduction.
        assert!(matches!(
            Reply::parse(
                r#"{"type":"hello","protocol":1,"dialects":[],"reproduction":{"language":"python"}}"#
            ),
            Err(ReplyError::BadHello(_))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":[]}"#),
            Ok(Reply::Hello(Hello {
                reproduction: None,
                ..
            }))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":["cohere"],"startsInReasoning":["cohere"]}"#),
            Ok(Reply::Hello(Hello { starts_in_reasoning, .. })) if starts_in_reasoning == ["cohere"]
        ));
        // P2.11: non-streaming requests only for a candidate that says so.
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":[],"nonStreaming":true}"#),
            Ok(Reply::Hello(Hello {
                non_streaming: true,
                ..
            }))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":[]}"#),
            Ok(Reply::Hello(Hello {
                non_streaming: false,
                ..
            }))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":[],"output":"openai-chunks"}"#),
            Ok(Reply::Hello(Hello {
                output: Output::OpenaiChunks,
                ..
            }))
        ));
        // P5.1: an output tch does not know is a wrong hello.
        assert!(matches!(
            Reply::parse(r#"{"type":"hello","protocol":1,"dialects":[],"output":"sse"}"#),
            Err(ReplyError::BadHello(_))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"hello"}"#),
            Err(ReplyError::BadHello(_))
        ));
        assert!(matches!(
            Reply::parse("garbage"),
            Err(ReplyError::NotJson(_))
        ));
        assert!(matches!(
            Reply::parse(r#"{"type":"bogus"}"#),
            Err(ReplyError::Event(_))
        ));
    }

    #[test]
    fn lines_that_are_not_unicode_text_or_too_deep_are_not_json() {
        // P1.2: what a JavaScript candidate sends for half a surrogate pair, and a line past
        // 127 levels of nesting.
        assert_eq!(
            Reply::parse(r#"{"type":"text-delta","delta":"\ud83c\udf27"}"#),
            Ok(Reply::Event(Event::text("\u{1F327}")))
        );
        for half in [r#""\ud83c""#, r#""\udf27""#] {
            let line = format!(r#"{{"type":"text-delta","delta":{half}}}"#);
            assert!(
                matches!(Reply::parse(&line), Err(ReplyError::NotJson(_))),
                "{line}"
            );
        }
        let nested = |levels: usize| {
            let arrays = levels - 2;
            format!(
                r#"{{"type":"tool-call","toolCallId":"c","toolName":"f","input":{{"v":{}{}}}}}"#,
                "[".repeat(arrays),
                "]".repeat(arrays)
            )
        };
        assert!(matches!(Reply::parse(&nested(127)), Ok(Reply::Event(_))));
        assert!(matches!(
            Reply::parse(&nested(128)),
            Err(ReplyError::NotJson(_))
        ));
    }
}
