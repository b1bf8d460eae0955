//! `tch matrix` and `tch diff` as a user runs them (`specs/matrix.md`), on small `report.json`
//! files trimmed from real runs of the reference and two buggy examples
//! (`tests/fixtures/reports/`): the page's table, cells, folded rows and embedded details, the
//! badges, errors that name the file and write nothing, and the diff's kinds, formats and exit
//! status. With `TCH_BROWSER_TEST=1` and chromedriver installed, the page is also clicked
//! through in a headless Chromium (`reports/browser/test_matrix.py`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{root, stdout, tch};
use serde_json::Value;

const FIXTURES: &str = "harness/tch/tests/fixtures/reports";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}.json")
}

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tch-matrix-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// `tch matrix` of the three fixture runs into `dir/site/index.html`; returns the page.
fn three_candidates(dir: &Path) -> String {
    let page = dir.join("site/index.html");
    let output = tch(&[
        "matrix",
        &fixture("reference"),
        &fixture("drops-text"),
        &fixture("per-chunk"),
        "-o",
        page.to_str().expect("UTF-8 path"),
    ]);
    assert!(output.status.success(), "{output:?}");
    fs::read_to_string(page).expect("the page is written")
}

/// The document packed in the page: its table's rows and its cells' details (M2.5).
fn packed(html: &str) -> Value {
    toolcall_harness::report::matrix::packed_document(html).expect("the page's packed document")
}

/// The class and text of the cell of `case` under the candidate of `column`, as the page's
/// script shows them.
fn cell(html: &str, case: &str, column: usize) -> (String, String) {
    let data = packed(html);
    let row = data["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|row| row["case"] == case)
        .unwrap_or_else(|| panic!("no row for {case}"));
    let look = &data["looks"][row["looks"][column].as_u64().expect("a face") as usize];
    let text = |at: usize| look[at].as_str().expect("a string").to_owned();
    (text(0), text(1))
}

#[test]
fn matrix_lays_out_candidates_across_and_cases_down() {
    let dir = scratch("layout");
    let html = three_candidates(&dir);
    let headers: Vec<&str> = html
        .match_indices("<span class=\"name\">")
        .map(|(at, tag)| {
            let from = at + tag.len();
            &html[from..from + html[from..].find('<').expect("end")]
        })
        .collect();
    assert_eq!(
        headers,
        [
            "tch serve 0.1.0",
            "bug: drops text after a call",
            "bug: per-chunk parser"
        ]
    );
    assert!(html.contains("<span class=\"count\">8/10 passed</span>"));
    // Dialects in the order they first appear, each a row of its own with its pass counts.
    let data = packed(&html);
    assert_eq!(data["dialects"][0]["name"], "hermes");
    assert_eq!(data["dialects"][1]["name"], "tag");
    assert_eq!(data["dialects"].as_array().map(Vec::len), Some(2));
    // Severity first, then at most three verdicts; known failures, n/a and not run say so.
    let cases = [
        (
            "hermes/arguments-absent",
            1,
            "medium",
            "medium: chunk-dependent, lost-text, leaked-markup",
        ),
        (
            "hermes/arguments-absent",
            2,
            "high",
            "high: chunk-dependent, leaked-markup, missing-call +1",
        ),
        (
            "hermes/three-calls",
            1,
            "medium",
            "medium, known: chunk-dependent, lost-text, leaked-markup",
        ),
        (
            "hermes/arguments-array-error",
            2,
            "low",
            "low: chunk-dependent, missing-error",
        ),
        ("hermes/partial-opener-at-end", 2, "not-run", "not run"),
        ("tag/back-to-back-calls", 0, "passed", "passed"),
        ("tag/back-to-back-calls", 1, "na", "n/a"),
        ("tag/back-to-back-calls", 2, "na", "n/a"),
    ];
    for (case, column, class, text) in cases {
        assert_eq!(
            cell(&html, case, column),
            (class.to_owned(), text.to_owned()),
            "{case} under column {column}"
        );
    }
    // The four cases every candidate passes fold into one row; two alike (the tag cases) stay
    // apart.
    let groups = |at: usize| -> Vec<u64> {
        let sizes = data["dialects"][at]["groups"].as_array().expect("groups");
        sizes
            .iter()
            .map(|size| size.as_u64().expect("a size"))
            .collect()
    };
    let (hermes, tag) = (groups(0), groups(1));
    assert_eq!(
        hermes.iter().filter(|&&size| size != 1).collect::<Vec<_>>(),
        [&4]
    );
    assert!(tag.iter().all(|&size| size == 1), "{tag:?}");
    let first: u64 = hermes.iter().take_while(|&&size| size == 1).sum();
    let rows = data["rows"].as_array().expect("rows");
    let members: Vec<&str> = rows[first as usize..first as usize + 4]
        .iter()
        .map(|row| row["case"].as_str().expect("id"))
        .collect();
    for case in ["hermes/empty-stream", "hermes/opener-with-space-is-text"] {
        assert!(members.contains(&case), "{members:?}");
    }
    // Self-contained: nothing fetched, no external stylesheet, script or font.
    for outside in ["<link", " src=", "@import", "url(", "http://", "https://"] {
        assert!(
            !html.contains(outside),
            "the page refers outside: {outside}"
        );
    }
    // The details: reasons, replay commands and diffs are in the page's packed data.
    let details = data["cells"].to_string();
    assert!(details.contains("upstream #123: drops text after a call"));
    assert!(details.contains(
        "tch run --case hermes/back-to-back-calls --chunks 1,163 --report-dir \
         reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py"
    ));
    // The same reports give the same page.
    assert_eq!(three_candidates(&dir), html);
}

#[test]
fn matrix_writes_a_shields_badge_per_candidate() {
    let dir = scratch("badges");
    three_candidates(&dir);
    let badge = |name: &str| {
        fs::read_to_string(dir.join("site/badges").join(name))
            .unwrap_or_else(|e| panic!("{name}: {e}"))
    };
    assert_eq!(
        badge("tch-serve-0-1-0.json"),
        "{\"schemaVersion\":1,\"label\":\"tch\",\"message\":\"12/12 passed\",\"color\":\"brightgreen\"}\n"
    );
    // 80% passed and a medium failure: yellow; under half passed: red.
    assert!(
        badge("bug--drops-text-after-a-call.json").contains("\"8/10 passed\",\"color\":\"yellow\"")
    );
    assert!(badge("bug--per-chunk-parser.json").contains("\"4/9 passed\",\"color\":\"red\""));

    // --badges elsewhere; -o an existing folder gets index.html.
    let site = dir.join("elsewhere");
    fs::create_dir_all(&site).expect("folder");
    let output = tch(&[
        "matrix",
        &fixture("reference"),
        "-o",
        site.to_str().expect("UTF-8"),
        "--badges",
        dir.join("shields").to_str().expect("UTF-8"),
    ]);
    assert!(output.status.success(), "{output:?}");
    assert!(site.join("index.html").is_file());
    assert!(dir.join("shields/tch-serve-0-1-0.json").is_file());
    assert!(!site.join("badges").exists());
}

#[test]
fn matrix_reads_schema_2_reports_and_computes_their_severities() {
    let dir = scratch("schema2");
    let page = dir.join("index.html");
    let output = tch(&[
        "matrix",
        &fixture("per-chunk-schema2"),
        "-o",
        page.to_str().expect("UTF-8"),
    ]);
    assert!(output.status.success(), "{output:?}");
    let html = fs::read_to_string(page).expect("page");
    assert_eq!(cell(&html, "hermes/back-to-back-calls", 0).0, "critical");
    assert_eq!(
        cell(&html, "hermes/arguments-array-error", 0),
        (
            "low".to_owned(),
            "low: chunk-dependent, missing-error".to_owned()
        )
    );
}

#[test]
fn a_bad_report_is_named_with_its_fault_and_nothing_is_written() {
    let dir = scratch("bad");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        fs::write(&path, text).expect("write");
        path.to_str().expect("UTF-8").to_owned()
    };
    let cases = [
        (
            write("truncated.json", "{\"schema\": 3, \"cases\": ["),
            "not a tch report.json: EOF",
        ),
        (
            write("no-cases.json", "{\"schema\": 3, \"candidate\": {}}"),
            "missing field `cases`",
        ),
        (
            write("future.json", "{\"schema\": 99}"),
            "report.json schema 99; this tch reads",
        ),
        (
            write(
                "status.json",
                r#"{"schema": 3, "candidate": {}, "cases": [{"case": "a/b", "dialect": "a", "status": "great"}]}"#,
            ),
            "unknown variant `great`",
        ),
        (
            dir.join("absent.json").to_str().expect("UTF-8").to_owned(),
            "cannot read",
        ),
    ];
    let site = dir.join("site");
    for (bad, fault) in &cases {
        let output = tch(&[
            "matrix",
            &fixture("reference"),
            bad,
            "-o",
            site.join("index.html").to_str().expect("UTF-8"),
        ]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{bad}: {output:?}");
        assert!(
            stderr.starts_with(&format!("tch: error: {bad}: ")) && stderr.contains(fault),
            "{bad}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!site.exists(), "{bad}: something was written");
        let diff = tch(&["diff", &fixture("reference"), bad]);
        assert_eq!(diff.status.code(), Some(2), "diff {bad}: {diff:?}");
        assert!(String::from_utf8_lossy(&diff.stderr).contains(fault));
    }
}

#[test]
fn diff_lists_regressions_with_replay_commands_and_fails_the_check() {
    let output = tch(&["diff", &fixture("drops-text"), &fixture("per-chunk")]);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let expected = format!(
        "BASE {FIXTURES}/drops-text.json
     bug: drops text after a call: 8/10 passed, 1 failed (1 medium), 1 known failure, 2 n/a, 0 skipped
NEW  {FIXTURES}/per-chunk.json
     bug: per-chunk parser: 4/9 passed, 5 failed (2 critical, 1 high, 1 medium, 1 low), 0 known failures, 0 n/a, 0 skipped

Newly failing (4):
  hermes/back-to-back-calls: passed → critical: chunk-dependent, leaked-markup, missing-call, wrong-call, extra-error
    replay: tch run --case hermes/back-to-back-calls --chunks 1,163 --report-dir reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py
  hermes/arguments-array-error: passed → low: chunk-dependent, missing-error
    replay: tch run --case hermes/arguments-array-error --chunks 1,72 --report-dir reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py
  hermes/three-calls: medium, known: chunk-dependent, lost-text, leaked-markup → critical: chunk-dependent, leaked-markup, missing-call, wrong-call, extra-error
    replay: tch run --case hermes/three-calls --chunks 26,255 --report-dir reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py
  hermes/reasoning-partial-closer-at-end: passed → medium: reasoning
    replay: tch run --case hermes/reasoning-partial-closer-at-end --report-dir reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py

Still failing but changed (1):
  hermes/arguments-absent: medium: chunk-dependent, lost-text, leaked-markup → high: chunk-dependent, leaked-markup, missing-call, extra-error

Only in BASE (3):
  hermes/partial-opener-at-end: passed
  tag/additional-properties-allowed: n/a
  tag/back-to-back-calls: n/a

4 newly failing, 1 still failing but changed, 3 only in BASE
"
    );
    assert_eq!(stdout(&output), expected);
}

#[test]
fn diff_of_an_improvement_passes_and_writes_markdown_for_a_pull_request() {
    let output = tch(&[
        "diff",
        "--format",
        "markdown",
        &fixture("per-chunk"),
        &fixture("drops-text"),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let md = stdout(&output);
    assert!(md.starts_with("### tch diff\n\n- base `harness/tch/tests/fixtures/reports/per-chunk.json`: bug: per-chunk parser: 4/9 passed"), "{md}");
    assert!(
        md.contains(
            "\n0 newly failing, 3 newly passing, 2 still failing but changed, 3 only in NEW\n"
        ),
        "{md}"
    );
    assert!(
        !md.contains("Regressions") && !md.contains("#### Newly failing"),
        "{md}"
    );
    assert!(md.contains(
        "<details><summary>Newly passing (3)</summary>\n\n| case | before → after |\n| --- | --- |\n\
         | `hermes/back-to-back-calls` | critical: chunk-dependent, leaked-markup, missing-call, wrong-call, extra-error → passed |\n"
    ), "{md}");
    assert!(md.contains(
        "| `hermes/three-calls` | critical: chunk-dependent, leaked-markup, missing-call, wrong-call, extra-error → medium, known: chunk-dependent, lost-text, leaked-markup |"
    ), "{md}");

    let regression = stdout(&tch(&[
        "diff",
        "--format",
        "markdown",
        &fixture("drops-text"),
        &fixture("per-chunk"),
    ]));
    assert!(regression.contains(
        "**Regressions.** 4 newly failing, 1 still failing but changed, 3 only in BASE\n\n\
         #### Newly failing (4)\n\n| case | before → after | replay |\n| --- | --- | --- |\n\
         | `hermes/back-to-back-calls` | passed → critical: chunk-dependent, leaked-markup, missing-call, wrong-call, extra-error \
         | `tch run --case hermes/back-to-back-calls --chunks 1,163 --report-dir reports/bug--per-chunk-parser/replay -- python3 adapters/examples/per_chunk_parser.py` |\n"
    ), "{regression}");
}

#[test]
fn diff_of_a_run_with_itself_or_its_schema_2_twin_finds_no_change() {
    let same = tch(&["diff", &fixture("per-chunk"), &fixture("per-chunk")]);
    assert_eq!(same.status.code(), Some(0));
    assert!(
        stdout(&same).ends_with("\nno differences\n"),
        "{}",
        stdout(&same)
    );
    // The severities schema 2 left out, computed, equal those schema 3 wrote: only the cases
    // the trimmed twin lacks differ.
    let twin = tch(&["diff", &fixture("per-chunk-schema2"), &fixture("per-chunk")]);
    assert_eq!(twin.status.code(), Some(1), "new failing cases count");
    let text = stdout(&twin);
    assert!(!text.contains("changed"), "{text}");
    assert!(
        text.ends_with("\n2 newly failing, 3 only in NEW\n"),
        "{text}"
    );
}

/// The page clicked through in a real browser: only where CI installed Chromium and its
/// driver and asked for it (`TCH_BROWSER_TEST=1`), since it starts a browser.
#[test]
fn the_page_works_in_a_headless_browser() {
    if std::env::var("TCH_BROWSER_TEST").as_deref() != Ok("1") {
        println!(
            "skipped: set TCH_BROWSER_TEST=1 with chromium and chromium-driver installed \
             to run the browser test"
        );
        return;
    }
    // Asked for, the test runs or fails: it never passes without a browser.
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|dir| dir.join("chromedriver").is_file())
    });
    assert!(
        on_path,
        "TCH_BROWSER_TEST=1 but no chromedriver on PATH: install chromium and chromium-driver"
    );
    let dir = scratch("browser");
    three_candidates(&dir);
    let screenshot = dir.join("matrix.png");
    let output = Command::new("python3")
        .arg(root().join("reports/browser/test_matrix.py"))
        .arg(dir.join("site/index.html"))
        .args(["--expect-case", "hermes/back-to-back-calls"])
        .args(["--expect-candidate", "bug: per-chunk parser"])
        .arg("--screenshot")
        .arg(&screenshot)
        .output()
        .expect("python3 runs");
    assert!(
        output.status.success(),
        "{}\n{}",
        stdout(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    let png = fs::read(&screenshot).expect("the screenshot");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
}
