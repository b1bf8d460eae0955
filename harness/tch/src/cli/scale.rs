//! `tch scale`: how a parser's time grows with its input (`specs/runner.md` §8), as figures:
//! the doubling series `tch run` judges, or one size timed (`--size`), through a candidate
//! over the protocol or through the reference in this process.

use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::judge::{CaseReport, Status};
use toolcall_harness::scaling::{
    self, Family, Feed, InProcess, OverProtocol, ScalingOptions, Series, WALL_TIME_CAUTION,
    human_bytes,
};
use toolcall_harness::split::fixed_size_chunks;
use toolcall_harness::supervisor::{ReplayError, RestartPolicy, Supervisor};

use super::args::{CandidateArgs, ToolsArgs, dialect_parser};

/// Time a parser on streams that grow: find out whether its cost is linear.
///
/// Per dialect, three families of streams grow one way each: `one-call` (one call whose
/// string argument grows), `prose` (text only) and `many-calls` (a paragraph then a small
/// call, again and again). Each is fed in fixed-size chunks at sizes doubling from 4 KiB
/// while a replay takes less than 0.25 s (up to 256 KiB; to 512 KiB while growth looks
/// superlinear), and the growth over the largest three sizes that took 10 ms or more is
/// judged, on the CPU time of the candidate's processes (Linux; wall time elsewhere), so
/// that a loaded machine does not turn it: `superlinear` when doubling the stream more than 2^1.5 times the time. This is what `tch run` reports as the cases
/// DIALECT/scaling/FAMILY; `tch scale` prints the figures.
///
/// With `--size`, one size is timed (the fastest of `--repeat` replays) and printed as one
/// line per chunk size: for side-by-side tables of parsers.
///
/// Exit status: 0, or 1 when a series is superlinear or a replay failed; 2 on bad arguments.
///
/// Examples:
///   tch scale --dialect hermes -- node my-parser.js
///   tch scale --dialect hermes --family one-call --size 1MiB --chunk-size 1,4,30 --in-process
///   tch scale --dialect qwen3-coder --size 256KiB --deadline 60 -- ./my-parser
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct ScaleArgs {
    /// Dialects to time (repeatable; default: every dialect the candidate speaks).
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Vec<Dialect>,
    /// Families of streams (repeatable; default: all three).
    #[arg(long, value_delimiter = ',', value_parser = family_parser())]
    family: Vec<Family>,
    /// Chunk sizes in bytes, comma-separated (a chunk never splits a char).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "64",
        value_name = "BYTES"
    )]
    chunk_size: Vec<usize>,
    /// Time this one size (`1MiB`, `256KiB`, `4096`) instead of the doubling series.
    #[arg(long, value_parser = parse_size, value_name = "SIZE")]
    size: Option<usize>,
    /// With --size, replays per figure; the fastest counts.
    #[arg(long, default_value_t = 1, value_name = "N")]
    repeat: usize,
    /// With --size, stop a replay that runs past this many seconds (its figure reads `> N s`).
    #[arg(long, value_name = "SECONDS")]
    deadline: Option<f64>,
    /// Time the reference parser in this process instead of a candidate.
    #[arg(long, conflicts_with_all = ["candidate", "argv"])]
    in_process: bool,
    /// Print JSON lines instead of tables.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    tools: ToolsArgs,
    #[command(flatten)]
    candidate: CandidateArgs,
}

/// `--family`'s values, listed in `--help`.
fn family_parser() -> impl clap::builder::TypedValueParser<Value = Family> {
    use clap::builder::TypedValueParser;
    clap::builder::PossibleValuesParser::new(Family::ALL.map(|f| f.name()))
        .try_map(|name| name.parse::<Family>())
}

/// `1MiB`, `256KiB`, `64kib` or a number of bytes.
fn parse_size(text: &str) -> Result<usize, String> {
    let lower = text.trim().to_ascii_lowercase();
    let (number, unit) = match lower.find(|c: char| !c.is_ascii_digit()) {
        Some(at) => lower.split_at(at),
        None => (lower.as_str(), ""),
    };
    let scale = match unit.trim() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        _ => return Err(format!("{text:?} is not a size: write 4096, 64KiB or 1MiB")),
    };
    match number.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n * scale),
        _ => Err(format!("{text:?} is not a size: write 4096, 64KiB or 1MiB")),
    }
}

pub fn run(args: ScaleArgs) -> Result<ExitCode> {
    if args.chunk_size.contains(&0) {
        bail!("--chunk-size must be at least 1 byte");
    }
    let deadline = match args.deadline {
        Some(s) if s > 0.0 && s.is_finite() => Some(Duration::from_secs_f64(s)),
        Some(_) => bail!("--deadline must be a positive number of seconds"),
        None => None,
    };
    let tools = args.tools.registry()?;
    let families = if args.family.is_empty() {
        Family::ALL.to_vec()
    } else {
        args.family.clone()
    };
    if args.in_process {
        let dialects = if args.dialect.is_empty() {
            Dialect::ALL.to_vec()
        } else {
            args.dialect.clone()
        };
        let mut feed = InProcess::new(tools);
        return report(&args, &mut feed, &dialects, &families, "reference");
    }
    let argv = args.candidate.argv()?;
    let limits = args.candidate.limits(5.0)?;
    let supervisor = Supervisor::new(
        argv,
        limits,
        RestartPolicy {
            max_restarts: 25,
            max_failed_starts: 1,
        },
    );
    let mut handle = supervisor
        .start()
        .context("the candidate could not start")?;
    let spoken = handle.hello().dialects.clone();
    let name = handle.hello().name.clone();
    let dialects: Vec<Dialect> = if args.dialect.is_empty() {
        spoken.iter().filter_map(|d| d.parse().ok()).collect()
    } else {
        let unspoken: Vec<&str> = args
            .dialect
            .iter()
            .map(|d| d.name())
            .filter(|d| !spoken.iter().any(|s| s == d))
            .collect();
        if !unspoken.is_empty() {
            handle.shutdown();
            bail!(
                "the candidate does not speak {} (its hello lists [{}])",
                unspoken.join(", "),
                spoken.join(", ")
            );
        }
        args.dialect.clone()
    };
    let mut feed = OverProtocol::new(&mut handle, &tools, deadline);
    let code = report(&args, &mut feed, &dialects, &families, &name);
    handle.shutdown();
    code
}

/// The options of a series in `chunk_bytes`-byte chunks: `tch run`'s own (64-byte chunks) at
/// the default `--chunk-size`.
fn series_options(chunk_bytes: usize) -> ScalingOptions {
    ScalingOptions {
        chunk_bytes,
        ..super::run::scaling_options()
    }
}

/// One series measured and judged as `tch run` judges its case DIALECT/scaling/FAMILY: by
/// the same function, [`scaling::judge`].
fn judge_series(
    feed: &mut dyn Feed,
    dialect: Dialect,
    family: Family,
    options: &ScalingOptions,
) -> CaseReport {
    let mut reports = scaling::judge(feed, &[(dialect, family)], options, &|_| {});
    reports.remove(0)
}

/// Times every dialect × family × chunk size and prints it; exit 1 when anything is
/// superlinear or failed.
fn report(
    args: &ScaleArgs,
    feed: &mut dyn Feed,
    dialects: &[Dialect],
    families: &[Family],
    name: &str,
) -> Result<ExitCode> {
    let mut bad = false;
    let mut near = false;
    for &dialect in dialects {
        for &family in families {
            for &chunk_bytes in &args.chunk_size {
                match args.size {
                    Some(bytes) => {
                        let timed =
                            time_size(feed, dialect, family, bytes, chunk_bytes, args.repeat);
                        bad |= timed.is_err();
                        print_size(args, name, dialect, family, bytes, chunk_bytes, &timed);
                    }
                    None => {
                        let case =
                            judge_series(feed, dialect, family, &series_options(chunk_bytes));
                        bad |= case.status.fails_the_run() || case.scaling.is_none();
                        near |= case.scaling.as_ref().is_some_and(Series::near_threshold);
                        print_case(args, name, &case, chunk_bytes)?;
                    }
                }
            }
        }
    }
    if args.size.is_none() && !args.json {
        let default = super::run::scaling_options();
        let differs =
            args.chunk_size.iter().any(|&c| c != default.chunk_bytes) || args.deadline.is_some();
        println!(
            "{}",
            if differs {
                format!(
                    "judged as tch run judges DIALECT/scaling/FAMILY, but not its series: tch run feeds {}-byte chunks with no --deadline",
                    default.chunk_bytes
                )
            } else {
                "the series and the judgement of tch run's cases DIALECT/scaling/FAMILY (specs/runner.md §8)".to_owned()
            }
        );
        if near {
            println!("{WALL_TIME_CAUTION}");
        }
    }
    Ok(if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The fastest of `repeat` replays of one size.
fn time_size(
    feed: &mut dyn Feed,
    dialect: Dialect,
    family: Family,
    bytes: usize,
    chunk_bytes: usize,
    repeat: usize,
) -> Result<f64, ReplayError> {
    let stream = family.stream(dialect, bytes);
    let chunks = fixed_size_chunks(&stream, chunk_bytes).unwrap_or_default();
    let mut best = f64::INFINITY;
    for _ in 0..repeat.max(1) {
        best = best.min(feed.feed(dialect, &chunks)?.wall.as_secs_f64());
    }
    Ok(best)
}

fn print_size(
    args: &ScaleArgs,
    name: &str,
    dialect: Dialect,
    family: Family,
    bytes: usize,
    chunk_bytes: usize,
    timed: &Result<f64, ReplayError>,
) {
    if args.json {
        let (seconds, error) = match timed {
            Ok(s) => (serde_json::json!(s), serde_json::Value::Null),
            Err(e) => (serde_json::Value::Null, serde_json::json!(e.to_string())),
        };
        println!(
            "{}",
            serde_json::json!({
                "parser": name, "dialect": dialect.name(), "family": family.name(),
                "bytes": bytes, "chunkBytes": chunk_bytes, "seconds": seconds, "error": error,
            })
        );
        return;
    }
    let figure = match timed {
        Ok(seconds) => format!(
            "{:>10.1} ms {:>9.1} MB/s",
            seconds * 1e3,
            bytes as f64 / seconds / 1e6
        ),
        Err(error) => error.to_string(),
    };
    println!(
        "{name} {dialect} {family} {} in {chunk_bytes}-byte chunks: {figure}",
        human_bytes(bytes)
    );
}

/// A series as `tch run` would report its case: the figures, the judgement, the case's
/// status; a fault (no series) as its finding.
fn print_case(args: &ScaleArgs, name: &str, case: &CaseReport, chunk_bytes: usize) -> Result<()> {
    let status = match case.status {
        Status::Passed => "passed".to_owned(),
        Status::Skipped => "skipped (not judged)".to_owned(),
        _ => format!(
            "failed ({})",
            case.verdicts()
                .iter()
                .map(|v| v.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let Some(series) = &case.scaling else {
        let why = case
            .findings
            .first()
            .map(|f| f.detail.clone())
            .or_else(|| case.notes.first().cloned())
            .unwrap_or_default();
        if args.json {
            let value = serde_json::json!({
                "parser": name, "case": case.case, "status": status, "chunkBytes": chunk_bytes,
                "error": why,
            });
            println!("{value}");
        } else {
            println!(
                "{name} {} ({chunk_bytes}-byte chunks): {status}: {why}",
                case.case
            );
        }
        return Ok(());
    };
    if args.json {
        let mut value = serde_json::to_value(series)?;
        value["parser"] = serde_json::json!(name);
        value["superlinear"] = serde_json::json!(series.superlinear());
        value["case"] = serde_json::json!(case.case);
        value["status"] = serde_json::json!(status);
        println!("{value}");
        return Ok(());
    }
    println!(
        "{name} {} {} in {}-byte chunks:",
        series.dialect, series.family, series.chunk_bytes
    );
    for line in series.table().lines() {
        println!("  {line}");
    }
    println!("  {}", series.summary());
    println!(
        "  {}: {status}{}",
        case.case,
        if series.near_threshold() {
            format!(", near the threshold ({})", scaling::THRESHOLD)
        } else {
            String::new()
        }
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use toolcall_harness::scaling::Timing;

    /// Seconds a replay takes, by the stream's bytes.
    type Model = fn(f64) -> f64;

    /// A feed whose time is a function of the stream's length: no clock, so the same series
    /// every time.
    struct Modelled(Model);

    impl Feed for Modelled {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            let seconds = Duration::from_secs_f64((self.0)(bytes as f64));
            // The wall clock twice as slow as the CPU's: the CPU time is judged.
            Ok(Timing {
                wall: seconds * 2,
                cpu: Some(seconds),
            })
        }
    }

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        args: ScaleArgs,
    }

    #[test]
    fn tch_scale_judges_a_series_as_tch_run_judges_its_case() {
        // A new user read `3 passed` from `tch run` and `superlinear` from `tch scale` on
        // the same parser a minute apart. Both feed the same series (tch run's options at
        // the default --chunk-size) and judge it with one function: given the same timings,
        // the same verdicts.
        let args = Cli::try_parse_from(["scale", "--in-process"])
            .expect("parsed")
            .args;
        let options = series_options(args.chunk_size[0]);
        assert_eq!(args.chunk_size, [64]);
        assert_eq!(options, super::super::run::scaling_options());
        let models: [(Model, Status); 3] = [
            // Linear behind a per-chunk cost; a re-scan of the buffer per chunk; nearly
            // linear, near the threshold.
            (|bytes| bytes / 64.0 * 50e-6, Status::Passed),
            (
                |bytes| bytes / 64.0 * (50e-6 + bytes * 2e-9),
                Status::Failed,
            ),
            (|bytes| 2e-3 * (bytes / 4096.0).powf(1.4), Status::Passed),
        ];
        for (model, status) in models {
            let scaled = judge_series(
                &mut Modelled(model),
                Dialect::Hermes,
                Family::Prose,
                &options,
            );
            let run = scaling::judge(
                &mut Modelled(model),
                &[(Dialect::Hermes, Family::Prose)],
                &super::super::run::scaling_options(),
                &|_| {},
            );
            assert_eq!(scaled.status, status, "{:?}", scaled.scaling);
            assert_eq!(run[0].status, scaled.status);
            assert_eq!(run[0].scaling, scaled.scaling);
            assert_eq!(run[0].verdicts(), scaled.verdicts());
        }
    }

    #[test]
    fn sizes_read_in_bytes_kib_and_mib() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("1mib"), Ok(1 << 20));
        assert!(parse_size("1GB").is_err());
        assert!(parse_size("0").is_err());
        assert!(parse_size("KiB").is_err());
    }
}
