//! The tool registry: the tools a stream may call, each with its JSON Schema compiled once.
//! Dialects that name tools (`tag`, `signature`) consult it; the protocol sends it to
//! candidates. Registries are built from `.tool.md` definitions (`crate::definitions`).

use std::fmt;

use serde_json::Value;
use thiserror::Error;

/// One callable tool.
pub struct Tool {
    /// The name calls use, matched exactly (`specs/definitions.md` D3.7); unique within a
    /// registry.
    pub name: String,
    /// What the tool does (sent to candidates in `begin`).
    pub description: String,
    /// A JSON Schema for the call's input (`type: object`, `properties`, `required`).
    pub input_schema: Value,
    validator: jsonschema::Validator,
}

impl fmt::Debug for Tool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Tool")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("input_schema", &self.input_schema)
            .finish_non_exhaustive()
    }
}

impl Tool {
    /// A tool with a valid name (`specs/definitions.md` D3.7: 1–64 of `A-Za-z0-9_-`, so a name
    /// never holds `<`, `>` or blanks) whose schema is itself valid JSON Schema.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        input_schema: Value,
    ) -> Result<Tool, RegistryError> {
        let name = name.into();
        let valid_name = (1..=64).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid_name {
            return Err(RegistryError::InvalidName(name));
        }
        let validator =
            jsonschema::validator_for(&input_schema).map_err(|e| RegistryError::InvalidSchema {
                tool: name.clone(),
                reason: e.to_string(),
            })?;
        Ok(Tool {
            name,
            description: description.into(),
            input_schema,
            validator,
        })
    }

    /// Checks `input` against the tool's schema; the error names the first violation and where.
    pub fn validate(&self, input: &Value) -> Result<(), String> {
        match self.validator.iter_errors(input).next() {
            None => Ok(()),
            Some(error) => {
                let at = error.instance_path().to_string();
                Err(if at.is_empty() {
                    error.to_string()
                } else {
                    format!("{error} at {at}")
                })
            }
        }
    }
}

/// Why a registry cannot be built.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RegistryError {
    /// A tool's input schema is not itself valid JSON Schema.
    #[error("tool {tool}: its input schema is not valid JSON Schema: {reason}")]
    InvalidSchema {
        /// The tool's name.
        tool: String,
        /// What the schema compiler says is wrong.
        reason: String,
    },
    /// A tool's name is not 1–64 of `A-Za-z0-9_-` (`specs/definitions.md` D3.7); the name.
    #[error("tool name {0:?} is not 1 to 64 letters, digits, `_` or `-`")]
    InvalidName(String),
    /// Two tools of one registry have the same name (D10.3); the name.
    #[error("tool {0} is defined twice")]
    Duplicate(String),
}

/// The tools of one run, by name (exact, case-sensitive).
#[derive(Debug, Default)]
pub struct Registry {
    tools: Vec<Tool>,
}

impl Registry {
    /// A registry of `tools`, in the order given; two tools with one name are refused.
    pub fn new(tools: Vec<Tool>) -> Result<Registry, RegistryError> {
        for (i, tool) in tools.iter().enumerate() {
            if tools[..i].iter().any(|t| t.name == tool.name) {
                return Err(RegistryError::Duplicate(tool.name.clone()));
            }
        }
        Ok(Registry { tools })
    }

    /// The tool named exactly `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// Every tool, in the order the registry was built with.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn weather() -> Tool {
        Tool::new(
            "GetWeather",
            "weather",
            json!({"type": "object", "properties": {"location": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}}, "required": ["location"]}),
        )
        .expect("valid schema")
    }

    #[test]
    fn validates_against_the_schema() {
        let tool = weather();
        assert_eq!(tool.validate(&json!({"location": "Paris"})), Ok(()));
        let missing = tool.validate(&json!({})).unwrap_err();
        assert!(missing.contains("location"), "{missing}");
        let bad_enum = tool
            .validate(&json!({"location": "x", "unit": "kelvin"}))
            .unwrap_err();
        assert!(bad_enum.contains("/unit"), "{bad_enum}");
    }

    #[test]
    fn refuses_bad_schemas_and_duplicates() {
        for name in ["", "a>b", "<x", "two words", &"x".repeat(65)] {
            assert_eq!(
                Tool::new(name, "", json!({})).unwrap_err(),
                RegistryError::InvalidName(name.to_owned())
            );
        }
        assert!(matches!(
            Tool::new("t", "", json!({"type": 5})),
            Err(RegistryError::InvalidSchema { .. })
        ));
        assert_eq!(
            Registry::new(vec![weather(), weather()]).unwrap_err(),
            RegistryError::Duplicate("GetWeather".into())
        );
        let registry = Registry::new(vec![weather()]).expect("one tool");
        assert!(registry.get("GetWeather").is_some());
        assert!(registry.get("getweather").is_none());
    }
}
