//! `tch run`'s engine (`specs/runner.md`): replays corpus cases through a candidate under many
//! splittings, over the protocol, and judges each replay in two layers: against the candidate
//! itself (crash, timeout, protocol, grammar, chunk-dependence) and against the case's expected
//! events (conformance).

pub mod classify;
pub mod definitions;
pub mod expect;
pub mod grammar;
pub mod plan;
pub mod report;

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;

use serde::Serialize;

use crate::corpus::Case;
use crate::event::Event;
use crate::protocol::ToolInfo;
use crate::protocol::candidate::{Candidate, Fault, Limits, StartError, Transcript};
use crate::split::{chunk_vector, chunks_at};
use crate::tools::Registry;

pub use plan::{Plan, SplitKind, SplitOptions};

/// The name of a way to fail (`specs/runner.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Crash,
    Timeout,
    Protocol,
    Grammar,
    ChunkDependent,
    LostText,
    LeakedMarkup,
    MissingCall,
    ExtraCall,
    WrongCall,
    Order,
    MissingError,
    ExtraError,
    /// A definition's contract differs from the expected one, or an invalid definition was
    /// accepted, or a valid one refused.
    Definition,
    /// Held back more text than the reference (a failure only with `--strict-latency`).
    Latency,
}

impl Verdict {
    pub const ALL: [Verdict; 15] = [
        Verdict::Crash,
        Verdict::Timeout,
        Verdict::Protocol,
        Verdict::Grammar,
        Verdict::ChunkDependent,
        Verdict::LostText,
        Verdict::LeakedMarkup,
        Verdict::MissingCall,
        Verdict::ExtraCall,
        Verdict::WrongCall,
        Verdict::Order,
        Verdict::MissingError,
        Verdict::ExtraError,
        Verdict::Definition,
        Verdict::Latency,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Verdict::Crash => "crash",
            Verdict::Timeout => "timeout",
            Verdict::Protocol => "protocol",
            Verdict::Grammar => "grammar",
            Verdict::ChunkDependent => "chunk-dependent",
            Verdict::LostText => "lost-text",
            Verdict::LeakedMarkup => "leaked-markup",
            Verdict::MissingCall => "missing-call",
            Verdict::ExtraCall => "extra-call",
            Verdict::WrongCall => "wrong-call",
            Verdict::Order => "order",
            Verdict::MissingError => "missing-error",
            Verdict::ExtraError => "extra-error",
            Verdict::Definition => "definition",
            Verdict::Latency => "latency",
        }
    }

    fn from_fault(fault: &Fault) -> Verdict {
        match fault {
            Fault::Crash { .. } => Verdict::Crash,
            Fault::Timeout { .. } => Verdict::Timeout,
            Fault::Protocol { .. } => Verdict::Protocol,
        }
    }
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One way a case failed, under one splitting (the first, or smallest, that shows it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub verdict: Verdict,
    /// The splitting's label (`whole`, `cut@12`, `per-char`, `random#3`, …).
    pub splitting: String,
    /// Chunk byte lengths: `tch run --chunks` replays exactly this.
    pub chunks: Vec<usize>,
    pub detail: String,
    /// For event mismatches: a unified diff of expected (or whole-stream) vs actual events.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    Passed,
    Failed,
    /// Failed exactly as `--expect-fail` says.
    KnownFailure,
    /// Listed in `--expect-fail` but passed: fails the run until the entry is removed.
    Fixed,
    /// The candidate does not speak the case's dialect.
    NotApplicable,
    /// Not run (the candidate was restarted too often).
    Skipped,
}

/// Everything `tch run` learned about one case.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseReport {
    pub case: String,
    pub dialect: String,
    pub status: Status,
    pub findings: Vec<Finding>,
    /// Splittings replayed.
    pub replays: usize,
    /// The most text bytes the candidate held back beyond what the reference had released,
    /// after any `sync`.
    pub max_extra_held_bytes: usize,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// How to run.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub argv: Vec<String>,
    pub limits: Limits,
    pub jobs: usize,
    pub splits: SplitOptions,
    /// Restarts of crashed or hung processes allowed before the remaining cases are skipped.
    pub max_restarts: usize,
    pub strict_latency: bool,
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Start(#[from] StartError),
}

/// Runs `cases` through the candidate; `on_case` is called as each case finishes (progress).
/// Reports come back in the order of `cases`.
pub fn run(
    cases: &[Case],
    tools: &Arc<Registry>,
    options: &RunOptions,
    on_case: &(dyn Fn(&CaseReport) + Sync),
) -> Result<Vec<CaseReport>, RunError> {
    // The handshake is checked once, up front: a candidate that cannot say hello ends the run.
    let first = Candidate::start(&options.argv, options.limits)?;
    let dialects = first.hello.dialects.clone();
    let shared = Shared {
        next: AtomicUsize::new(0),
        restarts: AtomicUsize::new(0),
        gave_up: AtomicBool::new(false),
        reports: Mutex::new(vec![None; cases.len()]),
        tool_list: ToolInfo::list(tools),
    };
    let first = Mutex::new(Some(first));
    thread::scope(|scope| {
        for _ in 0..options.jobs.max(1) {
            scope.spawn(|| {
                let candidate = first.lock().ok().and_then(|mut c| c.take());
                let mut worker = Worker {
                    started: candidate.is_some(),
                    candidate,
                    options,
                    shared: &shared,
                    tools,
                };
                while let Some(index) = shared.claim(cases.len()) {
                    let report = worker.run_case(&cases[index], &dialects);
                    on_case(&report);
                    if let Ok(mut reports) = shared.reports.lock() {
                        reports[index] = Some(report);
                    }
                }
                if let Some(candidate) = worker.candidate.take() {
                    candidate.shutdown();
                }
            });
        }
    });
    let reports = shared.reports.into_inner().unwrap_or_default();
    Ok(reports.into_iter().flatten().collect())
}

struct Shared {
    next: AtomicUsize,
    restarts: AtomicUsize,
    gave_up: AtomicBool,
    reports: Mutex<Vec<Option<CaseReport>>>,
    tool_list: Vec<ToolInfo>,
}

impl Shared {
    fn claim(&self, len: usize) -> Option<usize> {
        let index = self.next.fetch_add(1, Ordering::Relaxed);
        (index < len).then_some(index)
    }
}

struct Worker<'a> {
    candidate: Option<Candidate>,
    /// Whether this worker has had a process: only later starts count as restarts.
    started: bool,
    options: &'a RunOptions,
    shared: &'a Shared,
    tools: &'a Arc<Registry>,
}

impl Worker<'_> {
    fn run_case(&mut self, case: &Case, dialects: &[String]) -> CaseReport {
        let mut report = CaseReport {
            case: case.id.clone(),
            dialect: case.dialect.name().to_owned(),
            status: Status::Passed,
            findings: Vec::new(),
            replays: 0,
            max_extra_held_bytes: 0,
            notes: Vec::new(),
        };
        if !dialects.iter().any(|d| d == case.dialect.name()) {
            report.status = Status::NotApplicable;
            return report;
        }
        let expected = classify::comparable(&case.expected, &case.stream);
        let mut baseline: Option<Vec<Event>> = None;
        for plan in plan::plans(case, &self.options.splits) {
            if self.shared.gave_up.load(Ordering::Relaxed) {
                report.status = if report.findings.is_empty() {
                    Status::Skipped
                } else {
                    Status::Failed
                };
                report.notes.push(format!(
                    "skipped: the candidate was restarted {} times",
                    self.options.max_restarts
                ));
                return report;
            }
            let chunks = chunks_at(&case.stream, &plan.cuts);
            let stream_id = format!("{}#{}", case.id, plan.label);
            report.replays += 1;
            let tool_list = &self.shared.tool_list;
            let transcript = match self
                .candidate()
                .and_then(|c| c.run_stream(&stream_id, case.dialect.name(), tool_list, &chunks))
            {
                Ok(transcript) => transcript,
                Err(fault) => {
                    // The process is not trusted again: its group is killed when dropped.
                    self.candidate = None;
                    let verdict = Verdict::from_fault(&fault);
                    add(
                        &mut report,
                        finding(&plan, &chunks, Judgement::of_fault(&fault)),
                    );
                    report.notes.push(format!(
                        "stopped this case's splittings after the {verdict}"
                    ));
                    break;
                }
            };
            let (actual, judgements) =
                judge(&transcript, &case.stream, &expected, baseline.as_deref());
            for judgement in judgements {
                add(&mut report, finding(&plan, &chunks, judgement));
            }
            baseline.get_or_insert(actual);
            let held = extra_held(
                case,
                &chunks,
                &transcript.events,
                &transcript.synced,
                self.tools,
            );
            report.max_extra_held_bytes = report.max_extra_held_bytes.max(held);
        }
        if self.options.strict_latency && report.max_extra_held_bytes > 0 {
            let detail = format!(
                "held back up to {} bytes of text the reference had released",
                report.max_extra_held_bytes
            );
            report.findings.push(Finding {
                verdict: Verdict::Latency,
                splitting: String::new(),
                chunks: Vec::new(),
                detail,
                diff: String::new(),
            });
        }
        if !report.findings.is_empty() {
            report.status = Status::Failed;
        }
        report
    }

    /// The live candidate, restarting one if the last was given up on.
    fn candidate(&mut self) -> Result<&mut Candidate, Fault> {
        if self.candidate.is_none() {
            if self.started {
                let restarts = self.shared.restarts.fetch_add(1, Ordering::Relaxed) + 1;
                if restarts > self.options.max_restarts {
                    self.shared.gave_up.store(true, Ordering::Relaxed);
                }
            }
            self.started = true;
            self.candidate = Some(restart(&self.options.argv, self.options.limits)?);
        }
        self.candidate.as_mut().ok_or(Fault::Protocol {
            reason: "no candidate".into(),
        })
    }
}

/// Starts a candidate again after a fault; failing to, it is a crash (or the handshake's fault).
pub(crate) fn restart(argv: &[String], limits: Limits) -> Result<Candidate, Fault> {
    Candidate::start(argv, limits).map_err(|error| match error {
        StartError::Handshake(fault) => fault,
        error => Fault::Crash {
            status: error.to_string(),
            stderr_tail: String::new(),
        },
    })
}

fn finding(plan: &Plan, chunks: &[&str], judgement: Judgement) -> Finding {
    Finding {
        verdict: judgement.verdict,
        splitting: plan.label.clone(),
        chunks: chunk_vector(chunks),
        detail: judgement.detail,
        diff: judgement.diff,
    }
}

/// One verdict on one replay, before it is tied to a splitting.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    pub detail: String,
    /// For event mismatches: a unified diff of expected (or whole-stream) vs actual events.
    pub diff: String,
}

impl Judgement {
    /// The verdict on a replay the candidate did not complete.
    pub fn of_fault(fault: &Fault) -> Judgement {
        Judgement {
            verdict: Verdict::from_fault(fault),
            detail: fault.to_string(),
            diff: String::new(),
        }
    }
}

/// Judges one completed replay of `source` in both layers: its event grammar; chunk-dependence
/// against `baseline`, the candidate's own whole-stream output (none for the whole-stream
/// replay itself); and conformance against `expected` ([`classify::comparable`]). Returns the
/// replay's comparable events with the judgements.
pub fn judge(
    transcript: &Transcript,
    source: &str,
    expected: &[Event],
    baseline: Option<&[Event]>,
) -> (Vec<Event>, Vec<Judgement>) {
    let mut judgements = Vec::new();
    let broken = grammar::violations(&transcript.events, &transcript.misnamed_inputs);
    if !broken.is_empty() {
        judgements.push(Judgement {
            verdict: Verdict::Grammar,
            detail: broken.join("; "),
            diff: String::new(),
        });
    }
    let actual = classify::comparable(&transcript.events, source);
    if let Some(whole) = baseline.filter(|whole| *whole != actual.as_slice()) {
        judgements.push(Judgement {
            verdict: Verdict::ChunkDependent,
            detail: "output differs from the candidate's own whole-stream output".into(),
            diff: crate::check::diff_events(whole, &actual),
        });
    }
    for (verdict, detail) in classify::conformance(expected, &actual) {
        judgements.push(Judgement {
            verdict,
            detail,
            diff: crate::check::diff_events(expected, &actual),
        });
    }
    (actual, judgements)
}

/// Keeps the first finding of each verdict; for chunk-dependence, the one with fewest chunks.
fn add(report: &mut CaseReport, new: Finding) {
    match report
        .findings
        .iter_mut()
        .find(|f| f.verdict == new.verdict)
    {
        None => report.findings.push(new),
        Some(old)
            if new.verdict == Verdict::ChunkDependent && new.chunks.len() < old.chunks.len() =>
        {
            *old = new
        }
        Some(_) => {}
    }
}

/// The most text bytes the candidate had not released after a `sync`, beyond what the
/// reference had released after the same chunk.
fn extra_held(
    case: &Case,
    chunks: &[&str],
    events: &[Event],
    synced: &[usize],
    tools: &Arc<Registry>,
) -> usize {
    let text_bytes = |events: &[Event]| -> usize {
        events
            .iter()
            .map(|e| match e {
                Event::TextDelta { delta } => delta.len(),
                _ => 0,
            })
            .sum()
    };
    let mut reference = case.dialect.reference_parser(tools);
    let mut new_events = Vec::new();
    let (mut reference_released, mut candidate_released, mut counted) = (0, 0, 0);
    let mut worst = 0;
    for (chunk, &synced_count) in chunks.iter().zip(synced) {
        new_events.clear();
        reference.push(chunk, &mut new_events);
        reference_released += text_bytes(&new_events);
        candidate_released += text_bytes(events.get(counted..synced_count).unwrap_or_default());
        counted = synced_count.max(counted);
        worst = worst.max(reference_released.saturating_sub(candidate_released));
    }
    worst
}
