//! `tch`: the command line. Argument parsing and error reporting live here; all the work is
//! done by the `toolcall_harness` library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    kill_candidates_on_interrupt();
    match cli::run(args) {
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

/// On Ctrl-C (or SIGTERM, SIGHUP), kills every candidate process group `tch` started, then
/// exits as a shell expects (128 + the signal). The groups do not get the terminal's signal
/// themselves: each candidate runs in a group of its own, so that a hung one can be killed
/// with its children.
fn kill_candidates_on_interrupt() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            toolcall_harness::supervisor::kill_every_candidate();
            std::process::exit(128 + signal);
        }
    });
}
