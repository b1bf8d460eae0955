//! The grammar fuzzed streams are built from: the pieces every dialect shares (JSON pieces,
//! line ends, blanks, multi-byte text, `<think>`), then each dialect's own syntax pieces, from
//! its descriptor (`Descriptor::fragments`). Every dialect gets every fragment: one dialect's
//! markup is another's plain text, and a parser must tell them apart. The generation prompts
//! fuzzed streams continue are the dialects' too (`Descriptor::prefills`).

use std::sync::OnceLock;

use crate::dialect::Dialect;

/// The pieces no one dialect owns.
const SHARED: &[&str] = &[
    // JSON pieces
    "{",
    "}",
    "[",
    "]",
    "\"",
    "\\",
    ":",
    ",",
    "[1]",
    "1e309",
    "-0.0",
    "\"\\u00e9\"",
    "\"\\ud83d\"",
    "true",
    // text, blanks, line ends
    "x",
    "Hello ",
    "\n",
    "\r\n",
    "\r",
    " ",
    "   ",
    "\t",
    "`",
    "<",
    ">",
    "é",
    "😀",
    "\u{feff}",
    "\u{0}",
    // JSON readings parsers differ on (specs/streaming.md C8), appended after the first
    // `tch fuzz` finding (a lone surrogate escape)
    "\"\\udf27\"",
    "[[[[[[[[[[[[[[[[",
    "]]]]]]]]]]]]]]]]",
    "\"__proto__\"",
    // reasoning (specs/events.md §4), which several dialects share
    "<think>",
    "</think>",
    "<think>\n",
];

/// Every fragment: the shared ones (`SHARED`), then each dialect's own in `Dialect::ALL`
/// order. Fuzz inputs refer to fragments by index (`super::input`), so an input means the same
/// stream only within one version of `tch`: a crash file is turned into a stream and chunk
/// vector at once (`examples/fuzz_corpus.rs`), which any later version replays.
pub fn fragments() -> &'static [&'static str] {
    static ALL: OnceLock<Vec<&'static str>> = OnceLock::new();
    ALL.get_or_init(|| {
        let own = Dialect::ALL.iter().flat_map(|d| d.descriptor().fragments);
        SHARED.iter().chain(own).copied().collect()
    })
}

/// The generation prompts a fuzzed stream may continue (`specs/streaming.md` C9): none first,
/// then each dialect's (`Descriptor::prefills`), in `Dialect::ALL` order, each once.
pub fn prefills() -> &'static [&'static str] {
    static ALL: OnceLock<Vec<&'static str>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = vec![""];
        for &prefill in Dialect::ALL.iter().flat_map(|d| d.descriptor().prefills) {
            if !all.contains(&prefill) {
                all.push(prefill);
            }
        }
        all
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Registry;

    #[test]
    fn every_dialect_default_prompt_is_fuzzed() {
        for &dialect in Dialect::ALL {
            assert!(prefills().contains(&dialect.default_prefill()), "{dialect}");
        }
    }

    #[test]
    fn every_dialect_marker_is_in_some_fragment() {
        // A marker no fragment holds is one the fuzzer meets only by chance in raw bytes.
        // Markers of one or two chars are built from the shared pieces (pythonic's `[A`…`[z`
        // openers too); `tag`'s depend on the registry (none here).
        let all = fragments();
        let missing: Vec<String> = Dialect::ALL
            .iter()
            .flat_map(|&dialect| {
                let mut markers = dialect.markers(&Registry::default());
                markers.sort_unstable();
                markers.dedup();
                markers
                    .into_iter()
                    .filter(|m| {
                        m.chars().count() > 2 && !all.iter().any(|f| f.contains(m.as_str()))
                    })
                    .map(move |m| format!("{dialect}: {m:?}"))
            })
            .collect();
        assert!(
            missing.is_empty(),
            "markers no fragment holds: {missing:#?}"
        );
    }
}
