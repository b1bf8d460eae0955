//! A stream's *skeleton* (`specs/runner.md` R9.3): its dialect's markers as they are, every
//! maximal run of other text (blanks too) one placeholder. Two minimal
//! streams with the same skeleton put the same markup in the same order around text, which
//! is what a parser's bug depends on; what the text says (a JSON body, prose) rarely is.

use std::fmt;

/// One piece of a skeleton.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Piece {
    /// A marker of the dialect, as written.
    Marker(String),
    /// A maximal run of other text.
    Text,
}

/// A stream's markers in order, with the text between them as placeholders.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Skeleton(pub Vec<Piece>);

/// What a skeleton prints for a run of text.
pub const PLACEHOLDER: &str = "…";

impl Skeleton {
    /// The skeleton of `text` under `markers`. At each offset the longest marker that starts
    /// there is taken (leftmost, then longest); markers shorter than two bytes are ordinary
    /// punctuation (`,`, `[`, `{`) and count as text, as they do for realism (R1.4).
    pub fn of<S: AsRef<str>>(text: &str, markers: &[S]) -> Skeleton {
        let markers: Vec<&str> = markers
            .iter()
            .map(AsRef::as_ref)
            .filter(|m| m.len() >= 2)
            .collect();
        let mut pieces = Vec::new();
        let mut run_start = 0;
        let mut at = 0;
        let flush = |pieces: &mut Vec<Piece>, run: &str| {
            if !run.is_empty() {
                pieces.push(Piece::Text);
            }
        };
        while at < text.len() {
            let rest = &text[at..];
            let found = markers
                .iter()
                .filter(|m| rest.starts_with(**m))
                .max_by_key(|m| m.len());
            match found {
                Some(marker) => {
                    flush(&mut pieces, &text[run_start..at]);
                    pieces.push(Piece::Marker((*marker).to_owned()));
                    at += marker.len();
                    run_start = at;
                }
                None => at += rest.chars().next().map_or(1, char::len_utf8),
            }
        }
        flush(&mut pieces, &text[run_start..]);
        Skeleton(pieces)
    }

    /// The markers, in order.
    pub fn markers(&self) -> impl Iterator<Item = &str> {
        self.0.iter().filter_map(|piece| match piece {
            Piece::Marker(marker) => Some(marker.as_str()),
            Piece::Text => None,
        })
    }
}

impl fmt::Display for Skeleton {
    /// Markers as written, each run of text as `…`: `…<tool_call>…</tool_call>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for piece in &self.0 {
            match piece {
                Piece::Marker(marker) => f.write_str(marker)?,
                Piece::Text => f.write_str(PLACEHOLDER)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARKERS: [&str; 5] = ["<tool_call>", "</tool_call>", "<think>", "</think>", ","];

    #[test]
    fn markers_stay_text_runs_become_one_placeholder() {
        let skeleton = Skeleton::of(
            "Sure, here: <tool_call>{\"name\": \"a\", \"arguments\": {}}</tool_call> bye",
            &MARKERS,
        );
        assert_eq!(skeleton.to_string(), "…<tool_call>…</tool_call>…");
        assert_eq!(
            skeleton.markers().collect::<Vec<_>>(),
            ["<tool_call>", "</tool_call>"]
        );
    }

    #[test]
    fn blank_runs_are_text_and_the_longest_marker_wins() {
        let markers = ["<tool", "<tool_call>", "</tool_call>"];
        let skeleton = Skeleton::of("<tool_call>\n{}\n</tool_call>\n\n", &markers);
        assert_eq!(skeleton.to_string(), "<tool_call>…</tool_call>…");
        let adjacent = Skeleton::of("<tool_call></tool_call>", &markers);
        assert_eq!(adjacent.to_string(), "<tool_call></tool_call>");
        assert_eq!(Skeleton::of("", &markers), Skeleton::default());
        assert_eq!(Skeleton::of("é <tool", &markers).to_string(), "…<tool");
        // Two streams that differ in their text only have one skeleton.
        assert_eq!(
            Skeleton::of("a<tool_call>x</tool_call>", &markers),
            Skeleton::of("bcd <tool_call>{\"y\": 1}</tool_call>", &markers)
        );
    }
}
