//! Spec cases on disk (`specs/corpus.md`): `corpus/DIALECT/NAME.stream` beside
//! `NAME.events.jsonl`, loaded with errors that name the file and line; and the one
//! [`Selection`] of cases `tch run`, `tch fuzz` and `tch corpus` share.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::Value;
use thiserror::Error;

use crate::definitions::Kind;

use crate::dialect::{Dialect, UnknownDialect};
use crate::event::{Event, ReadError};
use crate::protocol::RequestOptions;

/// The extension of a case's stream file (`NAME.stream`).
pub const STREAM_EXTENSION: &str = "stream";
/// The suffix of a case's expected events file (`NAME.events.jsonl`).
pub const EXPECTED_SUFFIX: &str = ".events.jsonl";

/// The suffix of a case's optional prefill file (`specs/corpus.md`).
pub const PREFILL_SUFFIX: &str = ".prefill";

/// The suffix of a case's optional request file: the request's options (`specs/corpus.md`,
/// `specs/protocol.md` §6).
pub const REQUEST_SUFFIX: &str = ".request.json";

/// What stands between a case's name and a reading's in an alternative's file name:
/// `NAME.alt-READING.events.jsonl` (`specs/corpus.md`, contract and choice).
pub const ALTERNATIVE_INFIX: &str = ".alt-";

/// Which cases a command runs: `--corpus DIR` (default: the corpus built into `tch`),
/// `--dialect`, `--case GLOB` and `--skip GLOB`.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// A corpus folder; `None` for the bundled corpus.
    pub corpus: Option<PathBuf>,
    /// Only cases of these dialects (all when empty).
    pub dialects: Vec<Dialect>,
    /// Only cases whose id matches one of these globs (all when empty).
    pub cases: Vec<String>,
    /// Leave out cases whose id matches one of these globs.
    pub skip: Vec<String>,
}

impl Selection {
    /// Whether `id` is selected by `--case` and `--skip`.
    pub fn selects(&self, id: &str) -> bool {
        (self.cases.is_empty() || self.cases.iter().any(|g| crate::glob::matches(g, id)))
            && !self.skip.iter().any(|g| crate::glob::matches(g, id))
    }

    /// The selected stream cases.
    pub fn stream_cases(&self) -> Result<Vec<Case>, CorpusError> {
        let cases = match &self.corpus {
            Some(dir) => load_dir(dir)?,
            None => bundled_cases()?,
        };
        Ok(cases
            .into_iter()
            .filter(|c| self.dialects.is_empty() || self.dialects.contains(&c.dialect))
            .filter(|c| self.selects(&c.id))
            .collect())
    }

    /// The selected definition cases: none when `--dialect` narrows to stream dialects.
    pub fn definition_cases(&self) -> Result<Vec<DefinitionCase>, CorpusError> {
        if !self.dialects.is_empty() {
            return Ok(Vec::new());
        }
        let cases = match &self.corpus {
            Some(dir) => {
                let folder = dir.join(DEFINITIONS_FOLDER);
                if folder.is_dir() {
                    load_definition_cases(&folder)?
                } else {
                    Vec::new()
                }
            }
            None => bundled_definition_cases()?,
        };
        Ok(cases.into_iter().filter(|c| self.selects(&c.id)).collect())
    }
}

/// One spec case: a stream and the events a conforming parser emits for it.
#[derive(Debug, Clone)]
pub struct Case {
    /// The dialect, from the case's folder.
    pub dialect: Dialect,
    /// `DIALECT/NAME`, as reports and `--case` globs spell it.
    pub id: String,
    /// The stream, as the model wrote it.
    pub stream: String,
    /// The generation prompt the stream continues (`specs/streaming.md` C9): its `.prefill`
    /// file (empty: none), else the dialect's default (`Dialect::default_prefill`).
    pub prefill: String,
    /// The options of the request the stream answers (`NAME.request.json`; none by default):
    /// the case is sent only to a candidate that declares them (`specs/protocol.md` §6).
    pub request: RequestOptions,
    /// The events a conforming parser emits for it, reasoned by hand.
    pub expected: Vec<Event>,
    /// The events under each documented alternative reading of a choice rule the case rests
    /// on, in file-name order.
    pub alternatives: Vec<Alternative>,
    /// The comments of its expected events (`#` lines, without the `#`): what it pins and why,
    /// and its sources.
    pub comments: Vec<String>,
}

impl Case {
    /// Every event a reading of the case expects: its expected events, then each documented
    /// alternative reading's.
    pub fn all_expected(&self) -> impl Iterator<Item = &Event> {
        self.expected
            .iter()
            .chain(self.alternatives.iter().flat_map(|a| &a.expected))
    }

    /// The spec rules its comments cite, each with the spec that defines it (`H6.1`,
    /// `specs/dialects/hermes.md`), in order of first citation.
    pub fn cited_rules(&self) -> Vec<(String, &'static str)> {
        let mut rules: Vec<(String, &'static str)> = Vec::new();
        for comment in &self.comments {
            for id in rule_ids(comment) {
                let prefix = &id[..id.find(|c: char| c.is_ascii_digit()).unwrap_or(id.len())];
                if let Some((_, spec)) = crate::bundled::RULE_PREFIXES
                    .iter()
                    .find(|(p, _)| *p == prefix)
                    && !rules.iter().any(|(r, _)| *r == id)
                {
                    rules.push((id.to_owned(), spec));
                }
            }
        }
        rules
    }
}

/// Tokens of `text` shaped like rule ids: capital letters, then one- or two-digit numbers
/// joined by dots (`C9.4`, `GLS2.3`), not glued to a word before or after.
fn rule_ids(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut ids = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let glued = at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
        let letters = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_uppercase())
            .count();
        if letters == 0 || glued {
            at += 1;
            continue;
        }
        let mut end = at + letters;
        let mut numbers = 0;
        loop {
            let digits = bytes[end..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if !(1..=2).contains(&digits) {
                break;
            }
            numbers += 1;
            end += digits;
            if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
                end += 1;
            } else {
                break;
            }
        }
        let free = bytes.get(end).is_none_or(|b| !b.is_ascii_alphanumeric());
        if numbers > 0 && free {
            ids.push(&text[at..end]);
        }
        at = end.max(at + 1);
    }
    ids
}

/// The events of a case under a documented alternative reading (`specs/corpus.md`): an
/// engine that follows it diverges from `tch`'s reading, which is no bug.
#[derive(Debug, Clone, PartialEq)]
pub struct Alternative {
    /// The reading's name, as the dialect spec's choice rule gives it (`drops-section-text`;
    /// `a+b` for two at once).
    pub reading: String,
    /// The events under that reading, reasoned by hand.
    pub expected: Vec<Event>,
}

/// A definition case (`specs/definitions.md` §12), as the protocol replays it.
#[derive(Debug, Clone)]
pub struct DefinitionCase {
    /// `definitions/NAME.tool.md`.
    pub id: String,
    /// A tool or a skill.
    pub kind: Kind,
    /// The definition file's text.
    pub text: String,
    /// The expected contract; `None` when the definition must be refused.
    pub expected: Option<Value>,
}

/// The folder of definition cases, beside the dialect folders.
pub const DEFINITIONS_FOLDER: &str = "definitions";

/// A case that cannot be loaded.
#[derive(Debug, Error)]
pub enum CorpusError {
    /// A file could not be read.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// A file is not UTF-8.
    #[error("{path}: not valid UTF-8")]
    NotUtf8 {
        /// The file.
        path: PathBuf,
    },
    /// A case's folder is not a dialect's name.
    #[error("{path}: the folder must be a dialect name: {error}")]
    Dialect {
        /// The file.
        path: PathBuf,
        /// The unknown name.
        error: UnknownDialect,
    },
    /// A definition case has neither or both expectation files.
    #[error("{path}: needs exactly one of NAME.json (a contract) and NAME.error")]
    NoExpectation {
        /// The definition file.
        path: PathBuf,
    },
    /// A definition case's `.json` is not JSON.
    #[error("{path}: not a JSON contract: {error}")]
    BadContract {
        /// The file.
        path: PathBuf,
        /// Why.
        error: String,
    },
    /// A case's request file is not a request's options (`specs/protocol.md` §6).
    #[error("{path}: not a request's options: {error}")]
    BadRequest {
        /// The file.
        path: PathBuf,
        /// Why.
        error: String,
    },
    /// A line of an expected events file is not an event.
    #[error("{path}:{line}: {error}")]
    Expected {
        /// The file.
        path: PathBuf,
        /// The line (from 1).
        line: usize,
        /// Why.
        error: ReadError,
    },
}

impl Case {
    /// Loads the case whose stream file is `stream_path` (`.../DIALECT/NAME.stream`).
    pub fn load(stream_path: &Path) -> Result<Case, CorpusError> {
        let name = stream_path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let folder = stream_path
            .parent()
            .and_then(Path::file_name)
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let expected_path = stream_path.with_file_name(format!("{name}{EXPECTED_SUFFIX}"));
        let prefill_path = stream_path.with_file_name(format!("{name}{PREFILL_SUFFIX}"));
        let prefill = if prefill_path.exists() {
            Some(read_text(&prefill_path)?)
        } else {
            None
        };
        let mut case = Case::parse(
            folder,
            name,
            read_text(stream_path)?,
            &read_text(&expected_path)?,
            &expected_path,
        )?;
        case.prefill = prefill.unwrap_or_else(|| case.dialect.default_prefill().to_owned());
        let request_path = stream_path.with_file_name(format!("{name}{REQUEST_SUFFIX}"));
        if request_path.exists() {
            case.request = read_request(&read_text(&request_path)?, &request_path)?;
        }
        let prefix = format!("{name}{ALTERNATIVE_INFIX}");
        let folder_path = stream_path.parent().unwrap_or(Path::new("."));
        let mut files: Vec<PathBuf> = fs::read_dir(folder_path)
            .map_err(|error| CorpusError::Io {
                path: folder_path.to_owned(),
                error,
            })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| reading_of(n, &prefix).is_some())
            })
            .collect();
        files.sort();
        for path in files {
            let file = path
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            let reading = reading_of(file, &prefix).unwrap_or_default().to_owned();
            let expected = alternative_events(&read_text(&path)?, &path)?;
            case.alternatives.push(Alternative { reading, expected });
        }
        Ok(case)
    }

    /// A case from its parts; `expected_path` names the expected file in errors.
    fn parse(
        folder: &str,
        name: &str,
        stream: String,
        expected: &str,
        expected_path: &Path,
    ) -> Result<Case, CorpusError> {
        let dialect = folder.parse().map_err(|error| CorpusError::Dialect {
            path: expected_path.to_owned(),
            error,
        })?;
        let expected_text = expected;
        let expected = parse_expected(expected).map_err(|(line, error)| CorpusError::Expected {
            path: expected_path.to_owned(),
            line,
            error,
        })?;
        Ok(Case {
            dialect,
            id: format!("{folder}/{name}"),
            stream,
            prefill: String::new(),
            request: RequestOptions::default(),
            expected,
            alternatives: Vec::new(),
            comments: expected_text
                .lines()
                .filter_map(|l| l.trim_start().strip_prefix('#'))
                .map(|l| l.trim().to_owned())
                .collect(),
        })
    }
}

impl Case {
    /// Writes the case as `ROOT/DIALECT/NAME.stream` and `NAME.events.jsonl` (and
    /// `NAME.prefill` when it is not the dialect's default; its id must be `DIALECT/NAME`), the expected file
    /// starting with `comments` as `#` lines. Returns the stream file's path.
    pub fn write(&self, root: &Path, comments: &[String]) -> std::io::Result<PathBuf> {
        let stream_path = root.join(format!("{}.{STREAM_EXTENSION}", self.id));
        if let Some(folder) = stream_path.parent() {
            fs::create_dir_all(folder)?;
        }
        let mut expected: String = comments
            .iter()
            .flat_map(|comment| comment.lines())
            .map(|line| format!("# {line}\n"))
            .collect();
        for event in &self.expected {
            expected.push_str(&event.to_json_line());
            expected.push('\n');
        }
        let name = format!("{}{EXPECTED_SUFFIX}", self.id);
        fs::write(&stream_path, &self.stream)?;
        fs::write(root.join(name), expected)?;
        for alternative in &self.alternatives {
            let events: String = alternative
                .expected
                .iter()
                .map(|e| e.to_json_line() + "\n")
                .collect();
            let name = format!(
                "{}{ALTERNATIVE_INFIX}{}{EXPECTED_SUFFIX}",
                self.id, alternative.reading
            );
            fs::write(root.join(name), events)?;
        }
        if self.request != RequestOptions::default() {
            let request = serde_json::to_string(&self.request).unwrap_or_default();
            fs::write(
                root.join(format!("{}{REQUEST_SUFFIX}", self.id)),
                request + "\n",
            )?;
        }
        // Without a `.prefill` the case reads with the dialect's default; an empty file says
        // "none".
        if self.prefill != self.dialect.default_prefill() {
            fs::write(
                root.join(format!("{}{PREFILL_SUFFIX}", self.id)),
                &self.prefill,
            )?;
        }
        Ok(stream_path)
    }
}

/// A case's request file, read.
fn read_request(text: &str, path: &Path) -> Result<RequestOptions, CorpusError> {
    serde_json::from_str(text).map_err(|error| CorpusError::BadRequest {
        path: path.to_owned(),
        error: error.to_string(),
    })
}

/// The tools `dialect`'s bundled cases call (the tool names of their expected events and
/// alternative readings), sorted and each once: the tools a client of that dialect's models
/// declares (`crate::protocol::ToolInfo::for_stream`).
pub fn called_tools(dialect: Dialect) -> &'static [String] {
    static CALLED: OnceLock<Vec<(Dialect, Vec<String>)>> = OnceLock::new();
    let called = CALLED.get_or_init(|| {
        let cases = bundled_cases().unwrap_or_default();
        Dialect::ALL
            .iter()
            .map(|&d| {
                let mut names: Vec<String> = cases
                    .iter()
                    .filter(|c| c.dialect == d)
                    .flat_map(Case::all_expected)
                    .filter_map(Event::tool_name)
                    .map(str::to_owned)
                    .collect();
                names.sort_unstable();
                names.dedup();
                (d, names)
            })
            .collect()
    });
    called
        .iter()
        .find(|(d, _)| *d == dialect)
        .map_or(&[], |(_, names)| names)
}

/// Every case of the corpus embedded in the binary, in path order.
pub fn bundled_cases() -> Result<Vec<Case>, CorpusError> {
    let mut cases = Vec::new();
    for &(path, stream) in crate::bundled::BUNDLED_CORPUS {
        let Some((folder, name)) = path.strip_suffix(".stream").and_then(|p| p.split_once('/'))
        else {
            continue;
        };
        let expected_path = format!("{folder}/{name}{EXPECTED_SUFFIX}");
        let expected = crate::bundled::BUNDLED_CORPUS
            .iter()
            .find(|(p, _)| *p == expected_path)
            .map(|(_, text)| *text)
            .ok_or_else(|| CorpusError::Io {
                path: PathBuf::from("corpus").join(&expected_path),
                error: std::io::ErrorKind::NotFound.into(),
            })?;
        let prefill_path = format!("{folder}/{name}{PREFILL_SUFFIX}");
        let prefill = crate::bundled::BUNDLED_CORPUS
            .iter()
            .find(|(p, _)| *p == prefill_path)
            .map(|(_, text)| *text);
        let expected_path = PathBuf::from("corpus").join(expected_path);
        let mut case = Case::parse(folder, name, stream.to_owned(), expected, &expected_path)?;
        case.prefill = prefill
            .unwrap_or_else(|| case.dialect.default_prefill())
            .to_owned();
        let request_path = format!("{folder}/{name}{REQUEST_SUFFIX}");
        if let Some((path, text)) = crate::bundled::BUNDLED_CORPUS
            .iter()
            .find(|(p, _)| *p == request_path)
        {
            case.request = read_request(text, &PathBuf::from("corpus").join(path))?;
        }
        let prefix = format!("{folder}/{name}{ALTERNATIVE_INFIX}");
        for &(path, text) in crate::bundled::BUNDLED_CORPUS {
            if let Some(reading) = reading_of(path, &prefix) {
                let expected = alternative_events(text, &PathBuf::from("corpus").join(path))?;
                case.alternatives.push(Alternative {
                    reading: reading.to_owned(),
                    expected,
                });
            }
        }
        cases.push(case);
    }
    Ok(cases)
}

/// Every UTF-8 definition case embedded in the binary, in path order.
pub fn bundled_definition_cases() -> Result<Vec<DefinitionCase>, CorpusError> {
    let sibling = |path: &str| {
        crate::bundled::BUNDLED_CORPUS
            .iter()
            .find(|(p, _)| *p == path)
            .map(|(_, text)| *text)
    };
    let mut cases = Vec::new();
    for &(path, text) in crate::bundled::BUNDLED_CORPUS {
        let Some(name) = path.strip_prefix("definitions/") else {
            continue;
        };
        if let Some(kind) = Kind::from_file_name(name) {
            let json = sibling(&format!("{path}.json"));
            let error = sibling(&format!("{path}.error"));
            cases.push(definition_case(path, kind, text, json, error.is_some())?);
        }
    }
    Ok(cases)
}

/// Every UTF-8 definition case in `dir` (`NAME.tool.md` beside `.json` or `.error`).
pub fn load_definition_cases(dir: &Path) -> Result<Vec<DefinitionCase>, CorpusError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |error| CorpusError::Io { path, error }
    };
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(io(dir))?
        .flatten()
        .map(|e| e.path())
        .collect();
    paths.sort();
    let mut cases = Vec::new();
    for path in paths {
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let Some(kind) = Kind::from_file_name(name) else {
            continue;
        };
        // Not UTF-8: the protocol cannot carry it (the definitions test still runs it).
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let json_path = PathBuf::from(format!("{}.json", path.display()));
        let json = fs::read_to_string(&json_path).ok();
        let error = PathBuf::from(format!("{}.error", path.display())).is_file();
        let id = format!("{DEFINITIONS_FOLDER}/{name}");
        cases.push(definition_case(&id, kind, &text, json.as_deref(), error)?);
    }
    Ok(cases)
}

fn definition_case(
    id: &str,
    kind: Kind,
    text: &str,
    json: Option<&str>,
    error: bool,
) -> Result<DefinitionCase, CorpusError> {
    let path = PathBuf::from("corpus").join(id);
    let expected = match (json, error) {
        (Some(json), false) => {
            Some(
                serde_json::from_str(json).map_err(|e| CorpusError::BadContract {
                    path: path.clone(),
                    error: e.to_string(),
                })?,
            )
        }
        (None, true) => None,
        _ => return Err(CorpusError::NoExpectation { path }),
    };
    Ok(DefinitionCase {
        id: id.to_owned(),
        kind,
        text: text.to_owned(),
        expected,
    })
}

/// Every case under `root` (`root/DIALECT/NAME.stream`), in path order.
pub fn load_dir(root: &Path) -> Result<Vec<Case>, CorpusError> {
    let read_dir = |dir: &Path| {
        fs::read_dir(dir).map_err(|error| CorpusError::Io {
            path: dir.to_owned(),
            error,
        })
    };
    let mut paths = Vec::new();
    for folder in read_dir(root)?.flatten() {
        let folder = folder.path();
        if folder.is_dir() {
            paths.extend(
                read_dir(&folder)?
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == STREAM_EXTENSION)),
            );
        }
    }
    paths.sort();
    paths.iter().map(|p| Case::load(p)).collect()
}

/// The reading an alternative's file `PREFIX READING .events.jsonl` names, where `prefix` is
/// `NAME.alt-` (or `FOLDER/NAME.alt-`).
fn reading_of<'p>(file: &'p str, prefix: &str) -> Option<&'p str> {
    file.strip_prefix(prefix)?
        .strip_suffix(EXPECTED_SUFFIX)
        .filter(|reading| !reading.is_empty() && !reading.contains('/'))
}

/// The events of an alternative's file at `path`.
fn alternative_events(text: &str, path: &Path) -> Result<Vec<Event>, CorpusError> {
    parse_expected(text).map_err(|(line, error)| CorpusError::Expected {
        path: path.to_owned(),
        line,
        error,
    })
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
    let bytes = fs::read(path).map_err(|error| CorpusError::Io {
        path: path.to_owned(),
        error,
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
