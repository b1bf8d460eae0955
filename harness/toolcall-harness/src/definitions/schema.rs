//! Parameters and results as JSON Schemas (`specs/definitions.md` §5, §6): `### name`
//! parameters and their keys, `Items` nesting, enum coercion, and the fields of `## Returns` /
//! `## Output Schema`.

use serde_json::{Number, Value};

use super::contract::{JsonType, Parameter, Schema};
use super::error::{Located, Problem};
use super::outline::{Block, Item};
use super::values::{KeyItem, KeyTable, key_items, lookup, parse_type, unknown_key};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SchemaKey {
    Type,
    Required,
    Description,
    Enum,
    Items,
}

const PARAMETER_KEYS: &KeyTable<SchemaKey> = &[
    ("Type", SchemaKey::Type),
    ("Required", SchemaKey::Required),
    ("Description", SchemaKey::Description),
    ("Enum", SchemaKey::Enum),
    ("Items", SchemaKey::Items),
];

/// An array's items are not properties, so they have no `Required` (D5.5).
const ITEMS_KEYS: &KeyTable<SchemaKey> = &[
    ("Type", SchemaKey::Type),
    ("Description", SchemaKey::Description),
    ("Enum", SchemaKey::Enum),
    ("Items", SchemaKey::Items),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ResultKey {
    Type,
    Description,
}

const RESULT_KEYS: &KeyTable<ResultKey> = &[
    ("Type", ResultKey::Type),
    ("Description", ResultKey::Description),
];

/// The list items of a section's top-level lists, in order.
pub(super) fn list_items(blocks: &[Block]) -> impl Iterator<Item = &Item> {
    blocks.iter().flat_map(|block| match block {
        Block::List(items) => items.as_slice(),
        _ => &[],
    })
}

/// A `### name` heading and the items of the lists under it.
struct ParameterSource<'a> {
    name: &'a str,
    line: usize,
    items: Vec<&'a Item>,
}

/// The parameters of a `## Parameters` or `## Input Schema` section (D5.1).
pub(super) fn parameters(blocks: &[Block], section: &str) -> Result<Vec<Parameter>, Located> {
    let mut sources: Vec<ParameterSource<'_>> = Vec::new();
    for block in blocks {
        match block {
            Block::Heading {
                level: 3,
                text,
                line,
            } => {
                if text.is_empty() || text.contains(char::is_whitespace) {
                    return Err(Located::new(
                        *line,
                        section,
                        Problem::InvalidParameterName(text.clone()),
                    ));
                }
                if sources.iter().any(|earlier| earlier.name == text) {
                    return Err(Located::new(
                        *line,
                        section,
                        Problem::DuplicateParameter(text.clone()),
                    ));
                }
                sources.push(ParameterSource {
                    name: text,
                    line: *line,
                    items: Vec::new(),
                });
            }
            Block::List(items) => match sources.last_mut() {
                Some(source) => source.items.extend(items),
                None => {
                    let line = items.first().map_or(0, |item| item.line);
                    return Err(Located::new(line, section, Problem::ListOutsideParameter));
                }
            },
            Block::Heading { .. } | Block::Paragraph { .. } => {}
        }
    }
    sources
        .iter()
        .map(|source| parameter(source, section))
        .collect()
}

fn parameter(source: &ParameterSource<'_>, section: &str) -> Result<Parameter, Located> {
    let section = format!("{section} > {}", source.name);
    let keys = SchemaKeys::collect(
        key_items(source.items.iter().copied(), &section)?,
        PARAMETER_KEYS,
    )?;
    let schema = keys.schema(&section, source.line)?;
    let required = match keys.required {
        Some(required) => required.boolean()?,
        None => false,
    };
    Ok(Parameter {
        name: source.name.to_owned(),
        required,
        schema,
    })
}

/// The keys of one schema, each at most once (duplicates are refused by `key_items`).
#[derive(Default)]
struct SchemaKeys<'a> {
    json_type: Option<KeyItem<'a>>,
    required: Option<KeyItem<'a>>,
    description: Option<KeyItem<'a>>,
    allowed_values: Option<KeyItem<'a>>,
    items: Option<KeyItem<'a>>,
}

impl<'a> SchemaKeys<'a> {
    fn collect(keys: Vec<KeyItem<'a>>, table: &KeyTable<SchemaKey>) -> Result<Self, Located> {
        let mut slots = SchemaKeys::default();
        for key in keys {
            let slot = match lookup(table, key.key) {
                Some(SchemaKey::Type) => &mut slots.json_type,
                Some(SchemaKey::Required) => &mut slots.required,
                Some(SchemaKey::Description) => &mut slots.description,
                Some(SchemaKey::Enum) => &mut slots.allowed_values,
                Some(SchemaKey::Items) => &mut slots.items,
                None => return Err(key.fail(unknown_key(table, key.key))),
            };
            *slot = Some(key);
        }
        Ok(slots)
    }

    /// The schema these keys describe; `line` is where a missing `Type` is reported.
    fn schema(&self, section: &str, line: usize) -> Result<Schema, Located> {
        let type_key = self
            .json_type
            .ok_or_else(|| Located::new(line, section, Problem::MissingKey("Type")))?;
        let (json_type, title) = type_key.json_type()?;
        let mut schema = Schema::new(json_type);
        schema.title = title;
        if let Some(description) = self.description {
            schema.description = Some(description.scalar()?.to_owned());
        }
        if let Some(allowed) = self.allowed_values {
            schema.allowed_values = enum_values(&allowed, json_type)?;
        }
        if let Some(items) = self.items {
            if json_type != JsonType::Array {
                return Err(items.fail(Problem::ItemsNotAllowed(json_type)));
            }
            schema.items = Some(Box::new(items_schema(&items)?));
        }
        Ok(schema)
    }
}

/// `- **Items**:` and its nested keys; an inline value stands for the nested `Type` (D5.5).
fn items_schema(items: &KeyItem<'_>) -> Result<Schema, Located> {
    let section = format!("{} > Items", items.section);
    let mut nested = key_items(items.children, &section)?;
    if !items.value.is_empty() {
        if nested
            .iter()
            .any(|key| lookup(ITEMS_KEYS, key.key) == Some(SchemaKey::Type))
        {
            return Err(items.fail(Problem::DuplicateKey("Type".into())));
        }
        nested.insert(
            0,
            KeyItem {
                key: "Type",
                value: items.value,
                line: items.line,
                children: &[],
                section: &section,
            },
        );
    }
    SchemaKeys::collect(nested, ITEMS_KEYS)?.schema(&section, items.line)
}

/// The `Enum` entries as values of the schema's type (D5.4).
fn enum_values(key: &KeyItem<'_>, json_type: JsonType) -> Result<Vec<Value>, Located> {
    let entries = key.list()?;
    let parse: fn(&str) -> Option<Value> = match json_type {
        JsonType::String => |entry| Some(entry.into()),
        JsonType::Integer => |entry| entry.parse::<i64>().ok().map(Value::from),
        JsonType::Number => parse_number,
        JsonType::Boolean | JsonType::Object | JsonType::Array => {
            return Err(key.fail(Problem::EnumNotAllowed(json_type)));
        }
    };
    entries
        .iter()
        .map(|entry| {
            parse(entry).ok_or_else(|| {
                key.fail(Problem::InvalidEnumValue {
                    value: entry.clone(),
                    json_type,
                })
            })
        })
        .collect()
}

/// An integer literal stays an integer (`2`, not `2.0`); other literals must be finite.
fn parse_number(entry: &str) -> Option<Value> {
    if let Ok(integer) = entry.parse::<i64>() {
        return Some(integer.into());
    }
    // Rust's float syntax also takes `inf`, `NaN` and `infinity`; those have no JSON form.
    let float = entry.parse::<f64>().ok()?;
    Number::from_f64(float).map(Value::Number)
}

/// The schema of a `## Returns` or `## Output Schema` section (D6.1); `line` is its heading.
pub(super) fn result_schema(
    blocks: &[Block],
    section: &str,
    line: usize,
) -> Result<Schema, Located> {
    let mut json_type = None;
    let mut description = None;
    let mut properties = Vec::new();
    for key in key_items(list_items(blocks), section)? {
        match lookup(RESULT_KEYS, key.key) {
            Some(ResultKey::Type) => json_type = Some(key.json_type()?),
            Some(ResultKey::Description) => description = Some(key.scalar()?.to_owned()),
            None => properties.push((key.key.to_owned(), field_schema(&key)?)),
        }
    }
    let (json_type, title) =
        json_type.ok_or_else(|| Located::new(line, section, Problem::MissingKey("Type")))?;
    let mut schema = Schema::new(json_type);
    schema.title = title;
    schema.description = description;
    schema.properties = properties;
    Ok(schema)
}

/// A result field: `TYPE - description` or `TYPE`.
fn field_schema(key: &KeyItem<'_>) -> Result<Schema, Located> {
    let value = key.scalar()?;
    let (type_text, description) = match value.split_once(" - ") {
        Some((type_text, description)) => (type_text, Some(description.trim())),
        None => (value, None),
    };
    let (json_type, title) = parse_type(type_text).map_err(|problem| key.fail(problem))?;
    let mut schema = Schema::new(json_type);
    schema.title = title;
    schema.description = description
        .filter(|description| !description.is_empty())
        .map(str::to_owned);
    Ok(schema)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definitions::outline::outline;
    use serde_json::json;

    fn input(markdown: &str) -> Result<Value, Located> {
        let blocks = outline(markdown).unwrap();
        let parameters = parameters(&blocks, "Parameters")?;
        Ok(crate::definitions::contract::InputSchema { parameters }.to_json())
    }

    fn problem(markdown: &str) -> (usize, String, Problem) {
        let error = input(markdown).unwrap_err();
        (error.line, error.section, error.problem)
    }

    #[test]
    fn nested_items_and_enums_of_every_allowed_type() {
        let schema = input(
            "### grid\n- **Type**: array\n- **Items**:\n  - **Type**: array\n  - **Items**: integer\n\
             ### n\n- **Type**: Number\n- **Enum**: 1, 2.5, -3e2\n- **Required**: TRUE\n\
             ### k\n- **Type**: integer\n- **Enum**: 7\n",
        )
        .unwrap();
        assert_eq!(
            schema,
            json!({"type": "object", "properties": {
                "grid": {"type": "array", "items": {"type": "array", "items": {"type": "integer"}}},
                "n": {"type": "number", "enum": [1, 2.5, -300.0]},
                "k": {"type": "integer", "enum": [7]},
            }, "required": ["n"]})
        );
    }

    #[test]
    fn schema_errors_name_their_line_and_section() {
        assert_eq!(
            problem("### a\n- **Type**: boolean\n- **Enum**: true\n"),
            (
                3,
                "Parameters > a".into(),
                Problem::EnumNotAllowed(JsonType::Boolean)
            )
        );
        assert_eq!(
            problem("### a\n- **Type**: integer\n- **Enum**: 1, 1.5\n").2,
            Problem::InvalidEnumValue {
                value: "1.5".into(),
                json_type: JsonType::Integer
            }
        );
        assert_eq!(
            problem("### a\n- **Type**: number\n- **Enum**: inf\n").2,
            Problem::InvalidEnumValue {
                value: "inf".into(),
                json_type: JsonType::Number
            }
        );
        assert_eq!(
            problem("### a\n- **Type**: array\n- **Items**: string\n  - **Type**: string\n"),
            (
                3,
                "Parameters > a".into(),
                Problem::DuplicateKey("Type".into())
            )
        );
        assert_eq!(
            problem("### a\n- **Type**: array\n- **Items**:\n  - **Required**: true\n"),
            (
                4,
                "Parameters > a > Items".into(),
                Problem::UnknownKey {
                    key: "Required".into(),
                    expected: "Type, Description, Enum, Items".into()
                }
            )
        );
        assert_eq!(
            problem("Intro.\n\n- **Type**: string\n"),
            (3, "Parameters".into(), Problem::ListOutsideParameter)
        );
    }

    #[test]
    fn results_have_fields() {
        let blocks = outline(
            "Prose.\n\n- **Type**: object (SkillResult)\n- **Success**: boolean - Whether it worked\n- **Data**: object\n",
        )
        .unwrap();
        assert_eq!(
            result_schema(&blocks, "Output Schema", 1)
                .unwrap()
                .to_json(),
            json!({"type": "object", "title": "SkillResult", "properties": {
                "Success": {"type": "boolean", "description": "Whether it worked"},
                "Data": {"type": "object"},
            }})
        );
        let untyped = outline("- **Description**: d\n").unwrap();
        assert_eq!(
            result_schema(&untyped, "Returns", 9).unwrap_err(),
            Located::new(9, "Returns", Problem::MissingKey("Type"))
        );
    }
}
