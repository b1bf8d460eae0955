//! What a complete `pythonic` call means (`specs/dialects/pythonic.md` §3): its block, from its
//! opener (`[` or `,`) through the `)` that closes it, read by the grammar of Python literals,
//! never evaluated; the call it gives, or the first reason why there is none.

use serde_json::{Map, Value};
use thiserror::Error;

use crate::dialect::json::MAX_DEPTH;
use crate::dialect::typed;
use crate::event::ToolCall;

/// Why a block is not a valid call. Each message starts with its fixed phrase (the error
/// table, `specs/dialects/pythonic.md` §5); the duplicate id (`specs/streaming.md` C7.1)
/// cannot happen, the format having no ids.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub(crate) enum CallError {
    /// The stream ended before the call was complete (PY4.3).
    #[error("unterminated pythonic tool call")]
    Unterminated,
    /// `<|tool_call_end|>` came before the call was complete (PY1.9).
    #[error("pythonic tool call cut by <|tool_call_end|>")]
    Cut,
    /// The head is not blanks and a name directly followed by `(` (PY1.5); what it is.
    #[error("invalid name in pythonic tool call: {0:?}")]
    InvalidName(String),
    /// A positional argument, `*args` or `**kwargs` (PY3.2).
    #[error("positional argument in pythonic tool call")]
    Positional,
    /// A keyword given twice (PY3.2).
    #[error("repeated keyword argument in pythonic tool call: {0:?}")]
    RepeatedKeyword(String),
    /// A literal outside PY3.3, or an escape PY3.4 refuses; which.
    #[error("unsupported literal in pythonic tool call: {0}")]
    Unsupported(String),
    /// An integer outside the 64-bit range, or a float that is not finite.
    #[error("number out of range in pythonic tool call: {0}")]
    OutOfRange(String),
    /// Anything else the grammar does not allow; what.
    #[error("invalid pythonic tool call: {0}")]
    Invalid(String),
}

/// The spec's blanks: space, tab, `\r`, `\n`.
pub(super) fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// A tool's name (PY1.5): an ASCII letter or `_`, then ASCII letters, digits and `_`.
pub(crate) fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The call in `block`, its opener (`opener` bytes: pythonic's `[` or `,`, none in `olmo3`)
/// first and its closing `)` last.
pub(crate) fn call(
    block: &str,
    opener: usize,
    generated_id: String,
) -> Result<ToolCall, CallError> {
    let mut reader = Reader {
        text: block,
        at: block.len().min(opener),
    };
    reader.skip_blanks();
    let name = reader.word().filter(|name| is_name(name)).ok_or_else(|| {
        CallError::InvalidName(block.get(opener..).unwrap_or_default().to_owned())
    })?;
    reader.expect('(', "after the tool's name")?;
    let input = reader.arguments()?;
    if !reader.rest().is_empty() {
        return Err(CallError::Invalid(format!(
            "{:?} after the call's `)`",
            reader.rest()
        )));
    }
    Ok(ToolCall {
        tool_call_id: generated_id,
        tool_name: name.to_owned(),
        input: Value::Object(input),
        extra: Map::new(),
    })
}

/// `text` as exactly one Python literal (PY3.3, PY3.4), nothing before or after it, standing
/// one level below a call's input (PY3.6 counts the input as one level); `None` if it is not
/// one. What `seed_oss` reads a structured value with when it is no JSON.
pub(crate) fn value_in_input(text: &str) -> Option<Value> {
    let mut reader = Reader { text, at: 0 };
    let value = reader.value(2).ok()?;
    reader.rest().is_empty().then_some(value)
}

/// A cursor over a call block; every step moves by whole chars.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn rest(&self) -> &'a str {
        self.text.get(self.at..).unwrap_or_default()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        Some(c)
    }

    fn eat(&mut self, c: char) -> bool {
        let here = self.peek() == Some(c);
        if here {
            self.at += c.len_utf8();
        }
        here
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(is_blank) {
            self.at += 1;
        }
    }

    /// What stands here, for an error.
    fn found(&self) -> String {
        match self.peek() {
            Some(c) => format!("{c:?}"),
            None => "the end".to_owned(),
        }
    }

    fn expect(&mut self, c: char, context: &str) -> Result<(), CallError> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(CallError::Invalid(format!(
                "expected {c:?} {context}, found {}",
                self.found()
            )))
        }
    }

    /// An identifier (PY3.2): a letter of any script or `_`, then letters, digits and `_`.
    fn word(&mut self) -> Option<&'a str> {
        let rest = self.rest();
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        if !(first.is_alphabetic() || first == '_') {
            return None;
        }
        let end = chars
            .find(|&(_, c)| !(c.is_alphanumeric() || c == '_'))
            .map_or(rest.len(), |(at, _)| at);
        self.at += end;
        rest.get(..end)
    }

    /// PY3.2: keyword arguments up to the call's `)`, read after its `(`.
    fn arguments(&mut self) -> Result<Map<String, Value>, CallError> {
        let mut input = Map::new();
        loop {
            self.skip_blanks();
            if self.eat(')') {
                return Ok(input);
            }
            if self.peek() == Some('*') {
                return Err(CallError::Positional);
            }
            let start = self.at;
            let key = self.word();
            self.skip_blanks();
            // `=` alone: `==` would be a comparison, which is no literal either.
            let keyword = key.is_some() && self.rest().starts_with('=');
            let Some(key) = key.filter(|_| keyword) else {
                // A value standing alone is a positional argument, if it is a value at all.
                self.at = start;
                self.value(2)?;
                return Err(CallError::Positional);
            };
            self.at += 1;
            self.skip_blanks();
            let value = self.value(2)?;
            if input.contains_key(key) {
                return Err(CallError::RepeatedKeyword(key.to_owned()));
            }
            input.insert(key.to_owned(), value);
            self.skip_blanks();
            if !self.eat(',') {
                self.expect(')', "after an argument")?;
                return Ok(input);
            }
        }
    }

    /// PY3.3: one literal; a bracket here opens level `level` (the call's `input` is 1).
    fn value(&mut self, level: usize) -> Result<Value, CallError> {
        match self.peek() {
            Some('[') => self.sequence(level, ']'),
            Some('(') => self.parenthesized(level),
            Some('{') => self.dict(level),
            Some(quote @ ('\'' | '"')) => {
                self.bump();
                self.string(quote, false)
            }
            Some('+' | '-') => self.number(),
            Some(c) if c.is_ascii_digit() => self.number(),
            Some('.') if self.rest().starts_with("...") => {
                Err(CallError::Unsupported("`...`".to_owned()))
            }
            Some('.') => self.number(),
            Some(c) if c.is_alphabetic() || c == '_' => self.word_value(),
            _ => Err(CallError::Invalid(format!(
                "expected a value, found {}",
                self.found()
            ))),
        }
    }

    /// Opening a bracket at `level`: PY3.6 caps it (the scan already stopped anything deeper;
    /// this keeps the reader's own recursion bounded whatever it is given).
    fn open(&mut self, level: usize) -> Result<(), CallError> {
        if level > MAX_DEPTH {
            return Err(CallError::Invalid(format!(
                "nesting deeper than {MAX_DEPTH} levels of brackets"
            )));
        }
        self.bump();
        Ok(())
    }

    /// The values up to `close`, separated by commas, one allowed after the last; the opening
    /// bracket not yet read.
    fn sequence(&mut self, level: usize, close: char) -> Result<Value, CallError> {
        self.open(level)?;
        self.items(level, close, Vec::new())
    }

    /// The rest of a list or a tuple, after `items`.
    fn items(
        &mut self,
        level: usize,
        close: char,
        mut items: Vec<Value>,
    ) -> Result<Value, CallError> {
        loop {
            self.skip_blanks();
            if self.eat(close) {
                return Ok(Value::Array(items));
            }
            items.push(self.value(level + 1)?);
            self.skip_blanks();
            if !self.eat(',') {
                self.expect(close, "after an item")?;
                return Ok(Value::Array(items));
            }
        }
    }

    /// `()` and `(V, …)` are tuples (arrays), `(V)` is V.
    fn parenthesized(&mut self, level: usize) -> Result<Value, CallError> {
        self.open(level)?;
        self.skip_blanks();
        if self.eat(')') {
            return Ok(Value::Array(Vec::new()));
        }
        let first = self.value(level + 1)?;
        self.skip_blanks();
        if self.eat(')') {
            return Ok(first);
        }
        self.expect(',', "after an item")?;
        self.items(level, ')', vec![first])
    }

    /// `{K: V, …}` with string keys; the last of a key given twice wins. `{V, …}` is a set.
    fn dict(&mut self, level: usize) -> Result<Value, CallError> {
        self.open(level)?;
        let mut fields = Map::new();
        loop {
            self.skip_blanks();
            if self.eat('}') {
                return Ok(Value::Object(fields));
            }
            let key = self.value(level + 1)?;
            self.skip_blanks();
            if !self.eat(':') {
                if fields.is_empty() && matches!(self.peek(), Some(',' | '}')) {
                    return Err(CallError::Unsupported("a set".to_owned()));
                }
                return Err(CallError::Invalid(format!(
                    "expected ':' after a key, found {}",
                    self.found()
                )));
            }
            let Value::String(key) = key else {
                return Err(CallError::Unsupported(format!(
                    "dict key that is not a string: {key}"
                )));
            };
            self.skip_blanks();
            let value = self.value(level + 1)?;
            fields.insert(key, value);
            self.skip_blanks();
            if !self.eat(',') {
                self.expect('}', "after an entry")?;
                return Ok(Value::Object(fields));
            }
        }
    }

    /// A value that starts with a letter: a constant, or a string's prefix.
    fn word_value(&mut self) -> Result<Value, CallError> {
        let word = self.word().unwrap_or_default();
        if let Some(quote @ ('\'' | '"')) = self.peek() {
            self.bump();
            return match word {
                "r" | "R" => self.string(quote, true),
                "u" | "U" => self.string(quote, false),
                _ => Err(CallError::Unsupported(format!("string prefix {word:?}"))),
            };
        }
        match word {
            "True" | "true" => Ok(Value::Bool(true)),
            "False" | "false" => Ok(Value::Bool(false)),
            "None" | "null" => Ok(Value::Null),
            _ => Err(CallError::Unsupported(format!("name {word:?}"))),
        }
    }

    /// PY3.4: a string whose opening `quote` was just read.
    fn string(&mut self, quote: char, raw: bool) -> Result<Value, CallError> {
        let mut text = String::new();
        if self.peek() == Some(quote) {
            let mut after = self.rest().chars().skip(1);
            if after.next() == Some(quote) {
                return Err(CallError::Unsupported("triple-quoted string".to_owned()));
            }
        }
        loop {
            match self.bump() {
                None => return Err(CallError::Invalid("unterminated string".to_owned())),
                Some(c) if c == quote => break,
                Some('\\') if raw => {
                    // A raw string keeps the backslash; an escaped quote still does not end it.
                    text.push('\\');
                    match self.bump() {
                        Some(c) => text.push(c),
                        None => return Err(CallError::Invalid("unterminated string".to_owned())),
                    }
                }
                Some('\\') => self.escape(&mut text)?,
                Some(c) => text.push(c),
            }
        }
        // PY3.3: one literal per value; Python would join `'a' 'b'`.
        let end = self.at;
        self.skip_blanks();
        if matches!(self.peek(), Some('\'' | '"')) {
            return Err(CallError::Unsupported(
                "adjacent string literals".to_owned(),
            ));
        }
        self.at = end;
        Ok(Value::String(text))
    }

    /// PY3.4: the escape after a backslash, appended to `text`.
    fn escape(&mut self, text: &mut String) -> Result<(), CallError> {
        let Some(c) = self.bump() else {
            return Err(CallError::Invalid("unterminated string".to_owned()));
        };
        let named = match c {
            // A backslash before a line break joins the lines.
            '\n' => return Ok(()),
            '\r' => {
                self.eat('\n');
                return Ok(());
            }
            '\\' | '\'' | '"' => c,
            'a' => '\u{7}',
            'b' => '\u{8}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '0'..='7' => {
                let mut code = c.to_digit(8).unwrap_or_default();
                for _ in 0..2 {
                    match self.peek().and_then(|d| d.to_digit(8)) {
                        Some(digit) => {
                            code = code * 8 + digit;
                            self.bump();
                        }
                        None => break,
                    }
                }
                self.char_of(code)?
            }
            'x' => self.hex_escape(2, c)?,
            'u' => self.hex_escape(4, c)?,
            'U' => self.hex_escape(8, c)?,
            'N' => return Err(CallError::Unsupported("\\N{…} escape".to_owned())),
            // Python keeps an unknown escape as it is.
            other => {
                text.push('\\');
                other
            }
        };
        text.push(named);
        Ok(())
    }

    fn hex_escape(&mut self, digits: usize, letter: char) -> Result<char, CallError> {
        let hex = self.rest().get(..digits).unwrap_or_default();
        if hex.len() != digits || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(CallError::Unsupported(format!(
                "\\{letter} escape without {digits} hex digits"
            )));
        }
        self.at += digits;
        self.char_of(u32::from_str_radix(hex, 16).unwrap_or(u32::MAX))
    }

    /// The char an escape names; half a surrogate pair or past U+10FFFF is none (C8.4).
    fn char_of(&self, code: u32) -> Result<char, CallError> {
        char::from_u32(code)
            .ok_or_else(|| CallError::Unsupported(format!("escape of U+{code:X}, no char")))
    }

    /// PY3.3: an integer or a float, with one sign before it.
    fn number(&mut self) -> Result<Value, CallError> {
        let start = self.at;
        let negative = self.eat('-');
        if !negative {
            self.eat('+');
        }
        let digits_start = self.at;
        let mut previous = '\0';
        let radix = {
            let rest = self.rest().as_bytes();
            rest.first() == Some(&b'0')
                && matches!(rest.get(1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B'))
        };
        while let Some(c) = self.peek() {
            let exponent_sign = matches!(c, '+' | '-') && matches!(previous, 'e' | 'E') && !radix;
            if !(c.is_ascii_alphanumeric() || c == '_' || c == '.' || exponent_sign) {
                break;
            }
            previous = c;
            self.bump();
        }
        let token = self.text.get(digits_start..self.at).unwrap_or_default();
        let source = self.text.get(start..self.at).unwrap_or_default();
        let invalid = || CallError::Invalid(format!("invalid number {source:?}"));
        if token.ends_with(['j', 'J']) {
            return Err(CallError::Unsupported(format!("complex number {source:?}")));
        }
        if radix {
            let base = match token.as_bytes().get(1) {
                Some(b'x' | b'X') => 16,
                Some(b'o' | b'O') => 8,
                _ => 2,
            };
            let body = token.get(2..).unwrap_or_default();
            let body = body.strip_prefix('_').unwrap_or(body);
            let digits = underscored(body, |c| c.is_digit(base)).ok_or_else(invalid)?;
            let magnitude = u128::from_str_radix(&digits, base)
                .map_err(|_| CallError::OutOfRange(source.to_owned()))?;
            return signed(magnitude, negative)
                .ok_or_else(|| CallError::OutOfRange(source.to_owned()));
        }
        if token.contains(['.', 'e', 'E']) {
            if let Some(value) = typed::number(source) {
                return Ok(value);
            }
            // Well formed but not finite (`1e999`), or not a float at all.
            return match source.replace('_', "").parse::<f64>() {
                Ok(float) if !float.is_finite() => Err(CallError::OutOfRange(source.to_owned())),
                _ => Err(invalid()),
            };
        }
        let digits = underscored(token, |c| c.is_ascii_digit()).ok_or_else(invalid)?;
        if digits.len() > 1 && digits.starts_with('0') && digits.bytes().any(|b| b != b'0') {
            return Err(CallError::Unsupported(format!(
                "integer with leading zeros {source:?}"
            )));
        }
        typed::integer(source).ok_or_else(|| CallError::OutOfRange(source.to_owned()))
    }
}

/// `D(_?D)*` with `D` what `digit` accepts, without its underscores; `None` if `text` is not
/// that.
fn underscored(text: &str, digit: impl Fn(char) -> bool) -> Option<String> {
    let mut out = String::new();
    let mut after_digit = false;
    for c in text.chars() {
        if digit(c) {
            out.push(c);
            after_digit = true;
        } else if c == '_' && after_digit {
            after_digit = false;
        } else {
            return None;
        }
    }
    after_digit.then_some(out)
}

/// A magnitude with its sign, within −2⁶³ … 2⁶⁴−1.
fn signed(magnitude: u128, negative: bool) -> Option<Value> {
    if negative {
        let value = i128::try_from(magnitude).ok()?.checked_neg()?;
        i64::try_from(value).ok().map(Value::from)
    } else {
        u64::try_from(magnitude).ok().map(Value::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn input(args: &str) -> Result<Value, CallError> {
        call(&format!("[f({args})"), 1, "id".to_owned()).map(|call| call.input)
    }

    #[test]
    fn literals_read_as_json() {
        assert_eq!(
            input(r#"a='x', b="y", c=-3, d=0x_ff, e=1_0.5, f=True, g=None, h=null"#),
            Ok(
                json!({"a": "x", "b": "y", "c": -3, "d": 255, "e": 10.5, "f": true, "g": null, "h": null})
            )
        );
        assert_eq!(
            input("l=[1, (2, 3), (4,), (5), ()], d={'k': {'n': []},}, "),
            Ok(json!({"l": [1, [2, 3], [4], 5, []], "d": {"k": {"n": []}}}))
        );
        assert_eq!(
            input(
                r"p=r'\d\'', q='\x41\u00e9\101\d\
'"
            ),
            Ok(json!({"p": "\\d\\'", "q": "A\u{e9}A\\d"}))
        );
        assert_eq!(
            input("n=-9223372036854775808, m=18446744073709551615"),
            Ok(json!({"n": i64::MIN, "m": u64::MAX}))
        );
    }

    #[test]
    fn what_is_refused() {
        let refused = [
            ("x=foo", "unsupported literal"),
            ("x=b'a'", "unsupported literal"),
            ("x=f'a'", "unsupported literal"),
            ("x='''a'''", "unsupported literal"),
            ("x='a' 'b'", "unsupported literal"),
            ("x={1, 2}", "unsupported literal"),
            ("x={1: 2}", "unsupported literal"),
            ("x=007", "unsupported literal"),
            ("x=1j", "unsupported literal"),
            ("x='\\ud800'", "unsupported literal"),
            ("x=1e999", "number out of range"),
            ("x=18446744073709551616", "number out of range"),
            ("x=-0x8000000000000001", "number out of range"),
            ("'a'", "positional argument"),
            ("**k", "positional argument"),
            ("x=1, x=2", "repeated keyword argument"),
            ("x=1 y=2", "invalid pythonic tool call"),
            ("x=1__0", "invalid pythonic tool call"),
            ("x=[1)", "invalid pythonic tool call"),
        ];
        for (args, phrase) in refused {
            let error = input(args).expect_err(args).to_string();
            assert!(error.starts_with(phrase), "{args}: {error}");
        }
    }

    #[test]
    fn names_are_ascii_and_keys_any_identifier() {
        assert!(is_name("get_weather2") && is_name("_x"));
        assert!(!is_name("météo") && !is_name("2x") && !is_name("get-weather") && !is_name(""));
        assert_eq!(
            input("città='Roma', from=1"),
            Ok(json!({"città": "Roma", "from": 1}))
        );
    }
}
