//! PLACEHOLDER during parallel work: the `signature` dialect (`specs/dialects/signature.md`).

use std::ops::Range;
use std::sync::Arc;

use crate::event::Event;
use crate::parser::StreamParser;
use crate::tools::Registry;

pub fn may_hold(_held: &str) -> bool {
    todo!("signature eagerness oracle")
}

pub struct SignatureParser {
    _tools: Arc<Registry>,
}

impl SignatureParser {
    pub fn new(tools: Arc<Registry>) -> Self {
        SignatureParser { _tools: tools }
    }
}

impl StreamParser for SignatureParser {
    fn push(&mut self, _chunk: &str, _out: &mut Vec<Event>) {
        todo!("signature parser")
    }
    fn finish(&mut self, _out: &mut Vec<Event>) {
        todo!("signature parser")
    }
    fn call_spans(&self) -> &[Range<usize>] {
        &[]
    }
}
