//! Arguments several commands share, parsed once into the library's types: the candidate
//! (`--candidate` or argv after `--`, timeouts), the case selection (`--corpus`, `--dialect`,
//! `--case`, `--skip`), and value parsers that make `--help` list every dialect, kind of
//! chunking and verdict.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result, bail};
use clap::Args;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use toolcall_harness::corpus::Selection;
use toolcall_harness::definitions::{bundled_registry, load_registry};
use toolcall_harness::dialect::Dialect;
use toolcall_harness::judge::Verdict;
use toolcall_harness::split::SplitKind;
use toolcall_harness::supervisor::{Limits, split_command_line};
use toolcall_harness::tools::Registry;

/// `--dialect`'s values, listed in `--help`.
pub(super) fn dialect_parser() -> impl TypedValueParser<Value = Dialect> {
    PossibleValuesParser::new(
        Dialect::ALL
            .iter()
            .map(|d| PossibleValue::new(d.name()).help(d.descriptor().models)),
    )
    .try_map(|name| name.parse::<Dialect>())
}

/// `--splits`'s values, listed in `--help`.
pub(super) fn split_kind_parser() -> impl TypedValueParser<Value = SplitKind> {
    PossibleValuesParser::new(SplitKind::SELECTABLE.iter().map(|k| k.name()))
        .try_map(|name| name.parse::<SplitKind>())
}

/// `--verdict`'s values, listed in `--help`.
pub(super) fn verdict_parser() -> impl TypedValueParser<Value = Verdict> {
    PossibleValuesParser::new(Verdict::ALL.iter().map(|v| v.name()))
        .try_map(|name| name.parse::<Verdict>())
}

/// The tool registry a command uses.
#[derive(Debug, Args)]
pub(super) struct ToolsArgs {
    /// The tool registry: a `.tool.md` file, a folder of them, or a `.json` tool list (an
    /// OpenAI `tools` array, MCP `tools/list` tools, or an object with `tools`; see
    /// specs/definitions.md §13). Default: the bundled `specs/tools/`. The `tag` and
    /// `signature` dialects only recognise these tools; the dialects whose values are typed
    /// by schema (`qwen3-coder`, `glm-4.5`, `glm-4.7`, `minimax-m2`, `minimax-m3`) type
    /// parameter values by their schemas; candidates get them in `begin`.
    #[arg(long, value_name = "PATH")]
    tools: Option<PathBuf>,
}

impl ToolsArgs {
    /// The registry: `--tools`, else the bundled one.
    pub(super) fn registry(&self) -> Result<Arc<Registry>> {
        Ok(Arc::new(match &self.tools {
            Some(path) => load_registry(path)?,
            None => bundled_registry()?,
        }))
    }
}

/// The candidate under test.
#[derive(Debug, Args)]
pub(super) struct CandidateArgs {
    /// The candidate's command line, split like a shell would (no shell is run).
    #[arg(long, value_name = "'CMD ARGS'", conflicts_with = "argv")]
    pub(super) candidate: Option<String>,
    /// Seconds to wait for each reply before the candidate is killed and restarted.
    #[arg(long, value_name = "SECONDS")]
    pub(super) timeout: Option<f64>,
    /// Seconds to wait for the candidate's hello (an adapter that imports a large package
    /// needs a while to start).
    #[arg(long, default_value_t = 30.0, value_name = "SECONDS")]
    pub(super) start_timeout: f64,
    /// The candidate's argv, after `--` (default: `tch serve`, the reference itself).
    #[arg(last = true, value_name = "CANDIDATE")]
    pub(super) argv: Vec<String>,
}

impl CandidateArgs {
    /// `--start-timeout` as a replay command repeats it: only when not the default.
    pub(super) fn replayed_start_timeout(&self) -> Option<f64> {
        (self.start_timeout != 30.0).then_some(self.start_timeout)
    }

    /// The candidate's argv: from `--candidate`, after `--`, or `tch serve` itself.
    pub(super) fn argv(&self) -> Result<Vec<String>> {
        if let Some(line) = &self.candidate {
            let argv = split_command_line(line).map_err(|e| anyhow::anyhow!("--candidate: {e}"))?;
            if argv.is_empty() {
                bail!("--candidate is empty");
            }
            return Ok(argv);
        }
        if !self.argv.is_empty() {
            return Ok(self.argv.clone());
        }
        let me =
            std::env::current_exe().context("cannot find the tch executable to run `tch serve`")?;
        Ok(vec![me.to_string_lossy().into_owned(), "serve".into()])
    }

    /// The reply timeout, `default` unless `--timeout` says otherwise.
    pub(super) fn timeout(&self, default: f64) -> f64 {
        self.timeout.unwrap_or(default)
    }

    /// The limits, checked.
    pub(super) fn limits(&self, default_timeout: f64) -> Result<Limits> {
        let seconds = |value: f64, flag: &str| {
            if value > 0.0 && value.is_finite() {
                Ok(Duration::from_secs_f64(value))
            } else {
                bail!("{flag} must be a positive number of seconds")
            }
        };
        Ok(Limits {
            timeout: seconds(self.timeout(default_timeout), "--timeout")?,
            start_timeout: seconds(self.start_timeout, "--start-timeout")?,
            ..Limits::default()
        })
    }
}

/// Which corpus cases to run.
#[derive(Debug, Args)]
pub(super) struct SelectionArgs {
    /// A corpus folder (`DIR/DIALECT/NAME.stream`); default: the corpus built into tch.
    #[arg(long, value_name = "DIR")]
    pub(super) corpus: Option<PathBuf>,
    /// Only cases whose id (`DIALECT/NAME`) matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub(super) case: Vec<String>,
    /// Leave out cases whose id matches this glob (repeatable).
    #[arg(long, value_name = "GLOB")]
    pub(super) skip: Vec<String>,
}

impl SelectionArgs {
    /// The selection, narrowed to `dialects` (all when empty).
    pub(super) fn selection(&self, dialects: &[Dialect]) -> Selection {
        Selection {
            corpus: self.corpus.clone(),
            dialects: dialects.to_vec(),
            cases: self.case.clone(),
            skip: self.skip.clone(),
        }
    }
}
