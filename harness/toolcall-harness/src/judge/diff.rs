//! The one diff every finding prints: a unified diff of two texts (event lists as one JSON line
//! per event, or pretty JSON contracts) with sides labelled for what they are ("expected" and
//! "actual", or "whole stream" and "this chunking"). A changed line too long to compare by eye
//! gets a pointer to its first differing character.

use std::fmt::Write as _;

use similar::{ChangeTag, TextDiff};

use crate::event::Event;

/// What the two sides of a diff are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sides {
    /// The left (`-`) side.
    pub left: &'static str,
    /// The right (`+`) side.
    pub right: &'static str,
}

impl Sides {
    /// The case's expected events against the candidate's (or parser's) output.
    pub const EXPECTED: Sides = Sides {
        left: "expected",
        right: "actual",
    };
    /// The whole stream's output against a chunking's: chunk-dependence.
    pub const CHUNKING: Sides = Sides {
        left: "whole stream",
        right: "this chunking",
    };
    /// The whole stream streamed as one chunk against the non-streaming result of the same
    /// reply (`specs/runner.md` R2.3).
    pub const NON_STREAMING: Sides = Sides {
        left: "whole stream",
        right: "non-streaming",
    };
    /// A choice of several against the whole stream replayed alone (`specs/runner.md` R2.4).
    pub const CHOICE: Sides = Sides {
        left: "whole stream",
        right: "this choice",
    };
    /// The first replay of a chunking against a second one: flakiness.
    pub const REPLAYS: Sides = Sides {
        left: "first replay",
        right: "second replay",
    };
}

/// Changed lines at least this long get a first-difference pointer.
const LONG_LINE: usize = 80;
/// Chars of context the pointer shows on each side of the first difference.
const CONTEXT: usize = 24;

/// A unified diff of two event lists, one JSON line per event.
pub fn events(left: &[Event], right: &[Event], sides: Sides) -> String {
    events_shown((left, left), (right, right), sides)
}

/// What follows a diff that shows an `error` event's own text, which was not compared.
pub const ERROR_TEXT_NOTE: &str =
    "  (an error's errorText is not compared: each side shows its own wording)";

/// A unified diff of two event lists, each side given as `(compared, shown)`: lines are
/// matched as the `compared` events are (one JSON line per event), and each line is printed
/// as its `shown` event (the same index; a line the two sides share is printed as the right
/// side shows it). Candidates' `error` texts are compared blank (`specs/runner.md` §3) yet
/// shown as the candidate wrote them; a diff that prints such a text says so.
pub fn events_shown(
    (left, left_shown): (&[Event], &[Event]),
    (right, right_shown): (&[Event], &[Event]),
    sides: Sides,
) -> String {
    let keys = |events: &[Event]| events.iter().map(Event::to_json_line).collect::<Vec<_>>();
    let (old, new) = (keys(left), keys(right));
    let old: Vec<&str> = old.iter().map(String::as_str).collect();
    let new: Vec<&str> = new.iter().map(String::as_str).collect();
    let diff = TextDiff::from_slices(&old, &new);
    let shown = |events: &[Event], compared: &[&str], index: Option<usize>| {
        let index = index.unwrap_or_default();
        let line = events
            .get(index)
            .map_or_else(|| compared[index].to_owned(), Event::to_json_line);
        let uncompared = line != compared[index];
        (line, uncompared)
    };
    let mut unified = String::new();
    let mut uncompared_shown = false;
    for hunk in diff.unified_diff().context_radius(3).iter_hunks() {
        if unified.is_empty() {
            let _ = writeln!(unified, "--- {}\n+++ {}", sides.left, sides.right);
        }
        let _ = writeln!(unified, "{}", hunk.header());
        for change in hunk.iter_changes() {
            let (line, uncompared) = match change.tag() {
                ChangeTag::Delete => shown(left_shown, &old, change.old_index()),
                ChangeTag::Insert | ChangeTag::Equal => {
                    shown(right_shown, &new, change.new_index())
                }
            };
            uncompared_shown |= uncompared;
            let _ = writeln!(unified, "{}{line}", change.tag());
        }
    }
    let mut out = with_pointers(&unified);
    if uncompared_shown {
        out.push_str(ERROR_TEXT_NOTE);
        out.push('\n');
    }
    out
}

/// A unified diff of two texts (compared line by line).
pub fn text(left: &str, right: &str, sides: Sides) -> String {
    let unified = TextDiff::from_lines(left, right)
        .unified_diff()
        .context_radius(3)
        .header(sides.left, sides.right)
        .to_string();
    with_pointers(&unified)
}

/// The unified diff with, after each block of `+` lines, a pointer for each long line that
/// replaced a `-` line of the same block.
fn with_pointers(unified: &str) -> String {
    let lines: Vec<&str> = unified.lines().collect();
    let mut out = String::with_capacity(unified.len());
    let mut i = 0;
    while i < lines.len() {
        let removed = run(&lines[i..], '-');
        let added = run(&lines[i + removed..], '+');
        if removed == 0 || added == 0 {
            out.push_str(lines[i]);
            out.push('\n');
            i += 1;
            continue;
        }
        for line in &lines[i..i + removed + added] {
            out.push_str(line);
            out.push('\n');
        }
        for (old, new) in lines[i..i + removed]
            .iter()
            .zip(&lines[i + removed..i + removed + added])
        {
            if let Some(pointer) = pointer(&old[1..], &new[1..]) {
                out.push_str(&pointer);
                out.push('\n');
            }
        }
        i += removed + added;
    }
    out
}

/// How many lines at the start of `lines` are changes of `sign` (not file headers).
fn run(lines: &[&str], sign: char) -> usize {
    let header = if sign == '-' { "---" } else { "+++" };
    lines
        .iter()
        .take_while(|l| l.starts_with(sign) && !l.starts_with(header))
        .count()
}

/// `  first difference at char N: -"…" +"…"` for two long lines that differ.
fn pointer(old: &str, new: &str) -> Option<String> {
    if old.chars().count() < LONG_LINE && new.chars().count() < LONG_LINE {
        return None;
    }
    let (old_chars, new_chars): (Vec<char>, Vec<char>) =
        (old.chars().collect(), new.chars().collect());
    let at = old_chars
        .iter()
        .zip(&new_chars)
        .position(|(a, b)| a != b)
        .unwrap_or(old_chars.len().min(new_chars.len()));
    let excerpt = |chars: &[char]| {
        let start = at.saturating_sub(CONTEXT);
        let end = (at + CONTEXT).min(chars.len());
        let mut text = String::new();
        if start > 0 {
            text.push('…');
        }
        text.extend(&chars[start..end]);
        if end < chars.len() {
            text.push('…');
        }
        text
    };
    let mut line = String::new();
    let _ = write!(
        line,
        "  first difference at char {}: -{} +{}",
        at + 1,
        excerpt(&old_chars),
        excerpt(&new_chars)
    );
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_are_labelled() {
        let diff = events(&[Event::text("a")], &[Event::text("b")], Sides::CHUNKING);
        assert!(
            diff.starts_with("--- whole stream\n+++ this chunking\n"),
            "{diff}"
        );
        assert!(
            diff.contains("-{\"type\":\"text-delta\",\"delta\":\"a\"}"),
            "{diff}"
        );
        assert!(
            diff.contains("+{\"type\":\"text-delta\",\"delta\":\"b\"}"),
            "{diff}"
        );
        assert!(!diff.contains("first difference"), "short lines: {diff}");
    }

    #[test]
    fn long_lines_point_at_their_first_difference() {
        let long = "x".repeat(100);
        let diff = events(
            &[Event::text(format!("{long}abc"))],
            &[Event::text(format!("{long}abd"))],
            Sides::EXPECTED,
        );
        let pointer = diff
            .lines()
            .find(|l| l.starts_with("  first difference"))
            .unwrap_or_else(|| panic!("no pointer in {diff}"));
        // `{"type":"text-delta","delta":"` is 30 chars, then 100 x's, then "ab".
        assert!(pointer.contains("at char 133:"), "{pointer}");
        assert!(pointer.ends_with("xxabd\"}"), "{pointer}");
    }
}
