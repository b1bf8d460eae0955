//! A tch candidate (specs/protocol.md) wrapping the Rust crates `tool-parser` 1.10.0 and
//! `reasoning-parser` 1.10.0, the parsers of the SMG model gateway (smg-project/smg), driven as
//! the gateway's gRPC router drives them when it serves an OpenAI chat completion
//! (`gateway.rs`). It answers in OpenAI chunks (`"output":"openai-chunks"`, specs/protocol.md
//! §5), exactly the `chat.completion.chunk` objects the gateway writes, which tch reads as a
//! client does, and it answers the non-streaming request (P2.11) through the gateway's
//! non-streaming path. The adapter never fixes the parsers: see README.md.
//!
//! This binary is the protocol loop only: each stream is a `Session` of the crate's library
//! (`src/lib.rs`), the one mapping from the parsers' output to tch events, which the in-process
//! candidate (`adapters/rust-tool-parser-in-process/`) drives too.
//!
//! ```sh
//! cargo build --release --locked --manifest-path adapters/rust-tool-parser/Cargo.toml
//! tch run --dialect hermes -- adapters/rust-tool-parser/target/release/tch-adapter-tool-parser
//! ```

use std::io::{self, BufRead, BufWriter, Write};

use serde_json::{json, Value};
use tch_adapter_tool_parser::{dialects, Factories, Session, NAME};

/// The standalone reproduction (specs/protocol.md P2.8), before the adapter writes its
/// deployments table in.
const REPRODUCTION: &str = include_str!("../reproduction.rs.tmpl");

/// The hello's `reproduction`: the program with `@ADAPTER_DEPLOYMENTS@` replaced by the
/// dialect table this adapter runs (`dialects::DIALECTS`), as Rust source; it reads the
/// dialect, prefill, chunks and tools as one JSON object on stdin.
fn reproduction() -> Value {
    let rows: Vec<String> = dialects::DIALECTS
        .iter()
        .map(|d| {
            format!(
                "    ({:?}, {:?}, {:?}, {:?}),",
                d.name, d.model, d.reasoning_parser, d.think
            )
        })
        .collect();
    let table = format!("&[\n{}\n]", rows.join("\n"));
    json!({
        "language": "rust",
        "program": REPRODUCTION.replace("@ADAPTER_DEPLOYMENTS@", &table),
    })
}

fn main() -> io::Result<()> {
    let factories = Factories::new();
    let stdin = io::stdin();
    let mut out = BufWriter::new(io::stdout().lock());
    let mut session: Option<Session> = None;

    for line in stdin.lock().lines() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let request: Value = match serde_json::from_str(&line) {
            Ok(request) => request,
            Err(error) => {
                write_line(
                    &mut out,
                    &json!({"type": "error", "errorText": format!("not JSON: {error}")}),
                )?;
                out.flush()?;
                continue;
            }
        };
        match request.get("op").and_then(Value::as_str) {
            Some("hello") => {
                let names: Vec<&str> = dialects::DIALECTS.iter().map(|d| d.name).collect();
                write_line(
                    &mut out,
                    &json!({
                        "type": "hello",
                        "protocol": 1,
                        "name": NAME,
                        "dialects": names,
                        // The gateway's chunks, as it writes them
                        // (`specs/protocol.md` §5), and its non-streaming chat path (P2.11).
                        "output": "openai-chunks",
                        "nonStreaming": true,
                        "reproduction": reproduction(),
                    }),
                )?;
            }
            Some("begin") => {
                session = Some(Session::begin(&request, &factories)?);
                continue;
            }
            Some("chunk") => {
                let text = request.get("text").and_then(Value::as_str).unwrap_or("");
                if let Some(session) = session.as_mut() {
                    for line in session.chunk(text) {
                        writeln!(out, "{line}")?;
                    }
                }
                write_line(&mut out, &json!({"type": "sync"}))?;
            }
            Some("end") => {
                if let Some(mut session) = session.take() {
                    for line in session.end() {
                        writeln!(out, "{line}")?;
                    }
                }
                write_line(&mut out, &json!({"type": "done"}))?;
            }
            Some("non-streaming") => {
                // After `begin`, instead of `chunk`s and `end` (P2.11): it ends the stream.
                let text = request.get("text").and_then(Value::as_str).unwrap_or("");
                if let Some(mut session) = session.take() {
                    for line in session.non_streaming(text) {
                        writeln!(out, "{line}")?;
                    }
                }
                write_line(&mut out, &json!({"type": "done"}))?;
            }
            Some("bye") => break,
            other => {
                let text = format!("unknown request {other:?}");
                write_line(&mut out, &json!({"type": "error", "errorText": text}))?;
            }
        }
        out.flush()?;
    }
    out.flush()
}

fn write_line(out: &mut impl Write, value: &Value) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;
    use std::process::Stdio;
    use std::{path::PathBuf, process::Command};

    use serde_json::json;

    #[test]
    fn the_hello_carries_a_complete_program() {
        let reproduction = super::reproduction();
        assert_eq!(reproduction["language"], "rust");
        let Some(program) = reproduction["program"].as_str() else {
            panic!("a string program")
        };
        assert_eq!(reproduction.as_object().map(|o| o.len()), Some(2));
        // No placeholder: it reads its input on stdin.
        assert!(!program.contains("{{"));
        assert!(!program.contains("@ADAPTER_"));
        assert!(program.contains(r#"("hermes", "Qwen/Qwen3-8B", None, ("<think>", "</think>")),"#));
        assert!(program.contains(r#"("glm-4.5", "zai-org/GLM-4.5", Some("glm45"), "#));
    }

    /// Runs the program on a tiny stream given on stdin, as a crate of its own built from the
    /// `Cargo.toml` lines its first comment gives, with this crate's lock file and target
    /// directory (so the pinned crates are not built again), offline.
    #[test]
    fn it_runs_on_its_input() {
        let program = super::reproduction()["program"]
            .as_str()
            .map(str::to_owned)
            .unwrap_or_default();
        let input = json!({
            "dialect": "hermes",
            "prefill": "<think>\n",
            "chunks": [
                "a plan</think>Sure.",
                "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            ],
            "tools": [{"name": "get_weather", "description": "Weather.",
                "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}}}],
        });
        let dependencies: Vec<&str> = program
            .lines()
            .skip_while(|line| *line != "// [dependencies]")
            .take_while(|line| *line != "//")
            .map(|line| line.trim_start_matches("// "))
            .collect();
        assert!(dependencies.len() > 1, "the program names its dependencies");
        let manifest = env!("CARGO_MANIFEST_DIR");
        let dir =
            std::env::temp_dir().join(format!("tch-reproduction-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"repro\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n{}\n\n[workspace]\n",
                dependencies.join("\n")
            ),
        )
        .unwrap();
        std::fs::copy(
            PathBuf::from(manifest).join("Cargo.lock"),
            dir.join("Cargo.lock"),
        )
        .unwrap();
        std::fs::write(dir.join("src/main.rs"), &program).unwrap();
        // This test's own target directory and profile: .../TARGET/PROFILE/deps/test-binary.
        let exe = std::env::current_exe().unwrap();
        let profile_dir = exe.parent().and_then(|deps| deps.parent()).unwrap();
        let target = profile_dir.parent().unwrap();
        let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
        cargo
            .args(["run", "--quiet", "--offline", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", target);
        if profile_dir.ends_with("release") {
            cargo.arg("--release");
        }
        let mut child = cargo
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.to_string().as_bytes())
            .unwrap();
        let done = child.wait_with_output().unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let stdout = String::from_utf8_lossy(&done.stdout);
        assert!(
            done.status.success(),
            "{}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert!(stdout.contains("thinking override true"), "{stdout}");
        assert!(stdout.contains(r#"reasoning_text: "a plan""#), "{stdout}");
        assert!(stdout.contains(r#"name: Some("get_weather")"#), "{stdout}");
        assert!(stdout.contains("end of stream"), "{stdout}");
        assert!(
            stdout.contains("tool.parse_complete_with_tools(\"Sure.<tool_call>"),
            "{stdout}"
        );
        assert!(
            stdout.contains(
                "detect_and_parse_reasoning -> Ok(ParserResult { normal_text: \"Sure.<tool_call>"
            ),
            "{stdout}"
        );
    }
}
