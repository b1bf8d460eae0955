//! Embeds the bundled tool definitions (`specs/tools/*.tool.md`) in the library, so `tch` works
//! from any directory.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

fn main() {
    let tools_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../specs/tools");
    println!("cargo::rerun-if-changed={}", tools_dir.display());
    let mut files: Vec<_> = fs::read_dir(&tools_dir)
        .map(|dir| dir.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.ends_with(".tool.md"))
    });
    files.sort();
    let mut code = String::from(
        "/// `(file name, contents)` of every `specs/tools/*.tool.md`.\npub static BUNDLED_TOOLS: &[(&str, &str)] = &[\n",
    );
    for path in &files {
        println!("cargo::rerun-if-changed={}", path.display());
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let absolute = path.canonicalize().unwrap_or_else(|_| path.clone());
        let _ = writeln!(
            code,
            "    ({name:?}, include_str!({:?})),",
            absolute.display().to_string()
        );
    }
    code.push_str("];\n");
    let out = Path::new(&env::var("OUT_DIR").unwrap_or_default()).join("bundled.rs");
    if let Err(error) = fs::write(&out, code) {
        panic!("cannot write {}: {error}", out.display());
    }
}
