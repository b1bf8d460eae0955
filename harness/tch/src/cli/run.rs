//! `tch run`: validate a candidate parser, in any language, against the corpus over the
//! protocol; print failures with diffs and replay commands; write reports.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use toolcall_harness::corpus::{Case, Selection};
use toolcall_harness::dialect::Dialect;
use toolcall_harness::judge::expect::{self, Expectations};
use toolcall_harness::judge::{CaseReport, Verdict};
use toolcall_harness::protocol::Hello;
use toolcall_harness::report::terminal::{
    TerminalOptions, print_divergences, print_failures, print_root_causes,
    print_scaling_near_threshold,
};
use toolcall_harness::report::{
    CandidateInfo, Replay, ReportOptions, RootCauseCounts, RunReport, Summary, bugs,
    candidate_stem, json,
};
use toolcall_harness::runner::{self, RunError, RunOptions};
use toolcall_harness::scaling::{self, Family, ScalingOptions};
use toolcall_harness::split::{ChunkSpec, SplitKind, SplitOptions};
use toolcall_harness::supervisor::{RestartPolicy, Supervisor};
use toolcall_harness::tools::Registry;
use toolcall_harness::triage::{self, Budget, FailingCase, RootCause, TriageOptions};

use super::args::{
    CandidateArgs, SelectionArgs, ToolsArgs, dialect_parser, split_kind_parser, verdict_parser,
};

/// Replay the corpus through a candidate parser over the protocol and judge every replay.
///
/// The candidate is any program speaking specs/protocol.md on stdin/stdout (see adapters/
/// for Python and Node templates); without one, `tch run` checks its own reference through
/// `tch serve`. Every case runs whole, cut at every point, one char per chunk, with empty
/// chunks, at random cuts and at tokenizer boundaries. Each failing replay is one finding:
/// its verdicts, its layer (conformance: wrong under the whole stream too; streaming: only
/// under some chunkings, or flaky), a diff and the command that replays exactly that run.
///
/// A candidate whose hello says "nonStreaming": true also gets each case's whole reply in one
/// `non-streaming` request (its parser's non-streaming path: extract_tool_calls,
/// parse_complete, generateText), one more replay labelled non-streaming; an answer other
/// than its streamed whole stream's is `non-streaming-differs` (streaming layer).
///
/// Then, alone, the scaling cases (DIALECT/scaling/FAMILY): each dialect's streams fed at
/// doubling sizes, to judge whether time grows faster than the stream (`superlinear`;
/// `tch scale` prints the figures; --no-scaling skips them).
///
/// A case whose output differs from tch's reading only by following a documented alternative
/// reading of a choice rule (an engine's legitimate reading of a point the format leaves open;
/// corpus/DIALECT/NAME.alt-READING.events.jsonl) is a divergence: shown apart from bugs, with
/// its reading, and no failure unless --strict.
///
/// Exit status: 0 when nothing unexpected failed and some stream case was judged; 1 when
/// something failed, or no stream case could be judged; 2 when the run could not start (bad
/// arguments, a failed hello, a candidate that speaks none of the selected dialects).
///
/// Examples:
///   tch run -- python3 adapters/python/adapter.py
///   tch run --dialect hermes --case 'hermes/seed-*' --jobs 2 -- node my-parser.js
///   tch run --expect-fail known.txt --report-dir reports/mine -- ./my-parser
///   tch run --verdict chunk-dependent --chunks 1x40,3 --case hermes/x -- ./my-parser
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    #[command(flatten)]
    selection: SelectionArgs,
    /// With --corpus, the tools its cases were written for (the built-in corpus is written for
    /// the bundled ones).
    #[command(flatten)]
    tools: ToolsArgs,
    /// Only cases of this dialect (repeatable).
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Vec<Dialect>,
    /// Kinds of chunking to replay, comma-separated (default: all but pair).
    #[arg(long, value_delimiter = ',', value_name = "KINDS", value_parser = split_kind_parser())]
    splits: Vec<SplitKind>,
    /// How many seeded random multi-cuts per case.
    #[arg(long, default_value_t = 8, value_name = "N")]
    random: usize,
    /// Seed of the random cuts (a run is reproducible from its seed).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// At most N chunkings per case: beyond it, single cuts are kept at the dialect's
    /// markers and the stream's ends, then a seeded sample (pairs thinned evenly).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    budget: usize,
    /// Replay exactly this chunk vector (and the whole stream), as failures print it:
    /// `per-char`, or byte lengths like `1,5,3` or `1x97,3` (97 one-byte chunks, then 3).
    #[arg(long, value_name = "CHUNKS")]
    chunks: Option<ChunkSpec>,
    #[command(flatten)]
    candidate: CandidateArgs,
    /// Candidate processes run in parallel (default: one per core, at most 8). Each is
    /// started once, and again only after a fault.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Restarts (after crashes, hangs, garbage) before the remaining cases are skipped.
    #[arg(long, default_value_t = 25, value_name = "N")]
    max_restarts: usize,
    /// Fail cases whose candidate holds back text the reference has already released.
    #[arg(long)]
    strict_latency: bool,
    /// Fail cases whose output follows a documented alternative reading of a choice rule
    /// (a "divergence": reported apart from bugs and not a failure by default), for a parser
    /// that means to follow tch's reading (specs/runner.md R3.5).
    #[arg(long)]
    strict: bool,
    /// Known failures: lines of `CASE-GLOB [VERDICT-GLOB]`; listed cases that pass fail the run.
    #[arg(long, value_name = "FILE")]
    expect_fail: Option<PathBuf>,
    /// Write the current failures as an --expect-fail file (a ratchet for CI adoption), keeping
    /// the reasons --expect-fail gave them; the reports are judged against the file written,
    /// the terminal and exit status against --expect-fail.
    #[arg(long, value_name = "FILE")]
    write_expect_fail: Option<PathBuf>,
    /// Print only failures with this verdict (repeatable); reports keep everything.
    #[arg(long, value_name = "VERDICT", value_parser = verdict_parser())]
    verdict: Vec<Verdict>,
    /// At most N findings printed per failing case (report.json has them all).
    #[arg(long, default_value_t = 3, value_name = "N")]
    findings: usize,
    /// Where report.json, junit.xml and summary.md go (default: reports/NAME/, NAME from the
    /// candidate's hello). Printed replay commands write to DIR/replay instead.
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// Keep n/a cases (dialects the candidate does not speak) in junit.xml, as skipped.
    #[arg(long)]
    junit_not_applicable: bool,
    /// Wall time, in seconds, to group the failing cases into root causes (specs/runner.md
    /// §9): each failing case's worst bug finding is shrunk against the candidate to a minimal
    /// stream and chunk vector, worst first, and failures that shrink to the same shape with
    /// the same verdicts are one root cause, with a page in REPORT_DIR/bugs/. 0 groups them
    /// without shrinking.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    triage_seconds: f64,
    /// Shrink for at most N replays instead of --triage-seconds: the same root causes on
    /// every machine and under any load, for reports that are committed and must not change
    /// from run to run (reports/regenerate uses it; specs/runner.md R9.5).
    #[arg(long, value_name = "N", conflicts_with = "triage_seconds")]
    triage_replays: Option<usize>,
    /// Skip the scaling cases (`DIALECT/scaling/FAMILY`): after the corpus, each dialect's
    /// streams are fed at doubling sizes to judge whether time grows faster than the stream
    /// (verdict `superlinear`; a few seconds for a linear candidate). They are selected like
    /// any case by --dialect, --case and --skip, and never run with --chunks.
    #[arg(long)]
    no_scaling: bool,
}

/// `tch run`'s default reply timeout, in seconds.
const DEFAULT_TIMEOUT: f64 = 5.0;

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let argv = args.candidate.argv()?;
    let limits = args.candidate.limits(DEFAULT_TIMEOUT)?;
    let expectations = read_expectations(args.expect_fail.as_deref())?;
    let selection = args.selection.selection(&args.dialect);
    let cases = selection.stream_cases()?;
    let definition_cases = selection.definition_cases()?;
    let scaling = scaling_series(&args, &selection, &cases);
    if cases.is_empty() && definition_cases.is_empty() && scaling.is_empty() {
        bail!("no case matches the --dialect / --case / --skip selection");
    }
    if let Some(spec) = &args.chunks {
        for case in &cases {
            spec.cuts(&case.stream).with_context(|| {
                format!(
                    "--chunks {spec} does not fit {} (select one case with --case)",
                    case.id
                )
            })?;
        }
    }
    let tools = args.tools.registry()?;
    let options = RunOptions {
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get().min(8))),
        splits: SplitOptions {
            kinds: if args.splits.is_empty() {
                SplitKind::defaults()
            } else {
                args.splits.clone()
            },
            random: args.random,
            seed: args.seed,
            budget: args.budget,
            chunks: args.chunks.clone(),
        },
        strict_latency: args.strict_latency,
        strict: args.strict,
        scaling,
        scaling_options: scaling_options(),
    };
    let supervisor = Supervisor::new(
        argv.clone(),
        limits,
        RestartPolicy {
            max_restarts: args.max_restarts,
            max_failed_starts: usize::MAX,
        },
    );

    let progress = progress_bar(cases.len() + definition_cases.len() + options.scaling.len());
    let started = Instant::now();
    let outcome = runner::run(
        &supervisor,
        &cases,
        &definition_cases,
        &tools,
        &options,
        &|report: &CaseReport| {
            progress.set_message(report.case.clone());
            progress.inc(1);
        },
    );
    progress.finish_and_clear();
    let outcome = match outcome {
        Ok(outcome) => outcome,
        Err(RunError::Start(error)) => {
            return Err(error).context("the candidate could not start");
        }
        Err(error) => return Err(error.into()),
    };
    let mut reports = outcome.reports;
    for report in &mut reports {
        expectations.apply(report);
    }
    let mut summary = Summary::of(&reports, started.elapsed());
    summary.scaling_off = if args.no_scaling {
        Some("--no-scaling".to_owned())
    } else {
        args.chunks.as_ref().map(|_| "--chunks".to_owned())
    };
    let hello = outcome.hello;
    let report_dir = args
        .report_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join(candidate_stem(&hello.name, &argv)));
    let replay = Replay {
        corpus: args.selection.corpus.clone(),
        seed: args.seed,
        timeout: args.candidate.timeout,
        start_timeout: args.candidate.replayed_start_timeout(),
        report_dir: report_dir.join("replay"),
        argv: argv.clone(),
    };
    replay.set_commands(&mut reports);
    let root_causes = root_causes(
        &supervisor,
        &hello,
        &cases,
        &mut reports,
        &tools,
        &replay,
        &report_dir,
        match args.triage_replays {
            Some(replays) => Budget::Replays(replays),
            None => Budget::Time(Duration::from_secs_f64(args.triage_seconds.max(0.0))),
        },
    )?;
    summary.root_causes = RootCauseCounts::of(&root_causes);
    let colour = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    print_failures(
        &mut std::io::stdout().lock(),
        &reports,
        &TerminalOptions {
            colour,
            verdicts: args.verdict.clone(),
            findings_per_case: args.findings,
        },
    )?;
    print_divergences(&mut std::io::stdout().lock(), &reports)?;
    print_scaling_near_threshold(&mut std::io::stdout().lock(), &reports)?;
    // R6.1: with --write-expect-fail the reports are judged against the file it writes (the
    // run's failures known, fixed lines gone), so that the folder agrees with itself and the
    // next run finds it unchanged; the terminal and the exit status judge against
    // --expect-fail, to show what changed.
    let written_expectations = args
        .write_expect_fail
        .as_ref()
        .map(|path| (path, expect::write(&reports, &expectations)));
    let mut file_summary = summary.clone();
    if let Some((_, text)) = &written_expectations {
        let written = Expectations::parse(text).context("the written --expect-fail file")?;
        for report in &mut reports {
            written.rejudge(report);
        }
        file_summary = Summary {
            scaling_off: summary.scaling_off.clone(),
            root_causes: summary.root_causes.clone(),
            ..Summary::of(&reports, started.elapsed())
        };
    }
    let run_report = RunReport {
        schema: json::SCHEMA,
        tch_version: env!("CARGO_PKG_VERSION"),
        candidate: CandidateInfo {
            argv: argv.clone(),
            name: hello.name.clone(),
            dialects: hello.dialects.clone(),
        },
        seed: args.seed,
        splits: options
            .splits
            .kinds
            .iter()
            .map(|k| k.name().to_owned())
            .collect(),
        replay: replay.template(),
        summary: file_summary,
        root_causes,
        cases: reports,
    };
    run_report
        .write(
            &report_dir,
            &ReportOptions {
                junit_not_applicable: args.junit_not_applicable,
            },
        )
        .with_context(|| format!("cannot write reports to {}", report_dir.display()))?;
    let context = bugs::PageContext {
        hello: &hello,
        registry: &tools,
    };
    bugs::write(
        &report_dir.join("bugs"),
        &run_report.root_causes,
        &context,
        &|root| bugs::Pinned::of(root, &cases),
    )
    .with_context(|| format!("cannot write {}", report_dir.join("bugs").display()))?;
    if let Some((path, text)) = &written_expectations {
        std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
        println!(
            "known failures written to {}; the reports are judged against it (R6.1)",
            path.display()
        );
    }
    if !summary.failed_by_severity.is_empty() {
        println!("failing cases by severity: {}", summary.severities());
    }
    print_root_causes(&mut std::io::stdout().lock(), &run_report.root_causes)?;
    if !run_report.root_causes.is_empty() {
        println!(
            "root causes: {}; pages in {}",
            summary.root_causes.headline(),
            report_dir.join("bugs").display()
        );
    }
    if summary.divergent > 0 {
        println!(
            "divergences: {} cases follow a documented alternative reading, not tch's (no bug; --strict fails them)",
            summary.divergent
        );
    }
    println!(
        "{} replays in {:.1} s ({:.0} replays/s); {}; reports in {}",
        summary.replays,
        summary.seconds,
        summary.replays_per_second,
        summary.layers(),
        report_dir.display()
    );
    // A run that judged no stream case tested nothing, unless nothing was asked for.
    let judged_nothing = !cases.is_empty() && summary.stream_cases_judged == 0;
    if judged_nothing {
        println!(
            "no stream case was judged (of {} selected): see the notes above",
            cases.len()
        );
    }
    println!("{}", summary.line());
    Ok(if summary.failed == 0 && !judged_nothing {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The run's failing bug cases grouped into root causes (specs/runner.md §9), worst first:
/// shrunk against the candidate within `budget`, each failing case told its root cause, the
/// minimal replays written as cases under REPORT_DIR/bugs/corpus with their replay commands.
#[allow(clippy::too_many_arguments)]
fn root_causes(
    supervisor: &Supervisor,
    hello: &Hello,
    cases: &[Case],
    reports: &mut [CaseReport],
    tools: &Arc<Registry>,
    replay: &Replay,
    report_dir: &Path,
    budget: Budget,
) -> Result<Vec<RootCause>> {
    let failing = FailingCase::of_run(reports, cases);
    let mut roots = Vec::new();
    if !failing.is_empty() {
        let within = match budget {
            Budget::Time(limit) => format!("{} s, --triage-seconds", limit.as_secs_f64()),
            Budget::Replays(limit) => format!("{limit} replays, --triage-replays"),
        };
        eprintln!(
            "triage: {} failing cases into root causes (shrinking for at most {within})",
            failing.len()
        );
        let options = TriageOptions {
            budget,
            ..TriageOptions::default()
        };
        let mut handle = supervisor.handle(hello);
        let triaged = triage::triage(&failing, &mut handle, tools, &options);
        handle.shutdown();
        let triaged = triaged.context("triage")?;
        if let Some(why) = &triaged.stopped {
            eprintln!(
                "triage: {why}; {} of {} cases shrunk",
                triaged.cases_shrunk,
                failing.len()
            );
        }
        roots = triaged.root_causes;
    }
    roots.extend(triage::scaling_root_causes(reports));
    triage::number(&mut roots);
    let dir = report_dir.join("bugs");
    // Pages and cases of an earlier run would outlive the root causes they describe.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("cannot clear {}", dir.display()))?;
    }
    bugs::write_cases(&dir.join("corpus"), &mut roots, replay)
        .with_context(|| format!("cannot write {}", dir.display()))?;
    for root in &roots {
        for id in &root.cases {
            if let Some(report) = reports.iter_mut().find(|r| r.case == *id) {
                report.root_cause = Some(root.id.clone());
            }
        }
    }
    Ok(roots)
}

/// The scaling cases selected (`specs/runner.md` R8.1): by --dialect, --case and --skip like
/// any case; with --corpus, only for dialects it has cases of; none with --chunks or
/// --no-scaling.
fn scaling_series(args: &RunArgs, selection: &Selection, cases: &[Case]) -> Vec<(Dialect, Family)> {
    if args.no_scaling || args.chunks.is_some() {
        return Vec::new();
    }
    Dialect::ALL
        .iter()
        .copied()
        .filter(|d| args.dialect.is_empty() || args.dialect.contains(d))
        .filter(|d| args.selection.corpus.is_none() || cases.iter().any(|c| c.dialect == *d))
        .flat_map(|d| Family::ALL.map(|f| (d, f)))
        .filter(|&(d, f)| selection.selects(&scaling::case_id(d, f)))
        .collect()
}

/// How the scaling cases' series grow: `tch scale` feeds the same at its default
/// `--chunk-size` (`specs/runner.md` R8.5).
pub(super) fn scaling_options() -> ScalingOptions {
    ScalingOptions::default()
}

/// The `--expect-fail` file's known failures; none without one.
pub(super) fn read_expectations(path: Option<&Path>) -> Result<Expectations> {
    let Some(path) = path else {
        return Ok(Expectations::default());
    };
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Expectations::parse(&text).with_context(|| path.display().to_string())
}

fn progress_bar(len: usize) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} cases {elapsed} {wide_msg}")
    {
        bar.set_style(style);
    }
    bar
}
