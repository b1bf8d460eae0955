//! `tch fuzz`'s engine: generates streams, replays each through a candidate (via the
//! supervisor) whole and under many chunkings, judges every replay with the same judge as
//! `tch run` ([`crate::judge::StreamJudge`]), and shrinks each failure that shows a verdict not seen before to
//! a minimal stream and chunk vector. Replaying, judging and shrinking are
//! [`super::replayer`]'s; what is the campaign's own is generating, hunting verdicts not seen
//! before, and timing replays by stream size.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::generate::Generator;
use super::replayer::{Replayer, StreamCandidate, Unavailable};
use super::shrink::Shrunk;
use super::timing::SizeTimes;
use crate::dialect::Dialect;
use crate::event::Event;
use crate::judge::{Expectations, Finding, Verdict};
use crate::protocol::Begin;
use crate::split::{Chunking, SplitKind, fnv1a, realism};
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
    /// Why the campaign stopped; `None` while it runs.
    pub stopped: Option<Stopped>,
}

/// Why a campaign stopped generating streams (`specs/fuzzing.md` Z4.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// `--max-failures` unexpected failures were found.
    MaxFailures(usize),
    /// `--streams` streams were generated.
    Streams(usize),
    /// `--seconds` had passed.
    Seconds(Duration),
}

impl Stopped {
    /// The option whose limit stopped it, without its dashes: `max-failures`, `streams`,
    /// `seconds` (`fuzz.json`'s `stats.stoppedBy`).
    pub fn option(&self) -> &'static str {
        match self {
            Stopped::MaxFailures(_) => "max-failures",
            Stopped::Streams(_) => "streams",
            Stopped::Seconds(_) => "seconds",
        }
    }
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::MaxFailures(n) => write!(
                f,
                "{n} unexpected {} found (--max-failures {n})",
                if *n == 1 { "failure" } else { "failures" }
            ),
            Stopped::Streams(n) => write!(f, "{n} streams generated (--streams {n})"),
            Stopped::Seconds(budget) => {
                write!(f, "time budget used (--seconds {})", budget.as_secs_f64())
            }
        }
    }
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
    let over_the_wire = handle.hello().output == crate::wire::Output::OpenaiChunks;
    // Z4.10: a candidate that gives a non-streaming result has it judged for every stream.
    let non_streaming = handle.hello().non_streaming.then(Chunking::non_streaming);
    if !spoken.iter().any(|d| d == options.dialect.name()) {
        return Err(FuzzError::DialectNotSpoken {
            dialect: options.dialect,
            spoken: spoken.join(", "),
        });
    }
    let timed = Timed {
        handle,
        supervisor: &supervisor,
        by_size: SizeTimes::default(),
    };
    let mut campaign = Campaign {
        replayer: Replayer::new(timed, options.dialect, &options.prefill, tools, "fuzz")
            .over_the_wire(over_the_wire),
        options,
        tools,
        stats: FuzzStats::default(),
    };
    let mut generator = Generator::new(options.seed, seeds);
    let mut found: BTreeSet<Verdict> = BTreeSet::new();
    let started = Instant::now();
    loop {
        let stop = if campaign.stats.failures >= options.max_failures {
            Some(Stopped::MaxFailures(options.max_failures))
        } else if options
            .max_streams
            .is_some_and(|n| campaign.stats.streams >= n)
        {
            options.max_streams.map(Stopped::Streams)
        } else if started.elapsed() >= options.duration {
            Some(Stopped::Seconds(options.duration))
        } else {
            None
        };
        if stop.is_some() {
            campaign.stats.stopped = stop;
            break;
        }
        let stream = generator.stream();
        campaign.stats.streams += 1;
        let chunkings: Vec<Chunking> = std::iter::once(Chunking::whole())
            .chain(generator.chunkings(&stream))
            .chain(non_streaming.clone())
            .collect();
        if let Some(new) = campaign.first_failure(&stream, &chunkings, &found)? {
            let failure = campaign.shrink_failure(&stream, new)?;
            found.extend(failure.finding.verdicts.iter().copied());
            found.insert(failure.target);
            if failure.known {
                campaign.stats.known_failures += 1;
            } else {
                campaign.stats.failures += 1;
            }
            campaign.stats.shrink_steps += failure.shrunk.steps;
            campaign.tally(&supervisor, started);
            on_failure(&failure);
        }
        campaign.tally(&supervisor, started);
        on_progress(&campaign.stats);
    }
    campaign.tally(&supervisor, started);
    let stats = campaign.stats.clone();
    campaign.replayer.candidate.handle.shutdown();
    Ok(FuzzStats {
        restarts: supervisor.restarts(),
        elapsed: started.elapsed(),
        ..stats
    })
}

/// A replay that showed a new verdict.
struct Found {
    chunking: Chunking,
    target: Verdict,
}

/// The campaign's candidate: its handle, each replay timed by stream size.
struct Timed<'a> {
    handle: Handle<'a>,
    supervisor: &'a Supervisor,
    by_size: SizeTimes,
}

impl Timed<'_> {
    /// Runs `replay` of a stream of `bytes`, timed only when it neither faulted nor started a
    /// process (Z4.9): a start, a timeout or a crash would say nothing about the time the
    /// candidate's parser takes.
    fn timed(
        &mut self,
        bytes: usize,
        replay: impl FnOnce(&mut Handle<'_>) -> Result<Transcript, ReplayError>,
    ) -> Result<Transcript, ReplayError> {
        let restarts = self.supervisor.restarts();
        let started = Instant::now();
        let result = replay(&mut self.handle);
        let took = started.elapsed();
        if result.is_ok() && self.supervisor.restarts() == restarts {
            self.by_size.record(bytes, took);
        }
        result
    }
}

impl StreamCandidate for Timed<'_> {
    fn run_stream(&mut self, begin: &Begin, chunks: &[&str]) -> Result<Transcript, ReplayError> {
        let bytes = chunks.iter().map(|chunk| chunk.len()).sum();
        self.timed(bytes, |handle| handle.run_stream(begin, chunks))
    }

    fn run_non_streaming(&mut self, begin: &Begin, text: &str) -> Result<Transcript, ReplayError> {
        self.timed(text.len(), |handle| handle.run_non_streaming(begin, text))
    }
}

struct Campaign<'a> {
    replayer: Replayer<'a, Timed<'a>>,
    options: &'a FuzzOptions,
    tools: &'a Arc<Registry>,
    stats: FuzzStats,
}

/// A candidate that can no longer be replayed ends the campaign.
fn cannot_restart(unavailable: Unavailable) -> FuzzError {
    match unavailable {
        Unavailable::CannotStart(fault) => FuzzError::CannotRestart(fault),
        Unavailable::GaveUp(_) => FuzzError::CannotRestart(Fault::Crash {
            status: "restarted too often".into(),
            stderr_tail: String::new(),
        }),
    }
}

impl Campaign<'_> {
    /// Brings the counters the replayer keeps into the stats.
    fn tally(&mut self, supervisor: &Supervisor, started: Instant) {
        self.stats.replays = self.replayer.replays();
        self.stats.by_size = self.replayer.candidate.by_size;
        self.stats.restarts = supervisor.restarts();
        self.stats.elapsed = started.elapsed();
    }

    /// The first replay of `stream` showing a verdict not `found` before.
    fn first_failure(
        &mut self,
        stream: &str,
        chunkings: &[Chunking],
        found: &BTreeSet<Verdict>,
    ) -> Result<Option<Found>, FuzzError> {
        let expected = self.replayer.expected(stream);
        let mut judge = self.replayer.stream_judge(stream, &expected);
        for chunking in chunkings {
            let new = |v: &&Verdict| !found.contains(*v);
            // Chunk-dependence (or a non-streaming result that differs) already found needs no
            // second look at each stream.
            let recheck = !found.contains(&if chunking.kind == SplitKind::NonStreaming {
                Verdict::NonStreamingDiffers
            } else {
                Verdict::ChunkDependent
            });
            let Some(finding) = self
                .replayer
                .judge(&mut judge, stream, chunking, recheck)
                .map_err(cannot_restart)?
            else {
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

    /// Shrinks the failure while its target verdict shows, and describes the result.
    fn shrink_failure(&mut self, stream: &str, found: Found) -> Result<FuzzFailure, FuzzError> {
        let Found { chunking, target } = found;
        let recheck = matches!(
            target,
            Verdict::ChunkDependent | Verdict::Flaky | Verdict::NonStreamingDiffers
        );
        // A non-streaming finding shrinks as the whole stream and its non-streaming result.
        self.replayer
            .set_non_streaming(chunking.kind == SplitKind::NonStreaming);
        let mut has_target = |finding: &Finding| finding.has(target);
        let shrinking = self.replayer.shrink(
            stream,
            &chunking.cuts,
            self.options.shrink_tries,
            recheck,
            &mut has_target,
        );
        if let Some(error) = shrinking.stopped {
            return Err(cannot_restart(error));
        }
        let shrunk = shrinking.shrunk;
        let shown = self
            .replayer
            .shows(&shrunk.stream, &shrunk.cuts, recheck, &mut has_target)
            .map_err(cannot_restart)?;
        let mut finding = match shown {
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
            expected: self.replayer.expected(&shrunk.stream),
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
