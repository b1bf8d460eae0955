//! Definition cases over the protocol (`specs/runner.md` §6): each `corpus/definitions` input
//! is sent in a `definition` request to candidates that announce `definitions`, and the
//! contract that comes back is compared with the expected one (or must be refused).

use serde_json::Value;

use crate::corpus::DefinitionCase;
use crate::normalize::canonical_numbers;
use crate::protocol::candidate::{Candidate, Fault};
use crate::runner::{CaseReport, Finding, RunOptions, Status, Verdict};

/// Runs every definition case through one candidate process (restarted after a fault, at most
/// `options.max_restarts` times). Cases are `n/a` when the candidate does not announce
/// `definitions`.
pub fn run(cases: &[DefinitionCase], options: &RunOptions, announced: bool) -> Vec<CaseReport> {
    let mut candidate: Option<Candidate> = None;
    let mut starts = 0;
    let mut reports = Vec::with_capacity(cases.len());
    for case in cases {
        let mut report = CaseReport {
            case: case.id.clone(),
            dialect: "definitions".into(),
            status: Status::Passed,
            findings: Vec::new(),
            replays: 0,
            max_extra_held_bytes: 0,
            notes: Vec::new(),
        };
        if !announced {
            report.status = Status::NotApplicable;
            reports.push(report);
            continue;
        }
        if candidate.is_none() {
            // The first start and `max_restarts` more.
            if starts > options.max_restarts {
                report.status = Status::Skipped;
                report.notes.push(format!(
                    "skipped: the candidate was restarted {} times",
                    options.max_restarts
                ));
                reports.push(report);
                continue;
            }
            starts += 1;
            candidate = Candidate::start(&options.argv, options.limits).ok();
        }
        report.replays = 1;
        let outcome = match candidate.as_mut() {
            Some(live) => live.definition(case.kind, &case.text),
            None => Err(Fault::Crash {
                status: "could not be restarted".into(),
                stderr_tail: String::new(),
            }),
        };
        let finding = match outcome {
            Err(fault) => {
                candidate = None;
                Some(finding(
                    Verdict::from_fault(&fault),
                    fault.to_string(),
                    String::new(),
                ))
            }
            Ok(reply) => judge(case.expected.as_ref(), reply),
        };
        if let Some(finding) = finding {
            report.findings.push(finding);
            report.status = Status::Failed;
        }
        reports.push(report);
    }
    if let Some(candidate) = candidate {
        candidate.shutdown();
    }
    reports
}

/// The finding, if the candidate's reply is not what the case expects.
fn judge(expected: Option<&Value>, reply: Result<Value, String>) -> Option<Finding> {
    match (expected, reply) {
        (None, Err(_)) => None,
        (None, Ok(value)) => Some(finding(
            Verdict::Definition,
            format!("an invalid definition was accepted as {value}"),
            String::new(),
        )),
        (Some(_), Err(reason)) => Some(finding(
            Verdict::Definition,
            format!("a valid definition was refused: {reason}"),
            String::new(),
        )),
        (Some(expected), Ok(mut actual)) => {
            let mut expected = expected.clone();
            canonical_numbers(&mut expected);
            canonical_numbers(&mut actual);
            (expected != actual).then(|| {
                let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default() + "\n";
                let (want, got) = (pretty(&expected), pretty(&actual));
                let diff = similar::TextDiff::from_lines(&want, &got)
                    .unified_diff()
                    .header("expected", "actual")
                    .to_string();
                finding(Verdict::Definition, "the contract differs".into(), diff)
            })
        }
    }
}

fn finding(verdict: Verdict, detail: String, diff: String) -> Finding {
    Finding {
        verdict,
        splitting: "definition".into(),
        chunks: Vec::new(),
        detail,
        diff,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn judges_contracts_and_refusals() {
        let contract = json!({"name": "t", "n": 1});
        assert_eq!(
            judge(Some(&contract), Ok(json!({"n": 1.0, "name": "t"}))),
            None
        );
        assert_eq!(judge(None, Err("bad".into())), None);
        let differs = judge(Some(&contract), Ok(json!({"name": "u", "n": 1}))).expect("a finding");
        assert!(
            differs.diff.contains("-  \"name\": \"t\""),
            "{}",
            differs.diff
        );
        assert!(judge(None, Ok(contract.clone())).is_some());
        assert!(judge(Some(&contract), Err("no".into())).is_some());
    }
}
