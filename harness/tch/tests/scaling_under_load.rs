//! `superlinear` on a loaded machine (`specs/runner.md` R8.3): while threads spin on every
//! core for the whole test, a linear candidate is not judged superlinear and a parser that
//! re-scans its buffer per chunk still is, by `tch run` and `tch scale` alike. One test, alone
//! in its binary (cargo runs test binaries one after the other), since it loads the machine
//! on purpose. No assertion reads a clock: the verdicts come from CPU time, and the series'
//! sizes and budget too, so a slow machine takes longer but judges the same.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use common::{stdout, tch, timings_series};

/// Threads that keep every core busy until dropped.
struct Load {
    stop: Arc<AtomicBool>,
    spinners: Vec<JoinHandle<()>>,
}

impl Load {
    /// One spinning thread per core, and never fewer than two: both cores of a CI machine.
    fn every_core() -> Load {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get().max(2));
        let stop = Arc::new(AtomicBool::new(false));
        let spinners = (0..cores)
            .map(|_| {
                let stop = Arc::clone(&stop);
                std::thread::spawn(move || {
                    let mut x = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        x = std::hint::black_box(
                            x.wrapping_mul(6364136223846793005).wrapping_add(1),
                        );
                    }
                })
            })
            .collect();
        Load { stop, spinners }
    }
}

impl Drop for Load {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for spinner in self.spinners.drain(..) {
            let _ = spinner.join();
        }
    }
}

fn report(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("report.json")).expect("report.json written");
    serde_json::from_str(&text).expect("report.json is JSON")
}

/// The scaling cases of the report in `dir`, as (case id, status, exponent).
fn scaling_cases(dir: &std::path::Path) -> Vec<(String, String, Option<f64>)> {
    let series = timings_series(dir);
    report(dir)["cases"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["scaling"].is_object())
        .map(|c| {
            let id = c["case"].as_str().unwrap_or_default().to_owned();
            let exponent = series
                .iter()
                .find(|(case, _)| *case == id)
                .and_then(|(_, s)| s["exponent"].as_f64());
            (
                id,
                c["status"].as_str().unwrap_or_default().to_owned(),
                exponent,
            )
        })
        .collect()
}

#[test]
fn a_loaded_machine_neither_makes_nor_hides_superlinear() {
    let dir = std::env::temp_dir().join(format!("tch-test-load-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = |name: &str| dir.join(name).display().to_string();
    let load = Load::every_core();

    // Linear: the Python template, whose per-chunk work is constant, and the reference behind
    // `tch serve`. Every case passes (or, were the machine too slow to time three sizes, is
    // skipped as not judged: never superlinear).
    for (name, candidate) in [
        (
            "template",
            &["--", "python3", "adapters/python/adapter.py"][..],
        ),
        ("reference", &[][..]),
    ] {
        let report_dir = dir_text(name);
        let mut args = vec![
            "run",
            "--case",
            "hermes/scaling/*",
            "--report-dir",
            &report_dir,
        ];
        args.extend(candidate);
        let output = tch(&args);
        let cases = scaling_cases(&dir.join(name));
        assert_eq!(cases.len(), 3, "{name}: {}", stdout(&output));
        for (case, status, exponent) in &cases {
            assert_ne!(
                status,
                "failed",
                "{name} {case}: {exponent:?}\n{}",
                stdout(&output)
            );
        }
        assert!(output.status.success(), "{name}: {}", stdout(&output));
        // Judged on CPU time where /proc shows it.
        if cfg!(target_os = "linux") {
            let series = timings_series(&dir.join(name));
            let points = &series.first().expect("a scaling case").1["points"];
            assert!(points[0]["cpuSeconds"].as_f64().is_some(), "{points}");
        }
    }

    // Quadratic: a parser that re-scans its whole buffer on every chunk.
    let quadratic = ["python3", "adapters/examples/rescans_buffer.py"];
    let report_dir = dir_text("rescans");
    let mut args = vec![
        "run",
        "--case",
        "hermes/scaling/one-call",
        "--report-dir",
        &report_dir,
        "--",
    ];
    args.extend(quadratic);
    let output = tch(&args);
    let printed = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    assert!(
        printed.contains("FAIL hermes/scaling/one-call medium [superlinear] (streaming)"),
        "{printed}"
    );

    // `tch scale` gives the same verdicts as `tch run`, under the same load.
    let mut args = vec!["scale", "--dialect", "hermes", "--family", "one-call", "--"];
    args.extend(quadratic);
    let output = tch(&args);
    let printed = stdout(&output);
    assert_eq!(output.status.code(), Some(1), "{printed}");
    assert!(
        printed.contains("  hermes/scaling/one-call: failed (superlinear)"),
        "{printed}"
    );
    let output = tch(&[
        "scale",
        "--dialect",
        "hermes",
        "--family",
        "prose",
        "--",
        "python3",
        "adapters/python/adapter.py",
    ]);
    let printed = stdout(&output);
    assert!(output.status.success(), "{printed}");
    assert!(
        printed.contains("  hermes/scaling/prose: passed"),
        "{printed}"
    );

    drop(load);
    let _ = std::fs::remove_dir_all(&dir);
}
