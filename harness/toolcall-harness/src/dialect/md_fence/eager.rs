//! The eagerness oracle for md-fence (`specs/dialects/md-fence.md` §7), written as plain string
//! rules independent of the parser's state machine: what the parser may still hold back after
//! a push.

/// Whether `held`, the input the parser has not released yet, is something F7 allows it to
/// hold: nothing; a prefix of a tool opener line (F7.1); or a complete tool opener line and
/// what follows it (F7.2, an open block).
pub fn may_hold(held: &str) -> bool {
    match held.split_once('\n') {
        None => is_opener_prefix(held),
        Some((first, _)) => is_tool_opener(first),
    }
}

/// F7.1: a line that may still become a tool opener once more of it arrives.
fn is_opener_prefix(line: &str) -> bool {
    let Some((run_char, run, info)) = split_fence(line) else {
        // Only spaces (at most 3) so far, or nothing.
        return line.len() <= 3 && line.bytes().all(|b| b == b' ');
    };
    if info.is_empty() {
        return true;
    }
    if run < 3 || (run_char == '`' && info.contains('`')) {
        return false;
    }
    let word = info.trim_start_matches(is_blank);
    "tool".starts_with(word)
        || word
            .strip_prefix("tool")
            .is_some_and(|rest| rest.starts_with(is_blank))
}

/// F2.1, F2.2: a complete tool opener line (without its `\n`).
fn is_tool_opener(line: &str) -> bool {
    let Some((run_char, run, info)) = split_fence(line) else {
        return false;
    };
    run >= 3
        && !(run_char == '`' && info.contains('`'))
        && info.split(is_blank).find(|w| !w.is_empty()) == Some("tool")
}

/// A line's fence character, run length and info string, if it is up to 3 spaces then a
/// backtick or tilde run.
fn split_fence(line: &str) -> Option<(char, usize, &str)> {
    let rest = line.trim_start_matches(' ');
    if line.len() - rest.len() > 3 {
        return None;
    }
    let run_char = rest.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let run = rest.len() - rest.trim_start_matches(run_char).len();
    Some((run_char, run, &rest[run..]))
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r')
}

#[cfg(test)]
mod tests {
    use super::may_hold;

    #[test]
    fn opener_prefixes_may_be_held() {
        for held in [
            "",
            " ",
            "   ",
            "`",
            "``",
            "```",
            "~~~~ ",
            "``` t",
            "```too",
            "```tool",
            "```tool x=\"a b",
            "```tool\r",
        ] {
            assert!(may_hold(held), "{held:?}");
        }
    }

    #[test]
    fn text_may_not_be_held() {
        for held in [
            "a",
            "    ",
            "    ```",
            "```p",
            "```toolbox",
            "``` tool `x",
            "``x",
            "\t```",
            "```tool\nx",
            "hi\n```tool",
        ] {
            assert_eq!(may_hold(held), held == "```tool\nx", "{held:?}");
        }
    }

    #[test]
    fn open_blocks_may_be_held() {
        assert!(may_hold("```tool search c1\ninput:\n  q: 1\n"));
        assert!(may_hold("  ~~~ tool\n```\n"));
        assert!(!may_hold("```python\nx\n"));
        assert!(!may_hold("```tool `x`\nbody\n"));
    }
}
