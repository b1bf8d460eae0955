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
        html.push_str(
            "</header>\n<noscript><p class=\"no-table\">The table and its details are packed \
             in this page: showing them needs a browser with JavaScript and \
             <code>DecompressionStream</code>. The same results are readable without one in \
             each report's folder: <code>summary.md</code> and <code>report.json</code>.</p>\
             </noscript>\n<main class=\"layout\">\n<div class=\"table-wrap\">\n\
             <p id=\"table-status\" class=\"no-table\" role=\"status\" hidden></p>\n",
        );
        self.table_head(&mut html);
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
            packed::pack(self.document().to_string().as_bytes())
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

    /// The table with its column headers only: the page's script adds its rows from the
    /// packed document (M2.5).
    fn table_head(&self, html: &mut String) {
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
        html.push_str("</tr>\n</thead>\n</table>\n");
    }

    /// The document packed into the page (M2.5), from which its script builds the table's
    /// rows and fills the panel: `candidates` (the columns' names); `dialects`, each with
    /// its `name`, its pass `counts` per column and its `groups`, the sizes of its runs of
    /// rows in order (1 a row on its own, more a folded run, M2.3); `looks`, every distinct
    /// cell face as `[class, text]`, or `[class, text, label]` where the text leaves
    /// verdicts out (M2.4); `rows`, each case's `case`, `stream` and `looks` (one index into
    /// `looks` per column); `cells`, the details of row `r`'s cell in column `c` at
    /// `r * columns + c`, the cell's `data-cell`.
    fn document(&self) -> Value {
        let mut looks = Looks::default();
        let mut rows: Vec<Value> = Vec::new();
        let mut cells: Vec<Value> = Vec::new();
        let mut dialects: Vec<Value> = Vec::new();
        for dialect in &self.dialects {
            let counts: Vec<String> = self
                .reports
                .iter()
                .enumerate()
                .map(|(column, report)| dialect.passed_line(column, report))
                .collect();
            let groups = dialect.groups();
            dialects.push(json!({ "name": dialect.name, "counts": counts, "groups": groups }));
            for row in &dialect.rows {
                let row_index = rows.len();
                let faces: Vec<usize> = row.cells.iter().map(|cell| looks.index(cell)).collect();
                rows.push(json!({ "case": row.case, "stream": row.stream, "looks": faces }));
                cells.extend(
                    row.cells
                        .iter()
                        .enumerate()
                        .map(|(column, cell)| detail(row_index, column, cell)),
                );
            }
        }
        let candidates: Vec<&str> = self
            .reports
            .iter()
            .map(|r| r.candidate.shown_name())
            .collect();
        json!({
            "candidates": candidates,
            "dialects": dialects,
            "looks": looks.faces,
            "rows": rows,
            "cells": cells,
        })
    }
}

/// The distinct faces of the table's cells, each packed once: a matrix of thousands of cells
/// shows a few hundred (359 for the four committed reports' 7,048).
#[derive(Default)]
struct Looks {
    faces: Vec<Value>,
    seen: HashMap<(&'static str, String), usize>,
}

impl Looks {
    /// The index of `cell`'s face, added when new.
    fn index(&mut self, cell: &Cell<'_>) -> usize {
        let (class, full) = cell.key();
        let next = self.faces.len();
        *self
            .seen
            .entry((class, full))
            .or_insert_with_key(|(class, full)| {
                let text = cell.text(VERDICTS_IN_A_CELL);
                // The row's and column's headers name the case and the candidate to a screen
                // reader; a label is needed only where the cell shows `+N` for some verdicts.
                self.faces.push(if text == *full {
                    json!([class, text])
                } else {
                    json!([class, text, full])
                });
                next
            })
    }
}

impl<'r> DialectRows<'r> {
    /// The sizes of its rows' groups in order: a run of [`MIN_MERGED_ROWS`] or more alike for
    /// every candidate is one folded group, any other row a group of 1.
    fn groups(&self) -> Vec<usize> {
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
                groups.push(run);
            } else {
                groups.extend(std::iter::repeat_n(1, run));
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

/// The document packed into a page [`render`] wrote (its table's rows and its cells' details,
/// M2.5), as its script unpacks it: for tools and tests that read the page; `None` when `html`
/// holds no such document.
pub fn packed_document(html: &str) -> Option<Value> {
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
.no-table { margin: .5rem 0; padding: .5rem .8rem; border: 1px solid #a51d2d; background: #fbe0e0; }
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
  // The table's rows and the cells' details are packed (zlib, then base64): unpacked once,
  // by the browser's own DecompressionStream, which reads a Blob and fetches nothing, then
  // the rows built. window.tchMatrix is the promise of the document, resolved once the rows
  // are in the table, for a test to wait on.
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
  var table = document.getElementById("matrix");
  var ready = unpack(document.getElementById("tch-data").textContent)
    .then(function (unpacked) {
      data = unpacked;
      build();
      performance.mark("tch-table-built");
      return data;
    });
  ready.catch(function (error) {
    var status = document.getElementById("table-status");
    status.textContent = "The table cannot be shown: " + error.message + ". The same results " +
      "are readable in each report's folder: summary.md and report.json.";
    status.hidden = false;
  });
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
  function attributes(e, names) {
    Object.keys(names).forEach(function (name) { e.setAttribute(name, names[name]); });
    return e;
  }
  // A cell's words, each verdict's name in a span that does not wrap at its hyphen
  // (chunk-dependent): the text breaks only between words.
  function words(parent, text) {
    text.split(", ").forEach(function (item, i) {
      if (i) { parent.appendChild(document.createTextNode(", ")); }
      item.split(": ").forEach(function (word, j) {
        if (j) { parent.appendChild(document.createTextNode(": ")); }
        parent.appendChild(el("span", word, "nw"));
      });
    });
    return parent;
  }
  // The cell of `look` ([class, text, label?]): a button opening the panel when `index` is
  // that of its details, else (a folded run's shared cells) its words only.
  function cell(look, index, column) {
    var td = el("td", null, look[0]);
    var face = el(index === null ? "span" : "button", null, "cell " + look[0]);
    if (index !== null) {
      attributes(face, {"type": "button", "data-cell": String(index), "data-candidate": String(column)});
      if (look.length > 2) { face.setAttribute("aria-label", look[2]); }
    }
    td.appendChild(words(face, look[1]));
    return td;
  }
  function caseRow(index, group) {
    var row = data.rows[index];
    var tr = attributes(el("tr"), {"data-case": row.case});
    if (group !== null) { tr.setAttribute("data-member-of", group); tr.hidden = true; }
    tr.appendChild(attributes(el("th", row.case), {"scope": "row"}));
    row.looks.forEach(function (look, column) {
      tr.appendChild(cell(data.looks[look], index * data.candidates.length + column, column));
    });
    return tr;
  }
  // The rows, as the packed document lays them out (M2.2, M2.3): per dialect its row of
  // counts, then its runs, a run of more than one row folded under a toggle.
  function build() {
    var index = 0;
    var group = 0;
    var tbodies = document.createDocumentFragment();
    data.dialects.forEach(function (dialect) {
      var tbody = el("tbody");
      var head = el("tr", null, "dialect");
      head.appendChild(attributes(el("th", dialect.name), {"scope": "rowgroup", "id": "dialect-" + dialect.name}));
      dialect.counts.forEach(function (count) { head.appendChild(el("td", count)); });
      tbody.appendChild(head);
      dialect.groups.forEach(function (size) {
        var member = null;
        if (size > 1) {
          group += 1;
          member = String(group);
          var merged = el("tr", null, "merged");
          var toggle = attributes(el("button", size + " cases: identical", "toggle"),
            {"type": "button", "data-group": member, "aria-expanded": "false"});
          merged.appendChild(attributes(el("th"), {"scope": "row"})).appendChild(toggle);
          data.rows[index].looks.forEach(function (look) {
            merged.appendChild(cell(data.looks[look], null));
          });
          tbody.appendChild(merged);
        }
        for (var end = index + size; index < end; index++) { tbody.appendChild(caseRow(index, member)); }
      });
      tbodies.appendChild(tbody);
    });
    table.appendChild(tbodies);
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
  // The cells exist only once the document is unpacked, so a click always finds it.
  table.addEventListener("click", function (event) {
    var button = event.target.closest("button");
    if (!button) { return; }
    if (button.dataset.cell !== undefined) { show(button); }
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

    /// The document packed in the page, read back as the page's script reads it.
    fn blob(html: &str) -> Value {
        packed_document(html).expect("the packed document")
    }

    #[test]
    fn a_stream_holding_a_script_end_tag_stays_inside_the_blob() {
        let hostile = r#"</script><script>alert(1)</script><!-- & \u2028"#;
        let case = serde_json::json!({
            "case": "hermes/</script>", "dialect": "hermes", "status": "failed", "stream": hostile,
            "findings": [{"verdicts": ["lost-text"], "layer": "conformance", "diff": hostile,
                          "detail": "lost-text: </SCRIPT >"}]
        });
        let html = render(&[report("<b>me</b>", &case.to_string())]);
        // Two script elements, each closed once; nothing else closes one.
        assert_eq!(html.matches("</script>").count(), 2, "{html}");
        assert_eq!(html.to_lowercase().matches("</script").count(), 2);
        assert!(html.contains("&lt;b&gt;me&lt;/b&gt;"));
        let data = blob(&html);
        assert_eq!(data["rows"][0]["case"], "hermes/</script>");
        assert_eq!(data["rows"][0]["stream"], hostile);
        assert_eq!(data["cells"][0]["findings"][0]["diff"], hostile);
        assert_eq!(data["candidates"][0], "<b>me</b>");
    }

    #[test]
    fn the_table_is_packed_every_row_and_cell_of_it() {
        let tag = r#"{"case": "tag/t", "dialect": "tag", "status": "passed"}"#;
        let failing = r#"{"case": "hermes/c", "dialect": "hermes", "status": "failed",
                          "findings": [{"verdicts": ["missing-call"], "layer": "conformance"}]}"#;
        let reports = [
            report(
                "p",
                &[passed("hermes/a"), failing.to_owned(), tag.to_owned()].join(","),
            ),
            report("q", &[passed("hermes/b"), passed("hermes/a")].join(",")),
        ];
        let html = render(&reports);
        // Only the column headers are markup; every row is in the packed document.
        assert!(
            !html.contains("<tbody") && !html.contains("<tr data-case"),
            "{html}"
        );
        assert!(html.contains("<span class=\"name\">q</span>"));
        assert!(html.contains("<noscript>"));
        let data = blob(&html);
        let dialects = data["dialects"].as_array().expect("dialects");
        let names: Vec<&Value> = dialects.iter().map(|d| &d["name"]).collect();
        assert_eq!(names, [&json!("hermes"), &json!("tag")]);
        assert_eq!(dialects[0]["counts"], json!(["1/2 passed", "2/2 passed"]));
        assert_eq!(dialects[1]["counts"], json!(["1/1 passed", "n/a"]));
        assert_eq!(dialects[0]["groups"], json!([1, 1, 1]));
        let rows = data["rows"].as_array().expect("rows");
        let cases: Vec<&str> = rows
            .iter()
            .map(|r| r["case"].as_str().expect("id"))
            .collect();
        assert_eq!(cases, ["hermes/a", "hermes/c", "hermes/b", "tag/t"]);
        let faces: Vec<Vec<Value>> = rows
            .iter()
            .map(|row| {
                let looks = row["looks"].as_array().expect("one per column");
                looks
                    .iter()
                    .map(|at| data["looks"][at.as_u64().expect("index") as usize].clone())
                    .collect()
            })
            .collect();
        assert_eq!(
            faces,
            [
                [json!(["passed", "passed"]), json!(["passed", "passed"])],
                [
                    json!(["high", "high: missing-call"]),
                    json!(["not-run", "not run"])
                ],
                [json!(["not-run", "not run"]), json!(["passed", "passed"])],
                [json!(["passed", "passed"]), json!(["na", "n/a"])],
            ]
        );
        assert_eq!(
            data["looks"].as_array().expect("looks").len(),
            4,
            "each face once"
        );
        // A cell's details sit at row * columns + column, its data-cell.
        let cells = data["cells"].as_array().expect("cells");
        assert_eq!(cells.len(), rows.len() * 2);
        for (at, cell) in cells.iter().enumerate() {
            assert_eq!(
                (cell["row"].clone(), cell["column"].clone()),
                (json!(at / 2), json!(at % 2))
            );
        }
        assert_eq!(cells[2]["status"], "failed");
    }

    #[test]
    fn runs_of_rows_alike_for_every_candidate_are_folded_from_three_on() {
        let three = [passed("hermes/a"), passed("hermes/b"), passed("hermes/c")].join(",");
        let data = blob(&render(&[report("p", &three)]));
        assert_eq!(data["dialects"][0]["groups"], json!([3]));

        let failing = r#"{"case": "hermes/d", "dialect": "hermes", "status": "failed",
                          "findings": [{"verdicts": ["missing-call"], "layer": "conformance"}]}"#;
        let two = [passed("hermes/a"), passed("hermes/b"), failing.to_owned()].join(",");
        let data = blob(&render(&[report("p", &two)]));
        assert_eq!(
            data["dialects"][0]["groups"],
            json!([1, 1, 1]),
            "two alike stay apart"
        );
        let four = [three, failing.to_owned()].join(",");
        let data = blob(&render(&[report("p", &four)]));
        assert_eq!(data["dialects"][0]["groups"], json!([3, 1]));
    }

    #[test]
    fn a_cell_that_names_only_some_verdicts_is_labelled_with_them_all() {
        let case = r#"{"case": "hermes/x", "dialect": "hermes", "status": "failed",
                       "findings": [{"verdicts": ["lost-text", "leaked-markup", "missing-call",
                                                  "extra-call"], "layer": "conformance"}]}"#;
        let data = blob(&render(&[report("p", case)]));
        assert_eq!(
            data["looks"][0],
            json!([
                "critical",
                "critical: lost-text, leaked-markup, missing-call +1",
                "critical: lost-text, leaked-markup, missing-call, extra-call"
            ])
        );
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
