//! One stream, from the protocol's `begin` to its `end` (or its `non-streaming` request): the
//! gateway's side (`gateway::Stream`), yielding the lines it writes after `data: ` (the chunks as
//! JSON text, then `[DONE]`), exactly the lines the protocol binary writes (`specs/protocol.md`
//! §5).

use openai_protocol::{chat::ChatCompletionStreamResponse, common::Tool};
use serde_json::{json, Value};

use crate::{
    dialects,
    gateway::{completion_line, wire_line, Stream},
    DONE,
};

/// The parser factories the gateway builds once at start-up; every stream's parsers come from
/// them (cloning a factory shares its registry).
#[derive(Clone)]
pub struct Factories {
    reasoning: reasoning_parser::ParserFactory,
    tool: tool_parser::ParserFactory,
}

impl Factories {
    /// Both factories, with their default model mappings.
    pub fn new() -> Self {
        Self {
            reasoning: reasoning_parser::ParserFactory::new(),
            tool: tool_parser::ParserFactory::new(),
        }
    }
}

impl Default for Factories {
    fn default() -> Self {
        Self::new()
    }
}

/// One stream: the gateway's side.
pub struct Session {
    /// `None` for a dialect the hello does not list (tch never sends one, P2.4): no
    /// deployment, no chunk but `[DONE]`.
    gateway: Option<Stream>,
    /// `TCH_TOOL_PARSER_TRACE=1`: every line written, on stderr too.
    trace: bool,
}

impl Session {
    /// A stream begun by the protocol's `begin` request (a JSON object with `dialect`,
    /// `prefill` and `tools`, `specs/protocol.md` P2). Fails only when the gateway's async
    /// runtime cannot be built.
    pub fn begin(request: &Value, factories: &Factories) -> std::io::Result<Session> {
        let dialect = request
            .get("dialect")
            .and_then(Value::as_str)
            .and_then(dialects::find);
        let prefill = request.get("prefill").and_then(Value::as_str).unwrap_or("");
        let gateway = match dialect {
            Some(dialect) => Some(Stream::new(
                dialect,
                declared_tools(request),
                prefill,
                factories.reasoning.clone(),
                factories.tool.clone(),
            )?),
            None => None,
        };
        Ok(Session {
            gateway,
            trace: std::env::var_os("TCH_TOOL_PARSER_TRACE").is_some_and(|v| v == "1"),
        })
    }

    /// The chunks the gateway writes once it has read one engine delta (the protocol's
    /// `chunk`), one JSON text each.
    pub fn chunk(&mut self, text: &str) -> Vec<String> {
        let chunks = self
            .gateway
            .as_mut()
            .map(|gateway| gateway.chunk(text))
            .unwrap_or_default();
        self.lines(&chunks, false)
    }

    /// What the gateway writes when generation ends (the protocol's `end`): the flushed text
    /// and arguments, the finish chunk, the usage chunk, then `[DONE]`.
    pub fn end(&mut self) -> Vec<String> {
        let chunks = self.gateway.as_mut().map(Stream::end).unwrap_or_default();
        self.lines(&chunks, true)
    }

    /// The protocol's `non-streaming` request: the gateway's non-streaming answer, one
    /// `chat.completion` object (README; `specs/protocol.md` P5.7).
    pub fn non_streaming(&mut self, text: &str) -> Vec<String> {
        let Some(gateway) = self.gateway.as_mut() else {
            return Vec::new();
        };
        let line = completion_line(&gateway.non_streaming(text));
        if self.trace {
            eprintln!("{line}");
        }
        vec![line]
    }

    fn lines(&self, chunks: &[ChatCompletionStreamResponse], done: bool) -> Vec<String> {
        let mut lines: Vec<String> = chunks.iter().map(wire_line).collect();
        if done {
            // `process_streaming_response`: `data: [DONE]` after the stream's chunks.
            lines.push(DONE.to_owned());
        }
        if self.trace {
            for line in &lines {
                eprintln!("data: {line}");
            }
        }
        lines
    }
}

/// The request's tools: the `begin` tools as OpenAI function tools (tch declares there every
/// tool the stream calls, `specs/protocol.md` P2.2).
fn declared_tools(begin: &Value) -> Vec<Tool> {
    let tools: Vec<Value> = begin
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            let name = tool.get("name")?.as_str()?;
            let mut function = json!({
                "name": name,
                "parameters": tool.get("inputSchema").cloned().unwrap_or_else(|| json!({})),
            });
            if let Some(description) = tool.get("description").and_then(Value::as_str) {
                function["description"] = json!(description);
            }
            Some(json!({"type": "function", "function": function}))
        })
        .collect();
    tools
        .into_iter()
        .filter_map(|tool| match serde_json::from_value::<Tool>(tool) {
            Ok(tool) => Some(tool),
            Err(error) => {
                eprintln!("tool not declared (not an OpenAI tool): {error}");
                None
            }
        })
        .collect()
}
