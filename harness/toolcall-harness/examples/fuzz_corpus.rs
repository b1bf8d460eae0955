//! Seeds and crash files of the cargo-fuzz targets (`fuzz/README.md`):
//!
//! - `fuzz_corpus seeds DIR` writes every bundled corpus case as a seed: stream cases to
//!   `DIR/reference/`, encoded as `FuzzInput` bytes (uncut), definition files to
//!   `DIR/definitions/` (a kind byte, then the file);
//! - `fuzz_corpus show reference|definitions FILE` prints what a fuzz input (a crash or a
//!   seed) is, readably, and whether the oracles hold for it: the first step of turning a
//!   crash into a corpus case.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use toolcall_harness::corpus::{bundled_cases, bundled_definition_cases};
use toolcall_harness::definitions::{Kind, bundled_registry};
use toolcall_harness::fuzz::fragments::prefills;
use toolcall_harness::fuzz::{FuzzInput, check_definition, check_stream, definition_input};
use toolcall_harness::split::{chunk_vector, chunks_at};

fn main() -> Result<ExitCode> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        ["seeds", dir] => seeds(Path::new(dir)).map(|()| ExitCode::SUCCESS),
        ["show", "reference", file] => show_reference(Path::new(file)),
        ["show", "definitions", file] => show_definition(Path::new(file)),
        _ => bail!("usage: fuzz_corpus seeds DIR | show reference|definitions FILE"),
    }
}

fn seeds(dir: &Path) -> Result<()> {
    let write = |path: std::path::PathBuf, bytes: &[u8]| {
        std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
    };
    let reference = dir.join("reference");
    std::fs::create_dir_all(&reference)?;
    let cases = bundled_cases()?;
    for case in &cases {
        let input = FuzzInput {
            dialect: case.dialect,
            // A prefill the format cannot name is left out: the stream alone is a seed too.
            prefill: prefills()
                .iter()
                .find(|p| **p == case.prefill)
                .copied()
                .unwrap_or(""),
            stream: case.stream.clone(),
            cuts: Vec::new(),
        };
        write(reference.join(case.id.replace('/', "--")), &input.encode())?;
    }
    let definitions = dir.join("definitions");
    std::fs::create_dir_all(&definitions)?;
    let definition_cases = bundled_definition_cases()?;
    for case in &definition_cases {
        let kind = match case.kind {
            Kind::Tool => 0,
            Kind::Skill => 1,
        };
        let name = case.id.trim_start_matches("definitions/");
        write(
            definitions.join(name),
            &[&[kind], case.text.as_bytes()].concat(),
        )?;
    }
    println!(
        "wrote {} reference seeds and {} definitions seeds under {}",
        cases.len(),
        definition_cases.len(),
        dir.display()
    );
    Ok(())
}

fn show_reference(file: &Path) -> Result<ExitCode> {
    let input = FuzzInput::decode(&std::fs::read(file)?);
    let chunks = chunk_vector(&chunks_at(&input.stream, &input.cuts));
    println!("dialect: {}", input.dialect);
    println!("prefill: {}", serde_json::to_string(input.prefill)?);
    println!("stream:  {}", serde_json::to_string(&input.stream)?);
    println!("chunks:  {}", join(&chunks));
    let tools = Arc::new(bundled_registry()?);
    Ok(verdict(check_stream(&input, &tools)))
}

fn show_definition(file: &Path) -> Result<ExitCode> {
    let data = std::fs::read(file)?;
    let (kind, bytes) = definition_input(&data);
    println!("kind: {kind:?}");
    println!(
        "file: {}",
        serde_json::to_string(&String::from_utf8_lossy(bytes))?
    );
    Ok(verdict(check_definition(kind, bytes)))
}

fn verdict<E: std::fmt::Display>(result: Result<(), E>) -> ExitCode {
    match result {
        Ok(()) => {
            println!("oracles: all hold");
            ExitCode::SUCCESS
        }
        Err(failure) => {
            println!("oracles: FAIL: {failure}");
            ExitCode::FAILURE
        }
    }
}

fn join(lengths: &[usize]) -> String {
    lengths
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
