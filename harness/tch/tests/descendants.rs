//! No process a candidate starts outlives it (`specs/runner.md` R1.3): candidates that start a
//! helper which detaches (a session of its own, with and without the candidate's output, a
//! double fork, one that also clears its environment), under `tch run` (the end of a run, a
//! restart after a timeout, SIGINT, SIGTERM and SIGHUP), `tch fuzz` and `tch scale`.
//!
//! The fixture lists each helper it starts; a test passes when every listed helper has ended
//! (polled for, with a generous bound: `tch` itself waits for them, so a slow machine only
//! waits longer), and kills whatever is still running when it ends, passed or failed.
//! Linux only: elsewhere a helper in a session of its own is out of `tch`'s reach.

#![cfg(target_os = "linux")]

mod common;

use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use common::{root, stdout};

/// Every way the fixture's helper detaches (`tests/hostile/leaves_helper.py`).
const MODES: [&str; 4] = [
    "session",
    "session-stdout",
    "double-fork",
    "double-fork-bare",
];

/// How long a listed helper may take to disappear once `tch` has returned. `tch` waits for
/// what it kills, so this only bounds a test on a broken build.
const ENDED_WITHIN: Duration = Duration::from_secs(30);

/// The helpers one fixture run lists, in a file of their own. Dropped, it kills each one that
/// is still running, so that no test leaves a process behind, whether it passed or failed.
struct Helpers {
    file: PathBuf,
}

impl Helpers {
    fn new(test: &str) -> Helpers {
        let file =
            std::env::temp_dir().join(format!("tch-test-{}-helpers-{test}", std::process::id()));
        let helpers = Helpers { file };
        helpers.remove_files();
        helpers
    }

    fn leaked_file(&self) -> PathBuf {
        self.file.with_extension("leaked")
    }

    fn remove_files(&self) {
        let _ = std::fs::remove_file(&self.file);
        let _ = std::fs::remove_file(self.leaked_file());
    }

    /// The fixture's argv: a candidate whose helper detaches as `mode` says, and that `then`s
    /// (`serve` or `hang`).
    fn candidate(&self, mode: &str, then: &str) -> Vec<String> {
        vec![
            "python3".into(),
            "harness/tch/tests/hostile/leaves_helper.py".into(),
            self.file.display().to_string(),
            mode.into(),
            then.into(),
        ]
    }

    /// Each helper listed so far: its process id and start time.
    fn listed(&self) -> Vec<(String, String)> {
        std::fs::read_to_string(&self.file)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.split_once(' '))
            .map(|(pid, started)| (pid.to_owned(), started.to_owned()))
            .collect()
    }

    /// What the fixture found still there (running, or a zombie: never reaped) from an earlier
    /// start when it started again.
    fn leaked(&self) -> String {
        std::fs::read_to_string(self.leaked_file()).unwrap_or_default()
    }

    /// Asserts that some helper was listed and that every one ends (the first check is at
    /// once; later ones poll, within [`ENDED_WITHIN`]).
    fn assert_all_ended(&self, what: &str) {
        let listed = self.listed();
        assert!(!listed.is_empty(), "{what}: the candidate listed no helper");
        let waited = Instant::now();
        loop {
            let running: Vec<&String> = listed
                .iter()
                .filter(|(pid, started)| running(pid, started))
                .map(|(pid, _)| pid)
                .collect();
            if running.is_empty() {
                return;
            }
            assert!(
                waited.elapsed() < ENDED_WITHIN,
                "{what}: helpers {running:?} outlived tch"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Helpers {
    fn drop(&mut self) {
        for (pid, started) in self.listed() {
            if running(&pid, &started) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid])
                    .stderr(Stdio::null())
                    .status();
            }
        }
        self.remove_files();
    }
}

/// Whether process `pid` still runs and is the one that started at `started` (a zombie has
/// ended; a process given the same id later is another).
fn running(pid: &str, started: &str) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    fields.first() != Some(&"Z") && fields.get(19) == Some(&started)
}

/// A `tch` started in the background; killed when dropped (a failed test), so that it cannot
/// outlive the test either.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `tch ARGS -- CANDIDATE`, run to its end in the repository's root.
fn tch(args: &[&str], candidate: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tch"))
        .args(args)
        .arg("--")
        .args(candidate)
        .current_dir(root())
        .output()
        .expect("tch runs")
}

fn report_dir(test: &str) -> String {
    std::env::temp_dir()
        .join(format!("tch-test-{}-{test}", std::process::id()))
        .display()
        .to_string()
}

fn says(output: &Output) -> String {
    format!(
        "{}{}",
        stdout(output),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn no_helper_outlives_a_run() {
    for mode in MODES {
        let helpers = Helpers::new(&format!("run-{mode}"));
        let output = tch(
            &[
                "run",
                "--no-scaling",
                "--report-dir",
                &report_dir(&format!("run-{mode}")),
                "--case",
                "hermes/short-call",
                "--splits",
                "whole",
                "--triage-seconds",
                "0",
            ],
            &helpers.candidate(mode, "serve"),
        );
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{mode}: {}",
            says(&output)
        );
        helpers.assert_all_ended(&format!("tch run, helper in {mode}"));
    }
}

#[test]
fn a_restart_after_a_timeout_comes_after_the_hung_candidate_s_helpers_ended() {
    // Not `double-fork-bare`: an orphan without a marker can't be told from another job's
    // helper, and ends with the run (R1.3); `no_helper_outlives_a_run_that_timed_out` has it.
    for mode in ["session", "session-stdout", "double-fork"] {
        let helpers = Helpers::new(&format!("restart-{mode}"));
        let output = tch(
            &[
                "run",
                "--no-scaling",
                "--report-dir",
                &report_dir(&format!("restart-{mode}")),
                "--case",
                "hermes/short-*",
                "--splits",
                "whole",
                "--jobs",
                "1",
                "--timeout",
                "0.5",
                "--start-timeout",
                "60",
                "--max-restarts",
                "2",
                "--triage-seconds",
                "0",
            ],
            &helpers.candidate(mode, "hang"),
        );
        assert_eq!(output.status.code(), Some(1), "{mode}: {}", says(&output));
        assert!(
            helpers.listed().len() >= 2,
            "{mode}: never restarted: {}",
            says(&output)
        );
        assert_eq!(
            helpers.leaked(),
            "",
            "{mode}: a helper of a hung candidate was still there (running, or dead and never \
             reaped) when the next one started"
        );
        helpers.assert_all_ended(&format!("tch run after timeouts, helper in {mode}"));
    }
}

#[test]
fn no_helper_outlives_a_run_that_timed_out() {
    let helpers = Helpers::new("timed-out-bare");
    let output = tch(
        &[
            "run",
            "--no-scaling",
            "--report-dir",
            &report_dir("timed-out-bare"),
            "--case",
            "hermes/short-call",
            "--splits",
            "whole",
            "--timeout",
            "0.5",
            "--triage-seconds",
            "0",
        ],
        &helpers.candidate("double-fork-bare", "hang"),
    );
    assert_eq!(output.status.code(), Some(1), "{}", says(&output));
    helpers.assert_all_ended("tch run after a timeout, helper double-forked without a marker");
}

#[test]
fn a_signal_to_tch_ends_every_helper() {
    for (signal, code) in [("INT", 130), ("TERM", 143), ("HUP", 129)] {
        for mode in MODES {
            let what = format!("SIG{signal}, helper in {mode}");
            let helpers = Helpers::new(&format!("signal-{signal}-{mode}"));
            let tch = Command::new(env!("CARGO_BIN_EXE_tch"))
                .args(["run", "--no-scaling", "--case", "hermes/short-call"])
                .args(["--timeout", "60", "--jobs", "1", "--triage-seconds", "0"])
                .args(["--report-dir", &report_dir("signal")])
                .arg("--")
                .args(helpers.candidate(mode, "hang"))
                .current_dir(root())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("tch starts");
            let mut tch = Running(tch);
            // The candidate lists its helper before it answers hello, so `tch` is past setting
            // up its signal handler by then.
            let waited = Instant::now();
            while helpers.listed().is_empty() {
                assert!(
                    tch.0.try_wait().expect("tch is waited for").is_none(),
                    "{what}: tch ended before its candidate started"
                );
                assert!(
                    waited.elapsed() < Duration::from_secs(60),
                    "{what}: the candidate never started"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            let sent = Command::new("kill")
                .args([format!("-{signal}"), tch.0.id().to_string()])
                .status()
                .expect("kill runs");
            assert!(sent.success());
            let status = tch.0.wait().expect("tch ends");
            assert_eq!(status.code(), Some(code), "{what}");
            helpers.assert_all_ended(&what);
        }
    }
}

#[test]
fn no_helper_outlives_tch_fuzz() {
    for mode in MODES {
        let helpers = Helpers::new(&format!("fuzz-{mode}"));
        let output = tch(
            &[
                "fuzz",
                "--dialect",
                "hermes",
                "--streams",
                "3",
                "--seed",
                "1",
                "--max-failures",
                "1",
                "--shrink-tries",
                "5",
                "--out",
                &report_dir(&format!("fuzz-{mode}")),
            ],
            &helpers.candidate(mode, "serve"),
        );
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{mode}: {}",
            says(&output)
        );
        helpers.assert_all_ended(&format!("tch fuzz, helper in {mode}"));
    }
}

#[test]
fn no_helper_outlives_tch_scale() {
    for mode in MODES {
        let helpers = Helpers::new(&format!("scale-{mode}"));
        let output = tch(
            &[
                "scale",
                "--dialect",
                "hermes",
                "--family",
                "prose",
                "--size",
                "4KiB",
                "--repeat",
                "1",
            ],
            &helpers.candidate(mode, "serve"),
        );
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{mode}: {}",
            says(&output)
        );
        helpers.assert_all_ended(&format!("tch scale, helper in {mode}"));
    }
}
