//! One stream, from the protocol's `begin` to its `end`: the gateway's side (`gateway::Stream`)
//! and the client's (`bridge::OpenAiDeltas`), yielding tch events as JSON objects
//! (`specs/events.md`), exactly the lines the protocol binary writes.

use openai_protocol::common::Tool;
use serde_json::{json, Value};

use crate::{bridge::OpenAiDeltas, dialects, gateway::Stream};

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

/// One stream: the gateway's side and the client's.
pub struct Session {
    gateway: Option<Stream>,
    client: OpenAiDeltas,
    /// `TCH_TOOL_PARSER_TRACE=1`: every OpenAI delta the gateway sends, on stderr.
    trace: bool,
}

impl Session {
    /// A stream begun by the protocol's `begin` request (a JSON object with `dialect`,
    /// `prefill` and `tools`, `specs/protocol.md` P2). A dialect with no deployment gets no
    /// parser: its text passes through. Fails only when the gateway's async runtime cannot be
    /// built.
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
            client: OpenAiDeltas::new(),
            trace: std::env::var_os("TCH_TOOL_PARSER_TRACE").is_some_and(|v| v == "1"),
        })
    }

    /// The events of one chunk (the protocol's `chunk`).
    pub fn chunk(&mut self, text: &str) -> Vec<Value> {
        match self.gateway.as_mut() {
            Some(gateway) => {
                let deltas = gateway.chunk(text);
                self.read(deltas)
            }
            // No parser for this stream (a dialect the hello does not list): text passes.
            None if !text.is_empty() => vec![json!({"type": "text-delta", "delta": text})],
            None => Vec::new(),
        }
    }

    /// The events of the end of the stream (the protocol's `end`).
    pub fn end(&mut self) -> Vec<Value> {
        let deltas = self.gateway.as_mut().map(Stream::end).unwrap_or_default();
        let mut events = self.read(deltas);
        // Phase 4: the finish chunk; the client completes its unfinished calls.
        events.extend(self.client.finish());
        events
    }

    fn read(&mut self, deltas: Vec<Value>) -> Vec<Value> {
        if self.trace {
            for delta in &deltas {
                eprintln!("delta {delta}");
            }
        }
        deltas
            .iter()
            .flat_map(|delta| self.client.delta(delta))
            .collect()
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
