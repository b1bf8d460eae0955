//! `toolcall_harness`: the library behind `tch`, a conformance test harness and fuzzer for
//! streaming LLM tool-call parsers.
//!
//! - [`event`]: the AI SDK v5 event model every parser is compared in (`specs/events.md`);
//! - [`normalize`]: what makes two event lists comparable;
//! - [`parser`]: the `push`/`finish` streaming contract (`specs/streaming.md`);
//! - [`dialect`]: the reference parsers, one per dialect (`specs/dialects/`);
//! - [`split`]: chunk vectors and the splittings replayed;
//! - [`tools`]: the tool registry and schema validation;
//! - [`corpus`]: spec cases on disk (`specs/corpus.md`);
//! - [`definitions`]: `.tool.md` / `.skill.md` contracts and registries (`specs/definitions.md`);
//! - [`protocol`]: the candidate protocol, both sides (`specs/protocol.md`);
//! - [`runner`]: `tch run`: replays, verdicts, reports (`specs/runner.md`);
//! - [`glob`]: shell-style globs for case selection;
//! - [`check`]: running a case under a splitting and explaining a mismatch;
//! - [`fuzz`]: fuzz inputs, oracles, shrinking and `tch fuzz` campaigns.

pub mod check;
/// Files embedded at build time (`build.rs`).
mod bundled {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}
pub mod corpus;
pub mod definitions;
pub mod dialect;
pub mod event;
pub mod fuzz;
pub mod glob;
pub mod normalize;
pub mod parser;
pub mod protocol;
pub mod runner;
pub mod split;
pub mod tools;
