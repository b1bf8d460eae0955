//! `toolcall_harness`: the library behind `tch`, a conformance test harness and fuzzer for
//! streaming LLM tool-call parsers. `ARCHITECTURE.md` at the repository's root maps it.
//!
//! - [`event`]: the AI SDK v5 event model every parser is compared in (`specs/events.md`);
//! - [`normalize`]: what makes two event lists comparable;
//! - [`parser`]: the `push`/`finish` streaming contract (`specs/streaming.md`);
//! - [`dialect`]: the reference parsers, one per dialect (`specs/dialects/`);
//! - [`split`]: chunkings, the one vocabulary of every replay;
//! - [`tools`]: the tool registry and schema validation;
//! - [`corpus`]: spec cases on disk (`specs/corpus.md`), and the selection of cases;
//! - [`definitions`]: `.tool.md` / `.skill.md` contracts and registries (`specs/definitions.md`);
//! - [`protocol`]: the candidate protocol's messages, and the reference's side of it;
//! - [`supervisor`]: candidate processes, started, restarted and killed in one place;
//! - [`judge`]: verdicts, findings, the event grammar, conformance and the one diff;
//! - [`runner`]: `tch run`'s engine: replays through the supervisor, judged by the judge;
//! - [`in_process`]: a Rust parser judged in this process, from its own `cargo test`;
//! - [`report`]: `report.json`, `junit.xml`, `summary.md`, terminal output, replay commands;
//! - [`fuzz`]: fuzz inputs, oracles, shrinking and `tch fuzz` campaigns;
//! - [`triage`]: failing cases shrunk and grouped into root causes (`specs/runner.md` §9);
//! - [`wire`]: OpenAI chat-completion chunks as a candidate's output, read as a client reads
//!   them and judged against the wire rules (`specs/wire.md`);
//! - [`glob`]: shell-style globs for case selection.

// Every public item says what it is (CI denies warnings), and nothing is `pub` that the
// crate's API does not reach.
#![warn(missing_docs, unreachable_pub)]

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
pub mod in_process;
pub mod judge;
mod named;
pub mod normalize;
pub mod parser;
pub mod protocol;
pub mod report;
pub mod runner;
pub mod scaling;
pub mod split;
pub mod supervisor;
pub mod tools;
pub mod triage;
pub mod wire;
