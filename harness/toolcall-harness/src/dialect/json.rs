//! A call's JSON, read as `specs/streaming.md` C8 says for every JSON dialect: serde_json's
//! reading of RFC 8259 (last duplicate key wins, no `NaN`, no escaped half of a surrogate
//! pair), with nesting capped at [`MAX_DEPTH`].

use serde::de::Error as _;
use serde_json::Value;

/// C8.2: the deepest a call's JSON may nest arrays and objects, its own object counted. A
/// call's event nests the call's values one level deeper than the call does (`input` inside
/// the event object, or `extra` inside it for a field), and protocol lines are read as
/// serde_json reads them, at most 127 levels; so every call the reference accepts can travel
/// as an event.
pub(crate) const MAX_DEPTH: usize = 126;

/// `text` as exactly one JSON value (blanks around it allowed), or why it is not one.
pub(crate) fn from_str(text: &str) -> Result<Value, serde_json::Error> {
    let value = serde_json::from_str(text)?;
    check_depth(&value, text)?;
    Ok(value)
}

/// `text` as exactly one JSON value that stands inside a call's input object, one level
/// below it (a parameter's value in the dialects that write parameters one by one): C8.2
/// counts the input object, so the value may nest one level less.
pub(crate) fn value_in_input(text: &str) -> Result<Value, serde_json::Error> {
    value_at_level(text, 2)
}

/// `text` as exactly one JSON value whose own level is `level` (1: the call's object; 2: a
/// value in its input; deeper in the dialects whose arguments nest as elements): C8.2 counts
/// the levels above it.
pub(crate) fn value_at_level(text: &str, level: usize) -> Result<Value, serde_json::Error> {
    let value = serde_json::from_str(text)?;
    check_depth_from(&value, text, level)?;
    Ok(value)
}

/// C8.2 on a value serde_json read (its own limit is one level more than [`MAX_DEPTH`]) from
/// `source`, or from a part of it.
pub(crate) fn check_depth(value: &Value, source: &str) -> Result<(), serde_json::Error> {
    check_depth_from(value, source, 1)
}

/// C8.2 on a value whose own level is `level` (1: the call's object).
fn check_depth_from(value: &Value, source: &str, level: usize) -> Result<(), serde_json::Error> {
    // A value nests no deeper than its source has `[` and `{`: a SIMD count spares almost
    // every call the walk (which cost the JSON dialects about 15% of their throughput).
    let openers = memchr::memchr2_iter(b'[', b'{', source.as_bytes());
    let room = (MAX_DEPTH + 1).saturating_sub(level);
    if openers.take(room + 1).count() <= room {
        return Ok(());
    }
    // Iterative, so the check itself needs no stack whatever the value.
    let mut pending = vec![(value, level)];
    while let Some((value, depth)) = pending.pop() {
        match value {
            Value::Array(_) | Value::Object(_) if depth > MAX_DEPTH => {
                return Err(serde_json::Error::custom(format!(
                    "nesting deeper than {MAX_DEPTH} levels of arrays and objects"
                )));
            }
            Value::Array(items) => pending.extend(items.iter().map(|item| (item, depth + 1))),
            Value::Object(fields) => {
                pending.extend(fields.values().map(|field| (field, depth + 1)))
            }
            _ => {}
        }
    }
    Ok(())
}

/// JSON's insignificant whitespace (space, tab, CR, LF): the blanks that may stand between an
/// opener and its JSON (`tag` T2, `signature` S1.2).
pub(crate) fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(levels: usize) -> String {
        // An object holding arrays: `levels` levels in all.
        let arrays = levels - 1;
        format!("{{\"v\": {}{}}}", "[".repeat(arrays), "]".repeat(arrays))
    }

    #[test]
    fn nesting_is_capped_at_max_depth() {
        assert!(from_str(&nested(MAX_DEPTH)).is_ok());
        let error = from_str(&nested(MAX_DEPTH + 1)).expect_err("one level too deep");
        assert!(
            error.to_string().contains("nesting deeper than 126"),
            "{error}"
        );
        // serde_json's own limit still stops anything deeper before it is built.
        assert!(from_str(&nested(10_000)).is_err());
        assert!(from_str("[1, {\"a\": []}, \"[[[\"]").is_ok());
    }

    #[test]
    fn an_event_of_the_deepest_call_reads_back() {
        // The event nests the call's object one level deeper: 127, serde_json's limit.
        let value = from_str(&nested(MAX_DEPTH)).expect("deepest valid");
        let line = serde_json::json!({"type": "tool-call", "input": value}).to_string();
        assert!(serde_json::from_str::<Value>(&line).is_ok());
    }

    #[test]
    fn halves_of_surrogate_pairs_are_refused() {
        assert_eq!(
            from_str(r#""\ud83c\udf27""#).ok(),
            Some(Value::from("\u{1F327}"))
        );
        for text in [
            r#""\udf27""#,
            r#""\ud83c""#,
            r#""\ud83cx""#,
            r#""\udf27\ud83c""#,
        ] {
            assert!(from_str(text).is_err(), "{text}");
        }
    }
}
