//! Which splittings `tch run` replays for a case (`specs/runner.md` §1), each reproducible from
//! its label and seed.

use std::str::FromStr;

use crate::corpus::Case;
use crate::split;

/// A family of splittings, selectable with `--splits`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitKind {
    /// The stream as one chunk.
    Whole,
    /// Cut once, at every char boundary.
    Single,
    /// One char per chunk.
    PerChar,
    /// Pieces of 3 chars with empty chunks between and around them.
    Empty,
    /// Seeded random multi-cuts.
    Random,
    /// At GPT-2 pre-tokenizer boundaries, as a model's tokens arrive.
    Tokens,
}

impl SplitKind {
    pub const ALL: [SplitKind; 6] = [
        SplitKind::Whole,
        SplitKind::Single,
        SplitKind::PerChar,
        SplitKind::Empty,
        SplitKind::Random,
        SplitKind::Tokens,
    ];

    pub fn name(self) -> &'static str {
        match self {
            SplitKind::Whole => "whole",
            SplitKind::Single => "single",
            SplitKind::PerChar => "per-char",
            SplitKind::Empty => "empty",
            SplitKind::Random => "random",
            SplitKind::Tokens => "tokens",
        }
    }
}

impl FromStr for SplitKind {
    type Err = String;

    fn from_str(name: &str) -> Result<SplitKind, String> {
        SplitKind::ALL
            .into_iter()
            .find(|k| k.name() == name)
            .ok_or_else(|| {
                let known: Vec<&str> = SplitKind::ALL.iter().map(|k| k.name()).collect();
                format!("unknown splitting \"{name}\" (known: {})", known.join(", "))
            })
    }
}

/// What to replay per case.
#[derive(Debug, Clone)]
pub struct SplitOptions {
    pub kinds: Vec<SplitKind>,
    /// How many random multi-cuts.
    pub random: usize,
    pub seed: u64,
    /// At most this many splittings per case: single cuts are thinned evenly beyond it.
    pub budget: usize,
    /// Replay exactly these chunk lengths (plus the whole stream, the chunk-dependence baseline)
    /// instead of the kinds.
    pub chunks: Option<Vec<usize>>,
}

impl Default for SplitOptions {
    fn default() -> Self {
        SplitOptions {
            kinds: SplitKind::ALL.to_vec(),
            random: 8,
            seed: 0,
            budget: 1000,
            chunks: None,
        }
    }
}

/// One splitting to replay.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub label: String,
    pub cuts: Vec<usize>,
}

/// The splittings for `case`, the whole stream first (the baseline for chunk-dependence).
pub fn plans(case: &Case, options: &SplitOptions) -> Vec<Plan> {
    let text = case.stream.as_str();
    let mut plans = vec![Plan {
        label: "whole".into(),
        cuts: Vec::new(),
    }];
    if let Some(lengths) = &options.chunks {
        // A chunk vector that does not fit this stream (checked up front by `tch run`) replays
        // only the whole stream rather than cutting inside a character.
        if let Ok(chunks) = split::chunks_from_lengths(text, lengths) {
            let mut at = 0;
            let cuts = chunks[..chunks.len().saturating_sub(1)]
                .iter()
                .map(|chunk| {
                    at += chunk.len();
                    at
                })
                .collect();
            plans.push(Plan {
                label: "chunks".into(),
                cuts,
            });
        }
        return plans;
    }
    let wanted = |kind| options.kinds.contains(&kind);
    if wanted(SplitKind::PerChar) && text.chars().count() > 1 {
        plans.push(Plan {
            label: "per-char".into(),
            cuts: split::cut_points(text),
        });
    }
    if wanted(SplitKind::Empty) {
        plans.push(Plan {
            label: "empty".into(),
            cuts: split::empty_interleaved_cuts(text, 3),
        });
    }
    if wanted(SplitKind::Tokens) {
        plans.push(Plan {
            label: "tokens".into(),
            cuts: split::pretoken_cuts(text),
        });
    }
    if wanted(SplitKind::Random) {
        let seed = options.seed;
        plans.extend(
            split::random_cuts(text, seed, options.random)
                .into_iter()
                .enumerate()
                .map(|(i, cuts)| Plan {
                    label: format!("random#{i}"),
                    cuts,
                }),
        );
    }
    if wanted(SplitKind::Single) {
        let points = split::cut_points(text);
        let room = options.budget.saturating_sub(plans.len()).max(1);
        // Thin evenly, keeping both ends: the first and last few bytes matter most.
        let step = points.len().div_ceil(room).max(1);
        plans.extend(points.iter().step_by(step).map(|&at| Plan {
            label: format!("cut@{at}"),
            cuts: vec![at],
        }));
    }
    if !wanted(SplitKind::Whole) && plans.len() > 1 {
        // The whole stream still runs first, as the chunk-dependence baseline.
        plans[0].label = "whole (baseline)".into();
    }
    plans.truncate(options.budget.max(1));
    plans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;

    fn case(stream: &str) -> Case {
        Case {
            dialect: Dialect::MdFence,
            id: "md-fence/x".into(),
            stream: stream.into(),
            expected: Vec::new(),
        }
    }

    #[test]
    fn whole_first_then_every_kind() {
        let labels: Vec<String> = plans(&case("abcd"), &SplitOptions::default())
            .into_iter()
            .map(|p| p.label)
            .collect();
        assert_eq!(labels[0], "whole");
        for label in [
            "per-char", "empty", "tokens", "random#0", "random#7", "cut@1", "cut@3",
        ] {
            assert!(labels.iter().any(|l| l == label), "{label} in {labels:?}");
        }
    }

    #[test]
    fn the_budget_thins_single_cuts() {
        let long = "x".repeat(5000);
        let options = SplitOptions {
            budget: 100,
            ..SplitOptions::default()
        };
        let plans = plans(&case(&long), &options);
        assert!(plans.len() <= 100, "{}", plans.len());
        assert!(plans.iter().filter(|p| p.label.starts_with("cut@")).count() > 50);
    }

    #[test]
    fn explicit_chunks_replay_exactly() {
        let options = SplitOptions {
            chunks: Some(vec![1, 2]),
            ..SplitOptions::default()
        };
        let plans = plans(&case("abcdef"), &options);
        assert_eq!(plans.len(), 2);
        assert_eq!(plans[1].cuts, [1, 3]);
    }
}
