//! `tch report rewrite DIR`: a report folder written by an earlier `tch` (`report.json` of
//! schema 2 to 5, with its `junit.xml`, `summary.md`, `bugs/` pages and `fuzz/*.json`) brought
//! to what this `tch` writes (`specs/runner.md` R6.6), from its files alone, without running
//! the candidate again: every time figure moved to `timings.json` (or, for fuzz campaigns,
//! dropped), each distinct output stored once, invented call ids renamed, a `superlinear`
//! finding's detail and a scaling case's note in their words that do not change, each scaling
//! case one replay (schema 6's first form counted each size fed). Rewriting a folder already
//! in the new form changes nothing. A bug page's inline reproduction program (a filled
//! template, from before the folder held the candidate's program once) stays as it is: the
//! program that reads stdin is only in the candidate's hello, so only a new run writes it.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;
use thiserror::Error;

use super::json::{layout, rename_ids_in_lines, store_outputs_once, string_at};
use super::timings::{self, CaseTiming, Timings};
use crate::judge::Status;
use crate::scaling::{NOT_JUDGED_NOTE, SUPERLINEAR_DETAIL, Series};

/// Why a folder could not be rewritten.
#[derive(Debug, Error)]
pub enum RewriteError {
    /// A file could not be read or written.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        error: std::io::Error,
    },
    /// A file is not the JSON it should be.
    #[error("{path}: not JSON: {error}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What serde said.
        error: serde_json::Error,
    },
    /// `report.json` declares a schema this `tch` does not rewrite.
    #[error(
        "{path}: report.json schema {found}; tch report rewrite reads schemas {} to {}",
        super::read::OLDEST_SCHEMA,
        super::json::SCHEMA
    )]
    Schema {
        /// The file.
        path: PathBuf,
        /// What it declares (0 when it declares none).
        found: u64,
    },
}

/// The fields of a `tch fuzz` campaign's `stats` (`fuzz.json`) that are time, not behaviour;
/// and of each `bySize` bucket. `tch fuzz` prints them and leaves them out of `fuzz.json`.
pub const FUZZ_TIME_FIELDS: [&str; 2] = ["seconds", "replaysPerSecond"];
/// The time fields of each `stats.bySize` bucket of `fuzz.json`.
pub const FUZZ_BUCKET_TIME_FIELDS: [&str; 3] = ["seconds", "meanMicros", "microsPerKiB"];

/// Removes the time fields ([`FUZZ_TIME_FIELDS`], [`FUZZ_BUCKET_TIME_FIELDS`]) from a
/// `fuzz.json` document; a document without them is left as it is.
pub fn drop_fuzz_times(fuzz: &mut Value) {
    let Some(stats) = fuzz.get_mut("stats").and_then(Value::as_object_mut) else {
        return;
    };
    for field in FUZZ_TIME_FIELDS {
        stats.remove(field);
    }
    if let Some(buckets) = stats.get_mut("bySize").and_then(Value::as_array_mut) {
        for bucket in buckets.iter_mut().filter_map(Value::as_object_mut) {
            for field in FUZZ_BUCKET_TIME_FIELDS {
                bucket.remove(field);
            }
        }
    }
}

/// A `fuzz.json` document as `tch fuzz` writes it: pretty, ending in a newline.
pub fn render_fuzz(fuzz: &Value) -> String {
    serde_json::to_string_pretty(fuzz).unwrap_or_default() + "\n"
}

/// What [`rewrite`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rewritten {
    /// The files whose bytes changed.
    pub changed: Vec<PathBuf>,
}

/// Rewrites the report folder `dir` in place (see the module's doc).
pub fn rewrite(dir: &Path) -> Result<Rewritten, RewriteError> {
    let mut done = Rewritten::default();
    let report_path = dir.join("report.json");
    let text = read(&report_path)?;
    let mut report: Value = serde_json::from_str(&text).map_err(|error| RewriteError::Json {
        path: report_path.clone(),
        error,
    })?;
    let schema = report.get("schema").and_then(Value::as_u64).unwrap_or(0);
    if !(u64::from(super::read::OLDEST_SCHEMA)..=u64::from(super::json::SCHEMA)).contains(&schema) {
        return Err(RewriteError::Schema {
            path: report_path,
            found: schema,
        });
    }
    let mut edits = Edits::default();
    if schema < u64::from(super::json::SCHEMA) {
        if let Some(timings) = take_timings(&mut report) {
            let path = dir.join(timings::FILE);
            let rendered = timings.render().map_err(|error| RewriteError::Io {
                path: path.clone(),
                error,
            })?;
            write_if_changed(&path, &rendered, &mut done)?;
        }
        steady_scaling_words(&mut report, &mut edits);
        rename_root_cause_ids(&mut report, &mut edits);
        store_outputs_once(&mut report);
        add_replay_template(&mut report);
        report["schema"] = Value::from(super::json::SCHEMA);
    }
    one_replay_per_series(&mut report);
    super::derived::strip(&mut report);
    write_if_changed(&report_path, &layout(&report), &mut done)?;

    let junit = dir.join("junit.xml");
    if junit.exists() {
        let text = edits.apply(&without_time_attributes(&read(&junit)?), Form::Indented);
        write_if_changed(&junit, &text, &mut done)?;
    }
    let summary = dir.join("summary.md");
    if summary.exists() {
        let text = steady_summary(&read(&summary)?, &report);
        write_if_changed(&summary, &edits.apply(&text, Form::FirstLine), &mut done)?;
    }
    for page in files(&dir.join("bugs"), "md")? {
        let text = edits.apply(&read(&page)?, Form::Whole);
        let name = page
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = edits.apply_ids(name, &text);
        write_if_changed(&page, &text, &mut done)?;
    }
    for campaign in files(&dir.join("fuzz"), "json")? {
        let mut fuzz: Value =
            serde_json::from_str(&read(&campaign)?).map_err(|error| RewriteError::Json {
                path: campaign.clone(),
                error,
            })?;
        drop_fuzz_times(&mut fuzz);
        write_if_changed(&campaign, &render_fuzz(&fuzz), &mut done)?;
    }
    Ok(done)
}

/// The time figures of an old report, taken out of it.
fn take_timings(report: &mut Value) -> Option<Timings> {
    let summary = report.get_mut("summary")?.as_object_mut()?;
    let seconds = summary.remove("seconds")?.as_f64().unwrap_or_default();
    let replays_per_second = summary
        .remove("replaysPerSecond")
        .and_then(|v| v.as_f64())
        .unwrap_or_default();
    let mut cases = Vec::new();
    for case in report.get_mut("cases")?.as_array_mut()? {
        let Some(case) = case.as_object_mut() else {
            continue;
        };
        let seconds = case
            .remove("seconds")
            .and_then(|v| v.as_f64())
            .unwrap_or_default();
        let scaling = case.get_mut("scaling").and_then(|scaling| {
            let series = serde_json::from_value::<Series>(scaling.clone()).ok();
            if let Some(object) = scaling.as_object_mut() {
                object.retain(|key, _| matches!(key.as_str(), "dialect" | "family" | "chunkBytes"));
            }
            series
        });
        cases.push(CaseTiming {
            case: case
                .get("case")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            seconds,
            scaling,
        });
    }
    Some(Timings {
        schema: timings::SCHEMA,
        seconds,
        replays_per_second,
        cases,
    })
}

/// The `replay` template (schema 7) read off the replay command of a finding that names a
/// chunk vector, as `tch run` writes one (`tch run … --case CASE … --chunks CHUNKS …`), and
/// put after `splits`; none when no finding has such a command (then every command stays).
/// [`super::derived::strip`] then leaves out each command the template gives, and keeps the
/// others as they are.
fn add_replay_template(report: &mut Value) {
    if report.get("replay").is_some() {
        return;
    }
    let template = report
        .get("cases")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .find_map(|case| {
            let id = case.get("case")?.as_str()?;
            case.get("findings")?
                .as_array()?
                .iter()
                .find_map(|finding| {
                    template_of(
                        finding.get("replay")?.as_str()?,
                        id,
                        finding.get("chunks")?.as_str()?,
                    )
                })
        });
    let (Some(template), Some(object)) = (template, report.as_object_mut()) else {
        return;
    };
    let old = std::mem::take(object);
    for (key, value) in old {
        let after = key == "splits";
        object.insert(key, value);
        if after {
            object.insert("replay".to_owned(), serde_json::json!(template));
        }
    }
    if !object.contains_key("replay") {
        object.insert("replay".to_owned(), serde_json::json!(template));
    }
}

/// The template of `command`, the replay of `case` under `chunks`, when it has the form
/// `… --case CASE … --chunks CHUNKS …` (each word as [`super::shell_quote`] writes it).
fn template_of(command: &str, case: &str, chunks: &str) -> Option<super::ReplayTemplate> {
    let braces = |text: &str| text.replace('{', "{{").replace('}', "}}");
    let case_word = format!(" --case {}", super::shell_quote(case));
    let chunks_word = format!(" --chunks {}", super::shell_quote(chunks));
    let (head, rest) = command.split_once(&case_word)?;
    let (middle, tail) = rest.split_once(&chunks_word)?;
    let template = super::ReplayTemplate {
        command: format!(
            "{} --case {{case}}{}{{chunks}}{}",
            braces(head),
            braces(middle),
            braces(tail)
        ),
        chunks: " --chunks {chunks}".to_owned(),
    };
    (template.fill(case, Some(chunks)) == command).then_some(template)
}

/// Each scaling case counted as one replay, its series, as `tch run` now counts it (R6.6: how
/// many sizes a series fed depends on the machine's speed), and the summary's `replays` the
/// sum of the cases' again. An earlier `tch` (schema 6 included) counted each size fed.
fn one_replay_per_series(report: &mut Value) {
    let Some(cases) = report.get_mut("cases").and_then(Value::as_array_mut) else {
        return;
    };
    let mut replays = 0;
    for case in cases.iter_mut() {
        if case.get("scaling").is_some() && case.get("replays").is_some() {
            case["replays"] = Value::from(1);
        }
        replays += case
            .get("replays")
            .and_then(Value::as_u64)
            .unwrap_or_default();
    }
    if let Some(summary) = report.get_mut("summary").and_then(Value::as_object_mut)
        && summary.contains_key("replays")
    {
        summary.insert("replays".to_owned(), Value::from(replays));
    }
}

/// Every `superlinear` finding's and root cause's detail made [`SUPERLINEAR_DETAIL`], and
/// every scaling case's `not judged` note [`NOT_JUDGED_NOTE`]; the old texts are kept in
/// `edits` for the other files.
fn steady_scaling_words(report: &mut Value, edits: &mut Edits) {
    if let Some(roots) = report.get_mut("rootCauses").and_then(Value::as_array_mut) {
        roots.iter_mut().for_each(|root| steady_detail(root, edits));
    }
    let Some(cases) = report.get_mut("cases").and_then(Value::as_array_mut) else {
        return;
    };
    for case in cases {
        if case.get("scaling").is_none() {
            continue;
        }
        if let Some(findings) = case.get_mut("findings").and_then(Value::as_array_mut) {
            findings.iter_mut().for_each(|f| steady_detail(f, edits));
        }
        if let Some(notes) = case.get_mut("notes").and_then(Value::as_array_mut) {
            for note in notes {
                if let Some(old) = note.as_str()
                    && old.starts_with("not judged:")
                    && old != NOT_JUDGED_NOTE
                {
                    edits
                        .texts
                        .push((old.to_owned(), NOT_JUDGED_NOTE.to_owned()));
                    *note = Value::from(NOT_JUDGED_NOTE);
                }
            }
        }
    }
}

/// A finding's or root cause's detail made [`SUPERLINEAR_DETAIL`] when its only verdict is
/// `superlinear`.
fn steady_detail(object: &mut Value, edits: &mut Edits) {
    let superlinear =
        object.get("verdicts").and_then(Value::as_array) == Some(&vec![Value::from("superlinear")]);
    if superlinear
        && let Some(detail) = object.get_mut("detail")
        && let Some(old) = detail.as_str()
        && old != SUPERLINEAR_DETAIL
    {
        edits
            .texts
            .push((old.to_owned(), SUPERLINEAR_DETAIL.to_owned()));
        *detail = Value::from(SUPERLINEAR_DETAIL);
    }
}

/// Each root cause's actual events with invented ids renamed against its minimal stream, as
/// triage now stores them; the renames are kept in `edits` for its page.
fn rename_root_cause_ids(report: &mut Value, edits: &mut Edits) {
    let Some(roots) = report.get_mut("rootCauses").and_then(Value::as_array_mut) else {
        return;
    };
    for (n, root) in roots.iter_mut().enumerate() {
        let stream = string_at(root, "/minimal/stream");
        let slug = string_at(root, "/slug");
        let Some(actual) = root.get_mut("actual").and_then(Value::as_array_mut) else {
            continue;
        };
        let lines: Vec<String> = actual
            .iter()
            .filter_map(|l| l.as_str().map(str::to_owned))
            .collect();
        let renamed = rename_ids_in_lines(&lines, &stream);
        let page = format!("{:02}-{slug}.md", n + 1);
        for (old, new) in lines.iter().zip(&renamed).filter(|(a, b)| a != b) {
            edits.lines.push((page.clone(), old.clone(), new.clone()));
        }
        *actual = renamed.into_iter().map(Value::from).collect();
    }
}

/// Old texts and what replaces them in the other files of the folder.
#[derive(Default)]
struct Edits {
    /// Whole details and notes: (old, new).
    texts: Vec<(String, String)>,
    /// Event lines of a bug page: (page file name, old, new).
    lines: Vec<(String, String, String)>,
}

/// How a detail appears in a file.
#[derive(Clone, Copy)]
enum Form {
    /// Each line indented by two spaces (a finding in `junit.xml`).
    Indented,
    /// Its first line only (a failing case's line in `summary.md`).
    FirstLine,
    /// As it is, fenced (a bug page).
    Whole,
}

impl Edits {
    fn apply(&self, text: &str, form: Form) -> String {
        let mut text = text.to_owned();
        for (old, new) in &self.texts {
            // A note stands on a line of its own (`note: …`) wherever it is shown.
            if !old.contains('\n') {
                text = text.replace(&format!("note: {old}"), &format!("note: {new}"));
            }
            let (old, new) = match form {
                Form::Indented => (indented(old), indented(new)),
                Form::FirstLine => (
                    old.lines().next().unwrap_or_default().to_owned(),
                    new.lines().next().unwrap_or_default().to_owned(),
                ),
                Form::Whole => (old.trim_end().to_owned(), new.clone()),
            };
            if !old.trim().is_empty() {
                text = text.replace(&old, &new);
            }
        }
        text
    }

    fn apply_ids(&self, page: &str, text: &str) -> String {
        let mut text = text.to_owned();
        for (_, old, new) in self.lines.iter().filter(|(p, _, _)| p == page) {
            text = text.replace(old, new);
        }
        text
    }
}

fn indented(text: &str) -> String {
    text.lines().map(|line| format!("  {line}\n")).collect()
}

/// `junit.xml` without its `time="…"` attributes (they occur in tags only: a `"` in text is
/// `&quot;`).
fn without_time_attributes(xml: &str) -> String {
    let mut out = String::with_capacity(xml.len());
    let mut rest = xml;
    while let Some(at) = rest.find(" time=\"") {
        out.push_str(&rest[..at]);
        let after = &rest[at + " time=\"".len()..];
        rest = after.find('"').map_or("", |end| &after[end + 1..]);
    }
    out.push_str(rest);
    out
}

/// `summary.md` with the counts' line without time and the scaling table without figures, as
/// [`super::markdown`] writes them now.
fn steady_summary(text: &str, report: &Value) -> String {
    let mut out = String::with_capacity(text.len());
    let counted = report
        .pointer("/summary/replays")
        .and_then(Value::as_u64)
        .and_then(|n| usize::try_from(n).ok());
    for line in text.split_inclusive('\n') {
        // `**…**, N replays in S s (R replays/s).` (before schema 6) or `**…**, N replays.`,
        // its count made the report's (scaling series counted once).
        if let Some(bold_end) = line.rfind("**, ")
            && line.starts_with("**")
            && let Some(count_end) = line[bold_end..].find(" replays")
            && let Ok(replays) = line[bold_end + 4..bold_end + count_end].parse::<usize>()
        {
            let replays = counted.unwrap_or(replays);
            out.push_str(&super::markdown::headline(&line[2..bold_end], replays));
            out.push('\n');
        } else {
            out.push_str(line);
        }
    }
    // The scaling table is the last section: written anew.
    if let Some(at) = out.find("\n### Scaling (") {
        out.truncate(at);
    }
    let status = |case: &Value| {
        serde_json::from_value::<Status>(case.get("status").cloned().unwrap_or_default())
            .unwrap_or(Status::Skipped)
    };
    let cases = report
        .get("cases")
        .and_then(Value::as_array)
        .map(|cases| cases.as_slice())
        .unwrap_or_default();
    super::markdown::scaling(
        &mut out,
        cases
            .iter()
            .filter(|c| c.get("scaling").is_some())
            .map(|c| {
                (
                    c.get("case").and_then(Value::as_str).unwrap_or_default(),
                    status(c),
                )
            }),
    );
    out
}

fn read(path: &Path) -> Result<String, RewriteError> {
    fs::read_to_string(path).map_err(|error| RewriteError::Io {
        path: path.to_owned(),
        error,
    })
}

fn write_if_changed(path: &Path, text: &str, done: &mut Rewritten) -> Result<(), RewriteError> {
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|error| RewriteError::Io {
        path: path.to_owned(),
        error,
    })?;
    done.changed.push(path.to_owned());
    Ok(())
}

/// The files of `dir` (not below it) ending in `.EXT`, in name order; none when `dir` is
/// absent.
fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, RewriteError> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Ok(Vec::new());
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == ext))
        .collect();
    paths.sort();
    Ok(paths)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn folder(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("tch-rewrite-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("scratch folder");
        dir
    }

    /// A schema 5 folder, as `tch` wrote it before R6.6: times in `report.json` and the
    /// summary, raw events per finding with a random id (one in a line that does not read
    /// back as its event: a string `input`), a scaling case counting each size it fed.
    #[test]
    fn an_old_folder_becomes_the_steady_form_and_stays_so() {
        let dir = folder("old");
        let call = r#"{"type":"tool-call","toolCallId":"call_9x","toolName":"f","input":"Paris"}"#;
        let report = json!({
            "schema": 5, "candidate": {"name": "c", "argv": ["c"]},
            "summary": {"passed": 1, "replays": 14, "seconds": 2.5, "replaysPerSecond": 5.6},
            "cases": [
                {"case": "hermes/x", "dialect": "hermes", "status": "failed", "replays": 3,
                 "seconds": 0.5, "stream": "s",
                 "findings": [
                    {"verdicts": ["wrong-call"], "kind": "whole", "chunks": "1", "events": [call],
                     "replay": "tch run --case hermes/x --seed 1 --report-dir 'r{x}' -- c"},
                    {"verdicts": ["lost-text"], "kind": "single", "chunks": "1,3", "events": [call],
                     "replay": "tch run --case hermes/x --seed 1 --chunks 1,3 --report-dir 'r{x}' -- c"},
                    {"verdicts": ["order"], "kind": "single", "chunks": "2,2", "events": [call],
                     "replay": "a command of another form"}]},
                {"case": "hermes/scaling/prose", "dialect": "hermes", "status": "passed",
                 "replays": 11, "seconds": 2.0,
                 "scaling": {"dialect": "hermes", "family": "prose", "chunkBytes": 64,
                             "points": [{"bytes": 1024, "seconds": 0.1}], "exponent": 1.0}}
            ]
        });
        fs::write(dir.join("report.json"), report.to_string()).expect("written");
        fs::write(
            dir.join("summary.md"),
            "# c\n\n**1 passed**, 14 replays in 2.5 s (5.6 replays/s).\n",
        )
        .expect("written");

        let done = rewrite(&dir).expect("rewritten");
        assert_eq!(done.changed.len(), 3, "{done:?}");
        let written: Value =
            serde_json::from_str(&fs::read_to_string(dir.join("report.json")).expect("read"))
                .expect("JSON");
        assert_eq!(written["schema"], super::super::json::SCHEMA);
        assert_eq!(written["summary"].get("seconds"), None);
        assert_eq!(written["cases"][0].get("seconds"), None);
        assert_eq!(written["outputs"], json!([[call.replace("call_9x", "#1")]]));
        assert_eq!(
            written["replay"],
            json!({"command": "tch run --case {case} --seed 1{chunks} --report-dir 'r{{x}}' -- c",
                   "chunks": " --chunks {chunks}"})
        );
        let findings = &written["cases"][0]["findings"];
        assert_eq!(findings[0].get("replay"), None, "the template gives it");
        assert_eq!(findings[1].get("replay"), None, "the template gives it");
        assert_eq!(findings[2]["replay"], "a command of another form");
        let read = super::super::read::SavedReport::load(&dir.join("report.json")).expect("read");
        assert_eq!(
            read.cases[0].findings[1].replay.as_deref(),
            Some("tch run --case hermes/x --seed 1 --chunks 1,3 --report-dir 'r{x}' -- c")
        );
        assert_eq!(written["cases"][1]["replays"], 1, "a series is one replay");
        assert_eq!(written["summary"]["replays"], 4);
        assert_eq!(
            written["cases"][1]["scaling"],
            json!({"dialect": "hermes", "family": "prose", "chunkBytes": 64})
        );
        let summary = fs::read_to_string(dir.join("summary.md")).expect("read");
        assert!(summary.contains("**1 passed**, 4 replays.\n"), "{summary}");
        let timings = fs::read_to_string(dir.join(timings::FILE)).expect("timings.json");
        assert!(timings.contains("\"exponent\": 1.0"), "{timings}");

        assert_eq!(rewrite(&dir).expect("rewritten"), Rewritten::default());
        let _ = fs::remove_dir_all(&dir);
    }
}
