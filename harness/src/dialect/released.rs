//! The text a parser has released but not yet emitted, and the order it goes out in: released
//! text always comes before the next event, as one delta, and an invalid block's `error` comes
//! before the block's own text (`specs/streaming.md` C5). Shared by every dialect.

use std::fmt::Display;
use std::mem;

use crate::event::Event;

#[derive(Debug, Default)]
pub(crate) struct Released {
    text: String,
}

impl Released {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_comes_between_the_text_before_and_the_block() {
        let mut released = Released::default();
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
