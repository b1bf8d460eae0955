//! PLACEHOLDER during parallel work: the `hermes` dialect (`specs/dialects/hermes.md`).

use std::ops::Range;

use crate::event::Event;
use crate::parser::StreamParser;

pub fn may_hold(_held: &str) -> bool {
    todo!("hermes eagerness oracle")
}

#[derive(Default)]
pub struct HermesParser {}

impl HermesParser {
    pub fn new() -> Self {
        HermesParser {}
    }
}

impl StreamParser for HermesParser {
    fn push(&mut self, _chunk: &str, _out: &mut Vec<Event>) {
        todo!("hermes parser")
    }
    fn finish(&mut self, _out: &mut Vec<Event>) {
        todo!("hermes parser")
    }
    fn call_spans(&self) -> &[Range<usize>] {
        &[]
    }
}
