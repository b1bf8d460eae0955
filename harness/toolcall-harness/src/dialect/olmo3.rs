//! The `olmo3` reference parser (`specs/dialects/olmo3.md`): AllenAI's Olmo 3 Instruct models
//! write `<function_calls>get_weather(city="Paris")\nget_time()</function_calls>`, one Python
//! call per line; the Think models reason between `<think>` and `</think>`. A grammar for the
//! dialect kit in its sectioned layout, with a line tail: between calls a name's first char
//! opens a call block whose head (up to its `(`) is checked here and whose arguments are
//! pythonic's nested block of brackets and strings (OL1.6), cut by `</function_calls>`
//! (OL1.8); a `<` opens a tag, so that the section's closer is read whole rather than found by
//! the one-char name markers inside it (OL1.4). A complete call is read by pythonic's literal
//! reader (`pythonic/literal.rs`, OL3.1), never evaluated.

use thiserror::Error;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json::MAX_DEPTH;
use super::kit::{
    Action, Block, Content, END_THINK, End, Grammar, Marker, Mode, ModeId, Outcome, Reading, THINK,
    sectioned,
};
use super::pythonic::literal::{self, CallError};
use super::pythonic::{PYTHON_NESTING, name_first_chars};
use sectioned::{SECTION, STRAY, TEXT};

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it (OL2.5): the Instruct template's `<|im_start|>assistant\n` opens
/// nothing.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `olmo3`, described (`Dialect::Olmo3`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "olmo3",
    models: "Olmo 3 and Olmo 3.1 Instruct; Olmo 3 Think (reasoning)",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<function_calls>GetWeather(location=\"",
        after: "\")</function_calls>",
        values: Values::Json,
    },
    fragments: &[
        OPEN,
        CLOSE,
        "<think>",
        "</think>",
        "<function_ca",
        "</function_ca",
        "<function_calls>GetWeather(location=\"",
        "\")</function_calls>",
        "get_time(",
        "(",
        ")",
        "\n",
        "=",
        "'",
        "true",
        "None",
        "{\"k\": [1, (2,)]}",
        "<b>",
        "weather.forecast(",
        "<|im_start|>assistant\n",
    ],
    prefills: &["<|im_start|>assistant\n", "<|im_start|>assistant\n<think>"],
    samples: &["<function_calls>GetWeather(location=\"Paris\")</function_calls>"],
};

const OPEN: &str = "<function_calls>";
const CLOSE: &str = "</function_calls>";

/// After a head that is no call (OL1.5): the rest of its line is text, up to its `\n` (markup,
/// back between calls) or the section's closer (markup, back to text).
const LINE_TAIL: ModeId = ModeId(4);

/// Why a call block is invalid where pythonic's reader has no phrase for it
/// (`specs/dialects/olmo3.md` §5).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
enum SectionError {
    /// `</function_calls>` inside an open call's arguments (OL1.8).
    #[error("pythonic tool call cut by </function_calls>")]
    Cut,
}

/// OL1.3: between calls, and in stray text there, a name's first char opens a call block and
/// `<` a tag.
macro_rules! gap_markers {
    ($($first:literal)*) => {
        &[
            $(Marker {
                literal: $first,
                action: Action::Block(&HEAD),
            },)*
            Marker {
                literal: "<",
                action: Action::Block(&TAG),
            },
        ]
    };
}

/// The table of `specs/dialects/olmo3.md` §2: text (OL1.2, OL2.1), reasoning (only
/// `</think>`, OL2.2), between calls and its stray text (OL1.3), and a line tail (OL1.5).
static MODES: [Mode; 5] = {
    let [text, reasoning, section, stray] = sectioned(
        &[
            Marker {
                literal: OPEN,
                action: Action::Switch(SECTION),
            },
            THINK,
        ],
        END_THINK,
        name_first_chars!(gap_markers),
    );
    [
        text,
        reasoning,
        section,
        stray,
        Mode {
            id: LINE_TAIL,
            content: Content::Text,
            markers: &[
                Marker {
                    literal: "\n",
                    action: Action::Switch(SECTION),
                },
                Marker {
                    literal: CLOSE,
                    action: Action::Switch(TEXT),
                },
            ],
        },
    ]
};

pub(crate) static GRAMMAR: Grammar = Grammar::new(&MODES);

/// OL1.5: a head ends at `(`, a blank, the section's closer, or ASCII punctuation other than
/// `<` and `/` (which may start `</function_calls>`) and `_` (a name's). `>` and the closer
/// end on the same byte; the automaton reports the longer.
static HEAD: Block = Block::new(
    &[
        "(", " ", "\t", "\n", "\r", "!", "\"", "#", "$", "%", "&", "'", ")", "*", "+", ",", "-",
        ".", ":", ";", "=", ">", "?", "@", "[", "\\", "]", "^", "`", "{", "|", "}", "~", CLOSE,
    ],
    decode_head,
    unterminated,
);

/// OL1.6: a call's arguments end where its brackets balance, counted as pythonic counts them
/// (PY1.6, PY3.6); OL1.8: `</function_calls>` cuts them wherever it stands.
static ARGUMENTS: Block = Block::nested(&[CLOSE], &PYTHON_NESTING, decode_arguments, unterminated);

/// OL1.4: a tag between calls runs from its `<` to the first `>`, blank or `<`.
static TAG: Block = Block::new(
    &[">", " ", "\t", "\n", "\r", "<"],
    decode_tag,
    unterminated_tag,
);

/// OL1.5: a call's head, from its first char to the closer that just ended it.
fn decode_head(reading: &Reading<'_>, end: End) -> Outcome {
    let head = reading.before(end);
    let End::Closer(closer) = end else {
        // A head is no nested block: it ends at closers only.
        return invalid_name(head, TEXT);
    };
    match closer {
        "(" if literal::is_name(head) => Outcome::Extend(&ARGUMENTS),
        CLOSE => invalid_name(head, TEXT),
        "\n" => invalid_name(head, SECTION),
        _ => invalid_name(head, LINE_TAIL),
    }
}

fn invalid_name(head: &str, then: ModeId) -> Outcome {
    Outcome::Reject(CallError::InvalidName(head.to_owned()).to_string(), then)
}

/// OL1.6, OL3.1: the call's `)` has come, or a bracket that ends the block early; either way
/// the stream is between calls again (OL1.7). OL1.8: a cut closes the section.
fn decode_arguments(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        End::Balanced => Outcome::of_call(
            literal::call(reading.block, 0, reading.generated_id.clone()),
            SECTION,
        ),
        End::Mismatched => Outcome::Reject(
            CallError::Invalid("mismatched brackets".to_owned()).to_string(),
            SECTION,
        ),
        End::TooDeep => Outcome::Reject(
            CallError::Invalid(format!(
                "nesting deeper than {MAX_DEPTH} levels of brackets"
            ))
            .to_string(),
            SECTION,
        ),
        End::Closer(_) => Outcome::Reject(SectionError::Cut.to_string(), TEXT),
    }
}

/// OL4.3: a call block (head or arguments) still open at the end of the stream.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

/// OL1.4: `</function_calls>` closes the section; any other tag is stray text, its `>` or
/// blank included, while a `<` that ends it opens the next tag.
fn decode_tag(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        End::Closer("<") => Outcome::Reopen(None, &TAG),
        _ if reading.block == CLOSE => Outcome::Markup(TEXT),
        _ => Outcome::Text(STRAY),
    }
}

/// OL1.4, OL1.10: a tag still open at the end of the stream is stray text, no error.
fn unterminated_tag(_: &Reading<'_>) -> Outcome {
    Outcome::Text(STRAY)
}

#[cfg(test)]
mod tests {
    //! Block ends and modes the corpus reaches only through whole streams, checked here whole
    //! and one char per chunk.
    use super::*;

    use crate::dialect::kit::{KitParser, events};
    use crate::event::Event;
    use crate::parser::{StreamParser, run};
    use std::ops::Range;
    use std::sync::Arc;

    use crate::dialect::kit::lines::{call, error, text};

    #[test]
    fn calls_need_no_separator_and_a_head_may_end_the_section() {
        assert_eq!(
            events(&GRAMMAR, "<function_calls>f()g(x=1)</function_calls>ok"),
            [
                call("tool-call-1", "f", "{}"),
                call("tool-call-2", "g", r#"{"x":1}"#),
                text("ok"),
            ]
        );
        // A head cut by the closer is an invalid name, and the section is closed.
        assert_eq!(
            events(&GRAMMAR, "<function_calls>f</function_calls>g()"),
            [
                error("invalid name in pythonic tool call: \"f\""),
                text("f</function_calls>g()"),
            ]
        );
        // A head ended by `\n` costs only itself.
        assert_eq!(
            events(&GRAMMAR, "<function_calls>café\nf()"),
            [
                error("invalid name in pythonic tool call: \"café\""),
                text("café\n"),
                call("tool-call-1", "f", "{}"),
            ]
        );
    }

    #[test]
    fn a_line_tail_ends_at_its_newline_or_the_closer() {
        assert_eq!(
            events(
                &GRAMMAR,
                "<function_calls>x = f(a=1) <b>\n y()</function_calls> text"
            ),
            [
                error("invalid name in pythonic tool call: \"x\""),
                text("x = f(a=1) <b>"),
                call("tool-call-1", "y", "{}"),
                text(" text"),
            ]
        );
        assert_eq!(
            events(&GRAMMAR, "<function_calls>a.b</function_calls>c()"),
            [
                error("invalid name in pythonic tool call: \"a\""),
                text("a.bc()"),
            ]
        );
    }

    #[test]
    fn tags_between_calls() {
        // A tag ended by `<` is stray text without it; the next tag starts there. A blank ends a
        // tag too, and is its text; `<think>` in a section is a tag like any other.
        assert_eq!(
            events(
                &GRAMMAR,
                "<function_calls><a<think>f()</b c()</function_calls></think>"
            ),
            [
                text("<a<think>"),
                call("tool-call-1", "f", "{}"),
                text("</b "),
                call("tool-call-2", "c", "{}"),
                text("</think>"),
            ]
        );
        // A tag open at the end of the stream is stray text, no error.
        assert_eq!(
            events(&GRAMMAR, "<function_calls>f()\n<"),
            [call("tool-call-1", "f", "{}"), text("<")]
        );
        // `</function_calls` ended by a blank is no closer.
        assert_eq!(
            events(&GRAMMAR, "<function_calls></function_calls f()"),
            [text("</function_calls "), call("tool-call-1", "f", "{}")]
        );
    }

    #[test]
    fn an_open_head_or_call_at_the_end_is_unterminated() {
        assert_eq!(
            events(&GRAMMAR, "<function_calls>\nGetWea"),
            [error("unterminated pythonic tool call"), text("GetWea")]
        );
        assert_eq!(
            events(&GRAMMAR, "<function_calls>f(x=[1,\n"),
            [error("unterminated pythonic tool call"), text("f(x=[1,\n")]
        );
    }

    #[test]
    fn the_closer_cuts_arguments_and_the_section_closes() {
        assert_eq!(
            events(&GRAMMAR, "<function_calls>f(x=[1</function_calls> g()"),
            [
                error("pythonic tool call cut by </function_calls>"),
                text("f(x=[1</function_calls> g()"),
            ]
        );
    }

    #[test]
    fn nesting_is_capped_at_126_levels_with_the_call_s_parentheses() {
        let deepest = format!(
            "<function_calls>f(x={}{})",
            "[".repeat(125),
            "]".repeat(125)
        );
        let read = events(&GRAMMAR, &deepest);
        assert_eq!(read.len(), 1, "{read:?}");
        assert!(read[0].contains("\"tool-call\""), "{read:?}");
        let too_deep = format!("f(x={}", "[".repeat(126));
        assert_eq!(
            events(&GRAMMAR, &format!("<function_calls>{too_deep}] g()")),
            [
                error("invalid pythonic tool call: nesting deeper than 126 levels of brackets"),
                text(&format!("{too_deep}] ")),
                call("tool-call-1", "g", "{}"),
            ]
        );
    }

    #[test]
    fn a_call_comes_out_at_its_closing_parenthesis() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("Hi <function_ca", &mut out);
        assert_eq!(out, [Event::text("Hi ")]);
        out.clear();
        parser.push("lls>\nf(a=')'", &mut out);
        assert_eq!(out, []);
        parser.push(")\n</function_cal", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
        out.clear();
        parser.push("ls> bye", &mut out);
        assert_eq!(out, [Event::text(" bye")]);
    }

    #[test]
    fn call_spans_and_markup() {
        let stream = "x<function_calls>a()\n- b()</function_calls>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        assert_eq!(result.call_spans, [17..20, 23..26]);
        assert_eq!(parser.markup_spans(), [1..17, 20..21, 26..stream.len()]);
        assert_eq!(
            result.events[1..],
            [
                result.events[1].clone(),
                Event::text("- "),
                result.events[3].clone()
            ]
        );
        // A line tail's `\n` and the closer that ends one are markup; its text is text. So is
        // the closer after stray text, the blank before which is markup (between calls).
        let stream = "<function_calls>x y\nz() 1</function_calls>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        assert_eq!(result.call_spans, vec![Range { start: 20, end: 23 }]);
        assert_eq!(parser.markup_spans(), [0..16, 19..20, 23..24, 25..42]);
        let stream = "<function_calls>x y</function_calls>";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        run(&mut parser, [stream]);
        assert_eq!(parser.markup_spans(), [0..16, 19..36]);
    }
}
