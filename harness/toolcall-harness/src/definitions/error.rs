//! What can go wrong reading definitions (`specs/definitions.md` §9): [`DefinitionError`], the
//! one-line error the library returns, and [`Problem`], the fixed-prefix messages about a
//! file's content.

use thiserror::Error;

use super::contract::JsonType;
use super::outline::MAX_NESTING;
use super::tool_list::ToolListError;
use crate::tools::RegistryError;

/// Why definitions cannot be read. Each displays as one line naming the file and, for content
/// problems, the line and section.
#[derive(Debug, Error)]
pub enum DefinitionError {
    /// A file or folder cannot be read.
    #[error("cannot read {path}: {reason}")]
    Read {
        /// The file or folder.
        path: String,
        /// The I/O error's message.
        reason: String,
    },
    /// A file's name ends in neither `.tool.md` nor `.skill.md` (D1.1).
    #[error("{file}: not a definition file (names end in .tool.md or .skill.md)")]
    NotADefinition {
        /// The file.
        file: String,
    },
    /// A registry file defines a skill (D10.3).
    #[error("{file}: not a tool definition (a registry is built from .tool.md files)")]
    NotATool {
        /// The file.
        file: String,
    },
    /// A registry folder holds no `.tool.md` file (D10.3).
    #[error("no tool definitions in {folder} (a registry folder holds .tool.md files)")]
    NoTools {
        /// The folder.
        folder: String,
    },
    /// A file's content breaks a rule: the first problem found (`specs/definitions.md` D2.5,
    /// §9).
    #[error("{file}:{line}: in {section}: {problem}")]
    Invalid {
        /// The file.
        file: String,
        /// The line of the problem, from 1.
        line: usize,
        /// The section it is in, as `specs/definitions.md` §9 names it (`document`,
        /// `Parameters > NAME`, …).
        section: String,
        /// What is wrong.
        problem: Problem,
    },
    /// The tools do not make a registry: two have one name (D10.3), or one is refused.
    // `reason` rather than `source`: its text is already in the message, and anyhow would
    // print a source a second time.
    #[error("{origin}: {reason}")]
    Registry {
        /// Where the tools come from: the registry's path, or `specs/tools` for the bundled
        /// one.
        origin: String,
        /// Why.
        reason: RegistryError,
    },
    /// A `--tools FILE.json` is not a JSON tool list (`specs/definitions.md` §13): its file,
    /// the JSON path and the problem.
    #[error(transparent)]
    ToolList(#[from] ToolListError),
}

/// What is wrong with a definition's content. Each message starts with the fixed phrase of
/// `specs/definitions.md` §9; corpus `.error` files pin those prefixes.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    /// The file is not UTF-8 (D1.2).
    #[error("not UTF-8 (invalid byte at offset {offset})")]
    NotUtf8 {
        /// The byte offset of the first invalid byte.
        offset: usize,
    },
    /// Lists nest deeper than allowed (D1.5).
    #[error("nesting too deep (lists nest at most {MAX_NESTING} levels)")]
    NestingTooDeep,
    /// No heading, a first heading that is not level 1, or an empty title (D2.1).
    #[error("missing title (a definition starts with a `# Title` heading)")]
    MissingTitle,
    /// A second level-1 heading (D2.1).
    #[error("duplicate title (a definition has one `# Title` heading)")]
    DuplicateTitle,
    /// No paragraph between the title and the first level-2 heading (D2.2).
    #[error("missing description (the first paragraph after the title)")]
    MissingDescription,
    /// A required section is absent (D2.4); its name.
    #[error("missing section \"## {0}\"")]
    MissingSection(&'static str),
    /// A known section appears twice (D2.3); its name.
    #[error("duplicate section \"## {0}\"")]
    DuplicateSection(&'static str),
    /// A list item that is not a key item (D3.1); its text.
    #[error("malformed item {0:?} (expected `- **Key**: value`)")]
    MalformedItem(String),
    /// A key twice among one set of key items (D3.3); the key as written.
    #[error("duplicate key {0:?}")]
    DuplicateKey(String),
    /// A key with an empty value, or a list value with no entry (D3.4, D3.6); the key.
    #[error("empty value for {0:?}")]
    EmptyValue(String),
    /// A single-valued key with a nested list (D3.4); the key.
    #[error("unexpected nested list under {0:?}")]
    NestedList(String),
    /// A boolean key whose value is not `true` or `false` (D3.5).
    #[error("invalid boolean {value:?} for {key:?} (expected true or false)")]
    InvalidBoolean {
        /// The key as written.
        key: String,
        /// The value given.
        value: String,
    },
    /// A tool or skill name that is not 1 to 64 of `A-Za-z0-9_-` (D3.7); the name.
    #[error("invalid name {0:?} (1 to 64 ASCII letters, digits, `_` or `-`)")]
    InvalidName(String),
    /// A key its section, parameter or items do not know (D4.1, D5.2, D5.5).
    #[error("unknown key {key:?} (expected one of: {expected})")]
    UnknownKey {
        /// The key as written.
        key: String,
        /// The known keys, comma-separated.
        expected: String,
    },
    /// A required key is absent (D4.2, D5.2, D5.5, D6.1); the key.
    #[error("missing key \"{0}\"")]
    MissingKey(&'static str),
    /// A parameter heading that is empty or holds blanks (D5.1); its text.
    #[error("invalid parameter name {0:?} (one word, no blanks)")]
    InvalidParameterName(String),
    /// A list before the section's first parameter heading (D5.1).
    #[error(
        "list outside a parameter (each parameter is a `### name` heading followed by its keys)"
    )]
    ListOutsideParameter,
    /// Two parameters with one name (D5.1); the name.
    #[error("duplicate parameter {0:?}")]
    DuplicateParameter(String),
    /// A type that is none of the six (D5.3); the type as written.
    #[error("unknown type {0:?} (expected string, number, integer, boolean, object or array)")]
    UnknownType(String),
    /// An `Enum` on a `boolean`, `object` or `array` (D5.4); the type.
    #[error("enum not allowed for type {0} (only for string, number and integer)")]
    EnumNotAllowed(JsonType),
    /// An `Enum` entry that is not a value of the schema's type (D5.4).
    #[error("invalid enum value {value:?} for type {json_type}")]
    InvalidEnumValue {
        /// The entry as written.
        value: String,
        /// The schema's type.
        json_type: JsonType,
    },
    /// `Items` on a type other than `array` (D5.5); the type.
    #[error("items not allowed for type {0} (only for array)")]
    ItemsNotAllowed(JsonType),
    /// A `## Workflow` with no step (D7.1).
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
