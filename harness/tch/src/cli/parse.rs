//! `tch parse`: the reference parser's events for a stream, as JSON lines.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::event::Event;
use toolcall_harness::normalize::Normalize;
use toolcall_harness::parser;
use toolcall_harness::split::{self, ChunkSpec, SizedChunks};

use super::args::{ToolsArgs, dialect_parser};

/// Print the reference parser's events for a stream, one JSON object per line.
///
/// The stream is fed whole unless `--chunks` or `--chunk-size` cut it; the events of a
/// conforming parser are the same for every cut (compare with `--normalized`). Events are
/// written as they come. With `--chunk-size` (and without `--normalized`) the stream is read
/// chunk by chunk too, so memory stays bounded by the largest open call whatever its length
/// (a byte that is not UTF-8 then ends the output with an error where it is found).
///
/// Examples:
///   tch parse --dialect md-fence reply.md
///   tch parse --dialect tag --tools tools.json reply.txt
///   tch parse --dialect hermes --prefill $'<|im_start|>assistant\n<think>\n' reply.txt
///   printf 'hi\n```tool search\nq: x\n```\n' | tch parse --dialect md-fence --chunk-size 1 --normalized
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
// The doc is `--help` text, verbatim: its example's `<think>` is a shell argument, not HTML.
#[allow(rustdoc::invalid_html_tags)]
pub struct ParseArgs {
    /// The tool-call syntax of the stream.
    #[arg(long, short, value_parser = dialect_parser())]
    dialect: Dialect,
    /// The stream file; standard input when absent or `-`.
    file: Option<PathBuf>,
    /// Chunk byte lengths, comma-separated (`1,5,3`, runs as `1x97`), or `per-char`; what
    /// they leave over is a last chunk.
    #[arg(long, conflicts_with = "chunk_size", value_name = "CHUNKS")]
    chunks: Option<ChunkSpec>,
    /// Cut the stream into chunks of N bytes (moved forward to a UTF-8 character boundary).
    #[arg(long, value_name = "N")]
    chunk_size: Option<usize>,
    #[command(flatten)]
    tools: ToolsArgs,
    /// The generation prompt the stream continues (its last tokens, such as
    /// `<|im_start|>assistant\n<think>\n`, which starts the stream inside reasoning): read for
    /// the state it leaves the parser in; no events come from it (specs/streaming.md C9).
    /// Without it, the dialect's default generation prompt applies (C9.4: each dialect spec
    /// names it; MiniMax-M2's and GLM-4.7's open reasoning, Harmony's a header); `--prefill ''`
    /// says "none".
    #[arg(long, value_name = "TEXT")]
    prefill: Option<String>,
    /// Print the normalized events: text and input deltas merged, ids the stream does not spell
    /// renamed `#1`, `#2`, …, `extra` dropped (specs/events.md §3).
    #[arg(long)]
    normalized: bool,
}

pub fn run(args: ParseArgs) -> Result<ExitCode> {
    let tools = args.tools.registry()?;
    let mut parser = args.dialect.reference_parser(
        &tools,
        args.prefill
            .as_deref()
            .unwrap_or(args.dialect.default_prefill()),
    );
    let mut out = io::BufWriter::new(io::stdout().lock());
    match (&args.chunks, args.chunk_size) {
        // Streamed: memory bounded by a chunk and what the parser holds, whatever the length.
        (None, Some(size)) if !args.normalized => {
            let source = open_source(args.file.as_ref())?;
            let mut chunks = SizedChunks::new(source, size).context("--chunk-size")?;
            let mut events = Vec::new();
            while let Some(chunk) = chunks
                .next_chunk()
                .with_context(|| format!("cannot read {}", source_name(args.file.as_ref())))?
            {
                parser.push(&chunk, &mut events);
                write_events(&mut out, &mut events)?;
            }
            parser.finish(&mut events);
            write_events(&mut out, &mut events)?;
        }
        _ => {
            let stream = read_stream(args.file.as_ref())?;
            let chunks = match (&args.chunks, args.chunk_size) {
                (Some(spec), _) => spec.chunks(&stream).context("--chunks")?,
                (None, Some(size)) => {
                    split::fixed_size_chunks(&stream, size).context("--chunk-size")?
                }
                (None, None) => vec![stream.as_str()],
            };
            if args.normalized {
                // Normalizing needs every event and the whole stream (ids it does not spell).
                let events = parser::run(parser.as_mut(), chunks).events;
                let mut events = Normalize {
                    source: Some(&stream),
                    keep_extra: false,
                }
                .apply(&events);
                write_events(&mut out, &mut events)?;
            } else {
                let mut events = Vec::new();
                for chunk in chunks {
                    parser.push(chunk, &mut events);
                    write_events(&mut out, &mut events)?;
                }
                parser.finish(&mut events);
                write_events(&mut out, &mut events)?;
            }
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Writes `events` as JSON lines as they come, and forgets them.
fn write_events(out: &mut impl Write, events: &mut Vec<Event>) -> io::Result<()> {
    for event in events.drain(..) {
        writeln!(out, "{}", event.to_json_line())?;
    }
    Ok(())
}

/// The stream's source: the file, or standard input when absent or `-`.
fn open_source(file: Option<&PathBuf>) -> Result<Box<dyn Read>> {
    Ok(match file {
        Some(path) if path.as_os_str() != "-" => Box::new(
            std::fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        ),
        _ => Box::new(io::stdin().lock()),
    })
}

fn source_name(file: Option<&PathBuf>) -> String {
    file.map_or("standard input".into(), |p| p.display().to_string())
}

fn read_stream(file: Option<&PathBuf>) -> Result<String> {
    let bytes = match file {
        Some(path) if path.as_os_str() != "-" => {
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
        }
        _ => {
            let mut bytes = Vec::new();
            io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            bytes
        }
    };
    let source = source_name(file);
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{source} is not UTF-8 (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}
