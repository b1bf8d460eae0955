//! The kinds of chunking every replay is one of, a [`Chunking`] (a kind, a label and its cuts),
//! and the plans that combine them: what `tch run` replays per case ([`plan`],
//! `specs/runner.md` §1) and what the corpus tests replay ([`exhaustive`], `specs/corpus.md`).
//! `tch fuzz` makes its own chunkings of the same type (`fuzz::generate`).

use std::fmt;
use std::str::FromStr;

use super::{
    ChunkSpec, cut_points, empty_interleaved_cuts, pretoken_cuts, random_cuts, sampled_cuts,
};

/// A family of chunkings. Reports count replays per kind; `--splits` selects the
/// [`SplitKind::SELECTABLE`] ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SplitKind {
    /// The stream as one chunk: the baseline every other chunking is compared with.
    Whole,
    /// Cut once, at a char boundary (`cut@N`).
    Single,
    /// Cut at two char boundaries (`pair@A,B`).
    Pair,
    /// One char per chunk.
    PerChar,
    /// Pieces of a few chars with empty chunks between and around them.
    Empty,
    /// Seeded random multi-cuts (`random#I`).
    Random,
    /// At GPT-2 pre-tokenizer boundaries, as a model's tokens arrive.
    Tokens,
    /// Exactly the chunk vector the user gave (`--chunks`).
    Chunks,
    /// Chunks of 1 to 8 chars (`tch fuzz`).
    SmallChunks,
    /// Cuts on both sides of every punctuation char and line end (`tch fuzz`).
    Punctuation,
    /// Cuts inside markup fragments, so chunks end mid-opener (`tch fuzz`).
    InsideMarkup,
    /// Fixed-size chunks of a stream that grows, timed (`specs/runner.md` §8).
    Scaling,
    /// No chunks: the whole reply in one `non-streaming` request, for the parser's
    /// non-streaming result (`specs/protocol.md` P2.11, `specs/runner.md` R2.3).
    NonStreaming,
}

impl SplitKind {
    /// Every kind, in report order: the selectable ones first.
    pub const ALL: [SplitKind; 13] = [
        SplitKind::Whole,
        SplitKind::Single,
        SplitKind::Pair,
        SplitKind::PerChar,
        SplitKind::Empty,
        SplitKind::Random,
        SplitKind::Tokens,
        SplitKind::Chunks,
        SplitKind::SmallChunks,
        SplitKind::Punctuation,
        SplitKind::InsideMarkup,
        SplitKind::Scaling,
        SplitKind::NonStreaming,
    ];

    /// The kinds `--splits` may name: the first seven of [`SplitKind::ALL`] (the others are
    /// made by `--chunks` and `tch fuzz`).
    pub const SELECTABLE: &[SplitKind] = SplitKind::ALL.split_at(7).0;

    /// What `tch run` replays by default: every selectable kind but `pair` (quadratic in the
    /// stream's length; the corpus tests replay it for short streams).
    pub fn defaults() -> Vec<SplitKind> {
        SplitKind::SELECTABLE
            .iter()
            .copied()
            .filter(|&kind| kind != SplitKind::Pair)
            .collect()
    }

    /// Whether a replay command of this kind names its chunk vector: not for the whole
    /// stream, which every replay runs first anyway, nor for a scaling case, which its id
    /// replays.
    pub fn replays_with_chunks(self) -> bool {
        !matches!(self, SplitKind::Whole | SplitKind::Scaling)
    }

    /// The kind's name in reports, labels and `--splits`.
    pub fn name(self) -> &'static str {
        match self {
            SplitKind::Whole => "whole",
            SplitKind::Single => "single",
            SplitKind::Pair => "pair",
            SplitKind::PerChar => "per-char",
            SplitKind::Empty => "empty",
            SplitKind::Random => "random",
            SplitKind::Tokens => "tokens",
            SplitKind::Chunks => "chunks",
            SplitKind::SmallChunks => "small-chunks",
            SplitKind::Punctuation => "punctuation",
            SplitKind::InsideMarkup => "inside-markup",
            SplitKind::Scaling => "scaling",
            SplitKind::NonStreaming => "non-streaming",
        }
    }
}

impl fmt::Display for SplitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SplitKind {
    type Err = String;

    fn from_str(name: &str) -> Result<SplitKind, String> {
        crate::named::parse(&SplitKind::ALL, SplitKind::name, "splitting", name)
    }
}

/// One way of cutting one stream: its kind, a label that reproduces it (`cut@12`,
/// `random#3`, `per-char`), and its cut offsets (ascending; a repeated offset makes an empty
/// chunk).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunking {
    /// The family it belongs to.
    pub kind: SplitKind,
    /// How reports name it.
    pub label: String,
    /// Byte offsets at which the stream is cut.
    pub cuts: Vec<usize>,
}

impl Chunking {
    /// The whole stream as one chunk.
    pub fn whole() -> Chunking {
        Chunking::new(SplitKind::Whole, "whole", Vec::new())
    }

    /// A chunking of `kind`, labelled `label`.
    pub fn new(kind: SplitKind, label: impl Into<String>, cuts: Vec<usize>) -> Chunking {
        Chunking {
            kind,
            label: label.into(),
            cuts,
        }
    }

    /// The whole reply given at once for the non-streaming result (`specs/runner.md` R2.3):
    /// no cuts, yet not a streamed replay.
    pub fn non_streaming() -> Chunking {
        Chunking::new(SplitKind::NonStreaming, "non-streaming", Vec::new())
    }

    /// Whether this is the whole stream streamed in one chunk.
    pub fn is_whole(&self) -> bool {
        self.cuts.is_empty() && self.kind != SplitKind::NonStreaming
    }

    /// The chunk vector that replays this chunking of `text` (`per-char` stays `per-char`).
    pub fn spec(&self, text: &str) -> ChunkSpec {
        match self.kind {
            SplitKind::PerChar => ChunkSpec::PerChar,
            _ => ChunkSpec::of_cuts(text, &self.cuts),
        }
    }
}

/// What `tch run` replays per case.
#[derive(Debug, Clone)]
pub struct SplitOptions {
    /// The kinds to replay (the whole stream always runs first, as the baseline).
    pub kinds: Vec<SplitKind>,
    /// How many random multi-cuts.
    pub random: usize,
    /// The seed of the random cuts.
    pub seed: u64,
    /// At most this many chunkings per case: beyond it, single cuts are sampled
    /// (`specs/runner.md` R1.5: at the markers, the stream's ends, then seeded) and pairs
    /// thinned evenly.
    pub budget: usize,
    /// Replay exactly this chunk vector (plus the whole stream) instead of the kinds.
    pub chunks: Option<ChunkSpec>,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            kinds: SplitKind::defaults(),
            random: 8,
            seed: 0,
            budget: 1000,
            chunks: None,
        }
    }
}

/// The chunkings `tch run` replays for `text`, the whole stream first (the baseline for
/// chunk-dependence); `markers` are the dialect's (`Dialect::markers`), whose edges a stream
/// too long for the budget still gets single cuts at (R1.5).
pub fn plan<S: AsRef<str>>(text: &str, markers: &[S], options: &SplitOptions) -> Vec<Chunking> {
    let mut plan = vec![Chunking::whole()];
    if let Some(spec) = &options.chunks {
        // A chunk vector that does not fit this stream (checked up front by `tch run`) replays
        // only the whole stream rather than cutting inside a character.
        if let Ok(cuts) = spec.cuts(text) {
            plan.push(Chunking::new(SplitKind::Chunks, "chunks", cuts));
        }
        return plan;
    }
    let wanted = |kind| options.kinds.contains(&kind);
    if wanted(SplitKind::PerChar) && text.chars().count() > 1 {
        plan.push(Chunking::new(
            SplitKind::PerChar,
            "per-char",
            cut_points(text),
        ));
    }
    if wanted(SplitKind::Empty) {
        plan.push(Chunking::new(
            SplitKind::Empty,
            "empty",
            empty_interleaved_cuts(text, 3),
        ));
    }
    if wanted(SplitKind::Tokens) {
        plan.push(Chunking::new(
            SplitKind::Tokens,
            "tokens",
            pretoken_cuts(text),
        ));
    }
    if wanted(SplitKind::Random) {
        plan.extend(
            random_cuts(text, options.seed, options.random)
                .into_iter()
                .enumerate()
                .map(|(i, cuts)| Chunking::new(SplitKind::Random, format!("random#{i}"), cuts)),
        );
    }
    let points = cut_points(text);
    if wanted(SplitKind::Single) {
        let room = options.budget.saturating_sub(plan.len()).max(1);
        let cuts = sampled_cuts(text, &points, markers, room, options.seed);
        plan.extend(cuts.into_iter().map(single));
    }
    if wanted(SplitKind::Pair) {
        let room = options.budget.saturating_sub(plan.len()).max(1);
        let pairs = points.len() * points.len().saturating_sub(1) / 2;
        let step = pairs.div_ceil(room).max(1);
        plan.extend(all_pairs(&points).step_by(step));
    }
    if !wanted(SplitKind::Whole) && plan.len() > 1 {
        // The whole stream still runs first, as the chunk-dependence baseline.
        plan[0].label = "whole (baseline)".into();
    }
    plan.truncate(options.budget.max(1));
    plan
}

/// Every chunking the corpus tests replay: whole, one char per chunk, each single cut, and
/// every pair of cuts for streams of at most `pair_limit` chars.
pub fn exhaustive(text: &str, pair_limit: usize) -> Vec<Chunking> {
    let points = cut_points(text);
    let mut chunkings = vec![
        Chunking::whole(),
        Chunking::new(SplitKind::PerChar, "per-char", points.clone()),
    ];
    chunkings.extend(points.iter().map(|&at| single(at)));
    if text.chars().count() <= pair_limit {
        chunkings.extend(all_pairs(&points));
    }
    chunkings
}

fn single(at: usize) -> Chunking {
    Chunking::new(SplitKind::Single, format!("cut@{at}"), vec![at])
}

fn all_pairs(points: &[usize]) -> impl Iterator<Item = Chunking> + '_ {
    points.iter().enumerate().flat_map(move |(i, &a)| {
        points[i + 1..]
            .iter()
            .map(move |&b| Chunking::new(SplitKind::Pair, format!("pair@{a},{b}"), vec![a, b]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_first_then_every_kind() {
        let labels: Vec<String> = plan("abcd", &[""; 0], &SplitOptions::default())
            .into_iter()
            .map(|c| c.label)
            .collect();
        assert_eq!(labels[0], "whole");
        for label in [
            "per-char", "empty", "tokens", "random#0", "random#7", "cut@1", "cut@3",
        ] {
            assert!(labels.iter().any(|l| l == label), "{label} in {labels:?}");
        }
        assert!(!labels.iter().any(|l| l.starts_with("pair@")), "{labels:?}");
    }

    #[test]
    fn the_budget_thins_single_cuts_and_pairs() {
        let long = "x".repeat(5000);
        let options = SplitOptions {
            budget: 100,
            kinds: vec![SplitKind::Single, SplitKind::Pair],
            ..SplitOptions::default()
        };
        let plan = plan(&long, &[""; 0], &options);
        assert!(plan.len() <= 100, "{}", plan.len());
        assert!(plan.iter().filter(|c| c.kind == SplitKind::Single).count() > 50);
        assert_eq!(plan[0].label, "whole (baseline)");
    }

    #[test]
    fn explicit_chunks_replay_exactly() {
        let options = SplitOptions {
            chunks: Some(ChunkSpec::Lengths(vec![1, 2])),
            ..SplitOptions::default()
        };
        let plan = plan("abcdef", &[""; 0], &options);
        assert_eq!(plan.len(), 2);
        assert_eq!(plan[1].cuts, [1, 3]);
        assert_eq!(plan[1].kind, SplitKind::Chunks);
    }

    #[test]
    fn counts_the_pairs() {
        // 4 chars: whole, per-char, 3 single cuts, 3 pairs.
        assert_eq!(exhaustive("abcd", 64).len(), 8);
        assert_eq!(exhaustive("abcd", 3).len(), 5);
    }

    #[test]
    fn names_read_back() {
        for kind in SplitKind::ALL {
            assert_eq!(kind.name().parse(), Ok(kind));
        }
        assert!("pairs".parse::<SplitKind>().is_err());
    }
}
