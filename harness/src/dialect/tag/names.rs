//! The registry's tool names prepared for streaming matches (`specs/dialects/tag.md` T2.1,
//! T2.4): openers narrowed one character at a time over a sorted list, and each tool's closer
//! found by a Knuth–Morris–Pratt automaton whose state survives chunk boundaries.

use std::ops::Range;

use crate::tools::Registry;

/// One registry tool as a tag.
#[derive(Debug)]
pub(super) struct TagName {
    /// The opener after its `<`: `NAME>`.
    opener_rest: String,
    /// The tool's position in the registry.
    pub(super) tool: usize,
    pub(super) closer: Closer,
}

impl TagName {
    /// Byte length of `<NAME>`.
    pub(super) fn opener_len(&self) -> usize {
        self.opener_rest.len() + 1
    }

    /// What of the opener follows its first `matched` bytes after `<`.
    fn opener_after(&self, matched: usize) -> &[u8] {
        self.opener_rest
            .as_bytes()
            .get(matched..)
            .unwrap_or_default()
    }
}

/// Every registry name, sorted by `NAME>` so that the names sharing a prefix are contiguous.
#[derive(Debug)]
pub(super) struct TagNames {
    sorted: Vec<TagName>,
}

impl TagNames {
    pub(super) fn new(tools: &Registry) -> TagNames {
        let mut sorted: Vec<TagName> = tools
            .tools()
            .iter()
            .enumerate()
            .map(|(tool, t)| TagName {
                opener_rest: format!("{}>", t.name),
                tool,
                closer: Closer::new(format!("</{}>", t.name).into_bytes()),
            })
            .collect();
        sorted.sort_by(|a, b| a.opener_rest.cmp(&b.opener_rest));
        TagNames { sorted }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.sorted.is_empty()
    }

    /// All names: what a lone `<` may still open.
    pub(super) fn all(&self) -> Range<usize> {
        0..self.sorted.len()
    }

    /// The name at `index`, as returned by [`TagNames::complete`] (always in range).
    pub(super) fn tag(&self, index: usize) -> &TagName {
        &self.sorted[index]
    }

    /// The names of `candidates` (which all share their first `matched` bytes after `<`) whose
    /// opener continues with `next` (one whole character). Sorted order keeps them contiguous.
    pub(super) fn narrow(
        &self,
        candidates: Range<usize>,
        matched: usize,
        next: &[u8],
    ) -> Range<usize> {
        let Some(names) = self.sorted.get(candidates.clone()) else {
            return 0..0;
        };
        let before = |n: &TagName| n.opener_after(matched) < next;
        let start = names.partition_point(before);
        let end = names.partition_point(|n| before(n) || n.opener_after(matched).starts_with(next));
        candidates.start + start..candidates.start + end
    }

    /// The name whose whole opener is the `matched` bytes after `<`, if any. Among candidates
    /// sharing those bytes it sorts first, being a prefix of the others.
    pub(super) fn complete(&self, candidates: &Range<usize>, matched: usize) -> Option<usize> {
        let first = self
            .sorted
            .get(candidates.start)
            .filter(|_| !candidates.is_empty())?;
        (first.opener_rest.len() == matched).then_some(candidates.start)
    }
}

/// A `</NAME>` searched for byte by byte (Knuth–Morris–Pratt): the state is how many bytes of
/// it the input ends with, so a closer cut across chunks is found without rescanning anything.
#[derive(Debug)]
pub(super) struct Closer {
    pattern: Vec<u8>,
    /// `fallback[k]`: the length of the longest proper prefix of `pattern[..=k]` that is also
    /// its suffix, where a partial match of `k + 1` bytes resumes after a mismatch.
    fallback: Vec<usize>,
}

impl Closer {
    fn new(pattern: Vec<u8>) -> Closer {
        let mut fallback = vec![0; pattern.len()];
        let mut k = 0;
        for i in 1..pattern.len() {
            while k > 0 && pattern[i] != pattern[k] {
                k = fallback[k - 1];
            }
            if pattern[i] == pattern[k] {
                k += 1;
            }
            fallback[i] = k;
        }
        Closer { pattern, fallback }
    }

    pub(super) fn len(&self) -> usize {
        self.pattern.len()
    }

    /// The match state after `byte`, from a state of `matched` bytes (less than `len`).
    pub(super) fn advance(&self, mut matched: usize, byte: u8) -> usize {
        loop {
            if self.pattern.get(matched) == Some(&byte) {
                return matched + 1;
            }
            match matched.checked_sub(1).and_then(|k| self.fallback.get(k)) {
                Some(&shorter) => matched = shorter,
                None => return 0,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closer_ends(closer: &Closer, input: &[u8]) -> Vec<usize> {
        let mut matched = 0;
        let mut ends = Vec::new();
        for (i, &b) in input.iter().enumerate() {
            matched = closer.advance(matched, b);
            if matched == closer.len() {
                ends.push(i + 1);
                matched = 0;
            }
        }
        ends
    }

    #[test]
    fn closer_is_found_after_partial_matches() {
        let closer = Closer::new(b"</A>".to_vec());
        assert_eq!(closer_ends(&closer, b"<</A> </</A>x</A"), [5, 12]);
        // A name containing `<` makes a partial match restart inside itself.
        let odd = Closer::new(b"</<</>".to_vec());
        assert_eq!(closer_ends(&odd, b"</<</<</>"), [9]);
    }

    #[test]
    fn openers_narrow_by_character() {
        let registry = Registry::new(
            ["GetWeather", "Get", "BookRestaurant", "Météo"]
                .into_iter()
                .map(|name| crate::tools::Tool::new(name, "", serde_json::json!({})))
                .collect::<Result<_, _>>()
                .expect("valid tools"),
        )
        .expect("distinct names");
        let names = TagNames::new(&registry);
        let get = names.narrow(names.narrow(names.all(), 0, b"G"), 1, b"e");
        let get = names.narrow(get, 2, b"t");
        assert_eq!(get.len(), 2);
        assert_eq!(names.complete(&get, 3), None);
        let get_done = names.narrow(get.clone(), 3, b">");
        // `Get` is the registry's second tool.
        let tool = names.complete(&get_done, 4).map(|i| names.tag(i).tool);
        assert_eq!(tool, Some(1));
        assert!(names.narrow(get, 3, b"x").is_empty());
        let meteo = names.narrow(names.narrow(names.all(), 0, b"M"), 1, "é".as_bytes());
        assert_eq!(meteo.len(), 1);
        assert!(names.narrow(names.all(), 0, b"<").is_empty());
    }
}
