//! What judging produces: a [`Finding`] per failing replay (one root cause, its verdicts
//! together, its diff once), and a [`CaseReport`] per case that keeps one finding per distinct
//! list of verdicts and counts replays per kind of chunking.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use super::{Layer, Severity, Verdict};
use crate::event::Event;
use crate::split::{ChunkSpec, Chunking, Realism, SplitKind};

/// One failing replay: everything it showed, and how to replay it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// A bug, or a divergence: output that follows a documented alternative reading
    /// (`specs/runner.md` R3.5).
    #[serde(flatten)]
    pub class: Class,
    /// How much it would hurt (`specs/runner.md` R4.3): the worst of its verdicts'; none for a
    /// divergence, which is no bug.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// Every verdict the replay earned, in [`Verdict::ALL`] order.
    pub verdicts: Vec<Verdict>,
    /// Conformance (the whole stream shows it) or streaming.
    pub layer: Layer,
    /// The chunking's label (`whole`, `cut@12`, `per-char`, `random#3`, …).
    pub splitting: String,
    /// The chunking's kind.
    #[serde(serialize_with = "serialize_kind")]
    pub kind: SplitKind,
    /// The chunk vector: `tch run --chunks` replays exactly this.
    pub chunks: ChunkSpec,
    /// Whether the chunking keeps the dialect's markers whole (`specs/runner.md` R1.4); set by
    /// who knows the dialect, absent for definitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub realism: Option<Realism>,
    /// One line per verdict saying what it saw.
    pub detail: String,
    /// A labelled unified diff of the two event lists (or contracts) compared; empty when
    /// nothing was compared (a crash).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub diff: String,
    /// The candidate's raw events in this replay, as it sent them. `report.json` holds each
    /// as its JSON line (a string): a call's input may nest 127 levels (`specs/protocol.md`
    /// P1.2), past what readers with a recursion limit accept inside a report.
    #[serde(
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "serialize_as_lines"
    )]
    pub events: Vec<Event>,
    /// The command that replays exactly this finding (`specs/runner.md` R6.3); set by who
    /// knows the run's options, empty until then.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub replay: String,
}

/// Whether a finding is a bug or a divergence (`specs/runner.md` R3.5): `"class": "bug"`, or
/// `"class": "divergence"` with the reading followed, in `report.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "class", rename_all = "kebab-case")]
pub enum Class {
    /// The candidate is wrong under every documented reading.
    Bug,
    /// The candidate follows a documented alternative reading of a choice rule.
    Divergence {
        /// The reading's name, as the case's `NAME.alt-READING.events.jsonl` gives it.
        reading: String,
    },
}

impl Class {
    /// The reading a divergence follows; `None` for a bug.
    pub fn reading(&self) -> Option<&str> {
        match self {
            Class::Bug => None,
            Class::Divergence { reading } => Some(reading),
        }
    }
}

fn serialize_as_lines<S: serde::Serializer>(events: &[Event], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(events.iter().map(Event::to_json_line))
}

fn serialize_kind<S: serde::Serializer>(kind: &SplitKind, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(kind.name())
}

impl Finding {
    /// A finding of `verdicts` (sorted here) on `chunking` of `stream`, each verdict with its
    /// detail.
    pub fn new(stream: &str, chunking: &Chunking, found: Vec<(Verdict, String)>) -> Finding {
        let mut found = found;
        found.sort_by_key(|(verdict, _)| *verdict);
        let mut verdicts: Vec<Verdict> = found.iter().map(|(v, _)| *v).collect();
        // A verdict seen twice (reasoning moved both ways, R3.3) is named once, with both
        // details.
        verdicts.dedup();
        let detail = found
            .iter()
            .map(|(verdict, detail)| format!("{verdict}: {detail}"))
            .collect::<Vec<_>>()
            .join("\n");
        Finding {
            class: Class::Bug,
            severity: Some(Severity::of(&verdicts)),
            layer: Layer::of(&verdicts, chunking.is_whole()),
            verdicts,
            splitting: chunking.label.clone(),
            kind: chunking.kind,
            chunks: chunking.spec(stream),
            realism: None,
            detail,
            diff: String::new(),
            events: Vec::new(),
            replay: String::new(),
        }
    }

    /// The same finding as a divergence that follows `reading`: no severity.
    pub fn diverging(mut self, reading: &str) -> Finding {
        self.class = Class::Divergence {
            reading: reading.to_owned(),
        };
        self.severity = None;
        self
    }

    /// The same finding as a bug: a divergence judged under `--strict`, for a parser that
    /// means to follow `tch`'s reading (`specs/runner.md` R3.5).
    pub fn strict(mut self) -> Finding {
        if let Class::Divergence { reading } = &self.class {
            self.detail.push_str(&format!(
                "\nnote: follows the documented alternative reading {reading}; a failure under --strict"
            ));
            self.class = Class::Bug;
            self.severity = Some(Severity::of(&self.verdicts));
        }
        self
    }

    /// Whether it is a bug (not a divergence).
    pub fn is_bug(&self) -> bool {
        self.class == Class::Bug
    }

    /// Its severity's name, or `divergence (READING)`.
    pub fn grade(&self) -> String {
        match (&self.class, self.severity) {
            (Class::Divergence { reading }, _) => format!("divergence ({reading})"),
            (Class::Bug, Some(severity)) => severity.name().to_owned(),
            (Class::Bug, None) => "bug".to_owned(),
        }
    }

    /// The same finding with `diff`.
    pub fn with_diff(mut self, diff: String) -> Finding {
        self.diff = diff;
        self
    }

    /// The chunk vector a replay command needs: none for the whole stream, which every
    /// replay runs first anyway, nor for a scaling case, which its id replays.
    pub fn replay_chunks(&self) -> Option<&ChunkSpec> {
        self.kind.replays_with_chunks().then_some(&self.chunks)
    }

    /// Whether it carries `verdict`.
    pub fn has(&self, verdict: Verdict) -> bool {
        self.verdicts.contains(&verdict)
    }

    /// The finding in one line, as a written case's `verdicts:` comment gives it: grade,
    /// verdicts, layer and the detail's first line.
    pub fn one_line(&self) -> String {
        format!(
            "{}: {} ({}): {}",
            self.grade(),
            self.verdict_names(),
            self.layer,
            self.detail.lines().next().unwrap_or_default()
        )
    }

    /// The verdicts' names joined by `, `.
    pub fn verdict_names(&self) -> String {
        self.verdicts
            .iter()
            .map(|v| v.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

impl Finding {
    /// The splitting's label, and whether it is realistic when that is known:
    /// `cut@12 (synthetic)`.
    pub fn under(&self) -> String {
        match self.realism {
            Some(realism) => format!("{} ({realism})", self.splitting),
            None => self.splitting.clone(),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{}: {} ({}) under {}, chunks {}:",
            self.grade(),
            self.verdict_names(),
            self.layer,
            self.under(),
            self.chunks
        )?;
        for line in self.detail.lines() {
            writeln!(f, "  {line}")?;
        }
        f.write_str(&self.diff)
    }
}

/// What a case's findings are, together: `report.json`'s per-case `class`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CaseClass {
    /// Some finding is a bug.
    Bug,
    /// Every finding is a divergence.
    Divergence,
}

/// How a case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Every replay passed.
    Passed,
    /// Some replay failed, not as `--expect-fail` says.
    Failed,
    /// Failed exactly as `--expect-fail` says.
    KnownFailure,
    /// Differs from `tch`'s reading only by following a documented alternative reading
    /// (`specs/runner.md` R3.5); fails the run only under `--strict`.
    Divergent,
    /// Listed in `--expect-fail` but passed: fails the run until the entry is removed.
    Fixed,
    /// The candidate does not speak the case's dialect.
    NotApplicable,
    /// Not run (the candidate was restarted too often), or a scaling case too fast to time
    /// (`specs/runner.md` R8.3).
    Skipped,
}

impl Status {
    /// Whether the case was judged: it ran, and passed or failed.
    pub fn judged(self) -> bool {
        matches!(
            self,
            Status::Passed
                | Status::Failed
                | Status::KnownFailure
                | Status::Fixed
                | Status::Divergent
        )
    }

    /// Whether it fails the run.
    pub fn fails_the_run(self) -> bool {
        matches!(self, Status::Failed | Status::Fixed)
    }
}

/// Replays of one kind of chunking that passed and failed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Replays with no finding.
    pub passed: usize,
    /// Replays with a finding (kept or not).
    pub failed: usize,
}

/// Everything learned about one case.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseReport {
    /// The case id (`DIALECT/NAME`, `definitions/NAME.tool.md`).
    pub case: String,
    /// The case's dialect (`definitions` for definition cases).
    pub dialect: String,
    /// How it ended.
    pub status: Status,
    /// `bug` when some finding is a bug, `divergence` when its findings are divergences only
    /// (`specs/runner.md` R3.5); none without findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<CaseClass>,
    /// Its worst bug finding's severity; none when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// The reasons (`# …`) of the `--expect-fail` lines that made it a known failure.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// One finding per distinct list of verdicts: the first replay that showed it (for
    /// streaming findings, the one with the fewest chunks), worst severity first.
    pub findings: Vec<Finding>,
    /// Replays run.
    pub replays: usize,
    /// Per kind of chunking, replays that passed and failed.
    pub tally: BTreeMap<&'static str, Tally>,
    /// Wall time spent on the case: in `timings.json`, not `report.json`
    /// (`specs/runner.md` R6.6).
    #[serde(skip)]
    pub seconds: f64,
    /// The stream replayed (or the definition's text).
    pub stream: String,
    /// The most text bytes the candidate held back beyond what the reference had released,
    /// after any `sync`.
    pub max_extra_held_bytes: usize,
    /// What else the reader should know (a stopped case, a fixed entry).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The root cause it belongs to (`RC3`, `specs/runner.md` §9), when it is a failing bug
    /// case and triage ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_cause: Option<String>,
    /// For a scaling case (`specs/runner.md` §8), the sizes timed and the growth;
    /// `report.json` keeps its dialect, family and chunk size, `timings.json` the rest (R6.6).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "serialize_series_untimed"
    )]
    pub scaling: Option<crate::scaling::Series>,
}

/// A series as `report.json` keeps it: what was fed, not how long it took (R6.6).
fn serialize_series_untimed<S: serde::Serializer>(
    series: &Option<crate::scaling::Series>,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Untimed<'a> {
        dialect: &'a str,
        family: &'a str,
        chunk_bytes: usize,
    }
    series
        .as_ref()
        .map(|series| Untimed {
            dialect: &series.dialect,
            family: &series.family,
            chunk_bytes: series.chunk_bytes,
        })
        .serialize(s)
}

impl CaseReport {
    /// A report that has passed so far.
    pub fn new(case: &str, dialect: &str, stream: &str) -> CaseReport {
        CaseReport {
            case: case.to_owned(),
            dialect: dialect.to_owned(),
            status: Status::Passed,
            class: None,
            severity: None,
            reasons: Vec::new(),
            findings: Vec::new(),
            replays: 0,
            tally: BTreeMap::new(),
            seconds: 0.0,
            stream: stream.to_owned(),
            max_extra_held_bytes: 0,
            notes: Vec::new(),
            root_cause: None,
            scaling: None,
        }
    }

    /// Counts one replay of `kind`, and keeps its finding if it adds anything.
    pub fn record(&mut self, kind: SplitKind, finding: Option<Finding>) {
        self.replays += 1;
        let tally = self.tally.entry(kind.name()).or_default();
        match finding {
            None => tally.passed += 1,
            Some(finding) => {
                tally.failed += 1;
                self.add(finding);
            }
        }
    }

    /// Whether a finding with these verdicts and `chunks` chunks would be kept: none with the
    /// same verdicts yet, or only one with more chunks.
    pub fn would_keep(&self, verdicts: &[Verdict], chunks: usize) -> bool {
        match self.findings.iter().find(|f| f.verdicts == verdicts) {
            None => true,
            Some(old) => chunks < old.chunks.len(&self.stream),
        }
    }

    /// Keeps `new` if it adds anything (see [`CaseReport::would_keep`]), failing the case.
    pub fn add(&mut self, new: Finding) {
        let chunks = new.chunks.len(&self.stream);
        if !self.would_keep(&new.verdicts, chunks) {
            return;
        }
        if let Some(severity) = new.severity {
            self.severity = Some(self.severity.map_or(severity, |s| s.min(severity)));
        }
        match self
            .findings
            .iter_mut()
            .find(|f| f.verdicts == new.verdicts)
        {
            // Only a streaming finding can be shown under fewer chunks.
            Some(old) if new.layer == Layer::Streaming => *old = new,
            Some(_) => {}
            // Worst first (R4.3), realistic before synthetic within one severity (R1.4), in
            // the order found within those; divergences, which have none, after every bug.
            None => {
                let rank = |f: &Finding| {
                    (
                        f.severity.map_or(Severity::ALL.len(), |s| s as usize),
                        f.realism == Some(Realism::Synthetic),
                    )
                };
                let at = self.findings.partition_point(|f| rank(f) <= rank(&new));
                self.findings.insert(at, new);
            }
        }
        let bug = self.findings.iter().any(Finding::is_bug);
        self.status = if bug {
            Status::Failed
        } else {
            Status::Divergent
        };
        self.class = Some(if bug {
            CaseClass::Bug
        } else {
            CaseClass::Divergence
        });
    }

    /// Whether some finding is a bug.
    pub fn has_bug(&self) -> bool {
        self.findings.iter().any(Finding::is_bug)
    }

    /// Whether every bug finding it has was seen only under chunkings that cut a marker
    /// (R1.4): its severity is then shown as `synthetic only`.
    pub fn synthetic_only(&self) -> bool {
        let mut bugs = self.findings.iter().filter(|f| f.is_bug()).peekable();
        bugs.peek().is_some() && bugs.all(|f| f.realism == Some(Realism::Synthetic))
    }

    /// The reading its divergence follows, if it has one.
    pub fn divergence(&self) -> Option<&str> {
        self.findings.iter().find_map(|f| f.class.reading())
    }

    /// Every verdict of every finding, once each, in [`Verdict::ALL`] order.
    pub fn verdicts(&self) -> Vec<Verdict> {
        let mut all: Vec<Verdict> = self
            .findings
            .iter()
            .flat_map(|f| f.verdicts.iter().copied())
            .collect();
        all.sort();
        all.dedup();
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(verdicts: &[Verdict], chunking: &Chunking) -> Finding {
        Finding::new(
            "abcd",
            chunking,
            verdicts.iter().map(|&v| (v, String::new())).collect(),
        )
    }

    #[test]
    fn a_verdict_found_twice_is_named_once_with_both_details() {
        let found = vec![
            (Verdict::Reasoning, "text came out as reasoning".to_owned()),
            (Verdict::ChunkDependent, String::new()),
            (Verdict::Reasoning, "reasoning came out as text".to_owned()),
        ];
        let finding = Finding::new("abcd", &Chunking::whole(), found);
        assert_eq!(
            finding.verdicts,
            [Verdict::ChunkDependent, Verdict::Reasoning]
        );
        assert_eq!(finding.detail.lines().count(), 3);
    }

    #[test]
    fn one_finding_per_verdict_list_with_the_fewest_chunks() {
        let mut report = CaseReport::new("hermes/x", "hermes", "abcd");
        let whole = Chunking::whole();
        let per_char = Chunking::new(SplitKind::PerChar, "per-char", vec![1, 2, 3]);
        let cut = Chunking::new(SplitKind::Single, "cut@2", vec![2]);
        report.record(
            SplitKind::Whole,
            Some(finding(&[Verdict::LostText], &whole)),
        );
        report.record(
            SplitKind::PerChar,
            Some(finding(
                &[Verdict::ChunkDependent, Verdict::MissingCall],
                &per_char,
            )),
        );
        report.record(
            SplitKind::Single,
            Some(finding(
                &[Verdict::MissingCall, Verdict::ChunkDependent],
                &cut,
            )),
        );
        report.record(SplitKind::Single, None);
        assert_eq!(report.status, Status::Failed);
        assert_eq!(report.findings.len(), 2);
        // The lost call (high) goes before the lost text (medium) found first.
        assert_eq!(report.findings[0].splitting, "cut@2");
        assert_eq!(report.findings[0].layer, Layer::Streaming);
        assert_eq!(report.findings[0].severity, Some(Severity::High));
        assert_eq!(report.findings[1].layer, Layer::Conformance);
        assert_eq!(report.findings[1].severity, Some(Severity::Medium));
        assert_eq!(report.severity, Some(Severity::High));
        assert_eq!(
            report.tally["single"],
            Tally {
                passed: 1,
                failed: 1
            }
        );
        assert_eq!(report.replays, 4);
        assert_eq!(
            report.verdicts(),
            [
                Verdict::ChunkDependent,
                Verdict::LostText,
                Verdict::MissingCall
            ]
        );
    }
}
