//! Nesting as a block kind: where a bracketed value ends (a JSON object, a Python call's
//! arguments), counted byte by byte with a state of four fields kept across chunks, so each
//! byte costs O(1) and the block is read once, when it ends. Brackets inside strings are not
//! counted; a backslash in a string escapes the byte after it.
//!
//! Inner levels are counted without pairing (`[1)` closes a level): the block's decoder reads
//! the whole value and rejects what is not well formed. Only the first level's closer must pair
//! with its opener, since that is where the block ends.

use super::grammar::End;

/// The bytes a nested block counts: each of `opens` opens a level, closed by the byte at the
/// same position in `closes`; each of `quotes` opens a string it also closes. All ASCII.
#[derive(Debug)]
pub(crate) struct Nesting {
    pub(crate) opens: &'static [u8],
    pub(crate) closes: &'static [u8],
    pub(crate) quotes: &'static [u8],
    /// The deepest level allowed: a byte that would open one more ends the block
    /// ([`End::TooDeep`]). `usize::MAX` for no limit of its own.
    pub(crate) max_depth: usize,
}

impl Nesting {
    /// A JSON object: braces, double-quoted strings.
    pub(crate) const JSON_OBJECT: Nesting = Nesting {
        opens: b"{",
        closes: b"}",
        quotes: b"\"",
        max_depth: usize::MAX,
    };

    /// Whether `byte` means anything to this nesting: a literal closer holding one could not be
    /// told from the value's own bytes (`check.rs` refuses such a closer).
    #[cfg(test)]
    pub(crate) fn counts(&self, byte: u8) -> bool {
        self.opens.contains(&byte) || self.closes.contains(&byte) || self.quotes.contains(&byte)
    }
}

/// Where a scan stands in a nested block.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Depth {
    depth: usize,
    /// The byte that opened the first level: its pair ends the block.
    first: u8,
    /// The quote of the string the scan is in.
    quote: Option<u8>,
    escaped: bool,
}

impl Depth {
    /// The state after the text a nested block is entered with: one level deep, opened by that
    /// text's last byte (a block entered otherwise starts at depth 0, and its first open byte
    /// is its first level).
    pub(crate) fn entered(nesting: &Nesting, text: &str) -> Depth {
        match text.as_bytes().last() {
            Some(&b) if nesting.opens.contains(&b) => Depth {
                depth: 1,
                first: b,
                quote: None,
                escaped: false,
            },
            _ => Depth::default(),
        }
    }

    /// Scans `bytes`; returns where the block ends (the offset just past its last byte) and
    /// why, if it ends there.
    pub(crate) fn end_in(&mut self, nesting: &Nesting, bytes: &[u8]) -> Option<(usize, End)> {
        for (i, &b) in bytes.iter().enumerate() {
            if let Some(quote) = self.quote {
                match (self.escaped, b) {
                    (true, _) => self.escaped = false,
                    (false, b'\\') => self.escaped = true,
                    (false, b) if b == quote => self.quote = None,
                    _ => {}
                }
                continue;
            }
            if nesting.quotes.contains(&b) {
                self.quote = Some(b);
            } else if nesting.opens.contains(&b) {
                if self.depth == nesting.max_depth {
                    return Some((i + 1, End::TooDeep));
                }
                if self.depth == 0 {
                    self.first = b;
                }
                self.depth += 1;
            } else if let Some(k) = nesting.closes.iter().position(|&c| c == b) {
                match self.depth {
                    0 => {}
                    1 if nesting.opens.get(k) != Some(&self.first) => {
                        return Some((i + 1, End::Mismatched));
                    }
                    1 => return Some((i + 1, End::Balanced)),
                    _ => self.depth -= 1,
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYTHON: Nesting = Nesting {
        opens: b"([{",
        closes: b")]}",
        quotes: b"'\"",
        max_depth: 3,
    };

    /// Where the block entered with `entry` ends, fed `chunks` one after another.
    fn end(nesting: &Nesting, entry: &str, chunks: &[&str]) -> Option<(usize, End)> {
        let mut depth = Depth::entered(nesting, entry);
        let mut offset = 0;
        for chunk in chunks {
            if let Some((at, end)) = depth.end_in(nesting, chunk.as_bytes()) {
                return Some((offset + at, end));
            }
            offset += chunk.len();
        }
        None
    }

    #[test]
    fn a_json_object_ends_at_its_closing_brace_whatever_the_chunks() {
        let object = r#""a": {"b": "}\"{"}, "c": "\\"} tail"#;
        let whole = end(&Nesting::JSON_OBJECT, "{", &[object]);
        assert_eq!(whole, Some((object.len() - 5, End::Balanced)));
        let chars: Vec<String> = object.chars().map(String::from).collect();
        let chars: Vec<&str> = chars.iter().map(String::as_str).collect();
        assert_eq!(end(&Nesting::JSON_OBJECT, "{", &chars), whole);
    }

    #[test]
    fn python_brackets_pair_only_at_the_first_level() {
        assert_eq!(
            end(&PYTHON, "f(", &["[1), 'x)')"]),
            Some((10, End::Balanced))
        );
        assert_eq!(end(&PYTHON, "f(", &["1]"]), Some((2, End::Mismatched)));
        assert_eq!(end(&PYTHON, "f(", &["'\\'')"]), Some((5, End::Balanced)));
    }

    #[test]
    fn a_level_past_the_limit_ends_the_block_at_its_opener() {
        assert_eq!(end(&PYTHON, "f(", &["[{", "[("]), Some((3, End::TooDeep)));
        assert_eq!(end(&PYTHON, "f(", &["[{}]"]), None);
    }
}
