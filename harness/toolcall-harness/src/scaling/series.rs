//! One series (`specs/runner.md` R8.2–R8.4): a family's stream fed in fixed-size chunks at
//! sizes that double while the time allows, each size timed, then judged from the largest
//! sizes that were long enough to time. Time here is the clock judged: CPU time where the
//! feed knows it, else wall time ([`Point::time`]).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{Family, Feed, Timing};
use crate::dialect::Dialect;
use crate::split::fixed_size_chunks;
use crate::supervisor::ReplayError;

/// How a series grows, and when it stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScalingOptions {
    /// The bytes of every chunk (fewer only to keep a char whole, and the last one).
    pub chunk_bytes: usize,
    /// The first size.
    pub start_bytes: usize,
    /// No size past this one.
    pub max_bytes: usize,
    /// Sizes stop doubling once one replay takes this long, unless the last doubling looks
    /// superlinear: then they go on to [`ScalingOptions::suspect_slow`] and twice
    /// `max_bytes`, so that a superlinear growth shows clearly before it is judged.
    pub slow: Duration,
    /// The longest replay of a series that looks superlinear.
    pub suspect_slow: Duration,
    /// Sizes stop doubling once the series has taken this long, on the clock judged; or
    /// [`WALL_CAP`] times as long on the wall clock, whichever comes first.
    pub budget: Duration,
}

impl Default for ScalingOptions {
    fn default() -> Self {
        ScalingOptions {
            chunk_bytes: 64,
            start_bytes: 4 << 10,
            max_bytes: 256 << 10,
            slow: Duration::from_millis(250),
            suspect_slow: Duration::from_secs(1),
            budget: Duration::from_secs(4),
        }
    }
}

/// A replay shorter than this is not timed well enough to judge from (R8.3).
pub const MIN_TIMED: Duration = Duration::from_millis(10);

/// The growth exponent from which time is `superlinear` (R8.3): doubling the stream more than
/// 2^1.5 ≈ 2.8 times the time. A linear parser behind a pipe stays near 1.
pub const THRESHOLD: f64 = 1.5;

/// How many of the largest timed sizes the exponent is judged over: two doublings, so that
/// one slow replay cannot make it alone (R8.3).
pub const JUDGED: usize = 3;

/// A last doubling with at least this exponent makes the sizes go on (R8.2).
pub const SUSPECT: f64 = 1.15;

/// Rounds in which the sizes judged are fed again, in turn, when their first timings say
/// superlinear (R8.3).
const CONFIRMATIONS: usize = 2;

/// A series also stops once it has taken this many times its budget on the wall clock: a
/// bound on what a loaded machine (or a candidate that waits rather than works) costs.
pub const WALL_CAP: u32 = 8;

/// One size, timed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    /// The stream's length in bytes.
    pub bytes: usize,
    /// The wall time of the replay kept for this size (the one of least [`Point::time`]).
    pub seconds: f64,
    /// Its CPU time (the candidate's processes, or the thread of a reference in process);
    /// absent where `/proc` does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<f64>,
}

impl Point {
    fn of(bytes: usize, timing: Timing) -> Point {
        Point {
            bytes,
            seconds: timing.wall.as_secs_f64(),
            cpu_seconds: timing.cpu.map(|cpu| cpu.as_secs_f64()),
        }
    }

    /// The time judged: CPU time where known, else wall time (R8.3).
    pub fn time(&self) -> f64 {
        self.cpu_seconds.unwrap_or(self.seconds)
    }

    /// Microseconds per KiB of stream, of the time judged.
    pub fn micros_per_kib(&self) -> f64 {
        self.time() * 1e6 / (self.bytes as f64 / 1024.0)
    }

    fn timed(&self) -> bool {
        self.time() >= MIN_TIMED.as_secs_f64()
    }
}

/// A family's series in one dialect: what was measured and what it shows.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Series {
    /// The dialect's name.
    pub dialect: String,
    /// The family's name.
    pub family: String,
    /// The chunk size fed.
    pub chunk_bytes: usize,
    /// Every size fed, smallest first.
    pub points: Vec<Point>,
    /// How time grows over the last two doublings of timed sizes: `time ∝ bytes^exponent`;
    /// absent when fewer than three sizes were long enough to time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exponent: Option<f64>,
}

impl Series {
    /// How many sizes were long enough to time.
    fn timed_sizes(&self) -> usize {
        self.timed_points().len()
    }

    /// The indices of the sizes long enough to time, smallest first.
    fn timed_points(&self) -> Vec<usize> {
        (0..self.points.len())
            .filter(|&i| self.points[i].timed())
            .collect()
    }

    /// Whether the series was judged: three sizes were long enough to time.
    pub fn judged(&self) -> bool {
        self.exponent.is_some()
    }

    /// Whether time grows clearly faster than the stream.
    pub fn superlinear(&self) -> bool {
        self.exponent.is_some_and(|e| e >= THRESHOLD)
    }

    /// Whether it was judged linear with an exponent of [`SUSPECT`] or more: close enough
    /// to [`THRESHOLD`] that wall time on a loaded machine can judge the same parser
    /// `superlinear` on another run (R8.3).
    pub fn near_threshold(&self) -> bool {
        self.exponent
            .is_some_and(|e| (SUSPECT..THRESHOLD).contains(&e))
    }

    /// The indices of the [`JUDGED`] largest timed points, smallest first; none when fewer
    /// were timed.
    fn judged_points(&self) -> Option<Vec<usize>> {
        let timed = self.timed_points();
        (timed.len() >= JUDGED).then(|| timed[timed.len() - JUDGED..].to_vec())
    }

    /// The growth exponent from point `a` to point `b`.
    fn growth(&self, a: usize, b: usize) -> f64 {
        let (a, b) = (self.points[a], self.points[b]);
        (b.time() / a.time()).ln() / (b.bytes as f64 / a.bytes as f64).ln()
    }

    /// The growth over the last doubling of timed sizes, while sizes still grow.
    fn last_doubling(&self) -> Option<f64> {
        let timed = self.timed_points();
        match timed[..] {
            [.., a, b] => Some(self.growth(a, b)),
            _ => None,
        }
    }

    fn judge(&mut self) {
        self.exponent = self
            .judged_points()
            .map(|points| self.growth(points[0], points[points.len() - 1]));
    }

    /// One line: the exponent and the sizes it was judged from, or why it was not judged.
    pub fn summary(&self) -> String {
        match (self.exponent, self.judged_points()) {
            (Some(exponent), Some(points)) => {
                let (a, b) = (
                    self.points[points[0]],
                    self.points[points[points.len() - 1]],
                );
                format!(
                    "time ∝ size^{exponent:.2} from {} ({:.1} ms) to {} ({:.1} ms{}) in {}-byte chunks: {}",
                    human_bytes(a.bytes),
                    a.time() * 1e3,
                    human_bytes(b.bytes),
                    b.time() * 1e3,
                    if b.cpu_seconds.is_some() {
                        " of CPU"
                    } else {
                        " wall"
                    },
                    self.chunk_bytes,
                    if self.superlinear() {
                        "superlinear"
                    } else {
                        "linear"
                    }
                )
            }
            _ => format!(
                "not judged: fewer than {JUDGED} sizes up to {} took {} ms or more",
                self.points
                    .last()
                    .map_or_else(String::new, |p| human_bytes(p.bytes)),
                MIN_TIMED.as_millis()
            ),
        }
    }

    /// Every size fed, one line each: size, milliseconds judged (CPU where known),
    /// microseconds per KiB, and the wall time beside CPU time.
    pub fn table(&self) -> String {
        let mut out = String::new();
        for point in &self.points {
            let wall = match point.cpu_seconds {
                Some(_) => format!(" (wall {:.1} ms)", point.seconds * 1e3),
                None => " wall".to_owned(),
            };
            out.push_str(&format!(
                "{:>9} {:>10.1} ms {:>9.1} µs/KiB{wall}\n",
                human_bytes(point.bytes),
                point.time() * 1e3,
                point.micros_per_kib()
            ));
        }
        out
    }
}

/// `bytes` as `4 KiB`, `1 MiB` or `100 B`.
pub fn human_bytes(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// Feeds `family` in `dialect` at doubling sizes and judges the growth (R8.2, R8.3).
pub fn measure(
    feed: &mut dyn Feed,
    dialect: Dialect,
    family: Family,
    options: &ScalingOptions,
) -> Result<Series, ReplayError> {
    let started = Instant::now();
    let mut series = Series {
        dialect: dialect.name().to_owned(),
        family: family.name().to_owned(),
        chunk_bytes: options.chunk_bytes,
        points: Vec::new(),
        exponent: None,
    };
    // What the series has taken on the clock judged: the sizes fed depend on the parser's
    // own work, not on how loaded the machine is.
    let mut spent = 0.0;
    let mut bytes = options.start_bytes.max(1);
    // Whether the judged sizes have their fastest of rounds already (R8.3).
    let mut retimed = false;
    loop {
        let point = time(feed, dialect, family, bytes, options)?;
        spent += point.time();
        series.points.push(point);
        let grown = bytes.saturating_mul(2);
        let stops = |series: &Series, suspect: bool| {
            let (slow, max_bytes, budget) = if suspect {
                (
                    options.suspect_slow,
                    // Not further: the one call of a 512 KiB stream is an event line of about
                    // as much, and a line over 1 MiB is a flood (specs/protocol.md), which a
                    // right parser must not be failed for.
                    options.max_bytes.saturating_mul(2),
                    options.budget.saturating_mul(2),
                )
            } else if series.timed_sizes() < JUDGED {
                // Too few sizes long enough to time: on to where a suspect goes, so that a
                // fast parser is judged on most runs rather than on some (R8.2).
                (
                    options.slow,
                    options.max_bytes.saturating_mul(2),
                    options.budget,
                )
            } else {
                (options.slow, options.max_bytes, options.budget)
            };
            // Enough sizes to judge, unless one is already past what a suspect may take.
            let slow = if series.points.len() < JUDGED {
                options.suspect_slow
            } else {
                slow
            };
            point.time() >= slow.as_secs_f64()
                || spent >= budget.as_secs_f64()
                || started.elapsed() >= budget.saturating_mul(WALL_CAP)
                || grown > max_bytes
        };
        let suspect = series.last_doubling().is_some_and(|e| e >= SUSPECT);
        if stops(&series, suspect) {
            // A series that would stop without looking superlinear is decided on the
            // judged sizes' fastest of rounds too: a stretch of noise on one size timed
            // earlier (a slower middle size) must not hide a growth that the next doubling
            // would show, which turned `superlinear` into `passed` from one run to the next.
            if suspect || retimed || !retime_judged(&mut series, feed, dialect, family, options)? {
                break;
            }
            retimed = true;
            let suspect = series.last_doubling().is_some_and(|e| e >= SUSPECT);
            if stops(&series, suspect) {
                break;
            }
        }
        bytes = grown;
    }
    series.judge();
    // First timings that say superlinear are confirmed: the sizes judged are timed again, in
    // turn, and each gets its fastest time of these rounds alone, so that pauses of the
    // machine cannot make the verdict, nor a stretch of it slower than before (the smaller
    // sizes, timed before it, would keep their faster times and the growth would look steep).
    if series.superlinear() && retime_judged(&mut series, feed, dialect, family, options)? {
        series.judge();
    }
    Ok(series)
}

/// Times the judged sizes of `series` again, [`CONFIRMATIONS`] rounds in turn, and gives
/// each its fastest time of these rounds alone (R8.3); false when fewer than [`JUDGED`]
/// sizes were timed, which leaves it as it is.
fn retime_judged(
    series: &mut Series,
    feed: &mut dyn Feed,
    dialect: Dialect,
    family: Family,
    options: &ScalingOptions,
) -> Result<bool, ReplayError> {
    let Some(points) = series.judged_points() else {
        return Ok(false);
    };
    let mut fastest: Vec<Option<Point>> = vec![None; points.len()];
    for _ in 0..CONFIRMATIONS {
        for (best, &index) in fastest.iter_mut().zip(&points) {
            let again = time(feed, dialect, family, series.points[index].bytes, options)?;
            if best.is_none_or(|best| again.time() < best.time()) {
                *best = Some(again);
            }
        }
    }
    for (best, &index) in fastest.into_iter().zip(&points) {
        if let Some(best) = best {
            series.points[index] = best;
        }
    }
    Ok(true)
}

/// One replay of `family` at `bytes`, timed.
fn time(
    feed: &mut dyn Feed,
    dialect: Dialect,
    family: Family,
    bytes: usize,
    options: &ScalingOptions,
) -> Result<Point, ReplayError> {
    let stream = family.stream(dialect, bytes);
    let chunks = fixed_size_chunks(&stream, options.chunk_bytes.max(1)).unwrap_or_default();
    Ok(Point::of(bytes, feed.feed(dialect, &chunks)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A feed whose time is a function of the stream's length, with no clock involved.
    struct Modelled(fn(f64) -> f64);

    impl Feed for Modelled {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            Ok(Timing::wall(Duration::from_secs_f64((self.0)(
                bytes as f64,
            ))))
        }
    }

    fn series(model: fn(f64) -> f64) -> Series {
        let options = ScalingOptions {
            budget: Duration::from_secs(3600),
            ..ScalingOptions::default()
        };
        measure(
            &mut Modelled(model),
            Dialect::Hermes,
            Family::OneCall,
            &options,
        )
        .expect("a modelled feed never faults")
    }

    #[test]
    fn linear_time_with_a_fixed_cost_per_chunk_is_not_superlinear() {
        // 50 µs per 64-byte chunk: 256 KiB takes 0.2 s, and no size passes 256 KiB.
        let linear = series(|bytes| bytes / 64.0 * 50e-6);
        assert!(!linear.superlinear(), "{}", linear.table());
        let exponent = linear.exponent.expect("judged");
        assert!((exponent - 1.0).abs() < 0.05, "{exponent}");
        assert_eq!(linear.points.last().map(|p| p.bytes), Some(256 << 10));
    }

    #[test]
    fn quadratic_time_is_superlinear_even_behind_a_per_chunk_cost() {
        // The per-chunk cost of a pipe, plus a re-scan of the whole buffer per chunk.
        let quadratic = series(|bytes| bytes / 64.0 * (50e-6 + bytes * 2e-9));
        assert!(quadratic.superlinear(), "{}", quadratic.table());
        // Sizes went on past the first slow replay, until the growth shows clearly.
        assert!(
            quadratic.exponent.is_some_and(|e| e > 1.7),
            "{}",
            quadratic.table()
        );
        assert!(quadratic.points.last().is_some_and(|p| p.seconds >= 1.0));
    }

    #[test]
    fn a_suspect_series_stops_at_twice_the_largest_size() {
        // Linear but slow to answer past 64 KiB, as on a loaded machine: every doubling from
        // there looks superlinear, and sizes go on, but never to a stream whose one call
        // would not fit in a protocol line.
        let loaded = series(|bytes| {
            let base = bytes / 64.0 * 5e-6;
            if bytes > 65_536.0 {
                base * (bytes / 65_536.0).powf(0.3)
            } else {
                base
            }
        });
        assert_eq!(loaded.points.last().map(|p| p.bytes), Some(512 << 10));
    }

    #[test]
    fn sizes_too_fast_to_time_are_not_judged() {
        let fast = series(|bytes| bytes * 1e-9);
        assert_eq!(fast.exponent, None);
        assert!(!fast.superlinear() && !fast.judged());
        // On to 512 KiB looking for three timed sizes, not further (R8.2).
        assert_eq!(fast.points.last().map(|p| p.bytes), Some(512 << 10));
        assert!(fast.summary().contains("not judged"));
    }

    #[test]
    fn a_fast_parser_is_judged_whichever_side_of_10_ms_its_64_kib_falls() {
        // tool-parser's fastest series took 7 to 10 ms at 64 KiB: passed on one run, not
        // judged on the next. Both sides are now judged, and pass.
        for ms_at_64_kib in [8.5, 10.5] {
            let per_byte = ms_at_64_kib * 1e-3 / 65_536.0;
            let options = ScalingOptions {
                budget: Duration::from_secs(3600),
                ..ScalingOptions::default()
            };
            let mut feed = Scaled(per_byte);
            let fast = measure(&mut feed, Dialect::Hermes, Family::Prose, &options)
                .expect("a modelled feed never faults");
            assert!(fast.judged() && !fast.superlinear(), "{}", fast.table());
        }
    }

    /// Linear time at `.0` seconds per byte.
    struct Scaled(f64);

    impl Feed for Scaled {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            Ok(Timing::wall(Duration::from_secs_f64(bytes as f64 * self.0)))
        }
    }

    #[test]
    fn only_sizes_long_enough_to_time_are_judged() {
        // Quadratic-looking below 10 ms (start-up noise), linear above it.
        let series = series(|bytes| {
            if bytes < 40_000.0 {
                (bytes / 40_000.0).powi(2) * 9e-3
            } else {
                bytes * 2.5e-7
            }
        });
        assert!(!series.superlinear(), "{}", series.table());
    }

    /// Linear, except that the first replay at `spike_at` bytes is three times slower, as
    /// when the machine pauses.
    struct Spiky {
        spike_at: usize,
        spiked: bool,
    }

    impl Feed for Spiky {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            let mut seconds = bytes as f64 / 64.0 * 50e-6;
            if bytes >= self.spike_at && !self.spiked {
                self.spiked = true;
                seconds *= 3.0;
            }
            Ok(Timing::wall(Duration::from_secs_f64(seconds)))
        }
    }

    #[test]
    fn one_pause_of_the_machine_is_not_a_verdict() {
        let mut feed = Spiky {
            spike_at: 64 << 10,
            spiked: false,
        };
        let options = ScalingOptions::default();
        let series =
            measure(&mut feed, Dialect::Hermes, Family::Prose, &options).expect("modelled");
        assert!(feed.spiked);
        assert!(!series.superlinear(), "{}", series.table());
    }

    /// A parser whose re-parsing overtakes its per-chunk cost only past 100 KiB, timed once
    /// with one size stretched (`stretch_at`, its first replay: noise of the machine).
    struct LateQuadratic {
        stretch_at: usize,
        stretched: bool,
    }

    impl Feed for LateQuadratic {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            let n = bytes as f64;
            let mut seconds = n / 64.0 * 30e-6 + n * n * 3e-12;
            if bytes == self.stretch_at && !self.stretched {
                self.stretched = true;
                seconds *= 2.5;
            }
            Ok(Timing::wall(Duration::from_secs_f64(seconds)))
        }
    }

    #[test]
    fn noise_on_a_middle_size_does_not_hide_a_late_growth() {
        // tool-parser's kimi-k3/scaling/prose: 128 KiB timed 2.5 times too slow made the
        // last doubling look linear, the series stopped at 256 KiB and passed; timed
        // quietly it goes on to 512 KiB and is superlinear. Both runs must say the same.
        let options = ScalingOptions::default();
        let mut quiet = LateQuadratic {
            stretch_at: 0,
            stretched: false,
        };
        let quiet =
            measure(&mut quiet, Dialect::Hermes, Family::Prose, &options).expect("modelled");
        assert!(quiet.superlinear(), "{}", quiet.table());
        let mut noisy = LateQuadratic {
            stretch_at: 128 << 10,
            stretched: false,
        };
        let series =
            measure(&mut noisy, Dialect::Hermes, Family::Prose, &options).expect("modelled");
        assert!(noisy.stretched);
        assert!(series.superlinear(), "{}", series.table());
    }

    /// Linear work on a machine that gets busier with every replay, as when other jobs start
    /// while a series runs: the wall clock stretches more for each larger (later) size, the
    /// CPU time of the parser does not.
    struct Loading {
        replays: u32,
    }

    impl Feed for Loading {
        fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
            let bytes: usize = chunks.iter().map(|c| c.len()).sum();
            let cpu = Duration::from_secs_f64(bytes as f64 / 64.0 * 50e-6);
            self.replays += 1;
            // Each replay waits 60% longer for a core than the one before.
            let wall = cpu.mul_f64(1.6f64.powi(self.replays as i32));
            Ok(Timing {
                wall,
                cpu: Some(cpu),
            })
        }
    }

    #[test]
    fn a_machine_that_gets_busier_does_not_make_a_linear_parser_superlinear() {
        let mut feed = Loading { replays: 0 };
        let series = measure(
            &mut feed,
            Dialect::Hermes,
            Family::OneCall,
            &ScalingOptions::default(),
        )
        .expect("modelled");
        assert!(!series.superlinear(), "{}", series.table());
        assert!(series.exponent.is_some_and(|e| (e - 1.0).abs() < 0.05));
        // Judged on the parser's CPU time, the wall times are kept beside it.
        let last = series.points.last().expect("points");
        assert!(last.seconds > 2.0 * last.time(), "{}", series.table());
        assert!(series.table().contains("wall"), "{}", series.table());
    }

    #[test]
    fn the_sizes_fed_do_not_depend_on_the_load() {
        // The same parser on a quiet machine and on one where every replay waits ten times
        // its work for a core: the same sizes, the same exponent.
        struct Waits(f64);
        impl Feed for Waits {
            fn feed(&mut self, _: Dialect, chunks: &[&str]) -> Result<Timing, ReplayError> {
                let bytes: usize = chunks.iter().map(|c| c.len()).sum();
                let cpu = Duration::from_secs_f64(bytes as f64 / 64.0 * 50e-6);
                Ok(Timing {
                    wall: cpu.mul_f64(self.0),
                    cpu: Some(cpu),
                })
            }
        }
        let options = ScalingOptions::default();
        let quiet = measure(&mut Waits(1.0), Dialect::Hermes, Family::Prose, &options);
        let loaded = measure(&mut Waits(10.0), Dialect::Hermes, Family::Prose, &options);
        let (quiet, loaded) = (quiet.expect("modelled"), loaded.expect("modelled"));
        let sizes = |s: &Series| s.points.iter().map(|p| p.bytes).collect::<Vec<_>>();
        assert_eq!(sizes(&quiet), sizes(&loaded));
        assert_eq!(quiet.exponent, loaded.exponent);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(human_bytes(4096), "4 KiB");
        assert_eq!(human_bytes(1 << 20), "1 MiB");
        assert_eq!(human_bytes(100), "100 B");
    }
}
