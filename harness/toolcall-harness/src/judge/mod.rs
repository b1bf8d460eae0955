//! The one judge (`specs/runner.md`): every replay, of the reference or of a candidate, in
//! `tch run`, `tch fuzz`, `tch corpus`, the corpus tests, proptest and cargo-fuzz, is judged
//! here and comes out as the same [`Finding`]s.
//!
//! - [`verdict`]: the names of the ways to fail, and the two layers (conformance, streaming);
//! - [`severity`]: how much a finding would hurt, from its verdicts;
//! - [`finding`]: a finding per failing replay, a report per case;
//! - [`grammar`]: the event grammar every candidate's events must follow;
//! - [`mod@conformance`]: comparable events, and the verdicts that name how output differs;
//! - [`diff`]: the one labelled diff;
//! - [`replay`]: judging a candidate's replays of one stream (chunk-dependence, flakiness);
//! - [`mod@reference`]: judging the reference, whose spans make eagerness and conservation exact.

pub mod conformance;
pub mod diff;
pub mod expect;
pub mod finding;
pub mod grammar;
mod message;
pub mod reference;
pub mod replay;
pub mod severity;
pub mod verdict;

pub use conformance::{comparable, conformance};
pub use diff::Sides;
pub use expect::Expectations;
pub use finding::{CaseClass, CaseReport, Class, Finding, Status, Tally};
pub use reference::check_reference;
pub use replay::{StreamJudge, verdict_of};
pub use severity::Severity;
pub use verdict::{Layer, Verdict};
