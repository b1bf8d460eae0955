//! `tch run`'s engine (`specs/runner.md`): replays corpus cases through a candidate under many
//! chunkings and definition cases as requests, `--jobs` processes in parallel, each started
//! once by the supervisor; every replay is judged by [`crate::judge`].
//!
//! - [`definitions`]: definition cases over the protocol.

pub mod definitions;

use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use crate::corpus::{Case, DefinitionCase};
use crate::dialect::Dialect;
use crate::event::Event;
use crate::fuzz::replayer::StreamCandidate;
use crate::judge::{CaseReport, Finding, Status, StreamJudge, Verdict};
use crate::protocol::{Begin, Hello, RequestOption, RequestOptions, ToolInfo};
use crate::scaling::{self, Family, ScalingOptions};
use crate::split::{Chunking, SplitKind, SplitOptions, chunks_at, plan, realism};
use crate::supervisor::{Handle, ReplayError, StartError, Supervisor, Transcript};
use crate::tools::Registry;
use crate::wire::Output;

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Processes run in parallel, each with its share of the cases.
    pub jobs: usize,
    /// The chunkings replayed per case.
    pub splits: SplitOptions,
    /// Fail cases whose candidate holds back text the reference has already released.
    pub strict_latency: bool,
    /// Judge output that follows a documented alternative reading as a bug, not a divergence
    /// (`specs/runner.md` R3.5).
    pub strict: bool,
    /// The scaling series to judge after the cases (`specs/runner.md` §8), those of dialects
    /// the candidate speaks.
    pub scaling: Vec<(Dialect, Family)>,
    /// How the series grow.
    pub scaling_options: ScalingOptions,
}

/// What a run learned.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    /// The candidate's `hello`.
    pub hello: Hello,
    /// One report per case: stream cases in the order given, definition cases, then the
    /// scaling cases.
    pub reports: Vec<CaseReport>,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The first process could not start, or its `hello` failed.
    #[error(transparent)]
    Start(#[from] StartError),
    /// The candidate speaks none of the selected cases' dialects: nothing would be judged.
    #[error(
        "the candidate speaks none of the selected cases' dialects: its hello lists [{spoken}], the cases are {selected}"
    )]
    NothingToJudge {
        /// The dialects its hello lists.
        spoken: String,
        /// The dialects of the selected cases.
        selected: String,
    },
}

/// Runs stream `cases` and `definition_cases` through the supervisor's candidate;
/// `on_case` is called as each case finishes (progress).
pub fn run(
    supervisor: &Supervisor,
    cases: &[Case],
    definition_cases: &[DefinitionCase],
    tools: &Arc<Registry>,
    options: &RunOptions,
    on_case: &(dyn Fn(&CaseReport) + Sync),
) -> Result<RunOutcome, RunError> {
    let first = supervisor.start()?;
    let hello = first.hello().clone();
    let spoken = |case: &Case| hello.dialects.iter().any(|d| d == case.dialect.name());
    if !cases.is_empty() && !cases.iter().any(spoken) {
        let mut selected: Vec<&str> = cases.iter().map(|c| c.dialect.name()).collect();
        selected.sort_unstable();
        selected.dedup();
        first.shutdown();
        return Err(RunError::NothingToJudge {
            spoken: hello.dialects.join(", "),
            selected: selected.join(", "),
        });
    }
    let work = Work::new(cases, definition_cases, tools, options);
    let first = Mutex::new(Some(first));
    // The process of the job that ends last, kept for the scaling cases (R1.2).
    let last: Mutex<Option<Handle<'_>>> = Mutex::new(None);
    let mut reports = work.in_parallel(
        || {
            let taken = first.lock().ok().and_then(|mut c| c.take());
            taken.unwrap_or_else(|| supervisor.handle(&hello))
        },
        |work, index, handle| match work.cases.get(index) {
            Some(case) => work.run_case(case, handle, &hello),
            None => definitions::run_case(&work.definition_cases[index - work.cases.len()], handle),
        },
        |handle| match last.lock() {
            Ok(mut last) => last.replace(handle).map_or((), Handle::shutdown),
            Err(_) => handle.shutdown(),
        },
        on_case,
    );
    let series: Vec<(Dialect, Family)> = options
        .scaling
        .iter()
        .copied()
        .filter(|(d, _)| hello.dialects.iter().any(|name| name == d.name()))
        .collect();
    let last = last.into_inner().ok().flatten();
    if !series.is_empty() {
        // Alone, after every other job's process has said bye: nothing else runs while a
        // series is timed. Through the last job's process, started again only if a fault
        // dropped it (R1.2), warmed by a first untimed stream as a fresh one would be.
        let mut handle = last.unwrap_or_else(|| supervisor.handle(&hello));
        let mut feed = scaling::OverProtocol::new(&mut handle, tools, None);
        reports.extend(scaling::judge(
            &mut feed,
            &series,
            &options.scaling_options,
            on_case,
        ));
        handle.shutdown();
    } else if let Some(handle) = last {
        handle.shutdown();
    }
    Ok(RunOutcome { hello, reports })
}

/// Runs stream `cases` through a parser in this process (`crate::in_process`): `start` makes
/// one candidate per job, which speaks the dialects `hello` lists. Judged as [`run`] judges;
/// the scaling cases are left out (time is judged over the protocol alone, `tch scale`), and
/// so are definition cases (`hello.definitions` is not read).
pub fn run_in_process<C: StreamCandidate>(
    hello: &Hello,
    start: impl Fn() -> C + Sync,
    cases: &[Case],
    tools: &Arc<Registry>,
    options: &RunOptions,
    on_case: &(dyn Fn(&CaseReport) + Sync),
) -> RunOutcome {
    let work = Work::new(cases, &[], tools, options);
    let reports = work.in_parallel(
        start,
        |work, index, candidate| work.run_case(&work.cases[index], candidate, hello),
        drop,
        on_case,
    );
    RunOutcome {
        hello: hello.clone(),
        reports,
    }
}

/// The cases, shared by the jobs, and what they need.
struct Work<'a> {
    cases: &'a [Case],
    definition_cases: &'a [DefinitionCase],
    tools: &'a Arc<Registry>,
    options: &'a RunOptions,
    reports: Mutex<Vec<Option<CaseReport>>>,
}

impl<'a> Work<'a> {
    fn new(
        cases: &'a [Case],
        definition_cases: &'a [DefinitionCase],
        tools: &'a Arc<Registry>,
        options: &'a RunOptions,
    ) -> Work<'a> {
        Work {
            cases,
            definition_cases,
            tools,
            options,
            reports: Mutex::new(vec![None; cases.len() + definition_cases.len()]),
        }
    }

    /// Runs every case, `options.jobs` at a time: each job makes its candidate with `start`,
    /// runs its share of the cases with `run_item`, then hands the candidate to `stop`. The
    /// reports come back in the cases' order.
    ///
    /// Job `j` of `n` runs cases `j`, `j + n`, `j + 2n`, … in order (R1.2), not whichever is
    /// next when it is free: which process runs a case, after which others, is then the same
    /// in every run, so a candidate whose answers depend on its process's history (a JIT's
    /// warmth, a cache) gives the same answers in every run, and a report that diffs.
    fn in_parallel<J>(
        &self,
        start: impl Fn() -> J + Sync,
        run_item: impl Fn(&Self, usize, &mut J) -> CaseReport + Sync,
        stop: impl Fn(J) + Sync,
        on_case: &(dyn Fn(&CaseReport) + Sync),
    ) -> Vec<CaseReport> {
        thread::scope(|scope| {
            let jobs = self.options.jobs.max(1);
            let total = self.cases.len() + self.definition_cases.len();
            for first in 0..jobs {
                let (start, run_item, stop) = (&start, &run_item, &stop);
                scope.spawn(move || {
                    let mut job = start();
                    for index in (first..total).step_by(jobs) {
                        let started = Instant::now();
                        let mut report = run_item(self, index, &mut job);
                        report.seconds = started.elapsed().as_secs_f64();
                        on_case(&report);
                        if let Ok(mut reports) = self.reports.lock() {
                            reports[index] = Some(report);
                        }
                    }
                    stop(job);
                });
            }
        });
        let reports = self.reports.lock().map(|mut r| std::mem::take(&mut *r));
        reports.unwrap_or_default().into_iter().flatten().collect()
    }

    /// One stream case through `candidate`, which said `hello`.
    fn run_case(
        &self,
        case: &Case,
        candidate: &mut impl StreamCandidate,
        hello: &Hello,
    ) -> CaseReport {
        let mut report = CaseReport::new(&case.id, case.dialect.name(), &case.stream);
        let dialect = case.dialect.name();
        if !hello.dialects.iter().any(|d| d == dialect) {
            report.status = Status::NotApplicable;
            return report;
        }
        if hello.starts_in_reasoning.iter().any(|d| d == dialect)
            && !case.dialect.starts_in_reasoning(self.tools, &case.prefill)
        {
            // P2.9: the candidate cannot start outside reasoning, as its template cannot.
            report.status = Status::NotApplicable;
            report.notes.push(format!(
                "n/a: the candidate starts every {dialect} reply inside reasoning (hello's startsInReasoning), and this case's prefill leaves reasoning closed"
            ));
            return report;
        }
        let undeclared: Vec<&str> = case
            .request
            .set()
            .into_iter()
            .filter(|option| !hello.options.contains(option))
            .map(RequestOption::name)
            .collect();
        if !undeclared.is_empty() {
            // P6.2: a candidate is never sent an option it did not declare, nor judged
            // without it on a case that rests on it.
            report.status = Status::NotApplicable;
            report.notes.push(format!(
                "n/a: the case's request sets {}, which the candidate's hello does not list in options",
                undeclared.join(", ")
            ));
            return report;
        }
        let over_the_wire = hello.output == Output::OpenaiChunks;
        let mut judge = StreamJudge::of_output(&case.stream, &case.expected, over_the_wire)
            .with_alternatives(&case.alternatives);
        let markers = case.dialect.markers(self.tools);
        let realism = |chunking: &Chunking| Some(realism(&case.stream, &chunking.cuts, &markers));
        let mut replayer = Replayer {
            candidate,
            case,
            tools: ToolInfo::for_stream(
                self.tools,
                case.dialect,
                &case.stream,
                case.all_expected(),
            ),
            count: 0,
        };
        let mut chunkings = plan(&case.stream, &markers, &self.options.splits);
        if hello.non_streaming {
            // R2.3: last, whatever the budget, so that a fault of the non-streaming path
            // (which stops the case's replays) hides none of the streamed ones.
            chunkings.push(Chunking::non_streaming());
        }
        for chunking in chunkings {
            let transcript = match replayer.replay(&chunking) {
                Ok(transcript) => transcript,
                Err(ReplayError::Fault(fault)) => {
                    let mut finding = judge.fault(&chunking, &fault);
                    finding.realism = realism(&chunking);
                    report.record(chunking.kind, Some(finding));
                    report.notes.push(format!(
                        "stopped this case's replays after the {} under {}",
                        crate::judge::verdict_of(&fault),
                        chunking.label
                    ));
                    break;
                }
                Err(error) => {
                    if report.findings.is_empty() {
                        report.status = Status::Skipped;
                    }
                    report.notes.push(format!("skipped: {error}"));
                    break;
                }
            };
            let mut finding = judge.replay(&chunking, &transcript);
            // The chunks' own finding (`specs/wire.md`), beside what their events showed.
            let wire = judge.wire(&chunking, &transcript).map(|mut breach| {
                breach.realism = realism(&chunking);
                breach
            });
            if let Some(found) = finding.as_mut()
                && (found.has(Verdict::ChunkDependent) || found.has(Verdict::NonStreamingDiffers))
                && report.would_keep(&found.verdicts, found.chunks.len(&case.stream))
            {
                // Before calling it chunk-dependent (or the non-streaming result different):
                // the same chunking and the whole stream again. A replay that does not
                // complete proves nothing either way.
                let whole_again = replayer.replay(&Chunking::whole()).ok();
                let again = replayer.replay(&chunking).ok();
                judge.recheck(found, whole_again.as_ref(), again.as_ref());
            }
            if let Some(found) = finding.as_mut() {
                found.realism = realism(&chunking);
            }
            if self.options.strict {
                finding = finding.map(Finding::strict);
            }
            // A replay is counted once, failed when either its events or its chunks fail.
            match (finding, wire) {
                (Some(finding), Some(wire)) => {
                    report.record(chunking.kind, Some(finding));
                    report.add(wire);
                }
                (finding, wire) => report.record(chunking.kind, finding.or(wire)),
            }
            let held = extra_held(case, &chunking, &transcript, self.tools);
            report.max_extra_held_bytes = report.max_extra_held_bytes.max(held);
            if case.request.choices() > 1 && chunking.kind != SplitKind::NonStreaming {
                // R2.4: the same chunks in every choice of one request, against the stream
                // alone. A fault there stops the case like any other.
                match replayer.replay_choices(&chunking) {
                    Ok(transcripts) => {
                        let mut finding = judge.choices(&chunking, &transcripts);
                        if let Some(found) = finding.as_mut() {
                            found.realism = realism(&chunking);
                        }
                        report.record(chunking.kind, finding);
                    }
                    Err(ReplayError::Fault(fault)) => {
                        let mut finding = judge.fault(&chunking, &fault);
                        finding.realism = realism(&chunking);
                        report.record(chunking.kind, Some(finding));
                        break;
                    }
                    Err(error) => {
                        report.notes.push(format!("skipped: {error}"));
                        break;
                    }
                }
            }
        }
        if self.options.strict_latency && report.max_extra_held_bytes > 0 {
            let detail = format!(
                "held back up to {} bytes of text the reference had released",
                report.max_extra_held_bytes
            );
            let finding = Finding::new(
                &case.stream,
                &Chunking::whole(),
                vec![(Verdict::Latency, detail)],
            );
            report.add(finding);
        }
        report
    }
}

/// Replays one case's stream through a candidate, each replay under its own stream id.
struct Replayer<'h, C> {
    candidate: &'h mut C,
    case: &'h Case,
    /// What `begin` declares: the registry, and the tools the case's events call.
    tools: Vec<ToolInfo>,
    count: usize,
}

impl<C: StreamCandidate> Replayer<'_, C> {
    /// One replay of `chunking`: streamed in its chunks, or, for
    /// [`SplitKind::NonStreaming`](crate::split::SplitKind::NonStreaming), the whole reply in
    /// one `non-streaming` request.
    fn replay(&mut self, chunking: &Chunking) -> Result<Transcript, ReplayError> {
        // The stream alone: the case's options but `n` (R2.4).
        let options = RequestOptions {
            n: None,
            ..self.case.request.clone()
        };
        let begin = self.begin(options);
        if chunking.kind == SplitKind::NonStreaming {
            return self.candidate.run_non_streaming(&begin, &self.case.stream);
        }
        self.candidate
            .run_stream(&begin, &chunks_at(&self.case.stream, &chunking.cuts))
    }

    /// The chunks of `chunking` in each of the case's `n` choices of one request (P6.7).
    fn replay_choices(&mut self, chunking: &Chunking) -> Result<Vec<Transcript>, ReplayError> {
        let begin = self.begin(self.case.request.clone());
        self.candidate
            .run_choices(&begin, &chunks_at(&self.case.stream, &chunking.cuts))
    }

    /// The next replay's `begin`, under its own stream id, with `options`.
    fn begin(&mut self, options: RequestOptions) -> Begin {
        self.count += 1;
        Begin {
            stream: format!("{}#{}", self.case.id, self.count),
            dialect: self.case.dialect.name().to_owned(),
            prefill: Some(self.case.prefill.clone()),
            tools: self.tools.clone(),
            options,
        }
    }
}

/// The most text and reasoning bytes the candidate had not released after a `sync`, beyond
/// what the reference had released after the same chunk.
fn extra_held(
    case: &Case,
    chunking: &Chunking,
    transcript: &Transcript,
    tools: &Arc<Registry>,
) -> usize {
    let text_bytes = |events: &[Event]| -> usize {
        events
            .iter()
            .map(|e| match e {
                Event::TextDelta { delta } | Event::ReasoningDelta { delta } => delta.len(),
                _ => 0,
            })
            .sum()
    };
    let mut reference = case
        .request
        .reference(case.dialect.reference_parser(tools, &case.prefill));
    let mut new_events = Vec::new();
    let (mut reference_released, mut candidate_released, mut counted) = (0, 0, 0);
    let mut worst = 0;
    let chunks = chunks_at(&case.stream, &chunking.cuts);
    for (chunk, &synced) in chunks.iter().zip(&transcript.synced) {
        new_events.clear();
        reference.push(chunk, &mut new_events);
        reference_released += text_bytes(&new_events);
        candidate_released +=
            text_bytes(transcript.events.get(counted..synced).unwrap_or_default());
        counted = synced.max(counted);
        worst = worst.max(reference_released.saturating_sub(candidate_released));
    }
    worst
}
