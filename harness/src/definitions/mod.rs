//! PLACEHOLDER during parallel work: `.tool.md` / `.skill.md` definitions (seed 003,
//! `specs/definitions.md`) and the registries built from them.

use std::path::Path;

use thiserror::Error;

use crate::tools::Registry;

use crate::bundled;

/// Why definitions cannot be read.
#[derive(Debug, Error)]
pub enum DefinitionError {
    #[error("{0}")]
    Placeholder(String),
}

/// The registry of the bundled `specs/tools/*.tool.md`.
pub fn bundled_registry() -> Result<Registry, DefinitionError> {
    let _ = bundled::BUNDLED_TOOLS;
    Ok(Registry::default())
}

/// The registry of one `.tool.md` file, or of every `.tool.md` file in a folder.
pub fn load_registry(path: &Path) -> Result<Registry, DefinitionError> {
    Err(DefinitionError::Placeholder(format!(
        "cannot load {} yet",
        path.display()
    )))
}
