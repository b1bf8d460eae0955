//! [`Check`]: the corpus through an in-process [`Candidate`] from a parser crate's `cargo test`,
//! judged and reported as `tch run` judges and reports a process.
//!
//! It is one test that prints the findings and fails, not one test per case: a corpus of a
//! thousand cases as a thousand tests buries the few root causes under a thousand `FAILED`
//! lines (and needs a custom test harness in the user's `Cargo.toml`), while `tch run`'s own
//! output, root causes first, reads the same in `cargo test` as in a terminal. A case is
//! selected from the command line without editing the test: `TCH_CASE='hermes/*' cargo test`,
//! and `TCH_CHUNKS=3,5` replays one chunk vector, which is what each finding's replay line
//! says. `TCH_CORPUS=DIR` reads the cases of a corpus folder instead (as `tch run --corpus`:
//! the cases a fuzzer wrote, `crate::fuzz::differential`). `TCH_WRITE_EXPECT_FAIL=1` writes
//! the failures to the expect-fail file (a ratchet).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Candidate, Guarded};
use crate::corpus::{Case, CorpusError, Selection};
use crate::definitions::DefinitionError;
use crate::definitions::bundled_registry;
use crate::dialect::Dialect;
use crate::judge::CaseReport;
use crate::judge::expect::{self, ExpectError, Expectations};
use crate::protocol::{Hello, PROTOCOL_VERSION};
use crate::report::ReplayTemplate;
use crate::report::terminal::{self, TerminalOptions};
use crate::report::{self, CandidateInfo, ReportOptions, RootCauseCounts, RunReport, Summary};
use crate::runner::{self, RunOptions};
use crate::scaling::ScalingOptions;
use crate::split::{ChunkSpec, SplitOptions};
use crate::tools::Registry;
use crate::triage::{self, Budget, FailingCase, RootCause, TriageOptions};
use crate::wire::Output;

/// The failing cases whose findings [`Checked::render`] prints in full (the root causes come
/// first and name every failing case's cause; the rest are in the report folder).
const CASES_SHOWN: usize = 12;

/// A check of an in-process candidate against the corpus: built, then [`Check::run`].
pub struct Check<F> {
    name: String,
    make: F,
    starts_in_reasoning: Vec<Dialect>,
    selection: Selection,
    expect_fail: Option<PathBuf>,
    report_dir: Option<PathBuf>,
    splits: SplitOptions,
    jobs: usize,
    tools: Option<Arc<Registry>>,
    triage: Budget,
    output: Output,
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The corpus could not be read.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// The bundled tool registry could not be read.
    #[error(transparent)]
    Tools(#[from] DefinitionError),
    /// The expect-fail file could not be read or written.
    #[error("{path}: {error}")]
    ExpectFail {
        /// The file.
        path: PathBuf,
        /// What was wrong.
        error: String,
    },
    /// The report folder could not be written.
    #[error("cannot write reports to {path}: {error}")]
    Reports {
        /// The folder.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
    /// `TCH_CHUNKS` is not a chunk vector, or does not fit a selected case.
    #[error("TCH_CHUNKS={spec}: {error}")]
    Chunks {
        /// The variable's value.
        spec: String,
        /// What was wrong.
        error: String,
    },
    /// Nothing selected: the test would pass without judging anything.
    #[error("no case of {dialects} matches the selection ({selection})")]
    NoCases {
        /// The candidate's dialects.
        dialects: String,
        /// The case globs.
        selection: String,
    },
    /// The triage of the failures into root causes failed.
    #[error(transparent)]
    Triage(#[from] triage::TriageError),
}

impl<F, C> Check<F>
where
    F: Fn() -> C + Sync,
    C: Candidate,
{
    /// A check of the candidates `make` makes, named `name` in reports, on the bundled
    /// corpus's cases of `dialects` (the dialects the candidate parses).
    pub fn new(name: &str, dialects: &[Dialect], make: F) -> Check<F> {
        Check {
            name: name.to_owned(),
            make,
            starts_in_reasoning: Vec::new(),
            selection: Selection {
                dialects: dialects.to_vec(),
                ..Selection::default()
            },
            expect_fail: None,
            report_dir: None,
            splits: SplitOptions::default(),
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get().min(8)),
            tools: None,
            triage: Budget::Time(Duration::from_secs(30)),
            output: Output::Events,
        }
    }

    /// What the candidate's events come from: [`Output::OpenaiChunks`] for a candidate that
    /// produces a server's chunks and reads them back with [`crate::wire::WireReader`] (the
    /// client's reading), judged as `tch run` judges an `openai-chunks` candidate's events
    /// (`specs/protocol.md` P5.6: no chunk carries an `error` event, so errors are compared on
    /// neither side). The wire rules themselves are judged only over the protocol.
    pub fn output(mut self, output: Output) -> Self {
        self.output = output;
        self
    }

    /// Only the cases whose id (`DIALECT/NAME`) matches `glob`; may be given again.
    /// `TCH_CASE` (globs split on `,`) replaces them.
    pub fn case(mut self, glob: &str) -> Self {
        self.selection.cases.push(glob.to_owned());
        self
    }

    /// Dialects whose replies the candidate always reads as starting inside reasoning, as their
    /// template opens it (`specs/protocol.md` P2.9): their cases whose prefill leaves reasoning
    /// closed are `n/a`.
    pub fn starts_in_reasoning(mut self, dialects: &[Dialect]) -> Self {
        self.starts_in_reasoning = dialects.to_vec();
        self
    }

    /// Leaves out the cases whose id matches `glob`; may be given again.
    pub fn skip(mut self, glob: &str) -> Self {
        self.selection.skip.push(glob.to_owned());
        self
    }

    /// The cases of a corpus folder (as `tch run --corpus`) instead of the bundled corpus.
    /// `TCH_CORPUS` replaces it.
    pub fn corpus(mut self, dir: impl Into<PathBuf>) -> Self {
        self.selection.corpus = Some(dir.into());
        self
    }

    /// Known failures (`tch run --expect-fail`'s format): they are reported, not failed; a
    /// listed case that passes fails as `fixed`. `TCH_WRITE_EXPECT_FAIL=1` rewrites it.
    pub fn expect_fail(mut self, path: impl Into<PathBuf>) -> Self {
        self.expect_fail = Some(path.into());
        self
    }

    /// Writes `report.json`, `junit.xml`, `summary.md` and a page per root cause (`bugs/`)
    /// into `dir`, as `tch run --report-dir` does.
    pub fn report_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.report_dir = Some(dir.into());
        self
    }

    /// The chunkings replayed per case (`tch run`'s defaults otherwise).
    pub fn splits(mut self, splits: SplitOptions) -> Self {
        self.splits = splits;
        self
    }

    /// Cases judged in parallel, each thread with a candidate of its own.
    pub fn jobs(mut self, jobs: usize) -> Self {
        self.jobs = jobs.max(1);
        self
    }

    /// The tool registry declared in `begin` and typing the reference's values (the bundled
    /// tools otherwise).
    pub fn tools(mut self, tools: Arc<Registry>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// How long triage may shrink failures to find their root causes (30 s by default; zero
    /// groups them unshrunk). [`Budget::Replays`] gives the same root causes on any machine.
    pub fn triage(mut self, budget: Budget) -> Self {
        self.triage = budget;
        self
    }

    /// Replays every selected case, judges, groups failures into root causes and renders
    /// them; writes the reports when asked to. Fails only when it could not judge.
    pub fn run(mut self) -> Result<Checked, CheckError> {
        if let Some(dir) = env_var("TCH_CORPUS") {
            self.selection.corpus = Some(dir.into());
        }
        if let Some(globs) = env_var("TCH_CASE") {
            self.selection.cases = globs.split(',').map(str::to_owned).collect();
        }
        let chunks = env_var("TCH_CHUNKS");
        if let Some(spec) = &chunks {
            let parsed: ChunkSpec = spec.parse().map_err(|error| CheckError::Chunks {
                spec: spec.clone(),
                error: format!("{error}"),
            })?;
            self.splits.chunks = Some(parsed);
        }
        let expectations = match &self.expect_fail {
            Some(path) => read_expectations(path)?,
            None => Expectations::default(),
        };
        let cases = self.selection.stream_cases()?;
        if cases.is_empty() {
            return Err(CheckError::NoCases {
                dialects: names(&self.selection.dialects),
                selection: if self.selection.cases.is_empty() {
                    "every case".to_owned()
                } else {
                    self.selection.cases.join(", ")
                },
            });
        }
        if let Some(spec) = &self.splits.chunks {
            for case in &cases {
                spec.cuts(&case.stream)
                    .map_err(|error| CheckError::Chunks {
                        spec: spec.to_string(),
                        error: format!(
                            "does not fit {} (select it with TCH_CASE): {error}",
                            case.id
                        ),
                    })?;
            }
        }
        let tools = match self.tools.take() {
            Some(tools) => tools,
            None => Arc::new(bundled_registry()?),
        };
        let hello = Hello {
            protocol: PROTOCOL_VERSION,
            name: self.name.clone(),
            dialects: self
                .selection
                .dialects
                .iter()
                .map(|d| d.name().to_owned())
                .collect(),
            definitions: false,
            output: self.output,
            non_streaming: C::NON_STREAMING,
            // Its `begin` may read the request's options, but nothing says it honours them:
            // the cases that set them are `n/a` (`specs/protocol.md` P6.2).
            options: Vec::new(),
            reproduction: None,
            starts_in_reasoning: self
                .starts_in_reasoning
                .iter()
                .map(|d| d.name().to_owned())
                .collect(),
        };
        let options = RunOptions {
            jobs: self.jobs,
            splits: self.splits.clone(),
            strict_latency: false,
            strict: false,
            scaling: Vec::new(),
            scaling_options: ScalingOptions::default(),
        };
        let started = Instant::now();
        let make = || Guarded::new(&self.make);
        let mut reports =
            runner::run_in_process(&hello, make, &cases, &tools, &options, &|_| {}).reports;
        for report in &mut reports {
            expectations.apply(report);
            for finding in &mut report.findings {
                finding.replay = replay_line(&report.case, finding.replay_chunks());
            }
        }
        let mut summary = Summary::of(&reports, started.elapsed());
        let root_causes = self.root_causes(&cases, &mut reports, &tools)?;
        summary.root_causes = RootCauseCounts::of(&root_causes);
        let run_report = RunReport {
            schema: report::json::SCHEMA,
            tch_version: env!("CARGO_PKG_VERSION"),
            candidate: CandidateInfo {
                argv: Vec::new(),
                name: hello.name.clone(),
                dialects: hello.dialects.clone(),
            },
            seed: self.splits.seed,
            splits: self
                .splits
                .kinds
                .iter()
                .map(|k| k.name().to_owned())
                .collect(),
            replay: replay_template(),
            summary,
            root_causes,
            cases: reports,
        };
        if let Some(dir) = &self.report_dir {
            write_reports(dir, &run_report, &hello, &tools, &cases)?;
        }
        if let Some(path) = self
            .expect_fail
            .as_ref()
            .filter(|_| env_var("TCH_WRITE_EXPECT_FAIL").is_some())
        {
            std::fs::write(path, expect::write(&run_report.cases, &expectations)).map_err(
                |error| CheckError::ExpectFail {
                    path: path.clone(),
                    error: error.to_string(),
                },
            )?;
        }
        Ok(Checked {
            rendered: render(
                &run_report,
                self.report_dir.as_deref(),
                self.expect_fail.as_deref(),
            ),
            report: run_report,
        })
    }

    /// The failing bug cases grouped into root causes, each case told its own.
    fn root_causes(
        &self,
        cases: &[Case],
        reports: &mut [CaseReport],
        tools: &Arc<Registry>,
    ) -> Result<Vec<RootCause>, CheckError> {
        let failing = FailingCase::of_run(reports, cases);
        if failing.is_empty() {
            return Ok(Vec::new());
        }
        let options = TriageOptions {
            budget: self.triage,
            ..TriageOptions::default()
        };
        let mut candidate = Guarded::new(&self.make);
        let mut roots = triage::triage(&failing, &mut candidate, tools, &options)?.root_causes;
        triage::number(&mut roots);
        for root in &mut roots {
            root.replay = replay_line(&root.case, None);
            for id in &root.cases {
                if let Some(report) = reports.iter_mut().find(|r| r.case == *id) {
                    report.root_cause = Some(root.id.clone());
                }
            }
        }
        Ok(roots)
    }
}

/// What a check found.
#[derive(Debug, Clone)]
pub struct Checked {
    /// Everything `tch run`'s `report.json` holds: the cases' reports, root causes, summary.
    pub report: RunReport,
    rendered: String,
}

impl Checked {
    /// The findings as `tch run` prints them: root causes, the first failing cases' findings
    /// with their replay lines, divergences, the closing line.
    pub fn render(&self) -> &str {
        &self.rendered
    }

    /// Whether nothing failed unexpectedly and some case was judged.
    pub fn passed(&self) -> bool {
        let summary = &self.report.summary;
        summary.failed == 0 && summary.stream_cases_judged > 0
    }

    /// Prints [`Checked::render`] (where `cargo test` captures it) and panics with the
    /// closing line unless [`Checked::passed`].
    #[track_caller]
    pub fn assert_passed(&self) {
        print!("{}", self.rendered);
        if !self.passed() {
            panic!(
                "tch: {} (root causes and findings above)",
                self.report.summary.line()
            );
        }
    }
}

/// The command that replays `case` (under `chunks`) through the same test.
/// How an in-process finding is replayed: the test again, narrowed by environment variables.
fn replay_template() -> ReplayTemplate {
    ReplayTemplate {
        command: "TCH_CASE={case}{chunks} cargo test".to_owned(),
        chunks: " TCH_CHUNKS={chunks}".to_owned(),
    }
}

fn replay_line(case: &str, chunks: Option<&ChunkSpec>) -> String {
    replay_template().fill(case, chunks.map(ToString::to_string).as_deref())
}

fn render(run: &RunReport, report_dir: Option<&Path>, expect_fail: Option<&Path>) -> String {
    let mut out: Vec<u8> = Vec::new();
    let options = TerminalOptions {
        colour: false,
        verdicts: Vec::new(),
        findings_per_case: 1,
    };
    let failing: Vec<CaseReport> = run
        .cases
        .iter()
        .filter(|r| r.status.fails_the_run())
        .take(CASES_SHOWN)
        .cloned()
        .collect();
    // Writing into a Vec<u8> cannot fail.
    let _ = terminal::print_root_causes(&mut out, &run.root_causes);
    let _ = terminal::print_failures(&mut out, &failing, &options);
    let _ = terminal::print_divergences(&mut out, &run.cases);
    let mut text = String::from_utf8_lossy(&out).into_owned();
    let summary = &run.summary;
    let more = summary.failed.saturating_sub(failing.len());
    if more > 0 {
        let _ = writeln!(
            text,
            "… {more} more failing cases{}",
            match report_dir {
                Some(dir) => format!(" in {}", dir.join("report.json").display()),
                None => " (Check::report_dir writes them all)".to_owned(),
            }
        );
    }
    if !run.root_causes.is_empty() {
        let _ = writeln!(text, "root causes: {}", summary.root_causes.headline());
    }
    if summary.failed > 0 {
        let _ = writeln!(
            text,
            "known failures go in {} (TCH_WRITE_EXPECT_FAIL=1 writes them)",
            expect_fail.map_or("an expect-fail file (Check::expect_fail)".to_owned(), |p| {
                p.display().to_string()
            })
        );
    }
    let _ = writeln!(
        text,
        "{} replays in {:.1} s; {}",
        summary.replays,
        summary.seconds,
        summary.line()
    );
    text
}

fn write_reports(
    dir: &Path,
    run: &RunReport,
    hello: &Hello,
    tools: &Registry,
    cases: &[Case],
) -> Result<(), CheckError> {
    let failed = |error| CheckError::Reports {
        path: dir.to_owned(),
        error,
    };
    run.write(dir, &ReportOptions::default()).map_err(failed)?;
    let bugs = dir.join("bugs");
    // Pages of an earlier run would outlive the root causes they describe.
    if bugs.exists() {
        std::fs::remove_dir_all(&bugs).map_err(failed)?;
    }
    let context = report::bugs::PageContext {
        hello,
        registry: tools,
    };
    report::bugs::write(&bugs, &run.root_causes, &context, &|root| {
        report::bugs::Pinned::of(root, cases)
    })
    .map_err(failed)?;
    Ok(())
}

fn read_expectations(path: &Path) -> Result<Expectations, CheckError> {
    let failed = |error: String| CheckError::ExpectFail {
        path: path.to_owned(),
        error,
    };
    match std::fs::read_to_string(path) {
        Ok(text) => Expectations::parse(&text).map_err(|e: ExpectError| failed(e.to_string())),
        // A ratchet starts from no file: the first run writes it.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            if env_var("TCH_WRITE_EXPECT_FAIL").is_some() {
                Ok(Expectations::default())
            } else {
                Err(failed(format!(
                    "{error} (TCH_WRITE_EXPECT_FAIL=1 cargo test writes it from the current failures)"
                )))
            }
        }
        Err(error) => Err(failed(error.to_string())),
    }
}

/// A variable's value, when set and not empty.
fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn names(dialects: &[Dialect]) -> String {
    dialects
        .iter()
        .map(|d| d.name())
        .collect::<Vec<_>>()
        .join(", ")
}
