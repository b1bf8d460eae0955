//! The SMG gateway's Rust parsers (`tool-parser` 1.10.0, `reasoning-parser` 1.10.0) driven as the
//! gateway's gRPC router drives them when it streams an OpenAI chat completion (`gateway`), its
//! OpenAI deltas read as the AI SDK's openai-compatible client reads them (`bridge`), as tch
//! events: one [`Session`] per stream. This is the one mapping from the parsers' output to tch
//! events; the protocol binary (`src/main.rs`) and the in-process candidate
//! (`adapters/rust-tool-parser-in-process/`) both drive it. It never fixes the parsers: see
//! README.md.
#![warn(missing_docs)]

pub mod bridge;
pub mod dialects;
pub mod gateway;
mod session;

pub use session::{Factories, Session};

/// The candidate's name (the hello's `name`, and the reports' folder).
pub const NAME: &str = "tool-parser-1.10.0";
