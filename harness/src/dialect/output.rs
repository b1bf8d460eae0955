//! What a parser emits, in the order the contract demands, shared by every dialect: text
//! released but not yet emitted goes out as one delta before the next event; an invalid block's
//! `error` comes before the block's own text (`specs/streaming.md` C5); a recognised call's
//! span is recorded and its ordinal counted (C2, C7).

use std::fmt::Display;
use std::mem;
use std::ops::Range;

use crate::event::Event;

#[derive(Debug, Default)]
pub(crate) struct Output {
    text: String,
    /// The recognised calls' byte ranges, in order: one per call.
    spans: Vec<Range<usize>>,
}

impl Output {
    pub(crate) fn push_str(&mut self, text: &str) {
        self.text.push_str(text);
    }

    /// Emits what was released as one `text-delta` (nothing when empty).
    pub(crate) fn flush(&mut self, out: &mut Vec<Event>) {
        if !self.text.is_empty() {
            out.push(Event::text(mem::take(&mut self.text)));
        }
    }

    /// An invalid block: the text before it, the `error`, then the block's exact text, which
    /// stays released until the next flush.
    pub(crate) fn reject(&mut self, error: impl Display, block: &str, out: &mut Vec<Event>) {
        self.flush(out);
        out.push(Event::error(error.to_string()));
        self.text.push_str(block);
    }

    /// The 1-based ordinal the next recognised call gets (`tool-call-N`, C7).
    pub(crate) fn next_ordinal(&self) -> usize {
        self.spans.len() + 1
    }

    /// A recognised call that spans `span` of the stream: the text before it, then its events.
    pub(crate) fn accept(
        &mut self,
        span: Range<usize>,
        events: impl IntoIterator<Item = Event>,
        out: &mut Vec<Event>,
    ) {
        self.spans.push(span);
        self.flush(out);
        out.extend(events);
    }

    pub(crate) fn spans(&self) -> &[Range<usize>] {
        &self.spans
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_comes_between_the_text_before_and_the_block() {
        let mut released = Output::default();
        let mut out = Vec::new();
        released.push_str("a ");
        released.reject("bad", "<x>", &mut out);
        released.push_str(" b");
        released.flush(&mut out);
        released.flush(&mut out);
        assert_eq!(
            out,
            [Event::text("a "), Event::error("bad"), Event::text("<x> b")]
        );
    }
}
