//! `tch fuzz`: hunt a candidate's chunk-boundary bugs with generated streams, shrink each
//! failure to a minimal stream and chunk vector, and write it as a ready-to-commit corpus case.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use toolcall_harness::corpus::{self, Case};
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::fuzz::{FuzzFailure, FuzzOptions, FuzzStats, fuzz};
use toolcall_harness::protocol::candidate::Limits;
use toolcall_harness::split::{chunk_vector, chunks_at};

use super::run::{candidate_argv, shell_quote};

/// Fuzz a candidate parser: generated streams under random and adversarial chunkings,
/// judged against the reference like `tch run` judges corpus cases.
///
/// Streams come from a grammar of every dialect's fragments (openers, closers, JSON and YAML
/// pieces, tag names, CRLF, emoji) and from mutations of the corpus's streams. Each is replayed
/// whole, one char per chunk, in chunks of 1 to 8 chars, at random cuts, around punctuation
/// and with cuts inside markup. The first failure of each verdict is shrunk (delta debugging:
/// the text, then the cuts) and written under --out as a corpus case: the stream, the
/// reference's events as expected events (review them before committing), and comments with
/// the verdict and the command that replays it. Everything follows from --seed.
///
/// Exit status: 0 when nothing failed, 1 when something did, 2 when the campaign could not
/// run (bad arguments, failed handshake, a dialect the candidate does not speak).
///
/// Examples:
///   tch fuzz --dialect hermes --seconds 60 -- python3 my_parser.py
///   tch fuzz -d tag --streams 2000 --seed 7 --out fuzz-cases -- node parser.js
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct FuzzArgs {
    /// The dialect to fuzz.
    #[arg(long, short)]
    dialect: Dialect,
    /// Stop generating streams after this long.
    #[arg(long, default_value_t = 60.0, value_name = "SECONDS")]
    seconds: f64,
    /// Stop after this many streams (a budget independent of speed, for reproducible runs).
    #[arg(long, value_name = "N")]
    streams: Option<usize>,
    /// Seed of the campaign: the same seed and candidate give the same streams and chunkings.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where shrunk failures are written as corpus cases (DIR/DIALECT/fuzz-*.stream).
    #[arg(long, default_value = "reports/fuzz", value_name = "DIR")]
    out: PathBuf,
    /// Stop after this many failures (each of a verdict not seen before in the campaign).
    #[arg(long, default_value_t = 3, value_name = "N")]
    max_failures: usize,
    /// Candidates one shrink may try (each costs two replays: whole and chunked).
    #[arg(long, default_value_t = 5000, value_name = "N")]
    shrink_tries: usize,
    /// Seconds to wait for each reply. Shrinking a hang waits this long per replay that hangs,
    /// so the default is shorter than `tch run`'s.
    #[arg(long, default_value_t = 1.0, value_name = "SECONDS")]
    timeout: f64,
    /// A corpus folder whose streams of the dialect are mutated (default: the built-in corpus).
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// The candidate's command line, split like a shell would (no shell is run).
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with = "argv")]
    candidate: Option<String>,
    /// The candidate's argv, after `--` (default: `tch serve`, the reference itself).
    #[arg(last = true, value_name = "CANDIDATE")]
    argv: Vec<String>,
}

pub fn run(args: FuzzArgs) -> Result<ExitCode> {
    let argv = candidate_argv(args.candidate.as_deref(), &args.argv)?;
    if !(args.timeout > 0.0 && args.timeout.is_finite()) {
        bail!("--timeout must be a positive number of seconds");
    }
    if !(args.seconds >= 0.0 && args.seconds.is_finite()) {
        bail!("--seconds must be a number of seconds");
    }
    let cases = match &args.corpus {
        Some(dir) => corpus::load_dir(dir)?,
        None => corpus::bundled_cases()?,
    };
    let seeds: Vec<String> = cases
        .into_iter()
        .filter(|case| case.dialect == args.dialect)
        .map(|case| case.stream)
        .collect();
    let tools = Arc::new(bundled_registry()?);
    let options = FuzzOptions {
        argv: argv.clone(),
        limits: Limits {
            timeout: Duration::from_secs_f64(args.timeout),
            ..Limits::default()
        },
        dialect: args.dialect,
        seed: args.seed,
        duration: Duration::from_secs_f64(args.seconds),
        max_streams: args.streams,
        max_failures: args.max_failures,
        shrink_tries: args.shrink_tries,
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
            progress.suspend(|| match report_failure(&args, &argv, failure) {
                Ok(path) => written.push(path),
                Err(error) => write_error = Some(error),
            });
        },
    )
    .context("the campaign could not run")?;
    progress.finish_and_clear();
    if let Some(error) = write_error {
        return Err(error);
    }
    println!(
        "fuzzed {} for {:.1} s: {}; {} shrink steps",
        args.dialect,
        stats.elapsed.as_secs_f64(),
        counters(&stats),
        stats.shrink_steps
    );
    Ok(if stats.failures == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn counters(stats: &FuzzStats) -> String {
    format!(
        "{} streams, {} replays ({:.0}/s), {} restarts, {} failures",
        stats.streams,
        stats.replays,
        stats.replays_per_second(),
        stats.restarts,
        stats.failures
    )
}

/// Prints a shrunk failure and writes it as a corpus case; returns the stream file's path.
fn report_failure(args: &FuzzArgs, argv: &[String], failure: &FuzzFailure) -> Result<PathBuf> {
    let shrunk = &failure.shrunk;
    let chunks = chunk_vector(&chunks_at(&shrunk.stream, &shrunk.cuts));
    let name = case_name(failure);
    let case = Case {
        dialect: args.dialect,
        id: format!("{}/{name}", args.dialect),
        stream: shrunk.stream.clone(),
        expected: failure.expected.clone(),
    };
    let lengths = chunks
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut replay = vec![
        "tch".to_owned(),
        "run".to_owned(),
        "--corpus".to_owned(),
        args.out.display().to_string(),
        "--case".to_owned(),
        case.id.clone(),
    ];
    if args.timeout != 5.0 {
        replay.extend(["--timeout".to_owned(), args.timeout.to_string()]);
    }
    if !chunks.is_empty() {
        replay.extend(["--chunks".to_owned(), lengths.clone()]);
    }
    replay.push("--".to_owned());
    replay.extend(argv.iter().cloned());
    let replay = replay
        .iter()
        .map(|w| shell_quote(w))
        .collect::<Vec<_>>()
        .join(" ");
    let comments = [
        format!(
            "Found by `tch fuzz --dialect {} --seed {}`",
            args.dialect, args.seed
        ),
        format!("against: {}", argv.join(" ")),
        format!(
            "verdict: {}: {}",
            failure.verdict,
            failure.detail.lines().next().unwrap_or_default()
        ),
        format!("chunk vector: [{lengths}]"),
        format!("replay: {replay}"),
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
        "FAIL {} (stream {}, under {}: {} chars, {} chunks), shrunk in {} steps ({} tries) to:",
        failure.verdict,
        failure.stream_number,
        failure.chunking,
        failure.found_stream.chars().count(),
        failure.found_cuts.len() + 1,
        shrunk.steps,
        shrunk.tries,
    )?;
    writeln!(out, "  stream: {}", serde_json::to_string(&shrunk.stream)?)?;
    writeln!(out, "  chunks: [{lengths}]")?;
    writeln!(out, "  {}", failure.detail)?;
    for line in failure.diff.lines() {
        writeln!(out, "    {line}")?;
    }
    writeln!(out, "  case:   {}", path.display())?;
    writeln!(out, "  replay: {replay}")?;
    Ok(path)
}

/// `fuzz-VERDICT-HASH`: stable for the same shrunk stream and chunking.
fn case_name(failure: &FuzzFailure) -> String {
    let mut hasher = DefaultHasher::new();
    failure.shrunk.stream.hash(&mut hasher);
    failure.shrunk.cuts.hash(&mut hasher);
    format!("fuzz-{}-{:08x}", failure.verdict, hasher.finish() as u32)
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
