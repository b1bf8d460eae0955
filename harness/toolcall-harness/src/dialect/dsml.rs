//! The `deepseek-v3.2`, `deepseek-v4` and `deepseek-v4.1` reference parsers: DeepSeek's DSML
//! (`specs/dialects/deepseek-v3.2.md`, with the marker names of `specs/dialects/deepseek-v4.md`
//! and `specs/dialects/deepseek-v4.1.md`). A tool-calls section (`<｜DSML｜function_calls>`,
//! `<｜DSML｜tool_calls>`, `<｜DSML｜ calls>`) holds one `invoke` element per call, each holding
//! `parameter` elements; `<think>…</think>` is reasoning.
//!
//! One grammar for the dialect kit, written once and instantiated per version by
//! [`dsml_version!`] from the version's three tag names: the versions differ in their marker
//! strings only (DSMLT1.1, DSMLS1.1). A call block is scanned in the four states of DSML2.3, one
//! kit [`Block`] each, since each state has its own closers: the invoke tag, the body, a
//! parameter tag and a value. The states only find where the block ends; [`call`] reads the
//! complete block once, left to right (DSML2.6).

mod call;

use super::kit::{
    Action, Block, Content, Grammar, Marker, Mode, Outcome, Reading, THINK, THINKING,
};

use call::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const V32_DEFAULT_PREFILL: &str = "";

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const V4_DEFAULT_PREFILL: &str = "";

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const V41_DEFAULT_PREFILL: &str = "";

/// Modes (DSML1.1): text, reasoning, a section between calls, and stray text in a section.
const TEXT: usize = 0;
const SECTION: usize = 2;
const STRAY: usize = 3;

/// The marker strings of one DSML version that a call block's reading needs
/// (`specs/dialects/deepseek-v3.2.md` §1, DSMLT1.1, DSMLS1.1).
#[derive(Debug)]
struct Markers {
    call_opener: &'static str,
    call_closer: &'static str,
    parameter_opener: &'static str,
    parameter_closer: &'static str,
}

/// The four states of a call block (DSML2.3), one kit block each.
#[derive(Debug)]
struct Blocks {
    invoke_tag: Block,
    body: Block,
    parameter_tag: Block,
    value: Block,
}

/// A DSML version: its markers and its blocks, which its decoders continue with.
trait Version {
    const MARKERS: Markers;
    fn blocks() -> &'static Blocks;
}

/// The order of the closers of the invoke tag and of a parameter tag: its first `>`, or a
/// marker recognised outside values (DSML2.3). At a byte where several end (`>` and the call
/// closer's `>`), the kit reports the longest, so the call closer is seen as itself. The
/// fourth is the call closer.
const TAG_END: usize = 0;
const TAG_CALL_OPENER: usize = 1;
const TAG_SECTION_CLOSER: usize = 2;

/// The order of the body's closers; the fourth is the section closer.
const BODY_CALL_CLOSER: usize = 0;
const BODY_PARAMETER_OPENER: usize = 1;
const BODY_CALL_OPENER: usize = 2;

/// Defines one version in module `$module`: its [`Version`], its blocks and its modes, from the
/// section's, the invoke's and the parameter's tag names; `$grammar` is its grammar. The kit's
/// tables are `'static` data of concrete strings, which generic code cannot build; this macro
/// writes them, and every rule lives in the generic functions they point to.
macro_rules! dsml_version {
    ($grammar:ident, $module:ident,
     section = $section:literal, invoke = $invoke:literal, parameter = $parameter:literal) => {
        mod $module {
            use super::*;

            const SECTION_OPENER: &str = concat!("<｜DSML｜", $section, ">");
            /// The section opener with the `\n\n` the encoder writes before it (DSML1.2).
            const LONG_SECTION_OPENER: &str = concat!("\n\n<｜DSML｜", $section, ">");
            const SECTION_CLOSER: &str = concat!("</｜DSML｜", $section, ">");
            const CALL_OPENER: &str = concat!("<｜DSML｜", $invoke);
            const CALL_CLOSER: &str = concat!("</｜DSML｜", $invoke, ">");
            const PARAMETER_OPENER: &str = concat!("<｜DSML｜", $parameter);
            const PARAMETER_CLOSER: &str = concat!("</｜DSML｜", $parameter, ">");

            #[derive(Debug)]
            pub(super) struct Dsml;

            impl Version for Dsml {
                const MARKERS: Markers = Markers {
                    call_opener: CALL_OPENER,
                    call_closer: CALL_CLOSER,
                    parameter_opener: PARAMETER_OPENER,
                    parameter_closer: PARAMETER_CLOSER,
                };

                fn blocks() -> &'static Blocks {
                    &BLOCKS
                }
            }

            static BLOCKS: Blocks = Blocks {
                // In the order of `TAG_*`.
                invoke_tag: Block::new(
                    &[">", CALL_OPENER, SECTION_CLOSER, CALL_CLOSER],
                    decode_invoke_tag::<Dsml>,
                    unterminated,
                ),
                // In the order of `BODY_*`.
                body: Block::new(
                    &[CALL_CLOSER, PARAMETER_OPENER, CALL_OPENER, SECTION_CLOSER],
                    decode_body::<Dsml>,
                    unterminated,
                ),
                parameter_tag: Block::new(
                    &[">", CALL_OPENER, SECTION_CLOSER, CALL_CLOSER],
                    decode_parameter_tag::<Dsml>,
                    unterminated,
                ),
                // DSML2.3: in a value only the parameter closer is a marker.
                value: Block::new(&[PARAMETER_CLOSER], decode_value::<Dsml>, unterminated),
            };

            /// DSML1.4: in a section (between calls and in stray text) only the call opener and
            /// the section closer are markers.
            static SECTION_MARKERS: [Marker; 2] = [
                Marker {
                    literal: CALL_OPENER,
                    action: Action::Block(&BLOCKS.invoke_tag),
                },
                Marker {
                    literal: SECTION_CLOSER,
                    action: Action::Switch(TEXT),
                },
            ];

            pub(super) static MODES: [Mode; 4] = [
                // DSML1.2: in text, `<think>` and the section opener (with its `\n\n` when
                // there is one: both end at the same byte, and the kit takes the longest) are
                // markers.
                Mode {
                    content: Content::Text,
                    markers: &[
                        Marker {
                            literal: SECTION_OPENER,
                            action: Action::Switch(SECTION),
                        },
                        Marker {
                            literal: LONG_SECTION_OPENER,
                            action: Action::Switch(SECTION),
                        },
                        THINK,
                    ],
                },
                // DSML1.3: in reasoning only `</think>` is a marker (E4.4).
                THINKING,
                // DSML1.4: between calls blanks are markup; any other byte starts stray text.
                Mode {
                    content: Content::Gap { stray: STRAY },
                    markers: &SECTION_MARKERS,
                },
                // DSML1.4: stray text is text that still recognises the section's markers, so
                // the section goes on after it, its blanks included.
                Mode {
                    content: Content::Text,
                    markers: &SECTION_MARKERS,
                },
            ];
        }

        pub(crate) static $grammar: Grammar = Grammar::new(&$module::MODES);
    };
}

dsml_version!(
    V32,
    v32,
    section = "function_calls",
    invoke = "invoke",
    parameter = "parameter"
);
dsml_version!(
    V4,
    v4,
    section = "tool_calls",
    invoke = "invoke",
    parameter = "parameter"
);
// DSMLS1.1: every tag name is preceded by a space.
dsml_version!(
    V41,
    v41,
    section = " calls",
    invoke = " invoke",
    parameter = " parameter"
);

/// DSML2.3: a marker recognised outside values that breaks an open block. A call opener cuts
/// the block before itself and starts the next one; the section closer ends the block (which it
/// belongs to, as text) and the section.
fn broken<V: Version>(closer_is_call_opener: bool) -> Outcome {
    let error = CallError::Unclosed.to_string();
    if closer_is_call_opener {
        Outcome::Reopen(Some(error), &V::blocks().invoke_tag)
    } else {
        Outcome::Reject(error, TEXT)
    }
}

fn decode_invoke_tag<V: Version>(reading: &Reading<'_>, closer: usize) -> Outcome {
    match closer {
        // DSML2.2: a tag whose first `>` follows `/` ends the block; otherwise the body begins.
        TAG_END if reading.block.ends_with("/>") => complete::<V>(reading),
        TAG_END => Outcome::Extend(&V::blocks().body),
        TAG_CALL_OPENER => broken::<V>(true),
        TAG_SECTION_CLOSER => broken::<V>(false),
        // The call closer in the tag ends the block, which the reading then finds malformed.
        _ => complete::<V>(reading),
    }
}

fn decode_body<V: Version>(reading: &Reading<'_>, closer: usize) -> Outcome {
    match closer {
        BODY_CALL_CLOSER => complete::<V>(reading),
        BODY_PARAMETER_OPENER => Outcome::Extend(&V::blocks().parameter_tag),
        BODY_CALL_OPENER => broken::<V>(true),
        // The section closer.
        _ => broken::<V>(false),
    }
}

fn decode_parameter_tag<V: Version>(reading: &Reading<'_>, closer: usize) -> Outcome {
    match closer {
        TAG_END => Outcome::Extend(&V::blocks().value),
        TAG_CALL_OPENER => broken::<V>(true),
        TAG_SECTION_CLOSER => broken::<V>(false),
        _ => complete::<V>(reading),
    }
}

fn decode_value<V: Version>(_: &Reading<'_>, _closer: usize) -> Outcome {
    Outcome::Extend(&V::blocks().body)
}

/// A block ended by its call closer or `/>`: read whole (DSML2.6), a call or an error; either
/// way the parser is between calls again (DSML1.4).
fn complete<V: Version>(reading: &Reading<'_>) -> Outcome {
    Outcome::of_call(
        call::read(reading.block, &V::MARKERS, reading.generated_id.clone()),
        SECTION,
    )
}

/// DSML2.7: only an opened block is unterminated, whatever state it is in; the section that
/// held it needs no closer (DSML1.5).
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), SECTION)
}

#[cfg(test)]
mod tests {
    //! Block ends of DSML2.3 that no corpus case reaches: markers met in a tag rather than in
    //! the body. Each stream is checked whole and one char per chunk.
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::dialect::kit::events;
    use crate::event::Event;
    use crate::parser::run;
    use std::ops::Range;
    use std::sync::Arc;

    #[test]
    fn a_call_closer_in_the_invoke_tag_ends_the_block() {
        assert_eq!(
            events(
                &V32,
                "<｜DSML｜function_calls><｜DSML｜invoke name=\"a</｜DSML｜invoke> \
                 <｜DSML｜invoke name=\"b\"/></｜DSML｜function_calls>x"
            ),
            [
                r#"{"type":"error","errorText":"malformed DSML invoke tag"}"#,
                r#"{"type":"text-delta","delta":"<｜DSML｜invoke name=\"a</｜DSML｜invoke>"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"b","input":{}}"#,
                r#"{"type":"text-delta","delta":"x"}"#,
            ]
        );
    }

    #[test]
    fn markers_in_a_parameter_tag_break_the_block() {
        // A call opener cuts it and starts the next block.
        assert_eq!(
            events(
                &V4,
                "<｜DSML｜tool_calls><｜DSML｜invoke name=\"a\"><｜DSML｜parameter name=\"p\
                 <｜DSML｜invoke name=\"b\"></｜DSML｜invoke>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed DSML invoke"}"#,
                r#"{"type":"text-delta","delta":"<｜DSML｜invoke name=\"a\"><｜DSML｜parameter name=\"p"}"#,
                r#"{"type":"tool-call","toolCallId":"tool-call-1","toolName":"b","input":{}}"#,
            ]
        );
        // The section closer ends it with the section; the call closer ends it, malformed.
        assert_eq!(
            events(
                &V41,
                "<｜DSML｜ calls><｜DSML｜ invoke name=\"a\"><｜DSML｜ parameter </｜DSML｜ calls> \
                 <｜DSML｜ calls><｜DSML｜ invoke name=\"a\"><｜DSML｜ parameter </｜DSML｜ invoke>"
            ),
            [
                r#"{"type":"error","errorText":"unclosed DSML invoke"}"#,
                r#"{"type":"text-delta","delta":"<｜DSML｜ invoke name=\"a\"><｜DSML｜ parameter </｜DSML｜ calls> "}"#,
                r#"{"type":"error","errorText":"malformed DSML parameter tag"}"#,
                r#"{"type":"text-delta","delta":"<｜DSML｜ invoke name=\"a\"><｜DSML｜ parameter </｜DSML｜ invoke>"}"#,
            ]
        );
    }

    #[test]
    fn the_long_section_opener_wins() {
        let mut parser = KitParser::new(&V32, Arc::default());
        let stream = "a\n\n<｜DSML｜function_calls>";
        let result = run(&mut parser, [stream]);
        assert_eq!(result.events, [Event::text("a")]);
        let opener = Range {
            start: 1,
            end: stream.len(),
        };
        assert_eq!(result.markup_spans, vec![opener]);
    }
}
