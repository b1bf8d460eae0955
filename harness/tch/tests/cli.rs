//! The `tch` binary as a user runs it: `tch parse` prints exactly the expected events of the
//! seed examples, whole and chunked; bad arguments and files give one error line and exit 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use toolcall_harness::corpus::{Case, parse_expected};
use toolcall_harness::judge::reference::compare;
use toolcall_harness::normalize::Normalize;

fn tch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(args)
        .output()
        .expect("the tch binary runs")
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus")
}

fn seed_cases() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(corpus_dir().join("md-fence"))
        .expect("corpus/md-fence exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default();
            name.starts_with("seed-") && name.ends_with(".stream")
        })
        .collect();
    paths.sort();
    paths
}

#[test]
fn parse_prints_the_seed_examples_events() {
    let paths = seed_cases();
    assert!(
        paths.len() >= 4,
        "seed 000 has four worked examples, found {paths:?}"
    );
    let strict = Normalize {
        source: None,
        keep_extra: true,
    };
    for path in paths {
        let case = Case::load(&path).expect("case loads");
        let file = path.to_str().expect("UTF-8 path");
        for extra_args in [
            &[][..],
            &["--chunk-size", "1"],
            &["--chunks", "3,1,4,1,5,9,2,6"],
        ] {
            let mut args = vec!["parse", "--dialect", "md-fence", file];
            args.extend_from_slice(extra_args);
            let output = tch(&args);
            assert!(output.status.success(), "{file} {extra_args:?}: {output:?}");
            let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
            let actual = parse_expected(&stdout).expect("tch prints events");
            if let Err((_, diff)) = compare(&strict.apply(&case.expected), &strict.apply(&actual)) {
                panic!("{} with {extra_args:?}:\n{diff}", case.id);
            }
        }
    }
}

#[test]
fn parse_reads_standard_input_when_no_file_is_given() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(["parse", "--dialect", "md-fence"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("tch starts");
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"hi\n```tool search c1\nq: 1\n```\n")
        .expect("write");
    let output = child.wait_with_output().expect("tch ends");
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "{\"type\":\"text-delta\",\"delta\":\"hi\\n\"}\n\
         {\"type\":\"tool-call\",\"toolCallId\":\"c1\",\"toolName\":\"search\",\"input\":{},\"extra\":{\"q\":1}}\n"
    );
}

/// Runs `tch ARGS` with `stream` on standard input; its standard output.
fn parse_stdin(args: &[&str], stream: &str) -> String {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("tch starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin.write_all(stream.as_bytes()).expect("write");
    drop(stdin);
    let output = child.wait_with_output().expect("tch ends");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn parse_reads_a_reply_with_the_dialects_default_generation_prompt() {
    // specs/streaming.md C9.4: GLM-4.7's template ends the prompt with `<|assistant|><think>`,
    // so a reply piped through `tch parse` with no flags starts inside reasoning.
    let reply = "Let me check.</think>Sure.";
    let reasoning_then_text = "{\"type\":\"reasoning-delta\",\"delta\":\"Let me check.\"}\n\
                               {\"type\":\"text-delta\",\"delta\":\"Sure.\"}\n";
    assert_eq!(
        parse_stdin(&["parse", "-d", "glm-4.7", "--normalized"], reply),
        reasoning_then_text
    );
    // `--prefill ''` says "none": the closer is then text.
    assert_eq!(
        parse_stdin(
            &["parse", "-d", "glm-4.7", "--normalized", "--prefill", ""],
            reply
        ),
        "{\"type\":\"text-delta\",\"delta\":\"Let me check.</think>Sure.\"}\n"
    );
}

#[test]
fn parse_takes_a_prefill_and_an_openai_tools_file() {
    // specs/streaming.md C9: the prefill leaves the stream inside reasoning; no events from it.
    let args = [
        "parse",
        "-d",
        "hermes",
        "--chunk-size",
        "1",
        "--normalized",
        "--prefill",
    ];
    assert_eq!(
        parse_stdin(
            &[&args[..], &["<|im_start|>assistant\n<think>\n"]].concat(),
            "hm</think>Hi"
        ),
        "{\"type\":\"reasoning-delta\",\"delta\":\"hm\"}\n{\"type\":\"text-delta\",\"delta\":\"Hi\"}\n"
    );
    // gpt-oss's generation prompt leaves a header open: the stream finishes it.
    assert_eq!(
        parse_stdin(
            &["parse", "-d", "harmony", "--prefill", "<|start|>assistant"],
            "<|channel|>final<|message|>Hi<|return|>"
        ),
        "{\"type\":\"text-delta\",\"delta\":\"Hi\"}\n"
    );
    // qwen3-coder types parameter values by the schema of an OpenAI tools file.
    let tools = std::env::temp_dir().join(format!("tch-cli-tools-{}.json", std::process::id()));
    std::fs::write(
        &tools,
        r#"[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}}}]"#,
    )
    .expect("write tools");
    let tools = tools.to_string_lossy().into_owned();
    assert_eq!(
        parse_stdin(
            &[
                "parse",
                "-d",
                "qwen3-coder",
                "--prefill",
                "",
                "--tools",
                &tools
            ],
            "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>"
        ),
        "{\"type\":\"tool-call\",\"toolCallId\":\"tool-call-1\",\"toolName\":\"f\",\"input\":{\"n\":7}}\n"
    );
}

#[test]
fn run_takes_the_tools_a_corpus_was_written_for() {
    // A qwen3-coder case whose value is typed by a tool of an OpenAI tools file: it holds with
    // that file as --tools (the reference behind `tch serve` gets it in `begin`), not without.
    let dir = std::env::temp_dir().join(format!("tch-cli-run-tools-{}", std::process::id()));
    let cases = dir.join("corpus/qwen3-coder");
    std::fs::create_dir_all(&cases).expect("corpus dir");
    std::fs::write(
        cases.join("typed.stream"),
        "<tool_call>\n<function=f>\n<parameter=n>\n7\n</parameter>\n</function>\n</tool_call>",
    )
    .expect("stream");
    // Qwen3-Coder's prompt opens nothing (the dialect's default, Qwen3.5's, opens reasoning).
    std::fs::write(cases.join("typed.prefill"), "").expect("prefill");
    std::fs::write(
        cases.join("typed.events.jsonl"),
        "# n is an integer in tools.json (Q3.2)\n\
         {\"type\":\"tool-call\",\"toolCallId\":\"tool-call-1\",\"toolName\":\"f\",\"input\":{\"n\":7}}\n",
    )
    .expect("events");
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"{"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"n":{"type":"integer"}}}}}]}"#,
    )
    .expect("tools");
    let corpus = dir.join("corpus").to_string_lossy().into_owned();
    let report = dir.join("reports").to_string_lossy().into_owned();
    let run = |extra: &[&str]| {
        let mut args = vec!["run", "--corpus", &corpus, "--splits", "whole,single"];
        args.push("--no-scaling");
        args.extend(["--report-dir", &report]);
        args.extend(extra);
        tch(&args).status.code()
    };
    let tools = tools.to_string_lossy().into_owned();
    assert_eq!(run(&["--tools", &tools]), Some(0));
    assert_eq!(run(&[]), Some(1), "untyped, the value is the string \"7\"");
}

#[test]
fn bad_input_is_one_clear_line_and_exit_2() {
    let missing = tch(&["parse", "--dialect", "md-fence", "/no/such/file.md"]);
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("cannot read /no/such/file.md"), "{stderr}");

    let unknown = tch(&["parse", "--dialect", "nope", "x"]);
    assert_eq!(unknown.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&unknown.stderr);
    // clap lists every dialect (`--help` does too).
    assert!(
        stderr.contains("'nope'") && stderr.contains("md-fence, tag, signature, hermes"),
        "{stderr}"
    );

    let stream = corpus_dir().join("md-fence/seed-single-tool-call-with-output.stream");
    let too_long = tch(&[
        "parse",
        "-d",
        "md-fence",
        stream.to_str().expect("path"),
        "--chunks",
        "100000",
    ]);
    assert_eq!(too_long.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&too_long.stderr).contains("--chunks: chunk lengths add up to")
    );

    // Streamed (--chunk-size): a byte that is not UTF-8 is named by its offset, whole or not.
    let dir = std::env::temp_dir().join(format!("tch-cli-{}-utf8", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let latin1 = dir.join("latin1.txt");
    std::fs::write(&latin1, b"caf\xe9 au lait").expect("written");
    for chunking in [&["--chunk-size", "2"][..], &[]] {
        let mut args = vec!["parse", "-d", "hermes", latin1.to_str().expect("path")];
        args.extend_from_slice(chunking);
        let output = tch(&args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{chunking:?}: {stderr}");
        assert!(
            stderr.contains("not UTF-8 (invalid byte at offset 3)"),
            "{chunking:?}: {stderr}"
        );
    }
}

#[test]
fn corpus_command_replays_every_case() {
    let output = tch(&["corpus", "--corpus", corpus_dir().to_str().expect("path")]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(
        stdout.lines().any(|l| l.ends_with(" passed, 0 failed")),
        "{stdout}"
    );
}
