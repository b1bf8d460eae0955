//! The definitions parser on any bytes (the first byte picks `.tool.md` or `.skill.md`): no
//! panic, and `check_definition`'s promises (line-end and byte-order-mark variants parse
//! alike; a tool's rendered example reads back as its sample call) hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolcall_harness::fuzz::{check_definition, definition_input};

fuzz_target!(|data: &[u8]| {
    let (kind, bytes) = definition_input(data);
    if let Err(failure) = check_definition(kind, bytes) {
        panic!("{kind:?} {:?}: {failure}", String::from_utf8_lossy(bytes));
    }
});
