//! One chat completion as the SMG gateway's gRPC router serves it, with the crates
//! `reasoning-parser` and `tool-parser` 1.10.0: streamed, the `chat.completion.chunk` objects it
//! writes (role chunk, content / reasoning / tool-call chunks, finish chunk, usage chunk), built
//! with the gateway's own chunk builder (`openai-protocol`); not streamed, the
//! `chat.completion` object its non-streaming handler builds (`Stream::non_streaming`).
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
    builders::ChatCompletionStreamResponseBuilder,
    chat::{
        ChatChoice, ChatCompletionMessage, ChatCompletionResponse, ChatCompletionStreamResponse,
    },
    common::{FunctionCallDelta, FunctionCallResponse, Tool, ToolCall, ToolCallDelta, Usage},
};
use reasoning_parser::{ParserResult, ReasoningParser};
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
    /// `dispatch.created`: one timestamp for every chunk of the completion.
    created: u64,
    /// `is_firsts[index]`: the role chunk is still to be sent.
    first: bool,
    /// `has_tool_calls[index]`: a tool-call chunk was sent, so the finish reason `stop` is
    /// written `tool_calls`.
    has_tool_calls: bool,
    /// Engine chunks read: the usage chunk's `completion_tokens` (one chunk stands for one
    /// decode step; tch gives no token counts, and the value is not judged).
    engine_chunks: u32,
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
            created: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            first: true,
            has_tool_calls: false,
            engine_chunks: 0,
        })
    }

    /// `utils::create_reasoning_parser(factory, configured, model)`: the configured parser by
    /// name (falling back to the model's), else `create_for_model`.
    fn create_reasoning_parser(&self) -> Option<Box<dyn ReasoningParser>> {
        let registry = self.reasoning_factory.registry();
        self.configured_reasoning
            .and_then(|name| registry.create_parser(name))
            .or_else(|| registry.create_for_model(self.model))
    }

    /// `ChatCompletionStreamResponse::builder(request_id, model).created(created)`, as every
    /// chunk of the gateway's stream starts (`maybe_system_fingerprint(None)`: no weight
    /// version is configured, so no `system_fingerprint`).
    fn builder(&self) -> ChatCompletionStreamResponseBuilder {
        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model).created(self.created)
    }

    /// "Send first chunk with role": before the first text of the index reaches the parsers,
    /// a chunk whose delta is `{"role": "assistant"}` alone (`add_choice_role`).
    fn role_chunk(&mut self, out: &mut Vec<ChatCompletionStreamResponse>) {
        if self.first {
            out.push(self.builder().add_choice_role(0, "assistant").build());
            self.first = false;
        }
    }

    /// Phase 2 for one engine delta. The gateway skips empty chunk text (`if
    /// chunk_text.is_empty() { continue; }`), so an empty tch chunk reaches no parser.
    pub fn chunk(&mut self, text: &str) -> Vec<ChatCompletionStreamResponse> {
        let mut out = Vec::new();
        if text.is_empty() {
            return out;
        }
        self.engine_chunks += 1;
        self.role_chunk(&mut out);
        self.step(Some(text), &mut out);
        out
    }

    /// The end of the stream: Phase 2's EOF pass (`final_chunk`: the reasoning parser's
    /// `flush`, its normal text through the same path as any delta), then Phase 3 (the tool
    /// parser's `take_unstreamed_normal_text`, then `get_unstreamed_tool_args`), Phase 4 (the
    /// finish chunk) and Phase 5 (the usage chunk: tch's request sets
    /// `stream_options.include_usage`, `specs/protocol.md` P5.5). `data: [DONE]`, which
    /// `process_streaming_response` sends after all this, is the caller's.
    pub fn end(&mut self) -> Vec<ChatCompletionStreamResponse> {
        let mut out = Vec::new();
        // `final_indices` are the indices that have a reasoning parser.
        if self.reasoning.is_some() {
            self.step(None, &mut out);
        }
        if let Some(parser) = self.tool.as_mut() {
            let leftover = parser.take_unstreamed_normal_text();
            if !leftover.is_empty() {
                // `add_choice_content` sets the role again (the gateway's choice, W3.2).
                out.push(
                    ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                        .created(self.created)
                        .add_choice_content(0, "assistant", leftover)
                        .build(),
                );
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
                    out.push(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .created(self.created)
                            .add_choice_tool_call_delta(0, tool_call_delta)
                            .build(),
                    );
                }
            }
        }
        // Phase 4: the engine's `Complete` says `stop` (tch's `end` is the model's own end of
        // generation); `stop` becomes `tool_calls` when a tool-call chunk was sent. No stop
        // string matched (tch sets none), so no `matched_stop`.
        let finish_reason = if self.has_tool_calls {
            "tool_calls"
        } else {
            "stop"
        };
        out.push(
            self.builder()
                .add_choice_finish_reason(0, finish_reason, None)
                .build(),
        );
        // Phase 5: `Usage::from_counts(prompt, completion)` with the cached and reasoning
        // token counts (zero here: tch has no tokens, and does not judge the counts).
        out.push(
            self.builder()
                .usage(
                    Usage::from_counts(0, self.engine_chunks)
                        .with_cached_tokens(0)
                        .with_reasoning_tokens(0),
                )
                .build(),
        );
        out
    }

    /// The gateway's non-streaming chat path for the whole reply `text`
    /// (`routers/grpc/regular/processor.rs`, `process_non_streaming_chat_response` and
    /// `process_single_choice`, with `parse_tool_calls`): the `chat.completion` object it
    /// answers with (README, "The non-streaming request").
    ///
    /// Step 1: a fresh reasoning parser (`create_reasoning_parser`, the configured name or the
    /// model's), `mark_reasoning_started()` when the template opened thinking (that path does
    /// not call `mark_think_start_stripped`), then `detect_and_parse_reasoning(text)`; a parse
    /// error leaves the text as it was. Step 2: with tools declared and no `tool_choice`, the
    /// tool parser's `parse_complete_with_tools(text, tools)`: its normal text replaces the text
    /// (calls or not), its calls get `generate_tool_call_id(model, name, index, 0)`; an error
    /// leaves the text and gives no call, and so does an empty list of calls (`tool_calls`
    /// `None`). Step 3: `finish_reason` `tool_calls` when there are calls, else the engine's
    /// `stop`. Step 5: `content` is `None` when the text left is blank
    /// (`normalize_assistant_content`).
    pub fn non_streaming(&mut self, text: &str) -> ChatCompletionResponse {
        let mut processed = text.to_owned();
        let mut reasoning_text = None;
        if self.reasoning_available {
            if let Some(mut parser) = self.create_reasoning_parser() {
                if self.thinking_override {
                    parser.mark_reasoning_started();
                }
                match parser.detect_and_parse_reasoning(&processed) {
                    Ok(result) => {
                        if !result.reasoning_text.is_empty() {
                            reasoning_text = Some(result.reasoning_text);
                        }
                        processed = result.normal_text;
                    }
                    Err(error) => eprintln!("Reasoning parsing error, skipping parsing: {error}"),
                }
            }
        }
        let mut tool_calls: Vec<ToolCall> = Vec::new();
        if self.tool_available {
            // `utils::get_tool_parser` (a pooled parser of the model's kind; `parse_complete`
            // takes `&self`, so a fresh one reads the same).
            if let Some(parser) = self.tool_factory.registry().create_for_model(self.model) {
                let result = self
                    .runtime
                    .block_on(parser.parse_complete_with_tools(&processed, &self.tools));
                match result {
                    Ok((normal_text, calls)) => {
                        processed = normal_text;
                        tool_calls = calls
                            .into_iter()
                            .enumerate()
                            .map(|(index, call)| ToolCall {
                                id: generate_tool_call_id(
                                    self.model,
                                    &call.function.name,
                                    index,
                                    0,
                                    &mut self.ids,
                                ),
                                tool_type: "function".to_owned(),
                                function: FunctionCallResponse {
                                    name: call.function.name,
                                    arguments: Some(call.function.arguments),
                                },
                            })
                            .collect();
                    }
                    Err(error) => eprintln!("Tool call parsing error: {error}"),
                }
            }
        }
        // `parse_tool_calls`: no call is `None`; a call turns the engine's `stop` into
        // `tool_calls`.
        let tool_calls = (!tool_calls.is_empty()).then_some(tool_calls);
        let finish_reason = if tool_calls.is_some() {
            "tool_calls"
        } else {
            "stop"
        };
        let message = ChatCompletionMessage {
            role: "assistant".to_owned(),
            content: (!processed.trim().is_empty()).then_some(processed),
            refusal: None,
            annotations: Vec::new(),
            tool_calls,
            reasoning_content: reasoning_text,
        };
        let choice = ChatChoice {
            index: 0,
            message,
            logprobs: None,
            finish_reason: Some(finish_reason.to_owned()),
            matched_stop: None,
            hidden_states: None,
        };
        ChatCompletionResponse::builder(REQUEST_ID, self.model)
            .created(self.created)
            .choices(vec![choice])
            .usage(
                Usage::from_counts(0, 1)
                    .with_cached_tokens(0)
                    .with_reasoning_tokens(0),
            )
            .build()
    }

    /// The body of Phase 2's loop for one pending text: `Some(delta)` for an engine chunk,
    /// `None` for the EOF pass.
    fn step(&mut self, text: Option<&str>, out: &mut Vec<ChatCompletionStreamResponse>) {
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
            out.push(
                self.builder()
                    .add_choice_content_with_logprobs(0, delta_text, None)
                    .build(),
            );
        }
    }

    /// `process_reasoning_stream`: a fresh parser per index on first use, marked started (and
    /// its opener stripped) when the template opened thinking; `None` flushes it.
    fn process_reasoning_stream(
        &mut self,
        text: Option<&str>,
    ) -> (String, Option<ChatCompletionStreamResponse>, bool) {
        if self.reasoning.is_none() {
            if let Some(mut parser) = self.create_reasoning_parser() {
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
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .created(self.created)
                            .add_choice_reasoning(0, reasoning_text)
                            .build()
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
    fn process_tool_calls_stream(
        &mut self,
        text: &str,
        out: &mut Vec<ChatCompletionStreamResponse>,
    ) {
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
                    // `add_choice_content` sets the role again (the gateway's choice, W3.2).
                    out.push(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .created(self.created)
                            .add_choice_content(0, "assistant", normal_text)
                            .build(),
                    );
                }
                for item in calls {
                    self.has_tool_calls = true;
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
                    out.push(
                        ChatCompletionStreamResponse::builder(REQUEST_ID, self.model)
                            .created(self.created)
                            .add_choice_tool_call_delta(0, tool_call_delta)
                            .build(),
                    );
                }
            }
            Err(error) => eprintln!("Tool call parsing error: {error}"),
        }
    }
}

/// A chunk as it goes over the wire: `format_sse_chunk_into` / `SseEncoder::encode_data`
/// write `data: ` + `serde_json::to_writer(chunk)`; this is the part after `data: `.
pub fn wire_line(chunk: &ChatCompletionStreamResponse) -> String {
    serde_json::to_string(chunk).unwrap_or_else(|_| r#"{"error":"serialization_failed"}"#.into())
}

/// The non-streaming answer's body as one line (`specs/protocol.md` P5.7): the gateway's
/// `Json(response)` (serde_json cannot fail on these types: strings, numbers, no maps with
/// non-string keys).
pub fn completion_line(response: &ChatCompletionResponse) -> String {
    serde_json::to_string(response).unwrap_or_default()
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
    use serde_json::Value;

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
    fn chunks_are_the_wire_json() {
        let content = wire_line(
            &ChatCompletionStreamResponse::builder(REQUEST_ID, "m")
                .created(7)
                .add_choice_content(0, "assistant", "hi")
                .build(),
        );
        assert_eq!(
            serde_json::from_str::<Value>(&content).unwrap(),
            serde_json::json!({"id": REQUEST_ID, "object": "chat.completion.chunk", "created": 7,
                "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": "hi"},
                "logprobs": null, "finish_reason": null}]})
        );
    }

    fn stream(dialect: &str) -> Stream {
        let tools: Vec<Tool> = serde_json::from_value(serde_json::json!([{"type": "function",
            "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}}}}}]))
        .unwrap();
        Stream::new(
            crate::dialects::find(dialect).unwrap(),
            tools,
            "",
            reasoning_parser::ParserFactory::new(),
            tool_parser::ParserFactory::new(),
        )
        .unwrap()
    }

    fn lines(chunks: &[ChatCompletionStreamResponse]) -> Vec<Value> {
        chunks
            .iter()
            .map(|chunk| serde_json::to_value(chunk).unwrap())
            .collect()
    }

    /// The stream's frame: the role chunk before the first text, the finish chunk (`stop`
    /// turned `tool_calls`), then the usage chunk with no choice.
    #[test]
    fn a_stream_is_framed_as_the_gateway_frames_it() {
        let mut stream = stream("hermes");
        let mut chunks = stream.chunk("Sure.");
        chunks.extend(stream.chunk(
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        ));
        chunks.extend(stream.end());
        let chunks = lines(&chunks);
        assert_eq!(
            chunks[0]["choices"][0]["delta"],
            serde_json::json!({"role": "assistant"})
        );
        let last = &chunks[chunks.len() - 1];
        assert_eq!(last["choices"], serde_json::json!([]));
        assert!(last["usage"].is_object());
        let finish = &chunks[chunks.len() - 2];
        assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(chunks.iter().filter(|c| c["usage"].is_object()).count(), 1);
        assert!(chunks
            .iter()
            .any(
                |c| c["choices"][0]["delta"]["tool_calls"][0]["function"]["name"] == "get_weather"
            ));
    }

    /// Not streamed: the `chat.completion` object of `parse_complete_with_tools`.
    #[test]
    fn the_non_streaming_answer_is_the_completion_object() {
        let response = stream("hermes").non_streaming(
            "Sure.<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
        );
        let response: Value = serde_json::from_str(&completion_line(&response)).unwrap();
        assert_eq!(response["object"], "chat.completion");
        let choice = &response["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls");
        let message = &choice["message"];
        assert_eq!(message["role"], "assistant");
        assert_eq!(message["content"], "Sure.");
        let call = &message["tool_calls"][0];
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "get_weather");
        let arguments: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, serde_json::json!({"city": "Paris"}));
        assert!(response["usage"].is_object());
    }
}
