//! Every reference parser on a structure-aware input (`FuzzInput`: a dialect, a stream of
//! dialect fragments and raw bytes, a chunking): no panic, and `check_stream`'s oracles (chunk
//! invariance, text conservation, event grammar, eagerness) hold. `TCH_FUZZ_DIALECTS=a,b`
//! limits the run to those dialects (inputs of others return at once), to spend a run on the
//! dialects just added.
#![no_main]

use std::sync::{Arc, LazyLock};

use libfuzzer_sys::fuzz_target;
use toolcall_harness::definitions::bundled_registry;
use toolcall_harness::dialect::Dialect;
use toolcall_harness::fuzz::{FuzzInput, check_stream};
use toolcall_harness::tools::Registry;

static TOOLS: LazyLock<Arc<Registry>> =
    LazyLock::new(|| Arc::new(bundled_registry().expect("the bundled tools load")));

/// The dialects `TCH_FUZZ_DIALECTS` names; all when it is unset. A name tch does not know
/// stops the run at its first input, with the known names.
static DIALECTS: LazyLock<Vec<Dialect>> =
    LazyLock::new(|| match std::env::var("TCH_FUZZ_DIALECTS") {
        Ok(names) => names
            .split(',')
            .map(|name| {
                name.trim()
                    .parse()
                    .unwrap_or_else(|e| panic!("TCH_FUZZ_DIALECTS: {e}"))
            })
            .collect(),
        Err(_) => Dialect::ALL.to_vec(),
    });

fuzz_target!(|input: FuzzInput| {
    if !DIALECTS.contains(&input.dialect) {
        return;
    }
    if let Err(failure) = check_stream(&input, &TOOLS) {
        panic!(
            "{} stream {:?} cut at {:?}: {failure}",
            input.dialect, input.stream, input.cuts
        );
    }
});
