//! What a fuzzed reference run must satisfy, kept here so fuzz targets stay one line: no
//! panic (the caller's process survives), chunk invariance, text conservation (C2), a valid
//! event grammar, and eagerness after every push (C3); and for definitions, the promises of
//! `specs/definitions.md` that hold for every input.

use std::sync::Arc;

use serde_json::Value;

use super::input::FuzzInput;
use crate::corpus::Case;
use crate::definitions::{Kind, parse_definition_bytes, render_prompt, sample_input};
use crate::dialect::Dialect;
use crate::event::Event;
use crate::judge::reference::check_conservation;
use crate::judge::{Finding, Verdict, check_reference, grammar};
use crate::parser;
use crate::split::{Chunking, SplitKind, cut_points};
use crate::tools::Registry;

/// Checks the reference of `input.dialect` on its stream: the whole-stream run has a valid
/// grammar and conserves text; the run cut at `input.cuts` and the one-char-per-chunk run give
/// the same events, conserve text and are eager after every push. A failure is a [`Finding`],
/// as the judge gives every replay.
pub fn check_stream(input: &FuzzInput, tools: &Arc<Registry>) -> Result<(), Box<Finding>> {
    let whole = Chunking::whole();
    let mut parser = input.dialect.reference_parser(tools, input.prefill);
    let run = parser::run(parser.as_mut(), [input.stream.as_str()]);
    let fail = |verdict: Verdict, detail: String| {
        Box::new(Finding::new(&input.stream, &whole, vec![(verdict, detail)]))
    };
    let broken = grammar::violations(&run.events, &[]);
    if !broken.is_empty() {
        return Err(fail(Verdict::Grammar, broken.join("; ")));
    }
    check_conservation(&input.stream, &run)
        .map_err(|detail| fail(Verdict::TextNotConserved, detail))?;
    let case = Case {
        dialect: input.dialect,
        id: format!("{}/fuzz", input.dialect),
        stream: input.stream.clone(),
        prefill: input.prefill.to_owned(),
        request: crate::protocol::RequestOptions::default(),
        expected: run.events,
        alternatives: Vec::new(),
        comments: Vec::new(),
    };
    let cut = Chunking::new(SplitKind::Chunks, "fuzz cuts", input.cuts.clone());
    check_reference(&case, &cut, tools)?;
    let per_char = Chunking::new(SplitKind::PerChar, "per-char", cut_points(&input.stream));
    check_reference(&case, &per_char, tools)
}

/// Why a definition broke a promise of `specs/definitions.md`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DefinitionFailure {
    /// D1.2: line ends are `\n`, `\r\n` or `\r` alike, and a byte-order mark is dropped.
    #[error("{variant} gives {got} where the plain file gives {want}")]
    VariantDiffers {
        /// Which twin of the file.
        variant: &'static str,
        /// What the plain file gives.
        want: String,
        /// What the twin gives.
        got: String,
    },
    /// D11.3: the rendered example call is a valid call of the tool, read back by the `tag`
    /// reference as exactly the sample input.
    #[error("the rendered example does not read back: {0}")]
    ExampleDoesNotReadBack(String),
}

/// A definitions fuzz input: the first byte picks the kind (even: tool, odd: skill), the
/// rest is the file.
pub fn definition_input(data: &[u8]) -> (Kind, &[u8]) {
    match data.split_first() {
        Some((&kind, bytes)) if kind % 2 == 1 => (Kind::Skill, bytes),
        Some((_, bytes)) => (Kind::Tool, bytes),
        None => (Kind::Tool, data),
    }
}

/// Checks one definition file (`bytes`, of `kind`): parsing never panics; its CRLF, lone-CR
/// and byte-order-mark variants parse to the same contract or the same error; and a valid
/// tool's rendered prompt example reads back, through the `tag` reference, as one call with
/// the sample input.
pub fn check_definition(kind: Kind, bytes: &[u8]) -> Result<(), DefinitionFailure> {
    let file = match kind {
        Kind::Tool => "fuzz.tool.md",
        Kind::Skill => "fuzz.skill.md",
    };
    let parse = |bytes: &[u8]| match parse_definition_bytes(file, kind, bytes) {
        Ok(contract) => Ok(contract),
        Err(error) => Err(error.to_string()),
    };
    let plain = parse(bytes);
    const BOM: &[u8] = b"\xef\xbb\xbf";
    let mut variants = Vec::new();
    // Only a file without a mark can gain one, and only one without a CR has faithful CRLF
    // and CR twins. A file that is not UTF-8 is refused at a byte offset the variants move.
    if !bytes.starts_with(BOM) && std::str::from_utf8(bytes).is_ok() {
        variants.push(("with a byte-order mark", [BOM, bytes].concat()));
        if !bytes.contains(&b'\r') {
            variants.push(("with CRLF line ends", replace_newlines(bytes, b"\r\n")));
            variants.push(("with CR line ends", replace_newlines(bytes, b"\r")));
        }
    }
    for (variant, text) in variants {
        let got = parse(&text);
        if got != plain {
            return Err(DefinitionFailure::VariantDiffers {
                variant,
                want: format!("{plain:?}"),
                got: format!("{got:?}"),
            });
        }
    }
    let Ok(contract) = plain else { return Ok(()) };
    let Ok(tool) = contract.to_tool() else {
        return Ok(());
    };
    let prompt = render_prompt(std::slice::from_ref(&contract));
    let example = prompt
        .rsplit_once("\nExample:\n")
        .map(|(_, example)| example)
        .ok_or_else(|| DefinitionFailure::ExampleDoesNotReadBack("no Example section".into()))?;
    let registry = Registry::new(vec![tool])
        .map_err(|error| DefinitionFailure::ExampleDoesNotReadBack(error.to_string()))?;
    let mut reader = Dialect::Tag.reference_parser(&Arc::new(registry), "");
    let events = parser::run(reader.as_mut(), [example]).events;
    let calls: Vec<&Value> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCall(call) => Some(&call.input),
            _ => None,
        })
        .collect();
    let sample = sample_input(&contract.input_schema);
    if calls != [&sample] || events.iter().any(|e| matches!(e, Event::Error { .. })) {
        return Err(DefinitionFailure::ExampleDoesNotReadBack(format!(
            "{example:?} reads as {events:?}"
        )));
    }
    Ok(())
}

fn replace_newlines(bytes: &[u8], line_end: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() * 2);
    for &byte in bytes {
        if byte == b'\n' {
            out.extend_from_slice(line_end);
        } else {
            out.push(byte);
        }
    }
    out
}
