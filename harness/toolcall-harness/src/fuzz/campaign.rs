//! `tch fuzz`'s engine: generates streams, replays each through a candidate (via the
//! supervisor) whole and under many chunkings, judges every replay with the same judge as
//! `tch run` ([`StreamJudge`]), and shrinks each failure that shows a verdict not seen before to
//! a minimal stream and chunk vector.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::generate::Generator;
use super::shrink::{Shrunk, shrink};
use super::timing::SizeTimes;
use crate::dialect::Dialect;
use crate::event::Event;
use crate::judge::{Expectations, Finding, StreamJudge, Verdict};
use crate::parser;
use crate::protocol::{Begin, ToolInfo};
use crate::split::{Chunking, SplitKind, chunks_at, fnv1a, realism};
use crate::supervisor::{
    Fault, Handle, Limits, ReplayError, RestartPolicy, StartError, Supervisor, Transcript,
};
use crate::tools::Registry;

/// How to fuzz.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// The candidate's argv.
    pub argv: Vec<String>,
    /// Its reply timeouts and flood limits.
    pub limits: Limits,
    /// The dialect fuzzed.
    pub dialect: Dialect,
    /// The generation prompt every stream continues (`specs/streaming.md` C9); `""` for none.
    pub prefill: String,
    /// Everything follows from it.
    pub seed: u64,
    /// Stop generating after this long (shrinking the last failure may take longer).
    pub duration: Duration,
    /// Stop after this many streams, if sooner: a budget that does not depend on speed.
    pub max_streams: Option<usize>,
    /// Stop after this many unexpected failures (each of a verdict not found before).
    pub max_failures: usize,
    /// Replays one shrink may try.
    pub shrink_tries: usize,
    /// Known failures: a failure whose case and verdicts they list is reported as known.
    pub expectations: Expectations,
}

/// A failure, shrunk.
#[derive(Debug, Clone)]
pub struct FuzzFailure {
    /// The verdict hunted while shrinking: the first new one the stream showed.
    pub target: Verdict,
    /// The shrunk replay's finding.
    pub finding: Finding,
    /// The generated stream that first showed it.
    pub found_stream: String,
    /// The chunking that first showed it.
    pub found_chunking: Chunking,
    /// The `n`th stream of the campaign (from 1).
    pub stream_number: usize,
    /// The shrunk stream and cuts.
    pub shrunk: Shrunk,
    /// The reference's events for the shrunk stream: the case's expected events.
    pub expected: Vec<Event>,
    /// `DIALECT/fuzz-VERDICT-HASH`: stable for the same shrunk stream and cuts.
    pub case: String,
    /// Whether `--expect-fail` lists it.
    pub known: bool,
}

/// Counters of a campaign.
#[derive(Debug, Clone, Default)]
pub struct FuzzStats {
    /// Streams generated.
    pub streams: usize,
    /// Replays of a stream through the candidate (generation, checks and shrinking).
    pub replays: usize,
    /// Processes started again after a fault.
    pub restarts: usize,
    /// Failures found that `--expect-fail` does not list.
    pub failures: usize,
    /// Failures found that it lists.
    pub known_failures: usize,
    /// Reductions accepted while shrinking.
    pub shrink_steps: usize,
    /// Wall time so far.
    pub elapsed: Duration,
    /// Replay time by stream size (`specs/fuzzing.md` Z4.9): replays that came back without
    /// a fault and without starting a process.
    pub by_size: SizeTimes,
}

impl FuzzStats {
    /// Replays per second of wall time.
    pub fn replays_per_second(&self) -> f64 {
        self.replays as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Why a campaign could not run.
#[derive(Debug, thiserror::Error)]
pub enum FuzzError {
    /// The first process could not start, or its hello failed.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The candidate's hello does not list the dialect.
    #[error("the candidate does not speak {dialect} (its hello lists: {spoken})")]
    DialectNotSpoken {
        /// The dialect asked for.
        dialect: Dialect,
        /// What the hello lists.
        spoken: String,
    },
    /// Starts failed one after the other.
    #[error("the candidate no longer starts: {0}")]
    CannotRestart(Fault),
}

/// Starts that fail one after the other before the campaign ends: a candidate that crashes
/// is restarted as often as it takes (shrinking a crash needs many), one that no longer
/// starts ends it.
const MAX_FAILED_STARTS: usize = 3;

/// Runs a campaign; `seeds` are corpus streams to mutate. `on_progress` is called after each
/// stream, `on_failure` as each failure is shrunk.
pub fn fuzz(
    options: &FuzzOptions,
    seeds: Vec<String>,
    tools: &Arc<Registry>,
    on_progress: &mut dyn FnMut(&FuzzStats),
    on_failure: &mut dyn FnMut(&FuzzFailure),
) -> Result<FuzzStats, FuzzError> {
    let supervisor = Supervisor::new(
        options.argv.clone(),
        options.limits,
        RestartPolicy {
            max_restarts: usize::MAX,
            max_failed_starts: MAX_FAILED_STARTS,
        },
    );
    let handle = supervisor.start()?;
    let spoken = &handle.hello().dialects;
    if !spoken.iter().any(|d| d == options.dialect.name()) {
        return Err(FuzzError::DialectNotSpoken {
            dialect: options.dialect,
            spoken: spoken.join(", "),
        });
    }
    let mut replayer = Replayer {
        handle,
        supervisor: &supervisor,
        options,
        tools,
        tool_list: ToolInfo::list(tools),
        stats: FuzzStats::default(),
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
        let chunkings: Vec<Chunking> = std::iter::once(Chunking::whole())
            .chain(generator.chunkings(&stream))
            .collect();
        if let Some(new) = replayer.first_failure(&stream, &chunkings, &found)? {
            let failure = replayer.shrink_failure(&stream, new)?;
            found.extend(failure.finding.verdicts.iter().copied());
            found.insert(failure.target);
            if failure.known {
                replayer.stats.known_failures += 1;
            } else {
                replayer.stats.failures += 1;
            }
            replayer.stats.shrink_steps += failure.shrunk.steps;
            replayer.stats.restarts = supervisor.restarts();
            replayer.stats.elapsed = started.elapsed();
            on_failure(&failure);
        }
        replayer.stats.restarts = supervisor.restarts();
        replayer.stats.elapsed = started.elapsed();
        on_progress(&replayer.stats);
    }
    let mut stats = replayer.stats.clone();
    replayer.handle.shutdown();
    stats.restarts = supervisor.restarts();
    stats.elapsed = started.elapsed();
    Ok(stats)
}

/// A replay that showed a new verdict.
struct Found {
    chunking: Chunking,
    target: Verdict,
}

struct Replayer<'a> {
    handle: Handle<'a>,
    supervisor: &'a Supervisor,
    options: &'a FuzzOptions,
    tools: &'a Arc<Registry>,
    tool_list: Vec<ToolInfo>,
    stats: FuzzStats,
}

impl Replayer<'_> {
    /// The reference's events for `stream`.
    fn expected(&self, stream: &str) -> Vec<Event> {
        let mut reference = self
            .options
            .dialect
            .reference_parser(self.tools, &self.options.prefill);
        parser::run(reference.as_mut(), [stream]).events
    }

    /// Replays `stream` cut at `cuts`; a fault is returned to be judged.
    fn replay(
        &mut self,
        stream: &str,
        cuts: &[usize],
    ) -> Result<Result<Transcript, Fault>, FuzzError> {
        self.stats.replays += 1;
        let id = format!("fuzz#{}", self.stats.replays);
        let chunks = chunks_at(stream, cuts);
        let begin = Begin {
            stream: id,
            dialect: self.options.dialect.name().to_owned(),
            prefill: Some(self.options.prefill.clone()),
            tools: self.tool_list.clone(),
        };
        // Timed only when it neither faulted nor started a process (Z4.9): a start, a
        // timeout or a crash would say nothing about the time the candidate's parser takes.
        let restarts = self.supervisor.restarts();
        let started = Instant::now();
        let result = self.handle.run_stream(&begin, &chunks);
        let took = started.elapsed();
        match result {
            Ok(transcript) => {
                if self.supervisor.restarts() == restarts {
                    self.stats.by_size.record(stream.len(), took);
                }
                Ok(Ok(transcript))
            }
            Err(ReplayError::Fault(fault)) => Ok(Err(fault)),
            Err(ReplayError::CannotStart(fault)) => Err(FuzzError::CannotRestart(fault)),
            Err(ReplayError::GaveUp(_)) => Err(FuzzError::CannotRestart(Fault::Crash {
                status: "restarted too often".into(),
                stderr_tail: String::new(),
            })),
        }
    }

    /// Judges one replay of `chunking` (the whole stream first): a fault, or the judge's
    /// finding, re-checked for flakiness when it is chunk-dependent and `recheck` says so.
    fn judge(
        &mut self,
        judge: &mut StreamJudge<'_>,
        stream: &str,
        chunking: &Chunking,
        recheck: bool,
    ) -> Result<Option<Finding>, FuzzError> {
        let transcript = match self.replay(stream, &chunking.cuts)? {
            Ok(transcript) => transcript,
            Err(fault) => return Ok(Some(judge.fault(chunking, &fault))),
        };
        let mut finding = judge.replay(chunking, &transcript);
        if let Some(found) = finding.as_mut()
            && recheck
            && found.has(Verdict::ChunkDependent)
        {
            let whole_again = self.replay(stream, &[])?.ok();
            let again = self.replay(stream, &chunking.cuts)?.ok();
            judge.recheck(found, whole_again.as_ref(), again.as_ref());
        }
        Ok(finding)
    }

    /// The first replay of `stream` showing a verdict not `found` before.
    fn first_failure(
        &mut self,
        stream: &str,
        chunkings: &[Chunking],
        found: &BTreeSet<Verdict>,
    ) -> Result<Option<Found>, FuzzError> {
        let expected = self.expected(stream);
        let mut judge = StreamJudge::new(stream, &expected);
        for chunking in chunkings {
            let new = |v: &&Verdict| !found.contains(*v);
            // Chunk-dependence already found needs no second look at each stream.
            let recheck = !found.contains(&Verdict::ChunkDependent);
            let Some(finding) = self.judge(&mut judge, stream, chunking, recheck)? else {
                continue;
            };
            let faulted = !judge.has_baseline();
            if let Some(&target) = finding.verdicts.iter().find(new) {
                return Ok(Some(Found {
                    chunking: chunking.clone(),
                    target,
                }));
            }
            // A fault seen before, or a whole stream that faulted: this stream's other
            // chunkings would cost a restart (or a timeout) each, for nothing new.
            if faulted
                || finding
                    .verdicts
                    .iter()
                    .any(|v| matches!(v, Verdict::Crash | Verdict::Timeout | Verdict::Protocol))
            {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// The finding of `stream` under `cuts` carrying `target`, judged as in the campaign:
    /// whole first, then the cuts.
    fn shows(
        &mut self,
        stream: &str,
        cuts: &[usize],
        target: Verdict,
    ) -> Result<Option<Finding>, FuzzError> {
        let expected = self.expected(stream);
        let mut judge = StreamJudge::new(stream, &expected);
        let recheck = matches!(target, Verdict::ChunkDependent | Verdict::Flaky);
        let whole = self.judge(&mut judge, stream, &Chunking::whole(), recheck)?;
        if whole.as_ref().is_some_and(|f| f.has(target)) || cuts.is_empty() {
            return Ok(whole.filter(|f| f.has(target)));
        }
        if !judge.has_baseline() {
            return Ok(None);
        }
        let chunking = Chunking::new(SplitKind::Chunks, "chunks", cuts.to_vec());
        let finding = self.judge(&mut judge, stream, &chunking, recheck)?;
        Ok(finding.filter(|f| f.has(target)))
    }

    /// Shrinks the failure while its target verdict shows, and describes the result.
    fn shrink_failure(&mut self, stream: &str, found: Found) -> Result<FuzzFailure, FuzzError> {
        let Found { chunking, target } = found;
        let mut gave_up = None;
        let shrunk = shrink(
            stream,
            &chunking.cuts,
            self.options.shrink_tries,
            |stream, cuts| {
                if gave_up.is_some() {
                    return false;
                }
                match self.shows(stream, cuts, target) {
                    Ok(finding) => finding.is_some(),
                    Err(error) => {
                        gave_up = Some(error);
                        false
                    }
                }
            },
        );
        if let Some(error) = gave_up {
            return Err(error);
        }
        let mut finding = match self.shows(&shrunk.stream, &shrunk.cuts, target)? {
            Some(finding) => finding,
            // Flaky output may not show again: describe what the shrink saw last.
            None => Finding::new(
                &shrunk.stream,
                &Chunking::new(SplitKind::Chunks, "chunks", shrunk.cuts.clone()),
                vec![(
                    target,
                    "shown while shrinking, not on the final replay".into(),
                )],
            ),
        };
        let dialect = self.options.dialect;
        finding.realism = Some(realism(
            &shrunk.stream,
            &shrunk.cuts,
            &dialect.markers(self.tools),
        ));
        let mut hash_input = shrunk.stream.clone().into_bytes();
        for cut in &shrunk.cuts {
            hash_input.extend_from_slice(&cut.to_le_bytes());
        }
        let case = format!("{dialect}/fuzz-{target}-{:08x}", fnv1a(&hash_input) as u32);
        let known = self.options.expectations.lists(&case, &finding.verdicts);
        Ok(FuzzFailure {
            target,
            expected: self.expected(&shrunk.stream),
            finding,
            found_stream: stream.to_owned(),
            found_chunking: chunking,
            stream_number: self.stats.streams,
            shrunk,
            case,
            known,
        })
    }
}
