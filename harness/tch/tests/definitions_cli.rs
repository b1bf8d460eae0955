//! `tch definitions` and `tch prompt` as a user runs them on `specs/tools/*.tool.md`: one JSON
//! contract per line, the seed 004 prompt with valid examples, and one error line with exit
//! status 2 on bad input. And `tch parse --tools tools.json`: a JSON tool list as the registry,
//! or one error line naming the file and the JSON path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};
use toolcall_harness::definitions::bundled_registry;

fn tch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(args)
        .output()
        .expect("the tch binary runs")
}

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(path)
        .to_str()
        .expect("UTF-8 path")
        .to_owned()
}

fn bundled_files() -> Vec<String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo("specs/tools"))
        .expect("specs/tools exists")
        .map(|entry| entry.expect("readable entry").path())
        .filter(|path| path.to_string_lossy().ends_with(".tool.md"))
        .collect();
    files.sort();
    files
        .iter()
        .map(|p| p.to_str().expect("UTF-8").to_owned())
        .collect()
}

fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn definitions_prints_one_contract_per_line() {
    let files = bundled_files();
    let mut args = vec!["definitions"];
    args.extend(files.iter().map(String::as_str));
    let text = stdout(&tch(&args));
    let contracts: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect();
    assert_eq!(contracts.len(), files.len());
    let weather = contracts
        .iter()
        .find(|c| c["name"] == "GetWeather")
        .expect("GetWeather is bundled");
    assert_eq!(weather["kind"], "tool");
    assert_eq!(
        weather["inputSchema"]["properties"]["unit"]["enum"],
        json!(["celsius", "fahrenheit"])
    );
    // With no file, the bundled tools: the same contracts.
    assert_eq!(stdout(&tch(&["definitions"])), text);
    // --pretty is the same JSON, indented.
    let pretty = stdout(&tch(&["definitions", "--pretty", &files[0]]));
    assert!(pretty.starts_with("{\n  \"kind\": \"tool\""), "{pretty}");
    let reparsed: Value = serde_json::from_str(&pretty).expect("pretty JSON");
    assert_eq!(reparsed, contracts[0]);
}

#[test]
fn prompt_renders_every_tool_with_a_valid_example() {
    let files = bundled_files();
    let mut args = vec!["prompt"];
    args.extend(files.iter().map(String::as_str));
    let prompt = stdout(&tch(&args));
    let registry = bundled_registry().expect("bundled tools load");
    for tool in registry.tools() {
        let name = &tool.name;
        assert!(
            prompt.contains(&format!("## {name}\n\nDescription: ")),
            "{name}"
        );
        let open = format!("<{name}>\n```json\n");
        let start = prompt.find(&open).expect("an example call") + open.len();
        let end = start
            + prompt[start..]
                .find(&format!("\n```\n</{name}>\n"))
                .expect("the example closes");
        let sample: Value = serde_json::from_str(&prompt[start..end]).expect("example JSON");
        assert_eq!(tool.validate(&sample), Ok(()), "{name}: {sample}");
    }
    assert!(prompt.contains("- `location` (string, required): The city and state"));
    assert!(
        prompt.contains("- `unit` (string, optional): The temperature unit to use\n  ```json\n")
    );
    assert_eq!(stdout(&tch(&["prompt"])), prompt);
}

#[test]
fn bad_definitions_are_one_line_naming_file_line_and_section() {
    let file = repo("corpus/definitions/unknown-type.tool.md");
    for command in ["definitions", "prompt"] {
        let output = tch(&[command, &repo("specs/tools/get-weather.tool.md"), &file]);
        assert_eq!(output.status.code(), Some(2), "{command}");
        assert!(
            output.stdout.is_empty(),
            "{command}: nothing printed before the error"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!(
                "tch: error: {file}:15: in Parameters > query: unknown type \"strng\""
            )),
            "{stderr}"
        );
    }
    let missing = tch(&["prompt", "/no/such/file.tool.md"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read /no/such/file.tool.md"));
    let not_a_definition = tch(&["definitions", &repo("README.md")]);
    assert_eq!(not_a_definition.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&not_a_definition.stderr).contains("not a definition file"));
}

#[test]
fn help_teaches_with_examples() {
    for command in ["definitions", "prompt"] {
        let help = stdout(&tch(&[command, "--help"]));
        assert!(help.contains("Examples:"), "{help}");
        assert!(
            help.contains(&format!("tch {command} specs/tools/*.tool.md")),
            "{help}"
        );
    }
}

/// A scratch folder of this test process, emptied first.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tch-defs-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

#[test]
fn parse_takes_tools_from_an_openai_tools_json() {
    let dir = scratch("tools-json");
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"[{"type": "function", "function": {"name": "lookup_order", "description": "Find an order",
            "parameters": {"type": "object", "properties": {"orderId": {"type": "integer"}}, "required": ["orderId"]}}}]"#,
    )
    .expect("write tools.json");
    let stream = dir.join("reply.txt");
    let valid = r#"<lookup_order>{"orderId": 42}</lookup_order>"#;
    let invalid = r#"<lookup_order>{"orderId": "42"}</lookup_order>"#;
    std::fs::write(&stream, format!("Looking it up.\n{valid}\n{invalid}")).expect("write stream");
    let stream = stream.to_str().expect("UTF-8 path");
    let tools = tools.to_str().expect("UTF-8 path");

    let events: Vec<Value> = stdout(&tch(&[
        "parse",
        "--dialect",
        "tag",
        "--tools",
        tools,
        stream,
    ]))
    .lines()
    .map(|line| serde_json::from_str(line).expect("each line is JSON"))
    .collect();
    // specs/dialects/tag.md: `lookup_order` is a registry name now (T1.1), so `<lookup_order>`
    // then `{` starts a call (T2.1, T2.2) that ends at `</lookup_order>` (T2.4); its object
    // satisfies the JSON's `parameters` (T4.1): the stream's first call, `tool-call-1` (T3.1).
    // The second call's `orderId` is a string where the schema says integer: an error, then
    // the block as text (T4.1, specs/streaming.md C5). The text around them is text (T3.2).
    assert_eq!(events.len(), 5, "{events:?}");
    assert_eq!(
        events[..3],
        [
            json!({"type": "text-delta", "delta": "Looking it up.\n"}),
            json!({"type": "tool-call", "toolCallId": "tool-call-1", "toolName": "lookup_order", "input": {"orderId": 42}}),
            json!({"type": "text-delta", "delta": "\n"}),
        ]
    );
    assert_eq!(events[3]["type"], "error");
    let error_text = events[3]["errorText"].as_str().expect("errorText");
    assert!(
        error_text.starts_with("tool call input does not match the schema of lookup_order"),
        "{error_text}"
    );
    assert_eq!(events[4], json!({"type": "text-delta", "delta": invalid}));

    // Without --tools, the bundled registry has no `lookup_order`: the stream is all text.
    let bundled = stdout(&tch(&["parse", "--dialect", "tag", stream]));
    assert!(!bundled.contains("tool-call"), "{bundled}");
    std::fs::remove_dir_all(&dir).expect("remove the scratch folder");
}

#[test]
fn a_bad_tools_json_is_one_line_naming_file_and_json_path() {
    let dir = scratch("bad-tools-json");
    let tools = dir.join("tools.json");
    std::fs::write(
        &tools,
        r#"{"tools": [{"type": "function", "function": {"name": "ok"}},
                      {"type": "function", "function": {"name": "bad", "parameters": {"type": "strng"}}}]}"#,
    )
    .expect("write tools.json");
    let tools = tools.to_str().expect("UTF-8 path");
    let output = tch(&["parse", "--dialect", "tag", "--tools", tools, "/dev/null"]);
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(output.stdout.is_empty(), "nothing printed before the error");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!(
            "tch: error: {tools}: tools[1].function.parameters: not a JSON Schema: "
        )),
        "{stderr}"
    );
    std::fs::remove_dir_all(&dir).expect("remove the scratch folder");
}
