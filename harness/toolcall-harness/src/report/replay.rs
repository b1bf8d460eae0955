//! The one type that renders every replay command `tch` prints: for a `tch run` failure, a
//! `tch fuzz` case, a summary line. Each carries its own `--report-dir`, so running it never
//! overwrites the reports of the run that printed it.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::judge::CaseReport;
use crate::split::ChunkSpec;

/// What every replay of one run shares.
#[derive(Debug, Clone, PartialEq)]
pub struct Replay {
    /// `--corpus`, when the cases are not the built-in corpus.
    pub corpus: Option<PathBuf>,
    /// The random cuts' seed (0, the default, is left out).
    pub seed: u64,
    /// The reply timeout in seconds, when not the default 5.
    pub timeout: Option<f64>,
    /// The hello's timeout in seconds, when not the default 30.
    pub start_timeout: Option<f64>,
    /// Where the replay writes its reports.
    pub report_dir: PathBuf,
    /// The candidate's argv.
    pub argv: Vec<String>,
}

impl Replay {
    /// The `tch run` command that replays exactly `case` under `chunks` (all its chunkings
    /// when `None`).
    pub fn command(&self, case: &str, chunks: Option<&ChunkSpec>) -> String {
        self.template()
            .fill(case, chunks.map(ToString::to_string).as_deref())
    }

    /// The form every one of this run's replay commands takes, the case and the chunk vector
    /// left as placeholders.
    pub fn template(&self) -> ReplayTemplate {
        let mut words = vec!["tch".to_owned(), "run".to_owned()];
        if let Some(dir) = &self.corpus {
            words.extend(["--corpus".to_owned(), literal(&dir.display().to_string())]);
        }
        words.extend(["--case".to_owned(), CASE.to_owned()]);
        if self.seed != 0 {
            words.extend(["--seed".to_owned(), self.seed.to_string()]);
        }
        if let Some(timeout) = self.timeout {
            words.extend(["--timeout".to_owned(), timeout.to_string()]);
        }
        if let Some(timeout) = self.start_timeout {
            words.extend(["--start-timeout".to_owned(), timeout.to_string()]);
        }
        // The chunk option, when there is one, joins the word before it.
        let last = words.pop().unwrap_or_default();
        words.push(format!("{last}{CHUNKS}"));
        words.extend([
            "--report-dir".to_owned(),
            literal(&self.report_dir.display().to_string()),
        ]);
        words.push("--".to_owned());
        words.extend(self.argv.iter().map(|w| literal(w)));
        ReplayTemplate {
            command: words.join(" "),
            chunks: format!(" --chunks {CHUNKS}"),
        }
    }

    /// Gives every finding of `reports` the command that replays it, which every report
    /// then prints.
    pub fn set_commands(&self, reports: &mut [CaseReport]) {
        let template = self.template();
        for report in reports {
            for finding in &mut report.findings {
                finding.replay = template.fill(
                    &report.case,
                    finding.replay_chunks().map(ToString::to_string).as_deref(),
                );
            }
        }
    }
}

/// Where a template names the case.
const CASE: &str = "{case}";
/// Where a template names the chunk vector.
const CHUNKS: &str = "{chunks}";

/// `word` quoted for the shell and written into a template: its braces doubled, so that no
/// word of the command reads as a placeholder.
fn literal(word: &str) -> String {
    shell_quote(word).replace('{', "{{").replace('}', "}}")
}

/// The one form of a run's replay commands (`specs/runner.md` R6.5): `report.json` stores it
/// once, and each finding's command is this filled in, not stored again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplayTemplate {
    /// The command, with `{case}` where the case goes and `{chunks}` where the chunk option
    /// goes; a brace of the command itself is written twice (`{{`, `}}`).
    pub command: String,
    /// The chunk option, with `{chunks}` where the chunk vector goes (braces as in
    /// `command`); the command's `{chunks}` is replaced by nothing for a replay that needs no
    /// chunk vector.
    pub chunks: String,
}

impl ReplayTemplate {
    /// The command that replays `case` under `chunks` (`--chunks` syntax; `None` for a whole
    /// stream or a scaling case), each quoted for the shell.
    pub fn fill(&self, case: &str, chunks: Option<&str>) -> String {
        let option = chunks
            .map(|chunks| fill(&self.chunks, &[(CHUNKS, &shell_quote(chunks))]))
            .unwrap_or_default();
        fill(
            &self.command,
            &[(CASE, &shell_quote(case)), (CHUNKS, &option)],
        )
    }
}

/// `template` with each placeholder replaced by its value and each doubled brace made one.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some((placeholder, value)) = values.iter().find(|(p, _)| rest.starts_with(p)) {
            out.push_str(value);
            rest = &rest[placeholder.len()..];
        } else {
            // `{{` or `}}` is one brace; a lone brace (a hand-edited template) stays.
            out.push_str(&rest[..1]);
            let doubled = rest.as_bytes().get(1) == rest.as_bytes().first();
            rest = &rest[if doubled { 2 } else { 1 }..];
        }
    }
    out.push_str(rest);
    out
}

/// `word` as a POSIX shell reads it back: bare when it is plain, else single-quoted.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./,=:@+%×".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replay_command_names_everything_that_shaped_the_run() {
        let replay = Replay {
            corpus: None,
            seed: 7,
            timeout: Some(0.5),
            start_timeout: Some(60.0),
            report_dir: PathBuf::from("reports/x/replay"),
            argv: vec!["python3".into(), "my adapter.py".into()],
        };
        assert_eq!(
            replay.command("hermes/a", Some(&ChunkSpec::Lengths(vec![1, 1, 1, 4]))),
            "tch run --case hermes/a --seed 7 --timeout 0.5 --start-timeout 60 --chunks 1×3,4 \
             --report-dir reports/x/replay -- python3 'my adapter.py'"
        );
        assert_eq!(
            replay.command("hermes/a", None),
            "tch run --case hermes/a --seed 7 --timeout 0.5 --start-timeout 60 \
             --report-dir reports/x/replay -- python3 'my adapter.py'"
        );
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}

#[cfg(test)]
mod template_tests {
    use super::*;

    #[test]
    fn a_template_fills_only_its_own_placeholders() {
        let replay = Replay {
            corpus: Some(PathBuf::from("my {case} corpus")),
            seed: 0,
            timeout: None,
            start_timeout: None,
            report_dir: PathBuf::from("r"),
            argv: vec!["echo".into(), "{chunks}".into()],
        };
        assert_eq!(
            replay.command("x/{case}", Some(&ChunkSpec::Lengths(vec![2, 1]))),
            "tch run --corpus 'my {case} corpus' --case 'x/{case}' --chunks 2,1 --report-dir r \
             -- echo '{chunks}'"
        );
    }
}
