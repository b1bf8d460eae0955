//! PLACEHOLDER during parallel work: `tch definitions`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use clap::Args;

/// Placeholder.
#[derive(Debug, Args)]
pub struct DefinitionsArgs {
    files: Vec<PathBuf>,
}

pub fn run(args: DefinitionsArgs) -> Result<ExitCode> {
    bail!(
        "tch definitions is not written yet ({} files)",
        args.files.len()
    )
}
