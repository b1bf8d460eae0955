//! `tch`: the command line. Argument parsing and error reporting live here; all the work is
//! done by the `toolcall_harness` library.

mod cli;

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    // `tch` starts nothing but candidates: every process below it is theirs, and ends with the
    // command (`specs/runner.md` R1.3). Where this is refused (not Linux), a candidate's
    // process group, and on Linux its marker, still reach what it started.
    let _ = toolcall_harness::supervisor::adopt_orphans();
    end_candidates_on_signal();
    let outcome = cli::run(args);
    if INTERRUPTED.load(Ordering::SeqCst) {
        // The signal's handler is ending the candidates, which may be what ended the command
        // (a candidate killed mid-hello is an error): the handler, not this, says how `tch`
        // ends, once every process is ended.
        loop {
            std::thread::park();
        }
    }
    // Each candidate has ended with its job; this reaches what could not be told apart
    // before: a detached helper that cleared its environment.
    toolcall_harness::supervisor::end_every_candidate();
    match outcome {
        Ok(code) => code,
        // A closed pipe (`tch parse … | head`) is the reader's choice, not a failure.
        Err(error)
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("tch: error: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// Set by the signal's handler before it ends the candidates.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// On Ctrl-C (or SIGTERM, SIGHUP), ends every candidate `tch` started and every process they
/// started, then exits as a shell expects (128 + the signal). The candidates do not get the
/// terminal's signal themselves: each runs in a process group of its own, so that a hung one
/// can be killed with its children.
fn end_candidates_on_signal() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            INTERRUPTED.store(true, Ordering::SeqCst);
            toolcall_harness::supervisor::end_every_candidate();
            std::process::exit(128 + signal);
        }
    });
}
