//! What a dialect declares about itself, in one place beside its grammar: everything the rest of
//! `tch` needs to know about it (its name and models, how its reference parser is built, its
//! default generation prompt, a call written around an argument, its fuzz fragments and
//! prompts, its property-test samples). Every table elsewhere (scaling streams, benches, fuzz
//! fragments, property tests, `--help`) is derived from the descriptors, so a dialect is added
//! by writing its module and one line of `Dialect`'s list.

use std::sync::Arc;

use super::kit::Grammar;
use crate::parser::StreamParser;
use crate::tools::Registry;

/// One dialect, described.
#[derive(Debug)]
pub struct Descriptor {
    /// The name on the command line, in the protocol, and of its spec and corpus folder.
    pub name: &'static str,
    /// The models that write it, as `--help` lists them.
    pub models: &'static str,
    /// How its reference parser is built.
    pub(crate) parser: Parser,
    /// The generation prompt its chat template ends a prompt with (`specs/streaming.md` C9.4):
    /// the prefill when none is given.
    pub default_prefill: &'static str,
    /// One complete call to the bundled `GetWeather`, around its `location` argument: what
    /// the scaling cases and the benchmarks grow.
    pub call: CallAround,
    /// The dialect's own pieces of syntax that fuzzed streams are built from (its markers,
    /// marker prefixes, a call's head): every dialect's streams get every dialect's pieces.
    pub fragments: &'static [&'static str],
    /// The generation prompts its streams may continue, as its template writes them (the
    /// default among them, unless it is `""`).
    pub prefills: &'static [&'static str],
    /// Streams that hold at least one call the reference recognises, with no prefill: the
    /// property tests check that the fragments can form its calls.
    pub samples: &'static [&'static str],
}

/// A complete call written around its string argument: `before`, the argument, `after`.
/// `{n}` in `before` stands for the call's number where the dialect numbers its calls (ids are
/// unique within a stream).
#[derive(Debug, Clone, Copy)]
pub struct CallAround {
    /// Everything before the argument, from the call's first byte.
    pub before: &'static str,
    /// Everything after the argument, through the call's last byte.
    pub after: &'static str,
    /// How the argument is written between them.
    pub values: Values,
}

/// How a dialect writes a call's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// As JSON (or YAML, whose double-quoted escapes are JSON's): a string argument is the
    /// content of a JSON string, escaped.
    Json,
    /// As text, typed back by the tool's schema or quoted by the format's own markers: a string
    /// argument is written as is.
    Text,
}

/// How a dialect's reference parser is built.
#[derive(Debug)]
pub(crate) enum Parser {
    /// On the kit, from this grammar; its eagerness oracle and markers come from its literals.
    Kit(&'static Grammar),
    /// A module of its own (the seed dialects, whose line- and name-based syntaxes are not
    /// marker tables), with its eagerness oracle written apart from the parser.
    Own(&'static OwnParser),
}

/// A reference parser that is not a kit grammar.
#[derive(Debug)]
pub(crate) struct OwnParser {
    /// A fresh parser on the registry in use.
    pub(crate) new: fn(Arc<Registry>) -> Box<dyn StreamParser>,
    /// The eagerness oracle (`Dialect::may_hold`), given the held input and the registry.
    pub(crate) may_hold: fn(&str, &Registry) -> bool,
    /// The markers a realistic splitting keeps whole (`Dialect::markers`).
    pub(crate) markers: fn(&Registry) -> Vec<String>,
}
