//! Delta debugging (Zeller's ddmin) of a failing replay: first the stream's text, then its cut
//! points, repeated while either shrinks, so a failure is reported as a minimal stream and
//! chunk vector.

use std::ops::Range;

/// A shrunk failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shrunk {
    /// The shrunk stream.
    pub stream: String,
    /// Its cut offsets.
    pub cuts: Vec<usize>,
    /// Reductions accepted.
    pub steps: usize,
    /// Replays tried.
    pub tries: usize,
}

/// Shrinks `(stream, cuts)` while `fails` still holds, trying at most `max_tries` candidates.
/// `fails` must hold for the input itself.
pub fn shrink(
    stream: &str,
    cuts: &[usize],
    max_tries: usize,
    mut fails: impl FnMut(&str, &[usize]) -> bool,
) -> Shrunk {
    let mut best = Shrunk {
        stream: stream.to_owned(),
        cuts: cuts.to_vec(),
        steps: 0,
        tries: 0,
    };
    loop {
        let before = best.steps;
        // Text: remove runs of chars, cuts inside a removed run collapse onto its start.
        ddmin(
            &mut best,
            max_tries,
            &mut fails,
            |s| char_count(&s.stream),
            without_chars,
        );
        // ddmin removes runs aligned to its partitions; a balanced piece (`,"k":1` in JSON)
        // rarely is one. Every short window, longest first, catches those.
        remove_windows(&mut best, max_tries, &mut fails);
        // Cuts: remove runs of cut points.
        ddmin(
            &mut best,
            max_tries,
            &mut fails,
            |s| s.cuts.len(),
            |s, parts| {
                let mut cuts = s.cuts.clone();
                cuts.drain(parts);
                (s.stream.clone(), cuts)
            },
        );
        if best.steps == before || best.tries >= max_tries {
            return best;
        }
    }
}

/// One ddmin pass over `len(best)` units: try removing each of `n` parts, refining `n` until
/// single units cannot be removed.
fn ddmin(
    best: &mut Shrunk,
    max_tries: usize,
    fails: &mut impl FnMut(&str, &[usize]) -> bool,
    len: impl Fn(&Shrunk) -> usize,
    without: impl Fn(&Shrunk, Range<usize>) -> (String, Vec<usize>),
) {
    let mut parts = 2;
    'refine: loop {
        let units = len(best);
        if units == 0 {
            return;
        }
        let parts_now = parts.min(units);
        let size = units.div_ceil(parts_now);
        for start in (0..units).step_by(size) {
            if best.tries >= max_tries {
                return;
            }
            let (stream, cuts) = without(best, start..(start + size).min(units));
            best.tries += 1;
            if fails(&stream, &cuts) {
                best.stream = stream;
                best.cuts = cuts;
                best.steps += 1;
                parts = (parts_now - 1).max(2);
                continue 'refine;
            }
        }
        if parts_now >= units {
            return;
        }
        parts = (parts_now * 2).min(units);
    }
}

/// The longest run [`remove_windows`] tries: syntax pieces are short, and every width costs a
/// replay per char.
const MAX_WINDOW: usize = 12;

/// Tries removing every run of up to [`MAX_WINDOW`] chars, longest first, keeping each
/// removal that still fails.
fn remove_windows(
    best: &mut Shrunk,
    max_tries: usize,
    fails: &mut impl FnMut(&str, &[usize]) -> bool,
) {
    let mut width = char_count(&best.stream).min(MAX_WINDOW);
    while width > 0 {
        let mut start = 0;
        while start + width <= char_count(&best.stream) {
            if best.tries >= max_tries {
                return;
            }
            let (stream, cuts) = without_chars(best, start..start + width);
            best.tries += 1;
            if fails(&stream, &cuts) {
                best.stream = stream;
                best.cuts = cuts;
                best.steps += 1;
            } else {
                start += 1;
            }
        }
        width -= 1;
    }
}

/// `best` without chars `chars`; cuts inside the removed run collapse onto its start.
fn without_chars(best: &Shrunk, chars: Range<usize>) -> (String, Vec<usize>) {
    let removed = char_range(&best.stream, chars);
    let gone = removed.len();
    let mut stream = best.stream.clone();
    stream.replace_range(removed.clone(), "");
    let cuts = best
        .cuts
        .iter()
        .map(|&c| match c {
            c if c <= removed.start => c,
            c if c >= removed.end => c - gone,
            _ => removed.start,
        })
        .collect();
    (stream, cuts)
}

fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// The byte range of chars `chars` of `text`.
fn char_range(text: &str, chars: Range<usize>) -> Range<usize> {
    let offset = |n: usize| text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    offset(chars.start)..offset(chars.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_text_and_cuts_to_what_matters() {
        // "Fails" when the text holds "<t" and some chunk ends right after '<'.
        let stream = "hello é <tool_call> world <tool_call> end";
        let cuts: Vec<usize> = (1..stream.len())
            .filter(|&i| stream.is_char_boundary(i))
            .collect();
        let fails =
            |s: &str, cuts: &[usize]| s.match_indices("<t").any(|(i, _)| cuts.contains(&(i + 1)));
        assert!(fails(stream, &cuts));
        let shrunk = shrink(stream, &cuts, 10_000, fails);
        assert_eq!(shrunk.stream, "<t");
        assert_eq!(shrunk.cuts, vec![1]);
        assert!(shrunk.steps > 0 && shrunk.tries >= shrunk.steps);
    }

    #[test]
    fn stops_at_the_budget() {
        let shrunk = shrink("abcdef", &[], 3, |_, _| false);
        assert_eq!(shrunk.tries, 3);
        assert_eq!(shrunk.stream, "abcdef");
    }
}
