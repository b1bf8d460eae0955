//! Chunkings of a stream, the one vocabulary for every replay: cut points and the functions
//! that choose them (here), the kinds of chunking and the plans that combine them
//! (`kind`: [`SplitKind`], [`Chunking`], [`plan`]), and chunk vectors as people read and
//! write them (`spec`: [`ChunkSpec`]), and fixed-size chunks read from a source as they are
//! needed (`reader`: [`SizedChunks`]). Every cut falls on a `char` boundary.

mod kind;
mod reader;
mod realism;
mod spec;

pub use kind::{Chunking, SplitKind, SplitOptions, exhaustive, plan};
pub use reader::{ChunkReadError, SizedChunks};
pub use realism::{Realism, realism};
pub use spec::{ChunkSpec, ChunkSpecError};

use thiserror::Error;

/// A chunk vector that does not fit its stream.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SplitError {
    /// The lengths add up to more than the stream.
    #[error("chunk lengths add up to {total} bytes, past the stream's {len}")]
    TooLong {
        /// Their sum.
        total: usize,
        /// The stream's length.
        len: usize,
    },
    /// A chunk would end inside a character (at this byte offset).
    #[error("a chunk ends at byte {0}, inside a UTF-8 character")]
    NotCharBoundary(usize),
    /// A chunk size of 0.
    #[error("a chunk size must be at least 1")]
    ZeroSize,
}

/// The byte offsets strictly inside `text` at which it may be cut.
pub fn cut_points(text: &str) -> Vec<usize> {
    text.char_indices()
        .map(|(i, _)| i)
        .filter(|&i| i > 0)
        .collect()
}

/// `text` cut at the given offsets (ascending char boundaries; duplicates give empty chunks).
pub fn chunks_at<'t>(text: &'t str, cuts: &[usize]) -> Vec<&'t str> {
    let mut chunks = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for &cut in cuts {
        chunks.push(&text[start..cut]);
        start = cut;
    }
    chunks.push(&text[start..]);
    chunks
}

/// The byte length of each chunk: the chunk vector a failure report prints.
pub fn chunk_vector(chunks: &[&str]) -> Vec<usize> {
    chunks.iter().map(|c| c.len()).collect()
}

/// `text` cut into chunks of the given byte lengths; what the lengths leave over is one last
/// chunk. Lengths of 0 give empty chunks.
pub fn chunks_from_lengths<'t>(
    text: &'t str,
    lengths: &[usize],
) -> Result<Vec<&'t str>, SplitError> {
    let mut cuts = Vec::with_capacity(lengths.len());
    let mut end = 0usize;
    for &length in lengths {
        end = end.saturating_add(length);
        if end > text.len() {
            return Err(SplitError::TooLong {
                total: lengths.iter().fold(0usize, |a, &b| a.saturating_add(b)),
                len: text.len(),
            });
        }
        if !text.is_char_boundary(end) {
            return Err(SplitError::NotCharBoundary(end));
        }
        cuts.push(end);
    }
    let mut chunks = chunks_at(text, &cuts);
    if chunks.last().is_some_and(|c| c.is_empty()) && !lengths.is_empty() {
        chunks.pop();
    }
    Ok(chunks)
}

/// `text` in chunks of `size` bytes, each moved forward to the next char boundary.
pub fn fixed_size_chunks(text: &str, size: usize) -> Result<Vec<&str>, SplitError> {
    if size == 0 {
        return Err(SplitError::ZeroSize);
    }
    let mut cuts = Vec::new();
    let mut at = size;
    while at < text.len() {
        while !text.is_char_boundary(at) {
            at += 1;
        }
        if at < text.len() {
            cuts.push(at);
        }
        at += size;
    }
    Ok(chunks_at(text, &cuts))
}

/// `count` seeded random multi-cuts of `text`: each a sorted set of 1 to 8 cut points.
/// The same text, seed and count always give the same cuts.
pub fn random_cuts(text: &str, seed: u64, count: usize) -> Vec<Vec<usize>> {
    let points = cut_points(text);
    if points.is_empty() {
        return Vec::new();
    }
    let mut rng = SplitMix64(seed ^ fnv1a(text.as_bytes()));
    (0..count)
        .map(|_| {
            let wanted = 1 + rng.below(points.len().min(8));
            let mut cuts: Vec<usize> = (0..wanted)
                .map(|_| points[rng.below(points.len())])
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            cuts
        })
        .collect()
}

/// At most `room` of `points` (the ascending cut points of `text`) for the single cuts of a
/// stream with more points than that (`specs/runner.md` R1.5): first every point at the edges
/// of and inside each occurrence of a marker of two or more bytes (where parsers hold and
/// release: thinned evenly if they alone pass `room`), then the first and last
/// [`EDGE_CUTS`] points of the stream, then a sample of the rest seeded by `seed` and the
/// text, as [`random_cuts`] is. Ascending; all of `points` when they fit.
pub fn sampled_cuts<S: AsRef<str>>(
    text: &str,
    points: &[usize],
    markers: &[S],
    room: usize,
    seed: u64,
) -> Vec<usize> {
    if points.len() <= room {
        return points.to_vec();
    }
    let mut kept = vec![false; points.len()];
    let index_of = |at: usize| points.partition_point(|&p| p < at);
    let mut at_markers = Vec::new();
    for marker in markers {
        let marker = marker.as_ref().as_bytes();
        if marker.len() < 2 {
            continue;
        }
        for start in memchr::memmem::find_iter(text.as_bytes(), marker) {
            let end = start + marker.len();
            at_markers.extend(index_of(start)..index_of(end + 1).min(points.len()));
        }
    }
    at_markers.sort_unstable();
    at_markers.dedup();
    let step = at_markers.len().div_ceil(room.max(1)).max(1);
    let mut count = 0;
    // Keeps point `i` while there is room; says whether room is left.
    let mut keep = |i: usize, kept: &mut [bool]| {
        if count < room && !kept[i] {
            kept[i] = true;
            count += 1;
        }
        count < room
    };
    for &i in at_markers.iter().step_by(step) {
        keep(i, &mut kept);
    }
    let edges = EDGE_CUTS.min(points.len());
    for i in (0..edges).chain(points.len() - edges..points.len()) {
        keep(i, &mut kept);
    }
    // The rest: a partial Fisher–Yates shuffle of the points not kept, as far as room allows.
    let mut rest: Vec<usize> = (0..points.len()).filter(|&i| !kept[i]).collect();
    let mut rng = SplitMix64(seed ^ fnv1a(text.as_bytes()));
    for drawn in 0..rest.len() {
        let pick = drawn + rng.below(rest.len() - drawn);
        rest.swap(drawn, pick);
        if !keep(rest[drawn], &mut kept) {
            break;
        }
    }
    points
        .iter()
        .zip(kept)
        .filter_map(|(&point, kept)| kept.then_some(point))
        .collect()
}

/// How many cut points at each end of a stream [`sampled_cuts`] keeps: where a reply starts
/// (a lead, a prefill's mode) and ends (`finish`, a partial marker) parsers decide most.
pub const EDGE_CUTS: usize = 8;

/// Cuts every `step` chars with an empty chunk after each piece, and empty chunks at both
/// ends: `["", "abc", "", "def", "", ""]`.
pub fn empty_interleaved_cuts(text: &str, step: usize) -> Vec<usize> {
    let mut cuts = vec![0];
    for (i, (at, _)) in text.char_indices().enumerate() {
        if i > 0 && i % step.max(1) == 0 {
            cuts.extend([at, at]);
        }
    }
    cuts.extend([text.len(), text.len()]);
    cuts
}

/// Cuts at the boundaries of GPT-2's pre-tokenizer (`'s|'t|…| ?\p{L}+| ?\p{N}+|
/// ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`, approximated without contractions): a letter run, a
/// digit run or a symbol run, each with one leading space, and whitespace runs. BPE tokens of
/// GPT-2-family tokenizers never cross these boundaries, so real model streams cut here.
pub fn pretoken_cuts(text: &str) -> Vec<usize> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Letter,
        Digit,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphabetic() {
            Class::Letter
        } else if c.is_numeric() {
            Class::Digit
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut cuts = Vec::new();
    for i in 1..chars.len() {
        let (at, c) = chars[i];
        let (previous, current) = (class(chars[i - 1].1), class(c));
        let next = chars.get(i + 1).map(|&(_, n)| class(n));
        let boundary = match (previous, current) {
            (Class::Space, Class::Space) => false,
            // A single space joins the following word: " hello" is one pre-token.
            (_, Class::Space) => true,
            (Class::Space, _) => {
                !(chars[i - 1].1 == ' '
                    && (i < 2 || class(chars[i - 2].1) != Class::Space || next.is_some()))
            }
            (a, b) => a != b,
        };
        if boundary {
            cuts.push(at);
        }
    }
    cuts
}

/// SplitMix64: a tiny, well-mixed, seedable generator, so splittings (and `tch fuzz`'s
/// streams) replay exactly from a seed.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// FNV-1a: a stable 64-bit hash (the same on every platform and release, unlike
/// `DefaultHasher`), for seeds and names derived from text.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_points_are_char_boundaries() {
        assert_eq!(cut_points("aé😀b"), [1, 3, 7]);
        assert_eq!(cut_points(""), Vec::<usize>::new());
    }

    #[test]
    fn every_splitting_concatenates_back() {
        let text = "a😀\r\n```tool\n";
        for chunking in exhaustive(text, 64) {
            assert_eq!(
                chunks_at(text, &chunking.cuts).concat(),
                text,
                "{chunking:?}"
            );
        }
    }

    #[test]
    fn chunk_lengths_are_checked() {
        assert_eq!(
            chunks_from_lengths("abcdef", &[1, 2]),
            Ok(vec!["a", "bc", "def"])
        );
        assert_eq!(chunks_from_lengths("abc", &[1, 2]), Ok(vec!["a", "bc"]));
        assert_eq!(chunks_from_lengths("abc", &[0, 3]), Ok(vec!["", "abc"]));
        assert_eq!(
            chunks_from_lengths("abc", &[2, 2]),
            Err(SplitError::TooLong { total: 4, len: 3 })
        );
        assert_eq!(
            chunks_from_lengths("é", &[1]),
            Err(SplitError::NotCharBoundary(1))
        );
    }

    #[test]
    fn random_cuts_are_reproducible_boundaries() {
        let text = "héllo ```tool\n😀";
        let a = random_cuts(text, 7, 5);
        assert_eq!(a, random_cuts(text, 7, 5));
        assert_ne!(a, random_cuts(text, 8, 5));
        assert_eq!(a.len(), 5);
        for cuts in &a {
            assert!(cuts.windows(2).all(|w| w[0] < w[1]));
            assert!(
                cuts.iter()
                    .all(|&c| c > 0 && c < text.len() && text.is_char_boundary(c))
            );
        }
        assert!(random_cuts("x", 1, 3).is_empty());
    }

    #[test]
    fn sampled_cuts_keep_markers_and_ends_then_a_seeded_sample() {
        let text = format!("{}<tool_call>{}", "a".repeat(500), "b".repeat(500));
        let points = cut_points(&text);
        let sampled = sampled_cuts(&text, &points, &["<tool_call>"], 60, 3);
        assert_eq!(sampled.len(), 60);
        assert!(sampled.windows(2).all(|w| w[0] < w[1]));
        // Both edges of the marker and every point inside it.
        assert!((500..=511).all(|at| sampled.contains(&at)), "{sampled:?}");
        assert!(
            sampled.starts_with(&[1, 2, 3, 4, 5, 6, 7, 8]),
            "{sampled:?}"
        );
        assert!(sampled.ends_with(&[1003, 1004, 1005, 1006, 1007, 1008, 1009, 1010]));
        assert_eq!(
            sampled,
            sampled_cuts(&text, &points, &["<tool_call>"], 60, 3)
        );
        assert_ne!(
            sampled,
            sampled_cuts(&text, &points, &["<tool_call>"], 60, 4)
        );
        // One-char markers are everywhere in JSON: not a reason to keep a cut.
        assert_eq!(sampled_cuts(&text, &points, &["a"], 60, 3).len(), 60);
        // Points that fit are all kept; markers that alone overflow are thinned to the room.
        assert_eq!(
            sampled_cuts("abc", &cut_points("abc"), &["bc"], 5, 0),
            [1, 2]
        );
        assert_eq!(sampled_cuts(&text, &points, &["aa"], 10, 0).len(), 10);
    }

    #[test]
    fn empty_chunks_between_pieces() {
        assert_eq!(
            chunks_at("abcdefg", &empty_interleaved_cuts("abcdefg", 3)),
            ["", "abc", "", "def", "", "g", "", ""]
        );
    }

    #[test]
    fn pretokens_keep_a_leading_space_with_the_word() {
        let text = "Hi there, 42 cats!\n\n<GetWeather>";
        let pieces = chunks_at(text, &pretoken_cuts(text));
        assert_eq!(
            pieces,
            [
                "Hi",
                " there",
                ",",
                " 42",
                " cats",
                "!",
                "\n\n",
                "<",
                "GetWeather",
                ">"
            ]
        );
    }

    #[test]
    fn fixed_sizes_respect_chars() {
        assert_eq!(fixed_size_chunks("abcde", 2), Ok(vec!["ab", "cd", "e"]));
        assert_eq!(fixed_size_chunks("aéb", 2), Ok(vec!["aé", "b"]));
        assert_eq!(fixed_size_chunks("", 2), Ok(vec![""]));
        assert_eq!(fixed_size_chunks("a", 0), Err(SplitError::ZeroSize));
    }
}
