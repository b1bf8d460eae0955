//! Where a JSON object ends (`specs/dialects/signature.md` S1.2), found incrementally: the
//! matching `}` of an opening `{`, with braces inside strings ignored and `\"` / `\\` escapes
//! honoured, across chunks of any size.
//!
//! Only nesting depth, whether we are inside a string, and whether the next byte is escaped are
//! kept, so no byte is scanned twice; `memchr` jumps to the next byte that matters. The content
//! is not validated here: an object that matches its braces but is no JSON is rejected later.

use memchr::{memchr2, memchr3};

/// The scanning state inside one object, fed from its opening `{` on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct ObjectEnd {
    /// Open braces outside strings not yet matched.
    depth: usize,
    in_string: bool,
    /// Inside a string, the previous byte was an unescaped `\`.
    escaped: bool,
}

impl ObjectEnd {
    /// Continues over `bytes`, the input that follows what was fed before (the first byte fed
    /// is the opening `{`). Returns the offset in `bytes` just past the matching `}`: an ASCII
    /// byte, so the cut is a char boundary.
    pub(super) fn find_end(&mut self, bytes: &[u8]) -> Option<usize> {
        let mut i = 0;
        while i < bytes.len() {
            if self.in_string {
                if self.escaped {
                    // Any byte after `\` is taken by the escape; a multi-byte char's later
                    // bytes are never `"` or `\`, so skipping one byte is enough.
                    self.escaped = false;
                    i += 1;
                    continue;
                }
                i += memchr2(b'"', b'\\', &bytes[i..])?;
                match bytes[i] {
                    b'"' => self.in_string = false,
                    _ => self.escaped = true,
                }
            } else {
                i += memchr3(b'{', b'}', b'"', &bytes[i..])?;
                match bytes[i] {
                    b'{' => self.depth += 1,
                    b'}' => {
                        self.depth = self.depth.saturating_sub(1);
                        if self.depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => self.in_string = true,
                }
            }
            i += 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end offset found feeding `text` cut into the given chunk lengths (rest last).
    fn end(text: &str, chunk_lengths: &[usize]) -> Option<usize> {
        let mut scanner = ObjectEnd::default();
        let mut offset = 0;
        let bytes = text.as_bytes();
        for &len in chunk_lengths.iter().chain([&bytes.len()]) {
            let stop = (offset + len).min(bytes.len());
            if let Some(end) = scanner.find_end(&bytes[offset..stop]) {
                return Some(offset + end);
            }
            offset = stop;
        }
        None
    }

    #[test]
    fn matches_braces_outside_strings() {
        let object = r#"{"a": {"b": "}{"}, "c": "\"}", "d": "\\"}"#;
        let text = format!("{object} tail}}");
        for cut in 0..=text.len() {
            assert_eq!(end(&text, &[cut]), Some(object.len()), "cut {cut}");
        }
        assert_eq!(end(&text, &[1; 64]), Some(object.len()));
    }

    #[test]
    fn open_objects_have_no_end() {
        for text in [r#"{"#, r#"{"}"#, r#"{"\"}"#, r#"{{}"#, r#"{"a\\\"}"#] {
            assert_eq!(end(text, &[]), None, "{text}");
            assert_eq!(end(text, &[1, 1, 1, 1]), None, "{text}");
        }
    }

    #[test]
    fn an_escape_cut_from_its_byte_still_applies() {
        assert_eq!(end(r#"{"\"}"}"#, &[3, 1]), Some(7));
        assert_eq!(end(r#"{"\\"}"#, &[3, 1]), Some(6));
    }
}
