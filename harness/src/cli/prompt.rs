//! PLACEHOLDER during parallel work: `tch prompt`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Placeholder.
#[derive(Debug, Args)]
pub struct PromptArgs {
    files: Vec<PathBuf>,
}

pub fn run(args: PromptArgs) -> Result<ExitCode> {
    bail!("tch prompt is not written yet ({} files)", args.files.len())
}
