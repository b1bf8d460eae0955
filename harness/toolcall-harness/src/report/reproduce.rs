//! A bug folder's standalone reproduction (`specs/runner.md` R9.6, `specs/protocol.md` P2.8):
//! the candidate's program written once as `bugs/reproduce.EXT`, each distinct list of
//! declared tools once as `bugs/tools-N.json`, and on each page one shell command that runs
//! the program on that root cause's dialect, prefill, chunks and tools file.
//!
//! The command is a quoted heredoc: the shell hands its line over byte for byte (no `$`,
//! backtick or backslash is read), and that line is JSON on one line that ends in
//! `"tools":`, so it can never be the `EOF` that ends it.

use std::fmt::Write as _;

use super::bugs::json_text;
use crate::protocol::{Reproduction, ToolInfo};

/// The program's file in the folder and how a page's command runs it, from its language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    /// `reproduce.py`.
    pub file: String,
    /// The command that runs it from the folder, reading stdin: `python3 reproduce.py`.
    pub run: String,
}

impl Program {
    /// The file and command of a program in `language` (a Markdown fence language): Python,
    /// JavaScript (an ES module: `.mjs`) and Rust (the `src/main.rs` of a crate `repro/`
    /// beside it, as its first lines say) by their interpreters; any other language as an
    /// executable file (`./reproduce.EXT`, its first line a `#!`), named by the language
    /// when that is a short word, else `.txt`.
    pub fn of(language: &str) -> Program {
        let (extension, run) = match language.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" => ("py", "python3 reproduce.py".to_owned()),
            "js" | "javascript" | "mjs" => ("mjs", "node reproduce.mjs".to_owned()),
            "rust" | "rs" => (
                "rs",
                "cargo run --quiet --manifest-path repro/Cargo.toml".to_owned(),
            ),
            _ => {
                let word = !language.is_empty()
                    && language.len() <= 10
                    && language.chars().all(|c| c.is_ascii_alphanumeric());
                let extension = if word { language } else { "txt" };
                let file = format!("reproduce.{extension}");
                return Program {
                    run: format!("./{file}"),
                    file,
                };
            }
        };
        Program {
            file: format!("reproduce.{extension}"),
            run,
        }
    }
}

/// What one bug folder's reproduction writes: the program once, each distinct tool list
/// once (numbered in order of first use, so that the same run writes the same names).
#[derive(Debug, Clone)]
pub struct Folder<'a> {
    reproduction: &'a Reproduction,
    program: Program,
    tool_lists: Vec<Vec<ToolInfo>>,
}

impl<'a> Folder<'a> {
    /// A folder for the candidate's program.
    pub fn new(reproduction: &'a Reproduction) -> Folder<'a> {
        Folder {
            program: Program::of(&reproduction.language),
            reproduction,
            tool_lists: Vec::new(),
        }
    }

    /// The program's file and command.
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// The command that runs the program, from the folder, on one stream: the JSON object
    /// of P2.8 on stdin, its `tools` read from the folder's file for `tools` (registered
    /// here when no earlier stream declared the same list).
    pub fn command(
        &mut self,
        dialect: &str,
        prefill: &str,
        chunks: &[&str],
        tools: Vec<ToolInfo>,
    ) -> String {
        let number = match self.tool_lists.iter().position(|list| *list == tools) {
            Some(at) => at + 1,
            None => {
                self.tool_lists.push(tools);
                self.tool_lists.len()
            }
        };
        let mut command = format!(
            "{{ cat; cat {}; echo '}}'; }} <<'EOF' | {}\n",
            tools_file(number),
            self.program.run
        );
        let _ = writeln!(
            command,
            "{{\"dialect\":{},\"prefill\":{},\"chunks\":{},\"tools\":",
            json_text(dialect),
            json_text(prefill),
            json_text(chunks)
        );
        command.push_str("EOF\n");
        command
    }

    /// The files to write into the folder, `(name, contents)`: the program, then each tool
    /// list as a JSON array, a tool per line (compact, and a changed tool is a changed line).
    pub fn files(&self) -> Vec<(String, String)> {
        let mut files = vec![(self.program.file.clone(), self.reproduction.program.clone())];
        for (n, tools) in self.tool_lists.iter().enumerate() {
            let lines: Vec<String> = tools.iter().map(json_text).collect();
            let text = if lines.is_empty() {
                "[]\n".to_owned()
            } else {
                format!("[\n{}\n]\n", lines.join(",\n"))
            };
            files.push((tools_file(n + 1), text));
        }
        files
    }
}

/// The name of the folder's `number`th tool list (from 1).
fn tools_file(number: usize) -> String {
    format!("tools-{number}.json")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_program_is_named_and_run_by_its_language() {
        let cargo = "cargo run --quiet --manifest-path repro/Cargo.toml";
        for (language, file, run) in [
            ("python", "reproduce.py", "python3 reproduce.py"),
            ("js", "reproduce.mjs", "node reproduce.mjs"),
            ("rust", "reproduce.rs", cargo),
            ("ruby", "reproduce.ruby", "./reproduce.ruby"),
            // Nothing that is not a short word reaches the file name or the shell.
            ("c++; rm -rf /", "reproduce.txt", "./reproduce.txt"),
            ("", "reproduce.txt", "./reproduce.txt"),
        ] {
            let program = Program::of(language);
            assert_eq!((program.file.as_str(), program.run.as_str()), (file, run));
        }
    }

    #[test]
    fn equal_tool_lists_share_one_file() {
        let reproduction = Reproduction {
            language: "python".into(),
            program: "print(1)\n".into(),
        };
        let tool = |name: &str| ToolInfo {
            name: name.into(),
            description: String::new(),
            input_schema: json!({}),
        };
        let mut folder = Folder::new(&reproduction);
        let first = folder.command("hermes", "", &["a"], vec![tool("a")]);
        let second = folder.command("hermes", "", &["b"], vec![tool("b")]);
        let third = folder.command("kimi-k2", "", &["c"], vec![tool("a")]);
        assert!(first.starts_with("{ cat; cat tools-1.json; echo '}'; } <<'EOF' | python3"));
        assert!(second.contains("cat tools-2.json;"));
        assert!(third.contains("cat tools-1.json;"));
        let files = folder.files();
        let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["reproduce.py", "tools-1.json", "tools-2.json"]);
        assert_eq!(files[0].1, "print(1)\n");
        assert_eq!(
            files[2].1,
            "[\n{\"name\":\"b\",\"description\":\"\",\"inputSchema\":{}}\n]\n"
        );
        let mut empty = Folder::new(&reproduction);
        empty.command("hermes", "", &[], vec![tool("a"), tool("b")]);
        empty.command("hermes", "", &[], Vec::new());
        let files = empty.files();
        let two: serde_json::Value = serde_json::from_str(&files[1].1).expect("JSON");
        assert_eq!(
            two,
            json!([{"name": "a", "description": "", "inputSchema": {}},
                   {"name": "b", "description": "", "inputSchema": {}}])
        );
        assert_eq!(files[2].1, "[]\n");
    }
}
