//! Events written as OpenAI chunks, as a correct server writes them (`specs/wire.md` §3): the
//! first chunk carries `role`, a call's first delta its `id`, `type` and `function.name` with
//! empty arguments and its arguments follow in a delta of their own, calls count from index
//! 0, the end is one chunk with `finish_reason` (`tool_calls` after calls), the usage chunk
//! (`choices: []`) and `[DONE]`. `tch serve --output openai-chunks` answers so: the template
//! that passes every wire rule.

use serde_json::{Value, json};

use super::DONE;
use crate::event::Event;

/// One stream's chunk writer.
#[derive(Debug, Default)]
pub struct ChunkWriter {
    /// Whether a chunk has been written (the first carries `role`).
    started: bool,
    /// The calls written, by index: the id each was given.
    calls: Vec<String>,
    /// The choice written, each chunk's `choices[0].index` (`specs/protocol.md` P6.7).
    choice: u32,
    /// Whether another choice of the request ends after this one, and writes the usage
    /// chunk and `[DONE]` for the request.
    before_last_choice: bool,
}

impl ChunkWriter {
    /// The writer of choice `choice` of a request with `choices` choices.
    pub fn for_choice(choice: u32, choices: u32) -> ChunkWriter {
        ChunkWriter {
            choice,
            before_last_choice: choice + 1 < choices,
            ..ChunkWriter::default()
        }
    }

    /// The chunk lines for `events` (what a parser gave for one chunk of text). The call's
    /// input is written whole from its `tool-call` (a `tool-input-*` event is not needed: a
    /// server streams what its parser gives; the reference gives the input complete).
    pub fn events(&mut self, events: &[Event]) -> Vec<String> {
        let mut lines = Vec::new();
        for event in events {
            match event {
                Event::TextDelta { delta } if !delta.is_empty() => {
                    lines.push(self.delta(json!({"content": delta})));
                }
                Event::ReasoningDelta { delta } if !delta.is_empty() => {
                    lines.push(self.delta(json!({"reasoning_content": delta})));
                }
                Event::ToolCall(call) => {
                    let index = self.calls.len();
                    // The parser's id: one the model wrote (Kimi's `functions.f:0`) is the
                    // call's, and the server passes it on.
                    let id = call.tool_call_id.clone();
                    self.calls.push(id.clone());
                    lines.push(self.delta(json!({"tool_calls": [{
                        "index": index,
                        "id": id,
                        "type": "function",
                        "function": {"name": call.tool_name, "arguments": ""},
                    }]})));
                    lines.push(self.delta(json!({"tool_calls": [{
                        "index": index,
                        "function": {"arguments": call.input.to_string()},
                    }]})));
                }
                // The chunk has no place for a parser's `error` (its text still came out as
                // text), nor for a recorded `tool-result`/`tool-error` (P5.6); `tool-input-*`
                // is written from the `tool-call`.
                _ => {}
            }
        }
        lines
    }

    /// The stream's last lines: the finish chunk, the usage chunk and `[DONE]` (those two
    /// only after the request's last choice).
    pub fn finish(&mut self) -> Vec<String> {
        let reason = if self.calls.is_empty() {
            "stop"
        } else {
            "tool_calls"
        };
        let finish = chunk(
            json!({"index": self.choice, "delta": self.role(json!({})), "finish_reason": reason}),
        );
        if self.before_last_choice {
            return vec![finish.to_string()];
        }
        let usage = json!({
            "id": ID,
            "object": "chat.completion.chunk",
            "created": 0,
            "model": MODEL,
            "choices": [],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        });
        vec![finish.to_string(), usage.to_string(), DONE.to_owned()]
    }

    fn delta(&mut self, delta: Value) -> String {
        let delta = self.role(delta);
        chunk(json!({"index": self.choice, "delta": delta, "finish_reason": null})).to_string()
    }

    /// `delta` with `role` when it is the stream's first.
    fn role(&mut self, mut delta: Value) -> Value {
        if !self.started {
            self.started = true;
            delta["role"] = json!("assistant");
        }
        delta
    }
}

const ID: &str = "chatcmpl-tch";
const MODEL: &str = "tch-reference";

fn chunk(choice: Value) -> Value {
    json!({
        "id": ID,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": MODEL,
        "choices": [choice],
        "usage": null,
    })
}
