//! The streams `superlinear` is judged on (`specs/runner.md` R8.1): per dialect, three
//! families that each grow one way, built to a size in bytes. Each dialect's call is the one
//! its descriptor writes around one string argument (`Descriptor::call`), so that the
//! families differ only in what grows.

use std::fmt;
use std::str::FromStr;

use crate::dialect::{CallAround, Dialect};

/// A way a stream grows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// One call whose string argument grows: the buffer of an open call.
    OneCall,
    /// Prose and nothing else: text a parser must release as it comes.
    Prose,
    /// A short paragraph then a small call, again and again: many calls one after the other.
    ManyCalls,
}

impl Family {
    /// Every family, in report order.
    pub const ALL: [Family; 3] = [Family::OneCall, Family::Prose, Family::ManyCalls];

    /// Its name in case ids (`hermes/scaling/one-call`) and `tch scale --family`.
    pub fn name(self) -> &'static str {
        match self {
            Family::OneCall => "one-call",
            Family::Prose => "prose",
            Family::ManyCalls => "many-calls",
        }
    }

    /// A stream of this family in `dialect`, of at least `bytes` bytes (and at most one
    /// call's or paragraph's length more).
    pub fn stream(self, dialect: Dialect, bytes: usize) -> String {
        let CallAround { before, after, .. } = dialect.descriptor().call;
        match self {
            Family::OneCall => {
                let mut stream = String::with_capacity(bytes + before.len() + after.len());
                stream.push_str(intro(dialect));
                stream.push_str(&numbered(before, 1));
                grow(
                    &mut stream,
                    bytes.saturating_sub(after.len()),
                    ARGUMENT_WORDS,
                );
                stream.push_str(after);
                stream
            }
            Family::Prose => {
                let mut stream = String::with_capacity(bytes + PROSE.len());
                grow(&mut stream, bytes, PROSE);
                stream
            }
            Family::ManyCalls => {
                let mut stream = String::with_capacity(bytes + PARAGRAPH.len() + 256);
                let mut calls = 0;
                // Where a call must come first, each paragraph follows its call instead: stray
                // text in the reply's list of calls.
                let first = dialect.calls_come_first();
                while stream.len() < bytes {
                    calls += 1;
                    if !first {
                        stream.push_str(PARAGRAPH);
                    }
                    stream.push_str(&numbered(before, calls));
                    stream.push_str("Paris");
                    stream.push_str(after);
                    stream.push('\n');
                    if first {
                        stream.push_str(PARAGRAPH);
                    }
                }
                stream
            }
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Family {
    type Err = String;

    fn from_str(name: &str) -> Result<Family, String> {
        crate::named::parse(&Family::ALL, Family::name, "family", name)
    }
}

/// The prose before [`Family::OneCall`]'s call: none where a call must come first.
fn intro(dialect: Dialect) -> &'static str {
    if dialect.calls_come_first() {
        ""
    } else {
        "Let me look that up.\n"
    }
}

/// What a growing argument is made of: words that need no escaping in any dialect.
const ARGUMENT_WORDS: &str = "lorem ipsum dolor sit amet consectetur adipiscing elit ";

/// A line of prose with the punctuation replies carry, and nothing any dialect reads as markup.
const PROSE: &str =
    "The forecast for Paris is mild, with a light breeze (about 12 km/h) and some sun.\n";

/// The prose before each call of [`Family::ManyCalls`]: calls are about 1 in 4 bytes.
const PARAGRAPH: &str = "Checking the next city now. The last one was sunny, so this one may be too; let us see what the service says.\n";

/// `before` with its call number (`{n}`, where a dialect's call ids carry one: ids are
/// unique within a stream) set to `n`.
fn numbered(before: &str, n: usize) -> String {
    before.replace("{n}", &n.to_string())
}

/// Appends copies of `unit` until `stream` holds `bytes` bytes (the last copy cut short).
fn grow(stream: &mut String, bytes: usize, unit: &str) {
    while stream.len() + unit.len() <= bytes {
        stream.push_str(unit);
    }
    // Every unit is ASCII, so any cut is a char boundary.
    let left = bytes.saturating_sub(stream.len());
    stream.push_str(&unit[..left.min(unit.len())]);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::definitions::bundled_registry;
    use crate::event::Event;

    fn parse(dialect: Dialect, stream: &str) -> Vec<Event> {
        let tools = Arc::new(bundled_registry().expect("the bundled tools"));
        crate::parser::run(&mut *dialect.reference_parser(&tools, ""), [stream]).events
    }

    fn calls(events: &[Event]) -> Vec<&serde_json::Value> {
        events
            .iter()
            .filter_map(|e| match e {
                Event::ToolCall(call) => Some(&call.input),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn every_dialect_reads_its_growing_call_as_one_call_holding_the_argument() {
        for &dialect in Dialect::ALL {
            let stream = Family::OneCall.stream(dialect, 4096);
            let events = parse(dialect, &stream);
            assert!(
                !events.iter().any(|e| matches!(e, Event::Error { .. })),
                "{dialect}: {events:?}"
            );
            let calls = calls(&events);
            assert_eq!(calls.len(), 1, "{dialect}: {events:?}");
            let location = calls[0]["location"].as_str().unwrap_or_default();
            let CallAround { before, after, .. } = dialect.descriptor().call;
            let markup = intro(dialect).len() + numbered(before, 1).len() + after.len();
            assert_eq!(location.len(), 4096 - markup, "{dialect}: {location:?}");
            assert!(
                location.starts_with("lorem ipsum"),
                "{dialect}: {location:?}"
            );
        }
    }

    #[test]
    fn many_calls_are_that_many_calls_and_prose_is_only_text() {
        for &dialect in Dialect::ALL {
            let stream = Family::ManyCalls.stream(dialect, 4096);
            let events = parse(dialect, &stream);
            let expected = stream.matches(PARAGRAPH).count();
            assert!(expected > 10);
            assert!(
                !events.iter().any(|e| matches!(e, Event::Error { .. })),
                "{dialect}: {events:?}"
            );
            assert_eq!(calls(&events).len(), expected, "{dialect}");

            let prose = Family::Prose.stream(dialect, 4096);
            assert_eq!(prose.len(), 4096);
            let events = parse(dialect, &prose);
            assert!(
                events.iter().all(|e| matches!(e, Event::TextDelta { .. })),
                "{dialect}: {events:?}"
            );
        }
    }

    #[test]
    fn streams_reach_their_size_and_names_read_back() {
        for family in Family::ALL {
            let stream = family.stream(Dialect::Hermes, 10_000);
            assert!(stream.len() >= 10_000 && stream.len() < 10_400, "{family}");
            assert_eq!(family.name().parse::<Family>(), Ok(family));
        }
        assert!("quadratic".parse::<Family>().is_err());
    }
}
