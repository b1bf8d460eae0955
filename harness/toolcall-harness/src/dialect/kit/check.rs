//! What every kit grammar must be, checked on the tables themselves (the dialects' tests run
//! it on every grammar): modes named by their position, switches to modes that exist, every
//! marker and closer reachable, nested blocks whose closers and openers fit their nesting.

use super::grammar::{Action, Block, Content, Grammar, ModeId};

/// The problems of `grammar`, each a sentence; none for a sound grammar.
pub(crate) fn problems(grammar: &Grammar) -> Vec<String> {
    let mut problems = Vec::new();
    let exists = |id: ModeId| id.0 < grammar.modes.len();
    for (index, mode) in grammar.modes.iter().enumerate() {
        if mode.id != ModeId(index) {
            problems.push(format!("mode {index} says it is mode {}", mode.id.0));
        }
        let literals: Vec<&str> = mode.markers.iter().map(|m| m.literal).collect();
        problems.extend(unreachable(&literals).map(|m| format!("mode {index}: {m}")));
        // A lead's prose and a gap's stray text keep the markers they were found among.
        let (Content::Lead { then: other } | Content::Gap { stray: other }) = mode.content else {
            continue;
        };
        if !exists(other) {
            problems.push(format!(
                "mode {index} goes on in mode {}, which does not exist",
                other.0
            ));
        } else if let Some(missing) = grammar.modes[other.0]
            .markers
            .iter()
            .find(|m| !literals.contains(&m.literal))
        {
            problems.push(format!(
                "mode {index} goes on in mode {}, whose marker {:?} it does not have",
                other.0, missing.literal
            ));
        }
    }
    for (index, mode) in grammar.modes.iter().enumerate() {
        for marker in mode.markers {
            match marker.action {
                Action::Switch(to) if !exists(to) => problems.push(format!(
                    "mode {index}: {:?} switches to mode {}, which does not exist",
                    marker.literal, to.0
                )),
                Action::Switch(_) => {}
                Action::Block(block) => {
                    problems.extend(
                        block_problems(block, marker.literal).map(|p| {
                            format!("mode {index}: {:?} opens a block: {p}", marker.literal)
                        }),
                    );
                }
            }
        }
    }
    problems
}

/// The problems of a block opened by `opener`.
fn block_problems(block: &Block, opener: &str) -> impl Iterator<Item = String> {
    let mut problems: Vec<String> = unreachable(block.closers).collect();
    if let Some(nesting) = block.nesting {
        problems.extend(
            block
                .closers
                .iter()
                .filter(|c| c.bytes().any(|b| nesting.counts(b)))
                .map(|c| format!("closer {c:?} holds a byte its nesting counts")),
        );
        if !opener
            .bytes()
            .last()
            .is_some_and(|b| nesting.opens.contains(&b))
        {
            problems.push("a nested block's opener must end with a byte that opens a level".into());
        }
    }
    problems.into_iter()
}

/// The literals of one automaton that can never be found, each said as a sentence: the empty
/// one, and one that holds another before its own last byte (the automaton reports the
/// first literal to end, the longest of those ending at the same byte).
fn unreachable<'a>(literals: &'a [&'a str]) -> impl Iterator<Item = String> + 'a {
    literals.iter().enumerate().filter_map(|(i, literal)| {
        if literal.is_empty() {
            return Some("an empty literal".to_owned());
        }
        let shadow = literals.iter().enumerate().find(|&(j, other)| {
            j != i && (*other == *literal && j < i || contains_before_end(literal, other))
        });
        shadow.map(|(_, other)| format!("{literal:?} is never found: {other:?} ends first"))
    })
}

/// Whether `inner` occurs in `literal` ending before `literal`'s last byte.
fn contains_before_end(literal: &str, inner: &str) -> bool {
    !inner.is_empty()
        && literal
            .get(..literal.len() - 1)
            .is_some_and(|head| head.contains(inner))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialect::kit::grammar::{End, Marker, Mode, Outcome, Reading};
    use crate::dialect::kit::nesting::Nesting;

    fn decode(_: &Reading<'_>, _: End) -> Outcome {
        Outcome::Markup(ModeId(0))
    }

    fn unterminated(_: &Reading<'_>) -> Outcome {
        Outcome::Markup(ModeId(0))
    }

    static SHADOWED: Block = Block::new(&["</a>", "</a>b"], decode, unterminated);
    static QUOTED: Block = Block::nested(&["\"end"], &Nesting::JSON_OBJECT, decode, unterminated);

    static BROKEN: Grammar = Grammar::new(&[
        Mode {
            id: ModeId(0),
            content: Content::Gap { stray: ModeId(1) },
            markers: &[
                Marker {
                    literal: "<a>",
                    action: Action::Block(&SHADOWED),
                },
                Marker {
                    literal: "x",
                    action: Action::Block(&QUOTED),
                },
                Marker {
                    literal: "<a",
                    action: Action::Switch(ModeId(7)),
                },
            ],
        },
        Mode {
            id: ModeId(0),
            content: Content::Text,
            markers: &[Marker {
                literal: "<b>",
                action: Action::Switch(ModeId(0)),
            }],
        },
    ]);

    #[test]
    fn each_kind_of_mistake_is_named() {
        let problems = problems(&BROKEN);
        let expected = [
            "mode 1 says it is mode 0",
            "mode 0: \"<a>\" is never found: \"<a\" ends first",
            "mode 0 goes on in mode 1, whose marker \"<b>\" it does not have",
            "mode 0: \"<a>\" opens a block: \"</a>b\" is never found: \"</a>\" ends first",
            "mode 0: \"x\" opens a block: closer \"\\\"end\" holds a byte its nesting counts",
            "mode 0: \"x\" opens a block: a nested block's opener must end with a byte that opens a level",
            "mode 0: \"<a\" switches to mode 7, which does not exist",
        ];
        for want in expected {
            assert!(
                problems.iter().any(|p| p == want),
                "{want}\nin {problems:#?}"
            );
        }
        assert_eq!(problems.len(), expected.len(), "{problems:#?}");
    }
}
