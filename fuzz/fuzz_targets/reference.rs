//! Every reference parser on a structure-aware input (`FuzzInput`: a dialect, a stream of
//! dialect fragments and raw bytes, a chunking): no panic, and `check_stream`'s oracles (chunk
//! invariance, text conservation, event grammar, eagerness) hold.
#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::fuzz::{FuzzInput, check_stream};
use toolcall_harness::tools::Registry;

static TOOLS: LazyLock<Arc<Registry>> =
    LazyLock::new(|| Arc::new(bundled_registry().expect("the bundled tools load")));

fuzz_target!(|input: FuzzInput| {
    if let Err(failure) = check_stream(&input, &TOOLS) {
        panic!(
            "{} stream {:?} cut at {:?}: {failure}",
            input.dialect, input.stream, input.cuts
        );
    }
});
