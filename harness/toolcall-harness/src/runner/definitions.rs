//! Definition cases over the protocol (`specs/runner.md` §7): each `corpus/definitions` input
//! is sent in a `definition` request to candidates that announce `definitions`, and the
//! contract that comes back is compared with the expected one (or must be refused). They run
//! in the same job queue, through the same processes, as the stream cases.

use serde_json::Value;

use crate::corpus::DefinitionCase;
use crate::judge::{CaseReport, Finding, Sides, Status, Verdict, diff, verdict_of};
use crate::normalize::canonical_numbers;
use crate::split::Chunking;
use crate::supervisor::{Handle, ReplayError};

/// Runs one definition case through the job's candidate; `n/a` when the candidate does not
/// announce `definitions`.
pub fn run_case(case: &DefinitionCase, handle: &mut Handle<'_>) -> CaseReport {
    let mut report = CaseReport::new(&case.id, "definitions", &case.text);
    if !handle.hello().definitions {
        report.status = Status::NotApplicable;
        return report;
    }
    let request = Chunking::new(crate::split::SplitKind::Whole, "definition", Vec::new());
    let finding = match handle.definition(case.kind, &case.text) {
        Ok(reply) => judge(case.expected.as_ref(), reply)
            .map(|(detail, diff)| finding(&case.text, &request, Verdict::Definition, detail, diff)),
        Err(ReplayError::Fault(fault)) => Some(finding(
            &case.text,
            &request,
            verdict_of(&fault),
            fault.to_string(),
            String::new(),
        )),
        Err(error) => {
            report.status = Status::Skipped;
            report.notes.push(format!("skipped: {error}"));
            return report;
        }
    };
    report.record(request.kind, finding);
    report
}

/// What is wrong with the candidate's reply, if anything: a detail and a diff.
fn judge(expected: Option<&Value>, reply: Result<Value, String>) -> Option<(String, String)> {
    match (expected, reply) {
        (None, Err(_)) => None,
        (None, Ok(value)) => Some((
            format!("an invalid definition was accepted as {value}"),
            String::new(),
        )),
        (Some(_), Err(reason)) => Some((
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
                (
                    "the contract differs".to_owned(),
                    diff::text(&want, &got, Sides::EXPECTED),
                )
            })
        }
    }
}

fn finding(
    text: &str,
    request: &Chunking,
    verdict: Verdict,
    detail: String,
    diff: String,
) -> Finding {
    Finding::new(text, request, vec![(verdict, detail)]).with_diff(diff)
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
        let (_, diff) =
            judge(Some(&contract), Ok(json!({"name": "u", "n": 1}))).expect("a finding");
        assert!(diff.contains("-  \"name\": \"t\""), "{diff}");
        assert!(judge(None, Ok(contract.clone())).is_some());
        assert!(judge(Some(&contract), Err("no".into())).is_some());
    }
}
