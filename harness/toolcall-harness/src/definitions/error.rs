//! What can go wrong reading definitions (`specs/definitions.md` §9): [`DefinitionError`], the
//! one-line error the library returns, and [`Problem`], the fixed-prefix messages about a
//! file's content.

use thiserror::Error;

use super::contract::JsonType;
use super::outline::MAX_NESTING;
use crate::tools::RegistryError;

/// Why definitions cannot be read. Each displays as one line naming the file and, for content
/// problems, the line and section.
#[derive(Debug, Error)]
pub enum DefinitionError {
    #[error("cannot read {path}: {reason}")]
    Read { path: String, reason: String },
    #[error("{file}: not a definition file (names end in .tool.md or .skill.md)")]
    NotADefinition { file: String },
    #[error("{file}: not a tool definition (a registry is built from .tool.md files)")]
    NotATool { file: String },
    #[error("no tool definitions in {folder} (a registry folder holds .tool.md files)")]
    NoTools { folder: String },
    #[error("{file}:{line}: in {section}: {problem}")]
    Invalid {
        file: String,
        line: usize,
        section: String,
        problem: Problem,
    },
    // `reason` rather than `source`: its text is already in the message, and anyhow would
    // print a source a second time.
    #[error("{origin}: {reason}")]
    Registry {
        origin: String,
        reason: RegistryError,
    },
}

/// What is wrong with a definition's content. Each message starts with the fixed phrase of
/// `specs/definitions.md` §9; corpus `.error` files pin those prefixes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    #[error("not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 { offset: usize },
    #[error("nesting too deep (lists nest at most {MAX_NESTING} levels)")]
    NestingTooDeep,
    #[error("missing title (a definition starts with a `# Title` heading)")]
    MissingTitle,
    #[error("duplicate title (a definition has one `# Title` heading)")]
    DuplicateTitle,
    #[error("missing description (the first paragraph after the title)")]
    MissingDescription,
    #[error("missing section \"## {0}\"")]
    MissingSection(&'static str),
    #[error("duplicate section \"## {0}\"")]
    DuplicateSection(&'static str),
    #[error("malformed item {0:?} (expected `- **Key**: value`)")]
    MalformedItem(String),
    #[error("duplicate key {0:?}")]
    DuplicateKey(String),
    #[error("empty value for {0:?}")]
    EmptyValue(String),
    #[error("unexpected nested list under {0:?}")]
    NestedList(String),
    #[error("invalid boolean {value:?} for {key:?} (expected true or false)")]
    InvalidBoolean { key: String, value: String },
    #[error("invalid name {0:?} (1 to 64 ASCII letters, digits, `_` or `-`)")]
    InvalidName(String),
    #[error("unknown key {key:?} (expected one of: {expected})")]
    UnknownKey { key: String, expected: String },
    #[error("missing key \"{0}\"")]
    MissingKey(&'static str),
    #[error("invalid parameter name {0:?} (one word, no blanks)")]
    InvalidParameterName(String),
    #[error(
        "list outside a parameter (each parameter is a `### name` heading followed by its keys)"
    )]
    ListOutsideParameter,
    #[error("duplicate parameter {0:?}")]
    DuplicateParameter(String),
    #[error("unknown type {0:?} (expected string, number, integer, boolean, object or array)")]
    UnknownType(String),
    #[error("enum not allowed for type {0} (only for string, number and integer)")]
    EnumNotAllowed(JsonType),
    #[error("invalid enum value {value:?} for type {json_type}")]
    InvalidEnumValue { value: String, json_type: JsonType },
    #[error("items not allowed for type {0} (only for array)")]
    ItemsNotAllowed(JsonType),
    #[error("no workflow steps (the steps are a numbered list)")]
    NoWorkflowSteps,
}

/// A [`Problem`] with its place in the file, before the file's name is known to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Located {
    pub line: usize,
    pub section: String,
    pub problem: Problem,
}

/// The section name of everything outside the level-2 sections.
const DOCUMENT: &str = "document";

impl Located {
    pub(super) fn new(line: usize, section: &str, problem: Problem) -> Located {
        Located {
            line,
            section: section.to_owned(),
            problem,
        }
    }

    pub(super) fn document(line: usize, problem: Problem) -> Located {
        Located::new(line, DOCUMENT, problem)
    }

    pub(super) fn in_file(self, file: &str) -> DefinitionError {
        DefinitionError::Invalid {
            file: file.to_owned(),
            line: self.line,
            section: self.section,
            problem: self.problem,
        }
    }
}
