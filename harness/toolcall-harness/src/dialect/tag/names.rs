//! The registry's tool names prepared for streaming matches (`specs/dialects/tag.md` T2.1,
//! T2.4): openers narrowed one character at a time over a sorted list, and each tool's closer
//! as a fresh [`LiteralFinder`] whose state survives chunk boundaries.

use std::ops::Range;

use crate::dialect::scan::LiteralFinder;
use crate::tools::Registry;

/// One registry tool as a tag.
#[derive(Debug)]
pub(super) struct TagName {
    /// The opener after its `<`: `NAME>`.
    opener_rest: String,
    /// The tool's position in the registry.
    pub(super) tool: usize,
    /// A finder for `</NAME>`, in its initial state.
    pub(super) closer: LiteralFinder,
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
                closer: LiteralFinder::new(&format!("</{}>", t.name)),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openers_narrow_by_character() {
        let registry = Registry::new(
            ["GetWeather", "Get", "BookRestaurant"]
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
        assert!(names.narrow(names.all(), 0, b"<").is_empty());
    }
}
