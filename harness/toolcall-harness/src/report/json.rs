//! `report.json`: the whole run, every case with its findings, tallies and the candidate's
//! raw events (schema 7, `specs/runner.md` §6, R6.5), written so that it diffs (R6.6): no
//! time in it (that is `timings.json`, [`super::timings`]), each distinct output of the
//! candidate stored once in `outputs` and named by its index from the findings, invented call
//! ids renamed, what a reader derives left out ([`super::derived`]), and a layout with one
//! line per scalar field and per object or list that holds no object (a finding, a tally).

use std::io;

use serde_json::{Map, Value};

use super::RunReport;
use crate::normalize::{IdRenames, rename_invented_ids};

/// The schema version `report.json` is written in.
pub const SCHEMA: u32 = 7;

/// The report as JSON in the layout of [`layout`], ending in a newline. Each finding's events
/// have their invented call ids renamed here, on the events themselves, before they become
/// lines: a line need not read back as the same event (a call whose `input` is a string) for
/// its ids to be renamed.
pub fn render(report: &RunReport) -> io::Result<String> {
    let mut report = report.clone();
    for case in &mut report.cases {
        for finding in &mut case.findings {
            finding.events = rename_invented_ids(&finding.events, &case.stream);
        }
    }
    let mut value = serde_json::to_value(&report).map_err(io::Error::other)?;
    store_outputs_once(&mut value);
    super::derived::strip(&mut value);
    Ok(layout(&value))
}

/// Moves every finding's `events` (its JSON lines) into the report's `outputs`, each distinct
/// list once, in order of first appearance, and gives the finding its index as `output`;
/// call ids the case's stream does not spell are renamed first (`#1`, …), so that a parser's
/// random ids neither change the report from run to run nor keep equal outputs apart. A
/// report without `events` (schema 6 already) is left as it is.
pub(crate) fn store_outputs_once(report: &mut Value) {
    let mut outputs: Vec<Value> = Vec::new();
    let mut index: std::collections::HashMap<Vec<String>, usize> = Default::default();
    let Some(cases) = report.get_mut("cases").and_then(Value::as_array_mut) else {
        return;
    };
    for case in cases {
        let stream = string_at(case, "/stream");
        let Some(findings) = case.get_mut("findings").and_then(Value::as_array_mut) else {
            continue;
        };
        for finding in findings {
            let Some(object) = finding.as_object_mut() else {
                continue;
            };
            if !object.contains_key("events") {
                continue;
            }
            let lines: Vec<String> = object["events"]
                .as_array()
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(|l| l.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default();
            let lines = rename_ids_in_lines(&lines, &stream);
            let n = *index.entry(lines.clone()).or_insert_with(|| {
                outputs.push(Value::from(lines));
                outputs.len() - 1
            });
            let old = std::mem::take(object);
            for (key, value) in old {
                if key == "events" {
                    object.insert("output".to_owned(), Value::from(n));
                } else {
                    object.insert(key, value);
                }
            }
        }
    }
    if let Some(object) = report.as_object_mut()
        && !outputs.is_empty()
    {
        object.insert("outputs".to_owned(), Value::Array(outputs));
    }
}

/// The string at `pointer` in `value`; empty when there is none.
pub(crate) fn string_at(value: &Value, pointer: &str) -> String {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Event JSON lines (as an earlier `tch` stored them) with the call ids `source` does not
/// spell renamed as [`rename_invented_ids`] renames them, read from each line's JSON rather
/// than through [`crate::event::Event`], so that a line that does not read back as the same event is
/// renamed too; only the top-level `id` and `toolCallId` of a call event change, and the
/// rest of the line keeps its bytes. A line that is no call event stays as it is.
pub(crate) fn rename_ids_in_lines(lines: &[String], source: &str) -> Vec<String> {
    let mut renames = IdRenames::default();
    lines
        .iter()
        .map(|line| rename_ids_in_line(line, source, &mut renames))
        .collect()
}

fn rename_ids_in_line(line: &str, source: &str, renames: &mut IdRenames) -> String {
    /// What a line says of its call, the rest skipped unread: a call's input may nest past
    /// what a parse into a [`Value`] accepts (`specs/protocol.md` P1.2).
    #[derive(serde::Deserialize)]
    struct CallIds {
        #[serde(rename = "type")]
        kind: String,
        id: Option<String>,
        #[serde(rename = "toolCallId")]
        tool_call_id: Option<String>,
    }
    let Ok(call) = serde_json::from_str::<CallIds>(line) else {
        return line.to_owned();
    };
    if !matches!(
        call.kind.as_str(),
        "tool-input-start" | "tool-input-delta" | "tool-input-end" | "tool-call"
    ) {
        return line.to_owned();
    }
    let mut out = line.to_owned();
    for (key, id) in [("id", call.id), ("toolCallId", call.tool_call_id)] {
        let Some(id) = id else {
            continue;
        };
        let mut name = id.clone();
        renames.apply(source, &mut name);
        if name != id {
            // The compact writer puts the top-level ids before `input` and `delta`, so the
            // first occurrence is the event's own field.
            let field = |value: &str| format!("\"{key}\":{}", Value::from(value));
            out = out.replacen(&field(&id), &field(&name), 1);
        }
    }
    out
}

/// `value` as JSON with two-space indents, one line per scalar field, each array that holds
/// only scalars on one line (`"verdicts": ["lost-text", "order"]`, an output's event lines)
/// and each object whose fields hold no object on one line (a finding, a tally's counts, a
/// case with no findings): a change of one verdict or one count is a change of one line, and
/// what a pretty printer would spread over many lines stays together.
pub fn layout(value: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn write_value(out: &mut String, value: &Value, depth: usize) {
    match value {
        Value::Array(items) if !items.is_empty() && !all_scalars(items.iter()) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                indent(out, depth + 1);
                write_value(out, item, depth + 1);
            }
            out.push('\n');
            indent(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() && !flat(map.values()) => {
            write_object(out, map, depth)
        }
        _ => out.push_str(&inline(value)),
    }
}

fn write_object(out: &mut String, map: &Map<String, Value>, depth: usize) {
    out.push('{');
    for (i, (key, item)) in map.iter().enumerate() {
        out.push_str(if i == 0 { "\n" } else { ",\n" });
        indent(out, depth + 1);
        out.push_str(&Value::from(key.as_str()).to_string());
        out.push_str(": ");
        write_value(out, item, depth + 1);
    }
    out.push('\n');
    indent(out, depth);
    out.push('}');
}

/// A scalar, a list of scalars or an object of those, on one line with a space after each
/// `,` and `:`.
fn inline(value: &Value) -> String {
    match value {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(inline).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let fields: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("{}: {}", Value::from(k.as_str()), inline(v)))
                .collect();
            format!("{{{}}}", fields.join(", "))
        }
        scalar => scalar.to_string(),
    }
}

fn all_scalars<'v>(mut values: impl Iterator<Item = &'v Value>) -> bool {
    values.all(|v| !matches!(v, Value::Array(_) | Value::Object(_)))
}

/// Whether an object of these fields goes on one line: none is an object, and each list
/// holds only scalars.
fn flat<'v>(mut values: impl Iterator<Item = &'v Value>) -> bool {
    values.all(|v| match v {
        Value::Object(_) => false,
        Value::Array(items) => all_scalars(items.iter()),
        _ => true,
    })
}

fn indent(out: &mut String, depth: usize) {
    for _ in 0..depth {
        out.push_str("  ");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_of_scalars_stay_on_one_line_and_the_rest_is_indented() {
        let value = json!({"schema": 6, "verdicts": ["a", "b"], "tally": {"whole": {"passed": 1, "failed": 0}},
                           "empty": [], "cases": [{"case": "x", "findings": [{"verdicts": ["v"], "chunks": "1"}]}]});
        assert_eq!(
            layout(&value),
            "{\n  \"schema\": 6,\n  \"verdicts\": [\"a\", \"b\"],\n  \"tally\": {\n    \"whole\": \
             {\"passed\": 1, \"failed\": 0}\n  },\n  \"empty\": [],\n  \"cases\": [\n    {\n      \
             \"case\": \"x\",\n      \"findings\": [\n        {\"verdicts\": [\"v\"], \"chunks\": \"1\"}\n      \
             ]\n    }\n  ]\n}\n"
        );
        let back: Value = serde_json::from_str(&layout(&value)).expect("JSON");
        assert_eq!(back, value);
    }

    #[test]
    fn equal_outputs_are_stored_once_with_invented_ids_renamed() {
        let line = |id: &str| {
            format!(r#"{{"type":"tool-call","toolCallId":"{id}","toolName":"f","input":{{}}}}"#)
        };
        let mut report = json!({"schema": 6, "cases": [
            {"case": "a", "stream": "s", "findings": [
                {"verdicts": ["x"], "events": [line("call_1f")], "replay": "r"},
                {"verdicts": ["y"], "events": [line("call_9e")]}]},
            {"case": "b", "stream": "id7", "findings": [{"verdicts": ["x"], "events": [line("id7")]}]}
        ]});
        store_outputs_once(&mut report);
        assert_eq!(report["outputs"], json!([[line("#1")], [line("id7")]]));
        let first = &report["cases"][0]["findings"][0];
        assert_eq!(
            first
                .as_object()
                .expect("object")
                .keys()
                .collect::<Vec<_>>(),
            ["verdicts", "output", "replay"]
        );
        assert_eq!(report["cases"][0]["findings"][1]["output"], 0);
        assert_eq!(report["cases"][1]["findings"][0]["output"], 1);
        let again = report.clone();
        store_outputs_once(&mut report);
        assert_eq!(report, again, "a schema 6 report is left as it is");
    }

    #[test]
    fn render_renames_invented_ids_on_the_events_whatever_their_input() {
        use crate::event::{Event, ToolCall};
        use crate::judge::{CaseReport, Finding};
        use crate::report::{CandidateInfo, ReplayTemplate, RunReport, Summary};
        use crate::split::Chunking;

        let call = |id: &str| {
            Event::ToolCall(ToolCall {
                tool_call_id: id.into(),
                tool_name: "f".into(),
                input: Value::from("Paris"),
                extra: Map::new(),
            })
        };
        let mut case = CaseReport::new("hermes/x", "hermes", "stream");
        let mut finding = Finding::new("stream", &Chunking::whole(), Vec::new());
        finding.events = vec![call("call_7f3a")];
        case.findings.push(finding);
        let report = RunReport {
            schema: SCHEMA,
            tch_version: "0",
            candidate: CandidateInfo {
                argv: Vec::new(),
                name: "c".into(),
                dialects: Vec::new(),
            },
            seed: 1,
            splits: Vec::new(),
            replay: ReplayTemplate {
                command: "{case}{chunks}".into(),
                chunks: "{chunks}".into(),
            },
            summary: Summary::default(),
            root_causes: Vec::new(),
            cases: vec![case],
        };
        let written: Value =
            serde_json::from_str(&render(&report).expect("rendered")).expect("JSON");
        assert_eq!(written["outputs"], json!([[call("#1").to_json_line()]]));
    }

    #[test]
    fn ids_are_renamed_in_lines_that_do_not_read_back_as_events() {
        // A string `input` reads back as an object (`specs/events.md`), so the line is not
        // the event's own: its ids must be renamed all the same, the rest kept byte for byte.
        let lines = [
            r#"{"type":"tool-input-start","id":"call_x","toolName":"f"}"#.to_owned(),
            r#"{"type":"tool-call","toolCallId":"call_x","toolName":"f","input":"Paris"}"#
                .to_owned(),
            r#"{"type":"tool-call","toolCallId":"kept","toolName":"f","input":{"id":"call_y"}}"#
                .to_owned(),
            r#"{"type":"text-delta","delta":"call_z"}"#.to_owned(),
        ];
        // An input nested past serde_json's recursion limit (P1.2 allows 127 levels).
        let deep = format!(
            r#"{{"type":"tool-call","toolCallId":"call_x","toolName":"f","input":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(
            rename_ids_in_lines(&[lines[0].clone(), deep.clone()], "")[1],
            deep.replace("call_x", "#1")
        );
        assert_eq!(
            rename_ids_in_lines(&lines, "kept"),
            [
                r##"{"type":"tool-input-start","id":"#1","toolName":"f"}"##,
                r##"{"type":"tool-call","toolCallId":"#1","toolName":"f","input":"Paris"}"##,
                r#"{"type":"tool-call","toolCallId":"kept","toolName":"f","input":{"id":"call_y"}}"#,
                r#"{"type":"text-delta","delta":"call_z"}"#,
            ]
        );
    }
}
