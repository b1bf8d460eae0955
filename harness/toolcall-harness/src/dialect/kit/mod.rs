//! The dialect kit: the streaming machinery every marker-based dialect shares, so that a
//! dialect is a [`Grammar`] (a table of modes and their markers), a body decoder per kind of
//! block, its spec and its corpus.
//!
//! The parser is always in a *mode*: text, reasoning, or a gap between calls (a tool-calls
//! section, whose blanks are markup). In a mode it releases content as soon as it cannot be
//! the start of one of the mode's markers, holding back only a proper prefix of one
//! ([`markers`]). A marker either switches the mode (it is markup) or opens a *block*,
//! captured up to one of the block's closers and then decoded whole: as a call, as markup
//! (a header that only switches the mode), as the start of a longer block, or rejected
//! (`error`, then the block's exact text as text). Every byte is text, reasoning, part of a
//! call's span or markup (`specs/streaming.md` C2); markers are literal strings. A *nested*
//! block ends instead where the bracket level it was entered with closes (a JSON object, a
//! Python call's arguments), counted in O(1) per byte ([`nesting`]).
//!
//! The tables are in `grammar.rs` (with [`sectioned`], the text / reasoning / section / stray
//! text layout most dialects share), checked by `check.rs` (in tests); this file is the parser.

#[cfg(test)]
pub(crate) mod check;
pub(crate) mod eager;
mod grammar;
pub(crate) mod markers;
mod nesting;

use std::ops::Range;
use std::sync::Arc;

pub(crate) use grammar::{
    Action, Block, Content, END_THINK, End, Grammar, Marker, Mode, ModeId, Outcome, Reading, THINK,
    THINKING, section_markers, sectioned,
};
pub(crate) use nesting::Nesting;

use markers::{Found, MarkerFinder};
use nesting::Depth;

use super::output::Output;
use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;

/// The normalized events of `stream` read by `grammar` whole, as JSON lines, after checking
/// that one char per chunk gives the same: for dialects' unit tests.
#[cfg(test)]
pub(crate) fn events(grammar: &'static Grammar, stream: &str) -> Vec<String> {
    use crate::normalize::Normalize;
    let strict = Normalize {
        source: None,
        keep_extra: true,
    };
    let read = |chunks: &[&str]| {
        let mut parser = KitParser::new(grammar, Arc::default());
        strict.apply(&crate::parser::run(&mut parser, chunks.iter().copied()).events)
    };
    let whole = read(&[stream]);
    let chars: Vec<String> = stream.chars().map(String::from).collect();
    let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(read(&chars), whole, "{stream:?}");
    whole.iter().map(Event::to_json_line).collect()
}

/// Expected event lines as [`events`] writes them, for dialects' unit tests.
#[cfg(test)]
pub(crate) mod lines {
    use crate::event::Event;

    /// A `tool-call` line; `input` is JSON text.
    pub(crate) fn call(id: &str, name: &str, input: &str) -> String {
        format!(r#"{{"type":"tool-call","toolCallId":"{id}","toolName":"{name}","input":{input}}}"#)
    }

    /// A `text-delta` line.
    pub(crate) fn text(delta: &str) -> String {
        serde_json::to_string(&Event::text(delta)).expect("an event")
    }

    /// An `error` line.
    pub(crate) fn error(message: &str) -> String {
        serde_json::to_string(&Event::error(message)).expect("an event")
    }

    /// A `reasoning-delta` line.
    pub(crate) fn reasoning(delta: &str) -> String {
        serde_json::to_string(&Event::reasoning(delta)).expect("an event")
    }
}

/// The open block: its text so far, where it began, and its closers' search.
#[derive(Debug)]
struct OpenBlock {
    text: String,
    /// How many leading bytes of `text` came from the prefill (C9.3): context, never output.
    from_prefill: usize,
    /// The stream offset of the block's first byte in the stream.
    start: usize,
    block: &'static Block,
    closer: MarkerFinder,
    /// Where a nested block's scan stands.
    depth: Depth,
}

impl OpenBlock {
    /// `block`, entered with `text` (its opener, or all it held before an extension).
    fn entering(
        block: &'static Block,
        text: String,
        from_prefill: usize,
        start: usize,
    ) -> OpenBlock {
        let depth = block
            .nesting
            .map_or_else(Depth::default, |nesting| Depth::entered(nesting, &text));
        OpenBlock {
            text,
            from_prefill,
            start,
            block,
            closer: MarkerFinder::default(),
            depth,
        }
    }
}

/// The reference parser of a kit dialect.
#[derive(Debug)]
pub(crate) struct KitParser {
    grammar: &'static Grammar,
    tools: Arc<Registry>,
    mode: ModeId,
    finder: MarkerFinder,
    open: Option<OpenBlock>,
    /// Absolute offset of the start of the chunk being pushed.
    offset: usize,
    output: Output,
    /// Whether the prefill is being read (C9): blocks then start before the stream.
    in_prefill: bool,
}

impl KitParser {
    pub(crate) fn new(grammar: &'static Grammar, tools: Arc<Registry>) -> KitParser {
        KitParser {
            grammar,
            tools,
            mode: ModeId(0),
            finder: MarkerFinder::default(),
            open: None,
            offset: 0,
            output: Output::default(),
            in_prefill: false,
        }
    }

    /// In a mode: releases `rest` up to a marker or a possible marker prefix at its end, and
    /// acts on a marker. Returns how many bytes of `rest` were consumed.
    fn scan_mode(&mut self, rest: &str, rest_offset: usize, out: &mut Vec<Event>) -> usize {
        let grammar = self.grammar;
        let set = grammar.automaton(self.mode);
        let held_before = self.finder.held(set);
        let found = self.finder.find(set, rest);
        let (consumed, still_held) = match found {
            Some(Found { marker, end }) => (end, set.markers()[marker].len()),
            None => (rest.len(), self.finder.held(set).len()),
        };
        // Of `held_before + rest[..consumed]`, everything before the part still held (or the
        // marker just found) is content.
        let released = (held_before.len() + consumed).saturating_sub(still_held);
        let from_held = released.min(held_before.len());
        // The mode the markers were found in: releasing a gap's stray text, or a lead's first
        // char that is not blank, changes `self.mode` to a mode whose markers are among these.
        let mode = self.mode;
        self.release(
            held_before.get(..from_held).unwrap_or_default(),
            rest_offset - held_before.len(),
            out,
        );
        let from_rest = released - from_held;
        self.release(rest.get(..from_rest).unwrap_or_default(), rest_offset, out);
        let switched = self.mode != mode;
        match found {
            // The mode changed before the marker: it is read again in the new mode; as that
            // mode's content if it is none of its markers.
            Some(Found { marker, end }) if switched => {
                let literal = set.markers()[marker];
                let start = (rest_offset + end).saturating_sub(literal.len());
                match grammar
                    .mode(self.mode)
                    .markers
                    .iter()
                    .find(|m| m.literal == literal)
                {
                    Some(marker) => self.act(marker, start, rest_offset + end),
                    None => self.release(literal, start, out),
                }
            }
            Some(Found { marker, end }) => {
                let marker = &grammar.mode(mode).markers[marker];
                let start = (rest_offset + end).saturating_sub(marker.literal.len());
                self.act(marker, start, rest_offset + end);
            }
            // The prefix held is held again as the new mode's, as far as it is a prefix of its
            // markers; what of it the new mode cannot hold (a prefix of a marker the old mode
            // alone has: `f` of gigachat3's header after a gap's stray char, `</` of
            // minimax-m3's `</mm:think>` after a lead's first char) is that mode's content,
            // released now (C3). It holds no whole marker of the new mode: those are among the
            // old mode's (`check.rs`), which would have found it.
            None if switched => {
                let held = self.finder.held(set);
                let new = grammar.automaton(self.mode);
                self.finder = MarkerFinder::default();
                let _ = self.finder.find(new, held);
                let kept = self.finder.held(new).len();
                let free = held.get(..held.len() - kept).unwrap_or_default();
                self.release(free, rest_offset + consumed - held.len(), out);
            }
            None => {}
        }
        consumed
    }

    /// Acts on a marker found in the current mode, spanning `start..end` of the stream.
    fn act(&mut self, marker: &Marker, start: usize, end: usize) {
        match marker.action {
            Action::Switch(mode) => {
                self.output.markup(start..end);
                self.mode = mode;
            }
            Action::Block(block) => {
                self.open = Some(OpenBlock::entering(
                    block,
                    marker.literal.to_owned(),
                    0,
                    start,
                ));
            }
        }
    }

    /// Content of the current mode, released: text or reasoning; in a gap, blanks are markup
    /// up to the first other char, which starts stray text. `at` is the stream offset of
    /// `content`.
    fn release(&mut self, content: &str, at: usize, out: &mut Vec<Event>) {
        match self.grammar.mode(self.mode).content {
            Content::Text => self.output.release_as(content, false, out),
            Content::Reasoning => self.output.release_as(content, true, out),
            Content::Lead { then } => {
                self.output.release_as(content, false, out);
                if !content
                    .bytes()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                {
                    self.mode = then;
                }
            }
            Content::Gap { stray } => {
                let blanks = content
                    .bytes()
                    .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
                    .count();
                self.output.markup(at..at + blanks);
                if blanks < content.len() {
                    self.mode = stray;
                    self.output
                        .release_as(content.get(blanks..).unwrap_or_default(), false, out);
                }
            }
        }
    }

    /// Inside a block: captures `rest` up to a closer; at the closer, decodes the block.
    fn scan_block(
        &mut self,
        mut open: OpenBlock,
        rest: &str,
        rest_offset: usize,
        out: &mut Vec<Event>,
    ) -> usize {
        let found = open.closer.find(open.block.automaton(), rest);
        let closer_end = found.map_or(rest.len(), |f| f.end);
        // The earlier end wins. The nesting is scanned only up to the closer, so it stays
        // exact if the block goes on (`Outcome::Extend`); when the nesting ends first, the
        // closer search that went further is dropped with the block. A closer holds no byte
        // its nesting counts (`check.rs`), so scanning its bytes changes nothing.
        let nested_end = open.block.nesting.and_then(|nesting| {
            open.depth.end_in(
                nesting,
                rest.as_bytes().get(..closer_end).unwrap_or_default(),
            )
        });
        let (end, why) = match (nested_end, found) {
            (Some((end, why)), _) => (end, why),
            (None, Some(Found { marker, end })) => (end, End::Closer(open.block.closers[marker])),
            (None, None) => {
                open.text.push_str(rest);
                self.open = Some(open);
                return rest.len();
            }
        };
        open.text.push_str(rest.get(..end).unwrap_or_default());
        let reading = Reading {
            block: &open.text,
            from_prefill: open.from_prefill,
            tools: &self.tools,
            generated_id: self.output.generated_id(),
        };
        let outcome = (open.block.decode)(&reading, why);
        self.settle(open, outcome, rest_offset + end, why.closer_len(), out);
        end
    }

    /// Acts on a decoded block that ends at stream offset `end` with a closer of `closer`
    /// bytes.
    fn settle(
        &mut self,
        open: OpenBlock,
        outcome: Outcome,
        end: usize,
        closer: usize,
        out: &mut Vec<Event>,
    ) {
        let span = open.start..end;
        let own_text = open.text.get(open.from_prefill..).unwrap_or_default();
        match outcome {
            Outcome::Reopen(error, block) => {
                let cut = open.text.len() - closer;
                let before = open
                    .text
                    .get(open.from_prefill.min(cut)..cut)
                    .unwrap_or_default();
                if let Some(error) = error {
                    self.output.reject(error, before, out);
                } else {
                    self.output.release_as(before, false, out);
                }
                let text = open.text.get(cut..).unwrap_or_default().to_owned();
                self.open = Some(OpenBlock::entering(
                    block,
                    text,
                    open.from_prefill.saturating_sub(cut),
                    end.saturating_sub(closer),
                ));
            }
            Outcome::Call(events, mode) => {
                self.output
                    .settle(Ok::<_, String>(events), span, own_text, out);
                self.mode = mode;
            }
            Outcome::Markup(mode) => {
                self.output.markup(span);
                self.mode = mode;
            }
            Outcome::Text(mode) => {
                self.output.release_as(own_text, false, out);
                self.mode = mode;
            }
            Outcome::Reject(error, mode) => {
                self.output.reject(error, own_text, out);
                self.mode = mode;
            }
            Outcome::Extend(block) => {
                let start = open.start;
                self.open = Some(OpenBlock::entering(
                    block,
                    open.text,
                    open.from_prefill,
                    start,
                ));
            }
        }
    }
}

impl StreamParser for KitParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        let mut i = 0;
        while i < chunk.len() {
            let rest = chunk.get(i..).unwrap_or_default();
            let at = self.offset + i;
            let consumed = match self.open.take() {
                Some(open) => self.scan_block(open, rest, at, out),
                None => self.scan_mode(rest, at, out),
            };
            // Every step consumes at least one byte, or the whole rest.
            i += consumed.max(usize::from(consumed == 0) * rest.len());
        }
        self.offset += chunk.len();
        self.output.flush(out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if let Some(open) = self.open.take() {
            let reading = Reading {
                block: &open.text,
                from_prefill: open.from_prefill,
                tools: &self.tools,
                generated_id: self.output.generated_id(),
            };
            let outcome = match (open.block.unterminated)(&reading) {
                // A block cannot grow nor be broken any more.
                Outcome::Extend(_) | Outcome::Reopen(..) => {
                    Outcome::Reject("unterminated block".to_owned(), self.mode)
                }
                outcome => outcome,
            };
            let end = self.offset;
            self.settle(open, outcome, end, 0, out);
        } else {
            // A marker prefix at the end of the stream is content of the mode it is in.
            let set = self.grammar.automaton(self.mode);
            let held = self.finder.held(set);
            self.finder.reset();
            self.release(held, self.offset - held.len(), out);
        }
        self.output.flush(out);
    }

    fn call_spans(&self) -> &[Range<usize>] {
        self.output.spans()
    }

    fn markup_spans(&self) -> &[Range<usize>] {
        self.output.markup_spans()
    }

    fn prefill(&mut self, context: &str) {
        self.in_prefill = true;
        let mut ignored = Vec::new();
        self.push(context, &mut ignored);
        self.in_prefill = false;
        // C9.1: nothing read from the prefill is output, and spans count from the stream's
        // first byte; a partial marker at its end is dropped. C9.3: an open block goes on in
        // the stream, its prefill part kept as context.
        self.finder.reset();
        // The reply starts after its generation prompt: the prompt's own text does not make it
        // prose.
        if matches!(self.grammar.modes[0].content, Content::Lead { then } if then == self.mode) {
            self.mode = ModeId(0);
        }
        if let Some(open) = &mut self.open {
            open.from_prefill = open.text.len();
            open.start = 0;
        }
        self.offset = 0;
        self.output.forget();
    }
}
