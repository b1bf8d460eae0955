//! `junit.xml`: one test suite per dialect, one test case per case, every finding inside its
//! failure. `n/a` cases are left out unless asked for: a CI page full of skipped cases hides
//! the ones that ran. No `time` attributes: times change from run to run and the committed
//! reports must not (`specs/runner.md` R6.6).

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{ReportOptions, RunReport, status_name};
use crate::judge::{CaseReport, Status};

/// The report as JUnit XML.
pub fn render(
    report: &RunReport,
    options: &ReportOptions,
) -> Result<String, quick_junit::SerializeError> {
    let mut junit = Report::new("tch");
    for dialect in report.dialects() {
        let mut suite = TestSuite::new(dialect);
        for case in report.cases.iter().filter(|c| c.dialect == dialect) {
            if case.status == Status::NotApplicable && !options.junit_not_applicable {
                continue;
            }
            let status = match case.status {
                Status::Passed | Status::Divergent => TestCaseStatus::success(),
                Status::NotApplicable | Status::Skipped | Status::KnownFailure => {
                    let mut skipped = TestCaseStatus::skipped();
                    skipped.set_message(status_name(case.status));
                    skipped
                }
                Status::Failed | Status::Fixed => {
                    let mut failure = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    let verdicts: Vec<&str> = case.verdicts().iter().map(|v| v.name()).collect();
                    failure.set_message(match case.severity {
                        None => "fixed: remove it from --expect-fail".to_owned(),
                        Some(severity) if case.synthetic_only() => {
                            format!("{severity}, synthetic only: {}", verdicts.join(", "))
                        }
                        Some(severity) => format!("{severity}: {}", verdicts.join(", ")),
                    });
                    failure.set_type(verdicts.first().copied().unwrap_or("fixed"));
                    failure.set_description(describe(case));
                    failure
                }
            };
            let mut test_case = TestCase::new(case.case.clone(), status);
            if let Some(reading) = case.divergence().filter(|_| !case.has_bug()) {
                // Apart from bugs (R3.5): it passes, and says which reading it follows.
                test_case.set_system_out(format!(
                    "divergence: follows the documented alternative reading {reading}\n{}",
                    describe(case)
                ));
            }
            test_case.set_classname(format!("tch.{dialect}"));
            suite.add_test_case(test_case);
        }
        junit.add_test_suite(suite);
    }
    junit.to_string()
}

/// A case's findings as plain text (the failure's body).
fn describe(case: &CaseReport) -> String {
    let mut text = String::new();
    for finding in &case.findings {
        let _ = write!(text, "{finding}");
    }
    for note in &case.notes {
        let _ = writeln!(text, "note: {note}");
    }
    text
}
