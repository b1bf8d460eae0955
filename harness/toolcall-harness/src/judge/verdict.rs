//! The names of the ways to fail (`specs/runner.md` §2–§4), and the three layers a finding
//! belongs to: *conformance* (wrong under the whole stream too), *streaming* (only under
//! some chunkings, from one replay to the next, or in timing), or *wire* (the OpenAI chunks
//! a candidate wrote break a rule of `specs/wire.md`). Authors fix them differently.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// The name of a way to fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The process exited or closed its output before ending a request.
    Crash,
    /// No reply line within the timeout.
    Timeout,
    /// A line `tch` cannot read as the protocol (`specs/protocol.md` §3).
    Protocol,
    /// The events break the event grammar (`specs/protocol.md` §3).
    Grammar,
    /// A chunking's output differs from the whole stream's, the same on every replay.
    ChunkDependent,
    /// Two replays of the same chunking gave different output: nondeterminism.
    Flaky,
    /// The candidate's non-streaming result (the whole reply at once, `specs/protocol.md`
    /// P2.11) differs from its output for the whole stream streamed as one chunk.
    NonStreamingDiffers,
    /// A choice of a request with several (`n`, `specs/protocol.md` P6.7), fed the same
    /// chunks as the stream replayed alone, gave other output: the choices share state.
    ChoicesShareState,
    /// Held back input its dialect says is already known to be text (`specs/streaming.md`
    /// C3; checked on the reference, which reports the spans it consumed).
    NotEager,
    /// Text deltas and call spans do not add up to the stream (`specs/streaming.md` C2;
    /// checked on the reference).
    TextNotConserved,
    /// Expected text appears nowhere in the output.
    LostText,
    /// The output has text that should not be text, typically call syntax.
    LeakedMarkup,
    /// Reasoning differs: it came out as text (or text as reasoning), or is missing, or has
    /// what is not reasoning (`specs/events.md` §4).
    Reasoning,
    /// Fewer `tool-call` events than expected.
    MissingCall,
    /// More `tool-call` events than expected.
    ExtraCall,
    /// A `tool-call` differs in name, id or input, or `tool-result`/`tool-error` differ.
    WrongCall,
    /// The same events in another order.
    Order,
    /// Fewer `error` events than expected.
    MissingError,
    /// More `error` events than expected.
    ExtraError,
    /// A definition's contract differs from the expected one, or an invalid definition was
    /// accepted, or a valid one refused.
    Definition,
    /// Held back more text than the reference (a failure only with `--strict-latency`).
    Latency,
    /// Time grows clearly faster than the stream (`specs/runner.md` §8): a parser that
    /// re-reads what it has buffered on every chunk.
    Superlinear,
    /// The OpenAI chunks a candidate wrote break rules of `specs/wire.md` (its detail names
    /// each rule; its severity is the worst rule's).
    Wire,
}

impl Verdict {
    /// Every verdict, in report order.
    pub const ALL: [Verdict; 23] = [
        Verdict::Crash,
        Verdict::Timeout,
        Verdict::Protocol,
        Verdict::Grammar,
        Verdict::ChunkDependent,
        Verdict::Flaky,
        Verdict::NonStreamingDiffers,
        Verdict::ChoicesShareState,
        Verdict::NotEager,
        Verdict::TextNotConserved,
        Verdict::LostText,
        Verdict::LeakedMarkup,
        Verdict::Reasoning,
        Verdict::MissingCall,
        Verdict::ExtraCall,
        Verdict::WrongCall,
        Verdict::Order,
        Verdict::MissingError,
        Verdict::ExtraError,
        Verdict::Definition,
        Verdict::Latency,
        Verdict::Superlinear,
        Verdict::Wire,
    ];

    /// The verdict's name in reports, `--verdict` and `--expect-fail` files.
    pub fn name(self) -> &'static str {
        match self {
            Verdict::Crash => "crash",
            Verdict::Timeout => "timeout",
            Verdict::Protocol => "protocol",
            Verdict::Grammar => "grammar",
            Verdict::ChunkDependent => "chunk-dependent",
            Verdict::Flaky => "flaky",
            Verdict::NonStreamingDiffers => "non-streaming-differs",
            Verdict::ChoicesShareState => "choices-share-state",
            Verdict::NotEager => "not-eager",
            Verdict::TextNotConserved => "text-not-conserved",
            Verdict::LostText => "lost-text",
            Verdict::LeakedMarkup => "leaked-markup",
            Verdict::Reasoning => "reasoning",
            Verdict::MissingCall => "missing-call",
            Verdict::ExtraCall => "extra-call",
            Verdict::WrongCall => "wrong-call",
            Verdict::Order => "order",
            Verdict::MissingError => "missing-error",
            Verdict::ExtraError => "extra-error",
            Verdict::Definition => "definition",
            Verdict::Latency => "latency",
            Verdict::Superlinear => "superlinear",
            Verdict::Wire => "wire",
        }
    }

    /// Whether this verdict is about streaming whatever replay shows it: it compares
    /// chunkings, replays, the streamed and the non-streaming path, or timing rather than one
    /// output with the spec.
    pub fn is_streaming(self) -> bool {
        matches!(
            self,
            Verdict::ChunkDependent
                | Verdict::Flaky
                | Verdict::NonStreamingDiffers
                | Verdict::ChoicesShareState
                | Verdict::NotEager
                | Verdict::Latency
                | Verdict::Superlinear
        )
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Verdict {
    type Err = String;

    fn from_str(name: &str) -> Result<Verdict, String> {
        crate::named::parse(&Verdict::ALL, Verdict::name, "verdict", name)
    }
}

/// Which layer a finding belongs to (`specs/runner.md` R4.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// Wrong under the whole stream too: the parser disagrees with the spec.
    Conformance,
    /// Only under some chunkings, from one replay to the next, or in timing: the parser's
    /// streaming is at fault.
    Streaming,
    /// The OpenAI chunks the candidate's server wrote break a wire rule (`specs/wire.md`):
    /// its chunk writer is at fault, whatever the parser found.
    Wire,
}

impl Layer {
    /// The layer of a finding with `verdicts` on a replay of the whole stream (or not).
    pub fn of(verdicts: &[Verdict], whole_stream: bool) -> Layer {
        if verdicts.contains(&Verdict::Wire) {
            Layer::Wire
        } else if whole_stream && !verdicts.iter().any(|v| v.is_streaming()) {
            Layer::Conformance
        } else {
            Layer::Streaming
        }
    }

    /// The layer's name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Conformance => "conformance",
            Layer::Streaming => "streaming",
            Layer::Wire => "wire",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for verdict in Verdict::ALL {
            assert_eq!(verdict.name().parse(), Ok(verdict));
        }
        assert!("lost".parse::<Verdict>().is_err());
    }

    #[test]
    fn the_whole_stream_decides_the_layer() {
        assert_eq!(Layer::of(&[Verdict::LostText], true), Layer::Conformance);
        assert_eq!(Layer::of(&[Verdict::Crash], false), Layer::Streaming);
        assert_eq!(
            Layer::of(&[Verdict::Flaky, Verdict::LostText], true),
            Layer::Streaming
        );
        assert_eq!(Layer::of(&[Verdict::Wire], false), Layer::Wire);
        assert_eq!(
            Layer::of(&[Verdict::NonStreamingDiffers, Verdict::WrongCall], false),
            Layer::Streaming
        );
    }
}
