// A standalone reproduction: the crates `tool-parser` and `reasoning-parser` 1.10.0 (the SMG
// model gateway's parsers) fed one model reply chunk by chunk, as the gateway's gRPC router
// feeds them when it streams a chat completion (`process_streaming_chunks_inner`), then the whole
// reply parsed as its non-streaming chat path parses it (`process_single_choice`).
//
// A new crate beside this file (`cargo new repro`), this file as its src/main.rs
// (`cp reproduce.rs repro/src/main.rs`), and in its Cargo.toml:
//
// [dependencies]
// tool-parser = "=1.10.0"
// reasoning-parser = "=1.10.0"
// openai-protocol = "=1.16.0"
// serde_json = "1"
// tokio = { version = "1", default-features = false, features = ["rt"] }
//
// then `cargo run --quiet --manifest-path repro/Cargo.toml < input.json`. It reads the reply as
// one JSON object on stdin (tch's specs/protocol.md P2.8): {"dialect": tch's dialect name,
// "prefill": the generation prompt the reply continues, "chunks": the reply's chunks in order,
// "tools": the tools the request declares, [{"name", "description", "inputSchema"}]}; a tch bug
// page's command gives it. It prints what each parser returns after each chunk and at the end of
// the stream, then what the non-streaming calls return for the whole reply, raw (`{:?}` of the
// crates' own result types).

use openai_protocol::common::Tool;
use reasoning_parser::ReasoningParser;
use serde_json::{json, Value};
use tool_parser::ToolParser;

/// Per tch dialect: the request's model id (from which the gateway resolves both parsers), the
/// configured `--reasoning-parser` (None: resolved from the model id), the reasoning block's
/// opener and closer (does the prompt leave the reply inside reasoning?).
type Deployment = (&'static str, &'static str, Option<&'static str>, (&'static str, &'static str));
const DEPLOYMENTS: &[Deployment] = &[
    ("hermes", "Qwen/Qwen3-8B", None, ("<think>", "</think>")),
    ("qwen3-coder", "Qwen/Qwen3-Coder-30B-A3B-Instruct", None, ("<think>", "</think>")),
    ("deepseek-v3", "deepseek-ai/DeepSeek-V3-0324", None, ("<think>", "</think>")),
    ("deepseek-v3.1", "deepseek-ai/DeepSeek-V3.1", None, ("<think>", "</think>")),
    ("deepseek-v3.2", "deepseek-ai/DeepSeek-V3.2", None, ("<think>", "</think>")),
    ("deepseek-v4", "deepseek-ai/DeepSeek-V4-Flash", None, ("<think>", "</think>")),
    ("deepseek-v4.1", "deepseek-ai/DeepSeek-V4.1", None, ("<think>", "</think>")),
    ("kimi-k2", "moonshotai/Kimi-K2.5", None, ("<think>", "</think>")),
    ("kimi-k3", "moonshotai/Kimi-K3", None, ("<|open|>think<|sep|>", "<|close|>think<|sep|>")),
    ("glm-4.5", "zai-org/GLM-4.5", Some("glm45"), ("<think>", "</think>")),
    ("glm-4.7", "zai-org/GLM-4.7", Some("glm45"), ("<think>", "</think>")),
    ("gemma4", "google/gemma-4-31B-it", None, ("<|channel>thought\n", "<channel|>")),
    ("mistral", "mistralai/Mistral-7B-Instruct-v0.3", None, ("[THINK]", "[/THINK]")),
    ("minimax-m2", "MiniMaxAI/MiniMax-M2", None, ("<think>", "</think>")),
    ("cohere", "CohereLabs/c4ai-command-a-03-2025", None, ("<|START_THINKING|>", "<|END_THINKING|>")),
    ("step3", "stepfun-ai/step3", None, ("<think>", "</think>")),
    ("minimax-m3", "MiniMaxAI/MiniMax-M3", None, ("<mm:think>", "</mm:think>")),
];

fn main() {
    let input: Value = serde_json::from_reader(std::io::stdin().lock())
        .expect("one JSON object on stdin: {\"dialect\", \"prefill\", \"chunks\", \"tools\"}");
    let field = |name: &str| input.get(name).cloned().unwrap_or(Value::Null);
    let dialect: String = serde_json::from_value(field("dialect")).expect("\"dialect\": a string");
    let prefill: String = serde_json::from_value(field("prefill")).expect("\"prefill\": a string");
    let chunks: Vec<String> =
        serde_json::from_value(field("chunks")).expect("\"chunks\": an array of strings");
    let tools: Vec<Value> = serde_json::from_value(field("tools")).expect("\"tools\": an array");

    let &(_, model, configured_reasoning, (open, close)) = DEPLOYMENTS
        .iter()
        .find(|d| d.0 == dialect)
        .expect("a dialect the adapter serves");

    // The request's tools, as OpenAI function tools.
    let declared: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut function = json!({
                "name": tool["name"],
                "parameters": tool.get("inputSchema").cloned().unwrap_or_else(|| json!({})),
            });
            if let Some(description) = tool.get("description").and_then(Value::as_str) {
                function["description"] = json!(description);
            }
            json!({"type": "function", "function": function})
        })
        .collect();
    let tools: Vec<Tool> = declared
        .into_iter()
        .filter_map(|tool| serde_json::from_value(tool).ok())
        .collect();

    let reasoning_factory = reasoning_parser::ParserFactory::new();
    let tool_factory = tool_parser::ParserFactory::new();
    // check_reasoning_parser_availability / check_tool_parser_availability.
    let reasoning_available = match configured_reasoning {
        Some(name) => reasoning_factory.registry().has_parser(name),
        None => reasoning_factory.registry().has_parser_for_model(model),
    };
    let tool_available = !tools.is_empty() && tool_factory.registry().has_parser_for_model(model);
    // The chat template opened reasoning in the prompt (the gateway's thinking override).
    let thinking_override = prefill
        .rfind(open)
        .is_some_and(|opened| prefill.rfind(close).map_or(true, |closed| opened > closed));
    println!(
        "model {model:?}, reasoning parser available {reasoning_available} (configured {configured_reasoning:?}), \
         tool parser available {tool_available}, {} tools, thinking override {thinking_override}",
        tools.len()
    );

    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut reasoning: Option<Box<dyn ReasoningParser>> = None;
    let mut tool: Option<Box<dyn ToolParser>> = None;

    // One pass of the gateway's per-chunk loop: Some(text) for a chunk, None for the EOF pass.
    let mut step = |text: Option<&str>, reasoning: &mut Option<Box<dyn ReasoningParser>>| {
        let mut delta = text.unwrap_or_default().to_owned();
        let mut in_reasoning = false;
        if reasoning_available {
            // process_reasoning_stream: the parser is created on first use.
            if reasoning.is_none() {
                let registry = reasoning_factory.registry();
                *reasoning = configured_reasoning
                    .and_then(|name| registry.create_parser(name))
                    .or_else(|| registry.create_for_model(model));
                if let Some(parser) = reasoning.as_mut() {
                    if thinking_override {
                        parser.mark_reasoning_started();
                        parser.mark_think_start_stripped();
                    }
                }
            }
            if let Some(parser) = reasoning.as_mut() {
                let result = match text {
                    Some(text) => parser.parse_reasoning_streaming_incremental(text),
                    None => parser.flush(),
                };
                in_reasoning = parser.is_in_reasoning();
                let call = if text.is_some() { "parse_reasoning_streaming_incremental" } else { "flush" };
                println!("  reasoning.{call} -> {result:?}, is_in_reasoning {in_reasoning}");
                if let Ok(result) = result {
                    delta = result.normal_text;
                }
            }
        }
        if text.is_none() && delta.is_empty() {
            return;
        }
        if !in_reasoning && tool_available {
            // process_tool_calls_stream: the parser is created on first use.
            if tool.is_none() {
                tool = tool_factory.registry().create_for_model(model);
            }
            if let Some(parser) = tool.as_mut() {
                let result = runtime.block_on(parser.parse_incremental(&delta, &tools));
                println!("  tool.parse_incremental({delta:?}) -> {result:?}");
            }
        } else if !delta.is_empty() {
            println!("  content {delta:?} (no tool parsing for it)");
        }
    };

    for (i, chunk) in chunks.iter().enumerate() {
        println!("chunk {i}: {chunk:?}");
        // The gateway skips an empty chunk.
        if !chunk.is_empty() {
            step(Some(chunk), &mut reasoning);
        }
    }
    println!("end of stream");
    if reasoning.is_some() {
        step(None, &mut reasoning);
    }
    if let Some(parser) = tool.as_mut() {
        println!("  tool.take_unstreamed_normal_text() -> {:?}", parser.take_unstreamed_normal_text());
        println!("  tool.get_unstreamed_tool_args() -> {:?}", parser.get_unstreamed_tool_args());
    }

    // The non-streaming path on the whole reply: fresh parsers, `detect_and_parse_reasoning`
    // (marked started, not stripped, when the prompt opened reasoning), then
    // `parse_complete_with_tools` on the normal text.
    let whole: String = chunks.concat();
    println!("non-streaming: {whole:?}");
    let mut normal = whole.clone();
    if reasoning_available {
        let registry = reasoning_factory.registry();
        let parser = configured_reasoning
            .and_then(|name| registry.create_parser(name))
            .or_else(|| registry.create_for_model(model));
        if let Some(mut parser) = parser {
            if thinking_override {
                parser.mark_reasoning_started();
            }
            let result = parser.detect_and_parse_reasoning(&whole);
            println!("  reasoning.detect_and_parse_reasoning -> {result:?}");
            if let Ok(result) = result {
                normal = result.normal_text;
            }
        }
    }
    if tool_available {
        if let Some(parser) = tool_factory.registry().create_for_model(model) {
            let result = runtime.block_on(parser.parse_complete_with_tools(&normal, &tools));
            println!("  tool.parse_complete_with_tools({normal:?}) -> {result:?}");
        }
    }
}
