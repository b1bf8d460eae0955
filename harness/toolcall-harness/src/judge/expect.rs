//! Known failures (`--expect-fail FILE`, for `tch run` and `tch fuzz`), a ratchet for adopting
//! `tch` in CI: each line is `CASE-GLOB` or `CASE-GLOB VERDICT-GLOB`; `#` starts a comment. A
//! case whose every verdict is listed is a known failure; a listed case that passes is
//! *fixed*, and fails the run until its line is removed.

use std::fmt::Write as _;

use thiserror::Error;

use super::{CaseReport, Status, Verdict};
use crate::glob;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    case: String,
    verdict: Option<String>,
}

/// The parsed `--expect-fail` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Expectations {
    entries: Vec<Entry>,
}

/// A line of an `--expect-fail` file that is not `CASE-GLOB [VERDICT-GLOB]`.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("line {line}: expected `CASE-GLOB [VERDICT-GLOB]`, got {text:?}")]
pub struct ExpectError {
    /// Its line number (from 1).
    pub line: usize,
    /// The line, without its comment.
    pub text: String,
}

impl Expectations {
    /// Reads an `--expect-fail` file's text.
    pub fn parse(text: &str) -> Result<Expectations, ExpectError> {
        let mut entries = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let (case, verdict, rest) = (words.next(), words.next(), words.next());
            match (case, rest) {
                (Some(case), None) => entries.push(Entry {
                    case: case.to_owned(),
                    verdict: verdict.map(str::to_owned),
                }),
                _ => {
                    return Err(ExpectError {
                        line: i + 1,
                        text: line.to_owned(),
                    });
                }
            }
        }
        Ok(Expectations { entries })
    }

    /// Whether every one of `verdicts` is listed for `case`.
    pub fn lists(&self, case: &str, verdicts: &[Verdict]) -> bool {
        let listed: Vec<&Entry> = self
            .entries
            .iter()
            .filter(|e| glob::matches(&e.case, case))
            .collect();
        !listed.is_empty()
            && verdicts.iter().all(|verdict| {
                listed.iter().any(|e| {
                    e.verdict
                        .as_deref()
                        .is_none_or(|v| glob::matches(v, verdict.name()))
                })
            })
    }

    /// Turns `Failed` into `KnownFailure` when every verdict is listed, and `Passed` into
    /// `Fixed` when the case is listed.
    pub fn apply(&self, report: &mut CaseReport) {
        if !self
            .entries
            .iter()
            .any(|e| glob::matches(&e.case, &report.case))
        {
            return;
        }
        match report.status {
            Status::Failed => {
                if self.lists(&report.case, &report.verdicts()) {
                    report.status = Status::KnownFailure;
                }
            }
            Status::Passed => {
                report.status = Status::Fixed;
                report
                    .notes
                    .push("listed in --expect-fail but passes: remove its line".into());
            }
            Status::KnownFailure | Status::Fixed | Status::NotApplicable | Status::Skipped => {}
        }
    }
}

/// An `--expect-fail` file listing every current failure (for `--write-expect-fail`).
pub fn write(reports: &[CaseReport]) -> String {
    let mut out = String::from(
        "# Known failures, written by `tch run --write-expect-fail`: CASE VERDICT per line.\n",
    );
    for report in reports {
        if matches!(report.status, Status::Failed | Status::KnownFailure) {
            for verdict in report.verdicts() {
                let _ = writeln!(out, "{} {verdict}", report.case);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::Finding;
    use crate::split::Chunking;

    fn report(case: &str, verdicts: &[Verdict]) -> CaseReport {
        let mut report = CaseReport::new(case, "md-fence", "x");
        if !verdicts.is_empty() {
            let found = verdicts.iter().map(|&v| (v, String::new())).collect();
            report.add(Finding::new("x", &Chunking::whole(), found));
        }
        report
    }

    #[test]
    fn known_fixed_and_unexpected() {
        let expectations = Expectations::parse("# ratchet\nmd-fence/a lost-text\nmd-fence/b*\n\n")
            .expect("parses");
        let mut known = report("md-fence/a", &[Verdict::LostText]);
        expectations.apply(&mut known);
        assert_eq!(known.status, Status::KnownFailure);
        let mut more = report("md-fence/a", &[Verdict::LostText, Verdict::Crash]);
        expectations.apply(&mut more);
        assert_eq!(more.status, Status::Failed);
        let mut fixed = report("md-fence/b1", &[]);
        expectations.apply(&mut fixed);
        assert_eq!(fixed.status, Status::Fixed);
        let mut other = report("tag/x", &[Verdict::Order]);
        expectations.apply(&mut other);
        assert_eq!(other.status, Status::Failed);
    }

    #[test]
    fn written_files_read_back_as_the_same_expectations() {
        let reports = [
            report("md-fence/a", &[Verdict::LostText, Verdict::Order]),
            report("md-fence/ok", &[]),
        ];
        let written = write(&reports);
        let expectations = Expectations::parse(&written).expect("parses");
        let mut again = reports[0].clone();
        expectations.apply(&mut again);
        assert_eq!(again.status, Status::KnownFailure);
        assert!(Expectations::parse("a b c").is_err());
    }
}
