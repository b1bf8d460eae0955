//! Catching a candidate's panic as its message, without the panic hook printing it: a parser
//! that panics on every case would otherwise print thousands of backtraces into `cargo test`'s
//! output. The hook is the process's, so it is wrapped once and stays quiet only on a thread
//! inside [`quietly`]; every other panic (the test's own assertions) prints as before.

use std::cell::{Cell, RefCell};
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Whether this thread is inside [`quietly`].
    static QUIET: Cell<bool> = const { Cell::new(false) };
    /// Where the last quiet panic happened, as the hook was told (`file:line:col`).
    static LOCATION: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Runs `f`; a panic comes back as `"MESSAGE at FILE:LINE:COL"`.
pub(super) fn quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if QUIET.get() {
                let at = info.location().map(|l| l.to_string());
                LOCATION.with(|location| *location.borrow_mut() = at);
            } else {
                previous(info);
            }
        }));
    });
    let was = QUIET.replace(true);
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    QUIET.set(was);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic whose payload is not a string".to_owned());
        match LOCATION.with(|location| location.borrow_mut().take()) {
            Some(at) => format!("{message} at {at}"),
            None => message,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::quietly;

    #[test]
    fn a_panic_comes_back_as_its_message_and_place() {
        let caught = quietly(|| -> u8 { panic!("index {} out of range", 7) });
        let message = caught.expect_err("it panicked");
        assert!(message.starts_with("index 7 out of range at "), "{message}");
        assert!(message.contains("panics.rs:"), "{message}");
        assert_eq!(quietly(|| 3), Ok(3));
    }
}
