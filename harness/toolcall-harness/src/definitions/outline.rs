//! The Markdown of a definition reduced to what the format uses (`specs/definitions.md` D1.3,
//! D1.4): headings, paragraphs and list items with their nesting, each with its line, read from
//! pulldown-cmark's event stream. Code blocks, HTML blocks, block quotes, tables and rules are
//! dropped here, so no later stage can mistake their content for structure.

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::error::{Located, Problem};
use super::text::Lines;

/// How deep lists may nest (D1.5). The tree below is walked recursively, so an unbounded depth
/// (`- - - - … x` is one nested list per two bytes) could exhaust the stack.
pub(super) const MAX_NESTING: usize = 16;

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Block {
    Heading {
        level: u8,
        text: String,
        line: usize,
    },
    Paragraph {
        text: String,
        line: usize,
    },
    List(Vec<Item>),
}

/// One list item: its own text, and the items of the lists nested in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Item {
    pub line: usize,
    pub text: String,
    /// When the item's text starts with strong text (`**Key**`), where that text ends in
    /// `text`: the key of a key item (D3.1).
    pub strong_lead_end: Option<usize>,
    pub children: Vec<Item>,
}

impl Item {
    /// The item's text followed by its nested items' texts, each after a space (D7.1, D3.6).
    pub(super) fn full_text(&self) -> String {
        let mut text = self.text.trim().to_owned();
        for child in &self.children {
            let child_text = child.full_text();
            if !child_text.is_empty() {
                if !text.is_empty() {
                    text.push(' ');
                }
                text.push_str(&child_text);
            }
        }
        text
    }
}

/// The blocks of `source`, in document order.
pub(super) fn outline(source: &str) -> Result<Vec<Block>, Located> {
    let lines = Lines::new(source);
    let mut builder = Builder::default();
    for (event, range) in Parser::new(source).into_offset_iter() {
        builder.event(event, lines.line_of(range.start))?;
    }
    Ok(builder.blocks)
}

/// A heading or top-level paragraph whose text is being collected.
struct Capture {
    level: Option<u8>,
    text: String,
    line: usize,
}

#[derive(Default)]
struct Builder {
    blocks: Vec<Block>,
    /// The items being read, outermost first.
    open_items: Vec<Item>,
    /// The finished items of the top-level list being read.
    top_items: Vec<Item>,
    capture: Option<Capture>,
    /// Nesting depth inside a block that is not read (code, HTML, quote, table…).
    skipping: usize,
    /// Inside the strong text that opens the innermost item.
    in_strong_lead: bool,
}

impl Builder {
    fn event(&mut self, event: Event<'_>, line: usize) -> Result<(), Located> {
        if self.skipping > 0 {
            match event {
                Event::Start(_) => self.skipping += 1,
                Event::End(_) => self.skipping -= 1,
                _ => {}
            }
            return Ok(());
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) if self.open_items.is_empty() => {
                self.capture = Some(Capture {
                    level: Some(level as u8),
                    text: String::new(),
                    line,
                });
            }
            Event::Start(Tag::Paragraph) => match self.open_items.last_mut() {
                Some(item) if !item.text.is_empty() => item.text.push_str("\n\n"),
                Some(_) => {}
                None => {
                    self.capture = Some(Capture {
                        level: None,
                        text: String::new(),
                        line,
                    });
                }
            },
            Event::End(TagEnd::Heading(_) | TagEnd::Paragraph) => {
                if let Some(Capture { level, text, line }) = self.capture.take() {
                    let text = text.trim().to_owned();
                    self.blocks.push(match level {
                        Some(level) => Block::Heading { level, text, line },
                        None => Block::Paragraph { text, line },
                    });
                }
            }
            Event::Start(Tag::Item) => {
                if self.open_items.len() >= MAX_NESTING {
                    return Err(Located::document(line, Problem::NestingTooDeep));
                }
                self.open_items.push(Item {
                    line,
                    text: String::new(),
                    strong_lead_end: None,
                    children: Vec::new(),
                });
            }
            Event::End(TagEnd::Item) => {
                if let Some(item) = self.open_items.pop() {
                    match self.open_items.last_mut() {
                        Some(parent) => parent.children.push(item),
                        None => self.top_items.push(item),
                    }
                }
            }
            Event::End(TagEnd::List(_)) if self.open_items.is_empty() => {
                let items = std::mem::take(&mut self.top_items);
                self.blocks.push(Block::List(items));
            }
            Event::Start(Tag::Strong) => {
                if let Some(item) = self.open_items.last()
                    && item.text.trim().is_empty()
                    && item.strong_lead_end.is_none()
                {
                    self.in_strong_lead = true;
                }
            }
            Event::End(TagEnd::Strong) if self.in_strong_lead => {
                self.in_strong_lead = false;
                if let Some(item) = self.open_items.last_mut() {
                    item.strong_lead_end = Some(item.text.len());
                }
            }
            Event::Text(text) | Event::Code(text) | Event::InlineHtml(text) => self.push(&text),
            Event::SoftBreak => self.push(" "),
            Event::HardBreak => self.push("\n"),
            Event::Start(
                Tag::Heading { .. }
                | Tag::CodeBlock(_)
                | Tag::HtmlBlock
                | Tag::BlockQuote(_)
                | Tag::Table(_)
                | Tag::FootnoteDefinition(_)
                | Tag::MetadataBlock(_)
                | Tag::DefinitionList,
            ) => self.skipping = 1,
            // Lists open and close around their items; emphasis, links and the rest of the
            // inline markup only wrap text that arrives as `Text`.
            _ => {}
        }
        Ok(())
    }

    fn push(&mut self, text: &str) {
        if let Some(item) = self.open_items.last_mut() {
            item.text.push_str(text);
        } else if let Some(capture) = &mut self.capture {
            capture.text.push_str(text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(line: usize, text: &str, strong_lead_end: Option<usize>) -> Item {
        Item {
            line,
            text: text.into(),
            strong_lead_end,
            children: vec![],
        }
    }

    #[test]
    fn reads_headings_paragraphs_and_lists_with_lines() {
        let blocks =
            outline("# T\n\nOne\ntwo  \nthree\n\n## M\n\n- **Name**: x\n- a `b` <c>\n").unwrap();
        assert_eq!(
            blocks,
            vec![
                Block::Heading {
                    level: 1,
                    text: "T".into(),
                    line: 1
                },
                Block::Paragraph {
                    text: "One two\nthree".into(),
                    line: 3
                },
                Block::Heading {
                    level: 2,
                    text: "M".into(),
                    line: 7
                },
                Block::List(vec![item(9, "Name: x", Some(4)), item(10, "a b <c>", None)]),
            ]
        );
    }

    #[test]
    fn loose_items_and_nested_lists() {
        let blocks = outline("* __Items__:\n\n  * **Type**: string\n\n  more\n").unwrap();
        let [Block::List(items)] = blocks.as_slice() else {
            panic!("{blocks:?}")
        };
        assert_eq!(items[0].text, "Items:\n\nmore");
        assert_eq!(items[0].strong_lead_end, Some(5));
        assert_eq!(items[0].children, vec![item(3, "Type: string", Some(4))]);
        assert_eq!(items[0].full_text(), "Items:\n\nmore Type: string");
    }

    #[test]
    fn code_html_and_quotes_are_not_read() {
        let blocks =
            outline("<!-- # Not -->\n\n```\n## Metadata\n- **a**: b\n```\n\n> - q\n\n    ## x\n")
                .unwrap();
        assert_eq!(blocks, vec![]);
    }

    #[test]
    fn strong_text_later_in_an_item_is_no_key() {
        let blocks = outline("- a **b**: c\n").unwrap();
        assert_eq!(blocks, vec![Block::List(vec![item(1, "a b: c", None)])]);
    }

    #[test]
    fn refuses_deep_nesting_without_exhausting_the_stack() {
        let deep = "- ".repeat(100_000) + "x\n";
        let error = outline(&deep).unwrap_err();
        assert_eq!(error.problem, Problem::NestingTooDeep);
        assert!(outline(&("- ".repeat(MAX_NESTING) + "x\n")).is_ok());
    }
}
