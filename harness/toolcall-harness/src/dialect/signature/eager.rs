//! The eagerness oracle for signature (`specs/dialects/signature.md` §4), written as plain
//! string rules independent of the parser's state machine: what the parser may still hold back
//! after a push.

const MARKER: &str = "###:";

/// Whether `held`, the input the parser has not released yet, is something S4 allows it to
/// hold: nothing; a prefix of the marker, or the marker and blanks (S4.1); or the marker,
/// blanks and an object whose matching `}` has not arrived (S4.2, an open block).
pub fn may_hold(held: &str) -> bool {
    let Some(after_marker) = held.strip_prefix(MARKER) else {
        return MARKER.starts_with(held);
    };
    let object = after_marker.trim_start_matches(is_blank);
    object.is_empty() || (object.starts_with('{') && !closes(object))
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Whether `object` (starting with `{`) contains the `}` matching its first brace, counting
/// braces outside JSON strings only.
fn closes(object: &str) -> bool {
    let mut depth = 0usize;
    let mut chars = object.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                // Skip the string: up to the next `"` that no `\` escapes.
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return true;
                }
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::may_hold;

    #[test]
    fn marker_prefixes_and_open_objects_may_be_held() {
        for held in [
            "",
            "#",
            "##",
            "###",
            "###:",
            "###: \t\r\n\n ",
            "###:{",
            "###: {\n  \"signature\": \"CLIENT_TOOL_CALL\",",
            "###: {\"a\": \"}\"",
            "###: {\"a\": \"\\\"}",
            "###: {{}",
            "###: {\"é😀\": {\"b\": 1}",
        ] {
            assert!(may_hold(held), "{held:?}");
        }
    }

    #[test]
    fn text_and_closed_objects_may_not_be_held() {
        for held in [
            "a",
            " ###:",
            "#a",
            "####",
            "### ",
            "###:x",
            "###: [",
            "###: {}",
            "###: {}\n",
            "###: {\"a\": \"\\\\\"}",
            "###: {\"a\": {}} x",
            "x\n###:",
        ] {
            assert!(!may_hold(held), "{held:?}");
        }
    }
}
