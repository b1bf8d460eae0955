//! The `signature` reference parser (`specs/dialects/signature.md`): `###:` at a line start,
//! blanks, then a JSON object up to its matching `}`, which must carry
//! `"signature": "CLIENT_TOOL_CALL"` and a registry tool's name (seed 001).
//!
//! Outside a block it holds back only a possible marker (and the blanks after a complete one);
//! inside one, the block until its matching brace. Mid-line text is skipped to the next `\n`
//! with `memchr`, and the object's end is found by an incremental brace matcher, so each byte
//! is looked at once whatever the chunk sizes.

mod call;
mod eager;
mod object;

use super::descriptor::{CallAround, Descriptor, OwnParser, Parser, Values};
use std::mem;
use std::ops::Range;
use std::sync::Arc;

use memchr::memchr;

use crate::dialect::json::is_blank;
use crate::dialect::output::Output;
use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;

pub use call::CallError;
pub use eager::may_hold;

use object::ObjectEnd;

const MARKER: &[u8] = b"###:";

/// Where the scan is, relative to the syntax of a block.
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// At a line start, the first `matched` bytes of `###:` seen (held).
    Marker { matched: usize },
    /// After a complete marker: blanks (held). `after_newline` when the last one is `\n`, so
    /// that a character ruling the call out starts a line.
    Blanks { after_newline: bool },
    /// Inside the object, which starts at `object_start` in `held`.
    Object {
        scanner: ObjectEnd,
        object_start: usize,
    },
    /// Mid-line: nothing can start before the next `\n`.
    Rest,
}

/// How `signature`'s parser is built, apart from the kit.
static OWN: OwnParser = OwnParser {
    new: |tools| Box::new(SignatureParser::new(tools)),
    may_hold: |held, _| may_hold(held),
    markers: |_| vec!["###:".to_owned()],
};

/// `signature`, described (`Dialect::Signature`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "signature",
    models: "seed 001",
    parser: Parser::Own(&OWN),
    default_prefill: "",
    call: CallAround {
        before: "###:{\"signature\": \"CLIENT_TOOL_CALL\", \"toolName\": \"GetWeather\", \"input\": {\"location\": \"",
        after: "\"}}\n",
        values: Values::Json,
    },
    fragments: &[
        "###:",
        "###",
        "#",
        "###: ",
        "\"signature\":\"CLIENT_TOOL_CALL\"",
        "\"toolName\":\"read_file\"",
        "\"input\":{\"path\":\"a\"}",
    ],
    prefills: &[],
    samples: &["###:{\"signature\":\"CLIENT_TOOL_CALL\",\"toolName\":\"read_file\"}"],
};

/// The reference parser for `###:` blocks.
#[derive(Debug)]
pub struct SignatureParser {
    tools: Arc<Registry>,
    /// Absolute offset of the start of the chunk being pushed.
    offset: usize,
    state: State,
    /// Held-back input: the marker prefix, the marker and blanks, or the open block.
    held: String,
    /// Text released by the current `push`, emitted as one delta before any other event.
    output: Output,
}

impl SignatureParser {
    /// A parser at the start of a stream; a call's `toolName` must be one of `tools` (S2.2).
    pub fn new(tools: Arc<Registry>) -> Self {
        SignatureParser {
            tools,
            offset: 0,
            // The stream starts at a line start.
            state: State::Marker { matched: 0 },
            held: String::new(),
            output: Output::default(),
        }
    }

    /// What was held turns out to be text (S1.1, S1.3); scanning goes on in `state`.
    fn release(&mut self, state: State) {
        self.output.push_str(&self.held);
        self.held.clear();
        self.state = state;
    }

    /// Handles the input at `chunk[i..]`; returns the next index. Byte states consume one ASCII
    /// byte or change state without consuming; range states consume up to a line end or the
    /// object's end, so cuts always fall on char boundaries.
    fn step(&mut self, chunk: &str, i: usize, out: &mut Vec<Event>) -> usize {
        let rest = &chunk[i..];
        let bytes = rest.as_bytes();
        match &mut self.state {
            State::Rest => {
                let Some(newline) = memchr(b'\n', bytes) else {
                    self.output.push_str(rest);
                    return chunk.len();
                };
                self.output.push_str(&rest[..=newline]);
                self.state = State::Marker { matched: 0 };
                i + newline + 1
            }
            State::Object {
                scanner,
                object_start,
            } => {
                let object_start = *object_start;
                let Some(end) = scanner.find_end(bytes) else {
                    self.held.push_str(rest);
                    return chunk.len();
                };
                self.held.push_str(&rest[..end]);
                self.close_block(object_start, self.offset + i + end, out);
                i + end
            }
            State::Marker { matched } => {
                let matched = *matched;
                if bytes.first() != MARKER.get(matched) {
                    // Not `###:` (`###` is a heading): the rest of the line is text.
                    self.release(State::Rest);
                    return i;
                }
                self.held.push_str(&rest[..1]);
                self.state = if matched + 1 == MARKER.len() {
                    State::Blanks {
                        after_newline: false,
                    }
                } else {
                    State::Marker {
                        matched: matched + 1,
                    }
                };
                i + 1
            }
            State::Blanks { after_newline } => match bytes.first() {
                Some(&b) if is_blank(b) => {
                    *after_newline = b == b'\n';
                    self.held.push_str(&rest[..1]);
                    i + 1
                }
                Some(b'{') => {
                    self.state = State::Object {
                        scanner: ObjectEnd::default(),
                        object_start: self.held.len(),
                    };
                    i
                }
                _ => {
                    // No call: the marker and blanks are text, and this character is looked at
                    // afresh, at a line start if a `\n` came just before it.
                    let next = if *after_newline {
                        State::Marker { matched: 0 }
                    } else {
                        State::Rest
                    };
                    self.release(next);
                    i
                }
            },
        }
    }

    /// The object's matching `}` arrived: the block is `held`, ending at absolute `block_end`.
    /// Emits the call, or the error and the block as text. The rest of the line is text.
    fn close_block(&mut self, object_start: usize, block_end: usize, out: &mut Vec<Event>) {
        let block = mem::take(&mut self.held);
        self.state = State::Rest;
        let object = &block[object_start..];
        let read = call::interpret(object, &self.tools, self.output.generated_id())
            .map(|call| [Event::ToolCall(call)]);
        self.output
            .settle(read, block_end - block.len()..block_end, &block, out);
    }
}

impl StreamParser for SignatureParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        let mut i = 0;
        while i < chunk.len() {
            i = self.step(chunk, i, out);
        }
        self.offset += chunk.len();
        self.output.flush(out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if matches!(self.state, State::Object { .. }) {
            let block = mem::take(&mut self.held);
            self.output.reject(CallError::Unterminated, &block, out);
            self.state = State::Rest;
        } else {
            // A marker with no object before the end of the stream is text (S1.3).
            self.release(State::Rest);
        }
        self.output.flush(out);
    }

    fn call_spans(&self) -> &[Range<usize>] {
        self.output.spans()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::Normalize;
    use crate::parser::run;
    use crate::tools::Tool;
    use serde_json::json;

    fn registry() -> Arc<Registry> {
        let tool = Tool::new("add_random_item_to_shop", "", json!({"type": "object"}))
            .expect("valid schema");
        Arc::new(Registry::new(vec![tool]).expect("one tool"))
    }

    fn run_chunks(chunks: &[&str]) -> crate::parser::Run {
        run(
            &mut SignatureParser::new(registry()),
            chunks.iter().copied(),
        )
    }

    /// The normalized events of `stream` pushed whole, as JSON lines, after checking that one
    /// char per chunk gives the same.
    fn events(stream: &str) -> Vec<String> {
        let strict = Normalize {
            source: None,
            keep_extra: true,
        };
        let whole = strict.apply(&run_chunks(&[stream]).events);
        let chars: Vec<String> = stream.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(
            strict.apply(&run_chunks(&chars).events),
            whole,
            "{stream:?}"
        );
        whole.iter().map(Event::to_json_line).collect()
    }

    const SEED_CALL: &str = "###: {\n  \"signature\": \"CLIENT_TOOL_CALL\",\n  \"toolName\": \"add_random_item_to_shop\"\n}";

    #[test]
    fn the_seed_call() {
        let stream = format!("Sure!\n{SEED_CALL}\nDone.");
        assert_eq!(
            events(&stream),
            [
                r#"{"type":"text-delta","delta":"Sure!\n"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"add_random_item_to_shop","input":{}}"#,
                r#"{"type":"text-delta","delta":"\nDone."}"#,
            ]
        );
        let start = "Sure!\n".len();
        assert_eq!(
            run_chunks(&["Sure!\n##", "#: {\n", &stream[start + 7..]]).call_spans,
            vec![Range {
                start,
                end: start + SEED_CALL.len()
            }]
        );
    }

    #[test]
    fn headings_and_lookalikes_are_text() {
        let stream = "### Heading\n####: {}\n ###: {}\nx###: {}\n###:x {}\n###: [1]\n###:";
        assert_eq!(
            events(stream),
            [format!(
                r#"{{"type":"text-delta","delta":{}}}"#,
                json!(stream)
            )]
        );
    }

    #[test]
    fn a_marker_ruled_out_after_a_newline_leaves_a_line_start() {
        let stream = format!("###:\n{SEED_CALL} and after");
        assert_eq!(
            events(&stream),
            [
                r####"{"type":"text-delta","delta":"###:\n"}"####,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"add_random_item_to_shop","input":{}}"#,
                r#"{"type":"text-delta","delta":" and after"}"#,
            ]
        );
    }

    #[test]
    fn wrong_signature_is_an_error_then_text() {
        let block =
            r#"###: {"signature": "SERVER_TOOL_CALL", "toolName": "add_random_item_to_shop"}"#;
        let events = events(&format!("{block}\n"));
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(
            events[0].starts_with(r#"{"type":"error","errorText":"Invalid tool call format"#),
            "{events:?}"
        );
        assert_eq!(
            events[1..],
            [format!(
                r#"{{"type":"text-delta","delta":{}}}"#,
                json!(format!("{block}\n"))
            )]
        );
    }

    #[test]
    fn unknown_tool_is_not_available_and_does_not_count_for_ids() {
        let stream = format!(
            "###: {{\"signature\": \"CLIENT_TOOL_CALL\", \"toolName\": \"sell_shop\", \"x\": \"}}\"}}\n{SEED_CALL}"
        );
        let unknown_block = stream.split_once('\n').map(|(b, _)| b).unwrap_or_default();
        assert_eq!(
            events(&stream),
            [
                r#"{"type":"error","errorText":"Tool sell_shop not available"}"#.to_owned(),
                format!(
                    r#"{{"type":"text-delta","delta":{}}}"#,
                    json!(format!("{unknown_block}\n"))
                ),
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"add_random_item_to_shop","input":{}}"#.to_owned(),
            ]
        );
    }

    #[test]
    fn unterminated_block_is_an_error_then_text() {
        let stream = "hi\n###: {\"signature\": \"}";
        assert_eq!(
            events(stream),
            [
                r#"{"type":"text-delta","delta":"hi\n"}"#,
                r#"{"type":"error","errorText":"unterminated tool call"}"#,
                r####"{"type":"text-delta","delta":"###: {\"signature\": \"}"}"####,
            ]
        );
    }

    #[test]
    fn holds_only_a_possible_marker_or_an_open_block() {
        let mut parser = SignatureParser::new(registry());
        let mut out = Vec::new();
        parser.push("a\n##", &mut out);
        assert_eq!(out, [Event::text("a\n")]);
        out.clear();
        parser.push("# ", &mut out);
        assert_eq!(out, [Event::text("### ")]);
        out.clear();
        parser.push("\n###: \r\n", &mut out);
        assert_eq!(out, [Event::text("\n")]);
        out.clear();
        parser.push("{\"signature\"", &mut out);
        assert_eq!(out, []);
        parser.push(
            ": \"CLIENT_TOOL_CALL\", \"toolName\": \"add_random_item_to_shop\"}",
            &mut out,
        );
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }
}
