//! `tch fuzz`'s engine: generates streams, replays each through a candidate over the protocol
//! whole and under many chunkings, judges every replay like `tch run` does (both layers), and
//! shrinks each new kind of failure to a minimal stream and chunk vector.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::generate::{Chunking, Generator};
use super::shrink::{Shrunk, shrink};
use crate::dialect::Dialect;
use crate::event::Event;
use crate::parser;
use crate::protocol::ToolInfo;
use crate::protocol::candidate::{Candidate, Fault, Limits, StartError, Transcript};
use crate::runner::{Judgement, Verdict, classify, judge, restart};
use crate::split::chunks_at;
use crate::tools::Registry;

/// How to fuzz.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    pub argv: Vec<String>,
    pub limits: Limits,
    pub dialect: Dialect,
    pub seed: u64,
    /// Stop generating after this long (shrinking the last failure may take longer).
    pub duration: Duration,
    /// Stop after this many streams, if sooner: a budget that does not depend on speed.
    pub max_streams: Option<usize>,
    /// Stop after this many failures (each of a verdict not found before).
    pub max_failures: usize,
    /// Replays one shrink may try.
    pub shrink_tries: usize,
}

/// A failure, shrunk.
#[derive(Debug, Clone)]
pub struct FuzzFailure {
    pub verdict: Verdict,
    /// What the shrunk replay showed.
    pub detail: String,
    pub diff: String,
    /// The generated stream and cuts that first showed it.
    pub found_stream: String,
    pub found_cuts: Vec<usize>,
    /// Which chunking found it (`whole`, `per-char`, `inside-markup`, …).
    pub chunking: &'static str,
    /// The `n`th stream of the campaign (from 1).
    pub stream_number: usize,
    pub shrunk: Shrunk,
    /// The reference's events for the shrunk stream: the case's expected events.
    pub expected: Vec<Event>,
}

/// Counters of a campaign.
#[derive(Debug, Clone, Default)]
pub struct FuzzStats {
    pub streams: usize,
    /// Replays of a stream through the candidate (generation and shrinking).
    pub replays: usize,
    pub restarts: usize,
    pub failures: usize,
    pub shrink_steps: usize,
    pub elapsed: Duration,
}

impl FuzzStats {
    pub fn replays_per_second(&self) -> f64 {
        self.replays as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why a campaign could not run.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    #[error(transparent)]
    Start(#[from] StartError),
    #[error("the candidate does not speak {dialect} (its hello lists: {spoken})")]
    DialectNotSpoken { dialect: Dialect, spoken: String },
    #[error("the candidate no longer starts: {0}")]
    CannotRestart(Fault),
}

/// Runs a campaign; `seeds` are corpus streams to mutate. `on_progress` is called after each
/// stream, `on_failure` as each failure is shrunk.
pub fn fuzz(
    options: &FuzzOptions,
    seeds: Vec<String>,
    tools: &Arc<Registry>,
    on_progress: &mut dyn FnMut(&FuzzStats),
    on_failure: &mut dyn FnMut(&FuzzFailure),
) -> Result<FuzzStats, FuzzError> {
    let first = Candidate::start(&options.argv, options.limits)?;
    let spoken = &first.hello.dialects;
    if !spoken.iter().any(|d| d == options.dialect.name()) {
        return Err(FuzzError::DialectNotSpoken {
            dialect: options.dialect,
            spoken: spoken.join(", "),
        });
    }
    let mut replayer = Replayer {
        candidate: Some(first),
        options,
        tools,
        tool_list: ToolInfo::list(tools),
        stats: FuzzStats::default(),
        failed_starts: 0,
    };
    let mut generator = Generator::new(options.seed, seeds);
    let mut found: BTreeSet<Verdict> = BTreeSet::new();
    let started = Instant::now();
    while started.elapsed() < options.duration
        && options
            .max_streams
            .is_none_or(|n| replayer.stats.streams < n)
        && replayer.stats.failures < options.max_failures
    {
        let stream = generator.stream();
        replayer.stats.streams += 1;
        let whole = Chunking {
            label: "whole",
            cuts: Vec::new(),
        };
        let chunkings: Vec<Chunking> = std::iter::once(whole)
            .chain(generator.chunkings(&stream))
            .collect();
        if let Some(new) = replayer.first_failure(&stream, &chunkings, &found)? {
            found.insert(new.judgement.verdict);
            let failure = replayer.shrink_failure(&stream, new)?;
            replayer.stats.failures += 1;
            replayer.stats.shrink_steps += failure.shrunk.steps;
            replayer.stats.elapsed = started.elapsed();
            on_failure(&failure);
        }
        replayer.stats.elapsed = started.elapsed();
        on_progress(&replayer.stats);
    }
    if let Some(candidate) = replayer.candidate.take() {
        candidate.shutdown();
    }
    replayer.stats.elapsed = started.elapsed();
    Ok(replayer.stats)
}

/// A replay that showed a new verdict.
struct Found {
    chunking: &'static str,
    cuts: Vec<usize>,
    judgement: Judgement,
}

struct Replayer<'a> {
    candidate: Option<Candidate>,
    options: &'a FuzzOptions,
    tools: &'a Arc<Registry>,
    tool_list: Vec<ToolInfo>,
    stats: FuzzStats,
    /// Starts failed in a row: a candidate that crashes is restarted (shrinking a crash takes
    /// many), one that no longer starts ends the campaign.
    failed_starts: usize,
}

const MAX_FAILED_STARTS: usize = 3;

impl Replayer<'_> {
    /// The reference's events for `stream`, as judged ([`classify::comparable`]).
    fn expected(&self, stream: &str) -> (Vec<Event>, Vec<Event>) {
        let mut reference = self.options.dialect.reference_parser(self.tools);
        let events = parser::run(reference.as_mut(), [stream]).events;
        let comparable = classify::comparable(&events, stream);
        (events, comparable)
    }

    /// Replays `stream` cut at `cuts`; a fault drops the process (restarted on next use).
    fn replay(
        &mut self,
        stream: &str,
        cuts: &[usize],
    ) -> Result<Result<Transcript, Fault>, FuzzError> {
        if self.candidate.is_none() {
            self.stats.restarts += 1;
            match restart(&self.options.argv, self.options.limits) {
                Ok(candidate) => {
                    self.failed_starts = 0;
                    self.candidate = Some(candidate);
                }
                Err(fault) => {
                    self.failed_starts += 1;
                    if self.failed_starts >= MAX_FAILED_STARTS {
                        return Err(FuzzError::CannotRestart(fault));
                    }
                    return Ok(Err(fault));
                }
            }
        }
        let Some(candidate) = self.candidate.as_mut() else {
            return Ok(Err(Fault::Protocol {
                reason: "no candidate".into(),
            }));
        };
        self.stats.replays += 1;
        let id = format!("fuzz#{}", self.stats.replays);
        let chunks = chunks_at(stream, cuts);
        let result =
            candidate.run_stream(&id, self.options.dialect.name(), &self.tool_list, &chunks);
        if result.is_err() {
            // The process is not trusted again: its group is killed when dropped.
            self.candidate = None;
        }
        Ok(result)
    }

    /// The judgements of `stream` replayed whole, then cut at `cuts` (if any).
    fn judgements(
        &mut self,
        stream: &str,
        cuts: Option<&[usize]>,
    ) -> Result<Vec<Judgement>, FuzzError> {
        let (_, expected) = self.expected(stream);
        let whole = match self.replay(stream, &[])? {
            Ok(transcript) => transcript,
            Err(fault) => return Ok(vec![Judgement::of_fault(&fault)]),
        };
        let (baseline, mut judgements) = judge(&whole, stream, &expected, None);
        if let Some(cuts) = cuts {
            match self.replay(stream, cuts)? {
                Ok(transcript) => {
                    judgements.extend(judge(&transcript, stream, &expected, Some(&baseline)).1)
                }
                Err(fault) => judgements.push(Judgement::of_fault(&fault)),
            }
        }
        Ok(judgements)
    }

    /// The first judgement of a verdict not `found` before, with the chunking that shows it.
    fn first_failure(
        &mut self,
        stream: &str,
        chunkings: &[Chunking],
        found: &BTreeSet<Verdict>,
    ) -> Result<Option<Found>, FuzzError> {
        let (_, expected) = self.expected(stream);
        let mut baseline = None;
        for Chunking { label, cuts } in chunkings {
            let judgements = match self.replay(stream, cuts)? {
                // A fault seen before: this stream's other chunkings would likely cost a
                // restart (or a timeout) each for nothing new.
                Err(fault) if found.contains(&Judgement::of_fault(&fault).verdict) => {
                    return Ok(None);
                }
                Err(fault) => vec![Judgement::of_fault(&fault)],
                Ok(transcript) => {
                    let (actual, judgements) =
                        judge(&transcript, stream, &expected, baseline.as_deref());
                    baseline.get_or_insert(actual);
                    judgements
                }
            };
            if let Some(new) = judgements.into_iter().find(|j| !found.contains(&j.verdict)) {
                return Ok(Some(Found {
                    chunking: label,
                    cuts: cuts.clone(),
                    judgement: new,
                }));
            }
            if baseline.is_none() {
                // The whole-stream replay faulted: chunk-dependence cannot be judged.
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// Shrinks the failure while the same verdict shows, and describes the result.
    fn shrink_failure(&mut self, stream: &str, found: Found) -> Result<FuzzFailure, FuzzError> {
        let Found {
            chunking,
            cuts,
            judgement,
        } = found;
        let verdict = judgement.verdict;
        let mut gave_up = None;
        let shrunk = shrink(stream, &cuts, self.options.shrink_tries, |stream, cuts| {
            if gave_up.is_some() {
                return false;
            }
            match self.judgements(stream, Some(cuts)) {
                Ok(judgements) => judgements.iter().any(|j| j.verdict == verdict),
                Err(error) => {
                    gave_up = Some(error);
                    false
                }
            }
        });
        if let Some(error) = gave_up {
            return Err(error);
        }
        let judgements = self.judgements(&shrunk.stream, Some(&shrunk.cuts))?;
        let shown = judgements
            .into_iter()
            .find(|j| j.verdict == verdict)
            .unwrap_or(judgement);
        let (expected, _) = self.expected(&shrunk.stream);
        Ok(FuzzFailure {
            verdict,
            detail: shown.detail,
            diff: shown.diff,
            found_stream: stream.to_owned(),
            found_cuts: cuts,
            chunking,
            stream_number: self.stats.streams,
            shrunk,
            expected,
        })
    }
}
