//! Every case of `corpus/definitions/` (`specs/definitions.md` §12): a valid definition gives
//! exactly its hand-written `.json` contract; an invalid one gives the error of its `.error`
//! file (line, section and message prefix), as one line.

use std::fmt;
use std::path::Path;

use toolcall_harness::definitions::read_definition;

fn definition_case(path: &Path) -> datatest_stable::Result<()> {
    let expected_json = sibling(path, "json");
    let expected_error = sibling(path, "error");
    let outcome = read_definition(path);
    match (expected_json.exists(), expected_error.exists()) {
        (true, false) => {
            let expected: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&expected_json)?)?;
            let contract = outcome.map_err(|e| format!("expected a contract, got: {e}"))?;
            let actual = serde_json::to_value(&contract)?;
            if actual != expected {
                return Err(Failure(format!(
                    "contract differs\nexpected: {expected:#}\nactual:   {actual:#}"
                ))
                .into());
            }
        }
        (false, true) => {
            let expected = std::fs::read_to_string(&expected_error)?;
            let expected = expected
                .lines()
                .find(|line| !line.starts_with('#') && !line.trim().is_empty())
                .ok_or("the .error file holds no expectation")?;
            let message = match outcome {
                Ok(contract) => return Err(format!("expected an error, got {contract:?}").into()),
                Err(error) => error.to_string(),
            };
            let prefix = format!("{}:", path.display());
            let located = message
                .strip_prefix(&prefix)
                .ok_or_else(|| format!("the error does not start with the file: {message}"))?;
            if !located.starts_with(expected) || message.lines().count() != 1 {
                return Err(Failure(format!(
                    "error differs\nexpected: {prefix}{expected}…\nactual:   {message}"
                ))
                .into());
            }
        }
        _ => return Err("a case needs exactly one of NAME.json and NAME.error".into()),
    }
    Ok(())
}

/// A failed case. datatest-stable prints errors with `Debug`; this one prints its text as is,
/// so the expected and actual contracts read as indented JSON rather than one escaped string.
struct Failure(String);

impl fmt::Debug for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// `NAME.tool.md` → `NAME.tool.md.EXTENSION`.
fn sibling(path: &Path, extension: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    name.into()
}

datatest_stable::harness! {
    { test = definition_case, root = "../../corpus/definitions", pattern = r"\.(tool|skill)\.md$" },
}
