//! What `tch run` writes (`specs/runner.md` §5): `report.json` (every verdict), `junit.xml`
//! (one testcase per case, failures inside), and `summary.md` (fit for a CI job summary).

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::Path;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;

use crate::runner::{CaseReport, Status, Verdict};

/// The whole run, as `report.json` holds it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunReport {
    /// `report.json` schema version.
    pub schema: u32,
    pub tch_version: &'static str,
    pub candidate: CandidateInfo,
    pub seed: u64,
    pub splits: Vec<String>,
    pub summary: Summary,
    pub cases: Vec<CaseReport>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateInfo {
    pub argv: Vec<String>,
    pub name: String,
    pub dialects: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub passed: usize,
    /// Failed unexpectedly, or fixed while listed as a known failure.
    pub failed: usize,
    /// Not applicable, known failures and cases not run.
    pub skipped: usize,
    pub known_failures: usize,
    pub replays: usize,
    pub seconds: f64,
    pub replays_per_second: f64,
}

impl Summary {
    pub fn of(cases: &[CaseReport], elapsed: Duration) -> Summary {
        let mut summary = Summary::default();
        for case in cases {
            summary.replays += case.replays;
            match case.status {
                Status::Passed => summary.passed += 1,
                Status::Failed | Status::Fixed => summary.failed += 1,
                Status::KnownFailure => {
                    summary.known_failures += 1;
                    summary.skipped += 1;
                }
                Status::NotApplicable | Status::Skipped => summary.skipped += 1,
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

    /// The closing line: `N passed, N failed, N skipped`.
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} skipped",
            self.passed, self.failed, self.skipped
        )
    }
}

impl RunReport {
    /// Writes `report.json`, `junit.xml` and `summary.md` into `dir` (created if needed).
    pub fn write(
        &self,
        dir: &Path,
        replay: &dyn Fn(&CaseReport, &[usize]) -> String,
    ) -> io::Result<()> {
        fs::create_dir_all(dir)?;
        let json = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        fs::write(dir.join("report.json"), json + "\n")?;
        fs::write(
            dir.join("junit.xml"),
            self.junit().map_err(io::Error::other)?,
        )?;
        fs::write(dir.join("summary.md"), self.markdown(replay))?;
        Ok(())
    }

    fn junit(&self) -> Result<String, quick_junit::SerializeError> {
        let mut report = Report::new("tch");
        report.set_time(Duration::from_secs_f64(self.summary.seconds));
        let mut dialects: Vec<&str> = self.cases.iter().map(|c| c.dialect.as_str()).collect();
        dialects.dedup();
        for dialect in dialects {
            let mut suite = TestSuite::new(dialect);
            for case in self.cases.iter().filter(|c| c.dialect == dialect) {
                let status = match case.status {
                    Status::Passed => TestCaseStatus::success(),
                    Status::NotApplicable | Status::Skipped | Status::KnownFailure => {
                        let mut skipped = TestCaseStatus::skipped();
                        skipped.set_message(status_name(case.status));
                        skipped
                    }
                    Status::Failed | Status::Fixed => {
                        let mut failure = TestCaseStatus::non_success(NonSuccessKind::Failure);
                        let verdicts: Vec<&str> =
                            case.findings.iter().map(|f| f.verdict.name()).collect();
                        failure.set_message(if case.status == Status::Fixed {
                            "fixed: remove it from --expect-fail".to_owned()
                        } else {
                            verdicts.join(", ")
                        });
                        failure.set_type(verdicts.first().copied().unwrap_or("fixed"));
                        failure.set_description(describe(case));
                        failure
                    }
                };
                let mut test_case = TestCase::new(case.case.clone(), status);
                test_case.set_classname(format!("tch.{dialect}"));
                suite.add_test_case(test_case);
            }
            report.add_test_suite(suite);
        }
        report.to_string()
    }

    fn markdown(&self, replay: &dyn Fn(&CaseReport, &[usize]) -> String) -> String {
        let s = &self.summary;
        let mut md = String::new();
        let _ = writeln!(md, "## tch: {}\n", self.candidate.name);
        let _ = writeln!(
            md,
            "**{}** ({} known failures), {} replays in {:.1} s ({:.0} replays/s).\n",
            s.line(),
            s.known_failures,
            s.replays,
            s.seconds,
            s.replays_per_second
        );
        md.push_str("| dialect | passed | failed | skipped |");
        for verdict in Verdict::ALL {
            let _ = write!(md, " {verdict} |");
        }
        md.push_str("\n| --- | --- | --- | --- |");
        md.push_str(&" --- |".repeat(Verdict::ALL.len()));
        md.push('\n');
        let mut dialects: Vec<&str> = self.cases.iter().map(|c| c.dialect.as_str()).collect();
        dialects.dedup();
        for dialect in dialects {
            let cases: Vec<&CaseReport> =
                self.cases.iter().filter(|c| c.dialect == dialect).collect();
            let count = |statuses: &[Status]| {
                cases
                    .iter()
                    .filter(|c| statuses.contains(&c.status))
                    .count()
            };
            let _ = write!(
                md,
                "| {dialect} | {} | {} | {} |",
                count(&[Status::Passed]),
                count(&[Status::Failed, Status::Fixed]),
                count(&[Status::NotApplicable, Status::Skipped, Status::KnownFailure])
            );
            for verdict in Verdict::ALL {
                let n = cases
                    .iter()
                    .filter(|c| {
                        c.status == Status::Failed
                            && c.findings.iter().any(|f| f.verdict == verdict)
                    })
                    .count();
                let _ = write!(
                    md,
                    " {} |",
                    if n == 0 { String::new() } else { n.to_string() }
                );
            }
            md.push('\n');
        }
        let failed: Vec<&CaseReport> = self
            .cases
            .iter()
            .filter(|c| matches!(c.status, Status::Failed | Status::Fixed))
            .collect();
        if !failed.is_empty() {
            md.push_str("\n### Failures\n\n");
            for case in failed {
                let verdicts: Vec<&str> = case.findings.iter().map(|f| f.verdict.name()).collect();
                let _ = writeln!(
                    md,
                    "- `{}`: {}",
                    case.case,
                    if verdicts.is_empty() {
                        "fixed (listed in --expect-fail)".to_owned()
                    } else {
                        verdicts.join(", ")
                    }
                );
                if let Some(finding) = case.findings.first() {
                    let _ = writeln!(
                        md,
                        "  - {} under `{}`: replay with `{}`",
                        finding.detail.lines().next().unwrap_or(""),
                        finding.splitting,
                        replay(case, &finding.chunks)
                    );
                }
            }
        }
        md
    }
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::KnownFailure => "known failure (--expect-fail)",
        Status::Fixed => "fixed",
        Status::NotApplicable => "n/a: the candidate does not speak this dialect",
        Status::Skipped => "skipped: the candidate was restarted too often",
    }
}

/// A case's findings as plain text (JUnit failure bodies).
pub fn describe(case: &CaseReport) -> String {
    let mut text = String::new();
    for finding in &case.findings {
        let _ = writeln!(
            text,
            "{} under {} (chunks {:?}): {}",
            finding.verdict, finding.splitting, finding.chunks, finding.detail
        );
        if !finding.diff.is_empty() {
            text.push_str(&finding.diff);
        }
    }
    for note in &case.notes {
        let _ = writeln!(text, "note: {note}");
    }
    text
}
