//! Time as a verdict (`specs/runner.md` §8): how a parser's cost grows with its input. Per
//! dialect, streams of three [`Family`]s are fed in fixed-size chunks at sizes that double
//! while a time budget allows; the growth over the largest sizes is `superlinear` when
//! doubling the stream more than 2^1.5 times the time. `tch run` judges every candidate so
//! (unless `--no-scaling`); `tch scale` prints the figures, for a candidate or for the
//! reference in process.
//!
//! - [`streams`]: the families, and each dialect's call around one growing argument.
//! - [`series`]: one family's sizes, timed and judged.
//! - [`cpu`]: the clock judged: the CPU time of the candidate's processes (or, in process,
//!   of this thread), read from `/proc`, so that a loaded machine does not make the verdict.

pub mod cpu;
pub mod series;
pub mod streams;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use series::{
    MIN_TIMED, Point, SUSPECT, ScalingOptions, Series, THRESHOLD, WALL_CAP, human_bytes, measure,
};
pub use streams::Family;

use crate::dialect::Dialect;
use crate::event::Event;
use crate::judge::{CaseReport, Finding, Verdict};
use crate::protocol::{Begin, RequestOptions, ToolInfo};
use crate::split::{ChunkSpec, Chunking, SplitKind};
use crate::supervisor::{Handle, ReplayError};
use crate::tools::Registry;

/// What a series is timed through: a candidate over the protocol, or a reference in process.
pub trait Feed {
    /// Feeds `chunks` as one stream in `dialect`, to its end; what it took.
    fn feed(&mut self, dialect: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError>;
}

/// What one replay took, on both clocks.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// From `begin` to `done`: what an application waits for.
    pub wall: Duration,
    /// What the parser's processes (or thread) ran meanwhile; `None` where `/proc` does not
    /// say ([`cpu`]), and then a series is judged on `wall`.
    pub cpu: Option<Duration>,
}

impl Timing {
    /// Wall time alone, where no CPU time is known.
    pub fn wall(wall: Duration) -> Timing {
        Timing { wall, cpu: None }
    }
}

/// A candidate over the protocol: `begin`, a `chunk` per chunk (each waiting for its `sync`),
/// `end` (waiting for `done`), as every replay of `tch run`.
pub struct OverProtocol<'h, 's> {
    handle: &'h mut Handle<'s>,
    tools: Vec<ToolInfo>,
    deadline: Option<Duration>,
    count: usize,
    /// Whether the live process has had its untimed first stream; a fault drops the process.
    warm: bool,
}

impl<'h, 's> OverProtocol<'h, 's> {
    /// Feeds through `handle`, declaring `tools` in each `begin`; a replay that runs past
    /// `deadline` is stopped and faults as a timeout.
    pub fn new(
        handle: &'h mut Handle<'s>,
        tools: &Registry,
        deadline: Option<Duration>,
    ) -> OverProtocol<'h, 's> {
        OverProtocol {
            handle,
            tools: ToolInfo::list(tools),
            deadline,
            count: 0,
            warm: false,
        }
    }
}

impl OverProtocol<'_, '_> {
    fn begin(&mut self, dialect: Dialect) -> Begin {
        self.count += 1;
        Begin {
            stream: format!("scaling#{}", self.count),
            dialect: dialect.name().to_owned(),
            prefill: Some(String::new()),
            tools: self.tools.clone(),
            options: RequestOptions::default(),
        }
    }
}

impl Feed for OverProtocol<'_, '_> {
    fn feed(&mut self, dialect: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
        if !self.warm {
            // Untimed, first: the process may not be started yet (a handle starts it on first
            // use, and again after a fault), and a JIT warms on its first stream.
            let begin = self.begin(dialect);
            self.handle.run_stream_within(
                &begin,
                chunks,
                self.deadline.map(|d| Instant::now() + d),
            )?;
            self.warm = true;
        }
        let begin = self.begin(dialect);
        // The process is live (it has just had a stream) and waits for the next line: its
        // CPU time stands still until `begin`, and again once it has written `done`.
        let process = self.handle.process_id();
        let cpu_before = process.and_then(cpu::process_tree);
        let started = Instant::now();
        let deadline = self.deadline.map(|d| started + d);
        let replayed = self.handle.run_stream_within(&begin, chunks, deadline);
        let wall = started.elapsed();
        self.warm = replayed.is_ok();
        replayed?;
        // The same process, or a restart would have been a fault.
        let cpu_after = process.and_then(cpu::process_tree);
        let cpu = cpu_before
            .zip(cpu_after)
            .map(|(before, after)| after.saturating_sub(before));
        Ok(Timing { wall, cpu })
    }
}

/// The reference parser of each dialect, in this process: a fresh parser per stream, every
/// event kept until the stream ends, as a caller would.
pub struct InProcess {
    tools: Arc<Registry>,
}

impl InProcess {
    /// The references, with `tools` declared.
    pub fn new(tools: Arc<Registry>) -> InProcess {
        InProcess { tools }
    }
}

impl Feed for InProcess {
    fn feed(&mut self, dialect: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
        let cpu_before = cpu::this_thread();
        let started = Instant::now();
        let mut parser = dialect.reference_parser(&self.tools, "");
        let mut events: Vec<Event> = Vec::new();
        for chunk in chunks {
            parser.push(chunk, &mut events);
        }
        parser.finish(&mut events);
        let wall = started.elapsed();
        let cpu = cpu_before
            .zip(cpu::this_thread())
            .map(|(before, after)| after.saturating_sub(before));
        std::hint::black_box(events);
        Ok(Timing { wall, cpu })
    }
}

/// Why `tch run` and `tch scale` can judge one parser differently although they feed the
/// same series and judge it with one function ([`judge`]): near the threshold, what is left
/// of the machine's noise in CPU time can still turn the verdict (R8.3).
pub const WALL_TIME_CAUTION: &str = "time is the CPU time of the candidate's processes, the \
    fastest of interleaved rounds, which load moves little; but near the threshold a noisy \
    machine (or the other of tch run and tch scale, a minute later) can judge the same parser \
    the other way (specs/runner.md R8.3)";

/// A `superlinear` finding's detail (`specs/runner.md` R8.4): the judgement in words that do
/// not change from run to run, so that a report changes only when the verdict does (R6.6);
/// the sizes fed and their times go to `timings.json`, the terminal and `tch scale`.
pub const SUPERLINEAR_DETAIL: &str = "superlinear: doubling the stream multiplied the time by \
    more than 2.8 (exponent 1.5 or more over the last two doublings of timed sizes, confirmed); \
    the sizes fed and their times: timings.json";

/// The note of a scaling case not judged (R8.3), in words that do not change from run to run
/// (R6.6): which sizes were fed depends on the time they took.
pub const NOT_JUDGED_NOTE: &str = "not judged: fewer than 3 sizes took 10 ms or more of the \
    clock judged; the sizes fed and their times: timings.json";

/// The case id of a family's series: `hermes/scaling/one-call`.
pub fn case_id(dialect: Dialect, family: Family) -> String {
    format!("{}/scaling/{}", dialect.name(), family.name())
}

/// A series as `tch run` reports it (R8.4): a case that passes, fails `superlinear` with the
/// figures, or is skipped when fewer than three sizes were long enough to time.
pub fn case_report(dialect: Dialect, family: Family, series: Series, seconds: f64) -> CaseReport {
    let superlinear = series.superlinear();
    series_report(
        &case_id(dialect, family),
        dialect.name(),
        series,
        seconds,
        superlinear,
    )
}

/// A case that passed near the threshold (R8.5) made the `superlinear` failure it is listed
/// as (R8.6): the same report, byte for byte, that a confirmed `superlinear` gives, so that a
/// parser whose growth sits at the threshold does not turn its committed report from one run
/// to the next. `None` for any other case, which stays as it is.
pub fn held_superlinear(report: &CaseReport) -> Option<CaseReport> {
    let series = report.scaling.as_ref()?;
    if report.status != crate::judge::Status::Passed || !series.near_threshold() {
        return None;
    }
    Some(series_report(
        &report.case,
        &report.dialect,
        series.clone(),
        report.seconds,
        true,
    ))
}

fn series_report(
    case: &str,
    dialect: &str,
    series: Series,
    seconds: f64,
    superlinear: bool,
) -> CaseReport {
    let mut report = CaseReport::new(case, dialect, "");
    let chunking = Chunking::new(
        SplitKind::Scaling,
        format!("{}-byte chunks", series.chunk_bytes),
        Vec::new(),
    );
    let finding = superlinear.then(|| {
        let mut finding = Finding::new("", &chunking, vec![(Verdict::Superlinear, String::new())]);
        finding.detail = SUPERLINEAR_DETAIL.to_owned();
        finding.chunks = ChunkSpec::Lengths(vec![series.chunk_bytes]);
        finding
    });
    if !series.judged() {
        report.status = crate::judge::Status::Skipped;
        report.notes.push(NOT_JUDGED_NOTE.to_owned());
    }
    // One replay, the series, whatever the number of sizes it fed: that number depends on
    // the machine's speed, so it is in `timings.json` (its points), not `report.json` (R6.6).
    report.record(SplitKind::Scaling, finding);
    report.seconds = seconds;
    report.scaling = Some(series);
    report
}

/// Every series in `series`, measured through `feed` one after the other (never beside other
/// work, which would be timed too) and reported as cases; `on_case` is called as each
/// finishes. A fault ends a series as a finding of its verdict.
pub fn judge(
    feed: &mut dyn Feed,
    series: &[(Dialect, Family)],
    options: &ScalingOptions,
    on_case: &(dyn Fn(&CaseReport) + Sync),
) -> Vec<CaseReport> {
    let mut reports = Vec::new();
    for &(dialect, family) in series {
        let started = Instant::now();
        let report = match measure(feed, dialect, family, options) {
            Ok(series) => case_report(dialect, family, series, started.elapsed().as_secs_f64()),
            Err(error) => fault_report(dialect, family, options, &error),
        };
        on_case(&report);
        reports.push(report);
    }
    reports
}

/// A series that did not finish: a fault is judged as in any replay; a candidate given up on
/// is skipped.
fn fault_report(
    dialect: Dialect,
    family: Family,
    options: &ScalingOptions,
    error: &ReplayError,
) -> CaseReport {
    let mut report = CaseReport::new(&case_id(dialect, family), dialect.name(), "");
    match error {
        ReplayError::Fault(fault) => {
            let chunking = Chunking::new(
                SplitKind::Scaling,
                format!("{}-byte chunks", options.chunk_bytes),
                Vec::new(),
            );
            let verdict = crate::judge::verdict_of(fault);
            let mut finding = Finding::new("", &chunking, vec![(verdict, fault.to_string())]);
            finding.chunks = ChunkSpec::Lengths(vec![options.chunk_bytes]);
            report.record(SplitKind::Scaling, Some(finding));
        }
        error => {
            report.status = crate::judge::Status::Skipped;
            report.notes.push(format!("skipped: {error}"));
        }
    }
    report
}
