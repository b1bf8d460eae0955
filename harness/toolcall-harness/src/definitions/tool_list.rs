//! JSON tool lists (`specs/definitions.md` §13): the `tools` array of an OpenAI
//! chat-completions request (`{"type": "function", "function": {…}}` entries), a bare array of
//! `{"name", "description", "inputSchema" | "parameters"}` tools (MCP's `tools/list`, the AI
//! SDK, OpenAI's older `functions`), or an object carrying either array as `tools`, read into a
//! [`Registry`] by [`parse_tool_list`]. `--tools FILE.json` reaches it through
//! [`load_registry`](super::load_registry).

use serde_json::{Map, Value};
use thiserror::Error;

use super::values::same_key;
use crate::tools::{Registry, RegistryError, Tool};

/// Why a JSON tool list cannot be read: the first problem (D13.8), displayed as one line,
/// `FILE: PATH: MESSAGE`, or `FILE: MESSAGE` for a problem of the whole file.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{file}: {}{problem}", path_prefix(.path))]
pub struct ToolListError {
    /// The file, as given.
    pub file: String,
    /// The JSON path of the offending value, from the top (`[2].function.parameters`,
    /// `tools[0]`); empty for the whole file.
    pub path: String,
    /// What is wrong.
    pub problem: ToolListProblem,
}

/// `PATH: `, or nothing for the whole file.
fn path_prefix(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!("{path}: ")
    }
}

/// What is wrong with a JSON tool list. Each message starts with the fixed phrase
/// `specs/definitions.md` D13.8 gives it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ToolListProblem {
    /// The file is not one JSON value (D13.1); serde_json's message.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// The top level is neither an array nor an object with `tools` (D13.2); what it is.
    #[error("not a tool list (expected an array of tools, or an object with \"tools\"; found {0})")]
    NotAToolList(&'static str),
    /// The list is empty (D13.2).
    #[error("no tools (an empty registry would recognise no call)")]
    NoTools,
    /// A value of the wrong JSON type (D13.2, D13.3, D13.4).
    #[error("not {expected} (found {found})")]
    WrongType {
        /// The type expected, with its article (`an object`, `a string`).
        expected: &'static str,
        /// The type found, with its article (`null`, `a number`).
        found: &'static str,
    },
    /// A required key is absent (D13.3, D13.4); the key.
    #[error("missing key \"{0}\"")]
    MissingKey(&'static str),
    /// An entry's `type` is not `"function"` (D13.3); the value, as JSON.
    #[error("unknown tool type {0} (only \"function\" tools have a name a model can call)")]
    UnknownType(String),
    /// A key that compares equal to a known key but is spelt otherwise (D13.6).
    #[error("misspelt key {key:?} (the key is \"{known}\")")]
    MisspeltKey {
        /// The key as written.
        key: String,
        /// The known key it stands for.
        known: &'static str,
    },
    /// A name that is not 1 to 64 of `A-Za-z0-9_-` (D3.7); the name.
    #[error("invalid name {0:?} (1 to 64 ASCII letters, digits, `_` or `-`)")]
    InvalidName(String),
    /// `inputSchema` and `parameters` are both given and differ (D13.4).
    #[error("conflicting schemas (\"inputSchema\" and \"parameters\" differ; give one)")]
    ConflictingSchemas,
    /// The schema compiler refuses the input schema (D13.5); its message.
    #[error("not a JSON Schema: {0}")]
    NotASchema(String),
    /// A name an earlier tool of the list has (D13.7).
    #[error("tool {name} is defined twice (first at {first})")]
    Duplicate {
        /// The name.
        name: String,
        /// The JSON path of the first tool's `name`.
        first: String,
    },
}

/// The keys of entries and tool objects (D13.3, D13.4); a key spelt otherwise that compares
/// equal to one of them is refused (D13.6).
const KNOWN_KEYS: [&str; 6] = [
    "type",
    "function",
    "name",
    "description",
    "inputSchema",
    "parameters",
];

/// The registry a JSON tool list defines (`specs/definitions.md` §13), from the file's raw
/// bytes; `file` names it in errors.
pub fn parse_tool_list(file: &str, bytes: &[u8]) -> Result<Registry, ToolListError> {
    let reader = Reader { file };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|error| reader.fail("", ToolListProblem::NotJson(error.to_string())))?;
    let (entries, base) = match &value {
        Value::Array(entries) => (entries, ""),
        Value::Object(object) => match object.get("tools") {
            Some(Value::Array(entries)) => (entries, "tools"),
            Some(other) => return Err(reader.wrong_type("tools", "an array", other)),
            None => {
                return Err(reader.fail(
                    "",
                    ToolListProblem::NotAToolList("an object without \"tools\""),
                ));
            }
        },
        other => {
            return Err(reader.fail("", ToolListProblem::NotAToolList(type_of(other))));
        }
    };
    if entries.is_empty() {
        return Err(reader.fail(base, ToolListProblem::NoTools));
    }
    let mut tools = Vec::with_capacity(entries.len());
    let mut name_paths = Vec::with_capacity(entries.len());
    for (index, entry) in entries.iter().enumerate() {
        let (tool, name_path) = reader.entry(entry, &format!("{base}[{index}]"))?;
        tools.push(tool);
        name_paths.push(name_path);
    }
    // D13.7, after every entry is read: the registry refuses a name twice, and the paths of
    // the tools say where.
    Registry::new(tools).map_err(|error| {
        let RegistryError::Duplicate(name) = &error else {
            return reader.fail(base, problem_of(error));
        };
        let mut at = name_paths.iter().filter(|(n, _)| n == name).map(|(_, p)| p);
        let first = at.next().cloned().unwrap_or_default();
        let again = at.next().cloned().unwrap_or_default();
        reader.fail(
            &again,
            ToolListProblem::Duplicate {
                name: name.clone(),
                first,
            },
        )
    })
}

/// The problem a registry error is in a tool list (its place is the caller's to say).
fn problem_of(error: RegistryError) -> ToolListProblem {
    match error {
        RegistryError::InvalidName(name) => ToolListProblem::InvalidName(name),
        RegistryError::InvalidSchema { reason, .. } => ToolListProblem::NotASchema(reason),
        // Only `Registry::new` refuses a name twice, and `parse_tool_list` places that itself.
        RegistryError::Duplicate(name) => ToolListProblem::Duplicate {
            name,
            first: String::new(),
        },
    }
}

/// A JSON value's type, with its article, as errors name it.
fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `object[key]`, with `null` read as absent (D13.4).
fn optional<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|value| !value.is_null())
}

/// Reading one file's list: the file, for errors.
struct Reader<'a> {
    file: &'a str,
}

impl Reader<'_> {
    fn fail(&self, path: &str, problem: ToolListProblem) -> ToolListError {
        ToolListError {
            file: self.file.to_owned(),
            path: path.to_owned(),
            problem,
        }
    }

    fn wrong_type(&self, path: &str, expected: &'static str, found: &Value) -> ToolListError {
        self.fail(
            path,
            ToolListProblem::WrongType {
                expected,
                found: type_of(found),
            },
        )
    }

    fn object<'v>(
        &self,
        value: &'v Value,
        path: &str,
    ) -> Result<&'v Map<String, Value>, ToolListError> {
        value
            .as_object()
            .ok_or_else(|| self.wrong_type(path, "an object", value))
    }

    /// D13.6: the first key of `object` that stands for a known key but is spelt otherwise.
    fn misspelt_keys(&self, object: &Map<String, Value>, path: &str) -> Result<(), ToolListError> {
        for key in object.keys() {
            if KNOWN_KEYS.contains(&key.as_str()) {
                continue;
            }
            if let Some(known) = KNOWN_KEYS.iter().find(|known| same_key(known, key)) {
                return Err(self.fail(
                    &format!("{path}.{key}"),
                    ToolListProblem::MisspeltKey {
                        key: key.clone(),
                        known,
                    },
                ));
            }
        }
        Ok(())
    }

    /// One entry's tool (D13.3–D13.5) and the path of its name, in D13.8's order.
    fn entry(&self, entry: &Value, path: &str) -> Result<(Tool, (String, String)), ToolListError> {
        let entry = self.object(entry, path)?;
        self.misspelt_keys(entry, path)?;
        let (object, path) = if entry.contains_key("type") || entry.contains_key("function") {
            match entry.get("type") {
                None => return Err(self.fail(path, ToolListProblem::MissingKey("type"))),
                Some(Value::String(kind)) if kind == "function" => {}
                Some(other) => {
                    return Err(self.fail(
                        &format!("{path}.type"),
                        ToolListProblem::UnknownType(other.to_string()),
                    ));
                }
            }
            let function = entry
                .get("function")
                .ok_or_else(|| self.fail(path, ToolListProblem::MissingKey("function")))?;
            let function_path = format!("{path}.function");
            let function = self.object(function, &function_path)?;
            self.misspelt_keys(function, &function_path)?;
            (function, function_path)
        } else {
            (entry, path.to_owned())
        };
        let name_path = format!("{path}.name");
        let name = match optional(object, "name") {
            None => return Err(self.fail(&path, ToolListProblem::MissingKey("name"))),
            Some(Value::String(name)) => name,
            Some(other) => return Err(self.wrong_type(&name_path, "a string", other)),
        };
        let description = match optional(object, "description") {
            None => "",
            Some(Value::String(description)) => description,
            Some(other) => {
                return Err(self.wrong_type(&format!("{path}.description"), "a string", other));
            }
        };
        let (schema, schema_key) = match (
            optional(object, "inputSchema"),
            optional(object, "parameters"),
        ) {
            (Some(input), Some(parameters)) if input != parameters => {
                return Err(self.fail(&path, ToolListProblem::ConflictingSchemas));
            }
            (Some(schema), _) => (schema.clone(), "inputSchema"),
            (None, Some(schema)) => (schema.clone(), "parameters"),
            (None, None) => (Value::Object(Map::new()), ""),
        };
        let tool = Tool::new(name.as_str(), description, schema).map_err(|error| {
            let at = match &error {
                RegistryError::InvalidName(_) => name_path.clone(),
                RegistryError::InvalidSchema { .. } => format!("{path}.{schema_key}"),
                RegistryError::Duplicate(_) => path.clone(),
            };
            self.fail(&at, problem_of(error))
        })?;
        Ok((tool, (name.clone(), name_path)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(json: &str) -> Result<Registry, ToolListError> {
        parse_tool_list("tools.json", json.as_bytes())
    }

    /// The path and problem of a list that must be refused.
    fn refused(json: &str) -> (String, ToolListProblem) {
        match read(json) {
            Ok(registry) => panic!("{json} was read: {registry:?}"),
            Err(error) => {
                assert_eq!(error.file, "tools.json");
                (error.path, error.problem)
            }
        }
    }

    fn at(path: &str, problem: ToolListProblem) -> (String, ToolListProblem) {
        (path.to_owned(), problem)
    }

    fn names(registry: &Registry) -> Vec<&str> {
        registry.tools().iter().map(|t| t.name.as_str()).collect()
    }

    const WEATHER: &str =
        r#"{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}"#;

    #[test]
    fn reads_an_openai_tools_array() {
        let registry = read(&format!(
            r#"[
              {{"type": "function", "function": {{"name": "get_weather", "description": "Weather in a city", "parameters": {WEATHER}, "strict": true}}}},
              {{"type": "function", "function": {{"name": "now"}}}}
            ]"#
        ))
        .unwrap();
        assert_eq!(names(&registry), ["get_weather", "now"]);
        let weather = registry.get("get_weather").unwrap();
        assert_eq!(weather.description, "Weather in a city");
        assert_eq!(
            weather.input_schema,
            serde_json::from_str::<Value>(WEATHER).unwrap()
        );
        // The schema is compiled: it is what calls are validated against.
        assert_eq!(weather.validate(&json!({"city": "Paris"})), Ok(()));
        assert!(weather.validate(&json!({"town": "Paris"})).is_err());
        // No description: ""; no parameters: any input (P2.2).
        let now = registry.get("now").unwrap();
        assert_eq!(now.description, "");
        assert_eq!(now.input_schema, json!({}));
        assert_eq!(now.validate(&json!({"anything": [1, 2]})), Ok(()));
    }

    #[test]
    fn reads_a_request_body_or_an_mcp_result_as_an_object_with_tools() {
        let body = read(&format!(
            r#"{{"model": "gpt-4.1", "messages": [], "tools": [{{"type": "function", "function": {{"name": "get_weather", "parameters": {WEATHER}}}}}], "tool_choice": "auto"}}"#
        ))
        .unwrap();
        assert_eq!(names(&body), ["get_weather"]);
        let mcp = read(&format!(
            r#"{{"tools": [{{"name": "get_weather", "title": "Weather", "inputSchema": {WEATHER}, "annotations": {{"readOnlyHint": true}}}}], "nextCursor": null}}"#
        ))
        .unwrap();
        assert_eq!(names(&mcp), ["get_weather"]);
        assert!(
            mcp.get("get_weather")
                .unwrap()
                .validate(&json!({}))
                .is_err()
        );
    }

    #[test]
    fn reads_bare_tools_with_input_schema_or_parameters() {
        let registry = read(&format!(
            r#"[
              {{"name": "mcp_tool", "description": "MCP", "inputSchema": {WEATHER}, "outputSchema": {{"type": "object"}}}},
              {{"name": "sdk_tool", "parameters": {WEATHER}}},
              {{"type": "function", "function": {{"name": "openai_tool"}}}}
            ]"#
        ))
        .unwrap();
        assert_eq!(names(&registry), ["mcp_tool", "sdk_tool", "openai_tool"]);
        for name in ["mcp_tool", "sdk_tool"] {
            let tool = registry.get(name).unwrap();
            assert!(tool.validate(&json!({"city": 5})).is_err(), "{name}");
        }
        assert_eq!(registry.get("mcp_tool").unwrap().description, "MCP");
    }

    #[test]
    fn null_is_absent_and_equal_schemas_agree() {
        let registry = read(
            r#"[
              {"name": "a", "description": null, "inputSchema": null, "parameters": null},
              {"name": "b", "inputSchema": {"type": "object", "required": ["x"]}, "parameters": {"required": ["x"], "type": "object"}},
              {"name": "c", "inputSchema": null, "parameters": {"type": "object", "required": ["y"]}}
            ]"#,
        )
        .unwrap();
        let a = registry.get("a").unwrap();
        assert_eq!((a.description.as_str(), &a.input_schema), ("", &json!({})));
        assert!(registry.get("b").unwrap().validate(&json!({})).is_err());
        assert!(registry.get("c").unwrap().validate(&json!({})).is_err());
    }

    #[test]
    fn boolean_schemas_are_schemas() {
        let registry = read(
            r#"[{"name": "never", "inputSchema": false}, {"name": "any", "parameters": true}]"#,
        )
        .unwrap();
        assert!(registry.get("never").unwrap().validate(&json!({})).is_err());
        assert_eq!(
            registry.get("any").unwrap().validate(&json!({"x": 1})),
            Ok(())
        );
    }

    #[test]
    fn drops_a_byte_order_mark() {
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(br#"[{"name": "t"}]"#);
        let registry = parse_tool_list("tools.json", &bytes).unwrap();
        assert_eq!(names(&registry), ["t"]);
    }

    #[test]
    fn refuses_what_is_not_a_json_tool_list() {
        assert!(matches!(refused(""), (p, ToolListProblem::NotJson(_)) if p.is_empty()));
        assert!(matches!(
            refused("[{\"name\": \"t\"},]"),
            (_, ToolListProblem::NotJson(_))
        ));
        let not_utf8 = parse_tool_list("tools.json", b"[{\"name\": \"\xff\"}]").unwrap_err();
        assert!(matches!(not_utf8.problem, ToolListProblem::NotJson(_)));
        assert_eq!(
            refused(r#""tools""#),
            at("", ToolListProblem::NotAToolList("a string"))
        );
        assert_eq!(
            refused(r#"{"functions": []}"#),
            at(
                "",
                ToolListProblem::NotAToolList("an object without \"tools\"")
            )
        );
        assert_eq!(
            refused(r#"{"tools": {"name": "t"}}"#),
            at(
                "tools",
                ToolListProblem::WrongType {
                    expected: "an array",
                    found: "an object"
                }
            )
        );
        assert_eq!(refused("[]"), at("", ToolListProblem::NoTools));
        assert_eq!(
            refused(r#"{"tools": []}"#),
            at("tools", ToolListProblem::NoTools)
        );
    }

    #[test]
    fn refuses_entries_of_no_known_form() {
        assert_eq!(
            refused(r#"[{"name": "t"}, "t"]"#),
            at(
                "[1]",
                ToolListProblem::WrongType {
                    expected: "an object",
                    found: "a string"
                }
            )
        );
        assert_eq!(
            refused(r#"[{"type": "web_search"}]"#),
            at(
                "[0].type",
                ToolListProblem::UnknownType("\"web_search\"".into())
            )
        );
        assert_eq!(
            refused(r#"[{"type": null, "function": {"name": "t"}}]"#),
            at("[0].type", ToolListProblem::UnknownType("null".into()))
        );
        assert_eq!(
            refused(r#"[{"function": {"name": "t"}}]"#),
            at("[0]", ToolListProblem::MissingKey("type"))
        );
        // OpenAI's Responses API form (`type` beside a flat `name`) is not the chat form.
        assert_eq!(
            refused(r#"[{"type": "function", "name": "t"}]"#),
            at("[0]", ToolListProblem::MissingKey("function"))
        );
        assert_eq!(
            refused(r#"{"tools": [{"type": "function", "function": ["t"]}]}"#),
            at(
                "tools[0].function",
                ToolListProblem::WrongType {
                    expected: "an object",
                    found: "an array"
                }
            )
        );
    }

    #[test]
    fn refuses_misspelt_keys() {
        assert_eq!(
            refused(r#"[{"name": "t", "input_schema": {"type": "object"}}]"#),
            at(
                "[0].input_schema",
                ToolListProblem::MisspeltKey {
                    key: "input_schema".into(),
                    known: "inputSchema"
                }
            )
        );
        // The entry's keys come before its form: `Type` is not taken for a missing `type`.
        assert_eq!(
            refused(r#"[{"Type": "function", "function": {"name": "t"}}]"#),
            at(
                "[0].Type",
                ToolListProblem::MisspeltKey {
                    key: "Type".into(),
                    known: "type"
                }
            )
        );
        assert_eq!(
            refused(r#"[{"type": "function", "function": {"name": "t", "Parameters": {}}}]"#),
            at(
                "[0].function.Parameters",
                ToolListProblem::MisspeltKey {
                    key: "Parameters".into(),
                    known: "parameters"
                }
            )
        );
    }

    #[test]
    fn refuses_bad_names_and_descriptions() {
        assert_eq!(
            refused(r#"[{"description": "no name"}]"#),
            at("[0]", ToolListProblem::MissingKey("name"))
        );
        assert_eq!(
            refused(r#"[{"type": "function", "function": {"name": null}}]"#),
            at("[0].function", ToolListProblem::MissingKey("name"))
        );
        assert_eq!(
            refused(r#"[{"name": 7}]"#),
            at(
                "[0].name",
                ToolListProblem::WrongType {
                    expected: "a string",
                    found: "a number"
                }
            )
        );
        assert_eq!(
            refused(r#"[{"name": "t"}, {"name": "get weather"}]"#),
            at(
                "[1].name",
                ToolListProblem::InvalidName("get weather".into())
            )
        );
        assert_eq!(
            refused(r#"[{"name": "t", "description": ["x"]}]"#),
            at(
                "[0].description",
                ToolListProblem::WrongType {
                    expected: "a string",
                    found: "an array"
                }
            )
        );
    }

    #[test]
    fn refuses_conflicting_and_invalid_schemas() {
        assert_eq!(
            refused(
                r#"[{"name": "t", "inputSchema": {"type": "object"}, "parameters": {"type": "object", "required": ["x"]}}]"#
            ),
            at("[0]", ToolListProblem::ConflictingSchemas)
        );
        let bad = r#"[
          {"type": "function", "function": {"name": "a"}},
          {"type": "function", "function": {"name": "b"}},
          {"type": "function", "function": {"name": "c", "parameters": {"type": "strng"}}}
        ]"#;
        let (path, problem) = refused(bad);
        assert_eq!(path, "[2].function.parameters");
        assert!(
            matches!(problem, ToolListProblem::NotASchema(_)),
            "{problem}"
        );
        let (path, problem) = refused(r#"[{"name": "t", "inputSchema": "object"}]"#);
        assert_eq!(path, "[0].inputSchema");
        assert!(
            matches!(problem, ToolListProblem::NotASchema(_)),
            "{problem}"
        );
    }

    #[test]
    fn refuses_a_name_twice_naming_both() {
        assert_eq!(
            refused(
                r#"{"tools": [{"name": "a"}, {"name": "b"}, {"type": "function", "function": {"name": "a"}}]}"#
            ),
            at(
                "tools[2].function.name",
                ToolListProblem::Duplicate {
                    name: "a".into(),
                    first: "tools[0].name".into()
                }
            )
        );
        // Names are exact: case differs, so these are two tools.
        assert_eq!(
            names(&read(r#"[{"name": "a"}, {"name": "A"}]"#).unwrap()),
            ["a", "A"]
        );
    }

    #[test]
    fn errors_are_one_line_naming_file_and_path() {
        let error = parse_tool_list(
            "tools.json",
            br#"[{"type": "function", "function": {"name": "t", "parameters": {"type": "strng"}}}]"#,
        )
        .unwrap_err()
        .to_string();
        assert!(
            error.starts_with("tools.json: [0].function.parameters: not a JSON Schema: "),
            "{error}"
        );
        assert_eq!(error.lines().count(), 1, "{error}");
        assert_eq!(
            read(r#"{"tools": [{"description": "x"}]}"#)
                .unwrap_err()
                .to_string(),
            "tools.json: tools[0]: missing key \"name\""
        );
        assert_eq!(
            read("[]").unwrap_err().to_string(),
            "tools.json: no tools (an empty registry would recognise no call)"
        );
    }
}
