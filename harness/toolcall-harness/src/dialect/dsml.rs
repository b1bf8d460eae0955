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

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::kit::{
    Action, Block, END_THINK, End, Grammar, Marker, Mode, Outcome, Reading, THINK, section_markers,
    sectioned,
};
use sectioned::{SECTION, TEXT};

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

/// `deepseek-v3.2`, described (`Dialect::DeepSeekV32`).
pub(crate) static V32_DIALECT: Descriptor = Descriptor {
    name: "deepseek-v3.2",
    models: "DeepSeek V3.2",
    parser: Parser::Kit(&V32),
    default_prefill: V32_DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"GetWeather\">\n<｜DSML｜parameter name=\"location\" string=\"true\">",
        after: "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>\n",
        values: Values::Text,
    },
    fragments: &[
        "\n\n<｜DSML｜function_calls>",
        "<｜DSML｜invoke name=\"get_weather\">",
        "<｜DSML｜parameter name=\"city\" string=\"true\">",
        "<｜DSML｜parameter name=\"n\" string=\"false\">",
        "</｜DSML｜parameter>",
        "</｜DSML｜invoke>",
        "</｜DSML｜function_calls>",
    ],
    prefills: &["<｜Assistant｜></think>", "<｜Assistant｜><think>"],
    samples: &[
        "\n\n<｜DSML｜function_calls><｜DSML｜invoke name=\"get_weather\"></｜DSML｜invoke>",
    ],
};

/// `deepseek-v4`, described (`Dialect::DeepSeekV4`).
pub(crate) static V4_DIALECT: Descriptor = Descriptor {
    name: "deepseek-v4",
    models: "DeepSeek V4",
    parser: Parser::Kit(&V4),
    default_prefill: V4_DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜DSML｜tool_calls>\n<｜DSML｜invoke name=\"GetWeather\">\n<｜DSML｜parameter name=\"location\" string=\"true\">",
        after: "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>\n",
        values: Values::Text,
    },
    fragments: &[
        "<｜DSML｜tool_calls>",
        "</｜DSML｜tool_calls>",
        "\n\n<｜DSML｜tool_calls>",
    ],
    prefills: &["<｜Assistant｜></think>", "<｜Assistant｜><think>"],
    samples: &["<｜DSML｜tool_calls><｜DSML｜invoke name=\"f\"></｜DSML｜invoke>"],
};

/// `deepseek-v4.1`, described (`Dialect::DeepSeekV41`).
pub(crate) static V41_DIALECT: Descriptor = Descriptor {
    name: "deepseek-v4.1",
    models: "DeepSeek V4.1",
    parser: Parser::Kit(&V41),
    default_prefill: V41_DEFAULT_PREFILL,
    call: CallAround {
        before: "<｜DSML｜ calls>\n<｜DSML｜ invoke name=\"GetWeather\">\n<｜DSML｜ parameter name=\"location\" string=\"true\">",
        after: "</｜DSML｜ parameter>\n</｜DSML｜ invoke>\n</｜DSML｜ calls>\n",
        values: Values::Text,
    },
    fragments: &[
        "<｜DSML｜ calls>",
        "<｜DSML｜ invoke name=\"f\"/>",
        "\n\n<｜DSML｜ calls>",
        "</｜DSML｜ calls>",
        "</｜DSML｜ invoke>",
    ],
    prefills: &["<｜Assistant｜></think>", "<｜Assistant｜><think>"],
    samples: &["<｜DSML｜ calls><｜DSML｜ invoke name=\"f\"/>"],
};

/// The marker strings of one DSML version that a call block's reading needs
/// (`specs/dialects/deepseek-v3.2.md` §1, DSMLT1.1, DSMLS1.1).
#[derive(Debug)]
struct Markers {
    call_opener: &'static str,
    call_closer: &'static str,
    section_closer: &'static str,
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
                    section_closer: SECTION_CLOSER,
                    parameter_opener: PARAMETER_OPENER,
                    parameter_closer: PARAMETER_CLOSER,
                };

                fn blocks() -> &'static Blocks {
                    &BLOCKS
                }
            }

            static BLOCKS: Blocks = Blocks {
                // A tag ends at its first `>`, or at a marker recognised outside values
                // (DSML2.3). At a byte where several end (`>` and the call closer's `>`), the
                // kit reports the longest, so the call closer is seen as itself.
                invoke_tag: Block::new(
                    &[">", CALL_OPENER, SECTION_CLOSER, CALL_CLOSER],
                    decode_invoke_tag::<Dsml>,
                    unterminated,
                ),
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
            static SECTION_MARKERS: [Marker; 2] =
                section_markers(CALL_OPENER, &BLOCKS.invoke_tag, SECTION_CLOSER);

            // DSML1.2: in text, `<think>` and the section opener (with its `\n\n` when there
            // is one: both end at the same byte, and the kit takes the longest) are markers;
            // DSML1.3: in reasoning only `</think>` is (E4.4); DSML1.4: between calls blanks
            // are markup, any other byte starts stray text, which still recognises the
            // section's markers, so the section goes on after it, its blanks included.
            pub(super) static MODES: [Mode; 4] = sectioned(
                &[
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
                END_THINK,
                &SECTION_MARKERS,
            );
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

fn decode_invoke_tag<V: Version>(reading: &Reading<'_>, end: End) -> Outcome {
    let markers = &V::MARKERS;
    match end {
        // DSML2.2: a tag whose first `>` follows `/` ends the block; otherwise the body begins.
        End::Closer(">") if reading.block.ends_with("/>") => complete::<V>(reading),
        End::Closer(">") => Outcome::Extend(&V::blocks().body),
        End::Closer(c) if c == markers.call_opener => broken::<V>(true),
        End::Closer(c) if c == markers.section_closer => broken::<V>(false),
        // The call closer in the tag ends the block, which the reading then finds malformed.
        _ => complete::<V>(reading),
    }
}

fn decode_body<V: Version>(reading: &Reading<'_>, end: End) -> Outcome {
    let markers = &V::MARKERS;
    match end {
        End::Closer(c) if c == markers.call_closer => complete::<V>(reading),
        End::Closer(c) if c == markers.parameter_opener => {
            Outcome::Extend(&V::blocks().parameter_tag)
        }
        End::Closer(c) if c == markers.call_opener => broken::<V>(true),
        // The section closer.
        _ => broken::<V>(false),
    }
}

fn decode_parameter_tag<V: Version>(reading: &Reading<'_>, end: End) -> Outcome {
    let markers = &V::MARKERS;
    match end {
        End::Closer(">") => Outcome::Extend(&V::blocks().value),
        End::Closer(c) if c == markers.call_opener => broken::<V>(true),
        End::Closer(c) if c == markers.section_closer => broken::<V>(false),
        _ => complete::<V>(reading),
    }
}

fn decode_value<V: Version>(_: &Reading<'_>, _: End) -> Outcome {
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
