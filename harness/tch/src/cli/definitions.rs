//! `tch definitions`: the contracts of `.tool.md` / `.skill.md` files, as JSON.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use toolcall_harness::definitions::{Contract, bundled_contracts, read_definition};

/// Print the contract of each tool or skill definition, one JSON object per line.
///
/// A definition is a `NAME.tool.md` or `NAME.skill.md` file in seed 003's Markdown format. Its
/// contract holds kind, name, title, description, version, category, requiresAuth,
/// requiresPatientContext, the input as a JSON Schema (inputSchema) and returns; skills add
/// requiredTools, requiredSkills and workflow (specs/definitions.md §8).
///
/// Every file is read before anything is printed. A file that does not follow the format
/// stops the command with one error line naming the file, the line and the section, e.g.
///   tch: error: x.tool.md:14: in Parameters > unit: unknown type "strng" (expected …)
/// and exit status 2.
///
/// Examples:
///   tch definitions specs/tools/*.tool.md
///   tch definitions --pretty corpus/definitions/seed-schedule-appointment.skill.md
///   tch definitions                        # the bundled tools (specs/tools/)
#[derive(Debug, Args)]
#[command(verbatim_doc_comment)]
pub struct DefinitionsArgs {
    /// Definition files (`NAME.tool.md`, `NAME.skill.md`); the bundled tools when none.
    files: Vec<PathBuf>,
    /// Print each contract as indented JSON instead of one line.
    #[arg(long)]
    pretty: bool,
}

pub fn run(args: DefinitionsArgs) -> Result<ExitCode> {
    let contracts = load_contracts(&args.files)?;
    let mut out = io::stdout().lock();
    for contract in &contracts {
        let json = if args.pretty {
            serde_json::to_string_pretty(contract)?
        } else {
            serde_json::to_string(contract)?
        };
        writeln!(out, "{json}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The contracts of `files`, in order, or of the bundled tools when there are none.
pub(super) fn load_contracts(files: &[PathBuf]) -> Result<Vec<Contract>> {
    let contracts = if files.is_empty() {
        bundled_contracts()?
    } else {
        files
            .iter()
            .map(|file| read_definition(file))
            .collect::<Result<_, _>>()?
    };
    Ok(contracts)
}
