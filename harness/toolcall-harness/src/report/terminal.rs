//! Failures as `tch run` prints them: per failing case its severity, verdicts and layers, then
//! each finding once with its severity, detail, labelled diff (coloured on a terminal) and the
//! command that replays it.

use std::io::{self, Write};

use crate::judge::{CaseReport, Finding, Verdict};
use crate::split::Realism;
use crate::triage::RootCause;

/// How to print.
#[derive(Debug, Clone, Default)]
pub struct TerminalOptions {
    /// Paint diffs (on a terminal, unless `NO_COLOR`).
    pub colour: bool,
    /// Print only cases and findings with one of these verdicts (all when empty).
    pub verdicts: Vec<Verdict>,
    /// At most this many findings per case (the rest are in `report.json`).
    pub findings_per_case: usize,
}

/// Prints the root causes (`specs/runner.md` §9), worst first: id, severity, realism, title,
/// how many cases, and the command that replays its minimal form.
pub fn print_root_causes(out: &mut dyn Write, roots: &[RootCause]) -> io::Result<()> {
    for root in roots {
        let only = match root.realism {
            Realism::Synthetic => ", synthetic only",
            Realism::Realistic => "",
        };
        writeln!(
            out,
            "{} {}{only}: {} ({} cases)\n  replay: {}",
            root.id,
            root.severity,
            root.title,
            root.cases.len(),
            root.replay
        )?;
    }
    Ok(())
}

/// Prints the divergences (`specs/runner.md` R3.5) apart from the failures: per reading
/// followed, how many cases and which.
pub fn print_divergences(out: &mut dyn Write, reports: &[CaseReport]) -> io::Result<()> {
    for (reading, cases) in super::divergences(reports) {
        let shown: Vec<&str> = cases.iter().take(3).copied().collect();
        let more = cases.len().saturating_sub(shown.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        writeln!(
            out,
            "DIVERGE {reading}: {} cases ({}{more})",
            cases.len(),
            shown.join(", ")
        )?;
    }
    Ok(())
}

/// Prints every case that fails the run, as `options` say.
pub fn print_failures(
    out: &mut dyn Write,
    reports: &[CaseReport],
    options: &TerminalOptions,
) -> io::Result<()> {
    let shown = |finding: &Finding| {
        options.verdicts.is_empty()
            || finding
                .verdicts
                .iter()
                .any(|v| options.verdicts.contains(v))
    };
    for report in reports.iter().filter(|r| r.status.fails_the_run()) {
        let findings: Vec<&Finding> = report.findings.iter().filter(|f| shown(f)).collect();
        if findings.is_empty() && !(options.verdicts.is_empty()) {
            continue;
        }
        let verdicts: Vec<&str> = report.verdicts().iter().map(|v| v.name()).collect();
        let mut layers: Vec<&str> = report.findings.iter().map(|f| f.layer.name()).collect();
        layers.sort_unstable();
        layers.dedup();
        match report.severity {
            None => writeln!(out, "FAIL {} [fixed]", report.case)?,
            Some(severity) => writeln!(
                out,
                "FAIL {} {severity}{} [{}] ({})",
                report.case,
                if report.synthetic_only() {
                    ", synthetic only"
                } else {
                    ""
                },
                verdicts.join(", "),
                layers.join(", ")
            )?,
        }
        let limit = options.findings_per_case.max(1);
        for finding in findings.iter().take(limit) {
            print_finding(out, finding, options.colour)?;
            writeln!(out, "  replay: {}", finding.replay)?;
        }
        if findings.len() > limit {
            writeln!(
                out,
                "  … {} more findings in report.json",
                findings.len() - limit
            )?;
        }
        for note in &report.notes {
            writeln!(out, "  note: {note}")?;
        }
    }
    Ok(())
}

fn print_finding(out: &mut dyn Write, finding: &Finding, colour: bool) -> io::Result<()> {
    writeln!(
        out,
        "  {}: {} ({}) under {}, chunks {}:",
        finding.grade(),
        finding.verdict_names(),
        finding.layer,
        finding.under(),
        finding.chunks
    )?;
    for line in finding.detail.lines() {
        writeln!(out, "    {line}")?;
    }
    for line in finding.diff.lines() {
        let painted = match line.chars().next() {
            Some('+') if colour && !line.starts_with("+++") => format!("\x1b[32m{line}\x1b[0m"),
            Some('-') if colour && !line.starts_with("---") => format!("\x1b[31m{line}\x1b[0m"),
            Some(' ') if colour && line.starts_with("  first difference") => {
                format!("\x1b[1m{line}\x1b[0m")
            }
            _ => line.to_owned(),
        };
        writeln!(out, "      {painted}")?;
    }
    Ok(())
}
