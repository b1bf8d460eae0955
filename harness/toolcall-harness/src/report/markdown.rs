//! `summary.md`: the counts, the severities and layers, a verdict matrix per dialect (only the
//! verdicts that occur), each failing case, worst first, with its worst finding and replay
//! command, and the known failures with their reasons: fit for a CI job summary.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::RunReport;
use super::read::short_status;
use crate::judge::{CaseReport, Layer, Severity, Status};
use crate::split::Realism;

/// The report as Markdown.
pub fn render(report: &RunReport) -> String {
    let s = &report.summary;
    let mut md = String::new();
    let _ = writeln!(md, "## tch: {}\n", report.candidate.name);
    let _ = writeln!(md, "{}\n", headline(&s.line(), s.replays));
    root_causes(&mut md, report);
    if !s.failed_by_severity.is_empty() {
        let _ = writeln!(md, "Failing cases by severity, worst first:\n");
        for (severity, n) in &s.failed_by_severity {
            let _ = writeln!(md, "- **{n} {severity}**: {}", severity.meaning());
        }
        md.push('\n');
    }
    // Known failures are still bugs: say how bad, once.
    let mut known: BTreeMap<Severity, usize> = BTreeMap::new();
    for case in report
        .cases
        .iter()
        .filter(|c| c.status == Status::KnownFailure)
    {
        if let Some(severity) = case.severity {
            *known.entry(severity).or_default() += 1;
        }
    }
    if !known.is_empty() {
        let counts: Vec<String> = known.iter().map(|(sev, n)| format!("{n} {sev}")).collect();
        let _ = writeln!(
            md,
            "Known failures (`--expect-fail`) by severity: {}.\n",
            counts.join(", ")
        );
    }
    // The wire layer shows only for a candidate whose chunks broke a wire rule.
    let wire = s.wire_findings > 0;
    let wire_sentence = if wire {
        format!(
            ", **{}** wire (the OpenAI chunks break a rule of `specs/wire.md`)",
            s.wire_findings
        )
    } else {
        String::new()
    };
    let _ = writeln!(
        md,
        "Findings by layer: **{}** conformance (wrong under the whole stream too), **{}** \
         streaming (only under some chunkings, flaky, the non-streaming result, or timing){wire_sentence}.\n",
        s.conformance_findings, s.streaming_findings
    );
    let verdicts = report.verdicts();
    md.push_str("| dialect | passed | failed | skipped | conformance | streaming |");
    if wire {
        md.push_str(" wire |");
    }
    for verdict in &verdicts {
        let _ = write!(md, " {verdict} |");
    }
    md.push_str("\n| --- | --- | --- | --- | --- | --- |");
    if wire {
        md.push_str(" --- |");
    }
    md.push_str(&" --- |".repeat(verdicts.len()));
    md.push('\n');
    for dialect in report.dialects() {
        let cases: Vec<&CaseReport> = report
            .cases
            .iter()
            .filter(|c| c.dialect == dialect)
            .collect();
        // A dialect the candidate does not speak has nothing to say (the counts above have it).
        if cases.iter().all(|c| c.status == Status::NotApplicable) {
            continue;
        }
        let count = |statuses: &[Status]| {
            cases
                .iter()
                .filter(|c| statuses.contains(&c.status))
                .count()
        };
        let failing = || cases.iter().filter(|c| c.status == Status::Failed);
        let in_layer = |layer: Layer| {
            failing()
                .filter(|c| c.findings.iter().any(|f| f.layer == layer))
                .count()
        };
        let _ = write!(
            md,
            "| {dialect} | {} | {} | {} | {} | {} |",
            count(&[Status::Passed]),
            count(&[Status::Failed, Status::Fixed]),
            count(&[Status::NotApplicable, Status::Skipped, Status::KnownFailure]),
            blank_zero(in_layer(Layer::Conformance)),
            blank_zero(in_layer(Layer::Streaming)),
        );
        if wire {
            let _ = write!(md, " {} |", blank_zero(in_layer(Layer::Wire)));
        }
        for verdict in &verdicts {
            let n = failing().filter(|c| c.verdicts().contains(verdict)).count();
            let _ = write!(md, " {} |", blank_zero(n));
        }
        md.push('\n');
    }
    let worst_first = |keep: fn(Status) -> bool| {
        let mut cases: Vec<&CaseReport> = report.cases.iter().filter(|c| keep(c.status)).collect();
        // A fixed case (no finding) last; the sort is stable: report order within.
        cases.sort_by_key(|c| (c.severity.is_none(), c.severity));
        cases
    };
    let failed = worst_first(Status::fails_the_run);
    if !failed.is_empty() {
        md.push_str("\n### Failures\n\n");
        for case in failed {
            let Some(finding) = case.findings.first() else {
                let _ = writeln!(md, "- `{}`: fixed (listed in --expect-fail)", case.case);
                continue;
            };
            let only = if case.synthetic_only() {
                ", synthetic only"
            } else {
                ""
            };
            let _ = writeln!(
                md,
                "- **{}{only}** `{}`: {} ({}) under `{}`: {}; replay with `{}`",
                finding.grade(),
                case.case,
                finding.verdict_names(),
                finding.layer,
                finding.under(),
                finding.detail.lines().next().unwrap_or(""),
                finding.replay
            );
            if case.findings.len() > 1 {
                let _ = writeln!(
                    md,
                    "  - and {} more findings (report.json)",
                    case.findings.len() - 1
                );
            }
        }
    }
    let divergences = super::divergences(&report.cases);
    if !divergences.is_empty() {
        md.push_str(
            "\n### Divergences: documented alternative readings, not bugs (`specs/runner.md` R3.5)\n\n",
        );
        md.push_str("| reading | cases |\n| --- | --- |\n");
        for (reading, cases) in divergences {
            let listed: Vec<String> = cases.iter().map(|c| format!("`{c}`")).collect();
            let _ = writeln!(
                md,
                "| `{reading}` | {}: {} |",
                cases.len(),
                listed.join(", ")
            );
        }
    }
    let known = worst_first(|status| status == Status::KnownFailure);
    if !known.is_empty() {
        md.push_str("\n### Known failures (`--expect-fail`)\n\n");
        for case in known {
            let _ = write!(
                md,
                "- **{}** `{}`: {}",
                case.severity.map_or("", |s| s.name()),
                case.case,
                case.verdicts()
                    .iter()
                    .map(|v| v.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if !case.reasons.is_empty() {
                let _ = write!(md, " ({})", case.reasons.join("; "));
            }
            md.push('\n');
        }
    }
    scaling(
        &mut md,
        report
            .cases
            .iter()
            .filter(|c| c.scaling.is_some())
            .map(|c| (c.case.as_str(), c.status)),
    );
    md
}

/// The counts' line in bold, then the replays run (no time: `specs/runner.md` R6.6).
pub(crate) fn headline(line: &str, replays: usize) -> String {
    format!("**{line}**, {replays} replays.")
}

/// The root causes first (`specs/runner.md` §9): the headline, then one row per root cause,
/// worst first, realistic before synthetic only within a severity, linking its page.
fn root_causes(md: &mut String, report: &RunReport) {
    let counts = &report.summary.root_causes;
    if report.root_causes.is_empty() {
        if report.summary.divergent > 0 {
            let _ = writeln!(
                md,
                "**No bug**; {} cases follow a documented alternative reading (below).\n",
                report.summary.divergent
            );
        }
        return;
    }
    let _ = write!(md, "**{}**", counts.headline());
    if report.summary.divergent > 0 {
        let _ = write!(
            md,
            "; {} more cases only diverge (documented alternative readings, no bug: below)",
            report.summary.divergent
        );
    }
    md.push_str(
        ".\n\n| root cause | severity | title | cases | page |\n| --- | --- | --- | ---: | --- |\n",
    );
    for (n, root) in report.root_causes.iter().enumerate() {
        let severity = match root.realism {
            Realism::Realistic => root.severity.name().to_owned(),
            Realism::Synthetic => format!("{}, synthetic only", root.severity),
        };
        let _ = writeln!(
            md,
            "| {} | {severity} | {} | {} | [bugs/{}](bugs/{}) |",
            root.id,
            root.title.replace('|', "\\|"),
            root.cases.len(),
            super::bugs::page_name(n + 1, root),
            super::bugs::page_name(n + 1, root),
        );
    }
    md.push('\n');
}

/// The scaling cases (`specs/runner.md` R8.4), each with its status; their sizes and times
/// change from run to run, so they are in `timings.json` (R6.6), not here.
pub(crate) fn scaling<'c>(md: &mut String, cases: impl Iterator<Item = (&'c str, Status)>) {
    let mut cases = cases.peekable();
    if cases.peek().is_none() {
        return;
    }
    md.push_str("\n### Scaling (time as the stream grows, `specs/runner.md` §8)\n\n");
    md.push_str(
        "The sizes fed, their times and the exponents are in `timings.json`: they change from \
         run to run.\n\n",
    );
    md.push_str("| case | status |\n| --- | --- |\n");
    for (case, status) in cases {
        let _ = writeln!(md, "| `{case}` | {} |", short_status(status));
    }
}

fn blank_zero(n: usize) -> String {
    if n == 0 { String::new() } else { n.to_string() }
}
