//! Spec cases on disk (`specs/corpus.md`): `corpus/DIALECT/NAME.stream` beside
//! `NAME.events.jsonl`, loaded with errors that name the file and line.

use std::fs;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::dialect::{Dialect, UnknownDialect};
use crate::event::{Event, ReadError};

pub const STREAM_EXTENSION: &str = "stream";
pub const EXPECTED_SUFFIX: &str = ".events.jsonl";

/// One spec case: a stream and the events a conforming parser emits for it.
#[derive(Debug, Clone)]
pub struct Case {
    pub dialect: Dialect,
    /// `DIALECT/NAME`, as reports and `--case` globs spell it.
    pub id: String,
    pub stream: String,
    pub expected: Vec<Event>,
}

/// A case that cannot be loaded.
#[derive(Debug, Error)]
pub enum CorpusError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not valid UTF-8")]
    NotUtf8 { path: PathBuf },
    #[error("{path}: the folder must be a dialect name: {source}")]
    Dialect {
        path: PathBuf,
        source: UnknownDialect,
    },
    #[error("{path}:{line}: {source}")]
    Expected {
        path: PathBuf,
        line: usize,
        source: ReadError,
    },
}

impl Case {
    /// Loads the case whose stream file is `stream_path` (`.../DIALECT/NAME.stream`).
    pub fn load(stream_path: &Path) -> Result<Case, CorpusError> {
        let stream = read_text(stream_path)?;
        let name = stream_path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let folder = stream_path
            .parent()
            .and_then(Path::file_name)
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let dialect = folder.parse().map_err(|source| CorpusError::Dialect {
            path: stream_path.to_owned(),
            source,
        })?;
        let expected_path = stream_path.with_file_name(format!("{name}{EXPECTED_SUFFIX}"));
        let expected = parse_expected(&read_text(&expected_path)?).map_err(|(line, source)| {
            CorpusError::Expected {
                path: expected_path,
                line,
                source,
            }
        })?;
        Ok(Case {
            dialect,
            id: format!("{folder}/{name}"),
            stream,
            expected,
        })
    }
}

/// Events of an expected-events file: one per line; blank lines and `#` comments skipped.
/// An error carries its 1-based line number.
pub fn parse_expected(text: &str) -> Result<Vec<Event>, (usize, ReadError)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .map(|(i, line)| Event::from_json_line(line).map_err(|e| (i + 1, e)))
        .collect()
}

fn read_text(path: &Path) -> Result<String, CorpusError> {
    let bytes = fs::read(path).map_err(|source| CorpusError::Io {
        path: path.to_owned(),
        source,
    })?;
    String::from_utf8(bytes).map_err(|_| CorpusError::NotUtf8 {
        path: path.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_files_skip_comments_and_blanks() {
        let text = "# pins F1\n\n{\"type\":\"text-delta\",\"delta\":\"a\"}\n  # more\n";
        assert_eq!(parse_expected(text), Ok(vec![Event::text("a")]));
    }

    #[test]
    fn expected_file_errors_carry_the_line() {
        let text = "# c\n{\"type\":\"text-delta\"}\n";
        assert!(matches!(
            parse_expected(text),
            Err((2, ReadError::MissingField { .. }))
        ));
    }
}
