//! `tch prompt`: definitions rendered as the system-prompt Markdown of seed 004.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use toolcall_harness::definitions::render_prompt;

use super::definitions::load_contracts;

/// Print tool and skill definitions as the Markdown a system prompt carries (seed 004).
///
/// Each contract becomes a `## name` section: its description, its parameters (required or
/// optional, with their description; enums, items and other complex schemas follow as
/// indented JSON blocks), what it returns, and an example call in the tag form:
///   <name>
///   ```json
///   { sample values: the first enum value, "string", 0, true, {}, [one item] }
///   ```
///   </name>
/// The samples are deterministic and valid against the input schema (specs/definitions.md
/// §11). Bad input gives one error line naming file, line and section, and exit status 2.
///
/// Examples:
///   tch prompt specs/tools/*.tool.md
///   tch prompt specs/tools/get-weather.tool.md > system-prompt.md
///   tch prompt                             # the bundled tools (specs/tools/)
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct PromptArgs {
    /// Definition files (`NAME.tool.md`, `NAME.skill.md`); the bundled tools when none.
    files: Vec<PathBuf>,
}

pub fn run(args: PromptArgs) -> Result<ExitCode> {
    let prompt = render_prompt(&load_contracts(&args.files)?);
    let mut out = io::stdout().lock();
    out.write_all(prompt.as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
