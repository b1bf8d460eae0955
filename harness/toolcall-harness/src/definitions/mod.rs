//! `.tool.md` / `.skill.md` definitions (seed 003, `specs/definitions.md`): their contracts,
//! the registries built from them or from JSON tool lists, and their rendering as a system
//! prompt (seed 004).
//!
//! - `contract`: the contract types and their JSON form;
//! - `text`, `outline`: the file's text and its Markdown blocks (pulldown-cmark events);
//! - `values`, `schema`, `parse`: key items, schemas and the document structure;
//! - `registry`: files, the bundled tools and registries;
//! - `tool_list`: JSON tool lists (OpenAI `tools`, MCP `tools/list`) as registries;
//! - `render`: the system-prompt Markdown;
//! - `error`: what can go wrong.

mod contract;
mod error;
mod outline;
mod parse;
mod registry;
mod render;
mod schema;
mod text;
mod tool_list;
mod values;

pub use contract::{
    Contract, InputSchema, JsonType, Kind, Parameter, Schema, SkillParts, Workflow,
};
pub use error::{DefinitionError, Problem};
pub use parse::parse_definition;
pub use registry::{
    bundled_contracts, bundled_registry, load_registry, parse_definition_bytes, read_definition,
};
pub use render::{render_prompt, sample_input};
pub use tool_list::{ToolListError, ToolListProblem, parse_tool_list};
