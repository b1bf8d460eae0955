//! The reader's view of `report.json` (`specs/matrix.md` §1): what `tch matrix` and `tch diff`
//! read back. Tolerant: fields it does not use are ignored, and what schema 3 added (the
//! severities, `reasons`, `replay`) is optional, so schema 2 reports read too, their
//! severities computed from the verdicts by the one rule (`specs/runner.md` R4.3).

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use serde::Deserialize;
use thiserror::Error;

use super::json::SCHEMA;
use super::replay::ReplayTemplate;
use crate::judge::{Severity, Status, Verdict};

/// The oldest `report.json` schema this reader understands.
pub const OLDEST_SCHEMA: u32 = 2;

/// Why a `report.json` could not be read.
#[derive(Debug, Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("{path}: cannot read: {error}")]
    Io {
        /// The file.
        path: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// Not JSON, or not shaped as a report.
    #[error("{path}: not a tch report.json: {error}")]
    Shape {
        /// The file.
        path: String,
        /// What serde said, with the line and column.
        error: serde_json::Error,
    },
    /// A schema this `tch` does not read.
    #[error(
        "{path}: report.json schema {found}; this tch reads schemas {OLDEST_SCHEMA} to {SCHEMA}"
    )]
    Schema {
        /// The file.
        path: String,
        /// The schema it declares.
        found: u32,
    },
}

/// A `report.json` as read back: one candidate's run.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedReport {
    /// The schema version it was written in.
    pub schema: u32,
    /// The `tch` that wrote it.
    #[serde(default)]
    pub tch_version: String,
    /// Who was judged.
    pub candidate: SavedCandidate,
    /// The random cuts' seed.
    #[serde(default)]
    pub seed: Option<u64>,
    /// The form of its replay commands (schema 7), which its findings' commands are left out
    /// for ([`super::derived`]).
    #[serde(default)]
    pub replay: Option<ReplayTemplate>,
    /// The root causes of its failing bug cases, worst first (schema 5).
    #[serde(default)]
    pub root_causes: Vec<SavedRootCause>,
    /// One report per case, in run order.
    pub cases: Vec<SavedCase>,
}

/// A root cause as read back (schema 5, `specs/runner.md` §9).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedRootCause {
    /// `RC1`, …
    pub id: String,
    /// Its one-line title.
    #[serde(default)]
    pub title: String,
    /// Its severity.
    pub severity: Severity,
    /// `realistic` or `synthetic` (only).
    #[serde(default)]
    pub realism: String,
    /// The cases it covers.
    #[serde(default)]
    pub cases: Vec<String>,
    /// The command that replays its minimal form.
    #[serde(default)]
    pub replay: String,
}

impl SavedReport {
    /// The headline of its root causes: `9 bugs in 212 cases (5 realistic, 4 synthetic
    /// only)`; `None` before schema 5.
    pub fn root_cause_headline(&self) -> Option<String> {
        if self.schema < 5 {
            return None;
        }
        let synthetic = self
            .root_causes
            .iter()
            .filter(|r| r.realism == "synthetic")
            .count();
        let bugs = self.root_causes.len();
        let cases: usize = self.root_causes.iter().map(|r| r.cases.len()).sum();
        Some(format!(
            "{bugs} {} in {cases} {} ({} realistic, {synthetic} synthetic only)",
            if bugs == 1 { "bug" } else { "bugs" },
            if cases == 1 { "case" } else { "cases" },
            bugs - synthetic
        ))
    }
}

/// The candidate, as its argv and hello describe it.
#[derive(Debug, Clone, Deserialize)]
pub struct SavedCandidate {
    /// The command run.
    #[serde(default)]
    pub argv: Vec<String>,
    /// Its hello's name.
    #[serde(default)]
    pub name: String,
    /// Its hello's dialects.
    #[serde(default)]
    pub dialects: Vec<String>,
}

/// One case of a run.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedCase {
    /// The case id (`DIALECT/NAME`).
    pub case: String,
    /// The case's dialect.
    pub dialect: String,
    /// How it ended.
    pub status: Status,
    /// The severity written in the report (schema 3); see [`SavedCase::severity`].
    #[serde(default, rename = "severity")]
    pub written_severity: Option<Severity>,
    /// The reasons of the `--expect-fail` lines that made it a known failure (schema 3).
    #[serde(default)]
    pub reasons: Vec<String>,
    /// Its findings, worst first.
    #[serde(default)]
    pub findings: Vec<SavedFinding>,
    /// Replays run.
    #[serde(default)]
    pub replays: usize,
    /// The stream replayed (or the definition's text); from schema 7, the built-in corpus's
    /// when `report.json` leaves it out ([`super::derived`]).
    #[serde(default)]
    pub stream: String,
    /// What else the reader should know.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// One finding of a case.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedFinding {
    /// `bug` or `divergence` (schema 5; absent: a bug).
    #[serde(default)]
    pub class: Option<String>,
    /// The alternative reading a divergence follows (schema 5).
    #[serde(default)]
    pub reading: Option<String>,
    /// The severity written in the report (schema 3); see [`SavedFinding::severity`].
    #[serde(default, rename = "severity")]
    pub written_severity: Option<Severity>,
    /// Its verdicts' names, as written: a newer `tch` may name verdicts this one does not know.
    pub verdicts: Vec<String>,
    /// `conformance`, `streaming` or `wire`.
    #[serde(default)]
    pub layer: String,
    /// The chunking's label (`whole`, `cut@12`, …).
    #[serde(default)]
    pub splitting: String,
    /// The chunking's kind (`whole`, `single`, …).
    #[serde(default)]
    pub kind: String,
    /// The chunk vector, as `--chunks` reads it.
    #[serde(default)]
    pub chunks: String,
    /// `realistic` or `synthetic`, when known.
    #[serde(default)]
    pub realism: Option<String>,
    /// One line per verdict.
    #[serde(default)]
    pub detail: String,
    /// The labelled diff.
    #[serde(default)]
    pub diff: String,
    /// The command that replays it (schema 3; from schema 7, the report's `replay` template
    /// filled in when `report.json` leaves it out).
    #[serde(default)]
    pub replay: Option<String>,
}

impl SavedReport {
    /// Reads `path`.
    pub fn load(path: &Path) -> Result<SavedReport, ReadError> {
        let shown = path.display().to_string();
        let text = fs::read_to_string(path).map_err(|error| ReadError::Io {
            path: shown.clone(),
            error,
        })?;
        SavedReport::parse(&text, &shown)
    }

    /// Reads `text`, the contents of the file `path` (named in errors).
    pub fn parse(text: &str, path: &str) -> Result<SavedReport, ReadError> {
        // The schema first: a report of another schema fails on that, not on a missing field.
        #[derive(Deserialize)]
        struct Schema {
            schema: u32,
        }
        let shape = |error| ReadError::Shape {
            path: path.to_owned(),
            error,
        };
        let Schema { schema } = serde_json::from_str(text).map_err(shape)?;
        if !(OLDEST_SCHEMA..=SCHEMA).contains(&schema) {
            return Err(ReadError::Schema {
                path: path.to_owned(),
                found: schema,
            });
        }
        let mut report = serde_json::from_str(text).map_err(shape)?;
        super::derived::restore(&mut report);
        Ok(report)
    }

    /// The counts of its cases.
    pub fn counts(&self) -> Counts {
        let mut counts = Counts::default();
        for case in &self.cases {
            match case.status {
                Status::Passed => counts.passed += 1,
                Status::Divergent => counts.divergent += 1,
                Status::Failed | Status::Fixed => counts.failed += 1,
                Status::KnownFailure => counts.known_failures += 1,
                Status::NotApplicable => counts.not_applicable += 1,
                Status::Skipped => counts.skipped += 1,
            }
            if case.status.fails_the_run()
                && let Some(severity) = case.severity()
            {
                *counts.failed_by_severity.entry(severity).or_default() += 1;
            }
            if case.status.judged() {
                counts.judged += 1;
                counts.worst = match (counts.worst, case.severity()) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
            }
        }
        counts
    }

    /// The case named `id`.
    pub fn case(&self, id: &str) -> Option<&SavedCase> {
        self.cases.iter().find(|case| case.case == id)
    }
}

impl SavedCandidate {
    /// The name to show: its hello's name, else its program's.
    pub fn shown_name(&self) -> &str {
        super::shown_name(&self.name, &self.argv)
    }

    /// Whether it speaks `dialect` (definition cases are any candidate's).
    pub fn speaks(&self, dialect: &str) -> bool {
        dialect == "definitions" || self.dialects.iter().any(|d| d == dialect)
    }
}

impl SavedCase {
    /// Its severity: as written, else (schema 2) its worst finding's; none without findings.
    pub fn severity(&self) -> Option<Severity> {
        self.written_severity
            .or_else(|| self.findings.iter().map(SavedFinding::severity).min())
    }

    /// The reading its divergence follows (schema 5), if it has one.
    pub fn divergence(&self) -> Option<&str> {
        self.findings.iter().find_map(|f| f.reading.as_deref())
    }

    /// Every verdict of its findings once: the known ones in report order, then any others.
    pub fn verdicts(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for name in self.findings.iter().flat_map(|f| &f.verdicts) {
            if !names.contains(&name.as_str()) {
                names.push(name);
            }
        }
        let rank = |name: &str| {
            Verdict::ALL
                .iter()
                .position(|v| v.name() == name)
                .unwrap_or(Verdict::ALL.len())
        };
        names.sort_by_key(|name| rank(name)); // stable: unknown names keep their order
        names
    }

    /// How it ended, in a few words, severity first: `critical: extra-call, lost-text`,
    /// `medium, known: lost-text`, `passed`, `n/a`.
    pub fn outcome(&self) -> String {
        self.outcome_listing(usize::MAX)
    }

    /// [`SavedCase::outcome`] with at most `max_verdicts` verdicts, then `+N` for the rest.
    pub fn outcome_listing(&self, max_verdicts: usize) -> String {
        let all = self.verdicts();
        let mut verdicts = all[..all.len().min(max_verdicts)].join(", ");
        if all.len() > max_verdicts {
            verdicts += &format!(" +{}", all.len() - max_verdicts);
        }
        match (self.status, self.severity()) {
            (Status::Failed, Some(severity)) => format!("{severity}: {verdicts}"),
            (Status::KnownFailure, Some(severity)) => format!("{severity}, known: {verdicts}"),
            (Status::Divergent, _) => match self.divergence() {
                Some(reading) => format!("divergent ({reading}): {verdicts}"),
                None => "divergent".to_owned(),
            },
            (status, _) => short_status(status).to_owned(),
        }
    }
}

impl SavedFinding {
    /// Its severity: as written, else (schema 2) from the verdicts this `tch` knows.
    pub fn severity(&self) -> Severity {
        self.written_severity.unwrap_or_else(|| {
            let known: Vec<Verdict> = self
                .verdicts
                .iter()
                .filter_map(|v| v.parse().ok())
                .collect();
            Severity::of(&known)
        })
    }
}

/// A status in a word or two: `passed`, `failed`, `known failure`, `fixed`, `n/a`, `skipped`.
pub fn short_status(status: Status) -> &'static str {
    match status {
        Status::Passed => "passed",
        Status::Failed => "failed",
        Status::KnownFailure => "known failure",
        Status::Divergent => "divergent",
        Status::Fixed => "fixed",
        Status::NotApplicable => "n/a",
        Status::Skipped => "skipped",
    }
}

/// The cases of a report by how they ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passed.
    pub passed: usize,
    /// Followed a documented alternative reading (`specs/runner.md` R3.5).
    pub divergent: usize,
    /// Failed, or fixed (listed in `--expect-fail` but passing).
    pub failed: usize,
    /// Failed as `--expect-fail` says.
    pub known_failures: usize,
    /// The candidate does not speak the dialect.
    pub not_applicable: usize,
    /// Not run.
    pub skipped: usize,
    /// Judged: passed, failed, known failures and fixed.
    pub judged: usize,
    /// The worst severity of the judged cases (known failures too: still bugs).
    pub worst: Option<Severity>,
    /// The failed cases by severity, worst first.
    pub failed_by_severity: BTreeMap<Severity, usize>,
}

impl Counts {
    /// Every count: `8/10 passed, 1 failed (1 medium), 1 known failure, 2 n/a, 0 skipped`.
    pub fn line(&self) -> String {
        let mut failed = format!("{} failed", self.failed);
        if !self.failed_by_severity.is_empty() {
            let by: Vec<String> = self
                .failed_by_severity
                .iter()
                .map(|(severity, n)| format!("{n} {severity}"))
                .collect();
            failed += &format!(" ({})", by.join(", "));
        }
        let known = match self.known_failures {
            1 => "1 known failure".to_owned(),
            n => format!("{n} known failures"),
        };
        let divergent = if self.divergent > 0 {
            format!(", {} divergent", self.divergent)
        } else {
            String::new()
        };
        format!(
            "{}, {failed}, {known}{divergent}, {} n/a, {} skipped",
            self.passed_line(),
            self.not_applicable,
            self.skipped
        )
    }

    /// `61/88 passed`, or `no case judged`.
    pub fn passed_line(&self) -> String {
        if self.judged == 0 {
            "no case judged".to_owned()
        } else {
            format!("{}/{} passed", self.passed, self.judged)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA_3: &str = r#"{
      "schema": 3, "tchVersion": "0.1.0", "future": {"ignored": true},
      "candidate": {"argv": ["python3", "p.py"], "name": "p", "dialects": ["hermes"]},
      "seed": 0, "splits": ["whole"], "summary": {"passed": 1},
      "cases": [
        {"case": "hermes/a", "dialect": "hermes", "status": "passed", "findings": []},
        {"case": "hermes/b", "dialect": "hermes", "status": "known-failure",
         "severity": "medium", "reasons": ["upstream #1"],
         "findings": [{"severity": "medium", "verdicts": ["lost-text"], "layer": "conformance",
                       "replay": "tch run --case hermes/b -- python3 p.py"}]},
        {"case": "hermes/c", "dialect": "hermes", "status": "failed",
         "findings": [{"verdicts": ["lost-text", "shiny-new-verdict"], "layer": "streaming"},
                      {"verdicts": ["extra-call", "old-verdict", "shiny-new-verdict",
                                    "missing-error"], "layer": "conformance"}]},
        {"case": "tag/d", "dialect": "tag", "status": "not-applicable"}
      ]
    }"#;

    #[test]
    fn a_report_reads_back_tolerantly_with_severities_derived_where_unwritten() {
        let report = SavedReport::parse(SCHEMA_3, "r.json").expect("reads");
        assert_eq!(report.candidate.shown_name(), "p");
        let [a, b, c, d] = &report.cases[..] else {
            panic!("four cases")
        };
        assert_eq!(
            (a.status, a.severity(), a.outcome()),
            (Status::Passed, None, "passed".into())
        );
        assert_eq!(b.reasons, ["upstream #1"]);
        assert_eq!(b.outcome(), "medium, known: lost-text");
        assert_eq!(
            b.findings[0].replay.as_deref(),
            Some("tch run --case hermes/b -- python3 p.py")
        );
        // Unwritten: the worst finding's, from the verdicts this tch knows.
        assert_eq!(c.severity(), Some(Severity::Critical));
        assert_eq!(c.findings[0].severity(), Severity::Medium);
        assert_eq!(
            c.verdicts(),
            [
                "lost-text",
                "extra-call",
                "missing-error",
                "shiny-new-verdict",
                "old-verdict"
            ]
        );
        assert_eq!(
            c.outcome_listing(3),
            "critical: lost-text, extra-call, missing-error +2"
        );
        assert_eq!(d.outcome(), "n/a");
        let counts = report.counts();
        assert_eq!(
            counts.failed_by_severity,
            BTreeMap::from([(Severity::Critical, 1)])
        );
        assert_eq!(
            (
                counts.passed,
                counts.failed,
                counts.known_failures,
                counts.not_applicable
            ),
            (1, 1, 1, 1)
        );
        assert_eq!(counts.passed_line(), "1/3 passed");
        assert_eq!(
            counts.line(),
            "1/3 passed, 1 failed (1 critical), 1 known failure, 1 n/a, 0 skipped"
        );
        assert_eq!(counts.worst, Some(Severity::Critical));
    }

    #[test]
    fn every_status_and_severity_reads_back_by_its_written_name() {
        for status in [
            Status::Passed,
            Status::Failed,
            Status::KnownFailure,
            Status::Fixed,
            Status::NotApplicable,
            Status::Skipped,
        ] {
            let name = serde_json::to_string(&status).expect("serializes");
            let json = format!(
                r#"{{"schema": 3, "candidate": {{}}, "cases": [{{"case": "x/y", "dialect": "x", "status": {name}}}]}}"#
            );
            let report = SavedReport::parse(&json, "r.json").expect("reads");
            assert_eq!(report.cases[0].status, status);
        }
        for severity in Severity::ALL {
            let json = format!(
                r#"{{"schema": 3, "candidate": {{}}, "cases": [{{"case": "x/y", "dialect": "x", "status": "failed", "severity": "{severity}"}}]}}"#
            );
            let report = SavedReport::parse(&json, "r.json").expect("reads");
            assert_eq!(report.cases[0].severity(), Some(severity));
        }
    }

    #[test]
    fn what_is_not_a_report_is_named_with_its_file_and_fault() {
        let error = |text: &str| {
            SavedReport::parse(text, "dir/r.json")
                .expect_err("refused")
                .to_string()
        };
        assert!(error("{").starts_with("dir/r.json: not a tch report.json: EOF"));
        assert_eq!(
            error(r#"{"schema": 9, "cases": []}"#),
            format!("dir/r.json: report.json schema 9; this tch reads schemas 2 to {SCHEMA}")
        );
        let missing = error(r#"{"schema": 3, "candidate": {}}"#);
        assert!(missing.contains("missing field `cases`"), "{missing}");
        let status = error(
            r#"{"schema": 3, "candidate": {}, "cases": [{"case": "x/y", "dialect": "x", "status": "won"}]}"#,
        );
        assert!(
            status.contains(
                "unknown variant `won`, expected one of `passed`, `failed`, `known-failure`"
            ),
            "{status}"
        );
    }
}
