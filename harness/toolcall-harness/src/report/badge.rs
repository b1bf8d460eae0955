//! Badges (`tch matrix --badges`, `specs/matrix.md` §3): per candidate a shields.io endpoint
//! file, `{"schemaVersion":1,"label":"tch","message":"61/88 passed","color":"…"}`, coloured by
//! its pass ratio and its worst severity, whichever is worse.

use serde::Serialize;

use super::candidate_stem;
use super::read::SavedReport;
use crate::judge::Severity;

/// shields.io's named colours this page uses, best first.
const SCALE: [&str; 6] = [
    "brightgreen",
    "green",
    "yellowgreen",
    "yellow",
    "orange",
    "red",
];

/// The colour of a report with no case judged.
const NOTHING_JUDGED: &str = "lightgrey";

/// One shields.io endpoint badge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Badge {
    /// Always 1: the endpoint format's version.
    pub schema_version: u32,
    /// The left side: `tch`.
    pub label: &'static str,
    /// The right side: `61/88 passed`.
    pub message: String,
    /// A shields.io colour name.
    pub color: &'static str,
}

impl Badge {
    /// The badge of `report` (M3.2).
    pub fn of(report: &SavedReport) -> Badge {
        let counts = report.counts();
        let color = if counts.judged == 0 {
            NOTHING_JUDGED
        } else {
            let by_ratio = ratio_step(counts.passed, counts.judged);
            let by_severity = counts.worst.map_or(0, severity_step);
            SCALE[by_ratio.max(by_severity)]
        };
        Badge {
            schema_version: 1,
            label: "tch",
            message: counts.passed_line(),
            color,
        }
    }

    /// The endpoint file's contents, ending in a newline.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a badge serializes") + "\n"
    }
}

/// The step on [`SCALE`] of `passed` of `judged` cases: all `brightgreen`, then down by
/// thresholds to `red` below half.
fn ratio_step(passed: usize, judged: usize) -> usize {
    // Integer percent, rounded down, so that 94.9% is not `green`.
    let percent = passed * 100 / judged;
    match percent {
        100 => 0,
        95.. => 1,
        90.. => 2,
        75.. => 3,
        50.. => 4,
        _ => 5,
    }
}

/// The step on [`SCALE`] a worst severity allows at best.
fn severity_step(severity: Severity) -> usize {
    match severity {
        Severity::Low => 1,
        Severity::Medium => 3,
        Severity::High => 4,
        Severity::Critical => 5,
    }
}

/// Each report's badge file name (`NAME.json`, NAME its candidate's name made file-safe, M3.1),
/// with its badge; a name taken by an earlier report gets `-2`, `-3`, ….
pub fn badges(reports: &[SavedReport]) -> Vec<(String, Badge)> {
    let mut taken: Vec<String> = Vec::new();
    reports
        .iter()
        .map(|report| {
            let stem = candidate_stem(&report.candidate.name, &report.candidate.argv);
            let mut name = stem.clone();
            let mut n = 1;
            while taken.contains(&name) {
                n += 1;
                name = format!("{stem}-{n}");
            }
            taken.push(name.clone());
            (format!("{name}.json"), Badge::of(report))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, statuses: &[(&str, Option<&str>)]) -> SavedReport {
        let cases: Vec<String> = statuses
            .iter()
            .enumerate()
            .map(|(i, (status, severity))| {
                let severity = severity.map_or(String::new(), |s| format!(r#", "severity": "{s}""#));
                format!(
                    r#"{{"case": "hermes/{i}", "dialect": "hermes", "status": "{status}"{severity}}}"#
                )
            })
            .collect();
        let json = format!(
            r#"{{"schema": 3, "candidate": {{"name": "{name}", "argv": ["x"]}}, "cases": [{}]}}"#,
            cases.join(",")
        );
        SavedReport::parse(&json, "r.json").expect("a report")
    }

    #[test]
    fn the_colour_is_the_worse_of_the_pass_ratio_and_the_worst_severity() {
        let passed = ("passed", None);
        let badge = |cases: &[(&str, Option<&str>)]| Badge::of(&report("p", cases));
        assert_eq!(
            badge(&[passed, passed, ("not-applicable", None)]).to_json(),
            "{\"schemaVersion\":1,\"label\":\"tch\",\"message\":\"2/2 passed\",\"color\":\"brightgreen\"}\n"
        );
        // 19 of 20 pass (green by ratio); the one failure's severity decides.
        let mut cases = vec![passed; 19];
        for (severity, colour) in [
            ("low", "green"),
            ("medium", "yellow"),
            ("high", "orange"),
            ("critical", "red"),
        ] {
            cases.push(("failed", Some(severity)));
            assert_eq!(badge(&cases).color, colour, "{severity}");
            assert_eq!(badge(&cases).message, "19/20 passed");
            cases.pop();
        }
        // A known failure is still a bug: it colours the badge too.
        cases.push(("known-failure", Some("high")));
        assert_eq!(badge(&cases).color, "orange");
        // Low severity but a low ratio: the ratio decides.
        let mostly_failing = [passed, ("failed", Some("low")), ("failed", Some("low"))];
        assert_eq!(badge(&mostly_failing).color, "red");
        let none = badge(&[("not-applicable", None)]);
        assert_eq!(
            (none.message.as_str(), none.color),
            ("no case judged", "lightgrey")
        );
    }

    #[test]
    fn badge_files_are_named_after_candidates_made_file_safe_and_unique() {
        let reports = [
            report("tch serve 0.1.0", &[]),
            report("Bug: per-chunk parser!", &[]),
            report("tch serve 0.1.0", &[]),
            report("", &[]),
        ];
        let names: Vec<String> = badges(&reports).into_iter().map(|(name, _)| name).collect();
        assert_eq!(
            names,
            [
                "tch-serve-0-1-0.json",
                "bug--per-chunk-parser.json",
                "tch-serve-0-1-0-2.json",
                "x.json"
            ]
        );
        assert_eq!(candidate_stem("../../etc", &[]), "etc");
        assert_eq!(candidate_stem("  ", &[]), "candidate");
        assert_eq!(candidate_stem("ünï", &[]), "n");
        assert_eq!(
            candidate_stem("", &["python3".into(), "my_adapter.py".into()]),
            "my-adapter-py"
        );
    }
}
