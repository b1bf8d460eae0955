//! Differential fuzzing of an in-process candidate with coverage: what a parser crate's
//! cargo-fuzz target calls ([`differential`]). Each input is read as the `reference` target reads
//! it ([`FuzzInput::decode`]: a dialect, a generation prompt, a stream, cut points), replayed
//! through the candidate (a [`Guarded`] one: a panic is a `crash` finding, not the fuzzer's
//! crash), whole and at its cuts, and judged against the reference's events for that stream by
//! the judge `tch fuzz` uses ([`Replayer`]). A finding whose key (dialect, verdicts, layer: what
//! triage and `tch fuzz` tell findings apart by) was not seen before is shrunk
//! ([`Replayer::shrink`]) and written as a corpus case in `tch fuzz`'s format
//! (`specs/fuzzing.md` Z4.6: the stream, the reference's events as expected events, comments
//! with the verdicts, the chunk vector and the replay command), then the fuzzer carries on:
//! libFuzzer stops at its first crash, and a parser with many bugs would show one.
//!
//! Where the cases go: `TCH_FUZZ_OUT` (default `tch-fuzz-findings`, under the current folder),
//! `DIR/DIALECT/fuzz-VERDICT-HASH.stream` and `.events.jsonl`, with `DIR/findings.jsonl`, one
//! JSON line per finding (also read back at start, so a fuzzer started again skips the keys it
//! already wrote). `TCH_FUZZ_DIALECTS=a,b` narrows the dialects fuzzed (inputs of the others
//! return at once), `TCH_FUZZ_SHRINK_TRIES` bounds a shrink (500 reductions by default), and
//! `TCH_FUZZ_CANDIDATE`, the command of the same parser behind the protocol, adds a
//! `tch run` replay line to each case.
//!
//! ```text
//! // fuzz/fuzz_targets/differential.rs of a parser crate (fuzz/README.md, "Fuzz your own parser"):
//! #![no_main]
//! use toolcall_harness::dialect::Dialect;
//! libfuzzer_sys::fuzz_target!(|data: &[u8]| {
//!     toolcall_harness::fuzz::differential(data, "my-parser", &[Dialect::Hermes], MyParser::new)
//! });
//! ```

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;

use super::input::FuzzInput;
use super::replayer::{Replayer, StreamCandidate, Unavailable};
use crate::corpus::Case;
use crate::definitions::bundled_registry;
use crate::dialect::Dialect;
use crate::in_process::{Candidate, Guarded};
use crate::judge::{Finding, StreamJudge, Verdict};
use crate::protocol::Begin;
use crate::report::Replay;
use crate::report::replay::shell_quote;
use crate::split::{Chunking, SplitKind, fnv1a};
use crate::supervisor::{ReplayError, Transcript, split_command_line};
use crate::tools::Registry;

/// Reductions one shrink may try unless `TCH_FUZZ_SHRINK_TRIES` says otherwise.
const SHRINK_TRIES: usize = 500;
/// The findings folder unless `TCH_FUZZ_OUT` says otherwise.
const OUT: &str = "tch-fuzz-findings";
/// The index of the findings written, one JSON object a line, in the findings folder.
pub const INDEX: &str = "findings.jsonl";

thread_local! {
    /// [`differential`]'s fuzzer: made at the first input, kept for the process.
    static FUZZER: RefCell<Option<Differential>> = const { RefCell::new(None) };
}

/// The cargo-fuzz entry point: judges one input (`data`, libFuzzer's bytes) through the
/// candidates `make` makes, named `name`, which parse `dialects`. The first call makes the
/// fuzzer (the tools, the candidate, the findings folder from the environment: see the module
/// documentation); later calls reuse it, so `make` is called again only after a panic.
///
/// Panics only if the fuzzer cannot be set up (the bundled tools do not load) or a finding
/// cannot be written: a fuzzer that loses its findings should stop.
pub fn differential<F, C>(data: &[u8], name: &str, dialects: &[Dialect], make: F)
where
    F: Fn() -> C + 'static,
    C: Candidate + 'static,
{
    FUZZER.with(|fuzzer| {
        let mut fuzzer = fuzzer.borrow_mut();
        let fuzzer = fuzzer.get_or_insert_with(|| {
            Differential::from_env(name, dialects, make)
                .unwrap_or_else(|error| panic!("tch differential fuzzer: {error}"))
        });
        if let Err(error) = fuzzer.run(data) {
            panic!("tch differential fuzzer: {error}");
        }
    });
}

/// Why the differential fuzzer cannot go on.
#[derive(Debug, thiserror::Error)]
pub enum DifferentialError {
    /// The bundled tools did not load.
    #[error(transparent)]
    Tools(#[from] crate::definitions::DefinitionError),
    /// A variable of the environment is malformed.
    #[error("{name}: {error}")]
    Env {
        /// The variable.
        name: &'static str,
        /// What is wrong with it.
        error: String,
    },
    /// A finding could not be written.
    #[error("cannot write a finding under {path}: {error}")]
    Write {
        /// The findings folder.
        path: PathBuf,
        /// What failed.
        error: std::io::Error,
    },
}

/// A finding the fuzzer wrote: shrunk, with its case.
#[derive(Debug, Clone)]
pub struct Written {
    /// `DIALECT VERDICT,VERDICT LAYER`: what makes a finding new.
    pub key: String,
    /// The stream's dialect.
    pub dialect: Dialect,
    /// The case's id, `DIALECT/fuzz-VERDICT-HASH`.
    pub case: String,
    /// The stream file written.
    pub path: PathBuf,
    /// The shrunk replay's finding.
    pub finding: Finding,
    /// The shrunk stream.
    pub stream: String,
    /// The input's stream before shrinking.
    pub found_stream: String,
}

/// Counters of a differential fuzzer.
#[derive(Debug, Clone, Copy, Default)]
pub struct DifferentialStats {
    /// Inputs given.
    pub inputs: usize,
    /// Inputs of the dialects fuzzed (the others return at once).
    pub judged: usize,
    /// Replays through the candidate, shrinking included.
    pub replays: usize,
    /// Bug findings judged (each input may give two: whole and cut).
    pub findings: usize,
    /// Findings with a key not seen before, shrunk and written.
    pub written: usize,
}

/// The differential fuzzer: a candidate, the tools it is begun with, the keys seen.
pub struct Differential {
    name: String,
    candidate: Box<dyn StreamCandidate>,
    dialects: Vec<Dialect>,
    tools: Arc<Registry>,
    out: PathBuf,
    shrink_tries: usize,
    protocol_argv: Option<Vec<String>>,
    seen: BTreeSet<String>,
    stats: DifferentialStats,
}

impl Differential {
    /// A fuzzer of the candidates `make` makes (named `name`, parsing `dialects`), with the
    /// bundled tools, writing under `out`.
    pub fn new<F, C>(
        name: &str,
        dialects: &[Dialect],
        make: F,
        out: impl Into<PathBuf>,
    ) -> Result<Differential, DifferentialError>
    where
        F: Fn() -> C + 'static,
        C: Candidate + 'static,
    {
        let out = out.into();
        let seen = read_keys(&out);
        Ok(Differential {
            name: name.to_owned(),
            candidate: Box::new(Guarded::new(make)),
            dialects: dialects.to_vec(),
            tools: Arc::new(bundled_registry()?),
            out,
            shrink_tries: SHRINK_TRIES,
            protocol_argv: None,
            seen,
            stats: DifferentialStats::default(),
        })
    }

    /// [`Differential::new`] configured by the environment (`TCH_FUZZ_OUT`,
    /// `TCH_FUZZ_DIALECTS`, `TCH_FUZZ_SHRINK_TRIES`, `TCH_FUZZ_CANDIDATE`).
    pub fn from_env<F, C>(
        name: &str,
        dialects: &[Dialect],
        make: F,
    ) -> Result<Differential, DifferentialError>
    where
        F: Fn() -> C + 'static,
        C: Candidate + 'static,
    {
        let out = env("TCH_FUZZ_OUT").unwrap_or_else(|| OUT.to_owned());
        let mut fuzzer = Differential::new(name, dialects, make, out)?;
        if let Some(names) = env("TCH_FUZZ_DIALECTS") {
            let wanted = names
                .split(',')
                .map(|name| name.trim().parse::<Dialect>())
                .collect::<Result<Vec<_>, _>>()
                .map_err(|error| DifferentialError::Env {
                    name: "TCH_FUZZ_DIALECTS",
                    error: error.to_string(),
                })?;
            fuzzer.dialects.retain(|d| wanted.contains(d));
        }
        if let Some(tries) = env("TCH_FUZZ_SHRINK_TRIES") {
            fuzzer.shrink_tries = tries.parse().map_err(|_| DifferentialError::Env {
                name: "TCH_FUZZ_SHRINK_TRIES",
                error: format!("{tries:?} is not a number"),
            })?;
        }
        if let Some(command) = env("TCH_FUZZ_CANDIDATE") {
            let argv = split_command_line(&command).map_err(|error| DifferentialError::Env {
                name: "TCH_FUZZ_CANDIDATE",
                error,
            })?;
            fuzzer.protocol_argv = Some(argv);
        }
        Ok(fuzzer)
    }

    /// Bounds each shrink to `tries` reductions.
    pub fn shrink_tries(mut self, tries: usize) -> Self {
        self.shrink_tries = tries;
        self
    }

    /// The counters so far.
    pub fn stats(&self) -> DifferentialStats {
        self.stats
    }

    /// Judges one input: replays its stream whole and at its cuts, and writes each bug finding
    /// whose key is new, shrunk. Returns what it wrote.
    pub fn run(&mut self, data: &[u8]) -> Result<Vec<Written>, DifferentialError> {
        self.stats.inputs += 1;
        let input = FuzzInput::decode(data);
        if !self.dialects.contains(&input.dialect) {
            return Ok(Vec::new());
        }
        self.stats.judged += 1;
        let Differential {
            name,
            candidate,
            tools,
            out,
            shrink_tries,
            protocol_argv,
            seen,
            stats,
            ..
        } = self;
        let writer = Writer {
            name,
            out,
            protocol_argv: protocol_argv.as_deref(),
        };
        let mut replayer = Replayer::new(
            |begin: &Begin, chunks: &[&str]| -> Result<Transcript, ReplayError> {
                candidate.run_stream(begin, chunks)
            },
            input.dialect,
            input.prefill,
            tools,
            "fuzz",
        );
        let found = judge(&mut replayer, &input.stream, &input.cuts);
        let mut written = Vec::new();
        for (finding, cuts) in found {
            stats.findings += 1;
            let key = key(input.dialect, &finding);
            if !seen.insert(key.clone()) {
                continue;
            }
            let (finding, stream, cuts) =
                shrink(&mut replayer, &input.stream, &cuts, &finding, *shrink_tries);
            let expected = replayer.expected(&stream);
            let case = case_id(input.dialect, &finding, &stream, &cuts);
            let mut entry = Written {
                key,
                dialect: input.dialect,
                case,
                path: PathBuf::new(),
                finding,
                stream,
                found_stream: input.stream.clone(),
            };
            entry.path = writer.write(&entry, &expected, input.prefill, &cuts, stats.inputs)?;
            stats.written += 1;
            eprintln!(
                "tch: new finding {} ({}): {} chars shrunk to {}, written to {}",
                entry.key,
                entry.finding.grade(),
                entry.found_stream.chars().count(),
                entry.stream.chars().count(),
                entry.path.display()
            );
            written.push(entry);
        }
        stats.replays += replayer.replays();
        Ok(written)
    }
}

/// Where and how findings are written.
struct Writer<'a> {
    name: &'a str,
    out: &'a Path,
    protocol_argv: Option<&'a [String]>,
}

impl Writer<'_> {
    /// Writes a finding as a corpus case under the findings folder, and its line of the index;
    /// `inputs` is how many inputs the fuzzer had been given.
    fn write(
        &self,
        written: &Written,
        expected: &[crate::event::Event],
        prefill: &str,
        cuts: &[usize],
        inputs: usize,
    ) -> Result<PathBuf, DifferentialError> {
        let failed = |error| DifferentialError::Write {
            path: self.out.to_owned(),
            error,
        };
        let finding = &written.finding;
        let dialect = written.dialect;
        let case = Case {
            dialect,
            id: written.case.clone(),
            stream: written.stream.clone(),
            prefill: prefill.to_owned(),
            request: crate::protocol::RequestOptions::default(),
            expected: expected.to_vec(),
            alternatives: Vec::new(),
            comments: Vec::new(),
        };
        let chunks = (!cuts.is_empty()).then_some(&finding.chunks);
        let mut replay = format!(
            "TCH_CORPUS={} TCH_CASE={}",
            shell_quote(&self.out.display().to_string()),
            shell_quote(&case.id)
        );
        if let Some(chunks) = chunks {
            replay += &format!(" TCH_CHUNKS={}", shell_quote(&chunks.to_string()));
        }
        replay += " cargo test (the crate's in_process::Check test)";
        let over_protocol = self.protocol_argv.map(|argv| {
            Replay {
                corpus: Some(self.out.to_owned()),
                seed: 0,
                timeout: None,
                start_timeout: None,
                report_dir: self.out.join("replay"),
                argv: argv.to_vec(),
            }
            .command(&case.id, chunks)
        });
        let mut comments = vec![
            format!(
                "Found by cargo-fuzz (toolcall_harness::fuzz::differential) against {} in process",
                self.name
            ),
            format!("verdicts: {}", finding.one_line()),
            format!("chunk vector: {}", finding.chunks),
            format!("replay: {replay}"),
        ];
        if let Some(command) = &over_protocol {
            comments.push(format!("replay over the protocol: {command}"));
        }
        comments.extend([
            "The expected events below are the reference's output for this stream: check them"
                .to_owned(),
            format!("against specs/dialects/{dialect}.md before committing the case."),
        ]);
        let path = case.write(self.out, &comments).map_err(failed)?;
        let line = json!({
            "key": written.key,
            "case": case.id,
            "path": path.display().to_string(),
            "severity": finding.severity,
            "verdicts": finding.verdicts,
            "layer": finding.layer,
            "realism": finding.realism,
            "stream": written.stream,
            "chunks": finding.chunks,
            "foundStream": written.found_stream,
            "detail": finding.detail,
            "diff": finding.diff,
            "replay": replay,
            "replayOverProtocol": over_protocol,
            "afterInputs": inputs,
        });
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.out.join(INDEX))
            .and_then(|mut index| writeln!(index, "{line}"))
            .map_err(failed)?;
        Ok(path)
    }
}

/// The bug findings of `stream`: whole (against the reference's events), then at `cuts`
/// (against the whole stream's output), each with the cuts it was found under. Chunk-dependent
/// findings are replayed again to tell flaky output apart, as `tch run` does.
fn judge<C: StreamCandidate>(
    replayer: &mut Replayer<'_, C>,
    stream: &str,
    cuts: &[usize],
) -> Vec<(Finding, Vec<usize>)> {
    let expected = replayer.expected(stream);
    let mut judge = StreamJudge::new(stream, &expected);
    let mut found = Vec::new();
    // A guarded candidate is never unavailable: a panic is a crash, and the next stream gets
    // a new candidate.
    let whole = replayer
        .judge(&mut judge, stream, &Chunking::whole(), true)
        .unwrap_or_else(unavailable);
    found.extend(whole.map(|finding| (finding, Vec::new())));
    if !cuts.is_empty() && judge.has_baseline() {
        let chunking = Chunking::new(SplitKind::Chunks, "chunks", cuts.to_vec());
        let cut = replayer
            .judge(&mut judge, stream, &chunking, true)
            .unwrap_or_else(unavailable);
        found.extend(cut.map(|finding| (finding, cuts.to_vec())));
    }
    found.retain(|(finding, _)| finding.is_bug());
    found
}

fn unavailable(error: Unavailable) -> Option<Finding> {
    panic!("an in-process candidate became unavailable: {error}")
}

/// Shrinks `stream` and `cuts` while the candidate shows a finding of the same key: the shrunk
/// finding, stream and cuts (the input's own when flaky output no longer shows it).
fn shrink<C: StreamCandidate>(
    replayer: &mut Replayer<'_, C>,
    stream: &str,
    cuts: &[usize],
    finding: &Finding,
    tries: usize,
) -> (Finding, String, Vec<usize>) {
    let (verdicts, layer) = (finding.verdicts.clone(), finding.layer);
    let mut same = |f: &Finding| f.is_bug() && f.verdicts == verdicts && f.layer == layer;
    let shrunk = replayer.shrink(stream, cuts, tries, true, &mut same).shrunk;
    let shown = replayer
        .shows(&shrunk.stream, &shrunk.cuts, true, &mut same)
        .unwrap_or_else(unavailable);
    match shown {
        Some(finding) => (finding, shrunk.stream, shrunk.cuts),
        None => (finding.clone(), stream.to_owned(), cuts.to_vec()),
    }
}

/// What makes a finding new: its dialect, its verdicts and its layer.
fn key(dialect: Dialect, finding: &Finding) -> String {
    format!(
        "{dialect} {} {}",
        finding.verdict_names().replace(", ", ","),
        finding.layer.name()
    )
}

/// `DIALECT/fuzz-VERDICT-HASH`, HASH as `tch fuzz` makes it (FNV-1a of the stream and cuts).
fn case_id(dialect: Dialect, finding: &Finding, stream: &str, cuts: &[usize]) -> String {
    let mut hash_input = stream.as_bytes().to_vec();
    for cut in cuts {
        hash_input.extend_from_slice(&cut.to_le_bytes());
    }
    let verdict = finding.verdicts.first().copied().unwrap_or(Verdict::Crash);
    format!("{dialect}/fuzz-{verdict}-{:08x}", fnv1a(&hash_input) as u32)
}

/// The keys of the findings an earlier run wrote under `out`.
fn read_keys(out: &Path) -> BTreeSet<String> {
    let Ok(index) = std::fs::read_to_string(out.join(INDEX)) else {
        return BTreeSet::new();
    };
    index
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter_map(|entry| entry.get("key")?.as_str().map(str::to_owned))
        .collect()
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}
