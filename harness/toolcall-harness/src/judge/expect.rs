//! Known failures (`--expect-fail FILE`, for `tch run` and `tch fuzz`), a ratchet for adopting
//! `tch` in CI: each line is `CASE-GLOB` or `CASE-GLOB VERDICT-GLOB`; `#` starts a comment,
//! and a comment after an entry is its *reason* (an upstream link, a word on the cause),
//! carried into the reports of the cases it covers. A case whose every verdict is listed is a
//! known failure; a listed case that passes is *fixed*, and fails the run until its line is
//! removed.

use std::fmt::Write as _;

use thiserror::Error;

use super::{CaseReport, Status, Verdict};
use crate::glob;

#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    case: String,
    verdict: Option<String>,
    reason: Option<String>,
}

impl Entry {
    /// Whether it covers `verdict` of `case`.
    fn covers(&self, case: &str, verdict: Verdict) -> bool {
        glob::matches(&self.case, case)
            && self
                .verdict
                .as_deref()
                .is_none_or(|v| glob::matches(v, verdict.name()))
    }
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
            let (line, reason) = match line.split_once('#') {
                Some((entry, comment)) => (entry.trim(), Some(comment.trim())),
                None => (line.trim(), None),
            };
            if line.is_empty() {
                continue;
            }
            let mut words = line.split_whitespace();
            let (case, verdict, rest) = (words.next(), words.next(), words.next());
            match (case, rest) {
                (Some(case), None) => entries.push(Entry {
                    case: case.to_owned(),
                    verdict: verdict.map(str::to_owned),
                    reason: reason.filter(|r| !r.is_empty()).map(str::to_owned),
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
            && verdicts
                .iter()
                .all(|&verdict| listed.iter().any(|e| e.covers(case, verdict)))
    }

    /// The reason of the first line with one that covers `verdict` of `case`.
    pub fn reason(&self, case: &str, verdict: Verdict) -> Option<&str> {
        self.entries
            .iter()
            .filter(|e| e.covers(case, verdict))
            .find_map(|e| e.reason.as_deref())
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
        // R8.6: a scaling case listed as `superlinear` that passed near the threshold keeps
        // the listed failure; only a clear pass (under 1.15) says it is fixed.
        if self.lists(&report.case, &[Verdict::Superlinear])
            && let Some(held) = crate::scaling::held_superlinear(report)
        {
            *report = held;
        }
        match report.status {
            Status::Failed => {
                let verdicts = report.verdicts();
                if self.lists(&report.case, &verdicts) {
                    report.status = Status::KnownFailure;
                    for verdict in verdicts {
                        if let Some(reason) = self.reason(&report.case, verdict)
                            && !report.reasons.iter().any(|r| r == reason)
                        {
                            report.reasons.push(reason.to_owned());
                        }
                    }
                }
            }
            Status::Passed => {
                report.status = Status::Fixed;
                report.notes.push(FIXED_NOTE.into());
            }
            // No bug to list, and no failure either (R3.5): the case stays divergent.
            Status::Divergent => report.notes.push(LISTED_DIVERGENT_NOTE.into()),
            Status::KnownFailure | Status::Fixed | Status::NotApplicable | Status::Skipped => {}
        }
    }

    /// Judges `report`, which [`Expectations::apply`] judged against another file, against
    /// these expectations instead: what it would be had the run been given this file. For
    /// `--write-expect-fail` (`specs/runner.md` R6.1), whose reports are judged against the
    /// file it writes, so that a regenerate leaves the folder as the next one finds it.
    pub fn rejudge(&self, report: &mut CaseReport) {
        // Undo the other file's judgement: only `apply` sets reasons, these notes and these
        // statuses. A held superlinear case (R8.6) stays failing, as it was measured so.
        report
            .notes
            .retain(|note| note != FIXED_NOTE && note != LISTED_DIVERGENT_NOTE);
        match report.status {
            Status::Fixed => report.status = Status::Passed,
            Status::KnownFailure => {
                report.status = Status::Failed;
                report.reasons.clear();
            }
            _ => {}
        }
        self.apply(report);
    }
}

/// The note on a listed case that passes.
const FIXED_NOTE: &str = "listed in --expect-fail but passes: remove its line";
/// The note on a listed case that only diverges.
const LISTED_DIVERGENT_NOTE: &str =
    "listed in --expect-fail but only diverges (a documented alternative reading): remove its line";

/// An `--expect-fail` file listing every current failure (for `--write-expect-fail`), each
/// line keeping the reason `previous` (the `--expect-fail` file of the run, if any) gave it.
pub fn write(reports: &[CaseReport], previous: &Expectations) -> String {
    let mut out = String::from(
        "# Known failures, written by `tch run --write-expect-fail`: CASE VERDICT per line,\n\
         # and after `#` the reason (kept when the file is written again).\n",
    );
    for report in reports {
        if !matches!(report.status, Status::Failed | Status::KnownFailure) {
            continue;
        }
        // A case listed whole stays listed whole: its verdicts may vary (a flaky parser).
        let whole = previous
            .entries
            .iter()
            .find(|e| e.verdict.is_none() && glob::matches(&e.case, &report.case));
        if let Some(entry) = whole {
            let _ = match &entry.reason {
                Some(reason) => writeln!(out, "{} # {reason}", report.case),
                None => writeln!(out, "{}", report.case),
            };
            continue;
        }
        for verdict in report.verdicts() {
            let _ = match previous.reason(&report.case, verdict) {
                Some(reason) => writeln!(out, "{} {verdict} # {reason}", report.case),
                None => writeln!(out, "{} {verdict}", report.case),
            };
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;
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
    fn a_listed_superlinear_case_passing_near_the_threshold_is_held() {
        use crate::scaling::{Family, Series, case_report};
        let series = |exponent: f64| Series {
            dialect: "hermes".into(),
            family: "one-call".into(),
            chunk_bytes: 64,
            points: Vec::new(),
            exponent: Some(exponent),
        };
        let case = |exponent| case_report(Dialect::Hermes, Family::OneCall, series(exponent), 1.0);
        let listed = Expectations::parse("hermes/scaling/one-call superlinear # quadratic\n")
            .expect("parses");
        // R8.6: the same bytes as a confirmed superlinear, whatever the exponent in the band.
        let mut confirmed = case(1.8);
        listed.apply(&mut confirmed);
        assert_eq!(confirmed.status, Status::KnownFailure);
        let mut near = case(1.49);
        assert_eq!(near.status, Status::Passed);
        listed.apply(&mut near);
        assert_eq!(near.status, Status::KnownFailure);
        assert_eq!(
            serde_json::to_string(&near).expect("JSON"),
            serde_json::to_string(&confirmed).expect("JSON")
        );
        // A clear pass is fixed, and a case not listed passes near the threshold.
        let mut clear = case(1.1);
        listed.apply(&mut clear);
        assert_eq!(clear.status, Status::Fixed);
        let mut unlisted = case(1.49);
        Expectations::parse("hermes/other superlinear\n")
            .expect("parses")
            .apply(&mut unlisted);
        assert_eq!(unlisted.status, Status::Passed);
    }

    #[test]
    fn reports_rejudged_against_the_written_file_are_what_that_file_gives() {
        // A run judged against an old file: `a` still fails as listed, `b` fails anew, `c`
        // is fixed, `d` passes unlisted.
        let old = Expectations::parse(
            "md-fence/a lost-text # upstream #3\nmd-fence/c crash\nmd-fence/b order # partly\n",
        )
        .expect("parses");
        let raw = [
            report("md-fence/a", &[Verdict::LostText]),
            report("md-fence/b", &[Verdict::Order, Verdict::Crash]),
            report("md-fence/c", &[]),
            report("md-fence/d", &[]),
        ];
        let mut judged = raw.clone();
        for report in &mut judged {
            old.apply(report);
        }
        let statuses =
            |reports: &[CaseReport]| reports.iter().map(|r| r.status).collect::<Vec<_>>();
        assert_eq!(
            statuses(&judged),
            [
                Status::KnownFailure,
                Status::Failed,
                Status::Fixed,
                Status::Passed
            ]
        );
        let next = Expectations::parse(&write(&judged, &old)).expect("parses");
        for report in &mut judged {
            next.rejudge(report);
        }
        // The same bytes as a run given the written file.
        let mut given = raw.clone();
        for report in &mut given {
            next.apply(report);
        }
        let json = |reports: &[CaseReport]| serde_json::to_string(reports).expect("JSON");
        assert_eq!(json(&judged), json(&given));
        assert_eq!(
            statuses(&judged),
            [
                Status::KnownFailure,
                Status::KnownFailure,
                Status::Passed,
                Status::Passed
            ]
        );
        assert_eq!(judged[0].reasons, ["upstream #3"]);
        assert_eq!(judged[1].reasons, ["partly"]);
        assert!(judged[2].notes.is_empty());
    }

    #[test]
    fn written_files_read_back_as_the_same_expectations() {
        let reports = [
            report("md-fence/a", &[Verdict::LostText, Verdict::Order]),
            report("md-fence/ok", &[]),
        ];
        let written = write(&reports, &Expectations::default());
        let expectations = Expectations::parse(&written).expect("parses");
        let mut again = reports[0].clone();
        expectations.apply(&mut again);
        assert_eq!(again.status, Status::KnownFailure);
        assert!(again.reasons.is_empty());
        assert!(Expectations::parse("a b c").is_err());
    }

    #[test]
    fn reasons_reach_the_report_and_survive_a_rewrite() {
        let expectations = Expectations::parse(
            "# a whole-line comment is no reason\n\
             md-fence/a lost-text   # upstream #12: drops the tail\n\
             md-fence/a order #\n\
             md-fence/* crash # https://example.org/bug/7\n",
        )
        .expect("parses");
        let mut known = report("md-fence/a", &[Verdict::LostText, Verdict::Order]);
        expectations.apply(&mut known);
        assert_eq!(known.status, Status::KnownFailure);
        assert_eq!(known.reasons, ["upstream #12: drops the tail"]);
        let mut crashed = report("md-fence/b", &[Verdict::Crash]);
        expectations.apply(&mut crashed);
        assert_eq!(crashed.reasons, ["https://example.org/bug/7"]);

        let rewritten = write(
            &[known, report("md-fence/c", &[Verdict::Crash])],
            &expectations,
        );
        assert!(rewritten.contains("md-fence/a lost-text # upstream #12: drops the tail\n"));
        assert!(rewritten.contains("md-fence/a order\n"));
        assert!(rewritten.contains("md-fence/c crash # https://example.org/bug/7\n"));

        // A case listed without a verdict stays so, whatever its verdicts this time.
        let whole = Expectations::parse("md-fence/f # varies between runs\n").expect("parses");
        let mut flaky = report("md-fence/f", &[Verdict::LostText]);
        whole.apply(&mut flaky);
        assert_eq!(flaky.status, Status::KnownFailure);
        let rewritten = write(&[flaky], &whole);
        assert!(
            rewritten.ends_with("\nmd-fence/f # varies between runs\n"),
            "{rewritten}"
        );
    }
}
