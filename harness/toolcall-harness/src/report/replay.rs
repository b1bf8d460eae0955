//! The one type that renders every replay command `tch` prints: for a `tch run` failure, a
//! `tch fuzz` case, a summary line. Each carries its own `--report-dir`, so running it never
//! overwrites the reports of the run that printed it.

use std::path::PathBuf;

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
        let mut words = vec!["tch".to_owned(), "run".to_owned()];
        if let Some(dir) = &self.corpus {
            words.extend(["--corpus".to_owned(), dir.display().to_string()]);
        }
        words.extend(["--case".to_owned(), case.to_owned()]);
        if self.seed != 0 {
            words.extend(["--seed".to_owned(), self.seed.to_string()]);
        }
        if let Some(timeout) = self.timeout {
            words.extend(["--timeout".to_owned(), timeout.to_string()]);
        }
        if let Some(timeout) = self.start_timeout {
            words.extend(["--start-timeout".to_owned(), timeout.to_string()]);
        }
        if let Some(chunks) = chunks {
            words.extend(["--chunks".to_owned(), chunks.to_string()]);
        }
        words.extend([
            "--report-dir".to_owned(),
            self.report_dir.display().to_string(),
        ]);
        words.push("--".to_owned());
        words.extend(self.argv.iter().cloned());
        words
            .iter()
            .map(|w| shell_quote(w))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Gives every finding of `reports` the command that replays it, which every report
    /// then prints.
    pub fn set_commands(&self, reports: &mut [CaseReport]) {
        for report in reports {
            for finding in &mut report.findings {
                finding.replay = self.command(&report.case, finding.replay_chunks());
            }
        }
    }
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
        assert_eq!(shell_quote("it's"), r"'it'\''s'");
    }
}
