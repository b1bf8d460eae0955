//! Shell-style globs (`*` any run, `?` one char) for `--case`, `--skip` and `--expect-fail`.

/// Whether `text` matches `pattern` entirely. Linear backtracking over the last `*`, so no
/// pattern can make it exponential.
pub fn matches(pattern: &str, text: &str) -> bool {
    let (pattern, text): (Vec<char>, Vec<char>) =
        (pattern.chars().collect(), text.chars().collect());
    let (mut p, mut t) = (0, 0);
    let mut resume: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some('*') => {
                resume = Some((p, t));
                p += 1;
            }
            Some(&c) if c == '?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match resume {
                Some((star, from)) => {
                    p = star + 1;
                    t = from + 1;
                    resume = Some((star, from + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn globs() {
        assert!(matches("md-fence/*", "md-fence/seed-tool-error"));
        assert!(matches("*/seed-*", "tag/seed-get-weather"));
        assert!(matches("tag/?-x", "tag/a-x"));
        assert!(matches("*", ""));
        assert!(!matches("md-fence/*", "tag/x"));
        assert!(!matches("a*b", "acbd"));
        assert!(matches("a*b*c", "axxbyyc"));
        assert!(!matches("", "x"));
    }
}
