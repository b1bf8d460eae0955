//! The SMG gateway's Rust parsers (`tool-parser` 1.10.0, `reasoning-parser` 1.10.0) served as
//! the gateway's gRPC router serves an OpenAI chat completion (`gateway`): streamed, the
//! `chat.completion.chunk` objects it writes; not streamed, its message written as chunks. One
//! [`Session`] per stream yields the lines the protocol binary writes (`specs/protocol.md` §5);
//! the protocol binary (`src/main.rs`) and the in-process candidate
//! (`adapters/rust-tool-parser-in-process/`, which reads the lines with tch's own client) both
//! drive it. It never fixes the parsers or the gateway: see README.md.
#![warn(missing_docs)]

pub mod dialects;
pub mod gateway;
mod session;

pub use session::{Factories, Session};

/// The candidate's name (the hello's `name`, and the reports' folder).
pub const NAME: &str = "tool-parser-1.10.0";

/// The `[DONE]` line: the gateway's `data: [DONE]` without its `data: ` (P5.3).
pub const DONE: &str = "[DONE]";
