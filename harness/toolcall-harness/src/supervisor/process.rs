//! One candidate process: started by the [`reaper`] (its own process group, a marker its
//! descendants inherit, registered so that an interrupted `tch` ends them all), spoken to line
//! by line with a timeout on every reply. Whatever the candidate does (exit, hang, flood, print
//! garbage) comes back as a [`Fault`]; the supervisor then drops the process (it ends with
//! every process it started) and starts a new one. This is the only code that reads a
//! candidate's bytes.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, SyncSender, channel, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use thiserror::Error;

use crate::definitions::Kind;
use crate::event::{Event, ReadError};
use crate::protocol::{Begin, Hello, PROTOCOL_VERSION, Reply, ReplyError, Request, lenient};
use crate::wire::{Breach, Output, WireReader, is_control_line};

use super::reaper::{self, Lineage};

/// Bounds on what a candidate may do before it is given up on (`specs/protocol.md` §3).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// How long to wait for each reply line.
    pub timeout: Duration,
    /// How long to wait for the `hello` reply: an adapter that imports a large package needs
    /// seconds before it can answer.
    pub start_timeout: Duration,
    /// The longest line accepted.
    pub max_line_bytes: usize,
    /// The most lines accepted in answer to one request.
    pub max_events: usize,
    /// The most bytes accepted in answer to one request.
    pub max_request_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            timeout: Duration::from_secs(5),
            start_timeout: Duration::from_secs(30),
            max_line_bytes: 1 << 20,
            max_events: 100_000,
            max_request_bytes: 64 << 20,
        }
    }
}

/// What went wrong with a candidate; after any fault the process is not used again.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum Fault {
    /// The process exited or closed its output before ending a request.
    #[error("crash: {status}; stderr tail: {stderr_tail:?}")]
    Crash {
        /// Its exit status, or what it closed.
        status: String,
        /// The last 4 KiB of its standard error.
        stderr_tail: String,
    },
    /// No reply line within the timeout.
    #[error("timeout: no reply within {seconds:.1} s; stderr tail: {stderr_tail:?}")]
    Timeout {
        /// The timeout that passed.
        seconds: f64,
        /// The last 4 KiB of its standard error.
        stderr_tail: String,
    },
    /// A line that is not the protocol (`specs/protocol.md` §3).
    #[error("protocol: {reason}")]
    Protocol {
        /// What was wrong with it.
        reason: String,
    },
}

/// Why a candidate could not be started.
#[derive(Debug, Error)]
pub enum StartError {
    /// The program could not be run.
    #[error("cannot start {program:?}: {error}")]
    Spawn {
        /// The program.
        program: String,
        /// Why.
        error: std::io::Error,
    },
    /// It ran, but its `hello` failed.
    #[error("the candidate's hello failed: {0}")]
    Handshake(Fault),
    /// Its `hello` lists dialect names `tch` does not know (`specs/protocol.md` P2.4).
    #[error("the candidate's hello lists unknown dialects {unknown} (tch knows: {known})")]
    UnknownDialects {
        /// The unknown names, quoted and comma-separated.
        unknown: String,
        /// Every name `tch` knows.
        known: String,
    },
    /// The argv was empty.
    #[error("no candidate command given")]
    NoCommand,
    /// `tch` is ending ([`reaper::end_every_candidate`]): nothing more is started.
    #[error("tch is ending: no candidate is started")]
    Ending,
}

/// What a candidate emitted for one stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    /// The events, in order, as read.
    pub events: Vec<Event>,
    /// `events.len()` after each chunk's `sync`: which events each chunk produced.
    pub synced: Vec<usize>,
    /// Calls that carried `args`/`arguments`/`params` instead of `input` (read as if they were
    /// `input`, and reported as a grammar failure).
    pub misnamed_inputs: Vec<String>,
    /// What was repaired to read a line (a half surrogate pair read as U+FFFD, P1.2).
    pub notes: Vec<String>,
    /// For a candidate that answers in OpenAI chunks (`specs/protocol.md` §5), the wire rules
    /// its chunks broke (`specs/wire.md`); empty for one that answers in events.
    pub wire: Vec<Breach>,
}

enum Line {
    Text(String),
    TooLong,
    NotUtf8,
    Closed,
}

/// A running candidate process.
pub struct Candidate {
    child: Child,
    /// What ends it with every process it started; taken when it is dropped.
    lineage: Option<Lineage>,
    /// Request lines for the writer thread; `None` once closed (after `bye`).
    requests: Option<Sender<Vec<u8>>>,
    lines: Receiver<Line>,
    stderr_tail: Arc<Mutex<VecDeque<u8>>>,
    limits: Limits,
    /// The candidate's answer to `hello`.
    pub hello: Hello,
}

const STDERR_TAIL_BYTES: usize = 4096;

impl Candidate {
    /// Starts `argv` and performs the hello handshake.
    pub fn start(argv: &[String], limits: Limits) -> Result<Candidate, StartError> {
        let (program, args) = argv.split_first().ok_or(StartError::NoCommand)?;
        let (mut child, lineage) = reaper::spawn(
            Command::new(program)
                .args(args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped()),
            program,
        )?;
        // Bounded: a flooding candidate blocks on its own writes instead of filling our memory.
        let (sender, lines) = sync_channel(64);
        if let Some(stdout) = child.stdout.take() {
            thread::spawn(move || read_lines(stdout, limits.max_line_bytes, sender));
        }
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        if let Some(stderr) = child.stderr.take() {
            let tail = Arc::clone(&stderr_tail);
            thread::spawn(move || keep_tail(stderr, tail));
        }
        // Writes happen on their own thread: a candidate that stops reading its input must not
        // block `tch` in a write (pipes hold 64 KiB); the reply deadline covers a stuck writer,
        // and ending the candidate unblocks it.
        let (requests, pending) = channel::<Vec<u8>>();
        if let Some(stdin) = child.stdin.take() {
            thread::spawn(move || write_lines(stdin, pending));
        }
        let mut candidate = Candidate {
            requests: Some(requests),
            child,
            lineage: Some(lineage),
            lines,
            stderr_tail,
            limits,
            hello: Hello::default(),
        };
        candidate.hello = candidate.handshake().map_err(StartError::Handshake)?;
        Ok(candidate)
    }

    fn handshake(&mut self) -> Result<Hello, Fault> {
        self.send(&Request::Hello {
            protocol: PROTOCOL_VERSION,
        })?;
        let line = self.next_line(self.limits.start_timeout)?;
        match Reply::parse(&line) {
            Ok(Reply::Hello(hello)) if hello.protocol == PROTOCOL_VERSION => Ok(hello),
            Ok(Reply::Hello(hello)) => Err(protocol(format!(
                "hello speaks protocol {}, tch speaks {PROTOCOL_VERSION}",
                hello.protocol
            ))),
            Ok(_) => Err(protocol(format!(
                "expected a {{\"type\":\"hello\",…}} reply, got {}",
                excerpt(&line)
            ))),
            Err(error) => Err(protocol(format!(
                "expected a {{\"type\":\"hello\",…}} reply, got {} ({error})",
                excerpt(&line)
            ))),
        }
    }

    /// Runs one stream: `begin`, a `chunk` per chunk (reading events up to `sync`), `end`
    /// (reading events up to `done`); past `deadline`, if any, it stops as a timeout.
    pub fn run_stream(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Transcript, Fault> {
        let mut transcripts = self.run_choices(begin, chunks, deadline)?;
        Ok(transcripts.swap_remove(0))
    }

    /// Runs one stream of `begin.options.n` choices (`specs/protocol.md` P6.7), each answering
    /// the same `chunks`: chunk by chunk, each chunk sent to every choice in turn (so that
    /// state shared between choices shows), then every choice ended in turn. One transcript
    /// per choice. With one choice, the requests name none.
    pub fn run_choices(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
        deadline: Option<Instant>,
    ) -> Result<Vec<Transcript>, Fault> {
        self.nothing_since_done()?;
        let started = Instant::now();
        self.send(&Request::Begin(begin.clone()))?;
        let stream = begin.stream.as_str();
        let count = begin.options.choices();
        let named = |choice: u32| (count > 1).then_some(choice);
        let mut transcripts: Vec<Transcript> = (0..count).map(|_| Transcript::default()).collect();
        // A candidate that answers in OpenAI chunks: its lines read as a client reads them,
        // and judged against the wire rules (P5.4), each choice's apart.
        let mut wires: Vec<Option<WireReader>> = (0..count)
            .map(|choice| {
                (self.hello.output == Output::OpenaiChunks)
                    .then(|| WireReader::for_choice(&begin.options, choice))
            })
            .collect();
        for chunk in chunks {
            if let Some(deadline) = deadline
                && Instant::now() > deadline
            {
                return Err(Fault::Timeout {
                    seconds: (Instant::now() - started).as_secs_f64(),
                    stderr_tail: self.stderr_tail(),
                });
            }
            for (choice, (transcript, wire)) in (0..).zip(transcripts.iter_mut().zip(&mut wires)) {
                self.send(&Request::Chunk {
                    stream: stream.to_owned(),
                    choice: named(choice),
                    text: (*chunk).to_owned(),
                })?;
                self.read_events(transcript, Reply::Sync, wire)?;
                transcript.synced.push(transcript.events.len());
            }
        }
        for (choice, (transcript, wire)) in (0..).zip(transcripts.iter_mut().zip(&mut wires)) {
            self.send(&Request::End {
                stream: stream.to_owned(),
                choice: named(choice),
            })?;
            self.read_events(transcript, Reply::Done, wire)?;
        }
        Ok(transcripts)
    }

    /// Asks for the parser's non-streaming result (`specs/protocol.md` P2.11): `begin`, then
    /// the whole reply in one `non-streaming` request (reading events up to `done`).
    pub fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, Fault> {
        self.nothing_since_done()?;
        self.send(&Request::Begin(begin.clone()))?;
        self.send(&Request::NonStreaming {
            stream: begin.stream.clone(),
            text: text.to_owned(),
        })?;
        let mut transcript = Transcript::default();
        // A chunk candidate answers with its server's `chat.completion` object (P5.7).
        let mut wire = (self.hello.output == Output::OpenaiChunks)
            .then(|| WireReader::completion(&begin.options));
        self.read_events(&mut transcript, Reply::Done, &mut wire)?;
        Ok(transcript)
    }

    /// A line the last stream's `done` did not end, arrived since: charged to that stream
    /// here, before it could be read as the next stream's (`specs/protocol.md` P2.6).
    fn nothing_since_done(&mut self) -> Result<(), Fault> {
        if let Ok(Line::Text(line)) = self.lines.try_recv() {
            return Err(protocol(format!(
                "a line after the previous stream's done: {}",
                excerpt(&line)
            )));
        }
        Ok(())
    }

    /// Asks for a definition's contract: `Ok(Ok(value))`, or `Ok(Err(errorText))` when the
    /// candidate refuses the definition.
    pub fn definition(&mut self, kind: Kind, text: &str) -> Result<Result<Value, String>, Fault> {
        self.send(&Request::Definition {
            kind,
            text: text.to_owned(),
        })?;
        let line = self.next_line(self.limits.timeout)?;
        match Reply::parse(&line) {
            Ok(Reply::Definition(value)) => Ok(Ok(value)),
            Ok(Reply::Event(Event::Error { error_text })) => Ok(Err(error_text)),
            Ok(other) => Err(protocol(format!(
                "expected a definition or an error, got {other:?}"
            ))),
            Err(error) => Err(protocol(format!("{error} in {}", excerpt(&line)))),
        }
    }

    /// Reads events until `closing` (`sync` or `done`). Every line counts toward the flood
    /// limits, so neither ignored lines nor huge ones can keep a request open forever. With a
    /// `wire` reader, lines other than `sync`/`done` are chunks: the events are the client's
    /// reading of them, and at `done` its end's events and the wire's breaches are added.
    fn read_events(
        &mut self,
        transcript: &mut Transcript,
        closing: Reply,
        wire: &mut Option<WireReader>,
    ) -> Result<(), Fault> {
        let (mut lines, mut bytes) = (0usize, 0usize);
        loop {
            let line = self.next_line(self.limits.timeout)?;
            lines += 1;
            bytes += line.len();
            if lines > self.limits.max_events || bytes > self.limits.max_request_bytes {
                return Err(protocol(format!(
                    "flood: more than {} lines or {} bytes for one request",
                    self.limits.max_events, self.limits.max_request_bytes
                )));
            }
            if let Some(reader) = wire.as_mut()
                && !is_control_line(&line)
            {
                let events = reader
                    .line(&line)
                    .map_err(|error| protocol(format!("{error} in {}", excerpt(&line))))?;
                read_derived(&events, transcript)?;
                continue;
            }
            if closing == Reply::Done
                && let Some(reader) = wire.take()
            {
                let (events, breaches) = reader.finish();
                read_derived(&events, transcript)?;
                transcript.wire = breaches;
            }
            match read_reply(&line, &mut transcript.notes) {
                Ok((Reply::Event(event), misnamed)) => {
                    if let Some(field) = misnamed {
                        transcript.misnamed_inputs.push(field);
                    }
                    transcript.events.push(event);
                }
                Ok((Reply::Nothing, _)) => {}
                Ok((reply, _)) if reply == closing => return self.nothing_after(closing),
                Ok((reply, _)) => {
                    let expected = if closing == Reply::Sync {
                        "sync"
                    } else {
                        "done"
                    };
                    return Err(protocol(format!(
                        "expected events then {expected}, got {reply:?}"
                    )));
                }
                Err(error) => return Err(protocol(format!("{error} in {}", excerpt(&line)))),
            }
        }
    }

    /// After `done`, nothing may follow until the next request: a stray line would otherwise be
    /// charged to the next stream. (Lines still in flight are caught by the next stream's own
    /// checks.)
    fn nothing_after(&mut self, closing: Reply) -> Result<(), Fault> {
        if closing == Reply::Done
            && let Ok(Line::Text(line)) = self.lines.try_recv()
        {
            return Err(protocol(format!("a line after done: {}", excerpt(&line))));
        }
        Ok(())
    }

    fn send(&mut self, request: &Request) -> Result<(), Fault> {
        let mut line = serde_json::to_string(request).unwrap_or_default();
        line.push('\n');
        let queued = self
            .requests
            .as_ref()
            .is_some_and(|requests| requests.send(line.into_bytes()).is_ok());
        // The writer thread has ended only if the candidate closed its input.
        if queued {
            Ok(())
        } else {
            Err(self.crash("closed its input"))
        }
    }

    /// The next line, waiting at most the timeout. The wait is sliced so that a candidate that
    /// exited is seen as a crash at once, even when a child of it still holds its output open.
    fn next_line(&mut self, timeout: Duration) -> Result<String, Fault> {
        const SLICE: Duration = Duration::from_millis(50);
        let started = Instant::now();
        loop {
            let left = timeout.saturating_sub(started.elapsed());
            match self.lines.recv_timeout(left.min(SLICE)) {
                Ok(Line::Text(line)) => return Ok(line),
                Ok(Line::TooLong) => {
                    return Err(protocol(format!(
                        "flood: a line longer than {} bytes",
                        self.limits.max_line_bytes
                    )));
                }
                Ok(Line::NotUtf8) => return Err(protocol("a line that is not UTF-8".into())),
                Ok(Line::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.crash("closed its output"));
                }
                Err(RecvTimeoutError::Timeout) => {
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        return Err(self.crash("exited"));
                    }
                    if left <= SLICE {
                        return Err(Fault::Timeout {
                            seconds: timeout.as_secs_f64(),
                            stderr_tail: self.stderr_tail(),
                        });
                    }
                }
            }
        }
    }

    /// The candidate closed its output or input, or exited: wait briefly for its exit status.
    fn crash(&mut self, what: &str) -> Fault {
        let mut status = what.to_owned();
        for _ in 0..50 {
            if let Ok(Some(exit)) = self.child.try_wait() {
                status = exit.to_string();
                break;
            }
            thread::sleep(Duration::from_millis(10));
        }
        // Let the stderr thread drain what the process wrote before it died.
        thread::sleep(Duration::from_millis(20));
        Fault::Crash {
            status,
            stderr_tail: self.stderr_tail(),
        }
    }

    /// The candidate's process id (`tch run`'s scaling cases read its CPU time).
    pub fn process_id(&self) -> u32 {
        self.child.id()
    }

    /// The last 4 KiB of the candidate's standard error.
    pub fn stderr_tail(&self) -> String {
        let tail = self
            .stderr_tail
            .lock()
            .map(|t| t.iter().copied().collect::<Vec<u8>>())
            .unwrap_or_default();
        without_thread_ids(&String::from_utf8_lossy(&tail))
    }

    /// Says `bye` and gives the process a moment to exit before it is ended with every process
    /// it started.
    pub fn shutdown(mut self) {
        let _ = self.send(&Request::Bye);
        // Dropping the sender ends the writer thread, which closes the candidate's input.
        self.requests = None;
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

/// `text` with the id a Rust panic gives its thread left out (`thread 'main' (17003)
/// panicked at` becomes `thread 'main' panicked at`): the operating system's thread id,
/// different in every process, would change the reports quoting it on every run
/// (`specs/runner.md` R6.6).
fn without_thread_ids(text: &str) -> String {
    const OPEN: &str = "' (";
    const CLOSE: &str = ") panicked";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let digits = after.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(CLOSE) {
            // Keep the closing quote of the thread's name, drop ` (ID)`.
            out.push_str(&rest[..=at]);
            rest = &after[digits + 1..];
        } else {
            out.push_str(&rest[..at + OPEN.len()]);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

impl Drop for Candidate {
    fn drop(&mut self) {
        // Every process it started ends with it (`specs/runner.md` R1.3): a helper in a
        // session of its own, or one that holds its output open, too.
        if let Some(lineage) = self.lineage.take() {
            lineage.end(&mut self.child);
        }
    }
}

/// Events the client derived from chunks, read as a candidate's event lines are (a call's
/// input text is JSON read leniently, P1.2).
fn read_derived(events: &[Value], transcript: &mut Transcript) -> Result<(), Fault> {
    for event in events {
        let line = event.to_string();
        match read_reply(&line, &mut transcript.notes) {
            Ok((Reply::Event(event), _)) => transcript.events.push(event),
            Ok(_) => {}
            Err(error) => return Err(protocol(format!("{error} in the client's {line}"))),
        }
    }
    Ok(())
}

/// A reply line read; a call with a misnamed input is read as if it were `input`, and the
/// misnamed field is returned beside it. What is JSON by syntax but breaks a JSON rule is read
/// as [`lenient`] says, and `notes` says so (P1.2): what it carried is then judged as events,
/// not refused as the protocol.
fn read_reply(line: &str, notes: &mut Vec<String>) -> Result<(Reply, Option<String>), ReplyError> {
    match Reply::parse(line) {
        Err(ReplyError::NotJson(error)) => match lenient::repair_lone_surrogates(line) {
            Some((repaired, halves)) => {
                let reply = read_reply(&repaired, &mut Vec::new())?;
                notes.push(format!(
                    "the candidate sent half a surrogate pair ({}), read as U+FFFD",
                    halves.join(", ")
                ));
                Ok(reply)
            }
            None => Err(ReplyError::NotJson(error)),
        },
        Err(ReplyError::Event(ReadError::InputNotJson { .. })) => {
            let mut value: Value =
                serde_json::from_str(line).map_err(|e| ReplyError::NotJson(e.to_string()))?;
            if let Some(object) = value.as_object_mut()
                && let Some(Value::String(text)) = object.remove("input")
            {
                let (input, note) = lenient::read_input_text(&text);
                if !note.is_empty() {
                    notes.push(note);
                }
                object.insert("input".to_owned(), input);
            }
            read_reply(&value.to_string(), notes)
        }
        Err(ReplyError::Event(ReadError::MisnamedInput { field, .. })) => {
            let mut value: Value =
                serde_json::from_str(line).map_err(|e| ReplyError::NotJson(e.to_string()))?;
            if let Some(object) = value.as_object_mut()
                && let Some(input) = object.remove(field)
            {
                object.insert("input".to_owned(), input);
            }
            let event = Event::from_value(value)?;
            Ok((Reply::Event(event), Some(field.to_owned())))
        }
        reply => reply.map(|r| (r, None)),
    }
}

/// Splits a command line like a POSIX shell would split words: blanks separate, `'…'` and
/// `"…"` quote, `\` escapes the next character (inside `"…"` only before `"`, `\`, `$`,
/// `` ` ``). No expansion of any kind: no shell is run.
pub fn split_command_line(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => current.push(c),
                        None => return Err("unclosed single quote".into()),
                    }
                }
            }
            '"' => {
                let current = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => current.push(c),
                            Some(c) => current.extend(['\\', c]),
                            None => return Err("unclosed double quote".into()),
                        },
                        Some(c) => current.push(c),
                        None => return Err("unclosed double quote".into()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a trailing backslash escapes nothing".into()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

fn protocol(reason: String) -> Fault {
    Fault::Protocol { reason }
}

/// A line cut for an error message.
fn excerpt(line: &str) -> String {
    let mut end = line.len().min(120);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    if end < line.len() {
        format!("{:?}…", &line[..end])
    } else {
        format!("{line:?}")
    }
}

/// Writes each request line to the candidate; stops at the first failed write (the candidate
/// closed its input) or when the sender is dropped, closing the candidate's input either way.
fn write_lines(mut stdin: ChildStdin, requests: Receiver<Vec<u8>>) {
    for line in requests {
        if stdin.write_all(&line).and_then(|()| stdin.flush()).is_err() {
            return;
        }
    }
}

/// Reads `\n`-terminated lines, refusing any longer than `max`; ends with `Closed` at EOF.
fn read_lines(stdout: impl Read, max: usize, sender: SyncSender<Line>) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok([]) => break,
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        };
        let (taken, complete) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        line.extend_from_slice(&available[..taken]);
        reader.consume(taken);
        if line.len() > max {
            let _ = sender.send(Line::TooLong);
            return;
        }
        if complete {
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let message = match String::from_utf8(std::mem::take(&mut line)) {
                Ok(text) => Line::Text(text),
                Err(_) => Line::NotUtf8,
            };
            if sender.send(message).is_err() {
                return;
            }
        }
    }
    let _ = sender.send(Line::Closed);
}

fn keep_tail(mut stderr: impl Read, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut buffer = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut buffer) {
        if n == 0 {
            break;
        }
        if let Ok(mut tail) = tail.lock() {
            tail.extend(&buffer[..n]);
            let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
            tail.drain(..excess);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rust_panic_s_thread_id_is_left_out() {
        let tail = "\nthread 'main' (17003) panicked at src/step3.rs:523:40:\nindex 243\n\
                    thread 'tokio-runtime-worker' (9) panicked at x.rs:1:1:\n";
        assert_eq!(
            without_thread_ids(tail),
            "\nthread 'main' panicked at src/step3.rs:523:40:\nindex 243\n\
             thread 'tokio-runtime-worker' panicked at x.rs:1:1:\n"
        );
        // Nothing else changes: no digits, or not a panic's header.
        for kept in ["it' (12) ran", "thread 'main' () panicked", "a' (", "' (7"] {
            assert_eq!(without_thread_ids(kept), kept);
        }
    }

    #[test]
    fn halves_of_surrogate_pairs_are_read_as_replacement_chars() {
        let line = r#"{"type":"tool-call","toolCallId":"c","toolName":"f","input":{"v":"\udf27 \ud83c\udf27 \\udf27 \ud83c"}}"#;
        let mut notes = Vec::new();
        let (reply, _) = read_reply(line, &mut notes).expect("read");
        let Reply::Event(Event::ToolCall(call)) = reply else {
            panic!("{reply:?}")
        };
        assert_eq!(call.input["v"], "\u{FFFD} \u{1F327} \\udf27 \u{FFFD}");
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains(r"\udf27, \ud83c"), "{notes:?}");
        assert!(
            read_reply(
                r#"{"type":"text-delta","delta":"\ud83c\udf27"}"#,
                &mut notes
            )
            .is_ok()
        );
        assert_eq!(notes.len(), 1, "a whole pair needs no note");
        assert!(read_reply("{\"type\":\"text-delta\",\"delta\":\"\\udf27\"", &mut notes).is_err());
    }

    #[test]
    fn splits_like_a_shell_without_running_one() {
        assert_eq!(
            split_command_line("python3 a.py --x 1"),
            Ok(vec![
                "python3".into(),
                "a.py".into(),
                "--x".into(),
                "1".into()
            ])
        );
        assert_eq!(
            split_command_line(r#"node 'my dir/a.js' "say \"hi\"" a\ b $HOME"#),
            Ok(vec![
                "node".into(),
                "my dir/a.js".into(),
                "say \"hi\"".into(),
                "a b".into(),
                "$HOME".into()
            ])
        );
        assert_eq!(split_command_line("''"), Ok(vec![String::new()]));
        assert!(split_command_line("'open").is_err());
        assert!(split_command_line("x\\").is_err());
    }
}
