//! How much a finding would hurt the application behind the parser (`specs/runner.md` R4.3):
//! a wrong call an agent would run, before a lost call, before damaged text, before a missing
//! error event. Computed from the verdicts alone, so every report orders findings the same way.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Verdict;

/// A finding's severity, worst first: `Critical < High < Medium < Low` in `Ord`, so the
/// worst of several is their minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    /// A call that should not be, or not so: an agent would run a truncated, invalid or wrong
    /// call (`extra-call`, `wrong-call`).
    Critical,
    /// A call the model made never reaches the application (`missing-call`), or the parser
    /// died with the rest of the stream (`crash`, `timeout`).
    High,
    /// Text (or reasoning) lost, leaked, moved or reordered; output `tch` cannot read; a
    /// chunking whose output differs in a way no other verdict names.
    Medium,
    /// An `error` event missing or extra, or text held back (`not-eager`, `latency`): the
    /// user sees the right calls and text, late or without the warning.
    Low,
}

impl Severity {
    /// Every severity, worst first.
    pub const ALL: [Severity; 4] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
    ];

    /// The severity's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Critical => "critical",
            Severity::High => "high",
            Severity::Medium => "medium",
            Severity::Low => "low",
        }
    }

    /// What it means for the application, in a few words.
    pub fn meaning(self) -> &'static str {
        match self {
            Severity::Critical => "a wrong or truncated call would be run",
            Severity::High => "a call is lost",
            Severity::Medium => {
                "text is lost, leaked, moved or reordered, or long replies slow to a crawl"
            }
            Severity::Low => "an error event is missing or extra, or text is held back",
        }
    }

    /// The severity a verdict carries on its own; `None` for `chunk-dependent`, `flaky`,
    /// `non-streaming-differs` and `choices-share-state`, which say *that* a chunking, a
    /// replay, the non-streaming result or a choice differs: their symptoms say how much it hurts; and for `wire`, whose rules say it.
    pub fn of_verdict(verdict: Verdict) -> Option<Severity> {
        Some(match verdict {
            Verdict::ExtraCall | Verdict::WrongCall => Severity::Critical,
            Verdict::MissingCall | Verdict::Crash | Verdict::Timeout => Severity::High,
            Verdict::LostText
            | Verdict::LeakedMarkup
            | Verdict::Reasoning
            | Verdict::TextNotConserved
            | Verdict::Order
            | Verdict::Protocol
            | Verdict::Grammar
            | Verdict::Definition
            // The output is right; only long replies feel it, but they feel it quadratically.
            | Verdict::Superlinear => Severity::Medium,
            Verdict::MissingError | Verdict::ExtraError | Verdict::NotEager | Verdict::Latency => {
                Severity::Low
            }
            // Each wire rule has its own severity (`specs/wire.md` §4): the finding carries
            // the worst of its rules'.
            Verdict::ChunkDependent
            | Verdict::Flaky
            | Verdict::NonStreamingDiffers
            | Verdict::ChoicesShareState
            | Verdict::Wire => return None,
        })
    }

    /// The worst severity of a finding's verdicts; `Medium` when none carries one (a bare
    /// `chunk-dependent`: the output differs, in no way another verdict names).
    pub fn of(verdicts: &[Verdict]) -> Severity {
        verdicts
            .iter()
            .filter_map(|&v| Severity::of_verdict(v))
            .min()
            .unwrap_or(Severity::Medium)
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_an_agent_would_run_outranks_a_lost_call_outranks_text_outranks_errors() {
        use Verdict::*;
        // A truncated call executed: the expected error and text are missing too.
        assert_eq!(
            Severity::of(&[LostText, MissingError, ExtraCall]),
            Severity::Critical
        );
        assert_eq!(
            Severity::of(&[ChunkDependent, LostText, MissingCall]),
            Severity::High
        );
        assert_eq!(
            Severity::of(&[LeakedMarkup, MissingError]),
            Severity::Medium
        );
        assert_eq!(Severity::of(&[MissingError]), Severity::Low);
        assert_eq!(Severity::of(&[ChunkDependent]), Severity::Medium);
        assert_eq!(Severity::of(&[Flaky, NotEager]), Severity::Low);
        // A non-streaming result typed where the stream left strings: a call that differs.
        assert_eq!(
            Severity::of(&[NonStreamingDiffers, WrongCall]),
            Severity::Critical
        );
    }

    #[test]
    fn every_verdict_but_the_comparisons_has_a_severity() {
        for verdict in Verdict::ALL {
            let comparison = matches!(
                verdict,
                Verdict::ChunkDependent
                    | Verdict::Flaky
                    | Verdict::NonStreamingDiffers
                    | Verdict::ChoicesShareState
                    | Verdict::Wire
            );
            assert_eq!(
                Severity::of_verdict(verdict).is_none(),
                comparison,
                "{verdict}"
            );
        }
    }
}
