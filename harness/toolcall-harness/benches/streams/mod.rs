//! The streams the benches feed every reference parser, built by code: prose, prose with calls
//! making about 1% of its bytes, and one call whose string argument is about 1 MiB; each
//! dialect's call written around a string argument by [`Call`], and checked by the reference
//! before anything is measured.
//!
//! Each bench uses part of this module.
#![allow(dead_code)]

use std::sync::Arc;

use serde_json::json;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::{CallAround, Dialect, Values};
use toolcall_harness::event::Event;
use toolcall_harness::parser::{self, Run};
use toolcall_harness::split;
use toolcall_harness::tools::Registry;

/// The bundled registry: every call below is to its `GetWeather`, whose `location` is a
/// string.
pub fn tools() -> Arc<Registry> {
    Arc::new(bundled_registry().expect("the bundled tools load"))
}

/// The benches' criterion: ten samples of about a second each, a short warm-up (a 1 MiB
/// stream in 1-byte chunks takes tens of milliseconds, so that is enough samples).
pub fn criterion() -> criterion::Criterion {
    criterion::Criterion::default()
        .sample_size(10)
        .warm_up_time(std::time::Duration::from_millis(300))
        .measurement_time(std::time::Duration::from_secs(1))
}

/// A small deterministic generator (SplitMix64), so that every run measures the same bytes.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Words of a model's prose: mostly ASCII, some accented letters and an emoji, inline code and
/// bold, and a rare `<=` (the first byte of most dialects' markers).
const WORDS: &[&str] = &[
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "that",
    "for",
    "it",
    "with",
    "as",
    "on",
    "be",
    "this",
    "file",
    "function",
    "returns",
    "value",
    "call",
    "result",
    "weather",
    "report",
    "config",
    "parser",
    "stream",
    "because",
    "however,",
    "which",
    "should",
    "would",
    "could",
    "first",
    "then",
    "finally",
    "example",
    "data",
    "user",
    "request",
    "response",
    "error",
    "`main.rs`",
    "`Vec<u8>`",
    "**note**",
    "café",
    "naïve",
    "résumé",
    "Zürich",
    "🌤",
    "—",
    "i.e.",
    "42",
    "3.14",
    "(see",
    "above)",
    "done.",
    "next,",
    "line",
    "string",
    "number",
    "<=",
];

/// About `bytes` bytes of prose (at least `bytes`, cut at a word): lines of 60 to 100 bytes,
/// paragraphs of 3 to 8 lines, now and then a list item. No dialect's call syntax.
pub fn prose(bytes: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::with_capacity(bytes + 128);
    let mut line_len = 0;
    let mut line_target = 60 + rng.below(40);
    let mut lines_left = 3 + rng.below(6);
    while out.len() < bytes {
        let word = WORDS[rng.below(WORDS.len())];
        if word == "<=" && rng.below(8) != 0 {
            continue;
        }
        if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(word);
        line_len += word.len();
        if line_len >= line_target {
            lines_left -= 1;
            if lines_left == 0 {
                out.push_str(".\n\n");
                lines_left = 3 + rng.below(6);
                if rng.below(4) == 0 {
                    out.push_str("- ");
                }
            } else {
                out.push('\n');
            }
            line_len = 0;
            line_target = 60 + rng.below(40);
        }
    }
    out
}

/// A call's string argument of about `bytes` bytes: prose-like lines, so with newlines, which
/// each dialect writes its own way.
pub fn argument(bytes: usize, seed: u64) -> String {
    let mut text = prose(bytes, seed);
    // Lines, no paragraphs: a file's content.
    text = text.replace("\n\n", "\n");
    text.truncate(text.trim_end().len());
    text
}

/// One dialect's call to `GetWeather`: what comes before its `location` argument and after
/// it, as its descriptor writes it (`Descriptor::call`), on a line of its own.
pub struct Call {
    values: Values,
    before: String,
    after: &'static str,
}

impl Call {
    /// The `n`th call of a stream (some dialects number their ids) in `dialect`.
    pub fn of(dialect: Dialect, n: usize) -> Call {
        let CallAround {
            before,
            after,
            values,
        } = dialect.descriptor().call;
        Call {
            values,
            // The line-based dialects (md-fence, signature, DSML) open a call at a line start.
            before: format!("\n{}", before.replace("{n}", &(n + 1).to_string())),
            after,
        }
    }

    /// The call with `argument` as its `location`, appended to `out`.
    pub fn write(&self, argument: &str, out: &mut String) {
        out.push_str(&self.before);
        match self.values {
            Values::Text => out.push_str(argument),
            Values::Json => {
                let quoted = serde_json::to_string(argument).expect("a string serialises");
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
        }
        out.push_str(self.after);
    }
}

/// A stream to measure, with what the reference must make of it.
pub struct Stream {
    pub name: &'static str,
    pub text: String,
    /// The `location` of each call, in order.
    pub calls: Vec<String>,
}

/// Prose only, about `bytes` bytes.
pub fn prose_only(bytes: usize) -> Stream {
    Stream {
        name: "prose",
        text: prose(bytes, 1),
        calls: Vec::new(),
    }
}

/// About `bytes` bytes of prose with calls: each call (about 120 to 250 bytes, its argument a
/// 60-byte line) follows 99 times its own length of prose, so calls are about 1% of the bytes.
pub fn mixed(dialect: Dialect, bytes: usize) -> Stream {
    with_calls("mixed-1pct", dialect, bytes, 99)
}

/// About `bytes` bytes of calls, each after as much prose as itself: half the bytes are calls,
/// so what a call's body costs shows.
pub fn dense(dialect: Dialect, bytes: usize) -> Stream {
    with_calls("dense-50pct", dialect, bytes, 1)
}

/// About `bytes` bytes of calls, each after `ratio` times its own length of prose.
fn with_calls(name: &'static str, dialect: Dialect, bytes: usize, ratio: usize) -> Stream {
    let mut text = String::with_capacity(bytes + 4096);
    let mut calls = Vec::new();
    let mut n = 0;
    while text.len() < bytes {
        let call = Call::of(dialect, n);
        let location = format!(
            "notes/{n}/{}",
            argument(45, n as u64 + 100).replace('\n', " ")
        );
        let mut call_text = String::new();
        call.write(&location, &mut call_text);
        text.push_str(&prose(ratio * call_text.len(), n as u64 + 7));
        text.push_str(&call_text);
        calls.push(location);
        n += 1;
    }
    text.push_str("\nThat is all.\n");
    Stream { name, text, calls }
}

/// A line of prose, one call whose `location` is about `bytes` bytes, a line of prose.
pub fn one_call(dialect: Dialect, bytes: usize) -> Stream {
    let location = argument(bytes, 3);
    let mut text = String::from("Here is the whole file, as you asked:\n");
    Call::of(dialect, 0).write(&location, &mut text);
    text.push_str("\nTell me if you need another.\n");
    Stream {
        name: "one-call-1MiB",
        text,
        calls: vec![location],
    }
}

/// The ways a stream is fed: whole, in 4-byte chunks and in 1-byte chunks (chunks end on
/// char boundaries, so a multi-byte char is one longer chunk).
pub const CHUNKINGS: &[(&str, usize)] = &[("whole", usize::MAX), ("chunk-4", 4), ("chunk-1", 1)];

/// `text` cut into chunks of `size` bytes (`usize::MAX`: whole).
pub fn chunks(text: &str, size: usize) -> Vec<&str> {
    if size >= text.len() {
        return vec![text];
    }
    split::fixed_size_chunks(text, size).expect("a chunk size above 0")
}

/// The reference parser of `dialect` over `chunks`.
pub fn run(dialect: Dialect, tools: &Arc<Registry>, chunks: &[&str]) -> Run {
    let mut parser = dialect.reference_parser(tools, "");
    parser::run(parser.as_mut(), chunks.iter().copied())
}

/// The reference parser of `dialect` over `chunks` as a streaming consumer drives it: the
/// events of each push are taken (and dropped) before the next. Returns how many there were.
/// (Collecting them all, as [`run`] does, costs more than parsing when there is one per byte:
/// the growing `Vec` is copied and page-faulted in.)
pub fn drain(dialect: Dialect, tools: &Arc<Registry>, chunks: &[&str]) -> usize {
    let mut parser = dialect.reference_parser(tools, "");
    let mut out = Vec::new();
    let mut events = 0;
    for chunk in chunks {
        parser.push(chunk, &mut out);
        events += out.len();
        out.clear();
    }
    parser.finish(&mut out);
    events + out.len()
}

/// Panics unless the reference reads `stream` whole as its text around exactly its calls: no
/// error, one `tool-call` per call with the call's `location` as its input, and (when `per_byte`)
/// the same events, merged, in 1-byte chunks.
pub fn check(dialect: Dialect, tools: &Arc<Registry>, stream: &Stream, per_byte: bool) {
    let whole = run(dialect, tools, &[&stream.text]);
    let mut calls = Vec::new();
    let mut text = 0;
    for event in &whole.events {
        match event {
            Event::ToolCall(call) => calls.push(call.input.clone()),
            Event::TextDelta { delta } => text += delta.len(),
            other => panic!("{dialect} on {}: unexpected {other:?}", stream.name),
        }
    }
    let want: Vec<_> = stream
        .calls
        .iter()
        .map(|p| json!({"location": p}))
        .collect();
    assert!(
        calls == want,
        "{dialect} on {}: {} calls read, {} written",
        stream.name,
        calls.len(),
        want.len()
    );
    let spans: usize = whole.call_spans.iter().map(|s| s.len()).sum();
    let markup: usize = whole.markup_spans.iter().map(|s| s.len()).sum();
    assert_eq!(
        text + spans + markup,
        stream.text.len(),
        "{dialect}: bytes lost"
    );
    if per_byte {
        let merged =
            |run: Run| toolcall_harness::normalize::Normalize::default().apply(&run.events);
        let one = run(dialect, tools, &chunks(&stream.text, 1));
        assert!(
            merged(one) == merged(whole),
            "{dialect} on {}: 1-byte chunks differ",
            stream.name
        );
    }
}
