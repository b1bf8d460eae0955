//! Failures as `tch run` prints them: per failing case its severity, verdicts and layers, then
//! each finding once with its severity, detail, labelled diff (coloured on a terminal) and the
//! command that replays it.

use std::io::{self, Write};

use crate::judge::{CaseReport, Finding, Status, Verdict};
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

/// Prints the scaling cases that passed with an exponent near the threshold (`specs/runner.md`
/// R8.3), whose verdict another run (or `tch scale`) on a loaded machine can turn, and why.
pub fn print_scaling_near_threshold(out: &mut dyn Write, reports: &[CaseReport]) -> io::Result<()> {
    let near: Vec<(&CaseReport, &crate::scaling::Series)> = reports
        .iter()
        .filter(|case| matches!(case.status, Status::Passed | Status::KnownFailure))
        .filter_map(|case| Some(case).zip(case.scaling.as_ref()))
        .filter(|(_, series)| series.near_threshold())
        .collect();
    for (case, series) in &near {
        // A known failure near the threshold is one --expect-fail held (R8.6).
        let how = if case.status == Status::Passed {
            "passed near the threshold"
        } else {
            "kept superlinear, as --expect-fail lists it, near the threshold"
        };
        writeln!(
            out,
            "NEAR {}: {how} ({}): {}",
            case.case,
            crate::scaling::THRESHOLD,
            series.summary()
        )?;
    }
    if !near.is_empty() {
        writeln!(out, "{}", crate::scaling::WALL_TIME_CAUTION)?;
    }
    Ok(())
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
            // The figures the reports leave to timings.json (R6.6): here, for whoever waits.
            if let Some(series) = &report.scaling {
                print_series(out, series)?;
            }
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

/// A scaling case's series as measured: its summary and a line per size.
fn print_series(out: &mut dyn Write, series: &crate::scaling::Series) -> io::Result<()> {
    writeln!(out, "    {}", series.summary())?;
    for line in series.table().lines() {
        writeln!(out, "    {line}")?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::{Point, Series};

    fn scaling_case(exponent: f64) -> CaseReport {
        let mut case = CaseReport::new("hermes/scaling/prose", "hermes", "");
        let points = [64 << 10, 128 << 10, 256 << 10].map(|bytes: usize| Point {
            bytes,
            seconds: 0.01 * (bytes as f64 / 65536.0).powf(exponent),
            cpu_seconds: None,
        });
        case.scaling = Some(Series {
            dialect: "hermes".into(),
            family: "prose".into(),
            chunk_bytes: 64,
            points: points.to_vec(),
            exponent: Some(exponent),
        });
        case
    }

    #[test]
    fn a_scaling_case_that_passed_near_the_threshold_says_so() {
        let mut out = Vec::new();
        print_scaling_near_threshold(&mut out, &[scaling_case(1.42), scaling_case(1.02)])
            .expect("printed");
        let text = String::from_utf8(out).expect("UTF-8");
        assert!(
            text.starts_with(
                "NEAR hermes/scaling/prose: passed near the threshold (1.5): time ∝ size^1.42 "
            ),
            "{text}"
        );
        assert_eq!(text.lines().count(), 2, "one case, then why: {text}");
        assert!(text.contains("specs/runner.md R8.3"), "{text}");
    }
}
