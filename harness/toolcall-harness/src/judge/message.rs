//! A chunk candidate's non-streaming answer compared in a message's shape (`specs/runner.md`
//! R2.3): a `chat.completion` message holds one reasoning string, one content string and its
//! calls, so the order of the stream's runs and the blanks where they joined are not in it.

use crate::event::Event;

/// Both sides of a non-streaming comparison in a message's shape: `whole`'s (the whole
/// stream's comparable events) and `answer`'s (the message's). Each side becomes its reasoning
/// as one run, its text as one run, then its other events (the calls) in order. Where the
/// answer's reasoning or text is the whole stream's runs with any blanks where they join
/// (a server joins the text before and after a call as it likes), it is given the whole
/// stream's, so that only a real difference shows.
pub(super) fn shapes(whole: &[Event], answer: &[Event]) -> (Vec<Event>, Vec<Event>) {
    let whole = Message::of(whole);
    let mut answer = Message::of(answer);
    if joined_alike(&whole.reasoning, &answer.reasoning) {
        answer.reasoning.clone_from(&whole.reasoning);
    }
    if joined_alike(&whole.text, &answer.text) {
        answer.text.clone_from(&whole.text);
    }
    (whole.events(), answer.events())
}

/// A message's parts.
#[derive(Debug)]
struct Message {
    reasoning: Vec<String>,
    text: Vec<String>,
    rest: Vec<Event>,
}

impl Message {
    fn of(events: &[Event]) -> Message {
        let mut message = Message {
            reasoning: Vec::new(),
            text: Vec::new(),
            rest: Vec::new(),
        };
        for event in events {
            match event {
                Event::ReasoningDelta { delta } => message.reasoning.push(delta.clone()),
                Event::TextDelta { delta } => message.text.push(delta.clone()),
                other => message.rest.push(other.clone()),
            }
        }
        message
    }

    /// The message as events, in the order a client reads a message (`specs/wire.md` W0.4):
    /// reasoning, text, calls. Runs are shown joined by a space.
    fn events(self) -> Vec<Event> {
        let mut events = Vec::new();
        if !self.reasoning.is_empty() {
            events.push(Event::reasoning(self.reasoning.join(" ")));
        }
        if !self.text.is_empty() {
            events.push(Event::text(self.text.join(" ")));
        }
        events.extend(self.rest);
        events
    }
}

/// Whether `answer`'s runs, joined, are `whole`'s runs in order with only blanks (or nothing)
/// between them and around them. `whole`'s runs are comparable ones: no blanks at their ends
/// (`specs/runner.md` R3.4), so the match is greedy and exact.
fn joined_alike(whole: &[String], answer: &[String]) -> bool {
    let answer = answer.concat();
    let mut rest = answer.as_str();
    for run in whole {
        rest = rest.trim_start_matches(is_blank);
        match rest.strip_prefix(run.trim_matches(is_blank)) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.trim_start_matches(is_blank).is_empty()
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn alike(whole: &[&str], answer: &str) -> bool {
        let whole: Vec<String> = whole.iter().map(|s| (*s).to_owned()).collect();
        joined_alike(&whole, &[answer.to_owned()])
    }

    #[test]
    fn blanks_where_runs_join_are_not_compared() {
        assert!(alike(&["Let me look.", "Done."], "Let me look. Done."));
        assert!(alike(&["Let me look.", "Done."], "Let me look.Done."));
        assert!(alike(
            &["Let me look.", "Done."],
            "\nLet me look.\n\nDone.\n"
        ));
        assert!(alike(&[], ""));
        assert!(alike(&[], "\n"));
    }

    #[test]
    fn text_lost_added_or_changed_is_compared() {
        // SGLang's non-streaming hermes keeps the text before the first call only.
        assert!(!alike(&["Let me look.", "Done."], "Let me look."));
        assert!(!alike(&["Let me look."], "Let me look. <tool_call>"));
        assert!(!alike(&["Let me look."], "Let me  look."));
        assert!(!alike(&["a", "b"], "b a"));
        assert!(!alike(&[], "x"));
    }

    #[test]
    fn a_message_is_reasoning_then_text_then_calls() {
        let call = Event::call("c", "get_weather", json!({"city": "Paris"}));
        let whole = [
            Event::reasoning("Weather."),
            Event::text("Let me look."),
            call.clone(),
            Event::text("Done."),
            Event::reasoning("More."),
        ];
        let answer = [
            Event::reasoning("Weather.\nMore."),
            Event::text("Let me look.\n\nDone."),
            call.clone(),
        ];
        let (whole, answer) = shapes(&whole, &answer);
        assert_eq!(whole, answer);
        assert_eq!(
            whole,
            [
                Event::reasoning("Weather. More."),
                Event::text("Let me look. Done."),
                call.clone()
            ]
        );
        // Text after the call lost: only the text differs, the call does not.
        let (whole, answer) = shapes(
            &[Event::text("a"), call.clone(), Event::text("b")],
            &[Event::text("a"), call.clone()],
        );
        assert_eq!(whole, [Event::text("a b"), call.clone()]);
        assert_eq!(answer, [Event::text("a"), call]);
    }
}
