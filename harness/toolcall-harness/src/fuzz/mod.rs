//! Fuzzing, shared by the cargo-fuzz targets (`fuzz/`), the proptest properties and `tch fuzz`:
//!
//! - [`fragments`]: the grammar fuzzed streams are built from;
//! - [`input`]: the structure-aware fuzz input (`arbitrary`) and its invertible byte format;
//! - [`oracle`]: what every reference run and every definition must satisfy;
//! - [`generate`]: seeded streams, corpus mutations and adversarial chunkings;
//! - [`shrink`]: delta debugging of a failing stream and chunking;
//! - [`replayer`]: replays of one dialect's streams through a candidate, judged as `tch run`
//!   judges them, and shrinking while a finding still shows (`tch fuzz` and [`crate::triage`]);
//! - [`campaign`]: `tch fuzz` against a candidate over the protocol;
//! - [`differential`](mod@differential): an in-process candidate against the reference, from a
//!   cargo-fuzz target (coverage-guided), findings shrunk and written as `tch fuzz` writes them;
//! - [`timing`]: its replay time by stream size.

pub mod campaign;
pub mod differential;
pub mod fragments;
pub mod generate;
pub mod input;
pub mod oracle;
pub mod replayer;
pub mod shrink;
pub mod timing;

pub use campaign::{FuzzError, FuzzFailure, FuzzOptions, FuzzStats, Stopped, fuzz};
pub use differential::{Differential, DifferentialError, DifferentialStats, Written, differential};
pub use input::FuzzInput;
pub use oracle::{DefinitionFailure, check_definition, check_stream, definition_input};
pub use replayer::{Replayer, Shrinking, StreamCandidate, Unavailable};
pub use timing::{SizeBucket, SizeTimes};
