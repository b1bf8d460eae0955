//! The wire rules of `specs/wire.md` §3, judged on one stream's chunks as they come: a
//! [`WireJudge`] sees each chunk, `[DONE]` and the end, and keeps the first [`Breach`] of each
//! [`Rule`], with the severity the rule carries (`specs/wire.md` §4). (The non-streaming
//! response's rules are judged in [`completion`](super::completion), with the same types.)

use std::collections::BTreeSet;
use std::fmt;

use serde_json::Value;

use super::client::schema_problem;
use crate::judge::Severity;
use crate::protocol::{RequestOptions, ToolChoice, lenient};

/// A rule of `specs/wire.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// W1.1: every chunk is a `chat.completion.chunk` with a `choices` array.
    ChunkObject,
    /// W1.2: every chunk passes the AI SDK's chunk schema.
    ChunkSchema,
    /// W1.3: the stream ends with `[DONE]`, once.
    DoneOnce,
    /// W1.4: nothing follows `[DONE]`.
    NothingAfterDone,
    /// W1.5: a stream is not cut off by an error (the server's error chunk).
    ErrorChunk,
    /// W2.1: one choice per chunk, with the `index` of the choice it answers (0 for one).
    OneChoice,
    /// W3.1: the first chunk's delta has `role: "assistant"`.
    RoleFirst,
    /// W3.2: no later delta repeats `role`.
    RoleOnce,
    /// W4.1: a call's first delta carries `id` and `function.name`.
    FirstDeltaNamesTheCall,
    /// W4.2: a call's first delta carries `type: "function"`.
    FirstDeltaType,
    /// W4.3: later deltas of a call carry neither `id` nor `function.name`.
    NoRepeatedIdOrName,
    /// W4.4: `index` counts calls from 0.
    ContiguousIndex,
    /// W4.5: a call's first delta carries no arguments.
    ArgumentsAfterFirstDelta,
    /// W4.6: a call's arguments concatenate to the JSON text of an object.
    ArgumentsAreJson,
    /// W5.2: one reasoning field.
    OneReasoningField,
    /// W5.3: nothing after the finish.
    NothingAfterFinish,
    /// W6.1: exactly one chunk carries a `finish_reason`.
    FinishOnce,
    /// W6.2: `finish_reason` says why the choice ended.
    FinishReason,
    /// W7.1: a chunk with no choice is the usage chunk, last.
    UsageChunk,
    /// W7.2: `usage` only on the usage chunk.
    UsageOnlyThere,
    /// W8.1: the non-streaming answer is one `chat.completion` object that passes the schema.
    CompletionObject,
    /// W8.2: every call of the non-streaming message has an `id` and a `function.name`.
    CompletionCallNamed,
    /// W8.3: every call of the non-streaming message has `type: "function"`.
    CompletionCallType,
    /// W8.4: the non-streaming message has `role: "assistant"`.
    CompletionRole,
}

impl Rule {
    /// Every rule, in spec order.
    pub const ALL: [Rule; 24] = [
        Rule::ChunkObject,
        Rule::ChunkSchema,
        Rule::DoneOnce,
        Rule::NothingAfterDone,
        Rule::ErrorChunk,
        Rule::OneChoice,
        Rule::RoleFirst,
        Rule::RoleOnce,
        Rule::FirstDeltaNamesTheCall,
        Rule::FirstDeltaType,
        Rule::NoRepeatedIdOrName,
        Rule::ContiguousIndex,
        Rule::ArgumentsAfterFirstDelta,
        Rule::ArgumentsAreJson,
        Rule::OneReasoningField,
        Rule::NothingAfterFinish,
        Rule::FinishOnce,
        Rule::FinishReason,
        Rule::UsageChunk,
        Rule::UsageOnlyThere,
        Rule::CompletionObject,
        Rule::CompletionCallNamed,
        Rule::CompletionCallType,
        Rule::CompletionRole,
    ];

    /// Its id in `specs/wire.md` (`W4.3`).
    pub fn id(self) -> &'static str {
        match self {
            Rule::ChunkObject => "W1.1",
            Rule::ChunkSchema => "W1.2",
            Rule::DoneOnce => "W1.3",
            Rule::NothingAfterDone => "W1.4",
            Rule::ErrorChunk => "W1.5",
            Rule::OneChoice => "W2.1",
            Rule::RoleFirst => "W3.1",
            Rule::RoleOnce => "W3.2",
            Rule::FirstDeltaNamesTheCall => "W4.1",
            Rule::FirstDeltaType => "W4.2",
            Rule::NoRepeatedIdOrName => "W4.3",
            Rule::ContiguousIndex => "W4.4",
            Rule::ArgumentsAfterFirstDelta => "W4.5",
            Rule::ArgumentsAreJson => "W4.6",
            Rule::OneReasoningField => "W5.2",
            Rule::NothingAfterFinish => "W5.3",
            Rule::FinishOnce => "W6.1",
            Rule::FinishReason => "W6.2",
            Rule::UsageChunk => "W7.1",
            Rule::UsageOnlyThere => "W7.2",
            Rule::CompletionObject => "W8.1",
            Rule::CompletionCallNamed => "W8.2",
            Rule::CompletionCallType => "W8.3",
            Rule::CompletionRole => "W8.4",
        }
    }

    /// What a client would suffer (`specs/wire.md` §4).
    pub fn severity(self) -> Severity {
        match self {
            Rule::ChunkObject
            | Rule::ChunkSchema
            | Rule::ErrorChunk
            | Rule::CompletionObject
            | Rule::CompletionCallNamed
            | Rule::FirstDeltaNamesTheCall
            | Rule::NoRepeatedIdOrName
            | Rule::ContiguousIndex
            | Rule::ArgumentsAreJson => Severity::Critical,
            Rule::NothingAfterDone
            | Rule::NothingAfterFinish
            | Rule::FinishOnce
            | Rule::FinishReason => Severity::High,
            Rule::OneChoice | Rule::RoleOnce | Rule::OneReasoningField | Rule::UsageChunk => {
                Severity::Medium
            }
            Rule::DoneOnce
            | Rule::RoleFirst
            | Rule::FirstDeltaType
            | Rule::ArgumentsAfterFirstDelta
            | Rule::UsageOnlyThere
            | Rule::CompletionCallType
            | Rule::CompletionRole => Severity::Low,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// One rule broken, with what showed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breach {
    /// The rule.
    pub rule: Rule,
    /// What the chunks did, naming the chunk (counted from 1) where it can.
    pub detail: String,
}

impl fmt::Display for Breach {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}): {}",
            self.rule,
            self.rule.severity(),
            self.detail
        )
    }
}

/// A call as the judge follows it.
#[derive(Debug)]
struct Call {
    index: i64,
    arguments: String,
}

/// The judge of one stream's chunks.
#[derive(Debug, Default)]
pub struct WireJudge {
    /// Chunks seen, `[DONE]` not counted.
    chunks: usize,
    /// Chunks with a choice seen.
    chunks_with_choice: usize,
    /// `[DONE]` lines seen.
    dones: usize,
    /// The chunk with the first `finish_reason`, and how many carried one.
    finished_at: Option<usize>,
    finishes: usize,
    /// The chunk of the usage chunk (`choices: []` with `usage`).
    usage_at: Option<usize>,
    /// Whether the server wrote its error chunk (W1.5): no finish is due after it.
    errored: bool,
    calls: Vec<Call>,
    reasoning_fields: BTreeSet<&'static str>,
    breaches: Vec<Breach>,
    /// The choice whose chunks these are (`specs/protocol.md` P6.7): the `index` W2.1 wants.
    choice: u32,
    /// Whether another choice of the request ends after this one: then `[DONE]` comes in
    /// that choice's answer, not in this one's (W1.3).
    before_last_choice: bool,
    /// Whether the request named the tool to call: then `stop` after its call is a reading
    /// the API itself gives (W6.2), not a breach.
    named_tool_choice: bool,
}

impl WireJudge {
    /// The judge of choice `choice`'s chunks of a request with `options`
    /// (`specs/protocol.md` §6).
    pub fn for_choice(options: &RequestOptions, choice: u32) -> WireJudge {
        WireJudge {
            choice,
            before_last_choice: choice + 1 < options.choices(),
            named_tool_choice: matches!(options.tool_choice, Some(ToolChoice::Named(_))),
            ..WireJudge::default()
        }
    }

    /// Judges the next chunk.
    pub fn chunk(&mut self, chunk: &Value) {
        self.chunks += 1;
        let n = self.chunks;
        if self.dones > 0 {
            self.breach(Rule::NothingAfterDone, format!("chunk {n} follows [DONE]"));
        }
        if chunk.get("choices").is_none() && chunk["error"].is_object() {
            self.errored = true;
            self.breach(
                Rule::ErrorChunk,
                format!(
                    "chunk {n} is the server's error: {}",
                    chunk["error"]["message"]
                ),
            );
            return;
        }
        if chunk["object"] != "chat.completion.chunk" {
            self.breach(
                Rule::ChunkObject,
                format!("chunk {n} has \"object\": {}", chunk["object"]),
            );
        }
        let Some(choices) = chunk["choices"].as_array() else {
            self.breach(
                Rule::ChunkObject,
                format!("chunk {n} has no \"choices\" array"),
            );
            return;
        };
        if let Some(problem) = schema_problem(chunk) {
            self.breach(Rule::ChunkSchema, format!("chunk {n}: {problem}"));
            return;
        }
        let usage = !chunk["usage"].is_null();
        let Some(choice) = choices.first() else {
            self.usage_chunk(n, usage);
            return;
        };
        self.chunks_with_choice += 1;
        if usage {
            self.breach(
                Rule::UsageOnlyThere,
                format!("chunk {n} carries \"usage\" beside a choice"),
            );
        }
        if let Some(at) = self.usage_at {
            self.breach(
                Rule::UsageChunk,
                format!("chunk {n} has a choice after the usage chunk (chunk {at})"),
            );
        }
        if choices.len() > 1 || choice["index"] != self.choice {
            self.breach(
                Rule::OneChoice,
                format!(
                    "chunk {n} has {} choices, the first with \"index\": {}",
                    choices.len(),
                    choice["index"]
                ),
            );
        }
        let delta = &choice["delta"];
        self.role(n, delta);
        if let Some(at) = self.finished_at
            && carries_output(delta)
        {
            self.breach(
                Rule::NothingAfterFinish,
                format!("chunk {n} carries output after the finish_reason of chunk {at}"),
            );
        }
        self.reasoning(n, delta);
        if let Some(items) = delta["tool_calls"].as_array() {
            for item in items {
                self.tool_call(n, item);
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.finish_reason(n, reason);
        }
    }

    /// Judges a `[DONE]` line.
    pub fn done(&mut self) {
        self.dones += 1;
        if self.dones == 2 {
            self.breach(Rule::DoneOnce, "[DONE] is written twice".to_owned());
        }
    }

    /// Judges the stream's end; the breaches, each rule's first, in the order found.
    pub fn finish(mut self) -> Vec<Breach> {
        if self.dones == 0 && !self.before_last_choice {
            self.breach(Rule::DoneOnce, "the stream ends without [DONE]".to_owned());
        }
        if self.finishes == 0 && self.chunks_with_choice > 0 && !self.errored {
            self.breach(
                Rule::FinishOnce,
                "no chunk carries a finish_reason".to_owned(),
            );
        }
        let unreadable: Vec<String> = self
            .calls
            .iter()
            .filter(|call| !is_json_object(&call.arguments))
            // The call by its index, not its id: many servers invent a random id per call,
            // which would change the report on every run (specs/runner.md R6.6).
            .map(|call| {
                format!(
                    "call {} has the arguments {:?}, not the JSON text of an object",
                    call.index, call.arguments
                )
            })
            .collect();
        for detail in unreadable {
            self.breach(Rule::ArgumentsAreJson, detail);
        }
        self.breaches
    }

    fn usage_chunk(&mut self, n: usize, usage: bool) {
        if !usage {
            self.breach(
                Rule::UsageChunk,
                format!("chunk {n} has no choice and no usage"),
            );
        } else if let Some(at) = self.usage_at {
            self.breach(
                Rule::UsageChunk,
                format!("chunk {n} is a second usage chunk (the first: chunk {at})"),
            );
        } else if self.finished_at.is_none() {
            self.breach(
                Rule::UsageChunk,
                format!("the usage chunk (chunk {n}) comes before the finish_reason"),
            );
        }
        self.usage_at = self.usage_at.or(Some(n));
    }

    fn role(&mut self, n: usize, delta: &Value) {
        let has_role = !delta["role"].is_null();
        if self.chunks_with_choice == 1 && !has_role {
            self.breach(
                Rule::RoleFirst,
                format!("the first chunk (chunk {n}) has no \"role\""),
            );
        } else if self.chunks_with_choice > 1 && has_role {
            self.breach(Rule::RoleOnce, format!("chunk {n} repeats \"role\""));
        }
    }

    fn reasoning(&mut self, n: usize, delta: &Value) {
        let fields: Vec<&'static str> = ["reasoning_content", "reasoning"]
            .into_iter()
            .filter(|field| delta[field].as_str().is_some_and(|r| !r.is_empty()))
            .collect();
        self.reasoning_fields.extend(fields.iter().copied());
        if fields.len() == 2 {
            self.breach(
                Rule::OneReasoningField,
                format!("chunk {n} sets both reasoning_content and reasoning"),
            );
        } else if self.reasoning_fields.len() == 2 && !fields.is_empty() {
            self.breach(
                Rule::OneReasoningField,
                format!(
                    "chunk {n} sets {}, earlier chunks the other reasoning field",
                    fields[0]
                ),
            );
        }
    }

    fn tool_call(&mut self, n: usize, item: &Value) {
        // The schema passed: `index` is a number, `function` an object.
        let index = item["index"].as_f64().unwrap_or_default();
        let function = &item["function"];
        let set = |value: &Value| value.as_str().is_some_and(|s| !s.is_empty());
        let arguments = function["arguments"].as_str().unwrap_or_default();
        if let Some(call) = self.calls.iter_mut().find(|c| c.index as f64 == index) {
            call.arguments.push_str(arguments);
            // The repeated id is named, not quoted: a server's ids are random (R6.6).
            let repeated: Vec<String> = [("id", &item["id"]), ("function.name", &function["name"])]
                .into_iter()
                .filter(|(_, value)| set(value))
                .map(|(field, value)| {
                    if field == "id" {
                        field.to_owned()
                    } else {
                        format!("{field} {value}")
                    }
                })
                .collect();
            if !repeated.is_empty() {
                self.breach(
                    Rule::NoRepeatedIdOrName,
                    format!(
                        "chunk {n}: a later delta of call {index} carries {}",
                        repeated.join(" and ")
                    ),
                );
            }
            return;
        }
        let expected = self.calls.len();
        if index != expected as f64 {
            self.breach(
                Rule::ContiguousIndex,
                format!("chunk {n}: a new call has \"index\": {index}, the next is {expected}"),
            );
        }
        let missing: Vec<&str> = [("id", &item["id"]), ("function.name", &function["name"])]
            .into_iter()
            .filter(|(_, value)| !set(value))
            .map(|(field, _)| field)
            .collect();
        if !missing.is_empty() {
            self.breach(
                Rule::FirstDeltaNamesTheCall,
                format!(
                    "chunk {n}: the first delta of call {index} lacks {}",
                    missing.join(" and ")
                ),
            );
        }
        if item["type"] != "function" {
            self.breach(
                Rule::FirstDeltaType,
                format!(
                    "chunk {n}: the first delta of call {index} has \"type\": {}",
                    item["type"]
                ),
            );
        }
        if !arguments.is_empty() {
            self.breach(
                Rule::ArgumentsAfterFirstDelta,
                format!("chunk {n}: the first delta of call {index} carries arguments"),
            );
        }
        self.calls.push(Call {
            index: index as i64,
            arguments: arguments.to_owned(),
        });
    }

    fn finish_reason(&mut self, n: usize, reason: &str) {
        self.finishes += 1;
        match self.finished_at {
            Some(at) => self.breach(
                Rule::FinishOnce,
                format!("chunk {n} carries a second finish_reason (the first: chunk {at})"),
            ),
            None => self.finished_at = Some(n),
        }
        if let Some(wrong) = wrong_finish_reason(reason, self.calls.len(), self.named_tool_choice) {
            self.breach(Rule::FinishReason, format!("chunk {n} {wrong}"));
        }
    }

    fn breach(&mut self, rule: Rule, detail: String) {
        keep_first(&mut self.breaches, rule, detail);
    }
}

/// Keeps the first breach of each rule: one is enough to say what is wrong, and a rule broken
/// on every delta would otherwise flood the finding.
pub(super) fn keep_first(breaches: &mut Vec<Breach>, rule: Rule, detail: String) {
    if !breaches.iter().any(|b| b.rule == rule) {
        breaches.push(Breach { rule, detail });
    }
}

/// What is wrong with `finish_reason` `reason` after `calls` tool calls (W6.2), or `None`.
/// `named_tool_choice`: the request named the tool to call, after which the API itself
/// finishes with `stop` (W6.2).
pub(super) fn wrong_finish_reason(
    reason: &str,
    calls: usize,
    named_tool_choice: bool,
) -> Option<String> {
    let wrong = match reason {
        "tool_calls" => calls == 0,
        "stop" => calls > 0 && !named_tool_choice,
        "length" | "content_filter" => false,
        _ => true,
    };
    wrong.then(|| {
        let had = if calls > 0 {
            format!("{calls} tool calls")
        } else {
            "no tool call".to_owned()
        };
        format!("has \"finish_reason\": {reason:?} after {had}")
    })
}

/// Whether a delta carries content, reasoning or tool calls.
fn carries_output(delta: &Value) -> bool {
    let text = |field: &str| delta[field].as_str().is_some_and(|s| !s.is_empty());
    text("content")
        || text("reasoning_content")
        || text("reasoning")
        || delta["tool_calls"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
}

/// Whether `text` is the JSON text of an object, as `JSON.parse` and `json.loads` read it: a
/// `__proto__` key is data (`specs/streaming.md` C8.5), though the AI SDK's `isParsableJson`
/// refuses it (it then finishes the call at the end, with the same text).
pub(super) fn is_json_object(text: &str) -> bool {
    lenient::read_json_text(text).is_ok_and(|(value, _)| value.is_object())
}

#[cfg(test)]
mod tests;
