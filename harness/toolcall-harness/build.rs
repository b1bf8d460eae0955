//! Embeds the bundled tool definitions (`specs/tools/*.tool.md`) and the corpus (streams with
//! their expected events, and the definition cases) in the library, so `tch` works from
//! any directory.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut code = String::new();
    let tools = files_under(&root.join("specs/tools"), |name| name.ends_with(".tool.md"));
    embed(
        &mut code,
        "BUNDLED_TOOLS",
        "every `specs/tools/*.tool.md`",
        &root.join("specs/tools"),
        &tools,
    );
    let mut corpus = files_under(&root.join("corpus"), |name| {
        [
            ".stream",
            ".prefill",
            ".request.json",
            ".events.jsonl",
            ".tool.md",
            ".skill.md",
            ".md.json",
            ".md.error",
        ]
        .iter()
        .any(|suffix| name.ends_with(suffix))
    });
    // The protocol carries text: a definition case that is not UTF-8 cannot be sent.
    corpus.retain(|path| fs::read(path).is_ok_and(|bytes| std::str::from_utf8(&bytes).is_ok()));
    embed(
        &mut code,
        "BUNDLED_CORPUS",
        "every UTF-8 corpus file (streams, prefills, request options, expected events, definition cases), as `FOLDER/FILE`",
        &root.join("corpus"),
        &corpus,
    );
    rule_prefixes(&mut code, &root.join("specs"));
    let out = Path::new(&env::var("OUT_DIR").unwrap_or_default()).join("bundled.rs");
    if let Err(error) = fs::write(&out, code) {
        panic!("cannot write {}: {error}", out.display());
    }
}

/// Files below `dir` (one level of folders deep at most) whose names pass `keep`, sorted.
fn files_under(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    println!("cargo::rerun-if-changed={}", dir.display());
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(
                fs::read_dir(&path)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        } else {
            files.push(path);
        }
    }
    files.retain(|p| p.is_file() && p.file_name().and_then(|n| n.to_str()).is_some_and(&keep));
    files.sort();
    files
}

/// `pub(crate) static NAME: &[(&str, &str)]` of `(path relative to base, contents)`.
fn embed(code: &mut String, name: &str, doc: &str, base: &Path, files: &[PathBuf]) {
    let _ = writeln!(
        code,
        "/// `(path, contents)` of {doc}.\npub(crate) static {name}: &[(&str, &str)] = &["
    );
    for path in files {
        println!("cargo::rerun-if-changed={}", path.display());
        let relative = path
            .strip_prefix(base)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        let absolute = path.canonicalize().unwrap_or_else(|_| path.clone());
        let _ = writeln!(
            code,
            "    ({relative:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    code.push_str("];\n");
}

/// `pub(crate) static RULE_PREFIXES: &[(&str, &str)]`: each rule id prefix (`H`, `C`, `GLS`)
/// and the spec that defines rules with it (`specs/dialects/hermes.md`), read from the rule
/// definitions of `specs/` (a line or list item starting with bold text that starts with an
/// id, as `tests/tidy.rs` reads them), so a bug page can name the spec of each rule its cases
/// pin.
fn rule_prefixes(code: &mut String, specs: &Path) {
    let files = files_under(specs, |name| name.ends_with(".md"));
    let mut prefixes: Vec<(String, String)> = Vec::new();
    for path in files {
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let relative = path
            .strip_prefix(specs.parent().unwrap_or(specs))
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        for line in text.lines() {
            let item = line.trim_start();
            let item = item.strip_prefix("- ").unwrap_or(item);
            let Some(bold) = item.strip_prefix("**") else {
                continue;
            };
            let prefix: String = bold
                .chars()
                .take_while(|c| c.is_ascii_uppercase())
                .collect();
            let digit = bold[prefix.len()..].chars().next();
            if !prefix.is_empty()
                && digit.is_some_and(|c| c.is_ascii_digit())
                && !prefixes.iter().any(|(p, _)| *p == prefix)
            {
                prefixes.push((prefix, relative.clone()));
            }
        }
    }
    prefixes.sort();
    code.push_str("/// Each rule id prefix and the spec that defines it.\npub(crate) static RULE_PREFIXES: &[(&str, &str)] = &[\n");
    for (prefix, spec) in prefixes {
        let _ = writeln!(code, "    ({prefix:?}, {spec:?}),");
    }
    code.push_str("];\n");
}
