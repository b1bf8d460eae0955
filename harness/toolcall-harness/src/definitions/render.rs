//! Contracts as the system-prompt Markdown of seed 004 (`specs/definitions.md` §11): heading,
//! description, parameters, returns, and an example call in the `tag` form whose sample values
//! are chosen deterministically from the schemas.

use serde_json::{Map, Value};

use super::contract::{Contract, InputSchema, JsonType, Schema};

/// The prompt section of every contract, separated by blank lines.
pub fn render_prompt(contracts: &[Contract]) -> String {
    contracts
        .iter()
        .map(render_contract)
        .collect::<Vec<_>>()
        .join("\n")
}

fn render_contract(contract: &Contract) -> String {
    let name = &contract.name;
    let mut out = format!("## {name}\n\nDescription: {}\n\n", contract.description);
    let parameters = &contract.input_schema.parameters;
    if parameters.is_empty() {
        out.push_str("Parameters: none\n");
    } else {
        out.push_str("Parameters:\n");
        for parameter in parameters {
            let status = if parameter.required {
                "required"
            } else {
                "optional"
            };
            let summary = format!(
                "`{}` ({}, {status})",
                parameter.name, parameter.schema.json_type
            );
            out.push_str(&described_line("- ", &summary, &parameter.schema));
        }
    }
    if let Some(returns) = &contract.returns {
        out.push('\n');
        out.push_str(&described_line(
            "",
            &format!("Returns ({})", returns.json_type),
            returns,
        ));
    }
    let sample = sample_input(&contract.input_schema);
    out.push_str(&format!(
        "\nExample:\n<{name}>\n```json\n{sample:#}\n```\n</{name}>\n"
    ));
    out
}

/// `PREFIX SUMMARY: DESCRIPTION`, then the full schema as an indented JSON block when it says
/// more than a type and a description (D11.1, D11.2).
fn described_line(prefix: &str, summary: &str, schema: &Schema) -> String {
    let mut line = format!("{prefix}{summary}");
    if let Some(description) = &schema.description {
        line.push_str(": ");
        line.push_str(description);
    }
    line.push('\n');
    let complex = schema.title.is_some()
        || !schema.allowed_values.is_empty()
        || schema.items.is_some()
        || !schema.properties.is_empty();
    if complex {
        let json = format!("{:#}", schema.to_json());
        line.push_str("  ```json\n");
        for json_line in json.lines() {
            line.push_str("  ");
            line.push_str(json_line);
            line.push('\n');
        }
        line.push_str("  ```\n");
    }
    line
}

/// The example call's input: every parameter with its sample value (D11.3).
pub fn sample_input(input: &InputSchema) -> Value {
    let sample = input
        .parameters
        .iter()
        .map(|parameter| (parameter.name.clone(), sample_value(&parameter.schema)))
        .collect::<Map<_, _>>();
    Value::Object(sample)
}

fn sample_value(schema: &Schema) -> Value {
    if let Some(first) = schema.allowed_values.first() {
        return first.clone();
    }
    match schema.json_type {
        JsonType::String => "string".into(),
        JsonType::Integer | JsonType::Number => 0.into(),
        JsonType::Boolean => true.into(),
        JsonType::Object => Value::Object(Map::new()),
        JsonType::Array => Value::Array(
            schema
                .items
                .iter()
                .map(|items| sample_value(items))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::definitions::bundled_contracts;

    #[test]
    fn renders_get_weather_as_seed_004_describes() {
        let contracts = bundled_contracts().unwrap();
        let weather = contracts.iter().find(|c| c.name == "GetWeather").unwrap();
        assert_eq!(
            render_prompt(std::slice::from_ref(weather)),
            "## GetWeather

Description: Get the current weather for a location. From seed 004 (\"Weather Query Tool\").

Parameters:
- `location` (string, required): The city and state, e.g. San Francisco, CA
- `unit` (string, optional): The temperature unit to use
  ```json
  {
    \"type\": \"string\",
    \"description\": \"The temperature unit to use\",
    \"enum\": [
      \"celsius\",
      \"fahrenheit\"
    ]
  }
  ```

Returns (object): The current conditions and temperature

Example:
<GetWeather>
```json
{
  \"location\": \"string\",
  \"unit\": \"celsius\"
}
```
</GetWeather>
"
        );
    }

    #[test]
    fn every_bundled_sample_validates_against_its_tool() {
        for contract in bundled_contracts().unwrap() {
            let tool = contract.to_tool().unwrap();
            assert_eq!(
                tool.validate(&sample_input(&contract.input_schema)),
                Ok(()),
                "{}",
                contract.name
            );
        }
    }

    #[test]
    fn tools_without_parameters_say_so() {
        let contracts = bundled_contracts().unwrap();
        let shop = contracts
            .iter()
            .find(|c| c.name == "add_random_item_to_shop")
            .unwrap();
        let prompt = render_prompt(std::slice::from_ref(shop));
        assert!(prompt.contains("\nParameters: none\n"), "{prompt}");
        assert!(
            prompt.ends_with(
                "<add_random_item_to_shop>\n```json\n{}\n```\n</add_random_item_to_shop>\n"
            ),
            "{prompt}"
        );
    }
}
