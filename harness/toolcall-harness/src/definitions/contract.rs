//! The contract a `.tool.md` / `.skill.md` file defines, and its JSON form
//! (`specs/definitions.md` §8): camelCase fields, parameters and results as JSON Schemas.

use std::fmt;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value, json};

/// What a definition file defines (D1.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A tool: a `NAME.tool.md` file.
    Tool,
    /// A skill: a `NAME.skill.md` file.
    Skill,
}

impl Kind {
    /// The kind a file name announces: `NAME.tool.md` or `NAME.skill.md`, in any ASCII case.
    pub fn from_file_name(name: &str) -> Option<Kind> {
        let name = name.to_ascii_lowercase();
        if name.ends_with(".tool.md") {
            Some(Kind::Tool)
        } else if name.ends_with(".skill.md") {
            Some(Kind::Skill)
        } else {
            None
        }
    }
}

/// The JSON types a parameter may have (D5.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    /// `string`.
    String,
    /// `number`: any JSON number.
    Number,
    /// `integer`: a number with an integral value.
    Integer,
    /// `boolean`.
    Boolean,
    /// `object`.
    Object,
    /// `array`.
    Array,
}

impl JsonType {
    const ALL: [JsonType; 6] = [
        JsonType::String,
        JsonType::Number,
        JsonType::Integer,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
    ];

    /// The type's name, lowercase, as JSON Schema writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            JsonType::String => "string",
            JsonType::Number => "number",
            JsonType::Integer => "integer",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
        }
    }

    /// The type named `name`, in any case.
    pub fn from_name(name: &str) -> Option<JsonType> {
        JsonType::ALL
            .into_iter()
            .find(|json_type| json_type.as_str().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The schema of one value: a parameter, an array's items, a result or a result's field.
#[derive(Debug, Clone, PartialEq)]
pub struct Schema {
    /// The value's type (D5.3).
    pub json_type: JsonType,
    /// The parenthesised label after the type (`object (SkillResult)`).
    pub title: Option<String>,
    /// The value's description, when the file gives one.
    pub description: Option<String>,
    /// The `enum` entries, already of the schema's type; empty when there is no `enum`.
    pub allowed_values: Vec<Value>,
    /// An array's `Items` (D5.5).
    pub items: Option<Box<Schema>>,
    /// A result's fields (D6.1), in file order.
    pub properties: Vec<(String, Schema)>,
}

impl Schema {
    /// A schema of `json_type` with nothing else set.
    pub fn new(json_type: JsonType) -> Schema {
        Schema {
            json_type,
            title: None,
            description: None,
            allowed_values: Vec::new(),
            items: None,
            properties: Vec::new(),
        }
    }

    /// The schema as JSON Schema, keys in the order of D5.6.
    pub fn to_json(&self) -> Value {
        let mut schema = Map::new();
        schema.insert("type".into(), self.json_type.as_str().into());
        if let Some(title) = &self.title {
            schema.insert("title".into(), title.as_str().into());
        }
        if let Some(description) = &self.description {
            schema.insert("description".into(), description.as_str().into());
        }
        if !self.allowed_values.is_empty() {
            schema.insert("enum".into(), self.allowed_values.clone().into());
        }
        if let Some(items) = &self.items {
            schema.insert("items".into(), items.to_json());
        }
        if !self.properties.is_empty() {
            let properties = self
                .properties
                .iter()
                .map(|(name, field)| (name.clone(), field.to_json()))
                .collect::<Map<_, _>>();
            schema.insert("properties".into(), properties.into());
        }
        Value::Object(schema)
    }
}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// One input of a tool or skill (`### name` in `## Parameters` / `## Input Schema`).
#[derive(Debug, Clone, PartialEq)]
pub struct Parameter {
    /// The name, as its heading writes it (D5.1).
    pub name: String,
    /// Whether a call must give it (`Required`; `false` when absent).
    pub required: bool,
    /// Its type, description, enum and items.
    pub schema: Schema,
}

/// A contract's inputs, serialized as the object JSON Schema of D5.6.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InputSchema {
    /// The parameters, in file order.
    pub parameters: Vec<Parameter>,
}

impl InputSchema {
    /// The object JSON Schema of D5.6: `type`, `properties` and `required`, always all three.
    pub fn to_json(&self) -> Value {
        let properties = self
            .parameters
            .iter()
            .map(|parameter| (parameter.name.clone(), parameter.schema.to_json()))
            .collect::<Map<_, _>>();
        let required = self
            .parameters
            .iter()
            .filter(|parameter| parameter.required)
            .map(|parameter| parameter.name.as_str())
            .collect::<Vec<_>>();
        json!({"type": "object", "properties": properties, "required": required})
    }
}

impl Serialize for InputSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

/// A skill's `## Workflow` (`specs/definitions.md` §7).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Workflow {
    /// The section's paragraphs, joined by `\n\n`; `""` when there are none (D7.2).
    pub description: String,
    /// The steps, in order (D7.1).
    pub steps: Vec<String>,
}

/// What only skills have.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillParts {
    /// `Required Tools`: the names of the tools the skill uses; empty when absent (D4.3).
    pub required_tools: Vec<String>,
    /// `Required Skills`: the names of the skills it uses; empty when absent.
    pub required_skills: Vec<String>,
    /// The `## Workflow` section (D7.1, D7.2).
    pub workflow: Workflow,
}

/// A tool or skill definition, as `tch definitions` prints it (`specs/definitions.md` §8).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Contract {
    /// Tool or skill, from the file name (D1.1).
    pub kind: Kind,
    /// The `Name` metadata (D4.2): the identifier a model calls (D3.7).
    pub name: String,
    /// The level-1 heading's text (D2.1).
    pub title: String,
    /// The first paragraph after the title (D2.2).
    pub description: String,
    /// `Version`, as written; `None` when absent (D4.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// `Category`, as written; `None` when absent (D4.3).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    /// `Requires Auth`; `false` when absent (D4.1).
    pub requires_auth: bool,
    /// `Requires Patient Context`; `false` when absent (D4.1).
    pub requires_patient_context: bool,
    /// `Some` exactly for skills.
    #[serde(flatten)]
    pub skill: Option<SkillParts>,
    /// A tool's `## Parameters` or a skill's `## Input Schema` (`specs/definitions.md` §5).
    pub input_schema: InputSchema,
    /// A tool's `## Returns` or a skill's `## Output Schema` (`specs/definitions.md` §6);
    /// `None` when the section is absent (D6.2).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub returns: Option<Schema>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_file_names() {
        assert_eq!(Kind::from_file_name("a.tool.md"), Some(Kind::Tool));
        assert_eq!(Kind::from_file_name("A.Skill.MD"), Some(Kind::Skill));
        assert_eq!(Kind::from_file_name("a.md"), None);
        assert_eq!(Kind::from_file_name("tool.md"), None);
    }

    #[test]
    fn schemas_serialize_in_spec_order_and_only_what_is_set() {
        let mut items = Schema::new(JsonType::String);
        items.allowed_values = vec!["a".into()];
        let mut list = Schema::new(JsonType::Array);
        list.description = Some("d".into());
        list.items = Some(Box::new(items));
        let input = InputSchema {
            parameters: vec![
                Parameter {
                    name: "xs".into(),
                    required: true,
                    schema: list,
                },
                Parameter {
                    name: "n".into(),
                    required: false,
                    schema: Schema::new(JsonType::Integer),
                },
            ],
        };
        assert_eq!(
            serde_json::to_string(&input).unwrap(),
            r#"{"type":"object","properties":{"xs":{"type":"array","description":"d","items":{"type":"string","enum":["a"]}},"n":{"type":"integer"}},"required":["xs"]}"#
        );
    }
}
