//! The seed corpora the cargo-fuzz targets start from (every corpus case) satisfy their
//! oracles, and every seed survives the fuzz input's byte encoding.

use std::sync::Arc;

use toolcall_harness::corpus::{bundled_cases, bundled_definition_cases};
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::fuzz::fragments::prefills;
use toolcall_harness::fuzz::{FuzzInput, check_definition, check_stream};
use toolcall_harness::split;

#[test]
fn every_corpus_case_is_a_seed_that_passes_the_oracles() {
    let tools = Arc::new(bundled_registry().expect("bundled tools"));
    for case in bundled_cases().expect("bundled corpus") {
        // Encoded as the seeds are, with a few cuts, and decoded back.
        let cuts = split::random_cuts(&case.stream, 1, 1).concat();
        let input = FuzzInput {
            dialect: case.dialect,
            // A prefill the format cannot name is left out: the stream alone is a seed too.
            prefill: prefills()
                .iter()
                .find(|p| **p == case.prefill)
                .copied()
                .unwrap_or(""),
            stream: case.stream.clone(),
            cuts,
        };
        let decoded = FuzzInput::decode(&input.encode());
        assert_eq!(decoded, input, "{}", case.id);
        if let Err(failure) = check_stream(&decoded, &tools) {
            panic!("{}: {failure}", case.id);
        }
    }
    for case in bundled_definition_cases().expect("bundled definitions") {
        if let Err(failure) = check_definition(case.kind, case.text.as_bytes()) {
            panic!("{}: {failure}", case.id);
        }
    }
}
