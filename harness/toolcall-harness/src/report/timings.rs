//! `timings.json`: what a run measured of time, apart from what it judged (`specs/runner.md`
//! R6.6). `report.json` must not change from one run of the same parsers to the next, and
//! every time figure does: the run's wall time and replays per second, each case's wall time,
//! and each scaling case's series (the sizes fed, their CPU and wall times, the exponent).
//! `reports/regenerate` leaves this file out of git.

use std::io;

use serde::{Deserialize, Serialize};

use super::RunReport;
use crate::scaling::Series;

/// The file's name, beside `report.json`.
pub const FILE: &str = "timings.json";

/// The schema version `timings.json` is written in.
pub const SCHEMA: u32 = 1;

/// A run's time figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timings {
    /// [`SCHEMA`].
    pub schema: u32,
    /// Wall time of the run.
    pub seconds: f64,
    /// Replays per second.
    pub replays_per_second: f64,
    /// Each case, in report order.
    pub cases: Vec<CaseTiming>,
}

/// One case's time figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseTiming {
    /// The case id.
    pub case: String,
    /// Wall time spent on it.
    pub seconds: f64,
    /// For a scaling case, its whole series (`specs/runner.md` R8.4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scaling: Option<Series>,
}

impl Timings {
    /// The figures of `report`.
    pub fn of(report: &RunReport) -> Timings {
        Timings {
            schema: SCHEMA,
            seconds: report.summary.seconds,
            replays_per_second: report.summary.replays_per_second,
            cases: report
                .cases
                .iter()
                .map(|case| CaseTiming {
                    case: case.case.clone(),
                    seconds: case.seconds,
                    scaling: case.scaling.clone(),
                })
                .collect(),
        }
    }

    /// As JSON in `report.json`'s layout, ending in a newline.
    pub fn render(&self) -> io::Result<String> {
        let value = serde_json::to_value(self).map_err(io::Error::other)?;
        Ok(super::json::layout(&value))
    }
}
