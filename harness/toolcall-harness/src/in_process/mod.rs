//! A parser in this process as a candidate: what a Rust parser crate implements to be judged
//! in its own `cargo test`, and fuzzed with coverage (`fuzz/`), without the protocol.
//!
//! A [`Candidate`] is told each stream's `begin` (dialect, generation prompt, tools, the same
//! [`Begin`] the protocol sends), then its chunks, then the end, and answers with events. Its
//! replays are judged exactly as `tch run` judges a process's ([`crate::runner`]'s one
//! `run_case`): the same chunkings, the same judge, the same verdicts and root causes. What the
//! protocol guards against and a process cannot do here: a panic is caught and judged a
//! `crash` (the candidate is made again, as a process is restarted), but a hang hangs the
//! test, so hostile parsers belong behind the protocol.
//!
//! [`check::Check`] runs the bundled corpus (or a folder) through a candidate and prints the
//! findings as `tch run` does, root causes first; [`Reference`] is `tch`'s own reference
//! parsers as such a candidate, which passes through the same path.
//!
//! ```no_run
//! use toolcall_harness::dialect::Dialect;
//! use toolcall_harness::event::Event;
//! use toolcall_harness::in_process::{Candidate, Check};
//! use toolcall_harness::protocol::Begin;
//!
//! /// The parser under test, as the crate's users drive it.
//! #[derive(Default)]
//! struct MyParser {
//!     buffer: String,
//! }
//!
//! impl Candidate for MyParser {
//!     fn begin(&mut self, _begin: &Begin) {
//!         self.buffer.clear();
//!     }
//!     fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
//!         // A parser that knows no calls: every byte is text.
//!         events.push(Event::TextDelta { delta: chunk.to_owned() });
//!     }
//!     fn end(&mut self, _events: &mut Vec<Event>) {}
//! }
//!
//! // In `tests/conformance.rs`: one test, which prints the findings and fails on any that
//! // `tests/tch-expect-fail.txt` does not list.
//! Check::new("my-parser", &[Dialect::Hermes], MyParser::default)
//!     .expect_fail("tests/tch-expect-fail.txt")
//!     .run()
//!     .expect("the corpus and the expect-fail file read")
//!     .assert_passed();
//! ```

pub mod check;
mod panics;

use std::sync::Arc;

pub use check::{Check, CheckError, Checked};

use crate::dialect::Dialect;
use crate::event::{Event, ReadError};
use crate::fuzz::replayer::StreamCandidate;
use crate::parser::StreamParser;
use crate::protocol::{Begin, lenient};
use crate::supervisor::{Fault, ReplayError, Transcript};
use crate::tools::Registry;

/// A streaming parser run in this process, as a stream's client drives it.
///
/// For each stream, `begin`, then `push` once per chunk (an empty chunk included), then `end`:
/// the protocol's `begin`, `chunk` and `end` (`specs/protocol.md`). Events are appended to
/// `events` as the parser completes them; what it appends during a `push` is what it released
/// after that chunk (latency and streaming verdicts read it so).
pub trait Candidate {
    /// Starts a stream: its dialect by name, the generation prompt it continues, the tools
    /// declared. Forgets any earlier stream.
    fn begin(&mut self, begin: &Begin);

    /// Feeds the next chunk.
    fn push(&mut self, chunk: &str, events: &mut Vec<Event>);

    /// Ends the stream: the events still held back.
    fn end(&mut self, events: &mut Vec<Event>);

    /// Whether [`Candidate::non_streaming`] is the parser's own non-streaming path (the
    /// protocol's `"nonStreaming":true`, `specs/protocol.md` P2.11): then every case is also
    /// judged whole against streamed (`specs/runner.md` R2.3), as over the protocol.
    const NON_STREAMING: bool = false;

    /// After `begin`, instead of `push` and `end`: the parser's non-streaming result for the
    /// whole reply `text`. Called only when [`Candidate::NON_STREAMING`] is true.
    fn non_streaming(&mut self, text: &str, events: &mut Vec<Event>) {
        let _ = (text, events);
    }
}

/// Reads an event given as its JSON object, as `tch` reads a candidate's event line over the
/// protocol: either AI SDK vocabulary (`Event::from_value`), and a call's `input` text that is
/// not JSON kept as the judge's marked stand-in (`protocol::lenient::read_input_text`), so that
/// a candidate that builds its events as JSON (an adapter shared with a protocol binary) is
/// judged the same in process. Bracketing parts (`text-start`, …) and other unreadable objects
/// are errors, as they are protocol faults over the protocol.
pub fn read_event(value: serde_json::Value) -> Result<Event, ReadError> {
    let string_input = value.get("input").is_some_and(serde_json::Value::is_string);
    if !string_input {
        return Event::from_value(value);
    }
    let mut value = value;
    match Event::from_value(value.clone()) {
        Err(ReadError::InputNotJson { .. }) => {
            if let Some(object) = value.as_object_mut()
                && let Some(serde_json::Value::String(text)) = object.remove("input")
            {
                object.insert("input".to_owned(), lenient::read_input_text(&text).0);
            }
            Event::from_value(value)
        }
        read => read,
    }
}

/// A [`Candidate`] as the judge replays it: one stream at a time, a panic caught and judged a
/// crash, after which the candidate is made anew by `make` (as a process is restarted).
pub struct Guarded<F, C> {
    make: F,
    candidate: Option<C>,
}

impl<F: Fn() -> C, C: Candidate> Guarded<F, C> {
    /// Candidates made by `make`, the first one now.
    pub fn new(make: F) -> Guarded<F, C> {
        let candidate = Some(make());
        Guarded { make, candidate }
    }
}

impl<F: Fn() -> C, C: Candidate> Guarded<F, C> {
    /// Runs `replay` on the candidate, a panic caught as a crash.
    fn replay(
        &mut self,
        replay: impl FnOnce(&mut C) -> Transcript,
    ) -> Result<Transcript, ReplayError> {
        let mut candidate = match self.candidate.take() {
            Some(candidate) => candidate,
            None => panics::quietly(&self.make).map_err(crashed)?,
        };
        match panics::quietly(|| replay(&mut candidate)) {
            Ok(transcript) => {
                self.candidate = Some(candidate);
                Ok(transcript)
            }
            // The candidate's state is whatever the panic left: the next stream gets a new one.
            Err(panic) => Err(crashed(panic)),
        }
    }
}

impl<F: Fn() -> C, C: Candidate> StreamCandidate for Guarded<F, C> {
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        self.replay(|candidate| {
            let mut transcript = Transcript::default();
            candidate.begin(begin);
            for chunk in chunks {
                candidate.push(chunk, &mut transcript.events);
                transcript.synced.push(transcript.events.len());
            }
            candidate.end(&mut transcript.events);
            transcript
        })
    }

    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        self.replay(|candidate| {
            let mut transcript = Transcript::default();
            candidate.begin(begin);
            candidate.non_streaming(text, &mut transcript.events);
            transcript
        })
    }
}

/// A caught panic as the fault a process's crash is.
fn crashed(panic: String) -> ReplayError {
    ReplayError::Fault(Fault::Crash {
        status: format!("panicked: {panic}"),
        stderr_tail: String::new(),
    })
}

/// `tch`'s reference parsers as an in-process candidate, for every dialect.
pub struct Reference {
    tools: Arc<Registry>,
    parser: Option<Box<dyn StreamParser>>,
}

impl Reference {
    /// The references, with `tools` (the registry their values are typed by, as `tch run`'s).
    pub fn new(tools: Arc<Registry>) -> Reference {
        Reference {
            tools,
            parser: None,
        }
    }
}

impl Candidate for Reference {
    fn begin(&mut self, begin: &Begin) {
        self.parser = Dialect::ALL
            .iter()
            .find(|d| d.name() == begin.dialect)
            .map(|d| d.reference_parser(&self.tools, begin.prefill.as_deref().unwrap_or("")));
    }

    fn push(&mut self, chunk: &str, events: &mut Vec<Event>) {
        if let Some(parser) = self.parser.as_mut() {
            parser.push(chunk, events);
        }
    }

    fn end(&mut self, events: &mut Vec<Event>) {
        if let Some(parser) = self.parser.as_mut() {
            parser.finish(events);
        }
    }
}
