//! The `hermes` reference parser (`specs/dialects/hermes.md`): `<tool_call>` anywhere in the
//! stream, up to the first `</tool_call>`, around one JSON object. Outside a call it holds back
//! only a possible opener prefix; inside one, the whole block until its closer.
//!
//! Both literals are found with `scan::LiteralFinder`, so each byte is looked at amortised once
//! whatever the chunk sizes, and text between calls is skipped with `memchr`. The pending
//! opener prefix is not buffered: it is always the finder's `matched()` bytes of `<tool_call>`.

mod call;
mod eager;

use std::ops::Range;

use crate::dialect::output::Output;
use crate::dialect::scan::LiteralFinder;
use crate::event::Event;
use crate::parser::StreamParser;

pub use call::CallError;
pub use eager::may_hold;

const OPENER: &str = "<tool_call>";
const CLOSER: &str = "</tool_call>";

/// The reference parser for `<tool_call>` elements.
#[derive(Debug)]
pub struct HermesParser {
    /// Absolute offset of the start of the chunk being pushed.
    offset: usize,
    /// Searches the text for the next opener; its partial match is the held opener prefix.
    opener: LiteralFinder,
    /// Searches an open block for its closer.
    closer: LiteralFinder,
    /// The open block from `<` of its opener, while a call is open.
    block: Option<String>,
    /// Text released by the current `push`, emitted as one delta before any other event.
    output: Output,
}

impl Default for HermesParser {
    fn default() -> Self {
        HermesParser {
            offset: 0,
            opener: LiteralFinder::new(OPENER),
            closer: LiteralFinder::new(CLOSER),
            block: None,
            output: Output::default(),
        }
    }
}

impl HermesParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Outside a call: releases `rest` up to an opener or a possible opener prefix at its end.
    /// Returns how many bytes of `rest` were consumed.
    fn scan_text(&mut self, rest: &str) -> usize {
        // The opener prefix held from earlier chunks comes before `rest` in the stream.
        let held_before = self.opener.matched();
        let found = self.opener.find(rest);
        let (consumed, still_held) = match found {
            Some(end) => (end, OPENER.len()),
            None => (rest.len(), self.opener.matched()),
        };
        // Of `OPENER[..held_before] + rest[..consumed]`, everything before the part still held
        // (or the opener just completed) is text.
        let released = (held_before + consumed).saturating_sub(still_held);
        let from_held = released.min(held_before);
        self.output.push_str(&OPENER[..from_held]);
        // The cut falls just before a `<` (or at the end of `rest`): a char boundary.
        self.output.push_str(&rest[..released - from_held]);
        if found.is_some() {
            self.block = Some(OPENER.to_owned());
        }
        consumed
    }

    /// Inside a call: adds `rest` to the open `block` up to the closer; at the closer, emits
    /// the call or rejects the block. `rest_offset` is the absolute offset of `rest`. Returns
    /// how many bytes of `rest` were consumed.
    fn scan_block(
        &mut self,
        mut block: String,
        rest: &str,
        rest_offset: usize,
        out: &mut Vec<Event>,
    ) -> usize {
        let Some(end) = self.closer.find(rest) else {
            block.push_str(rest);
            self.block = Some(block);
            return rest.len();
        };
        block.push_str(&rest[..end]);
        let block_end = rest_offset + end;
        // The block is the opener, the content and the closer found after it.
        let content = &block[OPENER.len()..block.len() - CLOSER.len()];
        let read = call::interpret(content, self.output.generated_id())
            .map(|call| [Event::ToolCall(call)]);
        self.output
            .settle(read, block_end - block.len()..block_end, &block, out);
        end
    }
}

impl StreamParser for HermesParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        let mut i = 0;
        while i < chunk.len() {
            let rest = &chunk[i..];
            i += match self.block.take() {
                Some(block) => self.scan_block(block, rest, self.offset + i, out),
                None => self.scan_text(rest),
            };
        }
        self.offset += chunk.len();
        self.output.flush(out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if let Some(block) = self.block.take() {
            self.output.reject(CallError::Unterminated, &block, out);
        } else {
            // An opener prefix at the end of the stream is text; the finder forgets it, since
            // it is released now.
            self.output.push_str(&OPENER[..self.opener.matched()]);
            self.opener = LiteralFinder::new(OPENER);
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

    fn run_chunks(chunks: &[&str]) -> Vec<Event> {
        run(&mut HermesParser::new(), chunks.iter().copied()).events
    }

    /// The normalized events of `stream` pushed whole, as JSON lines, after checking that one
    /// char per chunk gives the same.
    fn events(stream: &str) -> Vec<String> {
        let strict = Normalize {
            source: None,
            keep_extra: true,
        };
        let whole = strict.apply(&run_chunks(&[stream]));
        let chars: Vec<String> = stream.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(strict.apply(&run_chunks(&chars)), whole, "{stream:?}");
        whole.iter().map(Event::to_json_line).collect()
    }

    #[test]
    fn text_before_between_and_after_calls() {
        assert_eq!(
            events(
                "Hi <tool_call>\n{\"name\": \"a\", \"arguments\": {\"x\": 1}}\n</tool_call> and \
                 <tool_call>{\"name\": \"b\", \"id\": \"c9\"}</tool_call>\r\nbye"
            ),
            [
                r#"{"type":"text-delta","delta":"Hi "}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"a","input":{"x":1}}"#,
                r#"{"type":"text-delta","delta":" and "}"#,
                r#"{"type":"tool-call","toolCallId":"c9","toolName":"b","input":{}}"#,
                r#"{"type":"text-delta","delta":"\r\nbye"}"#,
            ]
        );
    }

    #[test]
    fn call_spans_are_absolute() {
        let stream = "ab<tool_call>{\"name\":\"f\"}</tool_call>c";
        let mut parser = HermesParser::new();
        let chunks = ["ab<to", "ol_call>{\"name\":\"f\"}</tool", "_call>c"];
        let result = run(&mut parser, chunks);
        assert_eq!(
            result.call_spans,
            vec![Range {
                start: 2,
                end: stream.len() - 1
            }]
        );
    }

    #[test]
    fn double_encoded_arguments() {
        assert_eq!(
            events(r#"<tool_call>{"name": "f", "arguments": "{\"q\": \"é😀\"}"}</tool_call>"#),
            [
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{"q":"é😀"}}"#
            ]
        );
    }

    #[test]
    fn invalid_blocks_do_not_count_for_ids() {
        assert_eq!(
            events(
                "<tool_call>{\"arguments\": {}}</tool_call>x<tool_call>{\"name\":\"f\"}</tool_call>"
            ),
            [
                r#"{"type":"error","errorText":"tool_call has no string \"name\""}"#,
                r#"{"type":"text-delta","delta":"<tool_call>{\"arguments\": {}}</tool_call>x"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"f","input":{}}"#,
            ]
        );
    }

    #[test]
    fn lookalike_tags_are_text() {
        let stream = "</tool_call> <tool_call > <Tool_Call> <tool_calls> <tool_ <";
        assert_eq!(
            events(stream),
            [format!(r#"{{"type":"text-delta","delta":"{stream}"}}"#)]
        );
    }

    #[test]
    fn unterminated_call_is_an_error_then_text() {
        assert_eq!(
            events("a <tool_call>{\"name\": \"f\"}</tool_cal"),
            [
                r#"{"type":"text-delta","delta":"a "}"#,
                r#"{"type":"error","errorText":"unterminated tool_call"}"#,
                r#"{"type":"text-delta","delta":"<tool_call>{\"name\": \"f\"}</tool_cal"}"#,
            ]
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_call() {
        let mut parser = HermesParser::new();
        let mut out = Vec::new();
        parser.push("a <tool", &mut out);
        assert_eq!(out, [Event::text("a ")]);
        out.clear();
        parser.push("_c", &mut out);
        assert_eq!(out, []);
        parser.push("x <", &mut out);
        assert_eq!(out, [Event::text("<tool_cx ")]);
        out.clear();
        parser.push("tool_call>{", &mut out);
        assert_eq!(out, []);
        parser.push("\"name\":\"f\"}</tool_call", &mut out);
        assert_eq!(out, []);
        parser.push(">", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }
}
