//! One chat-completion stream as the SMG gateway's gRPC router streams it, with the crates
//! `reasoning-parser` and `tool-parser` 1.10.0, yielding the OpenAI deltas it would send.
//!
//! Mirrors `model_gateway/src/routers/grpc/regular/streaming.rs` of smg-project/smg (the
//! version that flushes the reasoning parser at EOF and the tool parser's unstreamed text, the
//! two trait methods these 1.10.0 crates added): `process_streaming_chunks_inner` (Phase 2,
//! the per-chunk loop and its EOF pass; Phase 3, the end-of-stream tool-parser flush),
//! `process_reasoning_stream` and `process_tool_calls_stream`; with the helpers of
//! `routers/grpc/utils/parsers.rs` (`check_*_parser_availability`, `create_*_parser`,
//! `should_mark_reasoning_started`) and `utils/chat_utils.rs` (`generate_tool_call_id`).
//! Each function below names the gateway code it stands for.

use std::time::{SystemTime, UNIX_EPOCH};

use openai_protocol::{
    chat::ChatCompletionStreamResponse,
    common::{FunctionCallDelta, Tool, ToolCallDelta},
};
use reasoning_parser::{ParserResult, ReasoningParser};
use serde_json::Value;
use tool_parser::{StreamingParseResult, ToolParser};

use crate::dialects::Dialect;

const REQUEST_ID: &str = "chatcmpl-tch";

/// One stream (one choice, index 0: the gateway keeps one parser of each kind per index).
pub struct Stream {
    model: &'static str,
    /// The configured `--reasoning-parser`, if any.
    configured_reasoning: Option<&'static str>,
    tools: Vec<Tool>,
    /// `reasoning_parser_available`: `separate_reasoning` (true by default) and a reasoning
    /// parser for the model.
    reasoning_available: bool,
    /// The template opened thinking in the prompt (`thinking_override` with `think_in_prefill`).
    thinking_override: bool,
    /// `tool_parser_available`: the request has tools and a tool parser exists for the model.
    tool_available: bool,
    /// Created on first use, as the gateway's `reasoning_parsers` / `tool_parsers` entries.
    reasoning: Option<Box<dyn ReasoningParser>>,
    tool: Option<Box<dyn ToolParser>>,
    reasoning_factory: reasoning_parser::ParserFactory,
    tool_factory: tool_parser::ParserFactory,
    runtime: tokio::runtime::Runtime,
    ids: IdSource,
}

impl Stream {
    /// A stream of `dialect`'s deployment: a request declaring `tools` whose prompt ends in
    /// `prefill`, its parsers made by the factories on first use. Fails only when the async
    /// runtime cannot be built.
    pub fn new(
        dialect: &Dialect,
        tools: Vec<Tool>,
        prefill: &str,
        reasoning_factory: reasoning_parser::ParserFactory,
        tool_factory: tool_parser::ParserFactory,
    ) -> std::io::Result<Self> {
        let model = dialect.model;
        // utils::check_reasoning_parser_availability / check_tool_parser_availability: the
        // configured `--reasoning-parser` if the dialect's deployment names one, else (and for
        // the tool parser always) the factory's model mappings decide.
        let reasoning_available = match dialect.reasoning_parser {
            Some(name) => reasoning_factory.registry().has_parser(name),
            None => reasoning_factory.registry().has_parser_for_model(model),
        };
        // `tools.is_some()`: the request carries a tools array (the adapter always declares
        // some, README "Which tools the request declares").
        let tool_available =
            !tools.is_empty() && tool_factory.registry().has_parser_for_model(model);
        Ok(Self {
            model,
            configured_reasoning: dialect.reasoning_parser,
            tools,
            reasoning_available,
            thinking_override: dialect.prefill_opens_reasoning(prefill),
            tool_available,
            reasoning: None,
            tool: None,
            reasoning_factory,
            tool_factory,
            runtime: tokio::runtime::Builder::new_current_thread().build()?,
            ids: IdSource::default(),
        })
    }

    /// Phase 2 for one engine delta. The gateway skips empty chunk text (`if
    /// chunk_text.is_empty() { continue; }`), so an empty tch chunk reaches no parser.
    pub fn chunk(&mut self, text: &str) -> Vec<Value> {
        let mut out = Vec::new();
        if text.is_empty() {
            return out;
        }
        self.step(Some(text), &mut out);
        out
    }

    /// The end of the stream: Phase 2's EOF pass (`final_chunk`: the reasoning parser's
    /// `flush`, its normal text through the same path as any delta), then Phase 3 (the tool
    /// parser's `take_unstreamed_normal_text`, then `get_unstreamed_tool_args`). Phase 4's
    /// finish chunk carries no delta: the caller finishes the client's stream after this.
    pub fn end(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        // `final_indices` are the indices that have a reasoning parser.
        if self.reasoning.is_some() {
            self.step(None, &mut out);
        }
        if let Some(parser) = self.tool.as_mut() {
            let leftover = parser.take_unstreamed_normal_text();
            if !leftover.is_empty() {
                out.push(delta(
                    ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                        .add_choice_content(0, "assistant", leftover)
                        .build(),
                ));
            }
            if let Some(items) = parser.get_unstreamed_tool_args() {
                for item in items {
                    let tool_call_delta = ToolCallDelta {
                        index: item.tool_index as u32,
                        id: None,
                        tool_type: None,
                        function: Some(FunctionCallDelta {
                            name: None,
                            arguments: (!item.parameters.is_empty()).then_some(item.parameters),
                        }),
                    };
                    out.push(delta(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .add_choice_tool_call_delta(0, tool_call_delta)
                            .build(),
                    ));
                }
            }
        }
        out
    }

    /// The body of Phase 2's loop for one pending text: `Some(delta)` for an engine chunk,
    /// `None` for the EOF pass.
    fn step(&mut self, text: Option<&str>, out: &mut Vec<Value>) {
        let final_chunk = text.is_none();
        let mut delta_text = text.unwrap_or_default().to_owned();
        let in_reasoning = if self.reasoning_available {
            let (normal, reasoning_chunk, in_reasoning) = self.process_reasoning_stream(text);
            if let Some(chunk) = reasoning_chunk {
                out.push(chunk);
            }
            delta_text = normal;
            in_reasoning
        } else {
            false
        };
        if final_chunk && delta_text.is_empty() {
            return;
        }
        // No tool_choice in the request: "auto", so `tool_choice_enabled`; no JSON-schema
        // constraint (that needs "required" or a named function).
        if !in_reasoning && self.tool_available {
            self.process_tool_calls_stream(&delta_text, out);
            // "Always skip regular content when tool parsing is active".
            return;
        }
        if !delta_text.is_empty() {
            out.push(delta(
                ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                    .add_choice_content_with_logprobs(0, delta_text, None)
                    .build(),
            ));
        }
    }

    /// `process_reasoning_stream`: a fresh parser per index on first use, marked started (and
    /// its opener stripped) when the template opened thinking; `None` flushes it.
    fn process_reasoning_stream(&mut self, text: Option<&str>) -> (String, Option<Value>, bool) {
        if self.reasoning.is_none() {
            // utils::create_reasoning_parser(factory, configured, model): the configured
            // parser by name (falling back to the model's), else create_for_model.
            let registry = self.reasoning_factory.registry();
            let parser = self
                .configured_reasoning
                .and_then(|name| registry.create_parser(name))
                .or_else(|| registry.create_for_model(self.model));
            if let Some(mut parser) = parser {
                if self.thinking_override {
                    parser.mark_reasoning_started();
                    // `think_in_prefill`: the opener was in the prompt.
                    parser.mark_think_start_stripped();
                }
                self.reasoning = Some(parser);
            }
        }
        if let Some(parser) = self.reasoning.as_mut() {
            let result = match text {
                Some(text) => parser.parse_reasoning_streaming_incremental(text),
                None => parser.flush(),
            };
            let in_reasoning = parser.is_in_reasoning();
            match result {
                Ok(ParserResult {
                    normal_text,
                    reasoning_text,
                }) => {
                    let chunk = (!reasoning_text.is_empty()).then(|| {
                        delta(
                            ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                                .add_choice_reasoning(0, reasoning_text)
                                .build(),
                        )
                    });
                    return (normal_text, chunk, in_reasoning);
                }
                Err(error) => eprintln!("Reasoning parsing error: {error}"),
            }
        }
        (text.unwrap_or_default().to_owned(), None, false)
    }

    /// `process_tool_calls_stream`: `parse_incremental(delta, tools)`; its normal text as one
    /// content chunk, then one tool-call chunk per item (an id and `type` only with a name). A
    /// parse error is logged and the chunk gives nothing.
    fn process_tool_calls_stream(&mut self, text: &str, out: &mut Vec<Value>) {
        if self.tool.is_none() {
            // utils::create_tool_parser(factory, None, model): create_for_model.
            self.tool = self.tool_factory.registry().create_for_model(self.model);
        }
        let Some(parser) = self.tool.as_mut() else {
            return;
        };
        let result = self
            .runtime
            .block_on(parser.parse_incremental(text, &self.tools));
        match result {
            Ok(StreamingParseResult { normal_text, calls }) => {
                if !normal_text.is_empty() {
                    out.push(delta(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .add_choice_content(0, "assistant", normal_text)
                            .build(),
                    ));
                }
                for item in calls {
                    let id = item.name.as_deref().map(|name| {
                        generate_tool_call_id(self.model, name, item.tool_index, 0, &mut self.ids)
                    });
                    let tool_call_delta = ToolCallDelta {
                        index: item.tool_index as u32,
                        id,
                        tool_type: item.name.is_some().then(|| "function".to_owned()),
                        function: Some(FunctionCallDelta {
                            name: item.name,
                            arguments: (!item.parameters.is_empty()).then_some(item.parameters),
                        }),
                    };
                    out.push(delta(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .add_choice_tool_call_delta(0, tool_call_delta)
                            .build(),
                    ));
                }
            }
            Err(error) => eprintln!("Tool call parsing error: {error}"),
        }
    }
}

/// The `choices[0].delta` of a chunk, as it goes over the wire (serialized by serde, as the
/// gateway's SSE encoder does).
fn delta(chunk: ChatCompletionStreamResponse) -> Value {
    let mut value = serde_json::to_value(&chunk).unwrap_or(Value::Null);
    value["choices"][0]["delta"].take()
}

/// `utils::generate_tool_call_id`: Kimi-K3 `{name}_{n}`, Kimi-K2 `functions.{name}:{n}`
/// (n = history count + tool index), others `call_` and 24 hex digits of a UUID v7.
fn generate_tool_call_id(
    model: &str,
    tool_name: &str,
    tool_index: usize,
    history_count: usize,
    ids: &mut IdSource,
) -> String {
    let is_kimi = model
        .as_bytes()
        .windows(4)
        .any(|window| window.eq_ignore_ascii_case(b"kimi"));
    if !is_kimi {
        return format!("call_{}", ids.next_hex24());
    }
    let is_k3 = model
        .as_bytes()
        .windows(2)
        .any(|window| window.eq_ignore_ascii_case(b"k3"));
    if is_k3 {
        format!("{tool_name}_{}", history_count + tool_index)
    } else {
        format!("functions.{}:{}", tool_name, history_count + tool_index)
    }
}

/// The first 24 hex digits of a UUID v7 (`Uuid::now_v7().simple()`): 48 bits of Unix
/// milliseconds, the version digit `7`, then what the gateway takes from random bits, here a
/// per-process counter mixed by splitmix64 (unique, which is all a client relies on; tch
/// renames ids that do not occur in the stream). Spares the adapter the `uuid` crate.
#[derive(Default)]
struct IdSource {
    counter: u64,
}

impl IdSource {
    fn next_hex24(&mut self) -> String {
        self.counter += 1;
        let millis = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let mut z = self.counter.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ millis;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        format!(
            "{:012x}7{:011x}",
            millis & 0xFFFF_FFFF_FFFF,
            z & 0x7FF_FFFF_FFFF
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_as_the_gateway_makes_them() {
        let mut ids = IdSource::default();
        let a = generate_tool_call_id("Qwen/Qwen3-8B", "f", 0, 0, &mut ids);
        let b = generate_tool_call_id("Qwen/Qwen3-8B", "f", 0, 0, &mut ids);
        assert_eq!(a.len(), "call_".len() + 24);
        assert!(a.starts_with("call_") && a[5..].chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(
            generate_tool_call_id("moonshotai/Kimi-K2.5", "get_weather", 1, 0, &mut ids),
            "functions.get_weather:1"
        );
        assert_eq!(
            generate_tool_call_id("moonshotai/Kimi-K3", "read_file", 0, 0, &mut ids),
            "read_file_0"
        );
    }

    #[test]
    fn deltas_are_the_wire_json() {
        let content = delta(
            ChatCompletionStreamResponse::builder(REQUEST_ID, "m")
                .add_choice_content(0, "assistant", "hi")
                .build(),
        );
        assert_eq!(
            content,
            serde_json::json!({"role": "assistant", "content": "hi"})
        );
        let args = delta(
            ChatCompletionStreamResponse::builder(REQUEST_ID, "m")
                .add_choice_tool_call_delta(
                    0,
                    ToolCallDelta {
                        index: 1,
                        id: None,
                        tool_type: None,
                        function: Some(FunctionCallDelta {
                            name: None,
                            arguments: Some("{}".to_owned()),
                        }),
                    },
                )
                .build(),
        );
        assert_eq!(
            args,
            serde_json::json!({"tool_calls": [{"index": 1, "function": {"arguments": "{}"}}]})
        );
    }
}
