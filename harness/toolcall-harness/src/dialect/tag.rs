//! The `tag` reference parser (`specs/dialects/tag.md`): `<NAME>` openers for registry names
//! around a JSON object, bare or fenced, up to `</NAME>`. A state machine that holds back only a
//! possible opener, an opener waiting for the character that decides (T2.2), or a started call
//! up to its closer, and releases everything else as soon as it arrives.
//!
//! Every byte is looked at once (a failed opener prefix is looked at again only when a name
//! contains `<`, and then at most the length of a name). Text is skipped to the next `<` with
//! `memchr`, and so is a call's content while no part of its closer is pending; the closer is
//! matched by an automaton whose state survives chunk boundaries. Cuts fall next to ASCII
//! syntax bytes or between whole characters.

mod call;
mod eager;
mod names;

use super::descriptor::{CallAround, Descriptor, OwnParser, Parser, Values};
use std::mem;
use std::ops::Range;
use std::sync::Arc;

use memchr::memchr;

use crate::dialect::json::is_blank;
use crate::dialect::output::Output;
use crate::dialect::scan::LiteralFinder;
use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;

pub use call::CallError;
pub use eager::may_hold;
use names::TagNames;

/// Where the scan is; `tag` indexes [`TagNames`].
#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Outside any tag: text, released as it arrives.
    Text,
    /// `<` and `matched` bytes that begin the openers of the names in `candidates` (T5.1).
    Opener {
        candidates: Range<usize>,
        matched: usize,
    },
    /// A complete opener and the blanks after it, until the next character decides (T2.2).
    AfterOpener { tag: usize },
    /// A started call: its text up to here is held while `closer` looks for its `</NAME>`
    /// (T2.4) across chunks.
    Call { tag: usize, closer: LiteralFinder },
}

/// How `tag`'s parser is built, apart from the kit: its markers are the registry's tool tags.
static OWN: OwnParser = OwnParser {
    new: |tools| Box::new(TagParser::new(tools)),
    may_hold,
    markers: |tools| {
        tools
            .tools()
            .iter()
            .flat_map(|t| [format!("<{}>", t.name), format!("</{}>", t.name)])
            .collect()
    },
};

/// `tag`, described (`Dialect::Tag`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "tag",
    models: "seed 004",
    parser: Parser::Own(&OWN),
    default_prefill: "",
    call: CallAround {
        before: "<GetWeather>{\"location\": \"",
        after: "\"}</GetWeather>\n",
        values: Values::Json,
    },
    fragments: &[
        "<GetWeather>",
        "</GetWeather>",
        "<Get",
        "<read_file>",
        "</read_file>",
        "<BookRestaurant>",
        "</",
        "```json\n",
        "\"location\":\"Paris\"",
        "\"path\":\"/etc/hosts\"",
    ],
    prefills: &[],
    samples: &["<GetWeather>```json\n{\"location\":\"Paris\"}```</GetWeather>"],
};

/// The reference parser for `<ToolName>{json}</ToolName>` calls.
#[derive(Debug)]
pub struct TagParser {
    tools: Arc<Registry>,
    names: TagNames,
    state: State,
    /// Absolute offset of the next input byte.
    pos: usize,
    /// Held-back input: an opener prefix, an opener and blanks, or an open call.
    held: String,
    /// Text released by the current `push`, emitted as one delta before any other event.
    output: Output,
}

impl TagParser {
    /// A parser at the start of a stream; its tags are the names of `tools`, and a call's input
    /// is checked against its tool's schema (T1.1, T4.1).
    pub fn new(tools: Arc<Registry>) -> Self {
        TagParser {
            names: TagNames::new(&tools),
            tools,
            state: State::Text,
            pos: 0,
            held: String::new(),
            output: Output::default(),
        }
    }

    fn consume(&mut self, input: &str) {
        self.pos += input.len();
        if self.state == State::Text {
            self.output.push_str(input);
        } else {
            self.held.push_str(input);
        }
    }

    /// Whatever is held turns out to be text.
    fn release_held(&mut self) {
        self.state = State::Text;
        self.output.push_str(&self.held);
        self.held.clear();
    }

    fn feed(&mut self, input: &str, out: &mut Vec<Event>) {
        let mut i = 0;
        while i < input.len() {
            i = self.step(input, i, out);
        }
    }

    /// Handles the input at `input[i..]` in the current state; returns the next index. A step
    /// either consumes input or changes state without consuming it.
    fn step(&mut self, input: &str, i: usize, out: &mut Vec<Event>) -> usize {
        let bytes = input.as_bytes();
        // The state is matched in place: a clone would copy a call's closer finder at every
        // step, two allocations per chunk while a call is open.
        match &mut self.state {
            State::Text => {
                let Some(lt) = memchr(b'<', &bytes[i..]).map(|p| i + p) else {
                    self.consume(&input[i..]);
                    return input.len();
                };
                self.consume(&input[i..lt]);
                if !self.names.is_empty() {
                    self.state = State::Opener {
                        candidates: self.names.all(),
                        matched: 0,
                    };
                }
                self.consume("<");
                lt + 1
            }
            State::Opener {
                candidates,
                matched,
            } => {
                let (candidates, matched) = (candidates.clone(), *matched);
                // Names may hold any character: match whole characters, so that a failed
                // prefix is always cut between two of them.
                let end = i + input[i..].chars().next().map_or(1, char::len_utf8);
                let next = &input[i..end];
                let candidates = self.names.narrow(candidates, matched, next.as_bytes());
                if candidates.is_empty() {
                    self.release_failed_opener();
                    return i;
                }
                self.consume(next);
                let matched = matched + next.len();
                self.state = match self.names.complete(&candidates, matched) {
                    Some(tag) => State::AfterOpener { tag },
                    None => State::Opener {
                        candidates,
                        matched,
                    },
                };
                end
            }
            State::AfterOpener { tag } => match (*tag, bytes[i]) {
                (_, b) if is_blank(b) => {
                    let end = i + bytes[i..].iter().take_while(|&&b| is_blank(b)).count();
                    self.consume(&input[i..end]);
                    end
                }
                (tag, b'{' | b'`') => {
                    self.state = State::Call {
                        tag,
                        closer: self.names.tag(tag).closer.clone(),
                    };
                    self.consume(&input[i..=i]);
                    i + 1
                }
                // A name mentioned in prose; scanning resumes at this character.
                _ => {
                    self.release_held();
                    i
                }
            },
            State::Call { tag, closer } => {
                let tag = *tag;
                match closer.find(&input[i..]) {
                    Some(length) => {
                        // Just past the closer's `>`.
                        self.consume(&input[i..i + length]);
                        self.close_call(tag, out);
                        i + length
                    }
                    None => {
                        self.consume(&input[i..]);
                        input.len()
                    }
                }
            }
        }
    }

    /// An opener prefix that no name continues is text; the character that ruled it out is
    /// scanned again (it may be the `<` of another opener). Names hold no `<`
    /// (`specs/definitions.md` D3.7), so nothing inside the failed prefix can start one.
    fn release_failed_opener(&mut self) {
        self.state = State::Text;
        let failed = mem::take(&mut self.held);
        self.output.push_str(&failed);
    }

    /// The closer's `>` was just consumed: the held block is a call or, if invalid, an error
    /// and its text.
    fn close_call(&mut self, tag: usize, out: &mut Vec<Event>) {
        self.state = State::Text;
        let block = mem::take(&mut self.held);
        let name = self.names.tag(tag);
        let content = block
            .get(name.opener_len()..block.len().saturating_sub(name.closer.len()))
            .unwrap_or("");
        let tool = &self.tools.tools()[name.tool];
        let read = call::interpret(content, tool).map(|input| {
            [Event::call(
                self.output.generated_id(),
                tool.name.clone(),
                input,
            )]
        });
        self.output
            .settle(read, self.pos - block.len()..self.pos, &block, out);
    }
}

impl StreamParser for TagParser {
    fn push(&mut self, chunk: &str, out: &mut Vec<Event>) {
        self.feed(chunk, out);
        self.output.flush(out);
    }

    fn finish(&mut self, out: &mut Vec<Event>) {
        if matches!(self.state, State::Call { .. }) {
            self.state = State::Text;
            let block = mem::take(&mut self.held);
            self.output.reject(CallError::Unterminated, &block, out);
        } else {
            // An opener prefix, or an opener that no call followed (T2.2).
            self.release_held();
        }
        self.output.flush(out);
    }

    fn call_spans(&self) -> &[Range<usize>] {
        self.output.spans()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::parser::run;
    use serde_json::json;

    /// Seed 004's two tools with its schemas, as bundled in `specs/tools/` (with the others).
    pub(in crate::dialect) fn seed_registry() -> Registry {
        crate::definitions::bundled_registry().expect("the bundled tools load")
    }

    fn parser() -> TagParser {
        TagParser::new(Arc::new(seed_registry()))
    }

    /// The events of `chunks`, as JSON lines, with adjacent text merged.
    fn events(chunks: &[&str]) -> Vec<String> {
        let events = run(&mut parser(), chunks.iter().copied()).events;
        crate::normalize::Normalize::default()
            .apply(&events)
            .iter()
            .map(Event::to_json_line)
            .collect()
    }

    fn text(delta: &str) -> String {
        Event::text(delta).to_json_line()
    }

    fn weather_call(n: usize, location: &str) -> String {
        format!(
            r#"{{"type":"tool-call","toolCallId":"tool-call-{n}","toolName":"GetWeather","input":{{"location":"{location}"}}}}"#
        )
    }

    #[test]
    fn a_name_in_prose_is_text() {
        let stream = "Use <GetWeather> or <getweather> or </GetWeather>, <GetWeather>\nnot <Foo>{}";
        assert_eq!(events(&[stream]), [text(stream)]);
    }

    #[test]
    fn a_bare_object_call() {
        assert_eq!(
            events(&["Sure. <GetWeather> {\"location\": \"Paris\"} </GetWeather> Done."]),
            [text("Sure. "), weather_call(1, "Paris"), text(" Done.")]
        );
    }

    #[test]
    fn the_seeds_fenced_call() {
        let stream = "I'll get the weather.\n\n<GetWeather>\n```json\n{\n  \"location\": \"San Francisco, CA\",\n  \"unit\": \"fahrenheit\"\n}\n```\n</GetWeather>\n";
        assert_eq!(
            events(&[stream]),
            [
                text("I'll get the weather.\n\n"),
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"GetWeather","input":{"location":"San Francisco, CA","unit":"fahrenheit"}}"#.to_owned(),
                text("\n"),
            ]
        );
    }

    #[test]
    fn a_schema_violation_is_an_error_then_text() {
        let block = "<BookRestaurant>{\"restaurantName\": \"Chez Paul\"}</BookRestaurant>";
        let events = events(&["a", block, "b"]);
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(events[0], text("a"));
        assert!(
            events[1].starts_with(
                r#"{"type":"error","errorText":"tool call input does not match the schema of BookRestaurant"#
            ),
            "{events:?}"
        );
        assert_eq!(events[2], text(&format!("{block}b")));
    }

    #[test]
    fn an_unterminated_call_is_an_error_then_text() {
        assert_eq!(
            events(&["x<GetWeather>{\"location\": \"Paris\"}</GetWeather"]),
            [
                text("x"),
                Event::error("unterminated tool call").to_json_line(),
                text("<GetWeather>{\"location\": \"Paris\"}</GetWeather"),
            ]
        );
    }

    #[test]
    fn calls_are_numbered_among_recognised_calls_only() {
        let stream = "<GetWeather>{\"location\": \"A\"}</GetWeather> and <GetWeather>{}</GetWeather>\
                      then <GetWeather>{\"location\": \"B\"}</GetWeather>";
        let events = events(&[stream]);
        assert_eq!(events.len(), 5, "{events:?}");
        assert_eq!(events[0], weather_call(1, "A"));
        assert_eq!(events[1], text(" and "));
        assert!(
            events[2].contains("does not match the schema"),
            "{events:?}"
        );
        assert_eq!(events[3], text("<GetWeather>{}</GetWeather>then "));
        assert_eq!(events[4], weather_call(2, "B"));
        let spans = run(&mut parser(), [stream]).call_spans;
        let second = stream.rfind("<GetWeather>").unwrap_or_default();
        assert_eq!(spans, [0..42, second..stream.len()]);
    }

    #[test]
    fn the_first_closer_ends_the_call() {
        let stream = "<GetWeather>{\"location\": \"</GetWeather>\"}</GetWeather>";
        let events = events(&[stream]);
        assert_eq!(events.len(), 2, "{events:?}");
        assert!(
            events[0].starts_with(r#"{"type":"error","errorText":"invalid JSON in tool call"#),
            "{events:?}"
        );
        assert_eq!(events[1], text(stream));
    }

    #[test]
    fn holds_only_what_may_still_be_a_call() {
        let mut parser = parser();
        let mut out = Vec::new();
        parser.push("Hi <Get", &mut out);
        assert_eq!(out, [Event::text("Hi ")]);
        parser.push("Weather> \n", &mut out);
        assert_eq!(out.len(), 1);
        parser.push("{\"location\": \"Paris\"}</Get", &mut out);
        assert_eq!(out.len(), 1);
        parser.push("Weather>!<Gex", &mut out);
        assert_eq!(
            out[1..],
            [
                Event::call("tool-call-1", "GetWeather", json!({"location": "Paris"})),
                Event::text("!<Gex"),
            ]
        );
    }

    #[test]
    fn one_char_per_chunk_gives_the_same_events() {
        let stream = "<<GetWeather>\n<GetWeather> ```json\n{\"location\": \"Zürich 😀\"}\n```</GetWeather></Get é";
        let chars: Vec<String> = stream.chars().map(String::from).collect();
        let per_char = events(&chars.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(per_char, events(&[stream]));
        assert_eq!(per_char[1], weather_call(1, "Zürich 😀"));
    }
}
