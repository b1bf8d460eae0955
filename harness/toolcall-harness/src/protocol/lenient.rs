//! How `tch` reads what a candidate sends when it is JSON by syntax but breaks a JSON rule
//! (`specs/protocol.md` P1.2): JavaScript and Python parsers pass such things through, and a
//! conformance suite must judge them, not refuse them. An escaped half of a surrogate pair
//! reads as U+FFFD; a call's input text that is still not JSON (or nests too deep to read) is
//! kept, marked, as the input `{"<not JSON>": TEXT}`. Each reading says what it did, for the
//! finding's notes.

use serde_json::{Map, Value};

/// The key of the object that stands for a call's input text that is not JSON.
pub const NOT_JSON: &str = "<not JSON>";

/// `line` with every `\\u` escape of half a surrogate pair replaced by `\\ufffd`, and the
/// halves replaced; `None` when it has none. Linear: JSON has backslashes only in escapes.
pub fn repair_lone_surrogates(line: &str) -> Option<(String, Vec<String>)> {
    let bytes = line.as_bytes();
    let escape = |at: usize| -> Option<u16> {
        let hex = line.get(at + 2..at + 6)?;
        (bytes.get(at + 1) == Some(&b'u'))
            .then(|| u16::from_str_radix(hex, 16).ok())
            .flatten()
    };
    let mut out = String::with_capacity(line.len());
    let mut halves = Vec::new();
    let (mut copied, mut at) = (0, 0);
    // `at` may pass the end: a text cut after a lone backslash (a call's arguments so far, read
    // by the wire client's `isParsableJson`, are no whole JSON line) skips two bytes past it.
    while let Some(offset) = bytes.get(at..).and_then(|rest| memchr::memchr(b'\\', rest)) {
        at += offset;
        let Some(unit) = escape(at) else {
            at += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && bytes.get(at + 6) == Some(&b'\\')
            && escape(at + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            at += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&line[copied..at]);
            out.push_str("\\ufffd");
            halves.push(line[at..at + 6].to_owned());
            at += 6;
            copied = at;
        } else {
            at += 6;
        }
    }
    if halves.is_empty() {
        return None;
    }
    out.push_str(&line[copied..]);
    Some((out, halves))
}

/// A call's input text, read: its JSON value (halves of surrogate pairs as U+FFFD), or the
/// text marked as not JSON; with a note saying which.
pub fn read_input_text(text: &str) -> (Value, String) {
    match read_json_text(text) {
        Ok((value, None)) => (value, String::new()),
        Ok((value, Some(note))) => (value, note),
        Err(reason) => (
            not_json(text),
            format!(
                "the call's input text is not JSON ({reason}): judged as {{{NOT_JSON:?}: TEXT}}"
            ),
        ),
    }
}

/// `text` as JSON, reading halves of surrogate pairs as U+FFFD (then with a note).
pub fn read_json_text(text: &str) -> Result<(Value, Option<String>), String> {
    match serde_json::from_str(text) {
        Ok(value) => Ok((value, None)),
        Err(error) => match repair_lone_surrogates(text) {
            Some((repaired, halves)) => serde_json::from_str(&repaired)
                .map(|value| {
                    let note = format!(
                        "the candidate sent half a surrogate pair ({}), read as U+FFFD",
                        halves.join(", ")
                    );
                    (value, Some(note))
                })
                .map_err(|_| error.to_string()),
            None => Err(error.to_string()),
        },
    }
}

/// The marked stand-in for an input text that is not JSON.
pub fn not_json(text: &str) -> Value {
    Value::Object(Map::from_iter([(
        NOT_JSON.to_owned(),
        Value::String(text.to_owned()),
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_texts_are_read_or_marked() {
        assert_eq!(
            read_input_text(r#"{"a":1}"#),
            (json!({"a": 1}), String::new())
        );
        let (value, note) = read_input_text(r#"{"icon":"\udf27"}"#);
        assert_eq!(value, json!({"icon": "\u{FFFD}"}));
        assert!(note.contains(r"\udf27"), "{note}");
        let deep = "[".repeat(3000) + &"]".repeat(3000);
        let (value, note) = read_input_text(&deep);
        assert_eq!(value, not_json(&deep));
        assert!(note.contains("not JSON"), "{note}");
    }

    #[test]
    fn a_text_cut_after_a_backslash_is_not_json() {
        // Arguments streamed so far can end inside an escape (`"C:\` then `\dir"`): the wire
        // client asks whether that prefix is JSON, and it is not; reading it must not panic
        // (it did: the scan skipped two bytes past a backslash that ended the text).
        for text in ["\\", r#"{"path": "C:\"#, r#"{"a": "x\u12"#] {
            assert_eq!(repair_lone_surrogates(text), None, "{text}");
            assert_eq!(read_input_text(text).0, not_json(text), "{text}");
        }
        // Half a surrogate pair, then the text ends after a backslash: the half is repaired,
        // the rest is still not JSON.
        let text = r#"{"a": "\ud83d\"#;
        assert_eq!(
            repair_lone_surrogates(text).map(|(_, halves)| halves),
            Some(vec![r"\ud83d".to_owned()])
        );
        assert_eq!(read_input_text(text).0, not_json(text));
    }
}
