//! `tool-parser` 1.10.0 in process against tch's reference, on the `reference` target's inputs
//! (`FuzzInput`: a dialect, a prompt, a stream of dialect fragments and raw bytes, cut points):
//! each input's stream is replayed whole and at its cuts, judged as `tch fuzz` judges, and each
//! finding of a new kind (dialect, verdicts, layer) is shrunk and written as a corpus case under
//! `TCH_FUZZ_OUT` (`toolcall_harness::fuzz::differential`). A panic of the parser is a `crash`
//! finding, not the fuzzer's end. Inputs of dialects the adapter does not serve return at once.
#![no_main]

use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;
use tch_tool_parser_in_process::{NAME, ToolParser};
use toolcall_harness::dialect::Dialect;

static DIALECTS: LazyLock<Vec<Dialect>> = LazyLock::new(ToolParser::dialects);

fuzz_target!(|data: &[u8]| {
    toolcall_harness::fuzz::differential(data, NAME, &DIALECTS, ToolParser::new);
});
