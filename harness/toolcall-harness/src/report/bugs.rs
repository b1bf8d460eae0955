//! One Markdown page per root cause (`bugs/NN-slug.md`, `specs/runner.md` R9.6) and their
//! index (`bugs/README.md`): what a maintainer needs to file and fix one bug, from the minimal
//! replay [`crate::triage`] found. When the candidate's hello gives a
//! [`crate::protocol::Reproduction`] program, the folder holds it once ([`super::reproduce`])
//! and each page the command that runs it on the page's minimal stream, through the parser
//! without `tch`.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::Replay;
use super::reproduce::{Folder, Program};
use crate::corpus::Case;
use crate::event::Event;
use crate::judge::Layer;
use crate::protocol::{Hello, ToolInfo};
use crate::split::Realism;
use crate::tools::Registry;
use crate::triage::RootCause;

/// A spec rule a root cause's cases pin (their expected-events comments cite it).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rule {
    /// Its id: `H6.1`, `C9.2`.
    pub id: String,
    /// The spec file that states it: `specs/dialects/hermes.md`.
    pub spec: String,
}

/// What the case a root cause shows pins, as its expected-events comments say: the spec
/// rules it cites and the format's own sources (its `source:` lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pinned {
    /// The rules, in order of first citation.
    pub rules: Vec<Rule>,
    /// The sources: chat templates, vendors' parsers and docs, engines' tests.
    pub sources: Vec<String>,
}

impl Pinned {
    /// What the case `root` shows (one of `cases`) pins: the rules its comments cite, each with
    /// its spec, and its `source:` lines; nothing when it is not among `cases`.
    pub fn of(root: &RootCause, cases: &[Case]) -> Pinned {
        let Some(case) = cases.iter().find(|c| c.id == root.case) else {
            return Pinned::default();
        };
        Pinned {
            rules: case
                .cited_rules()
                .into_iter()
                .map(|(id, spec)| Rule {
                    id,
                    spec: spec.to_owned(),
                })
                .collect(),
            sources: case
                .comments
                .iter()
                .filter_map(|c| c.strip_prefix("source:"))
                .map(|c| c.trim().to_owned())
                .collect(),
        }
    }
}

/// What every page of one run shares.
#[derive(Debug, Clone, Copy)]
pub struct PageContext<'a> {
    /// The candidate's hello: its name (and version, as it gives them) and its reproduction
    /// program.
    pub hello: &'a Hello,
    /// The registry the run declared: with the tools a minimal stream calls, what its
    /// replays were begun with (`specs/protocol.md` P2.2).
    pub registry: &'a Registry,
}

/// How many member ids a page lists before `and N more`.
const SHOWN_CASES: usize = 5;

/// The page's file name: `01-hermes-lost-text-tool-call.md` for the first root cause.
pub fn page_name(number: usize, root: &RootCause) -> String {
    format!("{number:02}-{}.md", root.slug)
}

/// How a page reproduces its root cause without `tch`: the folder's program, and the
/// command that runs it on the page's minimal stream.
#[derive(Debug, Clone, Copy)]
pub struct Reproduce<'a> {
    /// The program's file and how it runs.
    pub program: &'a Program,
    /// The command, from the folder ([`Folder::command`]).
    pub command: &'a str,
}

/// The page of root cause number `number` (from 1), citing what its case pins, with its
/// reproduction when the candidate gives one.
pub fn render_page(
    number: usize,
    root: &RootCause,
    context: &PageContext<'_>,
    pinned: &Pinned,
    reproduce: Option<Reproduce<'_>>,
) -> String {
    let rules = &pinned.rules;
    let mut page = String::new();
    let minimal = &root.minimal;
    let chunks = chunk_strings(root);
    let _ = writeln!(page, "# {number:02}. {}\n", root.title);
    let _ = writeln!(page, "- Candidate: {}", context.hello.name);
    let _ = writeln!(page, "- Dialect: `{}`", root.dialect);
    let _ = writeln!(
        page,
        "- Severity: **{}**: {} (`specs/runner.md` R4.3: what an agent would suffer)",
        root.severity,
        root.severity.meaning()
    );
    let _ = writeln!(
        page,
        "- Verdicts: {} ({}: {})",
        names(root),
        root.layer,
        match root.layer {
            Layer::Conformance => "the whole stream shows it: fix the grammar",
            Layer::Streaming => "only some chunkings or replays show it: fix the buffering",
            Layer::Wire => "the OpenAI chunks break a rule of specs/wire.md: fix the chunk writer",
        }
    );
    let _ = match root.realism {
        Realism::Realistic => writeln!(
            page,
            "- Realism: realistic: no chunk boundary cuts one of the dialect's markers, so a \
             stream straight from a model can hit it (R1.4)"
        ),
        Realism::Synthetic => writeln!(
            page,
            "- Realism: **synthetic cuts only**: every replay that shows it cuts one of the \
             dialect's markers, which a model's tokenizer never does (R1.4): a stream straight \
             from a model does not hit it, one re-chunked by a proxy may; fix realistic \
             findings first"
        ),
    };
    let mut shown: Vec<String> = root
        .cases
        .iter()
        .take(SHOWN_CASES)
        .map(|id| format!("`{id}`"))
        .collect();
    if root.cases.len() > SHOWN_CASES {
        shown.push(format!("and {} more", root.cases.len() - SHOWN_CASES));
    }
    let _ = writeln!(
        page,
        "- Cases: {} ({})\n",
        root.cases.len(),
        shown.join(", ")
    );

    page.push_str("## Minimal replay\n\n");
    if root.shrunk {
        let _ = writeln!(
            page,
            "Shrunk from `{}` while the candidate still showed the same verdicts.\n",
            root.case
        );
    } else {
        let _ = writeln!(
            page,
            "Not shrunk (triage's budget ran out, or the failure did not show again): the \
             stream and chunks of `{}` as they failed.\n",
            root.case
        );
    }
    if !minimal.prefill.is_empty() {
        page.push_str("After the prefill (the generation prompt the stream continues):\n\n");
        page.push_str(&fence(&minimal.prefill, "text"));
    }
    let _ = writeln!(page, "Stream ({} bytes):\n", minimal.stream.len());
    page.push_str(&fence(&minimal.stream, "text"));
    let _ = writeln!(page, "Chunks (`{}`):\n", minimal.chunks);
    page.push_str(&fence(&json_text(&chunks), "json"));

    page.push_str("## Expected events (the reference)\n\n");
    page.push_str(&fence(&lines(&root.expected), "json"));
    page.push_str("## Actual events (the candidate)\n\n");
    page.push_str(&fence(&lines(&root.actual), "json"));
    page.push_str("## What the verdicts say\n\n");
    page.push_str(&fence(&root.detail, "text"));

    if !rules.is_empty() {
        page.push_str("## Rules\n\n");
        for rule in rules {
            let _ = writeln!(page, "- {} (`{}`)", rule.id, rule.spec);
        }
        page.push('\n');
    }
    if !pinned.sources.is_empty() {
        let _ = writeln!(page, "## The format's own sources (from `{}`)\n", root.case);
        for source in &pinned.sources {
            let _ = writeln!(page, "- {source}");
        }
        page.push('\n');
    }
    if !root.replay.is_empty() {
        page.push_str("## Replay with tch\n\n");
        page.push_str(&fence(&root.replay, "sh"));
    }
    if let Some(reproduce) = reproduce {
        page.push_str("## Reproduce without tch\n\n");
        let _ = writeln!(
            page,
            "The candidate's own program, `{}` in this folder, feeds these chunks to the parser \
             through its API alone and prints what it returns (its first lines say what to \
             install; `specs/protocol.md` P2.8). In this folder:\n",
            reproduce.program.file
        );
        page.push_str(&fence(reproduce.command, "sh"));
    }
    page
}

/// The index, `bugs/README.md`: a table of every root cause, with its page.
pub fn render_index(roots: &[RootCause], context: &PageContext<'_>) -> String {
    let cases: usize = roots.iter().map(|r| r.cases.len()).sum();
    let mut index = format!("# Bugs of {}\n\n", context.hello.name);
    let _ = writeln!(
        index,
        "{} root cause{} in {cases} failing case{}, worst first.\n",
        roots.len(),
        if roots.len() == 1 { "" } else { "s" },
        if cases == 1 { "" } else { "s" },
    );
    if roots.is_empty() {
        return index;
    }
    index
        .push_str("| NN | title | severity | realism | cases |\n| --- | --- | --- | --- | --- |\n");
    for (n, root) in roots.iter().enumerate() {
        let number = n + 1;
        let _ = writeln!(
            index,
            "| [{number:02}]({}) | {} | {} | {} | {} |",
            page_name(number, root),
            root.title.replace('|', "\\|"),
            root.severity,
            root.realism,
            root.cases.len()
        );
    }
    index
}

/// Writes every root cause's page and the index into `dir` (created if needed), and, when the
/// candidate gives a reproduction and there is a page, its program and the tool lists the
/// pages' commands read, once each; `pinned` gives each root cause what its shown case pins.
/// Returns the files written, index last.
pub fn write(
    dir: &Path,
    roots: &[RootCause],
    context: &PageContext<'_>,
    pinned: &dyn Fn(&RootCause) -> Pinned,
) -> io::Result<Vec<PathBuf>> {
    fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    let mut folder = context.hello.reproduction.as_ref().map(Folder::new);
    for (n, root) in roots.iter().enumerate() {
        let path = dir.join(page_name(n + 1, root));
        let command = folder.as_mut().map(|folder| {
            // What the minimal replay was begun with (`write_cases`' case replays the same).
            let tools = ToolInfo::for_stream(
                context.registry,
                root.dialect,
                &root.minimal.stream,
                &root.expected,
            );
            folder.command(
                root.dialect.name(),
                &root.minimal.prefill,
                &chunk_strings(root),
                tools,
            )
        });
        let reproduce = folder
            .as_ref()
            .zip(command.as_deref())
            .map(|(folder, command)| Reproduce {
                program: folder.program(),
                command,
            });
        fs::write(
            &path,
            render_page(n + 1, root, context, &pinned(root), reproduce),
        )?;
        written.push(path);
    }
    if let Some(folder) = folder.filter(|_| !roots.is_empty()) {
        for (name, text) in folder.files() {
            let path = dir.join(name);
            fs::write(&path, text)?;
            written.push(path);
        }
    }
    let index = dir.join("README.md");
    fs::write(&index, render_index(roots, context))?;
    written.push(index);
    Ok(written)
}

/// Writes each root cause's minimal replay as a corpus case under `dir`
/// (`DIR/DIALECT/NN-slug.stream`, its `.events.jsonl` the reference's events, its `.prefill`),
/// and gives each root cause the `tch run` command that replays that case through the
/// candidate (`replay` with `--corpus DIR`). A scaling root cause (no minimal stream, R9.7)
/// keeps the replay command of its first case.
pub fn write_cases(dir: &Path, roots: &mut [RootCause], replay: &Replay) -> io::Result<()> {
    let replay = Replay {
        corpus: Some(dir.to_owned()),
        ..replay.clone()
    };
    for (n, root) in roots.iter_mut().enumerate() {
        if root.minimal.stream.is_empty() && !root.replay.is_empty() {
            continue;
        }
        let id = format!(
            "{}/{}",
            root.dialect,
            page_name(n + 1, root).trim_end_matches(".md")
        );
        let case = Case {
            dialect: root.dialect,
            id: id.clone(),
            stream: root.minimal.stream.clone(),
            prefill: root.minimal.prefill.clone(),
            request: crate::protocol::RequestOptions::default(),
            expected: root.expected.clone(),
            alternatives: Vec::new(),
            comments: Vec::new(),
        };
        let comments = [
            format!("{} {}", root.id, root.title),
            format!(
                "the minimal replay of {} ({} cases); expected events: the reference's",
                root.case,
                root.cases.len()
            ),
        ];
        case.write(dir, &comments)?;
        let whole = root.minimal.chunks.len(&root.minimal.stream) <= 1;
        root.replay = replay.command(&id, (!whole).then_some(&root.minimal.chunks));
    }
    Ok(())
}

/// `text` fenced so that nothing in it can close the fence: one backtick more than its
/// longest run (at least three), then a blank line.
pub fn fence(text: &str, info: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let ticks = "`".repeat((longest + 1).max(3));
    let newline = if text.ends_with('\n') { "" } else { "\n" };
    format!("{ticks}{info}\n{text}{newline}{ticks}\n\n")
}

/// The minimal stream's chunks; the whole stream when its vector does not fit (it always
/// does: triage made it from the stream).
fn chunk_strings(root: &RootCause) -> Vec<&str> {
    let stream = root.minimal.stream.as_str();
    root.minimal
        .chunks
        .chunks(stream)
        .unwrap_or_else(|_| vec![stream])
}

fn names(root: &RootCause) -> String {
    root.verdicts
        .iter()
        .map(|v| format!("`{}`", v.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One JSON line per event; `(none)` for none.
fn lines(events: &[Event]) -> String {
    if events.is_empty() {
        return "(none)".to_owned();
    }
    events
        .iter()
        .map(Event::to_json_line)
        .collect::<Vec<_>>()
        .join("\n")
}

/// `value` as compact JSON text.
pub(super) fn json_text<T: serde::Serialize + ?Sized>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::Dialect;
    use crate::judge::{Severity, Verdict};
    use crate::protocol::Reproduction;
    use crate::split::ChunkSpec;
    use crate::triage::Minimal;
    use serde_json::json;

    fn root() -> RootCause {
        let stream = "Note ```x``` <tool_call>{\"name\": \"GetWeather\"}</tool_call>";
        RootCause {
            id: "RC1".into(),
            slug: "hermes-missing-call-cut-in-tool-call".into(),
            title: "hermes: loses a call when a chunk ends at `<tool_` (synthetic cuts only)"
                .into(),
            dialect: Dialect::Hermes,
            severity: Severity::High,
            verdicts: vec![Verdict::ChunkDependent, Verdict::MissingCall],
            layer: Layer::Streaming,
            realism: Realism::Synthetic,
            cases: (1..=7).map(|n| format!("hermes/c{n}")).collect(),
            case: "hermes/c2".into(),
            minimal: Minimal {
                stream: stream.into(),
                chunks: ChunkSpec::of_cuts(stream, &[19]),
                prefill: "<think>\n".into(),
            },
            shrunk: true,
            expected: vec![
                Event::text("Note ```x``` "),
                Event::call("tool-call-1", "GetWeather", json!({})),
            ],
            actual: vec![Event::text("Note ```x``` ")],
            detail: "chunk-dependent: the output differs from the whole stream's".into(),
            replay: "tch run --case hermes/c2 --chunks 19,39 -- python3 a.py".into(),
        }
    }

    fn hello(reproduction: Option<Reproduction>) -> Hello {
        Hello {
            protocol: 1,
            name: "parser 1.2.3".into(),
            dialects: vec!["hermes".into()],
            definitions: false,
            non_streaming: false,
            reproduction,
            starts_in_reasoning: Vec::new(),
            output: crate::wire::Output::Events,
            options: Vec::new(),
        }
    }

    fn registry() -> Registry {
        let tool = crate::tools::Tool::new("GetWeather", "Weather.", json!({"type": "object"}));
        Registry::new(vec![tool.expect("a valid tool")]).expect("one tool")
    }

    /// A program that prints the JSON object it reads on stdin, keys sorted.
    const ECHO: &str =
        "import json, sys\nprint(json.dumps(json.load(sys.stdin), sort_keys=True))\n";

    /// The command in a page's "Reproduce without tch" section.
    fn command_of(page: &str) -> &str {
        let section = page
            .split("## Reproduce without tch\n")
            .nth(1)
            .expect("a reproduction section");
        let open = section.find("sh\n").expect("a fenced command");
        let ticks = &section[section[..open].rfind('\n').map_or(0, |n| n + 1)..open];
        let body = &section[open + 3..];
        &body[..body
            .find(&format!("\n{ticks}\n"))
            .expect("the fence closes")
            + 1]
    }

    #[test]
    fn a_page_fences_the_stream_safely_and_holds_the_command_not_the_program() {
        let hello = hello(Some(Reproduction {
            language: "python".into(),
            program: ECHO.into(),
        }));
        let registry = registry();
        let context = PageContext {
            hello: &hello,
            registry: &registry,
        };
        let pinned = Pinned {
            rules: vec![Rule {
                id: "H6.1".into(),
                spec: "specs/dialects/hermes.md".into(),
            }],
            sources: vec!["NousResearch/Hermes-Function-Calling".into()],
        };
        let program = Program::of("python");
        let command =
            "{ cat; cat tools-1.json; echo '}'; } <<'EOF' | python3 reproduce.py\n…\nEOF\n";
        let reproduce = Reproduce {
            program: &program,
            command,
        };
        let page = render_page(1, &root(), &context, &pinned, Some(reproduce));
        assert!(
            page.contains("- NousResearch/Hermes-Function-Calling"),
            "{page}"
        );
        assert!(page.starts_with("# 01. hermes: loses a call"), "{page}");
        assert!(page.contains("- Candidate: parser 1.2.3"));
        assert!(page.contains("**high**: a call is lost"));
        assert!(page.contains("synthetic cuts only"));
        assert!(page.contains("- Cases: 7 (`hermes/c1`, `hermes/c2`, `hermes/c3`, `hermes/c4`, `hermes/c5`, and 2 more)"));
        // The stream has a run of three backticks: its fence has four.
        assert!(page.contains(&format!("````text\n{}\n````\n", root().minimal.stream)));
        assert!(page.contains("```text\n<think>\n```\n"));
        let stream = root().minimal.stream;
        assert!(page.contains(&format!("Chunks (`19,{}`):", stream.len() - 19)));
        assert!(
            page.contains(
                r#"["Note ```x``` <tool_","call>{\"name\": \"GetWeather\"}</tool_call>"]"#
            )
        );
        assert!(page.contains(r#"{"type":"tool-call","toolCallId":"tool-call-1""#));
        assert!(page.contains("- H6.1 (`specs/dialects/hermes.md`)"));
        assert!(page.contains("```sh\ntch run --case hermes/c2"));
        // The program is the folder's, named; the page holds only the command.
        assert!(page.contains("`reproduce.py` in this folder"), "{page}");
        assert_eq!(command_of(&page), command);
        assert!(!page.contains("json.load"), "{page}");
        assert_eq!(fence("a ```` b", ""), "`````\na ```` b\n`````\n\n");
    }

    #[test]
    fn the_folder_holds_the_program_once_and_each_page_runs_it_on_its_inputs() {
        // Three root causes: the first and third declare the registry alone, the second a
        // tool its stream calls that the registry lacks (P2.2), so two tool lists. The
        // second's chunks hold what a shell would read (`$`, backticks, quotes, backslashes)
        // and a line `EOF`.
        let first = root();
        let mut second = root();
        second.slug = "hermes-lost-text".into();
        let stream = "Cost: $HOME `date` \\n 'q' \"r\"\nEOF\n<tool_call>{\"name\": \"get_time\"}</tool_call>";
        second.minimal = Minimal {
            stream: stream.into(),
            chunks: ChunkSpec::of_cuts(stream, &[28]),
            prefill: String::new(),
        };
        second.expected = vec![
            Event::text("Cost: $HOME `date` \\n 'q' \"r\"\nEOF\n"),
            Event::call("tool-call-1", "get_time", json!({})),
        ];
        let mut third = root();
        third.slug = "hermes-text".into();
        third.minimal.stream = "plain".into();
        third.minimal.chunks = ChunkSpec::of_cuts("plain", &[]);
        third.expected = vec![Event::text("plain")];
        let hello = hello(Some(Reproduction {
            language: "python".into(),
            program: ECHO.into(),
        }));
        let registry = registry();
        let context = PageContext {
            hello: &hello,
            registry: &registry,
        };
        let dir = std::env::temp_dir().join(format!("tch-bugs-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        let roots = [first, second, third];
        let written = write(&dir, &roots, &context, &|_| Pinned::default()).expect("written");
        let names: Vec<String> = written
            .iter()
            .filter_map(|p| p.file_name()?.to_str().map(str::to_owned))
            .collect();
        assert_eq!(
            names,
            [
                "01-hermes-missing-call-cut-in-tool-call.md",
                "02-hermes-lost-text.md",
                "03-hermes-text.md",
                "reproduce.py",
                "tools-1.json",
                "tools-2.json",
                "README.md"
            ]
        );
        assert_eq!(
            fs::read_to_string(dir.join("reproduce.py")).ok().as_deref(),
            Some(ECHO)
        );
        let weather = json!({"name": "GetWeather", "description": "Weather.", "inputSchema": {"type": "object"}});
        let time = json!({"name": "get_time", "description": "", "inputSchema": {}});
        let expected = [
            (
                json!("<think>\n"),
                json!([
                    "Note ```x``` <tool_",
                    "call>{\"name\": \"GetWeather\"}</tool_call>"
                ]),
                json!([weather]),
            ),
            (
                json!(""),
                json!([&stream[..28], &stream[28..]]),
                json!([weather, time]),
            ),
            (json!("<think>\n"), json!(["plain"]), json!([weather])),
        ];
        for (path, (prefill, chunks, tools)) in written.iter().zip(expected) {
            let page = fs::read_to_string(path).expect("a page");
            assert!(!page.contains("json.load"), "no page holds the program");
            let done = std::process::Command::new("sh")
                .arg("-c")
                .arg(command_of(&page))
                .current_dir(&dir)
                .output()
                .expect("sh runs");
            assert!(
                done.status.success(),
                "{}",
                String::from_utf8_lossy(&done.stderr)
            );
            let read: serde_json::Value =
                serde_json::from_slice(&done.stdout).expect("the program's JSON");
            assert_eq!(
                read,
                json!({"dialect": "hermes", "prefill": prefill, "chunks": chunks, "tools": tools}),
                "{}",
                path.display()
            );
        }
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn without_a_program_there_is_no_reproduction_and_the_index_lists_every_page() {
        let hello = hello(None);
        let registry = Registry::default();
        let context = PageContext {
            hello: &hello,
            registry: &registry,
        };
        let page = render_page(3, &root(), &context, &Pinned::default(), None);
        assert!(!page.contains("Reproduce without tch") && !page.contains("## Rules"));
        let mut second = root();
        second.slug = "hermes-lost-text".into();
        second.title = "hermes: a | b".into();
        second.realism = Realism::Realistic;
        second.cases = vec!["hermes/x".into()];
        let index = render_index(&[root(), second], &context);
        assert!(index.starts_with("# Bugs of parser 1.2.3\n\n2 root causes in 8 failing cases"));
        assert!(
            index.contains(
                "| [01](01-hermes-missing-call-cut-in-tool-call.md) | hermes: loses a call"
            )
        );
        assert!(
            index.contains(
                "| [02](02-hermes-lost-text.md) | hermes: a \\| b | high | realistic | 1 |"
            )
        );
    }
}
