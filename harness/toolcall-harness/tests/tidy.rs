//! Tidy: repository-wide consistency checks, after rust-analyzer's tidy test. Each `#[test]`
//! walks the repository (the files git tracks or would track: ignored folders such as
//! `target/`, `node_modules/` and `.venv/` are skipped) and fails naming `file:line` for every
//! problem it finds, all of them at once.
//!
//! - `cited_rule_ids_exist`: every rule id (`C8.2`, `H2.3`, `T4`) cited in a comment of code
//!   (`*.rs`, `*.py`, `*.js`, `*.mjs`), in a corpus comment, in a spec or in a Markdown document
//!   is defined in `specs/`.
//! - `section_references_resolve`: every `§N` / `§N.M` names a section of the document it
//!   refers to.
//! - `no_stale_proptest_regressions`: every proptest regression file is the one a proptest
//!   configuration of the repository reads.
//! - `reports_readme_agrees_with_the_reports`: every figure `reports/README.md` gives of a
//!   committed report (its table's cases passed, bug root causes and divergent cases; each
//!   section's root causes with severity, realism and case count; divergences per reading) is
//!   the one its `report.json` holds.
//! - `rules_are_contract_or_choice_and_choices_carry_alternatives` (`specs/corpus.md`, contract
//!   and choice): every rule of a dialect spec carries one mark, `{contract}` or
//!   `{choice: READING, …}`; every corpus case that cites a choice rule has, for each of its
//!   readings, `NAME.alt-READING.events.jsonl` or a comment `# alt READING: same`; every
//!   alternative's reading is declared by a choice rule the case cites, and its file names the
//!   rule and engines in a comment.
//!
//! The rules, precisely:
//!
//! **Rule ids.** A spec *defines* a rule where a line (or a list item, `- `) starts with bold
//! text that starts with the id, followed by `**`, a space, `.` or `:` (`- **C7.1 Unique.**`,
//! `**C1. Chunk invariance.**`, `- **H1.1**`). An id is capital letters (its *prefix*), then
//! numbers of one or two digits joined by dots. Each prefix belongs to the one spec that
//! defines rules with it (C: `streaming.md`, F: `dialects/md-fence.md`, …). A cited id
//! *exists* when a spec defines it, or when it is a prefix and one number and the prefix's
//! spec has a heading with that number (`T4` is `## 4. Errors` of `dialects/tag.md`). A
//! *citation* is such a token whose prefix some spec owns, not glued to a word, `.`, `+`, `/`
//! or `\` before it nor to a word or `+` after it: `U+FFFD`, `\uD800`, `0xD800`, `F401` (three
//! digits) and `MD5` (prefix `MD` is no spec's) are not citations. A rule defined twice, or a
//! prefix used by two specs, fails too.
//!
//! **Section references.** `§N` names the heading numbered N (`## 4. Errors`), `§N.M` a heading
//! numbered N.M or the rule `<prefix>N.M` of the document (`specs/protocol.md` §2.5 is P2.5).
//! The document is the nearest one named before the `§` on its line (`specs/runner.md` §2,
//! `events.md` §3 when only one spec has that file name, `§2 there`); when the `§` starts its
//! line, the previous line (of the same comment) counts too, so a reference wrapped after its
//! file name still resolves; in a list (`specs/runner.md` §2–§4, `specs/definitions.md` §5,
//! §6 and §7) every reference has the first one's document. A `§` after the name of an outside document (CommonMark, an RFC)
//! is not ours and is skipped. With no document named: a spec's own sections; for a corpus
//! file, its folder's spec (`corpus/tag/…` is `specs/dialects/tag.md`, `corpus/definitions/…`
//! is `specs/definitions.md`); anywhere else the reference is ambiguous and fails.
//!
//! **Proptest regressions.** A regression file is a `*.proptest-regressions` file or any file
//! under a `proptest-regressions/` folder. It must be the file that a
//! `FileFailurePersistence::Direct("…")` (relative to the package root, where `cargo test`
//! runs), `WithSource("…")` or `SourceParallel("…")` of some `*.rs` file resolves to, or the
//! default place (`SourceParallel("proptest-regressions")`) of a file that uses `proptest!`
//! without setting `failure_persistence`. A file git still tracks counts even if deleted.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

// ------------------------------------------------------------------------------------------
// The checks

#[test]
fn cited_rule_ids_exist() {
    let repo = Repo::load();
    let specs = Specs::load(&repo);
    let mut problems = specs.problems.clone();
    for (file, lines) in repo.cited_texts() {
        for (line_no, text) in &lines {
            for id in rule_ids(text, &specs.prefixes) {
                if !specs.rule_exists(id) {
                    problems.push(format!(
                        "{file}:{line_no}: rule id {id} is not defined in specs/ (prefix {} is {})",
                        prefix_of(id),
                        specs.prefixes[prefix_of(id)],
                    ));
                }
            }
        }
    }
    report("rule ids cited that no spec defines", problems);
}

#[test]
fn section_references_resolve() {
    let repo = Repo::load();
    let specs = Specs::load(&repo);
    let mut problems = Vec::new();
    for (file, lines) in repo.cited_texts() {
        for (index, (line_no, text)) in lines.iter().enumerate() {
            let previous = index
                .checked_sub(1)
                .map(|i| &lines[i])
                .filter(|(n, _)| n + 1 == *line_no)
                .map(|(_, t)| t.as_str());
            for reference in section_refs(text, previous) {
                if let Err(problem) = repo.resolve_section(&specs, &file, &reference) {
                    let hint = match (&reference.doc, named_specs(&repo, &file, &lines)) {
                        (None, named) if named.len() == 1 => {
                            format!(" (the only spec this file names is `{}`)", named[0])
                        }
                        _ => String::new(),
                    };
                    problems.push(format!("{file}:{line_no}: {problem}{hint}"));
                }
            }
        }
    }
    report("section references (§) that do not resolve", problems);
}

#[test]
fn rules_are_contract_or_choice_and_choices_carry_alternatives() {
    let repo = Repo::load();
    let specs = Specs::load(&repo);
    let mut problems = Vec::new();
    // Every rule of a dialect spec, marked once; the readings of each choice rule.
    let mut readings: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for file in repo
        .files
        .iter()
        .filter(|f| f.starts_with("specs/dialects/") && f.ends_with(".md"))
    {
        for (line_no, id, text) in rule_texts(&repo.read(file)) {
            match marks(&text).as_slice() {
                [Mark::Contract] => {}
                [Mark::Choice(names)] if !names.is_empty() => {
                    readings.insert(id, names.clone());
                }
                [] => problems.push(format!(
                    "{file}:{line_no}: rule {id} is marked neither {{contract}} nor {{choice: READING, …}}"
                )),
                _ => problems.push(format!(
                    "{file}:{line_no}: rule {id} must carry exactly one mark, {{contract}} or {{choice: READING, …}} with at least one reading"
                )),
            }
        }
    }
    for file in repo.files.iter().filter(|f| {
        f.starts_with("corpus/") && f.ends_with(".events.jsonl") && !f.contains(".alt-")
    }) {
        let text = repo.read(file);
        let stem = file.trim_end_matches(".events.jsonl");
        let comments: Vec<&str> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix('#'))
            .collect();
        let cited: BTreeSet<&str> = comments
            .iter()
            .flat_map(|c| rule_ids(c, &specs.prefixes))
            .collect();
        // `# alt READING: same`, a reason in brackets after it allowed.
        let same: BTreeSet<&str> = comments
            .iter()
            .filter_map(|c| c.trim().strip_prefix("alt "))
            .filter_map(|c| c.split_once(": same"))
            .filter(|(_, rest)| rest.is_empty() || rest.starts_with([' ', '(']))
            .map(|(reading, _)| reading)
            .collect();
        let alternatives: BTreeSet<String> = repo
            .files
            .iter()
            .filter_map(|f| f.strip_prefix(&format!("{stem}.alt-")))
            .filter_map(|f| f.strip_suffix(".events.jsonl"))
            .map(str::to_owned)
            .collect();
        let declared: BTreeSet<&str> = cited
            .iter()
            .filter_map(|id| readings.get(*id))
            .flatten()
            .map(String::as_str)
            .collect();
        for id in &cited {
            for reading in readings.get(*id).into_iter().flatten() {
                if !alternatives.contains(reading) && !same.contains(reading.as_str()) {
                    problems.push(format!(
                        "{file}: cites the choice rule {id} but has neither {stem}.alt-{reading}.events.jsonl nor a comment `# alt {reading}: same`"
                    ));
                }
            }
        }
        for reading in alternatives
            .iter()
            .flat_map(|a| a.split('+'))
            .chain(same.iter().copied())
        {
            if !declared.contains(reading) {
                problems.push(format!(
                    "{file}: alternative reading {reading} is declared by no choice rule the case cites"
                ));
            }
        }
        for alternative in &alternatives {
            let alt = format!("{stem}.alt-{alternative}.events.jsonl");
            if !repo
                .read(&alt)
                .lines()
                .any(|l| l.trim_start().starts_with('#'))
            {
                problems.push(format!(
                    "{alt}: names no rule and no engine in a `#` comment"
                ));
            }
        }
    }
    for file in repo
        .files
        .iter()
        .filter(|f| f.starts_with("corpus/") && f.contains(".alt-"))
    {
        let stem = &file[..file.find(".alt-").unwrap_or(0)];
        if !repo.files.contains(&format!("{stem}.stream")) {
            problems.push(format!(
                "{file}: an alternative of no case ({stem}.stream is missing)"
            ));
        }
    }
    report("contract and choice (specs/corpus.md)", problems);
}

/// A rule's mark (`specs/corpus.md`, contract and choice).
#[derive(Debug, PartialEq)]
enum Mark {
    Contract,
    Choice(Vec<String>),
}

/// The marks in a rule's text: `{contract}`, `{choice: a, b}`.
fn marks(text: &str) -> Vec<Mark> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('{') {
        rest = &rest[at + 1..];
        let Some(end) = rest.find('}') else { break };
        let inner = rest[..end].trim();
        if inner == "contract" {
            found.push(Mark::Contract);
        } else if let Some(names) = inner.strip_prefix("choice:") {
            let names: Vec<String> = names
                .split(',')
                .map(|n| n.trim().trim_matches('`').to_owned())
                .filter(|n| !n.is_empty())
                .collect();
            found.push(Mark::Choice(names));
        }
    }
    found
}

/// Each rule a spec defines, as (line number, id, its text up to the next rule or heading).
fn rule_texts(text: &str) -> Vec<(usize, String, String)> {
    let (_, definitions) = headings(text);
    let lines: Vec<&str> = text.lines().collect();
    let mut rules = Vec::new();
    for (i, (line_no, id)) in definitions.iter().enumerate() {
        let next = definitions.get(i + 1).map_or(lines.len() + 1, |(n, _)| *n);
        let body: Vec<&str> = lines[line_no - 1..next - 1]
            .iter()
            .enumerate()
            .take_while(|(j, l)| *j == 0 || !l.trim_start().starts_with('#'))
            .map(|(_, l)| *l)
            .collect();
        rules.push((*line_no, id.clone(), body.join("\n")));
    }
    rules
}

#[test]
fn reports_readme_agrees_with_the_reports() {
    let repo = Repo::load();
    let readme = repo.read("reports/README.md");
    let mut problems = Vec::new();
    let load = |folder: &str| -> Option<serde_json::Value> {
        serde_json::from_str(&repo.read(&format!("reports/{folder}/report.json"))).ok()
    };
    // The table: `| [`NAME`](NAME/summary.md) | … | P of J | B (R realistic, S synthetic only)
    // in C | D |`.
    let mut rows = 0;
    for (line_no, line) in readme.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        let Some(folder) = line
            .strip_prefix("| [`")
            .and_then(|rest| rest.split_once('`'))
            .map(|(name, _)| name)
        else {
            continue;
        };
        rows += 1;
        let Some(json) = load(folder) else {
            problems.push(format!(
                "reports/README.md:{line_no}: no reports/{folder}/report.json"
            ));
            continue;
        };
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let summary = &json["summary"];
        let count = |key: &str| summary[key].as_u64().unwrap_or(0);
        let judged =
            count("passed") + count("failed") + count("knownFailures") + count("divergent");
        let roots = json["rootCauses"].as_array().cloned().unwrap_or_default();
        let synthetic = roots.iter().filter(|r| r["realism"] == "synthetic").count();
        let root_cases: usize = roots
            .iter()
            .map(|r| r["cases"].as_array().map_or(0, Vec::len))
            .sum();
        let expected = [
            format!("{} of {judged}", count("passed")),
            format!(
                "{} ({} realistic, {synthetic} synthetic only) in {root_cases}",
                roots.len(),
                roots.len() - synthetic
            ),
            count("divergent").to_string(),
        ];
        for (want, got) in expected.iter().zip(cells.iter().skip(4)) {
            if want != got {
                problems.push(format!(
                    "reports/README.md:{line_no}: {folder}: the table says `{got}`, its report.json `{want}`"
                ));
            }
        }
    }
    if rows == 0 {
        problems.push(
            "reports/README.md: no candidate table rows (`| [`NAME`](NAME/summary.md) | …`)".into(),
        );
    }
    // Root causes and divergences in each candidate's section (its heading names its folder
    // in backticks): `- **RC3** critical, realistic, 12 cases: …` and `- divergence `READING`:
    // N cases`.
    let mut section: Option<(String, serde_json::Value)> = None;
    for (line_no, line) in readme.lines().enumerate().map(|(i, l)| (i + 1, l)) {
        if let Some(heading) = line.strip_prefix("### ") {
            section = heading
                .split('`')
                .nth(1)
                .and_then(|folder| load(folder).map(|r| (folder.to_owned(), r)));
            continue;
        }
        let Some((folder, json)) = &section else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("- **RC") {
            let Some((number, rest)) = rest.split_once("** ") else {
                continue;
            };
            let id = format!("RC{number}");
            let Some(root) = json["rootCauses"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|r| r["id"] == id.as_str())
            else {
                problems.push(format!(
                    "reports/README.md:{line_no}: {folder} has no root cause {id}"
                ));
                continue;
            };
            let cases = root["cases"].as_array().map_or(0, Vec::len);
            let realism = if root["realism"] == "synthetic" {
                "synthetic only"
            } else {
                "realistic"
            };
            let want = format!(
                "{}, {realism}, {cases} {}:",
                root["severity"].as_str().unwrap_or_default(),
                if cases == 1 { "case" } else { "cases" }
            );
            if !rest.starts_with(&want) {
                problems.push(format!(
                    "reports/README.md:{line_no}: {folder} {id}: the README says `{}`, its report.json `{want}`",
                    rest.split(':').next().unwrap_or_default()
                ));
            }
        } else if let Some(rest) = line.strip_prefix("- divergence `") {
            let Some((reading, rest)) = rest.split_once("`: ") else {
                continue;
            };
            let n = json["cases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|c| {
                    c["status"] == "divergent"
                        && c["findings"]
                            .as_array()
                            .into_iter()
                            .flatten()
                            .any(|f| f["reading"] == reading)
                })
                .count();
            let want = format!("{n} {}", if n == 1 { "case" } else { "cases" });
            if !rest.starts_with(&want) {
                problems.push(format!(
                    "reports/README.md:{line_no}: {folder}: divergence {reading}: the README says `{rest}`, its report.json {want}"
                ));
            }
        }
    }
    report(
        "figures of reports/README.md against the report.json files",
        problems,
    );
}

#[test]
fn no_stale_proptest_regressions() {
    let repo = Repo::load();
    let mut live = BTreeSet::new();
    let mut configs = Vec::new();
    for file in repo.files.iter().filter(|f| f.ends_with(".rs")) {
        let Ok(text) = fs::read_to_string(repo.root.join(file)) else {
            continue;
        };
        for path in regression_paths(&repo.root, file, &text) {
            configs.push(format!("{file} -> {path}"));
            live.insert(path);
        }
    }
    let regressions: BTreeSet<&String> = repo
        .files
        .iter()
        .chain(&repo.tracked)
        .filter(|f| {
            f.ends_with(".proptest-regressions")
                || f.split('/').any(|part| part == "proptest-regressions")
        })
        .collect();
    let mut problems = Vec::new();
    for file in regressions.into_iter().filter(|f| !live.contains(*f)) {
        let state = match (repo.tracked.contains(file), repo.root.join(file).exists()) {
            (true, true) => "tracked by git",
            (true, false) => "deleted but still tracked by git",
            (false, _) => "untracked",
        };
        problems.push(format!(
            "{file}:1: stale proptest regression file ({state}): no proptest config reads it \
             (configured: {}); delete it, or point a FileFailurePersistence at it",
            if configs.is_empty() {
                "none".to_owned()
            } else {
                configs.join(", ")
            },
        ));
    }
    report("proptest regression files no test reads", problems);
}

/// The scanners behind the checks, on made-up text: each kind of mistake is caught, and what
/// is not a rule id or a reference is left alone.
#[test]
fn tidy_scanners_catch_what_they_should() {
    let prefixes: BTreeMap<String, String> = [
        ("C", "specs/streaming.md"),
        ("D", "specs/definitions.md"),
        ("T", "specs/dialects/tag.md"),
    ]
    .map(|(p, f)| (p.to_owned(), f.to_owned()))
    .into();
    let ids = rule_ids(
        "C8.2, (C1–C7) T4. U+FFFD \\uD800 0xD800 F401 D800 MD5 SC7 C8.x C12.10 D3.7: x_C1 C1b",
        &prefixes,
    );
    assert_eq!(ids, ["C8.2", "C1", "C7", "T4", "C8", "C12.10", "D3.7"]);

    let refs = section_refs("see `specs/runner.md` §2–§4, events.md §3.4 and §5.", None);
    let docs: Vec<_> = refs
        .iter()
        .map(|r| (r.doc.as_ref().map(Doc::as_deref), r.number.as_str()))
        .collect();
    assert_eq!(
        docs,
        [
            (Some(Doc::Named("specs/runner.md")), "2"),
            (Some(Doc::Named("specs/runner.md")), "4"),
            (Some(Doc::Named("events.md")), "3.4"),
            (Some(Doc::Named("events.md")), "5"),
        ]
    );
    let wrapped = section_refs("//! §11). Bad", Some("//! valid (`specs/definitions.md`"));
    assert_eq!(
        wrapped[0].doc,
        Some(Doc::Named("specs/definitions.md".into()))
    );
    let outside = section_refs(
        "§4.5 \"Fenced code blocks\")",
        Some("are CommonMark's (0.31,"),
    );
    assert_eq!(outside[0].doc, Some(Doc::Outside));
    assert_eq!(section_refs("NAME.tool.md.json  (§8)", None)[0].doc, None);

    // Each rule id the comments of `text` (a file named `file`) cite, with its line.
    let ids_in = |file: &str, text: &str| -> Vec<(usize, String)> {
        comments(file, text)
            .iter()
            .flat_map(|(n, t)| {
                rule_ids(t, &prefixes)
                    .into_iter()
                    .map(move |id| (*n, id.to_owned()))
            })
            .collect()
    };
    let rust = "let s = \"// C1 in a string\"; // C2 here\nlet r = r#\"/* C3 \"# ; /* C4 /* C5 */\nC6 */ 'a' '\\'' x<'b> // C7";
    let found = ids_in("x.rs", rust);
    let expected = [(1, "C2"), (2, "C4"), (2, "C5"), (3, "C6"), (3, "C7")];
    assert_eq!(found, expected.map(|(n, id)| (n, id.to_owned())));
    let python = "x = '# C1' # C2\n\"\"\"C3\nC4\"\"\"\ns = \"\"\"C5\"\"\"  # C6";
    let found = ids_in("x.py", python);
    let expected = [(1, "C2"), (2, "C3"), (3, "C4"), (4, "C5"), (4, "C6")];
    assert_eq!(found, expected.map(|(n, id)| (n, id.to_owned())));
    let js = "const a = `// C1\n${b}` + '/* C2' // C3\n/* C4 */ x";
    let found = ids_in("x.mjs", js);
    assert_eq!(found, [(2, "C3".to_owned()), (3, "C4".to_owned())]);

    let markdown = "<!-- C1: x -->\n# T\n<!-- C2\nC3 --> C4 <!-- C5 -->";
    let found: Vec<_> = html_comments(markdown)
        .iter()
        .flat_map(|(n, t)| {
            rule_ids(t, &prefixes)
                .into_iter()
                .map(move |id| (*n, id.to_owned()))
        })
        .collect();
    let expected = [(1, "C1"), (3, "C2"), (4, "C3"), (4, "C5")];
    assert_eq!(found, expected.map(|(n, id)| (n, id.to_owned())));

    let root = Repo::load().root;
    // Spelt in pieces, so that this file configures no regression file itself.
    let source = concat!(
        "x.failure_persistence = FileFailure",
        "Persistence::Direct(\n  \"proptest-regressions/p.txt\",\n);\n",
        "FileFailure",
        "Persistence::WithSource(\"regressions\")",
    );
    assert_eq!(
        regression_paths(&root, "harness/toolcall-harness/tests/p.rs", source),
        [
            "harness/toolcall-harness/proptest-regressions/p.txt",
            "harness/toolcall-harness/tests/p.regressions"
        ]
    );
    assert_eq!(
        regression_paths(
            &root,
            "harness/toolcall-harness/src/x/y.rs",
            concat!("proptest", "! {}")
        ),
        ["harness/toolcall-harness/proptest-regressions/x/y.txt"]
    );
}

/// The specs that the cited text of `file` names anywhere.
fn named_specs(repo: &Repo, file: &str, lines: &[(usize, String)]) -> Vec<String> {
    let names: BTreeSet<String> = lines
        .iter()
        .flat_map(|(_, text)| markdown_names(text))
        .filter_map(|(_, name)| repo.resolve_doc(file, &name))
        .filter(|path| path.starts_with("specs/"))
        .collect();
    names.into_iter().collect()
}

fn report(what: &str, problems: Vec<String>) {
    if !problems.is_empty() {
        panic!("{} {what}:\n  {}\n", problems.len(), problems.join("\n  "));
    }
}

// ------------------------------------------------------------------------------------------
// The repository

struct Repo {
    root: PathBuf,
    /// Every file git tracks or would track (not ignored) that exists, relative, `/`-separated.
    files: Vec<String>,
    /// Every file git tracks, existing or not (empty outside a git checkout).
    tracked: BTreeSet<String>,
}

impl Repo {
    fn load() -> Repo {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .expect("the repository root");
        let git = |args: &[&str]| -> Option<Vec<String>> {
            let output = Command::new("git")
                .arg("-C")
                .arg(&root)
                .args(args)
                .output()
                .ok()?;
            output.status.success().then(|| {
                String::from_utf8_lossy(&output.stdout)
                    .split('\0')
                    .filter(|f| !f.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
        };
        let (mut files, tracked) = match (
            git(&[
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ]),
            git(&["ls-files", "-z", "--cached"]),
        ) {
            (Some(files), Some(tracked)) => (files, tracked.into_iter().collect()),
            // Not a git checkout (a source archive): walk the tree, skipping what .gitignore
            // files of this repository name.
            _ => (walk(&root), BTreeSet::new()),
        };
        files.retain(|f| root.join(f).is_file());
        files.sort();
        files.dedup();
        Repo {
            root,
            files,
            tracked,
        }
    }

    fn read(&self, file: &str) -> String {
        let bytes = fs::read(self.root.join(file)).unwrap_or_default();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// The text each file cites from, as (line number, text) per line: the comments of code,
    /// the comment lines of corpus files, and every line of the specs and other Markdown.
    fn cited_texts(&self) -> Vec<(String, Vec<(usize, String)>)> {
        let mut texts = Vec::new();
        for file in &self.files {
            let lines_where = |keep: &dyn Fn(&str) -> bool| -> Vec<(usize, String)> {
                let text = self.read(file);
                text.lines()
                    .enumerate()
                    .filter(|(_, line)| keep(line))
                    .map(|(i, line)| (i + 1, line.to_owned()))
                    .collect()
            };
            let lines = if file.starts_with("corpus/") {
                if file.ends_with(".events.jsonl") || file.ends_with(".error") {
                    lines_where(&|line| line.trim_start().starts_with('#'))
                } else if file.ends_with(".tool.md") || file.ends_with(".skill.md") {
                    html_comments(&self.read(file))
                } else {
                    continue; // streams and expected contracts are data, with no comments
                }
            } else if file.starts_with("specs/tools/") {
                continue; // the bundled tool definitions are data
            } else if file.ends_with(".md") {
                lines_where(&|_| true)
            } else if [".rs", ".py", ".js", ".mjs"]
                .iter()
                .any(|ext| file.ends_with(ext))
            {
                comments(file, &self.read(file))
            } else {
                continue;
            };
            texts.push((file.clone(), lines));
        }
        texts
    }

    fn resolve_section(
        &self,
        specs: &Specs,
        file: &str,
        reference: &SectionRef,
    ) -> Result<(), String> {
        let number = &reference.number;
        let target = match &reference.doc {
            Some(Doc::Outside) => return Ok(()),
            Some(Doc::Named(name)) => self.resolve_doc(file, name).ok_or_else(|| {
                format!("§{number} refers to `{name}`, which names no file (or more than one spec)")
            })?,
            None => {
                let folder_spec = file
                    .strip_prefix("corpus/")
                    .and_then(|rest| rest.split_once('/'))
                    .map(|(folder, _)| match folder {
                        "definitions" => "specs/definitions.md".to_owned(),
                        dialect => format!("specs/dialects/{dialect}.md"),
                    });
                if specs.by_path.contains_key(file) {
                    file.to_owned()
                } else if let Some(spec) = folder_spec.filter(|s| specs.by_path.contains_key(s)) {
                    spec
                } else {
                    return Err(format!(
                        "§{number} names no document on its line: write which (`specs/FILE.md` §{number})"
                    ));
                }
            }
        };
        let headings = match specs.by_path.get(&target) {
            Some(spec) => spec.sections.clone(),
            None => headings(&self.read(&target)).0,
        };
        let as_rule = specs
            .prefixes
            .iter()
            .filter(|(_, spec)| **spec == target)
            .any(|(prefix, _)| specs.rules.contains(&format!("{prefix}{number}")));
        if headings.contains(number) || (number.contains('.') && as_rule) {
            Ok(())
        } else {
            Err(format!(
                "§{number} of `{target}` does not exist (its numbered headings: {})",
                if headings.is_empty() {
                    "none".to_owned()
                } else {
                    headings
                        .iter()
                        .map(|h| format!("§{h}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
        }
    }

    /// The file a document name means: a path from the root, or from the citing file's folder,
    /// or the one spec whose path ends with it (`events.md`, `dialects/tag.md`).
    fn resolve_doc(&self, citing: &str, name: &str) -> Option<String> {
        let exists = |path: &str| self.files.iter().any(|f| f == path);
        if exists(name) {
            return Some(name.to_owned());
        }
        let folder = citing.rsplit_once('/').map_or("", |(folder, _)| folder);
        let relative = format!("{folder}/{name}");
        if exists(&relative) {
            return Some(relative);
        }
        let suffix = format!("/{name}");
        let mut specs = self.files.iter().filter(|f| {
            f.starts_with("specs/") && f.ends_with(&suffix) && !f.starts_with("specs/tools/")
        });
        match (specs.next(), specs.next()) {
            (Some(only), None) => Some(only.clone()),
            _ => None,
        }
    }
}

/// Every file under `root`, for a copy that is not a git checkout: hidden folders, `target/`,
/// `node_modules/` and the folders of the repository's .gitignore files are skipped.
fn walk(root: &Path) -> Vec<String> {
    const SKIP: [&str; 6] = [
        "target",
        "node_modules",
        "reports",
        "fuzz/corpus",
        "fuzz/artifacts",
        "fuzz/coverage",
    ];
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(root)
                .unwrap_or(&path)
                .to_string_lossy()
                .replace('\\', "/");
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.')
                    && !SKIP.contains(&name.as_str())
                    && !SKIP.contains(&relative.as_str())
                {
                    stack.push(path);
                }
            } else {
                files.push(relative);
            }
        }
    }
    files
}

// ------------------------------------------------------------------------------------------
// Specs: the rules and sections they define

#[derive(Clone)]
struct Spec {
    /// Numbers of the numbered headings (`## 4. Errors` gives `4`).
    sections: BTreeSet<String>,
}

struct Specs {
    by_path: BTreeMap<String, Spec>,
    /// Every rule id some spec defines.
    rules: BTreeSet<String>,
    /// Each prefix and the spec that defines rules with it.
    prefixes: BTreeMap<String, String>,
    /// Prefixes defined by two specs, rules defined twice.
    problems: Vec<String>,
}

impl Specs {
    fn load(repo: &Repo) -> Specs {
        let mut specs = Specs {
            by_path: BTreeMap::new(),
            rules: BTreeSet::new(),
            prefixes: BTreeMap::new(),
            problems: Vec::new(),
        };
        let spec_files = repo.files.iter().filter(|f| {
            f.starts_with("specs/") && f.ends_with(".md") && !f.starts_with("specs/tools/")
        });
        for file in spec_files {
            let (sections, definitions) = headings(&repo.read(file));
            for (line_no, id) in definitions {
                let prefix = prefix_of(&id).to_owned();
                if let Some(other) = specs.prefixes.get(&prefix).filter(|other| *other != file) {
                    specs.problems.push(format!(
                        "{file}:{line_no}: rule {id} uses prefix {prefix}, which {other} already uses"
                    ));
                }
                specs.prefixes.entry(prefix).or_insert_with(|| file.clone());
                if !specs.rules.insert(id.clone()) {
                    specs
                        .problems
                        .push(format!("{file}:{line_no}: rule {id} is defined twice"));
                }
            }
            specs.by_path.insert(file.clone(), Spec { sections });
        }
        assert!(
            !specs.rules.is_empty(),
            "no rule definitions found under specs/"
        );
        specs
    }

    fn rule_exists(&self, id: &str) -> bool {
        if self.rules.contains(id) {
            return true;
        }
        // A prefix and one number: the section of that number in the prefix's spec.
        let number = &id[prefix_of(id).len()..];
        !number.contains('.')
            && self
                .prefixes
                .get(prefix_of(id))
                .and_then(|spec| self.by_path.get(spec))
                .is_some_and(|spec| spec.sections.contains(number))
    }
}

/// The numbers of a Markdown file's numbered headings, and its rule definitions as
/// (line number, id). Lines inside fenced code blocks are neither.
fn headings(text: &str) -> (BTreeSet<String>, Vec<(usize, String)>) {
    let mut sections = BTreeSet::new();
    let mut definitions = Vec::new();
    let mut fence: Option<(char, usize)> = None;
    for (index, line) in text.lines().enumerate() {
        let unindented = line.trim_start_matches(' ');
        let run_char = unindented.chars().next().filter(|c| *c == '`' || *c == '~');
        if line.len() - unindented.len() <= 3
            && let Some(c) = run_char
        {
            let run = unindented.chars().take_while(|x| *x == c).count();
            // A backtick run followed by a backtick on its line is a code span, not a fence.
            if run >= 3 && (c == '~' || !unindented[run..].contains('`')) {
                match fence {
                    None => fence = Some((c, run)),
                    Some((open, len))
                        if open == c && run >= len && unindented[run..].trim().is_empty() =>
                    {
                        fence = None
                    }
                    Some(_) => {}
                }
                continue;
            }
        }
        if fence.is_some() {
            continue;
        }
        if let Some(rest) = unindented.strip_prefix('#') {
            let rest = rest.trim_start_matches('#');
            if let Some(title) = rest.strip_prefix(' ') {
                let number: String = title
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '.')
                    .collect();
                let number = number.trim_end_matches('.');
                if !number.is_empty() && number.split('.').all(|n| !n.is_empty()) {
                    sections.insert(number.to_owned());
                }
            }
            continue;
        }
        let item = unindented
            .strip_prefix("- ")
            .or_else(|| unindented.strip_prefix("* "))
            .unwrap_or(unindented);
        if let Some(bold) = item.strip_prefix("**")
            && let Some(id) = id_at(bold)
            && matches!(&bold[id.len()..], rest if rest.starts_with("**") || rest.starts_with([' ', '.', ':']))
        {
            definitions.push((index + 1, id.to_owned()));
        }
    }
    (sections, definitions)
}

// ------------------------------------------------------------------------------------------
// Rule ids and section references in text

fn prefix_of(id: &str) -> &str {
    &id[..id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len())]
}

/// The rule id at the start of `text` (capital letters, then one- or two-digit numbers joined
/// by dots), if it is not glued to a word or `+` after it.
fn id_at(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut end = bytes.iter().take_while(|b| b.is_ascii_uppercase()).count();
    if end == 0 {
        return None;
    }
    loop {
        let digits = bytes[end..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if !(1..=2).contains(&digits) {
            return None;
        }
        end += digits;
        if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1;
        } else {
            break;
        }
    }
    match bytes.get(end) {
        Some(b) if b.is_ascii_alphanumeric() || *b == b'_' || *b == b'+' => None,
        _ => Some(&text[..end]),
    }
}

/// The rule ids cited in `text`: ids whose prefix a spec owns, not glued to what precedes them.
fn rule_ids<'t>(text: &'t str, prefixes: &BTreeMap<String, String>) -> Vec<&'t str> {
    let mut ids = Vec::new();
    let mut previous: Option<char> = None;
    let mut skip_to = 0;
    for (at, c) in text.char_indices() {
        let glued = previous
            .is_some_and(|p| p.is_alphanumeric() || matches!(p, '_' | '.' | '+' | '/' | '\\'));
        previous = Some(c);
        if at < skip_to || !c.is_ascii_uppercase() || glued {
            continue;
        }
        if let Some(id) = id_at(&text[at..])
            && prefixes.contains_key(prefix_of(id))
        {
            ids.push(id);
            skip_to = at + id.len();
        }
    }
    ids
}

/// The document a `§` refers to.
#[derive(Clone, Debug, PartialEq)]
enum Doc<S = String> {
    /// A file, as named (`specs/runner.md`, `events.md`).
    Named(S),
    /// A document outside the repository (CommonMark, an RFC): not checked.
    Outside,
}

impl Doc<String> {
    fn as_deref(&self) -> Doc<&str> {
        match self {
            Doc::Named(name) => Doc::Named(name),
            Doc::Outside => Doc::Outside,
        }
    }
}

struct SectionRef {
    number: String,
    /// The nearest document named before it (see the module docs); `None` when none is.
    doc: Option<Doc>,
}

/// Names of documents outside the repository whose sections texts cite.
const OUTSIDE: [&str; 2] = ["CommonMark", "RFC"];

fn section_refs(line: &str, previous: Option<&str>) -> Vec<SectionRef> {
    let mut refs: Vec<SectionRef> = Vec::new();
    let mut last_end = None;
    for (at, _) in line.match_indices('§') {
        let after = &line[at + '§'.len_utf8()..];
        let number = after
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .next()
            .unwrap_or("")
            .trim_end_matches('.');
        if number.is_empty() || number.starts_with('.') {
            continue;
        }
        let before = &line[..at];
        // A reference listed after another (a range, `,`, `and`) shares its document.
        let listed = last_end.is_some_and(|end: usize| {
            let between =
                line[end..at].trim_matches(|c: char| c.is_whitespace() || ",;–-/".contains(c));
            matches!(between, "" | "and" | "or" | "to")
        });
        let doc = if listed {
            refs.last().and_then(|r: &SectionRef| r.doc.clone())
        } else {
            let opens_line = before
                .chars()
                .all(|c| c.is_whitespace() || "/!#*-(`[<".contains(c));
            let context = match previous {
                Some(previous) if opens_line => format!("{previous} {before}"),
                _ => before.to_owned(),
            };
            last_document(&context)
        };
        last_end = Some(at + '§'.len_utf8() + number.len());
        refs.push(SectionRef {
            number: number.to_owned(),
            doc,
        });
    }
    refs
}

/// The last document named in `text`: a Markdown file name (`specs/runner.md`, `events.md`)
/// or an outside document.
fn last_document(text: &str) -> Option<Doc> {
    let mut found = markdown_names(text)
        .pop()
        .map(|(at, name)| (at, Doc::Named(name)));
    for outside in OUTSIDE {
        if let Some(at) = text.rfind(outside)
            && found.as_ref().is_none_or(|(from, _)| at > *from)
        {
            found = Some((at, Doc::Outside));
        }
    }
    found.map(|(_, doc)| doc)
}

/// The Markdown file names in `text` (`specs/runner.md`, `events.md`), with their offsets: runs
/// of letters, digits and `_./-` ending in `.md` (so `NAME.tool.md.json` is none).
fn markdown_names(text: &str) -> Vec<(usize, String)> {
    let mut names = Vec::new();
    let is_path = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        match (is_path(c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                let word = text[from..at].trim_end_matches('.');
                if word.ends_with(".md") && word.len() > 3 {
                    names.push((from, word.to_owned()));
                }
                start = None;
            }
            _ => {}
        }
    }
    names
}

// ------------------------------------------------------------------------------------------
// Comments of code and of corpus definition files

/// The comment text of each line of a Rust, Python or JavaScript source that has any, as
/// (line number, text). Python's triple-quoted strings (docstrings) count as comments.
/// Strings, raw strings and char literals are skipped; a JavaScript or Python string does
/// not outlive its line (so a regex literal the scanner misreads spoils one line at most).
fn comments(file: &str, text: &str) -> Vec<(usize, String)> {
    #[derive(PartialEq)]
    enum Lang {
        Rust,
        Python,
        Js,
    }
    let lang = if file.ends_with(".rs") {
        Lang::Rust
    } else if file.ends_with(".py") {
        Lang::Python
    } else {
        Lang::Js
    };
    enum State {
        Code,
        Line,
        Block(usize),
        Str(char),
        RawStr(usize),
        Triple(char),
    }
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or('\0');
    let starts = |i: usize, s: &str| s.chars().enumerate().all(|(k, c)| at(i + k) == c);
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut lines: Vec<(usize, String)> = Vec::new();
    let mut line_no = 1;
    let mut state = State::Code;
    let mut i = 0;
    let mut push = |line_no: usize, c: char| match lines.last_mut() {
        Some((n, text)) if *n == line_no => text.push(c),
        _ => lines.push((line_no, c.to_string())),
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line_no += 1;
            match state {
                State::Line => state = State::Code,
                State::Str('"' | '\'') if lang != Lang::Rust => state = State::Code,
                _ => {}
            }
            i += 1;
            continue;
        }
        match state {
            State::Code => {
                if (lang != Lang::Python && starts(i, "//")) || (lang == Lang::Python && c == '#') {
                    state = State::Line;
                } else if lang != Lang::Python && starts(i, "/*") {
                    state = State::Block(1);
                    i += 2;
                    continue;
                } else if lang == Lang::Python && (starts(i, "\"\"\"") || starts(i, "'''")) {
                    state = State::Triple(c);
                    i += 3;
                    continue;
                } else if c == '"' || (lang != Lang::Rust && (c == '\'' || c == '`')) {
                    state = State::Str(c);
                } else if lang == Lang::Rust && c == '\'' {
                    // A char literal ('x', '\n', '\u{1F600}') or a lifetime ('a).
                    if at(i + 1) == '\\' {
                        i += 3;
                        while i < chars.len() && chars[i] != '\'' {
                            i += 1;
                        }
                    } else if at(i + 2) == '\'' {
                        i += 2;
                    }
                } else if lang == Lang::Rust
                    && c == 'r'
                    && (i == 0
                        || !ident(chars[i - 1])
                        || (matches!(chars[i - 1], 'b' | 'c') && (i < 2 || !ident(chars[i - 2]))))
                {
                    let hashes = chars[i + 1..].iter().take_while(|h| **h == '#').count();
                    if at(i + 1 + hashes) == '"' {
                        state = State::RawStr(hashes);
                        i += hashes + 2;
                        continue;
                    }
                }
                i += 1;
            }
            State::Line => {
                push(line_no, c);
                i += 1;
            }
            State::Block(depth) => {
                if starts(i, "*/") {
                    state = if depth == 1 {
                        State::Code
                    } else {
                        State::Block(depth - 1)
                    };
                    i += 2;
                } else if lang == Lang::Rust && starts(i, "/*") {
                    state = State::Block(depth + 1);
                    i += 2;
                } else {
                    push(line_no, c);
                    i += 1;
                }
            }
            State::Str(quote) => {
                if c == '\\' {
                    i += 1;
                    if at(i) == '\n' {
                        continue; // the newline is counted above
                    }
                } else if c == quote {
                    state = State::Code;
                }
                i += 1;
            }
            State::RawStr(hashes) => {
                if c == '"' && (1..=hashes).all(|k| at(i + k) == '#') {
                    state = State::Code;
                    i += hashes;
                }
                i += 1;
            }
            State::Triple(quote) => {
                if (0..3).all(|k| at(i + k) == quote) {
                    state = State::Code;
                    i += 3;
                } else {
                    if c == '\\' && at(i + 1) != '\n' {
                        push(line_no, c);
                        i += 1;
                    }
                    push(line_no, at(i));
                    i += 1;
                }
            }
        }
    }
    lines
}

/// The lines of a Markdown file's HTML comments (`<!-- … -->`), as (line number, text).
fn html_comments(text: &str) -> Vec<(usize, String)> {
    let mut lines = Vec::new();
    let mut inside = false;
    for (index, line) in text.lines().enumerate() {
        let mut rest = line;
        let mut comment = String::new();
        loop {
            if inside {
                match rest.find("-->") {
                    Some(end) => {
                        comment.push_str(&rest[..end]);
                        rest = &rest[end + 3..];
                        inside = false;
                    }
                    None => {
                        comment.push_str(rest);
                        break;
                    }
                }
            } else {
                match rest.find("<!--") {
                    Some(start) => {
                        rest = &rest[start + 4..];
                        inside = true;
                    }
                    None => break,
                }
            }
        }
        if !comment.is_empty() {
            lines.push((index + 1, comment));
        }
    }
    lines
}

// ------------------------------------------------------------------------------------------
// Proptest regression files

/// The regression files the proptest configurations of `file` (a `.rs` file of the repository)
/// read, relative to the root.
fn regression_paths(root: &Path, file: &str, text: &str) -> Vec<String> {
    let source = Path::new(file);
    // `cargo test` runs tests in the package root: the nearest folder with a Cargo.toml.
    let package = source
        .ancestors()
        .skip(1)
        .find(|dir| root.join(dir).join("Cargo.toml").is_file())
        .unwrap_or_else(|| source.parent().unwrap_or(Path::new("")));
    // Comment lines configure nothing (nor do docs that quote a configuration).
    let code: String = text
        .lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .flat_map(|line| [line, "\n"])
        .collect();
    let text = code.as_str();
    let mut paths = Vec::new();
    for (at, _) in text.match_indices("FileFailurePersistence::") {
        let rest = &text[at + "FileFailurePersistence::".len()..];
        let variant: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        let Some(literal) = rest[variant.len()..]
            .trim_start()
            .strip_prefix('(')
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix('"'))
            .and_then(|r| r.split_once('"'))
            .map(|(literal, _)| literal)
        else {
            continue;
        };
        let path = match variant.as_str() {
            "Direct" if Path::new(literal).is_absolute() => continue,
            "Direct" => package.join(literal),
            "WithSource" => source.with_extension(literal),
            "SourceParallel" => source_parallel(root, source, literal),
            _ => continue,
        };
        paths.push(normalize(&path));
    }
    if text.contains("proptest!") && !text.contains("failure_persistence") {
        paths.push(normalize(&source_parallel(
            root,
            source,
            "proptest-regressions",
        )));
    }
    paths
}

/// Where `FileFailurePersistence::SourceParallel(sibling)` puts the regressions of `source`
/// (proptest's `resolve`): next to the nearest folder above it holding a `lib.rs` or
/// `main.rs`, in the tree `sibling`, with the extension `txt`; else as `WithSource(sibling)`.
fn source_parallel(root: &Path, source: &Path, sibling: &str) -> PathBuf {
    for dir in source.ancestors().skip(1) {
        if root.join(dir).join("lib.rs").is_file() || root.join(dir).join("main.rs").is_file() {
            let suffix = source.strip_prefix(dir).unwrap_or(source);
            return dir
                .parent()
                .unwrap_or(Path::new(""))
                .join(sibling)
                .join(suffix)
                .with_extension("txt");
        }
    }
    source.with_extension(sibling)
}

/// A relative path with `.` and `..` folded, `/`-separated.
fn normalize(path: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            _ => {}
        }
    }
    parts.join("/")
}
