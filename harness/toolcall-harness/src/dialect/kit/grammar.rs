//! A kit dialect as data: its [`Grammar`] (modes and their markers), the [`Block`]s its markers
//! open, and what a block's decoder is given ([`Reading`], [`End`]) and answers ([`Outcome`]).
//! Modes are named by [`ModeId`]s that every mode carries, so a table's order and the names the
//! decoders use cannot drift apart (`check.rs` verifies each grammar).

use std::sync::OnceLock;

use super::markers::MarkerSet;
use super::nesting::Nesting;
use crate::event::Event;
use crate::tools::Registry;

/// A mode's name: its index in its grammar's `modes`, which the mode itself carries
/// ([`Mode::id`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ModeId(pub(crate) usize);

/// A dialect as data: its modes, the first of which is where a stream starts.
#[derive(Debug)]
pub(crate) struct Grammar {
    pub(crate) modes: &'static [Mode],
    /// One marker automaton per mode, built on first use.
    automata: OnceLock<Vec<MarkerSet>>,
}

impl Grammar {
    /// A grammar of `modes`; `modes[0]` is where a stream without prefill starts, and
    /// `modes[i].id` is `ModeId(i)` (checked by `check.rs`).
    pub(crate) const fn new(modes: &'static [Mode]) -> Grammar {
        Grammar {
            modes,
            automata: OnceLock::new(),
        }
    }

    /// Whether a reply that began as prose holds no call: the first mode is a lead whose
    /// prose has no markers (`xlam`, XL1.2). Such a dialect's calls stand first in a reply.
    pub(crate) fn prose_is_final(&self) -> bool {
        match self.modes.first().map(|mode| mode.content) {
            Some(Content::Lead { then }) => self.mode(then).markers.is_empty(),
            _ => false,
        }
    }

    pub(crate) fn mode(&self, id: ModeId) -> &'static Mode {
        let mode = &self.modes[id.0];
        debug_assert_eq!(
            mode.id, id,
            "a grammar's modes are in the order of their ids"
        );
        mode
    }

    pub(crate) fn automaton(&self, mode: ModeId) -> &MarkerSet {
        let automata = self.automata.get_or_init(|| {
            self.modes
                .iter()
                .map(|m| {
                    let literals: Vec<&'static str> = m.markers.iter().map(|k| k.literal).collect();
                    MarkerSet::new(&literals)
                })
                .collect()
        });
        &automata[mode.0]
    }

    /// Every literal of the grammar that opens a block, in any mode.
    pub(crate) fn block_openers(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.modes.iter().flat_map(|m| {
            m.markers
                .iter()
                .filter(|k| matches!(k.action, Action::Block(_)))
                .map(|k| k.literal)
        })
    }

    /// Every literal of the grammar: markers of every mode and closers of every block they
    /// open.
    pub(crate) fn literals(&self) -> Vec<&'static str> {
        let mut all = Vec::new();
        for mode in self.modes {
            for marker in mode.markers {
                all.push(marker.literal);
                if let Action::Block(block) = marker.action {
                    all.extend(block.closers.iter().copied());
                }
            }
        }
        all
    }
}

/// What the bytes of a mode that are not markers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Content {
    /// The start of a reply, where a call may still begin: text; blanks keep the mode, and
    /// any other char (text too) goes to mode `then`, whose markers are among this mode's (a
    /// reply that began as prose is prose). A marker found after that char is read again in
    /// `then`, and a marker prefix held after it is held only as far as `then`'s markers
    /// start with it (the rest is `then`'s content). A prefill never ends a lead: the reply
    /// starts after it.
    Lead {
        /// The mode once the reply is prose.
        then: ModeId,
    },
    /// Text.
    Text,
    /// Reasoning (`specs/events.md` §4).
    Reasoning,
    /// Between the calls of a section: blanks are markup; anything else starts stray text,
    /// and the parser goes to mode `stray` (text, with markers among this mode's, so blanks
    /// after it are text too).
    Gap {
        /// The mode of stray text in this section.
        stray: ModeId,
    },
}

/// A mode: its name, what its content is, and the markers that end it.
#[derive(Debug)]
pub(crate) struct Mode {
    pub(crate) id: ModeId,
    pub(crate) content: Content,
    pub(crate) markers: &'static [Marker],
}

/// A literal and what it does in its mode.
#[derive(Debug)]
pub(crate) struct Marker {
    pub(crate) literal: &'static str,
    pub(crate) action: Action,
}

/// What a marker does.
#[derive(Debug)]
pub(crate) enum Action {
    /// It is markup, and the parser goes to this mode.
    Switch(ModeId),
    /// It opens a block, captured from the marker's first byte.
    Block(&'static Block),
}

/// The modes of a *sectioned* grammar, the layout most dialects share ([`sectioned`]): text,
/// reasoning, a tool-call section's gap between calls, and stray text in a section.
pub(crate) mod sectioned {
    use super::ModeId;

    pub(crate) const TEXT: ModeId = ModeId(0);
    pub(crate) const REASONING: ModeId = ModeId(1);
    pub(crate) const SECTION: ModeId = ModeId(2);
    pub(crate) const STRAY: ModeId = ModeId(3);
}

/// The four modes of a sectioned grammar: `text` (where a section opener switches to
/// [`sectioned::SECTION`] and a reasoning opener to [`sectioned::REASONING`]), reasoning ended
/// by `reasoning`'s markers, and a section whose gap and stray text share `section`'s markers
/// (call openers, and the closer back to [`sectioned::TEXT`]).
pub(crate) const fn sectioned(
    text: &'static [Marker],
    reasoning: &'static [Marker],
    section: &'static [Marker],
) -> [Mode; 4] {
    [
        Mode {
            id: sectioned::TEXT,
            content: Content::Text,
            markers: text,
        },
        Mode {
            id: sectioned::REASONING,
            content: Content::Reasoning,
            markers: reasoning,
        },
        Mode {
            id: sectioned::SECTION,
            content: Content::Gap {
                stray: sectioned::STRAY,
            },
            markers: section,
        },
        Mode {
            id: sectioned::STRAY,
            content: Content::Text,
            markers: section,
        },
    ]
}

/// The markers of a sectioned grammar's section, the most common ones: `call_opener` opens a
/// `call` block, `closer` ends the section (back to [`sectioned::TEXT`]).
pub(crate) const fn section_markers(
    call_opener: &'static str,
    call: &'static Block,
    closer: &'static str,
) -> [Marker; 2] {
    [
        Marker {
            literal: call_opener,
            action: Action::Block(call),
        },
        Marker {
            literal: closer,
            action: Action::Switch(sectioned::TEXT),
        },
    ]
}

/// `<think>` in text: reasoning starts, in [`sectioned::REASONING`] (E4: the dialects that
/// write `<think>…</think>` put text at [`sectioned::TEXT`] and reasoning there).
pub(crate) const THINK: Marker = Marker {
    literal: "<think>",
    action: Action::Switch(sectioned::REASONING),
};

/// The markers of `<think>` reasoning: only `</think>`, back to text (call syntax inside is
/// reasoning, `specs/events.md` E4.4).
pub(crate) const END_THINK: &[Marker] = &[Marker {
    literal: "</think>",
    action: Action::Switch(sectioned::TEXT),
}];

/// The reasoning mode of `<think>` dialects ([`END_THINK`]), for grammars of two modes.
pub(crate) const THINKING: Mode = Mode {
    id: sectioned::REASONING,
    content: Content::Reasoning,
    markers: END_THINK,
};

/// A block: captured until one of its closers, or, for a nested block, until the level its
/// opener began is closed; then decoded whole.
#[derive(Debug)]
pub(crate) struct Block {
    /// Literals that end the block wherever they stand (inside a nested block's strings too).
    pub(crate) closers: &'static [&'static str],
    /// How a nested block counts its levels; `None` for a block ended by closers only.
    pub(crate) nesting: Option<&'static Nesting>,
    /// Reads the block that just ended (opener through its last byte), told why it ended.
    pub(crate) decode: fn(&Reading<'_>, End) -> Outcome,
    /// Reads the block still open at the end of the stream.
    pub(crate) unterminated: fn(&Reading<'_>) -> Outcome,
    automaton: OnceLock<MarkerSet>,
}

impl Block {
    /// A block ended by `closers`.
    pub(crate) const fn new(
        closers: &'static [&'static str],
        decode: fn(&Reading<'_>, End) -> Outcome,
        unterminated: fn(&Reading<'_>) -> Outcome,
    ) -> Block {
        Block {
            closers,
            nesting: None,
            decode,
            unterminated,
            automaton: OnceLock::new(),
        }
    }

    /// A nested block: it is entered by a byte that opens a level of `nesting` (the last byte
    /// of its opener, or of the text before an [`Outcome::Extend`] into it) and ends where that
    /// level closes ([`End::Balanced`]), where a level would nest too deep
    /// ([`End::TooDeep`]), where the first level is closed by another bracket
    /// ([`End::Mismatched`]), or at one of `closers` if one comes first. Its state is a few
    /// fields kept across chunks, so each byte costs O(1) and the block is read once, when it
    /// ends.
    pub(crate) const fn nested(
        closers: &'static [&'static str],
        nesting: &'static Nesting,
        decode: fn(&Reading<'_>, End) -> Outcome,
        unterminated: fn(&Reading<'_>) -> Outcome,
    ) -> Block {
        Block {
            closers,
            nesting: Some(nesting),
            decode,
            unterminated,
            automaton: OnceLock::new(),
        }
    }

    pub(crate) fn automaton(&self) -> &MarkerSet {
        self.automaton.get_or_init(|| MarkerSet::new(self.closers))
    }
}

/// Why a block ended, as its decoder is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// At this closer, the last bytes of the block.
    Closer(&'static str),
    /// A nested block's first level closed, at the block's last byte.
    Balanced,
    /// A nested block's first level closed by a bracket that does not pair with its opener.
    Mismatched,
    /// A nested block's last byte would open a level past its nesting's limit.
    TooDeep,
}

impl End {
    /// The closer's length in bytes: what of the block's end is the closer's.
    pub(crate) fn closer_len(self) -> usize {
        match self {
            End::Closer(closer) => closer.len(),
            End::Balanced | End::Mismatched | End::TooDeep => 0,
        }
    }
}

/// What a decoder is given: the block's text, and what a call needs.
#[derive(Debug)]
pub(crate) struct Reading<'a> {
    /// The block, from its opener's first byte (its prefill part included, C9.3).
    pub(crate) block: &'a str,
    /// How many leading bytes of `block` came from the prefill: context, never output.
    pub(crate) from_prefill: usize,
    /// The registry, for values typed by a tool's schema.
    pub(crate) tools: &'a Registry,
    /// The id the call gets if its source names none (C7).
    pub(crate) generated_id: String,
}

impl Reading<'_> {
    /// The block's text between its opener and its closer, as the lengths given: what most
    /// decoders read.
    pub(crate) fn inner(&self, opener: &str, closer: &str) -> &str {
        self.block
            .get(opener.len()..self.block.len().saturating_sub(closer.len()))
            .unwrap_or_default()
    }

    /// The block's text before the part of its end that is a closer.
    pub(crate) fn before(&self, end: End) -> &str {
        self.block
            .get(..self.block.len().saturating_sub(end.closer_len()))
            .unwrap_or_default()
    }
}

/// What a decoded block is.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// A call: these events (one `tool-call`), then this mode.
    Call(Vec<Event>, ModeId),
    /// Markup only (a header): then this mode.
    Markup(ModeId),
    /// Not finished: the block goes on, captured until this block's end.
    Extend(&'static Block),
    /// Invalid: `error` with this text, the block's text as text, then this mode.
    Reject(String, ModeId),
    /// No block after all, and no error: its text as text, then this mode (an opener that
    /// only looked like one, such as `[Note]` in prose for a dialect whose lists start with
    /// `[` and a name).
    Text(ModeId),
    /// Broken by its closer, which opens a new block of this kind: `error` with this text
    /// (none: no error), the block's text before the closer as text, and the closer starts
    /// the new block.
    Reopen(Option<String>, &'static Block),
}

impl Outcome {
    /// A block read as one call (then `mode`), or rejected with the reason it is not one
    /// (then `mode` too): what most decoders give.
    pub(crate) fn of_call<E: std::fmt::Display>(
        read: Result<crate::event::ToolCall, E>,
        mode: ModeId,
    ) -> Outcome {
        match read {
            Ok(call) => Outcome::Call(vec![Event::ToolCall(call)], mode),
            Err(error) => Outcome::Reject(error.to_string(), mode),
        }
    }
}
