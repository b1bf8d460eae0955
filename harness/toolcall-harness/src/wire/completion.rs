//! A server's non-streaming answer (`specs/protocol.md` P5.7): one `chat.completion` object,
//! read as the AI SDK's `doGenerate` reads a response body (`specs/wire.md` W0.4) and judged
//! against the non-streaming response's rules (`specs/wire.md` §3: W8.1 to W8.4, and W2.1, W4.6,
//! W5.2, W6.1, W6.2, which a message breaks as a stream does).

use serde_json::{Value, json};

use crate::protocol::{RequestOptions, ToolChoice};

use super::client::{Shape, body_problem, error, server_error};
use super::rules::{Breach, Rule, is_json_object, keep_first, wrong_finish_reason};

/// One non-streaming answer's lines: the object, and anything written beside it.
#[derive(Debug, Default)]
pub struct CompletionReader {
    /// Lines read, `[DONE]` included.
    lines: usize,
    breaches: Vec<Breach>,
    /// Whether the request named the tool to call (`stop` after it is the API's, W6.2).
    named_tool_choice: bool,
}

impl CompletionReader {
    /// The reader of the answer to a request with `options` (`specs/protocol.md` §6).
    pub fn for_request(options: &RequestOptions) -> CompletionReader {
        CompletionReader {
            named_tool_choice: matches!(options.tool_choice, Some(ToolChoice::Named(_))),
            ..CompletionReader::default()
        }
    }

    /// Reads one JSON object line: the first is the answer (its events); any other line
    /// breaks W8.1 and gives nothing.
    pub fn object(&mut self, value: &Value) -> Vec<Value> {
        self.lines += 1;
        if self.lines > 1 {
            self.breach(
                Rule::CompletionObject,
                format!("line {} follows the chat.completion object", self.lines),
            );
            return Vec::new();
        }
        let (events, breaches) = read(value, self.named_tool_choice);
        for breach in breaches {
            self.breach(breach.rule, breach.detail);
        }
        events
    }

    /// Reads a `[DONE]` line, which a non-streaming answer does not have (W8.1).
    pub fn done(&mut self) {
        self.lines += 1;
        self.breach(
            Rule::CompletionObject,
            format!(
                "line {} is [DONE], which only a stream ends with",
                self.lines
            ),
        );
    }

    /// The answer's end: the breaches, each rule's first.
    pub fn finish(mut self) -> Vec<Breach> {
        if self.lines == 0 {
            self.breach(
                Rule::CompletionObject,
                "no chat.completion object".to_owned(),
            );
        }
        self.breaches
    }

    fn breach(&mut self, rule: Rule, detail: String) {
        keep_first(&mut self.breaches, rule, detail);
    }
}

/// The events of one `chat.completion` object (W0.4) and the rules it breaks;
/// `named_tool_choice` as in [`CompletionReader::for_request`].
pub fn read(completion: &Value, named_tool_choice: bool) -> (Vec<Value>, Vec<Breach>) {
    let mut breaches = Vec::new();
    let mut breach = |rule, detail| keep_first(&mut breaches, rule, detail);
    if completion["object"] != "chat.completion" {
        breach(
            Rule::CompletionObject,
            format!("\"object\" is {}", completion["object"]),
        );
    }
    let problem = body_problem(completion, Shape::Message).or_else(|| {
        // `responseBody.choices[0].message`: a TypeError without a first choice.
        completion["choices"][0]
            .is_null()
            .then(|| "choices: no choices[0]".to_owned())
    });
    if let Some(problem) = problem {
        breach(Rule::CompletionObject, problem.clone());
        // `doGenerate` throws: the application gets the error and no message.
        let text = server_error(completion)
            .unwrap_or_else(|| format!("Type validation failed: {problem}. Value: {completion}"));
        return (vec![error(text)], breaches);
    }
    let choices = completion["choices"].as_array().map_or(0, Vec::len);
    let choice = &completion["choices"][0];
    if choices > 1 || choice["index"] != 0 {
        breach(
            Rule::OneChoice,
            format!(
                "{choices} choices, the first with \"index\": {}",
                choice["index"]
            ),
        );
    }
    let message = &choice["message"];
    if message["role"] != "assistant" {
        breach(
            Rule::CompletionRole,
            format!("the message has \"role\": {}", message["role"]),
        );
    }
    let non_empty = |value: &Value| value.as_str().filter(|s| !s.is_empty()).map(str::to_owned);
    let mut events = Vec::new();
    let (reasoning_content, reasoning) = (
        non_empty(&message["reasoning_content"]),
        non_empty(&message["reasoning"]),
    );
    if reasoning_content.is_some() && reasoning.is_some() {
        breach(
            Rule::OneReasoningField,
            "the message sets both reasoning_content and reasoning".to_owned(),
        );
    }
    // `reasoning_content ?? reasoning`: `??` passes over null and absent, not over "".
    let reasoning = if message["reasoning_content"].is_null() {
        reasoning
    } else {
        reasoning_content
    };
    if let Some(reasoning) = reasoning {
        events.push(json!({"type": "reasoning-delta", "delta": reasoning}));
    }
    if let Some(content) = non_empty(&message["content"]) {
        events.push(json!({"type": "text-delta", "delta": content}));
    }
    let no_calls = Vec::new();
    let calls = message["tool_calls"].as_array().unwrap_or(&no_calls);
    for (i, call) in calls.iter().enumerate() {
        let function = &call["function"];
        // The schema passed: `name` and `arguments` are strings.
        let name = function["name"].as_str().unwrap_or_default();
        let arguments = function["arguments"].as_str().unwrap_or_default();
        let id = non_empty(&call["id"]);
        let missing: Vec<&str> = [("id", id.is_none()), ("function.name", name.is_empty())]
            .into_iter()
            .filter_map(|(field, missing)| missing.then_some(field))
            .collect();
        if !missing.is_empty() {
            breach(
                Rule::CompletionCallNamed,
                format!("call {i} lacks {}", missing.join(" and ")),
            );
        }
        if call["type"] != "function" {
            breach(
                Rule::CompletionCallType,
                format!("call {i} has \"type\": {}", call["type"]),
            );
        }
        if !is_json_object(arguments) {
            breach(
                Rule::ArgumentsAreJson,
                format!("call {i} has the arguments {arguments:?}, not the JSON text of an object"),
            );
        }
        // `toolCall.id ?? generateId()`: an empty id is kept, a missing one invented.
        let id = call["id"]
            .as_str()
            .map_or_else(|| format!("generated-{i}"), str::to_owned);
        events.push(
            json!({"type": "tool-call", "toolCallId": id, "toolName": name, "input": arguments}),
        );
    }
    match choice["finish_reason"].as_str() {
        None => breach(
            Rule::FinishOnce,
            "the choice has no finish_reason".to_owned(),
        ),
        Some(reason) => {
            if let Some(wrong) = wrong_finish_reason(reason, calls.len(), named_tool_choice) {
                breach(Rule::FinishReason, format!("the choice {wrong}"));
            }
        }
    }
    (events, breaches)
}

#[cfg(test)]
mod tests;
