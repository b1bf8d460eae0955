//! `report.json`: the whole run, every case with its findings, raw events, tallies and time
//! (schema 4, `specs/runner.md` §6, R6.5).

use std::io;

use super::RunReport;

/// The schema version `report.json` is written in.
pub const SCHEMA: u32 = 5;

/// The report as pretty JSON, ending in a newline.
pub fn render(report: &RunReport) -> io::Result<String> {
    serde_json::to_string_pretty(report)
        .map(|json| json + "\n")
        .map_err(io::Error::other)
}
