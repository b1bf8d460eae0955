//! The root `action.yml`'s script, `.ci/action.sh`, run as GitHub would run it: inputs as
//! `INPUT_*` variables, a fake `GITHUB_STEP_SUMMARY` and `GITHUB_OUTPUT`, and this build's tch.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{root, stdout};

/// Runs the action's script with `inputs` in a fresh folder; returns its output, the job
/// summary and the step outputs it wrote.
fn action(name: &str, inputs: &[(&str, &str)]) -> (Output, String, String) {
    action_after(name, inputs, |_| {})
}

/// [`action`], after `prepare` has been given the report folder.
fn action_after(
    name: &str,
    inputs: &[(&str, &str)],
    prepare: impl FnOnce(&Path),
) -> (Output, String, String) {
    let dir = std::env::temp_dir().join(format!("tch-action-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    prepare(&dir.join("report"));
    let summary = dir.join("step-summary.md");
    let outputs = dir.join("step-outputs.txt");
    let mut command = Command::new("bash");
    command
        .arg(root().join(".ci/action.sh"))
        .current_dir(root())
        .env("TCH_BIN", env!("CARGO_BIN_EXE_tch"))
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("INPUT_REPORT_DIR", dir.join("report"));
    for (key, value) in inputs {
        command.env(format!("INPUT_{key}"), value);
    }
    let output = command.output().expect("bash runs");
    let read = |path: &Path| std::fs::read_to_string(path).unwrap_or_default();
    (output, read(&summary), read(&outputs))
}

const BUGGY: (&str, &str) = ("CANDIDATE", "python3 adapters/examples/args_not_input.py");
const FEW_CASES: (&str, &str) = ("ARGS", "--case hermes/short-* --splits whole --jobs 1");

#[test]
fn a_failing_parser_fails_the_step_and_its_summary_reaches_the_job() {
    let (output, summary, outputs) = action("fail", &[BUGGY, ("DIALECTS", "hermes"), FEW_CASES]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(summary.starts_with("## tch: "), "{summary}");
    assert!(summary.contains("### Failures"), "{summary}");
    assert!(outputs.contains("junit="), "{outputs}");
    assert!(
        stdout(&output).contains("--dialect hermes"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn known_failures_pass_the_step_with_their_reasons_in_the_summary() {
    let dir = std::env::temp_dir().join(format!("tch-action-{}-known-list", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let known = dir.join("known.txt");
    std::fs::write(
        &known,
        "hermes/short-call # upstream #3: input sent as arguments\n",
    )
    .expect("known.txt");
    let known = known.to_str().expect("UTF-8 path");
    let (output, summary, _) = action(
        "known",
        &[
            BUGGY,
            ("DIALECTS", " hermes,\n"),
            ("EXPECT_FAIL", known),
            // A YAML block: one argument per line.
            ("ARGS", "--case hermes/short-call\n--splits\nwhole\n"),
        ],
    );
    assert!(output.status.success(), "{}", stdout(&output));
    assert!(
        summary.contains("(upstream #3: input sent as arguments)"),
        "{summary}"
    );
    // Every line of ARGS counted: one case, whole stream only (and the template's
    // non-streaming result, which it declares: specs/protocol.md P2.11).
    assert!(summary.contains("| hermes | 0 | 0 | 1 |"), "{summary}");
    assert!(
        stdout(&output).contains("2 replays in"),
        "{}",
        stdout(&output)
    );
}

#[test]
fn a_missing_candidate_or_a_bad_argument_is_exit_2_and_said_in_the_summary() {
    let (output, summary, _) = action("no-candidate", &[("DIALECTS", "hermes")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("'candidate' is required"),
        "{output:?}"
    );
    // A summary left by an earlier run in the same folder is not this run's.
    let stale = std::env::temp_dir().join(format!(
        "tch-action-{}-bad-dialect/report",
        std::process::id()
    ));
    let (output, summary_2, _) =
        action_after("bad-dialect", &[BUGGY, ("DIALECTS", "Hermes")], |report| {
            std::fs::create_dir_all(report).expect("report dir");
            std::fs::write(report.join("summary.md"), "## tch: an old run\n").expect("stale");
        });
    assert!(
        !stale.join("summary.md").exists(),
        "the stale summary is removed"
    );
    assert!(!summary_2.contains("an old run"), "{summary_2}");
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert!(summary.is_empty(), "{summary}");
    assert!(
        summary_2.contains("could not start (exit 2)"),
        "{summary_2}"
    );
}
