//! `tch`: the command line. Argument parsing and error reporting live here; all the work is
//! done by the `toolcall_harness` library.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
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
