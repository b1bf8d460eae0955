//! The conformance matrix (`tch matrix`, `specs/matrix.md` §2): one self-contained HTML page,
//! dialects and their cases down, candidates across, each cell a button coloured and labelled
//! by how the case ended, opening a panel with its findings. The page has no network access of
//! its own (inline CSS and script; the cells' details are a JSON document packed into it,
//! [`super::packed`]) and no timestamp, so the same reports always give the same page.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use serde_json::{Value, json};

use super::packed;
use super::read::{Counts, SavedCase, SavedReport};
use super::status_name;
use crate::judge::{Severity, Status};

/// Consecutive rows alike for every candidate that are folded into one (M2.3): folding two
/// would save one line for a click.
pub const MIN_MERGED_ROWS: usize = 3;

/// Verdicts a cell names before `+N` (M2.4); the panel lists them all.
pub const VERDICTS_IN_A_CELL: usize = 3;

/// The page of `reports`, one column each, in order.
pub fn render(reports: &[SavedReport]) -> String {
    Matrix::of(reports).html()
}

/// The reports laid out: columns, and rows grouped by dialect.
struct Matrix<'r> {
    reports: &'r [SavedReport],
    counts: Vec<Counts>,
    dialects: Vec<DialectRows<'r>>,
}

/// One dialect's rows, in the order its cases first appear.
struct DialectRows<'r> {
    name: &'r str,
    rows: Vec<Row<'r>>,
}

/// One case across every report.
struct Row<'r> {
    case: &'r str,
    stream: &'r str,
    cells: Vec<Cell<'r>>,
}

/// One case of one report.
enum Cell<'r> {
    /// In the report.
    Case(&'r SavedCase),
    /// Not in the report; its candidate does not speak the dialect.
    Unspoken,
    /// Not in the report, though its candidate speaks the dialect (a narrower run).
    NotRun,
}

impl Cell<'_> {
    /// The CSS class that colours it (M2.4).
    fn class(&self) -> &'static str {
        match self {
            Cell::Case(case) => match case.status {
                Status::Passed => "passed",
                Status::Divergent => "divergent",
                Status::Failed => case.severity().map_or("failed", Severity::name),
                // Still a bug, as bad as it is: the cell's text says it is known.
                Status::KnownFailure => case.severity().map_or("known", Severity::name),
                Status::Fixed => "fixed",
                Status::NotApplicable => "na",
                Status::Skipped => "skipped",
            },
            Cell::Unspoken => "na",
            Cell::NotRun => "not-run",
        }
    }

    /// Its text, severity first, at most `max_verdicts` verdicts.
    fn text(&self, max_verdicts: usize) -> String {
        match self {
            Cell::Case(case) => case.outcome_listing(max_verdicts),
            Cell::Unspoken => "n/a".to_owned(),
            Cell::NotRun => "not run".to_owned(),
        }
    }

    /// What makes two cells look alike: colour and full text.
    fn key(&self) -> (&'static str, String) {
        (self.class(), self.text(usize::MAX))
    }
}

/// A run of rows shown as one, or a row on its own.
enum Group<'m, 'r> {
    Single(&'m Row<'r>),
    Merged(&'m [Row<'r>]),
}

impl<'r> Matrix<'r> {
    fn of(reports: &'r [SavedReport]) -> Matrix<'r> {
        let mut dialects: Vec<DialectRows<'r>> = Vec::new();
        let mut seen: HashSet<&str> = HashSet::new();
        // Each report's cases by id: a row looks its case up in every report.
        let by_id: Vec<HashMap<&str, &SavedCase>> = reports
            .iter()
            .map(|r| r.cases.iter().map(|c| (c.case.as_str(), c)).collect())
            .collect();
        for report in reports {
            for case in &report.cases {
                if !seen.insert(&case.case) {
                    continue;
                }
                let at = match dialects.iter().position(|d| d.name == case.dialect) {
                    Some(at) => at,
                    None => {
                        dialects.push(DialectRows {
                            name: &case.dialect,
                            rows: Vec::new(),
                        });
                        dialects.len() - 1
                    }
                };
                let cells = reports
                    .iter()
                    .zip(&by_id)
                    .map(|(r, cases)| match cases.get(case.case.as_str()) {
                        Some(found) => Cell::Case(found),
                        None if r.candidate.speaks(&case.dialect) => Cell::NotRun,
                        None => Cell::Unspoken,
                    })
                    .collect();
                dialects[at].rows.push(Row {
                    case: &case.case,
                    stream: &case.stream,
                    cells,
                });
            }
        }
        Matrix {
            reports,
            counts: reports.iter().map(SavedReport::counts).collect(),
            dialects,
        }
    }

    fn html(&self) -> String {
        let mut html = String::new();
        let cases: usize = self.dialects.iter().map(|d| d.rows.len()).sum();
        let _ = write!(
            html,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>tch conformance matrix</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
             <header>\n<h1>tch conformance matrix</h1>\n<p>{} candidates, {cases} cases in {} \
             dialects. A cell is a case under a candidate: click it (or Tab to it and press \
             Enter) for its findings.</p>\n",
            self.reports.len(),
            self.dialects.len()
        );
        self.summary(&mut html);
        legend(&mut html);
        html.push_str("</header>\n<main class=\"layout\">\n<div class=\"table-wrap\">\n");
        let details = self.table(&mut html);
        html.push_str(
            "</div>\n<aside id=\"detail\" hidden aria-labelledby=\"detail-title\">\n\
             <button type=\"button\" id=\"detail-close\">Close</button>\n\
             <h2 id=\"detail-title\" tabindex=\"-1\"></h2>\n<div id=\"detail-body\"></div>\n\
             </aside>\n</main>\n",
        );
        let _ = write!(
            html,
            "<script type=\"application/octet-stream\" id=\"tch-data\" \
             data-packing=\"zlib-base64\">{}</script>\n<script>{SCRIPT}</script>\n\
             </body>\n</html>\n",
            packed::pack(details.to_string().as_bytes())
        );
        html
    }

    /// One line per candidate: its root causes first (`specs/runner.md` §9), then its counts,
    /// failures by severity, and what wrote the report; its root causes, worst first, under
    /// a disclosure.
    fn summary(&self, html: &mut String) {
        html.push_str("<ul class=\"summary\">\n");
        for (report, counts) in self.reports.iter().zip(&self.counts) {
            let seed = report.seed.map_or(String::new(), |s| format!(", seed {s}"));
            let headline = report
                .root_cause_headline()
                .map_or(String::new(), |h| format!("<b>{}</b>; ", escape(&h)));
            let _ = write!(
                html,
                "<li><b>{}</b>: {headline}{} <span class=\"meta\">(tch {}, report schema {}{seed})</span>",
                escape(report.candidate.shown_name()),
                counts.line(),
                escape(&report.tch_version),
                report.schema,
            );
            if !report.root_causes.is_empty() {
                html.push_str(
                    "<details><summary>root causes, worst first</summary><ol class=\"roots\">",
                );
                for root in &report.root_causes {
                    let only = if root.realism == "synthetic" {
                        ", synthetic only"
                    } else {
                        ""
                    };
                    let _ = write!(
                        html,
                        "<li><span class=\"{}\">{}{only}</span> {}: {} ({} cases)</li>",
                        root.severity.name(),
                        root.severity,
                        escape(&root.id),
                        escape(&root.title),
                        root.cases.len()
                    );
                }
                html.push_str("</ol></details>");
            }
            html.push_str("</li>\n");
        }
        html.push_str("</ul>\n");
    }

    /// The table; returns the details of its cells, indexed by their `data-cell`.
    fn table(&self, html: &mut String) -> Value {
        let mut cells: Vec<Value> = Vec::new();
        let mut rows: Vec<Value> = Vec::new();
        html.push_str("<table id=\"matrix\">\n<thead>\n<tr><th scope=\"col\">case</th>");
        for (report, counts) in self.reports.iter().zip(&self.counts) {
            let _ = write!(
                html,
                "<th scope=\"col\" class=\"candidate\"><span class=\"name\">{}</span> \
                 <span class=\"count\">{}</span></th>",
                escape(report.candidate.shown_name()),
                counts.passed_line()
            );
        }
        html.push_str("</tr>\n</thead>\n");
        let mut group_id = 0;
        for dialect in &self.dialects {
            let _ = write!(
                html,
                "<tbody>\n<tr class=\"dialect\"><th scope=\"rowgroup\" id=\"dialect-{0}\">{0}</th>",
                escape(dialect.name)
            );
            for (column, report) in self.reports.iter().enumerate() {
                let _ = write!(html, "<td>{}</td>", dialect.passed_line(column, report));
            }
            html.push_str("</tr>\n");
            for group in dialect.groups() {
                match group {
                    Group::Single(row) => {
                        self.row(html, row, None, &mut rows, &mut cells);
                    }
                    Group::Merged(members) => {
                        group_id += 1;
                        let _ = write!(
                            html,
                            "<tr class=\"merged\"><th scope=\"row\"><button type=\"button\" \
                             class=\"toggle\" data-group=\"{group_id}\" aria-expanded=\"false\">\
                             {} cases: identical</button></th>",
                            members.len()
                        );
                        for cell in &members[0].cells {
                            let _ = write!(
                                html,
                                "<td class=\"{0}\"><span class=\"cell {0}\">{1}</span></td>",
                                cell.class(),
                                cell_html(&cell.text(VERDICTS_IN_A_CELL))
                            );
                        }
                        html.push_str("</tr>\n");
                        for row in members {
                            self.row(html, row, Some(group_id), &mut rows, &mut cells);
                        }
                    }
                }
            }
            html.push_str("</tbody>\n");
        }
        html.push_str("</table>\n");
        let candidates: Vec<&str> = self
            .reports
            .iter()
            .map(|r| r.candidate.shown_name())
            .collect();
        json!({ "candidates": candidates, "rows": rows, "cells": cells })
    }

    /// One case's row; `member_of` a merged group, hidden until it is opened.
    fn row(
        &self,
        html: &mut String,
        row: &Row<'r>,
        member_of: Option<usize>,
        rows: &mut Vec<Value>,
        cells: &mut Vec<Value>,
    ) {
        let row_index = rows.len();
        rows.push(json!({ "case": row.case, "stream": row.stream }));
        let _ = match member_of {
            Some(group) => write!(
                html,
                "<tr data-case=\"{}\" data-member-of=\"{group}\" hidden>",
                escape(row.case)
            ),
            None => write!(html, "<tr data-case=\"{}\">", escape(row.case)),
        };
        let _ = write!(html, "<th scope=\"row\">{}</th>", escape(row.case));
        for (column, cell) in row.cells.iter().enumerate() {
            let text = cell.text(VERDICTS_IN_A_CELL);
            let full = cell.text(usize::MAX);
            // The row's and column's headers name the case and the candidate to a screen
            // reader; a label is needed only where the cell shows `+N` for some verdicts.
            let label = if text == full {
                String::new()
            } else {
                format!(" aria-label=\"{}\"", escape(&full))
            };
            let _ = write!(
                html,
                "<td class=\"{0}\"><button type=\"button\" class=\"cell {0}\" data-cell=\"{1}\" \
                 data-candidate=\"{column}\"{label}>{2}</button></td>",
                cell.class(),
                cells.len(),
                cell_html(&text)
            );
            cells.push(detail(row_index, column, cell));
        }
        html.push_str("</tr>\n");
    }
}

impl<'r> DialectRows<'r> {
    /// Its rows, runs of [`MIN_MERGED_ROWS`] or more alike for every candidate folded.
    fn groups(&self) -> Vec<Group<'_, 'r>> {
        let keys: Vec<Vec<(&str, String)>> = self
            .rows
            .iter()
            .map(|row| row.cells.iter().map(Cell::key).collect())
            .collect();
        let mut groups = Vec::new();
        let mut start = 0;
        while start < self.rows.len() {
            let run = keys[start..]
                .iter()
                .take_while(|key| **key == keys[start])
                .count();
            if run >= MIN_MERGED_ROWS {
                groups.push(Group::Merged(&self.rows[start..start + run]));
            } else {
                groups.extend(self.rows[start..start + run].iter().map(Group::Single));
            }
            start += run;
        }
        groups
    }

    /// `7/9 passed` for the candidate of `column`, or `n/a` when it speaks no case of it.
    fn passed_line(&self, column: usize, report: &SavedReport) -> String {
        let cases = self.rows.iter().filter_map(|row| match row.cells[column] {
            Cell::Case(case) => Some(case),
            _ => None,
        });
        let (mut passed, mut judged) = (0, 0);
        for case in cases {
            judged += usize::from(case.status.judged());
            passed += usize::from(case.status == Status::Passed);
        }
        if judged == 0 && !report.candidate.speaks(self.name) {
            "n/a".to_owned()
        } else {
            format!("{passed}/{judged} passed")
        }
    }
}

/// What the panel shows for one cell.
fn detail(row: usize, column: usize, cell: &Cell<'_>) -> Value {
    let case = match cell {
        Cell::Case(case) => *case,
        Cell::Unspoken => {
            return json!({ "row": row, "column": column,
                           "status": status_name(Status::NotApplicable) });
        }
        Cell::NotRun => {
            return json!({ "row": row, "column": column,
                           "status": "not run: the candidate's report has no such case" });
        }
    };
    let findings: Vec<Value> = case
        .findings
        .iter()
        .map(|f| {
            // A divergence has no severity: it says which reading it follows instead (R3.5).
            let severity = match &f.reading {
                Some(reading) => format!("divergence ({reading})"),
                None => f.severity().name().to_owned(),
            };
            json!({
                "severity": severity,
                "verdicts": f.verdicts,
                "layer": f.layer,
                "splitting": f.splitting,
                "chunks": f.chunks,
                "realism": f.realism,
                "detail": f.detail,
                "diff": f.diff,
                "replay": f.replay,
            })
        })
        .collect();
    json!({
        "row": row,
        "column": column,
        "status": status_name(case.status),
        "severity": case.severity().map(Severity::name),
        "reasons": case.reasons,
        "notes": case.notes,
        "replays": case.replays,
        "findings": findings,
    })
}

/// The legend: every colour with its words (M2.4).
fn legend(html: &mut String) {
    let mut entries: Vec<(&str, String)> = vec![
        ("passed", "passed".to_owned()),
        (
            "divergent",
            "divergent: follows a documented alternative reading, no bug".to_owned(),
        ),
    ];
    for severity in Severity::ALL {
        entries.push((
            severity.name(),
            format!("{severity}: {}", severity.meaning()),
        ));
    }
    entries.extend(
        [
            (
                "known",
                "known: listed in --expect-fail (coloured by severity)",
            ),
            ("fixed", "fixed: listed in --expect-fail but passes"),
            ("na", "n/a: the candidate does not speak the dialect"),
            (
                "skipped",
                "skipped: not run (too many restarts) or not judged (see its notes)",
            ),
            ("not-run", "not run: the candidate's run left the case out"),
        ]
        .map(|(class, text)| (class, text.to_owned())),
    );
    html.push_str("<ul class=\"legend\" aria-label=\"legend\">\n");
    for (class, text) in entries {
        let _ = writeln!(
            html,
            "<li><span class=\"swatch {class}\" aria-hidden=\"true\"></span>{}</li>",
            escape(&text)
        );
    }
    html.push_str("</ul>\n");
}

/// `text` safe in HTML text and in a quoted attribute.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A cell's text as HTML that wraps only between its words, not inside a verdict's name at
/// its hyphen (`chunk-dependent`): the same text, each name in a span that does not wrap.
fn cell_html(text: &str) -> String {
    text.split(", ")
        .map(|item| {
            item.split(": ")
                .map(|word| format!("<span class=\"nw\">{}</span>", escape(word)))
                .collect::<Vec<_>>()
                .join(": ")
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cells' details packed into a page [`render`] wrote, as its script unpacks them: for
/// tools and tests that read the page; `None` when `html` holds no such document.
pub fn details(html: &str) -> Option<Value> {
    const OPEN: &str = "id=\"tch-data\" data-packing=\"zlib-base64\">";
    let start = html.find(OPEN)? + OPEN.len();
    let end = start + html[start..].find("</script>")?;
    serde_json::from_slice(&packed::unpack(&html[start..end])?).ok()
}

const STYLE: &str = r#"
:root { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1b1b; background: #fff; }
body { margin: 0; padding: 1rem 1.5rem; }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; }
header p { margin: .2rem 0 .5rem; }
.summary { margin: .3rem 0; padding-left: 1.2rem; }
.meta { color: #555; font-size: .85em; }
.legend { display: flex; flex-wrap: wrap; gap: .3rem 1rem; list-style: none; padding: 0; margin: .5rem 0 1rem; font-size: .85rem; }
.legend li { display: flex; align-items: center; gap: .35rem; }
.swatch { display: inline-block; width: 1.1rem; height: 1.1rem; border: 1px solid #999; }
.layout { display: flex; gap: 1rem; align-items: flex-start; }
.table-wrap { flex: 1 1 auto; min-width: 0; overflow-x: auto; }
table { border-collapse: collapse; font-size: .85rem; }
th, td { border: 1px solid #d0d0d0; padding: 0; text-align: left; vertical-align: top; }
thead th { position: sticky; top: 0; background: #fff; padding: .3rem .5rem; z-index: 1; }
thead .name { display: block; font-weight: 600; }
thead .count { display: block; font-weight: normal; color: #444; }
th[scope=row] { padding: .25rem .5rem; font-weight: normal; font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; white-space: nowrap; }
tr.dialect th, tr.dialect td { background: #eef1f5; padding: .35rem .5rem; font-weight: 600; }
tr.dialect td { font-weight: normal; color: #333; }
.nw { white-space: nowrap; }
td { min-width: 8.5rem; }
.cell { display: block; box-sizing: border-box; width: 100%; min-height: 1.9rem; margin: 0; border: 0; padding: .25rem .5rem; font: inherit; text-align: left; color: inherit; }
button.cell { cursor: pointer; }
button.cell:hover { filter: brightness(.93); }
button:focus-visible, .selected { outline: 3px solid #1a5fb4; outline-offset: -3px; }
.toggle { font: inherit; border: 1px solid #999; border-radius: 3px; background: #f6f6f6; padding: .15rem .5rem; cursor: pointer; }
.toggle::before { content: "\25B8  "; }
.toggle[aria-expanded=true]::before { content: "\25BE  "; }
tr[data-member-of] th[scope=row] { padding-left: 1.5rem; }
.passed { background: #cdebd3; }
.fixed { background: #cdebd3; box-shadow: inset 0 0 0 2px #2f7d3b; }
.divergent { background: #e3f1e6; box-shadow: inset 0 0 0 2px #7a9cc6; }
.critical { background: #a51d2d; color: #fff; }
.high { background: #f0883e; }
.medium { background: #f6d56a; }
.low { background: #d4e4f7; }
.failed { background: #f3b0b0; }
.known { background: #ddd3f0; }
.na { background: #f3f3f3; color: #666; }
.skipped { background: repeating-linear-gradient(45deg, #e6e6e6 0 6px, #d2d2d2 6px 12px); }
.not-run { background: #fff; color: #666; box-shadow: inset 0 0 0 1px #aaa; }
#detail { flex: 0 0 min(40%, 38rem); box-sizing: border-box; position: sticky; top: 0; max-height: 100vh; overflow: auto; padding: .5rem 1rem 1rem; border: 1px solid #bbb; border-top: 4px solid #1a5fb4; background: #fafafa; }
#detail h2 { font-size: 1.1rem; margin: .4rem 0; font-family: ui-monospace, Menlo, Consolas, monospace; }
#detail h3 { font-size: 1rem; margin: 1rem 0 .3rem; }
#detail h4 { font-size: .85rem; margin: .6rem 0 .2rem; color: #444; }
#detail-close { float: right; font: inherit; cursor: pointer; }
#detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .15rem .8rem; margin: .3rem 0; }
#detail dt { font-weight: 600; }
#detail dd { margin: 0; }
#detail pre { background: #fff; border: 1px solid #ddd; padding: .4rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; font-size: .8rem; }
.finding { border-top: 1px solid #ccc; }
.diff .add { background: #dff3e2; }
.diff .del { background: #fbe0e0; }
.diff .hunk { color: #555; }
"#;

const SCRIPT: &str = r#"
(function () {
  "use strict";
  // The details are packed (zlib, then base64): unpacked once, by the browser's own
  // DecompressionStream, which reads a Blob and fetches nothing. window.tchMatrix is the
  // promise of them, for a test to wait on.
  var data = null;
  function unpack(text) {
    if (typeof DecompressionStream !== "function") {
      return Promise.reject(new Error("this browser has no DecompressionStream"));
    }
    var binary = atob(text.trim());
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) { bytes[i] = binary.charCodeAt(i); }
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text().then(JSON.parse);
  }
  var ready = unpack(document.getElementById("tch-data").textContent)
    .then(function (unpacked) { data = unpacked; return data; });
  window.tchMatrix = ready;
  var panel = document.getElementById("detail");
  var title = document.getElementById("detail-title");
  var body = document.getElementById("detail-body");
  var opener = null;
  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== null && text !== undefined) { e.textContent = text; }
    if (cls) { e.className = cls; }
    return e;
  }
  function field(dl, name, value) {
    if (value === null || value === undefined || value === "") { return; }
    if (Array.isArray(value)) { if (!value.length) { return; } value = value.join("; "); }
    dl.appendChild(el("dt", name));
    dl.appendChild(el("dd", String(value)));
  }
  function diff(text) {
    var pre = el("pre", null, "diff");
    text.replace(/\n$/, "").split("\n").forEach(function (line) {
      var cls = null;
      if (line.indexOf("@@") === 0) { cls = "hunk"; }
      else if (line[0] === "+" && line.indexOf("+++") !== 0) { cls = "add"; }
      else if (line[0] === "-" && line.indexOf("---") !== 0) { cls = "del"; }
      pre.appendChild(el("span", line + "\n", cls));
    });
    return pre;
  }
  function show(button) {
    var cell = data.cells[Number(button.dataset.cell)];
    var row = data.rows[cell.row];
    title.textContent = row.case + " under " + data.candidates[cell.column];
    while (body.firstChild) { body.removeChild(body.firstChild); }
    var dl = el("dl");
    field(dl, "case", row.case);
    field(dl, "candidate", data.candidates[cell.column]);
    field(dl, "status", cell.status);
    field(dl, "severity", cell.severity);
    field(dl, "expect-fail reasons", cell.reasons);
    field(dl, "notes", cell.notes);
    field(dl, "replays", cell.replays);
    body.appendChild(dl);
    (cell.findings || []).forEach(function (f, i) {
      var section = el("section", null, "finding");
      section.appendChild(el("h3", "Finding " + (i + 1) + ": " + f.severity + ": " + f.verdicts.join(", ")));
      var fdl = el("dl");
      field(fdl, "severity", f.severity);
      field(fdl, "verdicts", f.verdicts.join(", "));
      field(fdl, "layer", f.layer);
      field(fdl, "splitting", f.splitting);
      field(fdl, "chunks", f.chunks);
      field(fdl, "realism", f.realism);
      section.appendChild(fdl);
      if (f.detail) { section.appendChild(el("h4", "detail")); section.appendChild(el("pre", f.detail, "detail")); }
      if (f.diff) { section.appendChild(el("h4", "diff")); section.appendChild(diff(f.diff)); }
      if (f.replay) { section.appendChild(el("h4", "replay")); section.appendChild(el("pre", f.replay, "replay")); }
      body.appendChild(section);
    });
    if (row.stream) { body.appendChild(el("h3", "stream")); body.appendChild(el("pre", row.stream, "stream")); }
    if (opener) { opener.classList.remove("selected"); }
    opener = button;
    button.classList.add("selected");
    panel.hidden = false;
    title.focus();
  }
  function toggle(button) {
    var open = button.getAttribute("aria-expanded") !== "true";
    button.setAttribute("aria-expanded", String(open));
    var rows = document.querySelectorAll('tr[data-member-of="' + button.dataset.group + '"]');
    Array.prototype.forEach.call(rows, function (row) { row.hidden = !open; });
  }
  function close() {
    panel.hidden = true;
    if (opener) { opener.classList.remove("selected"); opener.focus(); }
  }
  document.getElementById("matrix").addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) { return; }
    if (button.dataset.cell !== undefined) {
      if (data) { show(button); }
      else {
        ready.then(function () { show(button); }, function (error) {
          title.textContent = "The details cannot be shown: " + error.message;
          while (body.firstChild) { body.removeChild(body.firstChild); }
          panel.hidden = false;
          title.focus();
        });
      }
    }
    else if (button.dataset.group !== undefined) { toggle(button); }
  });
  document.getElementById("detail-close").addEventListener("click", close);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !panel.hidden) { close(); }
  });
}());
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn report(name: &str, cases: &str) -> SavedReport {
        let json = format!(
            r#"{{"schema": 3, "tchVersion": "0.1.0",
                "candidate": {{"argv": [], "name": "{name}", "dialects": ["hermes"]}},
                "cases": [{cases}]}}"#
        );
        SavedReport::parse(&json, "r.json").expect("a report")
    }

    fn passed(case: &str) -> String {
        format!(r#"{{"case": "{case}", "dialect": "hermes", "status": "passed", "stream": "x"}}"#)
    }

    /// The details of the page, read back as the page's script reads them.
    fn blob(html: &str) -> Value {
        details(html).expect("the packed details")
    }

    #[test]
    fn a_stream_holding_a_script_end_tag_stays_inside_the_blob() {
        let hostile = r#"</script><script>alert(1)</script><!-- & \u2028"#;
        let case = serde_json::json!({
            "case": "hermes/x", "dialect": "hermes", "status": "failed", "stream": hostile,
            "findings": [{"verdicts": ["lost-text"], "layer": "conformance", "diff": hostile,
                          "detail": "lost-text: </SCRIPT >"}]
        });
        let html = render(&[report("<b>me</b>", &case.to_string())]);
        // Two script elements, each closed once; nothing else closes one.
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert_eq!(html.to_lowercase().matches("</script").count(), 2);
        assert!(html.contains("&lt;b&gt;me&lt;/b&gt;"));
        let data = blob(&html);
        assert_eq!(data["rows"][0]["stream"], hostile);
        assert_eq!(data["cells"][0]["findings"][0]["diff"], hostile);
        assert_eq!(data["candidates"][0], "<b>me</b>");
    }

    #[test]
    fn runs_of_rows_alike_for_every_candidate_are_folded_from_three_on() {
        let three = [passed("hermes/a"), passed("hermes/b"), passed("hermes/c")].join(",");
        let html = render(&[report("p", &three)]);
        assert_eq!(html.matches("class=\"merged\"").count(), 1);
        assert!(html.contains(">3 cases: identical</button>"));
        assert_eq!(html.matches("data-member-of=\"1\" hidden").count(), 3);

        let failing = r#"{"case": "hermes/c", "dialect": "hermes", "status": "failed",
                          "findings": [{"verdicts": ["missing-call"], "layer": "conformance"}]}"#;
        let two = [passed("hermes/a"), passed("hermes/b"), failing.to_owned()].join(",");
        let html = render(&[report("p", &two)]);
        assert!(!html.contains("class=\"merged\""), "two alike stay apart");
        assert!(html.contains(
            "<td class=\"high\"><button type=\"button\" class=\"cell high\" data-cell=\"2\" data-candidate=\"0\">\
             <span class=\"nw\">high</span>: <span class=\"nw\">missing-call</span></button>"
        ));
    }

    #[test]
    fn a_cell_that_names_only_some_verdicts_is_labelled_with_them_all() {
        let case = r#"{"case": "hermes/x", "dialect": "hermes", "status": "failed",
                       "findings": [{"verdicts": ["lost-text", "leaked-markup", "missing-call",
                                                  "extra-call"], "layer": "conformance"}]}"#;
        let html = render(&[report("p", case)]);
        assert!(html.contains(
            "aria-label=\"critical: lost-text, leaked-markup, missing-call, extra-call\">"
        ));
        assert!(html.contains("<span class=\"nw\">missing-call +1</span></button>"));
    }

    #[test]
    fn a_dialect_the_candidate_does_not_speak_is_na_and_a_case_left_out_is_not_run() {
        let tag = r#"{"case": "tag/t", "dialect": "tag", "status": "passed"}"#;
        let reports = [
            report("p", &[passed("hermes/a"), tag.to_owned()].join(",")),
            report("q", &passed("hermes/b")),
        ];
        let matrix = Matrix::of(&reports);
        let classes: Vec<Vec<&str>> = matrix
            .dialects
            .iter()
            .flat_map(|d| d.rows.iter())
            .map(|row| row.cells.iter().map(Cell::class).collect())
            .collect();
        // hermes/a, hermes/b, then tag/t: dialects and cases in the order they first appear.
        assert_eq!(
            classes,
            [
                ["passed", "not-run"],
                ["not-run", "passed"],
                ["passed", "na"]
            ]
        );
        assert_eq!(matrix.dialects[0].passed_line(1, &reports[1]), "1/1 passed");
        assert_eq!(matrix.dialects[1].passed_line(1, &reports[1]), "n/a");
    }

    #[test]
    fn escape_covers_text_and_quoted_attributes() {
        assert_eq!(
            escape(r#"<a href="x" title='y'>&</a>"#),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;"
        );
    }
}
