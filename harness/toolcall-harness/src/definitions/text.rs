//! The source text of a definition: UTF-8 decoding, the byte-order mark, and byte offsets to
//! line numbers (`specs/definitions.md` D1.2).

use std::borrow::Cow;

use super::error::{Located, Problem};

/// The file's text, or `not UTF-8` at the line of the first invalid byte.
pub(super) fn decode(bytes: &[u8]) -> Result<&str, Located> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(error) => {
            let offset = error.valid_up_to();
            // The prefix before the first invalid byte is valid UTF-8 by definition.
            let valid = std::str::from_utf8(bytes.get(..offset).unwrap_or_default()).unwrap_or("");
            Err(Located::document(
                Lines::new(valid).line_of(offset),
                Problem::NotUtf8 { offset },
            ))
        }
    }
}

/// A byte-order mark is an encoding artefact, not text: left in, it would turn `# Title` into a
/// paragraph.
pub(super) fn strip_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Every line end (`\r\n`, a lone `\r`) as `\n`, before the Markdown is read, so a CRLF or CR
/// file reads exactly as its LF twin (D1.2): pulldown-cmark does not treat them alike (an HTML
/// comment runs on past a lone CR; a code span turns a CRLF into two spaces; inline HTML keeps
/// it), which the definitions fuzz target found. Line numbers do not move: each line end is
/// still one line end.
pub(super) fn lf_line_ends(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
}

/// Where each line starts, so that any byte offset maps to its 1-based line.
pub(super) struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// Lines end at `\n`, `\r\n` or a lone `\r`, as CommonMark's do.
    pub(super) fn new(text: &str) -> Lines {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        for (i, &byte) in bytes.iter().enumerate() {
            let ends_line = byte == b'\n' || (byte == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
            if ends_line {
                starts.push(i + 1);
            }
        }
        Lines { starts }
    }

    pub(super) fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lf_crlf_and_lone_cr_alike() {
        for text in ["a\nb\nc", "a\r\nb\r\nc", "a\rb\rc"] {
            let lines = Lines::new(text);
            assert_eq!(lines.line_of(0), 1, "{text:?}");
            assert_eq!(lines.line_of(text.len() - 1), 3, "{text:?}");
        }
        assert_eq!(
            Lines::new("a\r\nb").line_of(1),
            1,
            "the \\r of a CRLF is on its line"
        );
    }

    #[test]
    fn decodes_utf8_and_drops_a_bom() {
        assert_eq!(strip_bom("\u{feff}# T"), "# T");
        assert_eq!(lf_line_ends("a\rb\r\nc\r\r\n"), "a\nb\nc\n\n");
        assert_eq!(decode("# T".as_bytes()).ok(), Some("# T"));
        let error = decode(b"# T\n\nok\n\xff bad").unwrap_err();
        assert_eq!(error.line, 4);
        assert_eq!(error.problem, Problem::NotUtf8 { offset: 8 });
    }
}
