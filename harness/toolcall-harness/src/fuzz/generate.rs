//! `tch fuzz`'s seeded source of streams and chunkings: fresh streams from the fragment
//! grammar, mutations of corpus streams (insert, delete, duplicate, replace, splice), and
//! chunkings both random and adversarial (cuts inside markup). Everything follows from the
//! seed, so a campaign replays exactly.

use super::fragments::fragments;
use crate::split::{self, Chunking, SplitKind, SplitMix64};

/// Streams and chunkings from one seed.
pub struct Generator {
    rng: SplitMix64,
    /// Corpus streams to mutate (of the fuzzed dialect).
    seeds: Vec<String>,
}

/// Markup fragments: those with ASCII punctuation, which some dialect reads as syntax.
fn is_markup(fragment: &str) -> bool {
    fragment.len() >= 2 && fragment.bytes().any(|b| b.is_ascii_punctuation())
}

impl Generator {
    /// A generator seeded by `seed`, mutating the corpus streams `seeds`.
    pub fn new(seed: u64, seeds: Vec<String>) -> Generator {
        Generator {
            rng: SplitMix64::new(seed),
            seeds,
        }
    }

    /// The next stream: half fresh from fragments, half a mutated corpus stream.
    pub fn stream(&mut self) -> String {
        if self.seeds.is_empty() || self.rng.below(2) == 0 {
            self.fresh()
        } else {
            let base = self.seeds[self.rng.below(self.seeds.len())].clone();
            let edits = 1 + self.rng.below(4);
            (0..edits).fold(base, |stream, _| self.mutate(stream))
        }
    }

    fn fragment(&mut self) -> &'static str {
        fragments()[self.rng.below(fragments().len())]
    }

    fn fresh(&mut self) -> String {
        let pieces = 1 + self.rng.below(24);
        (0..pieces).map(|_| self.fragment()).collect()
    }

    /// A random char boundary of `text`, its ends included.
    fn boundary(&mut self, text: &str) -> usize {
        let chars = text.chars().count();
        let at = self.rng.below(chars + 1);
        text.char_indices().nth(at).map_or(text.len(), |(i, _)| i)
    }

    /// A random char range of `text` of at most 16 chars.
    fn range(&mut self, text: &str) -> (usize, usize) {
        let start = self.boundary(text);
        let len = self.rng.below(17);
        let end = text[start..]
            .char_indices()
            .nth(len)
            .map_or(text.len(), |(i, _)| start + i);
        (start, end)
    }

    fn mutate(&mut self, mut stream: String) -> String {
        match self.rng.below(5) {
            0 => {
                let at = self.boundary(&stream);
                let fragment = self.fragment();
                stream.insert_str(at, fragment);
            }
            1 => {
                let (start, end) = self.range(&stream);
                stream.replace_range(start..end, "");
            }
            2 => {
                let (start, end) = self.range(&stream);
                let copy = stream[start..end].to_owned();
                stream.insert_str(end, &copy);
            }
            3 => {
                let (start, end) = self.range(&stream);
                let fragment = self.fragment();
                stream.replace_range(start..end, fragment);
            }
            _ => {
                let other = match self.seeds.len() {
                    0 => String::new(),
                    n => self.seeds[self.rng.below(n)].clone(),
                };
                let (head, tail) = (self.boundary(&stream), self.boundary(&other));
                stream.truncate(head);
                stream.push_str(&other[tail..]);
            }
        }
        stream
    }

    /// The chunkings to replay `stream` under, besides whole: one char per chunk; chunks of 1
    /// to 8 chars (the `@ai-sdk-tool/parser` fuzzer's); a few cuts anywhere; empty chunks
    /// between pieces; cuts around every punctuation char; and cuts inside markup fragments,
    /// so chunks end mid-opener.
    pub fn chunkings(&mut self, stream: &str) -> Vec<Chunking> {
        let mut chunkings = vec![Chunking::new(
            SplitKind::PerChar,
            "per-char",
            split::cut_points(stream),
        )];
        for i in 0..2 {
            let cuts = self.small_chunks(stream);
            chunkings.push(Chunking::new(
                SplitKind::SmallChunks,
                format!("small-chunks#{i}"),
                cuts,
            ));
        }
        let seed = self.rng.next_u64();
        for (i, cuts) in split::random_cuts(stream, seed, 2).into_iter().enumerate() {
            chunkings.push(Chunking::new(
                SplitKind::Random,
                format!("random#{i}"),
                cuts,
            ));
        }
        let step = 1 + self.rng.below(8);
        chunkings.push(Chunking::new(
            SplitKind::Empty,
            "empty",
            split::empty_interleaved_cuts(stream, step),
        ));
        chunkings.push(Chunking::new(
            SplitKind::Punctuation,
            "punctuation",
            punctuation_cuts(stream),
        ));
        for i in 0..2 {
            let cuts = self.inside_markup(stream);
            chunkings.push(Chunking::new(
                SplitKind::InsideMarkup,
                format!("inside-markup#{i}"),
                cuts,
            ));
        }
        chunkings
    }

    fn small_chunks(&mut self, stream: &str) -> Vec<usize> {
        let mut cuts = Vec::new();
        let mut chars = stream.char_indices().map(|(i, _)| i).skip(1);
        loop {
            let step = 1 + self.rng.below(8);
            match chars.nth(step - 1) {
                Some(at) => cuts.push(at),
                None => return cuts,
            }
        }
    }

    /// A cut before each markup fragment found in `stream`, and one at a random point inside.
    fn inside_markup(&mut self, stream: &str) -> Vec<usize> {
        let mut cuts = Vec::new();
        for fragment in fragments().iter().filter(|f| is_markup(f)) {
            for (start, _) in stream.match_indices(fragment) {
                let inner = split::cut_points(fragment);
                if inner.is_empty() {
                    continue;
                }
                let at = start + inner[self.rng.below(inner.len())];
                cuts.extend([start, at]);
            }
        }
        cuts.retain(|&c| c > 0 && c < stream.len());
        cuts.sort_unstable();
        cuts.dedup();
        cuts
    }
}

/// Cuts on both sides of every ASCII punctuation char and line end.
fn punctuation_cuts(stream: &str) -> Vec<usize> {
    let mut cuts: Vec<usize> = stream
        .char_indices()
        .filter(|(_, c)| c.is_ascii_punctuation() || *c == '\n' || *c == '\r')
        .flat_map(|(i, c)| [i, i + c.len_utf8()])
        .filter(|&c| c > 0 && c < stream.len())
        .collect();
    cuts.dedup();
    cuts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_streams_and_chunkings() {
        let seeds = vec!["<tool_call>{\"name\":\"f\"}</tool_call> é".to_owned()];
        let mut a = Generator::new(7, seeds.clone());
        let mut b = Generator::new(7, seeds);
        for _ in 0..200 {
            let (x, y) = (a.stream(), b.stream());
            assert_eq!(x, y);
            let chunkings = a.chunkings(&x);
            assert_eq!(chunkings, b.chunkings(&y));
            for chunking in chunkings {
                assert_eq!(split::chunks_at(&x, &chunking.cuts).concat(), x);
            }
        }
    }

    #[test]
    fn markup_is_cut_inside() {
        let mut generator = Generator::new(1, Vec::new());
        let stream = "ab<tool_call>cd";
        let cuts = generator.inside_markup(stream);
        assert!(cuts.contains(&2), "{cuts:?}");
        assert!(cuts.iter().any(|&c| c > 2 && c < 13), "{cuts:?}");
    }
}
