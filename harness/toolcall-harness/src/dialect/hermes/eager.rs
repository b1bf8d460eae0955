//! The eagerness oracle for hermes (`specs/dialects/hermes.md` §4), written as plain string
//! rules independent of the parser's state machine: what the parser may still hold back after
//! a push.

const OPENER: &str = "<tool_call>";
const CLOSER: &str = "</tool_call>";

/// Whether `held`, the input the parser has not released yet, is something H4 allows it to
/// hold: nothing; `<` and a prefix of `tool_call>` (H4.1); or a complete opener and what follows
/// it, up to but not including a complete closer (H4.2, an open block).
pub fn may_hold(held: &str) -> bool {
    OPENER.starts_with(held)
        || held
            .strip_prefix(OPENER)
            .is_some_and(|content| !content.contains(CLOSER))
}

#[cfg(test)]
mod tests {
    use super::may_hold;

    #[test]
    fn opener_prefixes_and_open_blocks_may_be_held() {
        for held in [
            "",
            "<",
            "<tool_",
            "<tool_call",
            "<tool_call>",
            "<tool_call>{\"name\": \"é😀\"",
            "<tool_call></tool_call",
            "<tool_call><tool_call>",
        ] {
            assert!(may_hold(held), "{held:?}");
        }
    }

    #[test]
    fn text_and_closed_blocks_may_not_be_held() {
        for held in [
            "a",
            "a<",
            "<<",
            "<tool_x",
            "<Tool_Call>",
            "<tool_call >",
            "</tool_call>",
            "<tool_calls",
            "<tool_call></tool_call>",
            "<tool_call>{}</tool_call>x",
            "x<tool_call>",
        ] {
            assert!(!may_hold(held), "{held:?}");
        }
    }
}
