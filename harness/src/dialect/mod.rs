//! The reference dialects and their names: one module per dialect, each a
//! [`StreamParser`](crate::parser::StreamParser) that is right by construction.

pub mod md_fence;

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use crate::parser::StreamParser;

/// A tool-call syntax `tch` has a reference parser for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dialect {
    /// Markdown `tool` fences with a YAML body (seed 000).
    MdFence,
}

impl Dialect {
    pub const ALL: &'static [Dialect] = &[Dialect::MdFence];

    /// The name used on the command line, in the protocol and as the corpus folder.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::MdFence => "md-fence",
        }
    }

    /// Whether the reference may still hold back `held` (the input it has not released) after
    /// a push: the dialect's eagerness rule (`specs/streaming.md` C3), as an oracle written
    /// independently of the parser.
    pub fn may_hold(self, held: &str) -> bool {
        match self {
            Dialect::MdFence => md_fence::may_hold(held),
        }
    }

    /// A fresh reference parser for this dialect.
    pub fn reference_parser(self) -> Box<dyn StreamParser> {
        match self {
            Dialect::MdFence => Box::new(md_fence::MdFenceParser::new()),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name `tch` does not know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown dialect \"{name}\" (known: {known})")]
pub struct UnknownDialect {
    pub name: String,
    pub known: String,
}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    fn from_str(name: &str) -> Result<Dialect, UnknownDialect> {
        Dialect::ALL
            .iter()
            .copied()
            .find(|d| d.name() == name)
            .ok_or_else(|| UnknownDialect {
                name: name.to_owned(),
                known: Dialect::ALL
                    .iter()
                    .map(|d| d.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }
}
