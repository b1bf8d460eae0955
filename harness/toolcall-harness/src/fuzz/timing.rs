//! Replay time by stream size (`specs/fuzzing.md` Z4.9): a candidate whose time per replay
//! grows faster than its streams (one that re-reads everything it has seen on every chunk)
//! shows as a time per KiB that grows from bucket to bucket.

use std::time::Duration;

/// Where the size buckets start, in bytes of the stream (UTF-8): powers of 4 from 64. Bucket
/// `i` holds streams from `BOUNDS[i - 1]` (0 for the first) up to `BOUNDS[i]`, excluded; the
/// last holds every stream of 4 KiB or more.
pub const BOUNDS: [usize; 4] = [64, 256, 1024, 4096];

/// The buckets' names, as the summary prints them.
pub const LABELS: [&str; BOUNDS.len() + 1] =
    ["< 64 B", "64–255 B", "256–1023 B", "1–4 KiB", "≥ 4 KiB"];

/// The bucket of a stream of `bytes` bytes.
pub fn bucket(bytes: usize) -> usize {
    BOUNDS
        .iter()
        .position(|&bound| bytes < bound)
        .unwrap_or(BOUNDS.len())
}

/// The timed replays of one bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SizeBucket {
    /// Replays timed.
    pub replays: usize,
    /// Their streams' bytes, summed.
    pub bytes: u64,
    /// Their wall time, summed: from `begin` to `done`.
    pub time: Duration,
}

impl SizeBucket {
    /// Mean time per replay; `None` without replays.
    pub fn mean(&self) -> Option<Duration> {
        (self.replays > 0).then(|| self.time.div_f64(self.replays as f64))
    }

    /// Time per KiB of stream: the bucket's time over its KiB; `None` without bytes.
    pub fn per_kib(&self) -> Option<Duration> {
        (self.bytes > 0).then(|| self.time.mul_f64(1024.0 / self.bytes as f64))
    }
}

/// Replay time by stream size: one [`SizeBucket`] per bucket of [`BOUNDS`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SizeTimes {
    /// In the order of [`LABELS`].
    pub buckets: [SizeBucket; BOUNDS.len() + 1],
}

impl SizeTimes {
    /// Counts one replay of a stream of `bytes` bytes that took `time`.
    pub fn record(&mut self, bytes: usize, time: Duration) {
        let bucket = &mut self.buckets[bucket(bytes)];
        bucket.replays += 1;
        bucket.bytes += bytes as u64;
        bucket.time += time;
    }

    /// Each bucket with its label and bounds (`min..max` bytes, `max` `None` for the last).
    pub fn rows(&self) -> impl Iterator<Item = (&'static str, usize, Option<usize>, &SizeBucket)> {
        self.buckets.iter().enumerate().map(|(i, b)| {
            let min = if i == 0 { 0 } else { BOUNDS[i - 1] };
            (LABELS[i], min, BOUNDS.get(i).copied(), b)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_powers_of_four_from_64() {
        let cases = [
            (0, 0),
            (63, 0),
            (64, 1),
            (255, 1),
            (256, 2),
            (1023, 2),
            (1024, 3),
            (4095, 3),
            (4096, 4),
            (1 << 20, 4),
        ];
        for (bytes, expected) in cases {
            assert_eq!(bucket(bytes), expected, "{bytes} bytes");
        }
        let times = SizeTimes::default();
        let bounds: Vec<_> = times.rows().map(|(_, min, max, _)| (min, max)).collect();
        assert_eq!(
            bounds,
            [
                (0, Some(64)),
                (64, Some(256)),
                (256, Some(1024)),
                (1024, Some(4096)),
                (4096, None)
            ]
        );
    }

    #[test]
    fn means_and_time_per_kib() {
        let mut times = SizeTimes::default();
        times.record(100, Duration::from_millis(1));
        times.record(156, Duration::from_millis(3));
        times.record(8192, Duration::from_millis(80));
        let [small, middle, _, _, large] = times.buckets;
        assert_eq!(small, SizeBucket::default());
        assert_eq!((small.mean(), small.per_kib()), (None, None));
        assert_eq!(middle.replays, 2);
        assert_eq!(middle.bytes, 256);
        assert_eq!(middle.mean(), Some(Duration::from_millis(2)));
        assert_eq!(middle.per_kib(), Some(Duration::from_millis(16)));
        assert_eq!(large.per_kib(), Some(Duration::from_millis(10)));
        // An empty stream is timed, but has no time per KiB.
        let mut empty = SizeTimes::default();
        empty.record(0, Duration::from_micros(5));
        assert_eq!(empty.buckets[0].mean(), Some(Duration::from_micros(5)));
        assert_eq!(empty.buckets[0].per_kib(), None);
    }
}
