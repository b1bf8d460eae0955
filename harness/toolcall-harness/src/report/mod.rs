//! What `tch run` tells people and CI (`specs/runner.md` §6), one renderer per format:
//! [`json`] (`report.json`, everything), [`junit`] (`junit.xml`), [`markdown`] (`summary.md`,
//! fit for a CI job summary) and [`terminal`] (failures as they are printed), and [`replay`],
//! the one type behind every replay command. The engine produces [`CaseReport`]s; nothing here
//! judges. Reading reports back (`specs/matrix.md`): [`read`] (`report.json` as `tch matrix` and
//! `tch diff` see it), [`matrix`] (the HTML conformance matrix), [`badge`] (shields.io endpoint
//! badges) and [`compare`] (what `tch diff` computes and prints). [`bugs`]: one page per root
//! cause ([`crate::triage`]) and their index, with [`reproduce`], the folder's standalone
//! reproduction.

pub mod badge;
pub mod bugs;
pub mod compare;
pub mod derived;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod packed;
pub mod read;
pub mod replay;
pub mod reproduce;
pub mod rewrite;
pub mod terminal;
pub mod timings;

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use serde::Serialize;

pub use replay::{Replay, ReplayTemplate, shell_quote};

use crate::judge::{CaseReport, Layer, Severity, Status, Verdict};
use crate::split::Realism;
use crate::triage::RootCause;

/// The whole run, as `report.json` holds it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// `report.json` schema version.
    pub schema: u32,
    /// The `tch` that wrote it.
    pub tch_version: &'static str,
    /// Who was judged.
    pub candidate: CandidateInfo,
    /// The random cuts' seed.
    pub seed: u64,
    /// The kinds of chunking replayed.
    pub splits: Vec<String>,
    /// The form of every finding's replay command, stored once ([`derived`]).
    pub replay: ReplayTemplate,
    /// The counts.
    pub summary: Summary,
    /// The failing bug cases grouped into root causes, worst first (`specs/runner.md` §9):
    /// each failing bug case is in exactly one.
    pub root_causes: Vec<RootCause>,
    /// One report per case.
    pub cases: Vec<CaseReport>,
}

/// The candidate, as its argv and hello describe it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateInfo {
    /// The command run.
    pub argv: Vec<String>,
    /// Its hello's name.
    pub name: String,
    /// Its hello's dialects.
    pub dialects: Vec<String>,
}

/// The counts of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Cases that passed.
    pub passed: usize,
    /// Failed unexpectedly, or fixed while listed as a known failure.
    pub failed: usize,
    /// Not applicable, known failures, cases not run and scaling cases not judged: the
    /// sum of the four counts that follow.
    pub skipped: usize,
    /// Cases of a dialect the candidate does not speak (definition cases: its hello does not
    /// announce definitions).
    pub not_applicable: usize,
    /// Cases that failed as `--expect-fail` says.
    pub known_failures: usize,
    /// Cases not run: the candidate was restarted too often, or no longer started.
    pub not_run: usize,
    /// Scaling cases fed but not judged: fewer than three sizes were long enough to time.
    pub not_judged: usize,
    /// Why the scaling cases were not run at all (`--no-scaling`, `--chunks`); absent when
    /// they were selected as any case.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scaling_off: Option<String>,
    /// Cases whose output follows a documented alternative reading and nothing else wrong
    /// (`specs/runner.md` R3.5): neither passed nor failed.
    pub divergent: usize,
    /// Stream cases judged (passed, failed, known or fixed): a run that judged none did not
    /// test anything.
    pub stream_cases_judged: usize,
    /// Findings of failing cases in the conformance layer.
    pub conformance_findings: usize,
    /// Findings of failing cases in the streaming layer.
    pub streaming_findings: usize,
    /// Findings of failing cases in the wire layer (a candidate that answers in OpenAI
    /// chunks, `specs/wire.md`); absent from `report.json` when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub wire_findings: usize,
    /// Failing cases by their severity (`specs/runner.md` R4.3), worst first.
    pub failed_by_severity: BTreeMap<Severity, usize>,
    /// Root causes of the failing bug cases (`specs/runner.md` §9), realistic ones (some
    /// member fails under a chunking that keeps every marker whole) and synthetic only.
    pub root_causes: RootCauseCounts,
    /// Replays run.
    pub replays: usize,
    /// Wall time of the run: in `timings.json`, not `report.json` (`specs/runner.md` R6.6).
    #[serde(skip)]
    pub seconds: f64,
    /// Replays per second: in `timings.json`, as `seconds`.
    #[serde(skip)]
    pub replays_per_second: f64,
}

/// How many root causes a run's failing bug cases come down to (`specs/runner.md` §9).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RootCauseCounts {
    /// Root causes seen under some realistic chunking.
    pub realistic: usize,
    /// Root causes seen only under chunkings that cut a marker (R1.4).
    pub synthetic_only: usize,
    /// The failing bug cases they cover (failed or known failures).
    pub cases: usize,
    /// Root causes by severity, worst first.
    pub by_severity: BTreeMap<Severity, usize>,
}

impl RootCauseCounts {
    /// The counts of `roots`.
    pub fn of(roots: &[RootCause]) -> RootCauseCounts {
        let mut counts = RootCauseCounts::default();
        for root in roots {
            match root.realism {
                Realism::Realistic => counts.realistic += 1,
                Realism::Synthetic => counts.synthetic_only += 1,
            }
            counts.cases += root.cases.len();
            *counts.by_severity.entry(root.severity).or_default() += 1;
        }
        counts
    }

    /// The headline: `9 bugs in 212 cases (5 realistic, 4 synthetic only)`.
    pub fn headline(&self) -> String {
        let bugs = self.realistic + self.synthetic_only;
        format!(
            "{bugs} {} in {} {} ({} realistic, {} synthetic only)",
            if bugs == 1 { "bug" } else { "bugs" },
            self.cases,
            if self.cases == 1 { "case" } else { "cases" },
            self.realistic,
            self.synthetic_only
        )
    }
}

impl Summary {
    /// The counts of `cases`, run in `elapsed`.
    pub fn of(cases: &[CaseReport], elapsed: Duration) -> Summary {
        let mut summary = Summary::default();
        for case in cases {
            summary.replays += case.replays;
            if case.status.judged() && case.dialect != "definitions" {
                summary.stream_cases_judged += 1;
            }
            match case.status {
                Status::Passed => summary.passed += 1,
                Status::Divergent => summary.divergent += 1,
                Status::Failed | Status::Fixed => summary.failed += 1,
                Status::KnownFailure => {
                    summary.known_failures += 1;
                    summary.skipped += 1;
                }
                Status::NotApplicable => {
                    summary.not_applicable += 1;
                    summary.skipped += 1;
                }
                // A scaling case with a series was fed and not judged; any other skipped
                // case was not run (`specs/runner.md` §2, R8.3).
                Status::Skipped if case.scaling.is_some() => {
                    summary.not_judged += 1;
                    summary.skipped += 1;
                }
                Status::Skipped => {
                    summary.not_run += 1;
                    summary.skipped += 1;
                }
            }
            if case.status == Status::Failed {
                if let Some(severity) = case.severity {
                    *summary.failed_by_severity.entry(severity).or_default() += 1;
                }
                for finding in &case.findings {
                    match finding.layer {
                        Layer::Conformance => summary.conformance_findings += 1,
                        Layer::Streaming => summary.streaming_findings += 1,
                        Layer::Wire => summary.wire_findings += 1,
                    }
                }
            }
        }
        summary.seconds = elapsed.as_secs_f64();
        summary.replays_per_second = if summary.seconds > 0.0 {
            summary.replays as f64 / summary.seconds
        } else {
            0.0
        };
        summary
    }

    /// The closing line: `N passed, N failed, N skipped`, the skipped cases by cause in
    /// parentheses when some were (`(12 n/a: not in the candidate's hello, 2 known failures
    /// (--expect-fail))`), then
    /// `, N divergent` when some case diverged, and `; scaling cases off (--no-scaling)` when
    /// they were not run at all.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        );
        let causes = self.skipped_by_cause();
        if !causes.is_empty() {
            line += &format!(" ({causes})");
        }
        if self.divergent > 0 {
            line += &format!(", {} divergent", self.divergent);
        }
        if let Some(why) = &self.scaling_off {
            line += &format!("; scaling cases off ({why})");
        }
        line
    }

    /// The skipped cases by cause, those that occur: `12 n/a: not in the candidate's hello, 2
    /// known failures (--expect-fail), 1 not run: candidate given up after faults, 3 scaling
    /// not judged: too fast to time`; empty when none was skipped.
    pub fn skipped_by_cause(&self) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        [
            (self.not_applicable > 0)
                .then(|| format!("{} n/a: not in the candidate's hello", self.not_applicable)),
            (self.known_failures > 0).then(|| {
                plural(self.known_failures, "known failure", "known failures") + " (--expect-fail)"
            }),
            (self.not_run > 0)
                .then(|| format!("{} not run: candidate given up after faults", self.not_run)),
            (self.not_judged > 0)
                .then(|| format!("{} scaling not judged: too fast to time", self.not_judged)),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
    }

    /// The failing cases by severity, worst first: `2 critical, 1 medium`; empty when none
    /// failed.
    pub fn severities(&self) -> String {
        self.failed_by_severity
            .iter()
            .map(|(severity, n)| format!("{n} {severity}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The layers of the failing cases' findings: `3 conformance, 5 streaming findings`
    /// (`, 2 wire` before `findings` when some are).
    pub fn layers(&self) -> String {
        let wire = if self.wire_findings > 0 {
            format!(", {} wire", self.wire_findings)
        } else {
            String::new()
        };
        format!(
            "{} conformance, {} streaming{wire} findings",
            self.conformance_findings, self.streaming_findings
        )
    }
}

/// What the written reports leave out or keep.
#[derive(Debug, Clone, Default)]
pub struct ReportOptions {
    /// Keep `n/a` cases in `junit.xml` (as skipped test cases).
    pub junit_not_applicable: bool,
}

impl RunReport {
    /// Writes `report.json`, `junit.xml`, `summary.md` and `timings.json` into `dir`
    /// (created if needed).
    pub fn write(&self, dir: &Path, options: &ReportOptions) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        fs::write(dir.join("report.json"), json::render(self)?)?;
        fs::write(
            dir.join(timings::FILE),
            timings::Timings::of(self).render()?,
        )?;
        fs::write(
            dir.join("junit.xml"),
            junit::render(self, options).map_err(io::Error::other)?,
        )?;
        fs::write(dir.join("summary.md"), markdown::render(self))?;
        Ok(())
    }

    /// The dialects of the cases, in order of first appearance.
    pub fn dialects(&self) -> Vec<&str> {
        let mut dialects: Vec<&str> = Vec::new();
        for case in &self.cases {
            if !dialects.contains(&case.dialect.as_str()) {
                dialects.push(&case.dialect);
            }
        }
        dialects
    }

    /// The verdicts any failing case has, in [`Verdict::ALL`] order.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let mut all: Vec<Verdict> = self
            .cases
            .iter()
            .filter(|c| c.status.fails_the_run())
            .flat_map(|c| c.verdicts())
            .collect();
        all.sort();
        all.dedup();
        all
    }
}

/// The divergent cases (`specs/runner.md` R3.5) by the reading they follow, readings in name
/// order, cases in report order.
pub fn divergences(reports: &[CaseReport]) -> BTreeMap<&str, Vec<&str>> {
    let mut by_reading: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for case in reports.iter().filter(|c| c.status == Status::Divergent) {
        if let Some(reading) = case.divergence() {
            by_reading.entry(reading).or_default().push(&case.case);
        }
    }
    by_reading
}

/// How a status reads in reports.
pub fn status_name(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::KnownFailure => "known failure (--expect-fail)",
        Status::Divergent => {
            "divergent: follows a documented alternative reading (--strict fails it)"
        }
        Status::Fixed => "fixed: listed in --expect-fail but passes",
        Status::NotApplicable => "n/a: the candidate does not speak this dialect",
        Status::Skipped => {
            "skipped: not run (the candidate was restarted too often) or not judged (see its notes)"
        }
    }
}

/// The name a candidate goes by in reports: its hello's name, else its program's (the last
/// word of its argv), else `candidate`.
pub fn shown_name<'a>(hello_name: &'a str, argv: &'a [String]) -> &'a str {
    if hello_name.trim().is_empty() {
        argv.last().map_or("candidate", String::as_str)
    } else {
        hello_name
    }
}

/// A candidate's name made safe as a file name: its hello name (else its program's) in lower
/// case, every character but ASCII letters and digits a `-`, none at the ends; `candidate`
/// when nothing is left. The same name as the folder `tch run` writes its reports in:
/// `tch serve 0.1.0` is `tch-serve-0-1-0`.
pub fn candidate_stem(hello_name: &str, argv: &[String]) -> String {
    let source = shown_name(hello_name, argv);
    let stem: String = source
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let stem = stem.trim_matches('-');
    if stem.is_empty() {
        "candidate".to_owned()
    } else {
        stem.to_owned()
    }
}

/// Whether a count is zero: a `report.json` field left out then.
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaling::Series;

    fn case(id: &str, status: Status) -> CaseReport {
        let mut report = CaseReport::new(id, id.split('/').next().unwrap_or_default(), "");
        report.status = status;
        report
    }

    #[test]
    fn the_closing_line_gives_the_skipped_cases_by_cause() {
        let mut not_judged = case("hermes/scaling/prose", Status::Skipped);
        not_judged.scaling = Some(Series {
            dialect: "hermes".into(),
            family: "prose".into(),
            chunk_bytes: 64,
            points: Vec::new(),
            exponent: None,
        });
        let cases = [
            case("hermes/a", Status::Passed),
            case("tag/a", Status::NotApplicable),
            case("definitions/a", Status::NotApplicable),
            case("hermes/b", Status::KnownFailure),
            case("hermes/c", Status::Skipped),
            not_judged,
        ];
        let mut summary = Summary::of(&cases, Duration::ZERO);
        assert_eq!(
            (
                summary.skipped,
                summary.not_applicable,
                summary.known_failures,
                summary.not_run,
                summary.not_judged
            ),
            (5, 2, 1, 1, 1)
        );
        assert_eq!(
            summary.line(),
            "1 passed, 0 failed, 5 skipped (2 n/a: not in the candidate's hello, 1 known \
             failure (--expect-fail), 1 not run: candidate given up after faults, 1 scaling \
             not judged: too fast to time)"
        );
        summary.scaling_off = Some("--no-scaling".into());
        summary.divergent = 2;
        assert!(
            summary
                .line()
                .ends_with("too fast to time), 2 divergent; scaling cases off (--no-scaling)"),
            "{}",
            summary.line()
        );
        let nothing_skipped = Summary::of(&cases[..1], Duration::ZERO);
        assert_eq!(nothing_skipped.line(), "1 passed, 0 failed, 0 skipped");
    }
}
