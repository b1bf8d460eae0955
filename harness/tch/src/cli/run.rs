//! `tch run`: validate a candidate parser, in any language, against the corpus over the
//! protocol; print failures with diffs and replay commands; write reports.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use toolcall_harness::corpus::{self, Case, DefinitionCase};
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::glob;
use toolcall_harness::protocol::candidate::{Limits, split_command_line};
use toolcall_harness::runner::expect::{self, Expectations};
use toolcall_harness::runner::report::{CandidateInfo, RunReport, Summary};
use toolcall_harness::runner::{self, CaseReport, RunOptions, SplitKind, SplitOptions, Status};
use toolcall_harness::split;

/// Replay the corpus through a candidate parser over the protocol and judge every replay.
///
/// The candidate is any program speaking specs/protocol.md on stdin/stdout (see adapters/
/// for Python and Node templates); without one, `tch run` checks its own reference through
/// `tch serve`. Every case runs whole, cut at every point, one char per chunk, with empty
/// chunks, at random cuts and at tokenizer boundaries. Failures print with a diff and the
/// command that replays exactly that run. Exit status: 0 when nothing unexpected failed,
/// 1 otherwise, 2 when the run could not start (bad arguments, failed handshake).
///
/// Examples:
///   tch run -- python3 adapters/python/adapter.py
///   tch run --dialect hermes --case 'hermes/seed-*' --jobs 2 -- node my-parser.js
///   tch run --expect-fail known.txt --report-dir reports/mine -- ./my-parser
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct RunArgs {
    /// The candidate's command line, split like a shell would (no shell is run).
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with = "argv")]
    candidate: Option<String>,
    /// A corpus folder (`DIR/DIALECT/NAME.stream`); default: the corpus built into tch.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Only cases of this dialect (repeatable).
    #[arg(long, short)]
    dialect: Vec<Dialect>,
    /// Only cases whose id (`DIALECT/NAME`) matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    case: Vec<String>,
    /// Leave out cases whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    skip: Vec<String>,
    /// Splitting kinds to replay, comma-separated: whole, single, per-char, empty, random,
    /// tokens (default: all).
    #[arg(long, value_delimiter = ',', value_name = "KINDS")]
    splits: Vec<SplitKind>,
    /// How many seeded random multi-cuts per case.
    #[arg(long, default_value_t = 8, value_name = "N")]
    random: usize,
    /// Seed of the random cuts (a run is reproducible from its seed).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// At most N splittings per case (single cuts are thinned evenly beyond it).
    #[arg(long, default_value_t = 1000, value_name = "N")]
    budget: usize,
    /// Replay exactly these chunk byte lengths (and the whole stream), as failure reports print.
    #[arg(long, value_delimiter = ',', value_name = "LENGTHS")]
    chunks: Option<Vec<usize>>,
    /// Seconds to wait for each reply before the candidate is killed and restarted.
    #[arg(long, default_value_t = 5.0, value_name = "SECONDS")]
    timeout: f64,
    /// Candidate processes run in parallel (default: one per core, at most 8). Replays are
    /// bound by round trips over pipes more than by CPU: on 2 cores, 2 jobs ran 4.5 times as
    /// many replays per second as 1.
    #[arg(long, short, value_name = "N")]
    jobs: Option<usize>,
    /// Restarts (after crashes, hangs, garbage) before the remaining cases are skipped.
    #[arg(long, default_value_t = 25, value_name = "N")]
    max_restarts: usize,
    /// Fail cases whose candidate holds back text the reference has already released.
    #[arg(long)]
    strict_latency: bool,
    /// Known failures: lines of `CASE-GLOB [VERDICT-GLOB]`; listed cases that pass fail the run.
    #[arg(long, value_name = "FILE")]
    expect_fail: Option<PathBuf>,
    /// Write the current failures as an --expect-fail file (a ratchet for CI adoption).
    #[arg(long, value_name = "FILE")]
    write_expect_fail: Option<PathBuf>,
    /// Where report.json, junit.xml and summary.md go (default: reports/NAME/, NAME from the
    /// candidate's hello).
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// The candidate's argv, after `--`.
    #[arg(last = true, value_name = "CANDIDATE")]
    argv: Vec<String>,
}

pub fn run(args: RunArgs) -> Result<ExitCode> {
    let argv = candidate_argv(args.candidate.as_deref(), &args.argv)?;
    let expectations = match &args.expect_fail {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Expectations::parse(&text).with_context(|| path.display().to_string())?
        }
        None => Expectations::default(),
    };
    let cases = select_cases(&args)?;
    if let Some(lengths) = &args.chunks {
        for case in &cases {
            split::chunks_from_lengths(&case.stream, lengths).with_context(|| {
                format!(
                    "--chunks does not fit {} (select one case with --case)",
                    case.id
                )
            })?;
        }
    }
    let definition_cases = select_definition_cases(&args)?;
    let tools = Arc::new(bundled_registry()?);
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    let options = RunOptions {
        argv: argv.clone(),
        limits: Limits {
            timeout: Duration::from_secs_f64(args.timeout),
            ..Limits::default()
        },
        jobs: args
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get().min(8))),
        splits: SplitOptions {
            kinds: if args.splits.is_empty() {
                SplitKind::ALL.to_vec()
            } else {
                args.splits.clone()
            },
            random: args.random,
            seed: args.seed,
            budget: args.budget,
            chunks: args.chunks.clone(),
        },
        max_restarts: args.max_restarts,
        strict_latency: args.strict_latency,
    };

    let progress = progress_bar(cases.len());
    let started = Instant::now();
    let hello = toolcall_harness::protocol::candidate::Candidate::start(&argv, options.limits)
        .map(|c| {
            let hello = c.hello.clone();
            c.shutdown();
            hello
        })
        .context("the candidate could not start")?;
    let mut reports = runner::run(&cases, &tools, &options, &|report: &CaseReport| {
        progress.set_message(report.case.clone());
        progress.inc(1);
    })?;
    reports.extend(runner::definitions::run(
        &definition_cases,
        &options,
        hello.definitions,
    ));
    progress.finish_and_clear();
    for report in &mut reports {
        expectations.apply(report);
    }
    let summary = Summary::of(&reports, started.elapsed());

    let replay = |case: &CaseReport, chunks: &[usize]| replay_command(&args, &argv, case, chunks);
    print_failures(&reports, &replay)?;
    let run_report = RunReport {
        schema: 1,
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
        summary: summary.clone(),
        cases: reports,
    };
    let report_dir = args
        .report_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("reports").join(report_name(&hello.name, &argv)));
    run_report
        .write(&report_dir, &replay)
        .with_context(|| format!("cannot write reports to {}", report_dir.display()))?;
    if let Some(path) = &args.write_expect_fail {
        std::fs::write(path, expect::write(&run_report.cases))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    println!(
        "{} replays in {:.1} s ({:.0} replays/s); reports in {}",
        summary.replays,
        summary.seconds,
        summary.replays_per_second,
        report_dir.display()
    );
    println!("{}", summary.line());
    Ok(if summary.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The candidate's argv: from `--candidate`, after `--`, or `tch serve` itself.
pub(super) fn candidate_argv(candidate: Option<&str>, argv: &[String]) -> Result<Vec<String>> {
    if let Some(line) = candidate {
        let argv = split_command_line(line).map_err(|e| anyhow::anyhow!("--candidate: {e}"))?;
        if argv.is_empty() {
            bail!("--candidate is empty");
        }
        return Ok(argv);
    }
    if !argv.is_empty() {
        return Ok(argv.to_vec());
    }
    let me =
        std::env::current_exe().context("cannot find the tch executable to run `tch serve`")?;
    Ok(vec![me.to_string_lossy().into_owned(), "serve".into()])
}

fn select_cases(args: &RunArgs) -> Result<Vec<Case>> {
    let cases = match &args.corpus {
        Some(dir) => corpus::load_dir(dir)?,
        None => corpus::bundled_cases()?,
    };
    let selected: Vec<Case> = cases
        .into_iter()
        .filter(|c| args.dialect.is_empty() || args.dialect.contains(&c.dialect))
        .filter(|c| args.case.is_empty() || args.case.iter().any(|g| glob::matches(g, &c.id)))
        .filter(|c| !args.skip.iter().any(|g| glob::matches(g, &c.id)))
        .collect();
    if selected.is_empty() && select_definition_cases(args)?.is_empty() {
        bail!("no case matches the --dialect / --case / --skip selection");
    }
    Ok(selected)
}

/// Definition cases run unless `--dialect` narrows the run to stream dialects.
fn select_definition_cases(args: &RunArgs) -> Result<Vec<DefinitionCase>> {
    if !args.dialect.is_empty() {
        return Ok(Vec::new());
    }
    let cases = match &args.corpus {
        Some(dir) => {
            let folder = dir.join(corpus::DEFINITIONS_FOLDER);
            if folder.is_dir() {
                corpus::load_definition_cases(&folder)?
            } else {
                Vec::new()
            }
        }
        None => corpus::bundled_definition_cases()?,
    };
    Ok(cases
        .into_iter()
        .filter(|c| args.case.is_empty() || args.case.iter().any(|g| glob::matches(g, &c.id)))
        .filter(|c| !args.skip.iter().any(|g| glob::matches(g, &c.id)))
        .collect())
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

fn print_failures(
    reports: &[CaseReport],
    replay: &dyn Fn(&CaseReport, &[usize]) -> String,
) -> Result<()> {
    let colour = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let mut out = std::io::stdout().lock();
    for report in reports
        .iter()
        .filter(|r| matches!(r.status, Status::Failed | Status::Fixed))
    {
        let verdicts: Vec<&str> = report.findings.iter().map(|f| f.verdict.name()).collect();
        writeln!(
            out,
            "FAIL {} [{}]",
            report.case,
            if verdicts.is_empty() {
                "fixed".to_owned()
            } else {
                verdicts.join(", ")
            }
        )?;
        for finding in &report.findings {
            writeln!(
                out,
                "  {} under {} (chunk vector {:?}): {}",
                finding.verdict, finding.splitting, finding.chunks, finding.detail
            )?;
            for line in finding.diff.lines() {
                let painted = match line.chars().next() {
                    Some('+') if colour && !line.starts_with("+++") => {
                        format!("\x1b[32m{line}\x1b[0m")
                    }
                    Some('-') if colour && !line.starts_with("---") => {
                        format!("\x1b[31m{line}\x1b[0m")
                    }
                    _ => line.to_owned(),
                };
                writeln!(out, "    {painted}")?;
            }
            writeln!(out, "  replay: {}", replay(report, &finding.chunks))?;
        }
        for note in &report.notes {
            writeln!(out, "  note: {note}")?;
        }
    }
    Ok(())
}

/// The command that replays exactly one case under one chunk vector.
fn replay_command(args: &RunArgs, argv: &[String], case: &CaseReport, chunks: &[usize]) -> String {
    let mut words = vec!["tch".to_owned(), "run".to_owned()];
    if let Some(dir) = &args.corpus {
        words.extend(["--corpus".to_owned(), dir.display().to_string()]);
    }
    words.extend(["--case".to_owned(), case.case.clone()]);
    // What else shaped the run: the random cuts' seed and the timeout a verdict depended on.
    if args.seed != 0 {
        words.extend(["--seed".to_owned(), args.seed.to_string()]);
    }
    if args.timeout != 5.0 {
        words.extend(["--timeout".to_owned(), args.timeout.to_string()]);
    }
    if !chunks.is_empty() {
        let lengths: Vec<String> = chunks.iter().map(usize::to_string).collect();
        words.extend(["--chunks".to_owned(), lengths.join(",")]);
    }
    words.push("--".to_owned());
    words.extend(argv.iter().cloned());
    words
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ")
}

pub(super) fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,=:@+%".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `reports/NAME`: the candidate's hello name, else its program name, made path-safe.
fn report_name(hello_name: &str, argv: &[String]) -> String {
    let source = if hello_name.trim().is_empty() {
        argv.last().map(String::as_str).unwrap_or("candidate")
    } else {
        hello_name
    };
    let name: String = source
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches('-').to_owned();
    if name.is_empty() {
        "candidate".into()
    } else {
        name
    }
}
