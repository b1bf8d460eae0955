//! Replaying one dialect's streams through a candidate and judging each replay as `tch run`
//! does, and shrinking a failure while the candidate still shows it: what `tch fuzz`
//! ([`super::campaign`]) and root-cause triage ([`crate::triage`]) share.
//!
//! A [`Replayer`] knows the dialect, the prefill and the tools every replay is begun with;
//! the expected events of any stream are the reference's for it (with that prefill), since a
//! shrunk stream has no hand-reasoned expected events. The candidate is anything that
//! replays a stream ([`StreamCandidate`]): the supervisor's [`Handle`], or a closure, so
//! that tests can plant a bug in process.

use std::sync::Arc;

use super::shrink::{Shrunk, shrink};
use crate::dialect::Dialect;
use crate::event::Event;
use crate::judge::{Finding, StreamJudge, Verdict};
use crate::parser;
use crate::protocol::{Begin, RequestOptions, ToolInfo};
use crate::split::{Chunking, SplitKind, chunks_at, realism};
use crate::supervisor::{Fault, Handle, ReplayError, Transcript};
use crate::tools::Registry;

/// Something that replays a stream as a candidate does: `begin`, its chunks, `end`; and,
/// for a candidate whose hello says `nonStreaming` (`specs/protocol.md` P2.11), `begin` and
/// the whole reply at once.
pub trait StreamCandidate {
    /// Replays `chunks` under `begin`.
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError>;

    /// The candidate's non-streaming result for the whole reply `text` under `begin`. Asked
    /// only of a candidate that declares it; one that has no such path (a closure, an
    /// in-process candidate) answers a `protocol` fault.
    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        let _ = (begin, text);
        Err(ReplayError::Fault(Fault::Protocol {
            reason: "asked for a non-streaming result, which this candidate does not give".into(),
        }))
    }

    /// Replays `chunks` in each of the `begin.options.n` choices of one request
    /// (`specs/protocol.md` P6.7): one transcript per choice. Asked only of a candidate that
    /// declares `n`; one without choices (a closure, an in-process candidate) answers a
    /// `protocol` fault.
    fn run_choices(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
    ) -> Result<Vec<Transcript>, ReplayError> {
        let _ = (begin, chunks);
        Err(ReplayError::Fault(Fault::Protocol {
            reason: "asked for several choices, which this candidate does not give".into(),
        }))
    }
}

impl StreamCandidate for Handle<'_> {
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        Handle::run_stream(self, begin, chunks)
    }

    fn run_choices(
        &mut self,
        begin: &Begin,
        chunks: &[&str],
    ) -> Result<Vec<Transcript>, ReplayError> {
        Handle::run_choices(self, begin, chunks)
    }

    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        Handle::run_non_streaming(self, begin, text)
    }
}

impl<F> StreamCandidate for F
where
    F: FnMut(&Begin, &[&str]) -> Result<Transcript, ReplayError>,
{
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        self(begin, chunks)
    }
}

/// The reference's events for `stream` of `dialect` after `prefill`: the expected events of
/// a stream that has no hand-reasoned ones (a generated or shrunk stream).
pub fn reference_events(
    dialect: Dialect,
    tools: &Arc<Registry>,
    prefill: &str,
    stream: &str,
) -> Vec<Event> {
    let mut reference = dialect.reference_parser(tools, prefill);
    parser::run(reference.as_mut(), [stream]).events
}

/// Why no more replays can be had: a fault is judged, this ends the replaying.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Unavailable {
    /// Starts failed one after the other: the candidate no longer starts.
    #[error("the candidate no longer starts: {0}")]
    CannotStart(Fault),
    /// The restarts allowed (or the replays a budget allows) are used up.
    #[error("no more replays: the candidate was restarted {0} times")]
    GaveUp(usize),
}

/// A shrink's outcome ([`Replayer::shrink`]).
#[derive(Debug, Clone)]
pub struct Shrinking {
    /// The smallest stream and cuts that still showed the failure.
    pub shrunk: Shrunk,
    /// The finding of the last replay accepted, which is `shrunk`'s; `None` when no
    /// reduction was accepted.
    pub last: Option<Finding>,
    /// Why shrinking stopped early, if it did: `shrunk` is what it had reached.
    pub stopped: Option<Unavailable>,
}

/// Replays of one dialect's streams, with one prefill and one tool registry.
pub struct Replayer<'t, C> {
    /// The candidate replayed through.
    pub candidate: C,
    dialect: Dialect,
    prefill: String,
    tools: &'t Arc<Registry>,
    markers: Vec<String>,
    /// Stream ids are `{id}#{n}`.
    id: String,
    replays: usize,
    /// Whether the candidate answers in OpenAI chunks (`specs/protocol.md` §5): judged as
    /// `tch run` judges it, its wire too.
    wire: bool,
    /// Whether the candidate gives a non-streaming result (`specs/protocol.md` P2.11): a
    /// whole stream is then judged with it too ([`Replayer::shows`]).
    non_streaming: bool,
}

impl<'t, C: StreamCandidate> Replayer<'t, C> {
    /// Replays of `dialect` streams through `candidate`, each begun with `prefill` and
    /// `tools`; stream ids are `{id}#1`, `{id}#2`, ….
    pub fn new(
        candidate: C,
        dialect: Dialect,
        prefill: &str,
        tools: &'t Arc<Registry>,
        id: &str,
    ) -> Replayer<'t, C> {
        Replayer {
            candidate,
            dialect,
            prefill: prefill.to_owned(),
            tools,
            markers: dialect.markers(tools),
            id: id.to_owned(),
            replays: 0,
            wire: false,
            non_streaming: false,
        }
    }

    /// The same replays, of a candidate that answers in OpenAI chunks when `wire`: its
    /// replays are judged as `tch run` judges such a candidate's (`StreamJudge::of_output`),
    /// and a replay whose events pass gives its wire finding, if any.
    pub fn over_the_wire(mut self, wire: bool) -> Self {
        self.wire = wire;
        self
    }

    /// A judge of `stream`'s replays against `expected`, as this candidate is judged.
    pub fn stream_judge<'s>(&self, stream: &'s str, expected: &[Event]) -> StreamJudge<'s> {
        StreamJudge::of_output(stream, expected, self.wire)
    }

    /// Tells the replayer whether [`Replayer::shows`] judges the candidate's non-streaming
    /// result after a whole stream (no cuts): for shrinking a `non-streaming` finding of a
    /// candidate whose hello says `nonStreaming`.
    pub fn set_non_streaming(&mut self, non_streaming: bool) {
        self.non_streaming = non_streaming;
    }

    /// Replays asked of the candidate so far (faults and refusals included).
    pub fn replays(&self) -> usize {
        self.replays
    }

    /// The dialect's markers (`specs/runner.md` R1.4).
    pub fn markers(&self) -> &[String] {
        &self.markers
    }

    /// The reference's events for `stream`, with the prefill: the expected events.
    pub fn expected(&self, stream: &str) -> Vec<Event> {
        reference_events(self.dialect, self.tools, &self.prefill, stream)
    }

    /// Replays `stream` under `chunking` (streamed at its cuts, or in one `non-streaming`
    /// request); a fault is returned to be judged.
    pub fn replay(
        &mut self,
        stream: &str,
        chunking: &Chunking,
    ) -> Result<Result<Transcript, Fault>, Unavailable> {
        self.replays += 1;
        let begin = Begin {
            stream: format!("{}#{}", self.id, self.replays),
            dialect: self.dialect.name().to_owned(),
            prefill: Some(self.prefill.clone()),
            tools: ToolInfo::for_stream(self.tools, self.dialect, stream, &self.expected(stream)),
            options: RequestOptions::default(),
        };
        let replayed = if chunking.kind == SplitKind::NonStreaming {
            self.candidate.run_non_streaming(&begin, stream)
        } else {
            self.candidate
                .run_stream(&begin, &chunks_at(stream, &chunking.cuts))
        };
        match replayed {
            Ok(transcript) => Ok(Ok(transcript)),
            Err(ReplayError::Fault(fault)) => Ok(Err(fault)),
            Err(ReplayError::CannotStart(fault)) => Err(Unavailable::CannotStart(fault)),
            Err(ReplayError::GaveUp(restarts)) => Err(Unavailable::GaveUp(restarts)),
        }
    }

    /// Judges one replay of `chunking` (the whole stream first): a fault, or the judge's
    /// finding, re-checked for flakiness when it is chunk-dependent (or `non-streaming-differs`)
    /// and `recheck` says so.
    /// The finding carries its realism.
    pub fn judge(
        &mut self,
        judge: &mut StreamJudge<'_>,
        stream: &str,
        chunking: &Chunking,
        recheck: bool,
    ) -> Result<Option<Finding>, Unavailable> {
        let mut finding = match self.replay(stream, chunking)? {
            Ok(transcript) => {
                let mut finding = judge.replay(chunking, &transcript);
                if let Some(found) = finding.as_mut()
                    && recheck
                    && (found.has(Verdict::ChunkDependent)
                        || found.has(Verdict::NonStreamingDiffers))
                {
                    let whole_again = self.replay(stream, &Chunking::whole())?.ok();
                    let again = self.replay(stream, chunking)?.ok();
                    judge.recheck(found, whole_again.as_ref(), again.as_ref());
                }
                // The chunks' own finding shows when the events' does not.
                finding.or_else(|| judge.wire(chunking, &transcript))
            }
            Err(fault) => Some(judge.fault(chunking, &fault)),
        };
        if let Some(found) = finding.as_mut() {
            found.realism = Some(realism(stream, &chunking.cuts, &self.markers));
        }
        Ok(finding)
    }

    /// The finding of `stream` under `cuts` that `wanted` accepts, judged as `tch run`
    /// judges a case: the whole stream first (against the reference's events), then the
    /// cuts (against the whole stream's output). With no cuts, when told to
    /// ([`Replayer::set_non_streaming`]), its non-streaming result
    /// stands where the cuts would (`specs/runner.md` R2.3). `None` when neither replay shows
    /// it.
    pub fn shows(
        &mut self,
        stream: &str,
        cuts: &[usize],
        recheck: bool,
        wanted: &mut dyn FnMut(&Finding) -> bool,
    ) -> Result<Option<Finding>, Unavailable> {
        let expected = self.expected(stream);
        let mut judge = self.stream_judge(stream, &expected);
        let whole = self.judge(&mut judge, stream, &Chunking::whole(), recheck)?;
        let second = if !cuts.is_empty() {
            Chunking::new(SplitKind::Chunks, "chunks", cuts.to_vec())
        } else if self.non_streaming {
            Chunking::non_streaming()
        } else {
            return Ok(whole.filter(|f| wanted(f)));
        };
        if whole.as_ref().is_some_and(&mut *wanted) {
            return Ok(whole.filter(|f| wanted(f)));
        }
        if !judge.has_baseline() {
            return Ok(None);
        }
        let chunking = second;
        let finding = self.judge(&mut judge, stream, &chunking, recheck)?;
        Ok(finding.filter(|f| wanted(f)))
    }

    /// Shrinks `stream` and `cuts` (ddmin, [`shrink`]) while [`Replayer::shows`] finds what
    /// `wanted` accepts, trying at most `max_tries` reductions. Stops early, keeping what it
    /// reached, when the candidate can no longer be replayed.
    pub fn shrink(
        &mut self,
        stream: &str,
        cuts: &[usize],
        max_tries: usize,
        recheck: bool,
        wanted: &mut dyn FnMut(&Finding) -> bool,
    ) -> Shrinking {
        let mut stopped = None;
        let mut last = None;
        let shrunk = shrink(stream, cuts, max_tries, |stream, cuts| {
            if stopped.is_some() {
                return false;
            }
            match self.shows(stream, cuts, recheck, wanted) {
                Ok(Some(finding)) => {
                    last = Some(finding);
                    true
                }
                Ok(None) => false,
                Err(error) => {
                    stopped = Some(error);
                    false
                }
            }
        });
        Shrinking {
            shrunk,
            last,
            stopped,
        }
    }
}
