//! `tch fuzz`: hunt a candidate's chunk-boundary bugs with generated streams, shrink each
//! failure to a minimal stream and chunk vector, and write it as a ready-to-commit corpus case.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::json;
use toolcall_harness::corpus::Case;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::fuzz::{FuzzFailure, FuzzOptions, FuzzStats, fuzz};
use toolcall_harness::report::Replay;
use toolcall_harness::report::rewrite::{drop_fuzz_times, render_fuzz};

use super::args::{CandidateArgs, SelectionArgs, ToolsArgs, dialect_parser};
use super::run::read_expectations;

/// Fuzz a candidate parser: generated streams under random and adversarial chunkings,
/// judged against the reference like `tch run` judges corpus cases.
///
/// Streams come from a grammar of every dialect's fragments (openers, closers, JSON and YAML
/// pieces, tag names, CRLF, emoji) and from mutations of the corpus's streams. Each is replayed
/// whole, one char per chunk, in chunks of 1 to 8 chars, at random cuts, around punctuation
/// and with cuts inside markup. The first failure of each verdict is shrunk (delta debugging:
/// the text, then the cuts) and written under --out as a corpus case: the stream, the
/// reference's events as expected events (review them before committing), and comments with
/// the verdicts and the command that replays it; --out/fuzz.json lists them for machines.
/// Everything follows from --seed.
///
/// Exit status: 0 when nothing failed unexpectedly (--expect-fail), 1 when something did, 2
/// when the campaign could not run (bad arguments, failed handshake, a dialect the candidate
/// does not speak).
///
/// Examples:
///   tch fuzz --dialect hermes --seconds 60 -- python3 my_parser.py
///   tch fuzz -d tag --streams 2000 --seed 7 --out fuzz-cases -- node parser.js
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct FuzzArgs {
    /// The dialect to fuzz.
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Dialect,
    /// Stop generating streams after this long.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    seconds: f64,
    /// Stop after this many streams (a budget independent of speed, for reproducible runs).
    #[arg(long, value_name = "N")]
    streams: Option<usize>,
    /// The generation prompt every stream continues (specs/streaming.md C9), sent in `begin`:
    /// `<|start|>assistant` for harmony, `<|im_start|>assistant\n<think>\n` to start inside
    /// reasoning. Without it, the dialect's default generation prompt (specs/streaming.md
    /// C9.4); `--prefill ''` for none.
    #[arg(long, value_name = "TEXT")]
    prefill: Option<String>,
    /// Seed of the campaign: the same seed and candidate give the same streams and chunkings.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where shrunk failures are written as corpus cases (DIR/DIALECT/fuzz-*.stream), and
    /// fuzz.json, the campaign's machine-readable report.
    #[arg(long, default_value = "reports/fuzz", value_name = "DIR")]
    out: PathBuf,
    /// Stop after this many unexpected failures (each of a verdict not seen before).
    #[arg(long, default_value_t = 3, value_name = "N")]
    max_failures: usize,
    /// Candidates one shrink may try (each costs two replays: whole and chunked).
    #[arg(long, default_value_t = 5000, value_name = "N")]
    shrink_tries: usize,
    /// Known failures: lines of `CASE-GLOB [VERDICT-GLOB]` (cases are named
    /// DIALECT/fuzz-VERDICT-HASH); a failure they list does not fail the campaign.
    #[arg(long, value_name = "FILE")]
    expect_fail: Option<PathBuf>,
    /// The corpus whose streams of the dialect are mutated (--case and --skip narrow it).
    #[command(flatten)]
    selection: SelectionArgs,
    /// With --corpus, the tools its cases were written for (the built-in corpus is written for
    /// the bundled ones).
    #[command(flatten)]
    tools: ToolsArgs,
    /// The candidate. Its reply timeout defaults to 1 s here: shrinking a hang waits that
    /// long per replay that hangs.
    #[command(flatten)]
    candidate: CandidateArgs,
}

/// `tch fuzz`'s default reply timeout, in seconds.
const DEFAULT_TIMEOUT: f64 = 1.0;

pub fn run(args: FuzzArgs) -> Result<ExitCode> {
    let argv = args.candidate.argv()?;
    let limits = args.candidate.limits(DEFAULT_TIMEOUT)?;
    if !(args.seconds >= 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be a number of seconds");
    }
    let expectations = read_expectations(args.expect_fail.as_deref())?;
    let seeds: Vec<String> = args
        .selection
        .selection(&[args.dialect])
        .stream_cases()?
        .into_iter()
        .map(|case| case.stream)
        .collect();
    let tools = args.tools.registry()?;
    let options = FuzzOptions {
        argv: argv.clone(),
        limits,
        dialect: args.dialect,
        prefill: args
            .prefill
            .clone()
            .unwrap_or_else(|| args.dialect.default_prefill().to_owned()),
        seed: args.seed,
        duration: Duration::from_secs_f64(args.seconds),
        max_streams: args.streams,
        max_failures: args.max_failures,
        shrink_tries: args.shrink_tries,
        expectations,
    };
    let replay = Replay {
        corpus: Some(args.out.clone()),
        seed: 0,
        timeout: Some(args.candidate.timeout(DEFAULT_TIMEOUT)),
        start_timeout: args.candidate.replayed_start_timeout(),
        report_dir: args.out.join("replay"),
        argv: argv.clone(),
    };
    let progress = spinner();
    let mut written = Vec::new();
    let mut write_error = None;
    let stats = fuzz(
        &options,
        seeds,
        &tools,
        &mut |stats| progress.set_message(counters(stats)),
        &mut |failure| {
            progress.suspend(|| match report_failure(&args, &replay, failure) {
                Ok(entry) => written.push(entry),
                Err(error) => write_error = Some(error),
            });
        },
    )
    .context("the campaign could not run")?;
    progress.finish_and_clear();
    if let Some(error) = write_error {
        return Err(error);
    }
    let mut report = json!({
        "schema": 1,
        "tchVersion": env!("CARGO_PKG_VERSION"),
        "candidate": { "argv": argv },
        "dialect": args.dialect.name(),
        "seed": args.seed,
        "stats": {
            "streams": stats.streams,
            "replays": stats.replays,
            "restarts": stats.restarts,
            "failures": stats.failures,
            "knownFailures": stats.known_failures,
            "shrinkSteps": stats.shrink_steps,
            "stoppedBy": stats.stopped.map(|why| why.option()),
            "seconds": stats.elapsed.as_secs_f64(),
            "replaysPerSecond": stats.replays_per_second(),
            "bySize": by_size_json(&stats),
        },
        "failures": written,
    });
    // fuzz.json holds what was found, timings.json what it took (specs/fuzzing.md Z4.6).
    let timings = json!({
        "schema": 1,
        "seconds": stats.elapsed.as_secs_f64(),
        "replaysPerSecond": stats.replays_per_second(),
        "bySize": by_size_json(&stats),
    });
    drop_fuzz_times(&mut report);
    for (name, json) in [("fuzz.json", &report), ("timings.json", &timings)] {
        std::fs::create_dir_all(&args.out)
            .and_then(|()| std::fs::write(args.out.join(name), render_fuzz(json)))
            .with_context(|| format!("cannot write {}", args.out.join(name).display()))?;
    }
    print!("{}", by_size_table(&stats));
    println!(
        "fuzzed {} for {:.1} s: {}; {} shrink steps; stopped: {}; report in {}",
        args.dialect,
        stats.elapsed.as_secs_f64(),
        counters(&stats),
        stats.shrink_steps,
        stats
            .stopped
            .map_or_else(|| "the campaign ended".to_owned(), |why| why.to_string()),
        args.out.join("fuzz.json").display()
    );
    Ok(if stats.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn counters(stats: &FuzzStats) -> String {
    format!(
        "{} streams, {} replays ({:.0}/s), {} restarts, {} failures, {} known",
        stats.streams,
        stats.replays,
        stats.replays_per_second(),
        stats.restarts,
        stats.failures,
        stats.known_failures
    )
}

/// Replay time by stream size (`specs/fuzzing.md` Z4.9), one line a bucket.
fn by_size_table(stats: &FuzzStats) -> String {
    let mut out =
        String::from("time per replay by stream size (replays without a fault or a restart):\n");
    for (label, _, _, bucket) in stats.by_size.rows() {
        let mean = bucket.mean().map_or("–".into(), |mean| {
            format!("{:.2} ms", mean.as_secs_f64() * 1e3)
        });
        let per_kib = bucket.per_kib().map_or("–".into(), |per_kib| {
            format!("{:.1} µs/KiB", per_kib.as_secs_f64() * 1e6)
        });
        out.push_str(&format!(
            "  {label:>10}: {:>7} replays, {mean:>10} each, {per_kib:>16}\n",
            bucket.replays
        ));
    }
    out
}

/// `stats.bySize` of fuzz.json: each bucket's bounds (`belowBytes` null for the last), its
/// timed replays, their bytes and seconds, the mean per replay and the time per KiB (null
/// without replays or bytes).
fn by_size_json(stats: &FuzzStats) -> serde_json::Value {
    let buckets = stats.by_size.rows().map(|(label, min, below, bucket)| {
        json!({
            "label": label,
            "minBytes": min,
            "belowBytes": below,
            "replays": bucket.replays,
            "bytes": bucket.bytes,
            "seconds": bucket.time.as_secs_f64(),
            "meanMicros": bucket.mean().map(|mean| mean.as_secs_f64() * 1e6),
            "microsPerKiB": bucket.per_kib().map(|per_kib| per_kib.as_secs_f64() * 1e6),
        })
    });
    serde_json::Value::Array(buckets.collect())
}

/// Prints a shrunk failure and writes it as a corpus case; returns its `fuzz.json` entry.
fn report_failure(
    args: &FuzzArgs,
    replay: &Replay,
    failure: &FuzzFailure,
) -> Result<serde_json::Value> {
    let shrunk = &failure.shrunk;
    let finding = &failure.finding;
    let case = Case {
        dialect: args.dialect,
        id: failure.case.clone(),
        stream: shrunk.stream.clone(),
        prefill: args
            .prefill
            .clone()
            .unwrap_or_else(|| args.dialect.default_prefill().to_owned()),
        request: toolcall_harness::protocol::RequestOptions::default(),
        expected: failure.expected.clone(),
        alternatives: Vec::new(),
        comments: Vec::new(),
    };
    let chunks = (!shrunk.cuts.is_empty()).then_some(&finding.chunks);
    let command = replay.command(&case.id, chunks);
    let comments = [
        format!(
            "Found by `tch fuzz --dialect {} --seed {}`",
            args.dialect, args.seed
        ),
        format!("against: {}", replay.argv.join(" ")),
        format!("verdicts: {}", finding.one_line()),
        format!("chunk vector: {}", finding.chunks),
        format!("replay: {command}"),
        "The expected events below are the reference's output for this stream: check them".into(),
        format!(
            "against specs/dialects/{}.md before committing the case.",
            args.dialect
        ),
    ];
    let path = case
        .write(&args.out, &comments)
        .with_context(|| format!("cannot write the case under {}", args.out.display()))?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{} {} {} (stream {}, under {}: {} chars, {} chunks), shrunk in {} steps ({} tries) to:",
        if failure.known { "KNOWN" } else { "FAIL" },
        finding.grade(),
        failure.target,
        failure.stream_number,
        failure.found_chunking.label,
        failure.found_stream.chars().count(),
        failure.found_chunking.cuts.len() + 1,
        shrunk.steps,
        shrunk.tries,
    )?;
    writeln!(out, "  stream: {}", serde_json::to_string(&shrunk.stream)?)?;
    writeln!(out, "  chunks: {}", finding.chunks)?;
    writeln!(
        out,
        "  {}: {} ({})",
        finding.grade(),
        finding.verdict_names(),
        finding.layer
    )?;
    for line in finding.detail.lines() {
        writeln!(out, "    {line}")?;
    }
    for line in finding.diff.lines() {
        writeln!(out, "      {line}")?;
    }
    writeln!(out, "  case:   {}", path.display())?;
    writeln!(out, "  replay: {command}")?;
    Ok(json!({
        "case": case.id,
        "path": path.display().to_string(),
        "target": failure.target,
        "severity": finding.severity,
        "verdicts": finding.verdicts,
        "layer": finding.layer,
        "known": failure.known,
        "streamNumber": failure.stream_number,
        "foundUnder": failure.found_chunking.label,
        "stream": shrunk.stream,
        "chunks": finding.chunks,
        "detail": finding.detail,
        "diff": finding.diff,
        "replay": command,
    }))
}

fn spinner() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {elapsed} {wide_msg}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
