//! `tch diff BASE NEW` (`specs/matrix.md` §4): how each case changed between two runs, and the
//! changes as plain text or as Markdown for a pull request's comment.

use std::fmt::Write as _;

use super::read::{SavedCase, SavedReport};
use crate::judge::Status;

/// How a case changed, in the order the changes are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Failed in NEW, and neither failed nor fixed in BASE (or not there at all).
    NewlyFailing,
    /// Passes in NEW (passed or fixed), failed or known to fail in BASE.
    NewlyPassing,
    /// Failing in both (failed or known failure), with another status, severity or verdicts.
    StillFailingChanged,
    /// Divergent in NEW (a documented alternative reading, `specs/runner.md` R3.5), and not in
    /// BASE, or following another reading there: no bug, listed apart.
    Divergence,
    /// In both, any other change of status (`passed` to `skipped`, `n/a` to `passed`, …).
    OtherStatus,
    /// Only in BASE.
    OnlyInBase,
    /// Only in NEW, and not failed there.
    OnlyInNew,
}

impl Change {
    /// Every change, in the order they are listed.
    pub const ALL: [Change; 7] = [
        Change::NewlyFailing,
        Change::NewlyPassing,
        Change::StillFailingChanged,
        Change::Divergence,
        Change::OtherStatus,
        Change::OnlyInBase,
        Change::OnlyInNew,
    ];

    /// Its heading.
    pub fn title(self) -> &'static str {
        match self {
            Change::NewlyFailing => "newly failing",
            Change::NewlyPassing => "newly passing",
            Change::StillFailingChanged => "still failing but changed",
            Change::Divergence => "divergences (documented alternative readings, not bugs)",
            Change::OtherStatus => "other status changes",
            Change::OnlyInBase => "only in BASE",
            Change::OnlyInNew => "only in NEW",
        }
    }

    /// How `case` changed from `base` to `new`; `None` when it did not (M4.1).
    pub fn of(base: Option<&SavedCase>, new: Option<&SavedCase>) -> Option<Change> {
        let wrong = |status| matches!(status, Status::Failed | Status::KnownFailure);
        match (base, new) {
            (None, None) => None,
            (Some(_), None) => Some(Change::OnlyInBase),
            (None, Some(new)) if new.status == Status::Failed => Some(Change::NewlyFailing),
            (None, Some(new)) if new.status == Status::Divergent => Some(Change::Divergence),
            (None, Some(_)) => Some(Change::OnlyInNew),
            (Some(base), Some(new)) => {
                if new.status == Status::Failed && !base.status.fails_the_run() {
                    Some(Change::NewlyFailing)
                } else if new.status == Status::Divergent
                    && (base.status != Status::Divergent || base.divergence() != new.divergence())
                {
                    Some(Change::Divergence)
                } else if matches!(new.status, Status::Passed | Status::Fixed) && wrong(base.status)
                {
                    Some(Change::NewlyPassing)
                } else if wrong(base.status) && wrong(new.status) {
                    let changed = base.status != new.status
                        || base.severity() != new.severity()
                        || base.verdicts() != new.verdicts();
                    changed.then_some(Change::StillFailingChanged)
                } else {
                    (base.status != new.status).then_some(Change::OtherStatus)
                }
            }
        }
    }
}

/// One case that changed.
#[derive(Debug, Clone)]
pub struct CaseChange<'r> {
    /// The case id.
    pub case: &'r str,
    /// How.
    pub change: Change,
    /// It in BASE.
    pub base: Option<&'r SavedCase>,
    /// It in NEW.
    pub new: Option<&'r SavedCase>,
}

impl CaseChange<'_> {
    /// `passed → high: missing-call`; one side when the case is only in one report.
    pub fn transition(&self) -> String {
        match (self.base, self.new) {
            (Some(base), Some(new)) => format!("{} → {}", base.outcome(), new.outcome()),
            (Some(only), None) | (None, Some(only)) => only.outcome(),
            (None, None) => String::new(),
        }
    }

    /// The command that replays NEW's worst finding, when NEW has one.
    pub fn replay(&self) -> Option<&str> {
        self.new?.findings.first()?.replay.as_deref()
    }
}

/// Two runs compared.
#[derive(Debug, Clone)]
pub struct Comparison<'r> {
    /// The base run and how to name it.
    pub base: (&'r SavedReport, &'r str),
    /// The new run and how to name it.
    pub new: (&'r SavedReport, &'r str),
    /// The cases that changed: BASE's order, then those only in NEW in NEW's order.
    pub changes: Vec<CaseChange<'r>>,
}

impl<'r> Comparison<'r> {
    /// Compares `base` with `new`, each with the label (a file name) it is shown under.
    pub fn of(base: (&'r SavedReport, &'r str), new: (&'r SavedReport, &'r str)) -> Self {
        let ids = base
            .0
            .cases
            .iter()
            .chain(
                new.0
                    .cases
                    .iter()
                    .filter(|c| base.0.case(&c.case).is_none()),
            )
            .map(|c| c.case.as_str());
        let changes = ids
            .filter_map(|case| {
                let (b, n) = (base.0.case(case), new.0.case(case));
                Change::of(b, n).map(|change| CaseChange {
                    case,
                    change,
                    base: b,
                    new: n,
                })
            })
            .collect();
        Comparison { base, new, changes }
    }

    /// The changes of one kind.
    pub fn of_kind(&self, change: Change) -> impl Iterator<Item = &CaseChange<'r>> {
        self.changes.iter().filter(move |c| c.change == change)
    }

    /// How many cases are newly failing: a pull request's check fails on any.
    pub fn newly_failing(&self) -> usize {
        self.of_kind(Change::NewlyFailing).count()
    }

    /// `2 newly failing, 1 newly passing, 3 only in BASE`: newly failing always, the other
    /// kinds when some case changed so.
    pub fn counts_line(&self) -> String {
        Change::ALL
            .iter()
            .map(|&change| (change, self.of_kind(change).count()))
            .filter(|&(change, n)| n > 0 || change == Change::NewlyFailing)
            .map(|(change, n)| format!("{n} {}", change.title()))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The comparison as plain text.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (side, (report, label)) in [("BASE", self.base), ("NEW ", self.new)] {
            let _ = writeln!(out, "{side} {label}\n     {}", run_line(report));
        }
        if self.changes.is_empty() {
            out.push_str("\nno differences\n");
            return out;
        }
        for change in Change::ALL {
            let cases: Vec<&CaseChange> = self.of_kind(change).collect();
            if cases.is_empty() {
                continue;
            }
            let _ = writeln!(out, "\n{} ({}):", capitalised(change.title()), cases.len());
            for case in cases {
                let _ = writeln!(out, "  {}: {}", case.case, case.transition());
                if change == Change::NewlyFailing
                    && let Some(replay) = case.replay()
                {
                    let _ = writeln!(out, "    replay: {replay}");
                }
            }
        }
        let _ = writeln!(out, "\n{}", self.counts_line());
        out
    }

    /// The comparison as Markdown, for a pull request's comment: newly failing cases in a
    /// table with their replay commands, every other kind folded in a `<details>`.
    pub fn markdown(&self) -> String {
        let mut md = String::from("### tch diff\n\n");
        for (side, (report, label)) in [("base", self.base), ("new", self.new)] {
            let _ = writeln!(md, "- {side} {}: {}", code(label), run_line(report));
        }
        md.push('\n');
        if self.changes.is_empty() {
            md.push_str("No differences.\n");
            return md;
        }
        let failing = self.newly_failing();
        let _ = writeln!(
            md,
            "{}{}\n",
            if failing > 0 { "**Regressions.** " } else { "" },
            self.counts_line()
        );
        for change in Change::ALL {
            let cases: Vec<&CaseChange> = self.of_kind(change).collect();
            if cases.is_empty() {
                continue;
            }
            let title = format!("{} ({})", capitalised(change.title()), cases.len());
            let open = change == Change::NewlyFailing;
            if open {
                let _ = writeln!(md, "#### {title}\n");
            } else {
                let _ = writeln!(md, "<details><summary>{title}</summary>\n");
            }
            md.push_str(if open {
                "| case | before → after | replay |\n| --- | --- | --- |\n"
            } else {
                "| case | before → after |\n| --- | --- |\n"
            });
            for case in cases {
                let _ = write!(
                    md,
                    "| {} | {} |",
                    code(case.case),
                    table_cell(&case.transition())
                );
                if open {
                    let _ = write!(md, " {} |", case.replay().map(code).unwrap_or_default());
                }
                md.push('\n');
            }
            md.push_str(if open { "\n" } else { "\n</details>\n\n" });
        }
        md
    }
}

/// `bug: x: 8/10 passed, 1 failed (1 medium), 1 known failure, 2 n/a, 0 skipped`.
fn run_line(report: &SavedReport) -> String {
    format!(
        "{}: {}",
        report.candidate.shown_name(),
        report.counts().line()
    )
}

fn capitalised(title: &str) -> String {
    let mut chars = title.chars();
    chars
        .next()
        .map(|first| first.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// `text` as a Markdown code span inside a table cell: fenced with more backticks than it
/// holds in a row, `|` escaped (GitHub splits cells on it even inside code), one line.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{}{pad}{fence}", table_cell(text))
}

/// `text` safe in a Markdown table cell: one line, `|` escaped.
fn table_cell(text: &str) -> String {
    text.replace(['\n', '\r'], " ").replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(status: &str, verdicts: &[&str]) -> SavedCase {
        let findings = if verdicts.is_empty() {
            String::new()
        } else {
            format!(
                r#", "findings": [{{"verdicts": {}, "layer": "conformance", "replay": "tch run x"}}]"#,
                serde_json::to_string(verdicts).expect("json")
            )
        };
        let json = format!(
            r#"{{"schema": 3, "candidate": {{}}, "cases": [{{"case": "h/a", "dialect": "h", "status": "{status}"{findings}}}]}}"#
        );
        SavedReport::parse(&json, "r.json")
            .expect("a report")
            .cases
            .remove(0)
    }

    #[test]
    fn each_pair_of_outcomes_is_one_change_or_none() {
        let passed = case("passed", &[]);
        let failed = case("failed", &["lost-text"]);
        let worse = case("failed", &["missing-call"]);
        let known = case("known-failure", &["lost-text"]);
        let fixed = case("fixed", &[]);
        let skipped = case("skipped", &[]);
        let na = case("not-applicable", &[]);
        let of = |b: &SavedCase, n: &SavedCase| Change::of(Some(b), Some(n));
        assert_eq!(of(&passed, &failed), Some(Change::NewlyFailing));
        assert_eq!(of(&known, &failed), Some(Change::NewlyFailing));
        assert_eq!(of(&skipped, &failed), Some(Change::NewlyFailing));
        assert_eq!(of(&na, &failed), Some(Change::NewlyFailing));
        assert_eq!(Change::of(None, Some(&failed)), Some(Change::NewlyFailing));
        // BASE's run already failed on a fixed case: not news, but a change.
        assert_eq!(of(&fixed, &failed), Some(Change::OtherStatus));
        assert_eq!(of(&failed, &passed), Some(Change::NewlyPassing));
        assert_eq!(of(&known, &fixed), Some(Change::NewlyPassing));
        assert_eq!(of(&failed, &worse), Some(Change::StillFailingChanged));
        assert_eq!(of(&failed, &known), Some(Change::StillFailingChanged));
        assert_eq!(of(&failed, &failed), None);
        assert_eq!(of(&known, &known), None);
        assert_eq!(of(&passed, &passed), None);
        assert_eq!(of(&passed, &skipped), Some(Change::OtherStatus));
        assert_eq!(of(&passed, &known), Some(Change::OtherStatus));
        assert_eq!(of(&fixed, &passed), Some(Change::OtherStatus));
        assert_eq!(Change::of(Some(&failed), None), Some(Change::OnlyInBase));
        assert_eq!(Change::of(None, Some(&passed)), Some(Change::OnlyInNew));
    }

    #[test]
    fn markdown_cells_hold_pipes_and_backticks() {
        assert_eq!(code("a|b"), "`a\\|b`");
        // CommonMark strips one space at both ends, and only at both.
        assert_eq!(code("echo `x`"), "`` echo `x` ``");
        assert_eq!(table_cell("a\nb|c"), "a b\\|c");
    }
}
