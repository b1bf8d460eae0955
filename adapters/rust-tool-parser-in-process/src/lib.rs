//! The Rust crates `tool-parser` and `reasoning-parser` 1.10.0 (the SMG model gateway's parsers)
//! as a tch candidate in this process: [`ToolParser`] implements
//! [`toolcall_harness::in_process::Candidate`] by driving a
//! [`tch_adapter_tool_parser::Session`], the protocol adapter's own code (the gateway's
//! streaming, yielding the `chat.completion.chunk` lines it writes), so a verdict in process and
//! one over the protocol come from the same code. The lines are read here as `tch` reads an
//! `openai-chunks` candidate's (`specs/protocol.md` §5): by [`toolcall_harness::wire::WireReader`]
//! (the AI SDK client's reading), whose events [`toolcall_harness::in_process::read_event`]
//! reads as tch reads an event line. The wire rules' breaches are not judged here (the
//! in-process candidate has no place for them): `tch run` judges them over the protocol. The
//! non-streaming request (`specs/protocol.md` P2.11) goes through the gateway's non-streaming
//! path, whose `chat.completion` object is read as over the protocol (P5.7).
//!
//! `tests/conformance.rs` runs the corpus through it; `fuzz/` fuzzes it against the reference
//! with coverage.

use tch_adapter_tool_parser::{Factories, Session, dialects};
use toolcall_harness::dialect::Dialect;
use toolcall_harness::event::Event;
use toolcall_harness::in_process::{Candidate, read_event};
use toolcall_harness::protocol::{Begin, RequestOptions};
use toolcall_harness::wire::WireReader;

pub use tch_adapter_tool_parser::NAME;

/// The parsers as a candidate: one [`Session`] per stream, from factories made once (as the
/// gateway makes them at start-up, and the protocol binary once per process).
pub struct ToolParser {
    factories: Factories,
    session: Option<Session>,
    /// The client reading this stream's chunks (or its non-streaming answer).
    reader: WireReader,
    /// The stream's request options, for the reader of a non-streaming answer.
    options: RequestOptions,
}

impl ToolParser {
    /// A candidate with fresh factories.
    pub fn new() -> ToolParser {
        ToolParser {
            factories: Factories::new(),
            session: None,
            reader: WireReader::default(),
            options: RequestOptions::default(),
        }
    }

    /// The tch dialects a deployment serves (the protocol binary's hello lists the same).
    pub fn dialects() -> Vec<Dialect> {
        dialects::DIALECTS
            .iter()
            .map(|d| {
                d.name
                    .parse()
                    .unwrap_or_else(|e| panic!("the adapter's dialect {}: {e}", d.name))
            })
            .collect()
    }

    /// The events the client gives for the gateway's lines.
    fn read(&mut self, lines: Vec<String>, events: &mut Vec<Event>) {
        for line in lines {
            match self.reader.line(&line) {
                Ok(values) => Self::emit(values, events),
                // Over the protocol this line would be a `protocol` fault; here, a crash.
                Err(error) => panic!("the adapter wrote a line that is no chunk: {error}"),
            }
        }
    }

    fn emit(values: Vec<serde_json::Value>, events: &mut Vec<Event>) {
        for value in values {
            match read_event(value) {
                Ok(event) => events.push(event),
                // Over the protocol this line would be a `protocol` fault; here, a crash.
                Err(error) => panic!("the adapter wrote an event tch cannot read: {error}"),
            }
        }
    }
}

impl Default for ToolParser {
    fn default() -> Self {
        Self::new()
    }
}

impl Candidate for ToolParser {
    fn begin(&mut self, begin: &Begin) {
        // The protocol's `begin` as its JSON line carries it: the adapter reads that.
        let request = serde_json::to_value(begin).expect("a begin is JSON");
        self.session =
            Some(Session::begin(&request, &self.factories).expect("the async runtime builds"));
        self.reader = WireReader::for_choice(&begin.options, 0);
        self.options = begin.options.clone();
    }

    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        if let Some(lines) = self.session.as_mut().map(|session| session.chunk(chunk)) {
            self.read(lines, events);
        }
    }

    fn end(&mut self, events: &mut Vec<Event>) {
        if let Some(mut session) = self.session.take() {
            let lines = session.end();
            self.read(lines, events);
        }
        // The client's end of stream: it finishes the calls still open.
        let (values, _breaches) = std::mem::take(&mut self.reader).finish();
        Self::emit(values, events);
    }

    /// The gateway's non-streaming chat path, as over the protocol (P2.11).
    const NON_STREAMING: bool = true;

    fn non_streaming(&mut self, text: &str, events: &mut Vec<Event>) {
        // Its one `chat.completion` object, read as the client reads a response body (P5.7).
        self.reader = WireReader::completion(&self.options);
        if let Some(mut session) = self.session.take() {
            let lines = session.non_streaming(text);
            self.read(lines, events);
        }
        let (values, _breaches) = std::mem::take(&mut self.reader).finish();
        Self::emit(values, events);
    }
}
