//! Gemma 4's value syntax (`specs/dialects/gemma4.md` §2): objects with bare or `<|"|>`-quoted
//! keys, arrays, `<|"|>` strings with no escapes, and bare `true`, `false`, `null`, `None` and
//! JSON numbers; read into JSON values (GM4.2) in one pass from left to right, nesting capped at
//! [`MAX_DEPTH`] levels (`specs/streaming.md` C8.2). The string token is a parameter: Gemma 4
//! writes [`QUOTE`], FunctionGemma `<escape>` (`specs/dialects/functiongemma.md` §2).
//!
//! Every character the grammar acts on is ASCII, so every position the reader stops at is a
//! `char` boundary of the text.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json::MAX_DEPTH;

/// Gemma 4's string delimiter token (GM2.5).
pub(crate) const QUOTE: &str = "<|\"|>";

/// Why the arguments are not GM2.1–GM2.7's: the detail after the fixed phrase
/// `invalid arguments in tool_call` (`invalid arguments in function_call`); the string token,
/// where a message names it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum ValueError {
    #[error("a string is not closed (no {0} after it)")]
    UnclosedString(&'static str),
    #[error("expected a key (bare, or a {0} string)")]
    Key(&'static str),
    #[error("expected : after a key")]
    Colon,
    #[error("expected a value")]
    Value,
    #[error("a bare value is not a number, true, false, null or None")]
    Bare,
    #[error("a number is out of range")]
    OutOfRange,
    #[error("expected , or }} after a member")]
    ObjectSeparator,
    #[error("expected , or ] after an element")]
    ArraySeparator,
    #[error("nesting deeper than {} levels of objects and arrays", MAX_DEPTH)]
    TooDeep,
}

/// GM2.1: the blanks that may stand around the syntax.
fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'\n')
}

/// GM1.5, GM2.3, GM2.6: the bytes that end a NAME, a bare key or a bare value.
fn ends_word(byte: u8) -> bool {
    is_blank(byte) || matches!(byte, b':' | b',' | b'{' | b'}' | b'[' | b']' | b'<' | b'"')
}

/// The length of the run of characters at the start of `text` that none of [`ends_word`]'s
/// bytes ends: a NAME, a bare key or a bare value.
pub(crate) fn word_len(text: &str) -> usize {
    text.bytes().position(ends_word).unwrap_or(text.len())
}

/// GM1.4: the arguments object at the start of `text` (which starts with `{`), its strings
/// between `quote` tokens, and how many bytes of `text` it takes.
pub(crate) fn arguments(
    text: &str,
    quote: &'static str,
) -> Result<(Map<String, Value>, usize), ValueError> {
    let mut reader = Reader { text, quote, at: 0 };
    let object = reader.object(1)?;
    Ok((object, reader.at))
}

/// A reading position in the arguments.
struct Reader<'a> {
    text: &'a str,
    /// The string delimiter token.
    quote: &'static str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.at).copied()
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.at += 1;
        }
    }

    /// Takes the next `len` bytes, which end on a `char` boundary.
    fn take(&mut self, len: usize) -> &'a str {
        let taken = self.rest().get(..len).unwrap_or_default();
        self.at += len;
        taken
    }

    /// GM2.2: the object at `{`, whose own level is `level`.
    fn object(&mut self, level: usize) -> Result<Map<String, Value>, ValueError> {
        self.at += 1;
        let mut members = Map::new();
        self.skip_blanks();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(members);
        }
        loop {
            let key = self.key()?;
            self.skip_blanks();
            if self.peek() != Some(b':') {
                return Err(ValueError::Colon);
            }
            self.at += 1;
            self.skip_blanks();
            let value = self.value(level)?;
            // GM4.2: a key given twice keeps its last value (C8.1).
            members.insert(key, value);
            self.skip_blanks();
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    self.skip_blanks();
                }
                Some(b'}') => {
                    self.at += 1;
                    return Ok(members);
                }
                _ => return Err(ValueError::ObjectSeparator),
            }
        }
    }

    /// GM2.4: the array at `[`, whose own level is `level`.
    fn array(&mut self, level: usize) -> Result<Vec<Value>, ValueError> {
        self.at += 1;
        let mut elements = Vec::new();
        self.skip_blanks();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(elements);
        }
        loop {
            elements.push(self.value(level)?);
            self.skip_blanks();
            match self.peek() {
                Some(b',') => {
                    self.at += 1;
                    self.skip_blanks();
                }
                Some(b']') => {
                    self.at += 1;
                    return Ok(elements);
                }
                _ => return Err(ValueError::ArraySeparator),
            }
        }
    }

    /// GM2.3: a bare key or a string.
    fn key(&mut self) -> Result<String, ValueError> {
        if self.rest().starts_with(self.quote) {
            return self.string();
        }
        match word_len(self.rest()) {
            0 => Err(ValueError::Key(self.quote)),
            len => Ok(self.take(len).to_owned()),
        }
    }

    /// GM2.5: the string at the quote token, its text raw.
    fn string(&mut self) -> Result<String, ValueError> {
        self.at += self.quote.len();
        let len = self
            .rest()
            .find(self.quote)
            .ok_or(ValueError::UnclosedString(self.quote))?;
        let text = self.take(len).to_owned();
        self.at += self.quote.len();
        Ok(text)
    }

    /// A VALUE inside a container of level `level`.
    fn value(&mut self, level: usize) -> Result<Value, ValueError> {
        let rest = self.rest();
        if rest.starts_with(self.quote) {
            return self.string().map(Value::String);
        }
        match self.peek() {
            // GM2.7: the container would be one level deeper.
            Some(b'{' | b'[') if level >= MAX_DEPTH => Err(ValueError::TooDeep),
            Some(b'{') => self.object(level + 1).map(Value::Object),
            Some(b'[') => self.array(level + 1).map(Value::Array),
            _ => match word_len(rest) {
                0 => Err(ValueError::Value),
                len => bare(self.take(len)),
            },
        }
    }
}

/// GM2.6, GM4.2: what a bare value means.
fn bare(word: &str) -> Result<Value, ValueError> {
    match word {
        "true" => Ok(Value::Bool(true)),
        "false" => Ok(Value::Bool(false)),
        // `None` is how the template prints a Python `None` (GM4.2).
        "null" | "None" => Ok(Value::Null),
        _ if is_json_number(word) => match serde_json::from_str::<Value>(word) {
            Ok(number @ Value::Number(_)) => Ok(number),
            _ => Err(ValueError::OutOfRange),
        },
        _ => Err(ValueError::Bare),
    }
}

/// RFC 8259's number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, checked here so that
/// nothing serde_json would also accept around a number slips through.
fn is_json_number(word: &str) -> bool {
    let bytes = word.as_bytes();
    let mut at = usize::from(bytes.first() == Some(&b'-'));
    let digits = |at: &mut usize| {
        let start = *at;
        while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
            *at += 1;
        }
        *at - start
    };
    let whole = at;
    match digits(&mut at) {
        0 => return false,
        n if n > 1 && bytes.get(whole) == Some(&b'0') => return false,
        _ => {}
    }
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        if digits(&mut at) == 0 {
            return false;
        }
    }
    if matches!(bytes.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(bytes.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        if digits(&mut at) == 0 {
            return false;
        }
    }
    at == bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(text: &str) -> Result<Value, ValueError> {
        match arguments(text, QUOTE)? {
            (object, len) if len == text.len() => Ok(Value::Object(object)),
            (_, len) => panic!("{text:?}: {len} of {} bytes read", text.len()),
        }
    }

    #[test]
    fn every_kind_of_value() {
        assert_eq!(
            read(
                "{s:<|\"|>a \"b\" \\n {c}, [d]: é😀\r\n<|\"|>,n:-12.5e+2,i:18446744073709551615,\
                 t:true,f:false,z:null,p:None,o:{k:[1,[],{}]},<|\"|>x y:<|\"|>:0}"
            ),
            Ok(json!({
                "s": "a \"b\" \\n {c}, [d]: é😀\r\n", "n": -1250.0, "i": 18446744073709551615u64,
                "t": true, "f": false, "z": null, "p": null, "o": {"k": [1, [], {}]}, "x y:": 0
            }))
        );
    }

    #[test]
    fn blanks_stand_only_around_the_syntax() {
        assert_eq!(
            read("{ \r\n a : [ 1 , <|\"|> <|\"|> ] ,\tb:{ }\n}"),
            Ok(json!({"a": [1, " "], "b": {}}))
        );
        assert_eq!(read("{a b:1}"), Err(ValueError::Colon));
        assert_eq!(read("{a:tr ue}"), Err(ValueError::Bare));
        assert_eq!(read("{a:1 b:2}"), Err(ValueError::ObjectSeparator));
    }

    #[test]
    fn the_last_of_a_duplicate_key_wins() {
        assert_eq!(read("{a:1,b:2,a:3}"), Ok(json!({"a": 3, "b": 2})));
        assert_eq!(read("{__proto__:1}"), Ok(json!({"__proto__": 1})));
    }

    #[test]
    fn what_the_grammar_refuses() {
        for (text, error) in [
            ("{a:<|\"|>x}", ValueError::UnclosedString(QUOTE)),
            ("{<|\"|>a:1}", ValueError::UnclosedString(QUOTE)),
            ("{a:1,}", ValueError::Key(QUOTE)),
            ("{,a:1}", ValueError::Key(QUOTE)),
            ("{\"a\":1}", ValueError::Key(QUOTE)),
            ("{a}", ValueError::Colon),
            ("{a:}", ValueError::Value),
            ("{a:\"x\"}", ValueError::Value),
            ("{a:[1,]}", ValueError::Value),
            ("{a:1 2}", ValueError::ObjectSeparator),
            ("{a:[1 2]}", ValueError::ArraySeparator),
            ("{a:1", ValueError::ObjectSeparator),
            ("{a:[1", ValueError::ArraySeparator),
            ("{a:1e999}", ValueError::OutOfRange),
            ("{a:-1e400}", ValueError::OutOfRange),
        ] {
            assert_eq!(read(text), Err(error), "{text}");
        }
        for word in [
            "True", "NULL", "none", "nil", "inf", "nan", "NaN", "+1", ".5", "1.", "007", "-01",
            "0x1F", "1_000", "1e", "1e+", "-", "Paris", "1.5.2", "--1",
        ] {
            assert_eq!(
                read(&format!("{{a:{word}}}")),
                Err(ValueError::Bare),
                "{word}"
            );
        }
    }

    #[test]
    fn numbers_are_json_numbers() {
        for (word, value) in [
            ("0", json!(0)),
            ("-0.5", json!(-0.5)),
            ("1e-05", json!(0.00001)),
            ("1E3", json!(1000.0)),
            ("100.0", json!(100.0)),
            ("-9223372036854775808", json!(i64::MIN)),
        ] {
            assert_eq!(
                read(&format!("{{a:{word}}}")),
                Ok(json!({"a": value})),
                "{word}"
            );
        }
    }

    #[test]
    fn nesting_is_capped_at_max_depth() {
        // The arguments object is level 1; `levels` levels in all.
        let nested = |levels: usize| {
            let arrays = levels - 1;
            format!("{{v:{}{}}}", "[".repeat(arrays), "]".repeat(arrays))
        };
        assert!(read(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(read(&nested(MAX_DEPTH + 1)), Err(ValueError::TooDeep));
        // Far deeper input stops at the cap, without deep recursion.
        assert_eq!(read(&nested(100_000)), Err(ValueError::TooDeep));
    }

    #[test]
    fn the_quote_token_is_a_parameter() {
        // FunctionGemma's `<escape>`: Gemma 4's token is then no quote, and the messages name
        // the token in use.
        let escape = "<escape>";
        let read = |text: &str| arguments(text, escape).map(|(object, _)| Value::Object(object));
        assert_eq!(
            read("{<escape>k y<escape>:<escape><|\"|>x<escape>,n:[<escape><escape>]}"),
            Ok(json!({"k y": "<|\"|>x", "n": [""]}))
        );
        assert_eq!(read("{a:<|\"|>x<|\"|>}"), Err(ValueError::Value));
        assert_eq!(
            read("{a:<escape>x}").map_err(|e| e.to_string()),
            Err("a string is not closed (no <escape> after it)".to_owned())
        );
        assert_eq!(
            read("{<|\"|>a<|\"|>:1}").map_err(|e| e.to_string()),
            Err("expected a key (bare, or a <escape> string)".to_owned())
        );
    }

    #[test]
    fn words_end_at_ascii_bytes() {
        assert_eq!(word_len("città{"), "città".len());
        assert_eq!(word_len("naïve"), "naïve".len());
        assert_eq!(word_len(""), 0);
        assert_eq!(word_len("a<"), 1);
    }
}
