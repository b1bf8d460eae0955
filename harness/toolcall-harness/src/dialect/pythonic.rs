//! The `pythonic` reference parser (`specs/dialects/pythonic.md`): a Python list of calls,
//! `[get_weather(city="Paris"), get_time()]`, as Llama 4 answers with it (PY1.2, maybe between
//! `<|python_start|>` and `<|python_end|>`, PY1.3) and as LFM2 writes it between
//! `<|tool_call_start|>` and `<|tool_call_end|>` (PY1.8); `<think>…</think>` is reasoning. A
//! grammar for the dialect kit. Each call is a block of its own, opened by the list's `[` or
//! by the `,` before it: its head (up to the name's `(`) is checked here, its arguments are a
//! nested block ([`ARGUMENTS_IN_LIST`]), and what a complete call means is in [`literal`].

pub(crate) mod literal;

use super::descriptor::{CallAround, Descriptor, Parser, Values};
use super::json::MAX_DEPTH;
use super::kit::{
    Action, Block, Content, End, Grammar, Marker, Mode, ModeId, Nesting, Outcome, Reading, THINK,
    THINKING,
};

use crate::event::Event;
use literal::CallError;

/// The generation prompt a reply continues when none is given (`Dialect::default_prefill`),
/// as the spec names it.
pub(crate) const DEFAULT_PREFILL: &str = "";

/// `pythonic`, described (`Dialect::Pythonic`).
pub(crate) static DIALECT: Descriptor = Descriptor {
    name: "pythonic",
    models: "Llama 4 (Scout, Maverick), LFM2 and LFM2.5",
    parser: Parser::Kit(&GRAMMAR),
    default_prefill: DEFAULT_PREFILL,
    call: CallAround {
        before: "<|tool_call_start|>[GetWeather(location=\"",
        after: "\")]<|tool_call_end|>",
        values: Values::Json,
    },
    fragments: &[
        "<|tool_call_start|>",
        "<|tool_call_end|>",
        "<|python_start|>",
        "<|python_end|>",
        "[GetWeather(location=\"",
        "[get_time(",
        ")]",
        "(",
        ")",
        "'",
        "\\'",
        "True",
        "{'a': [1, (2,)]}",
        "r'\\d'",
        "0x1F",
        "-2.5e3",
        "'''",
        "[Note]",
    ],
    prefills: &["<|header_start|>assistant<|header_end|>\n\n"],
    samples: &["[GetWeather(location=\"Paris\")]"],
};

const TOOL_CALL_START: &str = "<|tool_call_start|>";
const TOOL_CALL_END: &str = "<|tool_call_end|>";
const PYTHON_START: &str = "<|python_start|>";
const PYTHON_END: &str = "<|python_end|>";

/// The modes of the table in `specs/dialects/pythonic.md` §2. `THINKING` is mode 1 and goes
/// back to text (PY2.1).
const TEXT: ModeId = ModeId(0);
/// Between a bare list's calls, and its stray text (PY1.7).
const LIST: ModeId = ModeId(2);
const LIST_STRAY: ModeId = ModeId(3);
/// An LFM2 section (PY1.8): before its list, and stray text there; between its calls, and
/// stray text there; after its list, and its text once the list is over.
const SECTION: ModeId = ModeId(4);
const SECTION_STRAY: ModeId = ModeId(5);
const SECTION_LIST: ModeId = ModeId(6);
const SECTION_LIST_STRAY: ModeId = ModeId(7);
const SECTION_CLOSED: ModeId = ModeId(8);
const SECTION_TAIL: ModeId = ModeId(9);

const CLOSE_SECTION: Marker = Marker {
    literal: TOOL_CALL_END,
    action: Action::Switch(TEXT),
};

/// The markers of text (PY1.2, PY1.3, PY1.8, PY2.1), then `[` and a name's first char, which
/// open a bare list's first call.
macro_rules! text_markers {
    ($($first:literal)*) => {
        &[
            Marker {
                literal: TOOL_CALL_START,
                action: Action::Switch(SECTION),
            },
            Marker {
                literal: PYTHON_START,
                action: Action::Switch(TEXT),
            },
            Marker {
                literal: PYTHON_END,
                action: Action::Switch(TEXT),
            },
            THINK,
            $(Marker {
                literal: concat!("[", $first),
                action: Action::Block(&HEAD_IN_LIST),
            },)*
        ]
    };
}

/// A name's first chars (PY1.5: an ASCII letter or `_`), the 53 one-char literals handed to
/// `$then!`: the markers that open a call at a name are generated from them (here, and in
/// `olmo3`, whose calls start at a name).
macro_rules! name_first_chars {
    ($then:ident) => {
        $then!(
            "A" "B" "C" "D" "E" "F" "G" "H" "I" "J" "K" "L" "M" "N" "O" "P" "Q" "R" "S" "T" "U"
            "V" "W" "X" "Y" "Z" "a" "b" "c" "d" "e" "f" "g" "h" "i" "j" "k" "l" "m" "n" "o" "p"
            "q" "r" "s" "t" "u" "v" "w" "x" "y" "z" "_"
        )
    };
}
pub(crate) use name_first_chars;

/// PY1.7: between a bare list's calls, and after stray text there.
const LIST_MARKERS: &[Marker] = &[
    Marker {
        literal: ",",
        action: Action::Block(&HEAD_IN_LIST),
    },
    Marker {
        literal: "]",
        action: Action::Switch(TEXT),
    },
];

/// PY1.8: a section before its list.
const SECTION_MARKERS: &[Marker] = &[
    Marker {
        literal: "[",
        action: Action::Block(&HEAD_IN_SECTION),
    },
    CLOSE_SECTION,
];

/// PY1.8: between a section's calls, and after stray text there.
const SECTION_LIST_MARKERS: &[Marker] = &[
    Marker {
        literal: ",",
        action: Action::Block(&HEAD_IN_SECTION),
    },
    Marker {
        literal: "]",
        action: Action::Switch(SECTION_CLOSED),
    },
    CLOSE_SECTION,
];

/// A gap's stray text keeps the gap's markers (the kit reads a chunk's markers with the
/// automaton of the mode the chunk started in), so every gap below has a text twin.
pub(crate) static GRAMMAR: Grammar = Grammar::new(&[
    Mode {
        id: TEXT,
        content: Content::Text,
        markers: name_first_chars!(text_markers),
    },
    THINKING,
    Mode {
        id: LIST,
        content: Content::Gap { stray: LIST_STRAY },
        markers: LIST_MARKERS,
    },
    Mode {
        id: LIST_STRAY,
        content: Content::Text,
        markers: LIST_MARKERS,
    },
    Mode {
        id: SECTION,
        content: Content::Gap {
            stray: SECTION_STRAY,
        },
        markers: SECTION_MARKERS,
    },
    Mode {
        id: SECTION_STRAY,
        content: Content::Text,
        markers: SECTION_MARKERS,
    },
    Mode {
        id: SECTION_LIST,
        content: Content::Gap {
            stray: SECTION_LIST_STRAY,
        },
        markers: SECTION_LIST_MARKERS,
    },
    Mode {
        id: SECTION_LIST_STRAY,
        content: Content::Text,
        markers: SECTION_LIST_MARKERS,
    },
    Mode {
        id: SECTION_CLOSED,
        content: Content::Gap {
            stray: SECTION_TAIL,
        },
        markers: &[CLOSE_SECTION],
    },
    Mode {
        id: SECTION_TAIL,
        content: Content::Text,
        markers: &[CLOSE_SECTION],
    },
]);

/// PY1.5: a head ends at `(`, at a blank, or at ASCII punctuation; the closers, then `$last`.
macro_rules! head_closers {
    ($($last:expr),*) => {
        &[
            "(", " ", "\t", "\n", "\r", "!", "\"", "#", "$", "%", "&", "'", ")", "*", "+", ",",
            "-", ".", "/", ":", ";", "=", ">", "?", "@", "[", "\\", "]", "^", "`", "{", "}",
            "~", $($last),*
        ]
    };
}

/// In a bare list `<` and `|` end a head too; in a section they may start
/// `<|tool_call_end|>`, which is the closer instead (a single `<` or `|` would be found first).
const HEAD_CLOSERS_IN_LIST: &[&str] = head_closers!("<", "|");
const HEAD_CLOSERS_IN_SECTION: &[&str] = head_closers!(TOOL_CALL_END);

static HEAD_IN_LIST: Block = Block::new(HEAD_CLOSERS_IN_LIST, decode_head::<false>, unterminated);
static HEAD_IN_SECTION: Block =
    Block::new(HEAD_CLOSERS_IN_SECTION, decode_head::<true>, unterminated);

/// The mode between a list's calls.
fn list(lfm: bool) -> ModeId {
    if lfm { SECTION_LIST } else { LIST }
}

/// The mode once a list's `]` has come.
fn after_list(lfm: bool) -> ModeId {
    if lfm { SECTION_CLOSED } else { TEXT }
}

/// PY1.5: a call's head, from its opener (`[`, or `[` and a name's first char, or `,`) to the
/// closer that just ended it.
fn decode_head<const LFM: bool>(reading: &Reading<'_>, end: End) -> Outcome {
    let End::Closer(closer) = end else {
        // A head is no nested block: it ends at closers only.
        return cut();
    };
    let block = reading.block;
    let head = block
        .get(1..block.len().saturating_sub(closer.len()))
        .unwrap_or_default();
    let name = head.trim_start_matches(literal::is_blank);
    match closer {
        "(" if literal::is_name(name) => Outcome::Extend(if LFM {
            &ARGUMENTS_IN_SECTION
        } else {
            &ARGUMENTS_IN_LIST
        }),
        " " | "\t" | "\n" | "\r" if name.is_empty() => {
            Outcome::Extend(if LFM { &HEAD_IN_SECTION } else { &HEAD_IN_LIST })
        }
        // An empty list, or a comma after the last call: punctuation only.
        "]" if name.is_empty() => Outcome::Markup(after_list(LFM)),
        TOOL_CALL_END => cut(),
        // A list's first head that is no call in text (`[Note]`, `[link](url)`, `x[i]`): no
        // list at all, and prose is not an error (PY1.5).
        _ if !LFM && block.starts_with('[') => Outcome::Text(TEXT),
        _ => {
            let error = CallError::InvalidName(head.to_owned());
            // The list is over (PY1.5).
            let mode = if LFM { SECTION_TAIL } else { TEXT };
            Outcome::Reject(error.to_string(), mode)
        }
    }
}

/// PY1.6: a call's arguments end at the char that brings the count of open brackets back to
/// zero, brackets inside `'…'` and `"…"` literals not counted; PY3.6: a bracket that would open
/// a 127th level makes the call invalid at once. In an LFM2 section, `<|tool_call_end|>` cuts
/// the call wherever it stands (PY1.9).
static ARGUMENTS_IN_LIST: Block = Block::nested(
    &[],
    &PYTHON_NESTING,
    decode_arguments::<false>,
    unterminated,
);
static ARGUMENTS_IN_SECTION: Block = Block::nested(
    &[TOOL_CALL_END],
    &PYTHON_NESTING,
    decode_arguments::<true>,
    unterminated,
);
pub(crate) static PYTHON_NESTING: Nesting = Nesting {
    opens: b"([{",
    closes: b")]}",
    quotes: b"'\"",
    max_depth: MAX_DEPTH,
};

fn decode_arguments<const LFM: bool>(reading: &Reading<'_>, end: End) -> Outcome {
    match end {
        End::Balanced => complete::<LFM>(reading),
        End::Mismatched => mismatched::<LFM>(),
        End::TooDeep => too_deep::<LFM>(),
        End::Closer(_) => cut(),
    }
}

/// The call's `)` has come: the block is one call, or invalid; either way the list goes on
/// (PY1.7).
fn complete<const LFM: bool>(reading: &Reading<'_>) -> Outcome {
    match literal::call(reading.block, 1, reading.generated_id.clone()) {
        Ok(call) => Outcome::Call(vec![Event::ToolCall(call)], list(LFM)),
        Err(error) => Outcome::Reject(error.to_string(), list(LFM)),
    }
}

/// The call's `(` closed by `]` or `}`: invalid, and that char ends the list (PY1.7).
fn mismatched<const LFM: bool>() -> Outcome {
    let error = CallError::Invalid("mismatched brackets".to_owned());
    Outcome::Reject(error.to_string(), after_list(LFM))
}

/// PY3.6: a bracket that would open a 127th level makes the call invalid at once.
fn too_deep<const LFM: bool>() -> Outcome {
    let error = CallError::Invalid(format!(
        "nesting deeper than {} levels of brackets",
        MAX_DEPTH
    ));
    Outcome::Reject(error.to_string(), list(LFM))
}

/// PY1.9: `<|tool_call_end|>` inside an open call cuts it and closes the section.
fn cut() -> Outcome {
    Outcome::Reject(CallError::Cut.to_string(), TEXT)
}

/// PY4.3: a call still open at the end of the stream.
fn unterminated(_: &Reading<'_>) -> Outcome {
    Outcome::Reject(CallError::Unterminated.to_string(), TEXT)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::dialect::kit::KitParser;
    use crate::parser::{StreamParser, run};
    use std::ops::Range;
    use std::sync::Arc;

    fn events(stream: &str) -> Vec<String> {
        crate::dialect::kit::events(&GRAMMAR, stream)
    }

    fn call(id: &str, name: &str, input: &str) -> String {
        format!(r#"{{"type":"tool-call","toolCallId":"{id}","toolName":"{name}","input":{input}}}"#)
    }

    fn text(delta: &str) -> String {
        serde_json::to_string(&Event::text(delta)).expect("an event")
    }

    fn error(phrase: &str, stream: &str) -> String {
        let events = events(stream);
        let first = events.first().cloned().unwrap_or_default();
        assert!(first.contains(phrase), "{stream:?}: {events:?}");
        first
    }

    #[test]
    fn bare_lists_and_text_around_them() {
        assert_eq!(
            events("[get_weather(city='SF', days=3), get_time()]\nDone. [a()]"),
            [
                call("tool-call-1", "get_weather", r#"{"city":"SF","days":3}"#),
                call("tool-call-2", "get_time", "{}"),
                text("\nDone. "),
                call("tool-call-3", "a", "{}"),
            ]
        );
        // `[` must be followed by a name's first char (PY1.2).
        assert_eq!(events("[1] see [ a()]"), [text("[1] see [ a()]")]);
    }

    #[test]
    fn brackets_and_quotes_inside_strings_do_not_count() {
        assert_eq!(
            events(
                r#"<|python_start|>[f(a=")]", b='\'(', c="\\", d=[{"k": (1,)}])]<|python_end|>ok"#
            ),
            [
                call(
                    "tool-call-1",
                    "f",
                    r#"{"a":")]","b":"'(","c":"\\","d":[{"k":[1]}]}"#
                ),
                text("ok"),
            ]
        );
    }

    #[test]
    fn lfm2_sections_anywhere() {
        assert_eq!(
            events(
                "<think>Use the tool.</think><|tool_call_start|>[a(x=1), b(y=true)]<|tool_call_end|>\
                 Checking. <|tool_call_start|>[c()]<|tool_call_end|>"
            ),
            [
                r#"{"type":"reasoning-delta","delta":"Use the tool."}"#.to_owned(),
                call("tool-call-1", "a", r#"{"x":1}"#),
                call("tool-call-2", "b", r#"{"y":true}"#),
                text("Checking. "),
                call("tool-call-3", "c", "{}"),
            ]
        );
    }

    #[test]
    fn an_invalid_call_costs_only_itself() {
        assert_eq!(
            events("[a(x=foo), b()]"),
            [
                r#"{"type":"error","errorText":"unsupported literal in pythonic tool call: name \"foo\""}"#.to_owned(),
                text("[a(x=foo)"),
                call("tool-call-1", "b", "{}"),
            ]
        );
        // A first head that is no call in text is prose, not an error (PY1.5).
        assert_eq!(events("[Note] hello"), [text("[Note] hello")]);
        let later = events("[a(), Note]");
        assert!(
            later[1].contains("invalid name in pythonic tool call"),
            "{later:?}"
        );
        error(
            "pythonic tool call cut by <|tool_call_end|>",
            "<|tool_call_start|>[a(x='<|tool_call_end|>",
        );
        error("unterminated pythonic tool call", "[a(x='");
    }

    #[test]
    fn nesting_is_capped() {
        let deepest = format!("[f(x={}{})]", "[".repeat(125), "]".repeat(125));
        assert!(events(&deepest)[0].contains("\"tool-call\""));
        let too_deep = format!("[f(x={}{})]", "[".repeat(126), "]".repeat(126));
        error(
            "invalid pythonic tool call: nesting deeper than 126",
            &too_deep,
        );
    }

    #[test]
    fn releases_text_as_soon_as_it_cannot_open_a_call() {
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let mut out = Vec::new();
        parser.push("  [", &mut out);
        assert_eq!(out, [Event::text("  ")]);
        out.clear();
        parser.push("1", &mut out);
        assert_eq!(out, [Event::text("[1")]);
        out.clear();
        parser.push(" <|tool", &mut out);
        assert_eq!(out, [Event::text(" ")]);
        out.clear();
        parser.push("_call_start|>[f(q=')'", &mut out);
        assert_eq!(out, []);
        parser.push(")", &mut out);
        assert!(matches!(out.as_slice(), [Event::ToolCall(_)]), "{out:?}");
    }

    #[test]
    fn call_spans_and_markup() {
        let stream = "[a(), b()] x";
        let mut parser = KitParser::new(&GRAMMAR, Arc::default());
        let result = run(&mut parser, [stream]);
        assert_eq!(result.call_spans, [0..4, 4..9]);
        assert_eq!(parser.markup_spans(), &[Range { start: 9, end: 10 }]);
        assert_eq!(result.events.last(), Some(&Event::text(" x")));
    }

    #[test]
    fn fragment_soup_never_panics_and_is_chunk_invariant() {
        let fragments = [
            "[",
            "]",
            "(",
            ")",
            "{",
            "}",
            ",",
            "'",
            "\"",
            "\\",
            "=",
            " ",
            "\n",
            "a",
            "f",
            "x=",
            "1",
            "-2.5e3",
            "0x1F",
            "True",
            "null",
            "r'",
            "b'",
            "é",
            "日",
            "<think>",
            "</think>",
            "<|tool_call_start|>",
            "<|tool_call_end|>",
            "<|python_start|>",
            "<|python_end|>",
            "[f(",
            "[GetWeather(location=",
            "'''",
            "\\u00e9",
            "#",
        ];
        let mut seed: u64 = 0x5eed;
        for _ in 0..3000 {
            let mut stream = String::new();
            for _ in 0..12 {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                stream.push_str(fragments[(seed >> 33) as usize % fragments.len()]);
            }
            events(&stream);
        }
    }
}
