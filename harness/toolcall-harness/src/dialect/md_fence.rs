//! The `md-fence` reference parser (`specs/dialects/md-fence.md`): a line-at-a-time state
//! machine over CommonMark fences that holds back only a possible tool-opener prefix or an open
//! tool block, and releases everything else as soon as it arrives.
//!
//! Every byte is looked at once. Syntax characters are all ASCII, so cuts happen only next to
//! an ASCII byte; runs of uninteresting bytes are skipped with `memchr`.

mod block;
mod eager;

use super::descriptor::{CallAround, Descriptor, OwnParser, Parser, Values};
use std::mem;
use std::ops::Range;

use memchr::{memchr, memchr2};

use crate::dialect::output::Output;
use crate::event::Event;
use crate::parser::StreamParser;

pub use block::BlockError;
pub use eager::may_hold;

/// A fence line's character, run length and indentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    ch: u8,
    len: usize,
    indent: usize,
}

/// Which fence, if any, the current line is inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Region {
    Top,
    /// Inside a fence of another language: all text, nothing held.
    Foreign(Fence),
    /// Inside a tool fence: everything held. Offsets index `held`.
    Tool {
        fence: Fence,
        /// Absolute stream offset of the opener line.
        start: usize,
        body_start: usize,
        line_start: usize,
    },
}

/// How far the current line has matched the syntax that matters in its region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    /// Top level: only spaces so far (0–3).
    Indent(usize),
    /// Top level: a run of fence characters so far.
    Run { ch: u8, indent: usize, n: usize },
    /// Top level: blanks after a fence run of 3 or more.
    InfoLead(Fence),
    /// Top level: the info string's first word matches `tool`'s first `matched` bytes.
    Word { fence: Fence, matched: usize },
    /// Top level: a tool opener; the rest of its line.
    ToolInfo(Fence),
    /// Top level: a foreign opener; the rest of its line (released).
    ForeignInfo(Fence),
    /// In a fence: only spaces so far (0–3).
    CloseIndent(usize),
    /// In a fence: a run of fence characters so far.
    CloseRun(usize),
    /// In a fence: blanks after a closing run.
    CloseTrail,
    /// Nothing more of interest on this line.
    Rest,
}

const TOOL: &[u8] = b"tool";

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r')
}

/// How `md-fence`'s parser is built, apart from the kit.
static OWN: OwnParser = OwnParser {
    new: |_| Box::new(MdFenceParser::new()),
    may_hold: |held, _| may_hold(held),
    markers: |_| vec!["```".to_owned(), "~~~".to_owned()],
};

/// `md-fence`, described (`Dialect::MdFence`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "md-fence",
    models: "seed 000",
    parser: Parser::Own(&OWN),
    default_prefill: "",
    call: CallAround {
        before: "```tool GetWeather\ninput:\n  location: \"",
        after: "\"\n```\n",
        values: Values::Json,
    },
    fragments: &[
        "```",
        "~~~",
        "````",
        "tool",
        " tool x c1",
        "toolbox",
        "```tool\n",
        "\n```\n",
        "    ```",
        "a: 1\n",
        "input:\n  q: é\n",
        "---\n",
        "state: output-error\n",
        "name: add_random_item_to_shop\n",
        "input:\n",
        "  - 1\n",
        "&a [*a, *a]",
        "yes",
        "null",
    ],
    prefills: &[],
    samples: &["```tool x c1\na: 1\n```\n"],
};

/// The reference parser for markdown `tool` fences.
#[derive(Debug)]
pub struct MdFenceParser {
    /// Absolute offset of the next input byte.
    pos: usize,
    /// Absolute offset where the current line starts.
    line_pos: usize,
    region: Region,
    line: Line,
    /// Held-back input: the current line's opener prefix (top level) or the open tool block.
    held: String,
    /// Text released by the current `push`, emitted as one delta before any other event.
    output: Output,
}

impl Default for MdFenceParser {
    fn default() -> Self {
        MdFenceParser {
            pos: 0,
            line_pos: 0,
            region: Region::Top,
            line: Line::Indent(0),
            held: String::new(),
            output: Output::default(),
        }
    }
}

impl MdFenceParser {
    /// A parser at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether input consumed now belongs to `held` rather than to released text.
    fn holding(&self) -> bool {
        match self.region {
            Region::Tool { .. } => true,
            Region::Foreign(_) => false,
            Region::Top => matches!(
                self.line,
                Line::Indent(_)
                    | Line::Run { .. }
                    | Line::InfoLead(_)
                    | Line::Word { .. }
                    | Line::ToolInfo(_)
            ),
        }
    }

    fn consume(&mut self, bytes: &str) {
        self.pos += bytes.len();
        if self.holding() {
            self.held.push_str(bytes);
        } else {
            self.output.push_str(bytes);
        }
    }

    /// Moves to `line`; at top level, a line that can no longer open a tool block releases
    /// what was held of it.
    fn set_line(&mut self, line: Line) {
        self.line = line;
        if self.region == Region::Top && !self.holding() {
            self.output.push_str(&self.held);
            self.held.clear();
        }
    }

    /// The line just ended with its `\n` (already consumed) and was not a closer.
    fn end_line(&mut self) {
        self.line_pos = self.pos;
        match &mut self.region {
            Region::Top => self.set_line(Line::Indent(0)),
            Region::Foreign(_) => self.line = Line::CloseIndent(0),
            Region::Tool { line_start, .. } => {
                *line_start = self.held.len();
                self.line = Line::CloseIndent(0);
            }
        }
    }

    /// The current line completed a tool opener (its `\n`, if any, consumed).
    fn open_tool(&mut self, fence: Fence) {
        self.region = Region::Tool {
            fence,
            start: self.line_pos,
            body_start: self.held.len(),
            line_start: self.held.len(),
        };
        self.line_pos = self.pos;
        self.line = Line::CloseIndent(0);
    }

    /// The current line closed the fence we are in (its terminator, if any, consumed).
    fn close_fence(&mut self, out: &mut Vec<Event>) {
        if let Region::Tool {
            fence,
            start,
            body_start,
            line_start,
        } = self.region
        {
            let block = mem::take(&mut self.held);
            let info = opener_info(&block[..body_start], fence);
            let body = &block[body_start..line_start];
            let read = block::interpret(info, body, fence.indent, self.output.generated_id());
            self.output.settle(read, start..self.pos, &block, out);
        }
        self.region = Region::Top;
        self.line_pos = self.pos;
        self.line = Line::Indent(0);
    }

    /// Handles the input at `chunk[i..]` in the current line state; returns the next index.
    /// Byte states consume one ASCII byte or change state without consuming; range states
    /// consume up to a line end, so cuts always fall on char boundaries.
    fn step(&mut self, chunk: &str, i: usize, out: &mut Vec<Event>) -> usize {
        let bytes = chunk.as_bytes();
        let b = bytes[i];
        match self.line {
            Line::Rest => {
                let end = memchr(b'\n', &bytes[i..]).map_or(bytes.len(), |p| i + p + 1);
                self.consume(&chunk[i..end]);
                if bytes[end - 1] == b'\n' {
                    self.end_line();
                }
                return end;
            }
            Line::ForeignInfo(fence) | Line::ToolInfo(fence) => {
                let is_tool = matches!(self.line, Line::ToolInfo(_));
                // A backtick in a backtick fence's info string means the line is no fence.
                let stop = if fence.ch == b'`' {
                    memchr2(b'\n', b'`', &bytes[i..])
                } else {
                    memchr(b'\n', &bytes[i..])
                };
                let Some(p) = stop else {
                    self.consume(&chunk[i..]);
                    return bytes.len();
                };
                let at = i + p;
                if bytes[at] == b'`' {
                    self.consume(&chunk[i..at]);
                    self.set_line(Line::Rest);
                    return at;
                }
                self.consume(&chunk[i..=at]);
                if is_tool {
                    self.open_tool(fence);
                } else {
                    self.region = Region::Foreign(fence);
                    self.line_pos = self.pos;
                    self.line = Line::CloseIndent(0);
                }
                return at + 1;
            }
            _ => {}
        }
        if !b.is_ascii() {
            self.set_line(self.after_other_byte());
            return i;
        }
        let next = match self.line {
            Line::Indent(n) => match b {
                b' ' if n < 3 => Line::Indent(n + 1),
                b'`' | b'~' => Line::Run {
                    ch: b,
                    indent: n,
                    n: 1,
                },
                _ => Line::Rest,
            },
            Line::Run { ch, indent, n } => {
                if b == ch {
                    Line::Run {
                        ch,
                        indent,
                        n: n + 1,
                    }
                } else if n < 3 {
                    Line::Rest
                } else {
                    self.set_line(Line::InfoLead(Fence { ch, len: n, indent }));
                    return i;
                }
            }
            Line::InfoLead(fence) => match b {
                _ if is_blank(b) => Line::InfoLead(fence),
                b'`' if fence.ch == b'`' => Line::Rest,
                b't' => Line::Word { fence, matched: 1 },
                _ => {
                    self.set_line(Line::ForeignInfo(fence));
                    return i;
                }
            },
            Line::Word { fence, matched } => {
                if matched < TOOL.len() && b == TOOL[matched] {
                    Line::Word {
                        fence,
                        matched: matched + 1,
                    }
                } else if matched == TOOL.len() && (is_blank(b) || b == b'\n') {
                    self.set_line(Line::ToolInfo(fence));
                    return i;
                } else if b == b'`' && fence.ch == b'`' {
                    Line::Rest
                } else {
                    self.set_line(Line::ForeignInfo(fence));
                    return i;
                }
            }
            Line::CloseIndent(n) => match b {
                b' ' if n < 3 => Line::CloseIndent(n + 1),
                b'\n' => {
                    self.consume("\n");
                    self.end_line();
                    return i + 1;
                }
                _ if b == self.fence_char() => Line::CloseRun(1),
                _ => Line::Rest,
            },
            Line::CloseRun(n) => {
                let closes = n >= self.fence_len();
                match b {
                    _ if b == self.fence_char() => Line::CloseRun(n + 1),
                    b'\n' if closes => {
                        self.consume("\n");
                        self.close_fence(out);
                        return i + 1;
                    }
                    _ if closes && is_blank(b) => Line::CloseTrail,
                    _ => Line::Rest,
                }
            }
            Line::CloseTrail => match b {
                b'\n' => {
                    self.consume("\n");
                    self.close_fence(out);
                    return i + 1;
                }
                _ if is_blank(b) => Line::CloseTrail,
                _ => Line::Rest,
            },
            Line::Rest | Line::ForeignInfo(_) | Line::ToolInfo(_) => unreachable_state(),
        };
        if next == Line::Rest {
            // Not consumed: `Rest` takes the byte along with the rest of the line.
            self.set_line(Line::Rest);
            return i;
        }
        self.set_line(next);
        self.consume(&chunk[i..=i]);
        i + 1
    }

    /// The state after a byte that is no syntax character (any non-ASCII byte).
    fn after_other_byte(&self) -> Line {
        match self.line {
            Line::Run { ch, indent, n } if n >= 3 => {
                Line::ForeignInfo(Fence { ch, len: n, indent })
            }
            Line::InfoLead(fence) | Line::Word { fence, .. } => Line::ForeignInfo(fence),
            _ => Line::Rest,
        }
    }

    fn fence_char(&self) -> u8 {
        match self.region {
            Region::Foreign(fence) | Region::Tool { fence, .. } => fence.ch,
            Region::Top => 0,
        }
    }

    fn fence_len(&self) -> usize {
        match self.region {
            Region::Foreign(fence) | Region::Tool { fence, .. } => fence.len,
            Region::Top => usize::MAX,
        }
    }
}

/// `Line::Rest` and the info states are handled before the byte match; reaching them there
/// would be a bug in `step`, so it is mapped to the harmless `Rest` rather than a panic.
fn unreachable_state() -> Line {
    debug_assert!(false, "range state reached the byte match");
    Line::Rest
}

/// The info string of a held opener line: what follows the fence run, up to the line end.
fn opener_info(opener: &str, fence: Fence) -> &str {
    let after_run = fence.indent + fence.len;
    opener
        .get(after_run..)
        .unwrap_or("")
        .trim_end_matches(['\n', '\r'])
}

impl StreamParser for MdFenceParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        let mut i = 0;
        while i < chunk.len() {
            i = self.step(chunk, i, out);
        }
        self.output.flush(out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        match (self.region, self.line) {
            // A closer on the last line, without a terminator.
            (Region::Tool { fence, .. }, Line::CloseRun(n)) if n >= fence.len => {
                self.close_fence(out)
            }
            (Region::Tool { .. }, Line::CloseTrail) => self.close_fence(out),
            (Region::Tool { .. }, _)
            | (Region::Top, Line::ToolInfo(_) | Line::Word { matched: 4, .. }) => {
                let block = mem::take(&mut self.held);
                self.output.reject(BlockError::Unterminated, &block, out);
            }
            _ => {
                let held = mem::take(&mut self.held);
                self.output.push_str(&held);
            }
        }
        self.region = Region::Top;
        self.line = Line::Indent(0);
        self.output.flush(out);
    }

    fn call_spans(&self) -> &[Range<usize>] {
        self.output.spans()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::run;

    fn events(chunks: &[&str]) -> Vec<String> {
        let mut parser = MdFenceParser::new();
        run(&mut parser, chunks.iter().copied())
            .events
            .iter()
            .map(Event::to_json_line)
            .collect()
    }

    #[test]
    fn plain_text_is_released_at_once() {
        let mut parser = MdFenceParser::new();
        let mut out = Vec::new();
        parser.push("hello ``", &mut out);
        assert_eq!(out, [Event::text("hello ``")]);
    }

    #[test]
    fn holds_only_a_possible_tool_opener() {
        let mut parser = MdFenceParser::new();
        let mut out = Vec::new();
        parser.push("a\n``", &mut out);
        assert_eq!(out, [Event::text("a\n")]);
        out.clear();
        parser.push("`p", &mut out);
        assert_eq!(out, [Event::text("```p")]);
    }

    #[test]
    fn a_simple_call() {
        assert_eq!(
            events(&["x\n```tool search c1\ninput:\n  q: cats\n```\ny"]),
            [
                r#"{"type":"text-delta","delta":"x\n"}"#,
                r#"{"type":"tool-call","toolCallId":"c1","toolName":"search","input":{"q":"cats"}}"#,
                r#"{"type":"text-delta","delta":"y"}"#,
            ]
        );
    }

    #[test]
    fn unterminated_fence_is_an_error_then_text() {
        assert_eq!(
            events(&["```tool\na: 1\n"]),
            [
                r#"{"type":"error","errorText":"unterminated tool fence"}"#,
                r#"{"type":"text-delta","delta":"```tool\na: 1\n"}"#,
            ]
        );
    }
}
