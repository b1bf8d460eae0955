//! OpenAI chat-completion chunks as a candidate's output (`specs/protocol.md` §5,
//! `specs/wire.md`): a candidate whose hello says `"output":"openai-chunks"` answers with the
//! chunks its server would write; the supervisor reads each stream's lines through a
//! [`WireReader`], which reads them as the AI SDK's openai-compatible client does (the events
//! every other verdict judges) and judges the chunks themselves against the wire rules.
//!
//! - [`client`]: the AI SDK v5 client's reading of the chunks (what `adapters/bridge/` ports);
//! - [`rules`]: the wire rules, their severities, and the judge of one stream's chunks;
//! - [`writer`]: events written as chunks, as a correct server writes them (`tch serve
//!   --output openai-chunks`).

pub mod client;
pub mod rules;
pub mod writer;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use thiserror::Error;

use crate::protocol::RequestOptions;

pub use client::AiSdkClient;
pub use rules::{Breach, Rule, WireJudge};
pub use writer::ChunkWriter;

/// What a candidate answers `chunk` and `end` with (its hello's `output`, P5.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Output {
    /// Events (`specs/events.md`), the default.
    #[default]
    Events,
    /// OpenAI `chat.completion.chunk` objects and `[DONE]` (`specs/protocol.md` §5).
    OpenaiChunks,
}

impl Output {
    /// Its name in the hello and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Output::Events => "events",
            Output::OpenaiChunks => "openai-chunks",
        }
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Output {
    type Err = String;

    fn from_str(name: &str) -> Result<Output, String> {
        crate::named::parse(
            &[Output::Events, Output::OpenaiChunks],
            Output::name,
            "output",
            name,
        )
    }
}

/// The `[DONE]` line (P5.3).
pub const DONE: &str = "[DONE]";

/// Why a line of an `openai-chunks` candidate is not a chunk (a `protocol` fault, P5.4).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ChunkLineError {
    /// Not JSON (and not `[DONE]`).
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not an object.
    #[error("a chunk must be a JSON object, got {0}")]
    NotAnObject(String),
}

/// One stream's chunks read: the client's reading and the wire judge side by side.
#[derive(Debug, Default)]
pub struct WireReader {
    client: AiSdkClient,
    judge: WireJudge,
}

impl WireReader {
    /// The reader of choice `choice`'s chunks of a request with `options`
    /// (`specs/protocol.md` §6). The client reads each choice's chunks apart, as a client
    /// that keeps choices by `index` does.
    pub fn for_choice(options: &RequestOptions, choice: u32) -> WireReader {
        WireReader {
            client: AiSdkClient::default(),
            judge: WireJudge::for_choice(options, choice),
        }
    }

    /// Reads one line (a chunk or `[DONE]`): the events it gives, as event objects that are
    /// read afterwards as a candidate's event lines are.
    pub fn line(&mut self, line: &str) -> Result<Vec<Value>, ChunkLineError> {
        if line.trim() == DONE {
            self.judge.done();
            return Ok(Vec::new());
        }
        let chunk: Value =
            serde_json::from_str(line).map_err(|e| ChunkLineError::NotJson(e.to_string()))?;
        if !chunk.is_object() {
            return Err(ChunkLineError::NotAnObject(chunk.to_string()));
        }
        self.judge.chunk(&chunk);
        Ok(self.client.chunk(&chunk))
    }

    /// The stream's end: the events the client gives at its end, and the wire's breaches.
    pub fn finish(mut self) -> (Vec<Value>, Vec<Breach>) {
        (self.client.finish(), self.judge.finish())
    }
}

/// Whether a line of an `openai-chunks` candidate is a control line (`sync`, `done`), which a
/// chunk object (without `type`) never is.
pub fn is_control_line(line: &str) -> bool {
    line.contains("\"type\"")
        && serde_json::from_str::<Value>(line)
            .is_ok_and(|value| matches!(value["type"].as_str(), Some("sync" | "done")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_reader_reads_chunks_done_and_refuses_what_is_no_chunk() {
        let mut reader = WireReader::default();
        let text = json!({"object": "chat.completion.chunk", "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ]});
        assert_eq!(
            reader.line(&text.to_string()),
            Ok(vec![json!({"type": "text-delta", "delta": "hi"})])
        );
        assert_eq!(reader.line(" [DONE] "), Ok(Vec::new()));
        assert!(matches!(
            reader.line("data: {}"),
            Err(ChunkLineError::NotJson(_))
        ));
        assert!(matches!(
            reader.line("[1]"),
            Err(ChunkLineError::NotAnObject(_))
        ));
        let (events, breaches) = reader.finish();
        assert_eq!((events, breaches), (Vec::new(), Vec::new()));
        // Without [DONE] the end breaks W1.3.
        let mut reader = WireReader::default();
        reader.line(&text.to_string()).expect("a chunk");
        let (_, breaches) = reader.finish();
        assert_eq!(
            breaches.iter().map(|b| b.rule).collect::<Vec<_>>(),
            [Rule::DoneOnce]
        );
    }

    #[test]
    fn only_sync_and_done_are_control_lines() {
        assert!(is_control_line(r#"{"type":"sync"}"#));
        assert!(is_control_line(r#"{"type":"done"}"#));
        assert!(!is_control_line(r#"{"type":"text-delta","delta":"x"}"#));
        // A chunk whose tool call has a `type` is a chunk.
        assert!(!is_control_line(
            r#"{"choices":[{"delta":{"tool_calls":[{"type":"function"}]}}]}"#
        ));
        assert!(!is_control_line("[DONE]"));
    }

    #[test]
    fn outputs_read_back() {
        for output in [Output::Events, Output::OpenaiChunks] {
            assert_eq!(output.name().parse(), Ok(output));
        }
        assert!("chunks".parse::<Output>().is_err());
    }
}
