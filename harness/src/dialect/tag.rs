//! PLACEHOLDER during parallel work: the `tag` dialect (`specs/dialects/tag.md`).

use std::ops::Range;
use std::sync::Arc;

use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;

pub fn may_hold(_held: &str, _tools: &Registry) -> bool {
    todo!("tag eagerness oracle")
}

pub struct TagParser {
    _tools: Arc<Registry>,
}

impl TagParser {
    pub fn new(tools: Arc<Registry>) -> Self {
        TagParser { _tools: tools }
    }
}

impl StreamParser for TagParser {
    fn push(&mut self, _chunk: &str, _out: &mut Vec<Event>) {
        todo!("tag parser")
    }
    fn finish(&mut self, _out: &mut Vec<Event>) {
        todo!("tag parser")
    }
    fn call_spans(&self) -> &[Range<usize>] {
        &[]
    }
}
