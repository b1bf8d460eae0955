//! How a root cause is named: a one-line title a maintainer would accept as an issue's, and a
//! kebab-case slug for its page's file name (`specs/runner.md` R9.6), both from the dialect,
//! the verdicts and where in the minimal stream the bug shows.

use std::collections::BTreeSet;

use super::skeleton::Skeleton;
use crate::judge::{Layer, Severity, Verdict};
use crate::split::Realism;

/// The longest slug.
pub const MAX_SLUG: usize = 60;

/// What a root cause is named from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Naming<'a> {
    pub(crate) dialect: &'a str,
    pub(crate) verdicts: &'a [Verdict],
    pub(crate) layer: Layer,
    pub(crate) realism: Realism,
    pub(crate) skeleton: &'a Skeleton,
    /// The minimal stream and its cuts.
    pub(crate) stream: &'a str,
    pub(crate) cuts: &'a [usize],
    pub(crate) markers: &'a [String],
}

impl Naming<'_> {
    /// `hermes: loses a call when a chunk ends at `<tool_` (synthetic cuts only)`.
    pub(crate) fn title(&self) -> String {
        let symptoms = symptoms(self.verdicts);
        let place = match (self.layer, self.cut_marker()) {
            (Layer::Streaming, Some((marker, at))) => {
                format!("when a chunk ends at `{}`", &marker[..at])
            }
            (Layer::Streaming, _) if self.verdicts.contains(&Verdict::NonStreamingDiffers) => {
                format!(
                    "when `{}` is parsed whole (non-streaming)",
                    shown(self.skeleton)
                )
            }
            (Layer::Streaming, None) if self.verdicts.contains(&Verdict::Flaky) => {
                format!("on `{}`", shown(self.skeleton))
            }
            (Layer::Streaming, None) => format!("when `{}` is chunked", shown(self.skeleton)),
            (Layer::Conformance, _) => format!("on `{}`", shown(self.skeleton)),
            (Layer::Wire, _) => format!("writing `{}` as chunks", shown(self.skeleton)),
        };
        let only = match self.realism {
            Realism::Synthetic => " (synthetic cuts only)",
            Realism::Realistic => "",
        };
        format!("{}: {symptoms} {place}{only}", self.dialect)
    }

    /// `hermes-missing-call-cut-in-tool-call`, at most [`MAX_SLUG`] chars.
    pub(crate) fn slug(&self) -> String {
        // `chunk-dependent` says only that a chunking differs; its symptoms say the bug, and
        // the room is better spent on where it shows.
        let symptoms: Vec<&str> = self
            .verdicts
            .iter()
            .filter(|v| **v != Verdict::ChunkDependent)
            .map(|v| v.name())
            .collect();
        let verdicts = if symptoms.is_empty() {
            vec![Verdict::ChunkDependent.name()]
        } else {
            symptoms
        };
        let hint = match self.cut_marker() {
            Some((marker, _)) => format!("cut-in-{}", kebab(marker)),
            None => self
                .skeleton
                .markers()
                .next()
                .map_or_else(|| "text".to_owned(), kebab),
        };
        let slug = kebab(&format!("{}-{}-{hint}", self.dialect, verdicts.join("-")));
        shorten(&slug, MAX_SLUG)
    }

    /// The first marker a cut falls inside, and how many of its bytes come before the cut.
    fn cut_marker(&self) -> Option<(&str, usize)> {
        if self.realism == Realism::Realistic {
            return None;
        }
        self.cuts.iter().find_map(|&cut| {
            self.markers
                .iter()
                .filter(|m| m.len() >= 2)
                .find_map(|marker| {
                    self.stream
                        .match_indices(marker.as_str())
                        .find_map(|(start, _)| {
                            (start < cut && cut < start + marker.len())
                                .then(|| (marker.as_str(), cut - start))
                        })
                })
        })
    }
}

/// What the verdicts say the application sees, worst symptoms first: `loses a call and
/// loses text`. `chunk-dependent` and `non-streaming-differs` (the title's place says it) are
/// named only when they are all there is.
fn symptoms(verdicts: &[Verdict]) -> String {
    let mut verdicts: Vec<Verdict> = verdicts
        .iter()
        .copied()
        .filter(|v| !matches!(v, Verdict::ChunkDependent | Verdict::NonStreamingDiffers))
        .collect();
    // Worst first; `flaky`, which has no severity of its own, last.
    verdicts.sort_by_key(|&v| Severity::of_verdict(v).unwrap_or(Severity::Low));
    let mut phrases: Vec<&str> = verdicts.into_iter().map(phrase).collect();
    if phrases.is_empty() {
        phrases.push("gives other output");
    }
    let mut seen = BTreeSet::new();
    phrases.retain(|p| seen.insert(*p));
    match phrases.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

fn phrase(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Crash => "crashes",
        Verdict::Timeout => "hangs",
        Verdict::Protocol => "breaks the protocol",
        Verdict::Grammar => "breaks the event grammar",
        Verdict::ChunkDependent => "gives other output when chunked",
        Verdict::Flaky => "gives other output on a second replay",
        Verdict::NonStreamingDiffers => "gives other output when not streamed",
        Verdict::ChoicesShareState => "mixes the choices of one request",
        Verdict::NotEager | Verdict::Latency => "holds text back",
        Verdict::TextNotConserved => "does not conserve text",
        Verdict::LostText => "loses text",
        Verdict::LeakedMarkup => "leaks markup into text",
        Verdict::Reasoning => "mixes up reasoning and text",
        Verdict::MissingCall => "loses a call",
        Verdict::ExtraCall => "makes a call that is not there",
        Verdict::WrongCall => "gets a call wrong",
        Verdict::MissingError => "misses an error event",
        Verdict::ExtraError => "adds an error event",
        Verdict::Order => "reorders events",
        Verdict::Definition => "misreads a definition",
        Verdict::Superlinear => "slows down superlinearly",
        Verdict::Wire => "writes chunks that break a wire rule",
    }
}

/// A skeleton as a title shows it: at most 40 chars, cut with `…`.
fn shown(skeleton: &Skeleton) -> String {
    let text = skeleton.to_string();
    if text.chars().count() <= 40 {
        text
    } else {
        let head: String = text.chars().take(39).collect();
        format!("{head}…")
    }
}

/// Lower-case ASCII letters and digits, every other run of chars one `-`, none at the ends.
fn kebab(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-');
    if out.is_empty() {
        "marker".to_owned()
    } else {
        out.to_owned()
    }
}

/// `slug` cut to at most `max` chars at a `-`, never ending in one.
pub(crate) fn shorten(slug: &str, max: usize) -> String {
    if slug.len() <= max {
        return slug.to_owned();
    }
    let head = &slug[..max];
    let head = match head.rfind('-') {
        Some(at) if at > 0 => &head[..at],
        _ => head,
    };
    head.trim_end_matches('-').to_owned()
}

/// Makes every slug unique: the second of a slug gets `-2`, the third `-3`, … (cut first so
/// that the suffix fits in [`MAX_SLUG`]).
pub(crate) fn unique(slugs: &mut [String]) {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for slug in slugs.iter_mut() {
        let mut n = 1;
        let mut candidate = slug.clone();
        while taken.contains(&candidate) {
            n += 1;
            let suffix = format!("-{n}");
            candidate = format!("{}{suffix}", shorten(slug, MAX_SLUG - suffix.len()));
        }
        taken.insert(candidate.clone());
        *slug = candidate;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_and_slugs_say_what_and_where() {
        let markers = vec!["<tool_call>".to_owned(), "</tool_call>".to_owned()];
        let stream = "<tool_call>{}</tool_call>";
        let skeleton = Skeleton::of(stream, &markers);
        let naming = Naming {
            dialect: "hermes",
            verdicts: &[Verdict::ChunkDependent, Verdict::MissingCall],
            layer: Layer::Streaming,
            realism: Realism::Synthetic,
            skeleton: &skeleton,
            stream,
            cuts: &[6],
            markers: &markers,
        };
        assert_eq!(
            naming.title(),
            "hermes: loses a call when a chunk ends at `<tool_` (synthetic cuts only)"
        );
        assert_eq!(naming.slug(), "hermes-missing-call-cut-in-tool-call");
        // A cut before a marker is not in it.
        let later = format!("ab{stream}");
        let skeleton = Skeleton::of(&later, &markers);
        let cut_later = Naming {
            stream: &later,
            skeleton: &skeleton,
            cuts: &[1, 8],
            ..naming
        };
        assert_eq!(
            cut_later.title(),
            "hermes: loses a call when a chunk ends at `<tool_` (synthetic cuts only)"
        );
        let conformance = Naming {
            verdicts: &[Verdict::LostText, Verdict::LeakedMarkup],
            layer: Layer::Conformance,
            realism: Realism::Realistic,
            cuts: &[],
            ..naming
        };
        assert_eq!(
            conformance.title(),
            "hermes: loses text and leaks markup into text on `<tool_call>…</tool_call>`"
        );
        assert_eq!(
            conformance.slug(),
            "hermes-lost-text-leaked-markup-tool-call"
        );
    }

    #[test]
    fn slugs_are_short_and_unique() {
        let long = "qwen3-coder-chunk-dependent-missing-call-lost-text-leaked-markup-cut-in-x";
        let short = shorten(long, MAX_SLUG);
        assert!(short.len() <= MAX_SLUG && !short.ends_with('-'), "{short}");
        let mut slugs = vec![short.clone(), short.clone(), "a".to_owned()];
        unique(&mut slugs);
        assert_eq!(slugs[0], short);
        assert!(slugs[1].ends_with("-2") && slugs[1].len() <= MAX_SLUG);
        assert_eq!(slugs[2], "a");
        assert_eq!(kebab("<｜tool▁call▁begin｜>"), "tool-call-begin");
    }
}
