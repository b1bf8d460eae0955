//! A tch candidate (specs/protocol.md) wrapping the Rust crates `tool-parser` 1.10.0 and
//! `reasoning-parser` 1.10.0, the parsers of the SMG model gateway (smg-project/smg), driven as
//! the gateway's gRPC router drives them when it streams an OpenAI chat completion
//! (`gateway.rs`), its OpenAI deltas read as the AI SDK's openai-compatible client reads them
//! (`bridge.rs`). The adapter never fixes the parsers: see README.md.
//!
//! ```sh
//! cargo build --release --locked --manifest-path adapters/rust-tool-parser/Cargo.toml
//! tch run --dialect hermes -- adapters/rust-tool-parser/target/release/tch-adapter-tool-parser
//! ```

mod bridge;
mod dialects;
mod gateway;

use std::io::{self, BufRead, BufWriter, Write};

use openai_protocol::common::Tool;
use serde_json::{json, Value};

use crate::{bridge::OpenAiDeltas, dialects::Dialect, gateway::Stream};

const NAME: &str = "tool-parser-1.10.0";

/// The standalone reproduction (specs/protocol.md P2.8), before the adapter writes its
/// deployments table in.
const REPRODUCTION: &str = include_str!("../reproduction.rs.tmpl");

/// The hello's `reproduction`: the template with `@ADAPTER_DEPLOYMENTS@` replaced by the
/// dialect table this adapter runs (`dialects::DIALECTS`, with the declared corpus tools as
/// `declared_tools` declares them), as Rust source; tch fills `{{DIALECT}}`, `{{PREFILL}}`,
/// `{{CHUNKS}}` and `{{TOOLS}}`.
fn reproduction() -> Value {
    let extra = std::env::var("TCH_TOOL_PARSER_TOOLS").as_deref() != Ok("begin");
    let rows: Vec<String> = dialects::DIALECTS
        .iter()
        .map(|d| {
            let tools: &[&str] = if extra { d.corpus_tools } else { &[] };
            format!(
                "    ({:?}, {:?}, {:?}, {:?}, &{:?}),",
                d.name, d.model, d.reasoning_parser, d.think, tools
            )
        })
        .collect();
    let table = format!("&[\n{}\n]", rows.join("\n"));
    json!({
        "language": "rust",
        "template": REPRODUCTION.replace("@ADAPTER_DEPLOYMENTS@", &table),
    })
}

/// One stream: the gateway's side and the client's.
struct Session {
    gateway: Option<Stream>,
    client: OpenAiDeltas,
    /// `TCH_TOOL_PARSER_TRACE=1`: every OpenAI delta the gateway sends, on stderr.
    trace: bool,
}

impl Session {
    fn chunk(&mut self, text: &str) -> Vec<Value> {
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

    fn end(&mut self) -> Vec<Value> {
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

/// The request's tools: the `begin` tools as OpenAI function tools, plus (unless
/// `TCH_TOOL_PARSER_TOOLS=begin`) the tools the dialect's corpus calls, with any parameters.
fn declared_tools(begin: &Value, dialect: &Dialect) -> Vec<Tool> {
    let mut tools: Vec<Value> = begin
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
    if std::env::var("TCH_TOOL_PARSER_TOOLS").as_deref() != Ok("begin") {
        for name in dialect.corpus_tools {
            if !tools.iter().any(|tool| tool["function"]["name"] == *name) {
                tools.push(json!({"type": "function", "function": {
                    "name": name, "parameters": {"type": "object"},
                }}));
            }
        }
    }
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

fn main() -> io::Result<()> {
    let reasoning_factory = reasoning_parser::ParserFactory::new();
    let tool_factory = tool_parser::ParserFactory::new();
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut session: Option<Session> = None;

    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = match serde_json::from_str(&line) {
            Ok(request) => request,
            Err(error) => {
                write_line(
                    &mut out,
                    &json!({"type": "error", "errorText": format!("not JSON: {error}")}),
                )?;
                out.flush()?;
                continue;
            }
        };
        match request.get("op").and_then(Value::as_str) {
            Some("hello") => {
                let names: Vec<&str> = dialects::DIALECTS.iter().map(|d| d.name).collect();
                write_line(
                    &mut out,
                    &json!({
                        "type": "hello",
                        "protocol": 1,
                        "name": NAME,
                        "dialects": names,
                        "reproduction": reproduction(),
                    }),
                )?;
            }
            Some("begin") => {
                let dialect = request
                    .get("dialect")
                    .and_then(Value::as_str)
                    .and_then(dialects::find);
                let prefill = request.get("prefill").and_then(Value::as_str).unwrap_or("");
                let gateway = match dialect {
                    Some(dialect) => Some(Stream::new(
                        dialect,
                        declared_tools(&request, dialect),
                        prefill,
                        reasoning_factory.clone(),
                        tool_factory.clone(),
                    )?),
                    None => None,
                };
                session = Some(Session {
                    gateway,
                    client: OpenAiDeltas::new(),
                    trace: std::env::var_os("TCH_TOOL_PARSER_TRACE").is_some_and(|v| v == "1"),
                });
                continue;
            }
            Some("chunk") => {
                let text = request.get("text").and_then(Value::as_str).unwrap_or("");
                if let Some(session) = session.as_mut() {
                    for event in session.chunk(text) {
                        write_line(&mut out, &event)?;
                    }
                }
                write_line(&mut out, &json!({"type": "sync"}))?;
            }
            Some("end") => {
                if let Some(mut session) = session.take() {
                    for event in session.end() {
                        write_line(&mut out, &event)?;
                    }
                }
                write_line(&mut out, &json!({"type": "done"}))?;
            }
            Some("bye") => break,
            other => {
                let text = format!("unknown request {other:?}");
                write_line(&mut out, &json!({"type": "error", "errorText": text}))?;
            }
        }
        out.flush()?;
    }
    out.flush()
}

fn write_line(out: &mut impl Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}
