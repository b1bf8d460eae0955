//! What `report.json` leaves out because a reader derives it (`specs/runner.md` R6.5): each
//! finding's replay command, when it is the run's [`ReplayTemplate`] filled in, and each
//! case's stream, when it is the built-in corpus's for that case id. [`strip`] takes them
//! out of a report about to be written; [`restore`] puts them back into a report read.
//! Anything that differs from what a reader would derive stays written, so nothing is lost.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::read::SavedReport;
use super::replay::ReplayTemplate;
use crate::split::SplitKind;

/// The chunk vector a finding's replay command names: none for the whole stream or a scaling
/// case (as [`crate::judge::Finding::replay_chunks`] says), given the finding's `kind` and
/// `chunks` as `report.json` writes them.
fn replay_chunks<'f>(kind: &str, chunks: &'f str) -> Option<&'f str> {
    let needs = SplitKind::ALL
        .iter()
        .find(|k| k.name() == kind)
        .is_none_or(|k| k.replays_with_chunks());
    needs.then_some(chunks)
}

/// Each built-in corpus case's stream (a definition case's text) by its id.
fn bundled_streams() -> &'static HashMap<String, String> {
    static STREAMS: OnceLock<HashMap<String, String>> = OnceLock::new();
    STREAMS.get_or_init(|| {
        let mut streams = HashMap::new();
        // The built-in corpus parses (its tests say so); were it not to, nothing is derived.
        for case in crate::corpus::bundled_cases().unwrap_or_default() {
            streams.insert(case.id, case.stream);
        }
        for case in crate::corpus::bundled_definition_cases().unwrap_or_default() {
            streams.insert(case.id, case.text);
        }
        streams
    })
}

/// Takes out of `report` (a `report.json` document) each finding's `replay` that its
/// `replay` template gives and each case's `stream` that the built-in corpus gives.
pub fn strip(report: &mut Value) {
    let template = report
        .get("replay")
        .and_then(|t| serde_json::from_value::<ReplayTemplate>(t.clone()).ok());
    let Some(cases) = report.get_mut("cases").and_then(Value::as_array_mut) else {
        return;
    };
    for case in cases.iter_mut().filter_map(Value::as_object_mut) {
        let id = case
            .get("case")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if let Some(template) = &template
            && let Some(findings) = case.get_mut("findings").and_then(Value::as_array_mut)
        {
            for finding in findings.iter_mut().filter_map(Value::as_object_mut) {
                let text = |key: &str| finding.get(key).and_then(Value::as_str).unwrap_or("");
                let derived = template.fill(&id, replay_chunks(text("kind"), text("chunks")));
                if finding.get("replay").and_then(Value::as_str) == Some(derived.as_str()) {
                    finding.remove("replay");
                }
            }
        }
        let stream = case.get("stream").and_then(Value::as_str);
        if stream.is_some() && stream == bundled_streams().get(&id).map(String::as_str) {
            case.remove("stream");
        }
    }
}

/// Puts back into `report` what [`strip`] took out.
pub fn restore(report: &mut SavedReport) {
    let template = report.replay.clone();
    for case in &mut report.cases {
        if case.stream.is_empty()
            && let Some(stream) = bundled_streams().get(&case.case)
        {
            case.stream.clone_from(stream);
        }
        let Some(template) = &template else {
            continue;
        };
        for finding in &mut case.findings {
            if finding.replay.is_none() {
                let chunks = replay_chunks(&finding.kind, &finding.chunks);
                finding.replay = Some(template.fill(&case.case, chunks));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn template() -> ReplayTemplate {
        ReplayTemplate {
            command: "tch run --case {case}{chunks} -- c".into(),
            chunks: " --chunks {chunks}".into(),
        }
    }

    #[test]
    fn what_a_reader_derives_is_left_out_and_read_back() {
        let (id, stream) = bundled_streams().iter().next().expect("a built-in case");
        let mut report = json!({"schema": 7, "candidate": {"argv": ["c"], "name": "c"},
            "replay": template(), "cases": [
            {"case": id, "dialect": "d", "status": "failed", "stream": stream, "findings": [
                {"verdicts": ["lost-text"], "kind": "single", "chunks": "3",
                 "replay": template().fill(id, Some("3"))},
                {"verdicts": ["lost-text"], "kind": "whole", "chunks": "9",
                 "replay": template().fill(id, None)},
                {"verdicts": ["lost-text"], "kind": "random", "chunks": "1,2",
                 "replay": "a hand-made command"}]},
            {"case": "not/built-in", "dialect": "d", "status": "passed", "stream": "s"},
            {"case": id, "dialect": "d", "status": "passed", "stream": "another stream"}]});
        let original = report.clone();
        strip(&mut report);
        let cases = &report["cases"];
        assert!(cases[0].get("stream").is_none());
        assert!(cases[0]["findings"][0].get("replay").is_none());
        assert!(cases[0]["findings"][1].get("replay").is_none());
        assert_eq!(cases[0]["findings"][2]["replay"], "a hand-made command");
        assert_eq!(cases[1]["stream"], "s", "no built-in case of that id");
        assert_eq!(
            cases[2]["stream"], "another stream",
            "not the built-in stream"
        );

        // Reading restores them.
        let read = SavedReport::parse(&report.to_string(), "r").expect("a report");
        for (case, written) in read.cases.iter().zip(original["cases"].as_array().unwrap()) {
            assert_eq!(Some(case.stream.as_str()), written["stream"].as_str());
            let written = written["findings"].as_array().into_iter().flatten();
            for (finding, written) in case.findings.iter().zip(written) {
                assert_eq!(finding.replay.as_deref(), written["replay"].as_str());
            }
        }
    }
}
