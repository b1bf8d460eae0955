//! The reference parsers near the limit: every dialect on the same kinds of stream, next to
//! `memchr` scanning the same bytes (the practical limit of any scan over them).
//!
//! Streams (built by `streams`, each checked by the reference before it is measured: exactly
//! its calls, nothing lost, the same events in 1-byte chunks):
//! - `prose`: 1 MiB of prose, no call (the same bytes for every dialect);
//! - `mixed-1pct`: 1 MiB of prose with a call after every 99 times its length of prose, so
//!   calls are about 1% of the bytes;
//! - `dense-50pct`: 1 MiB of calls, each after as much prose as itself (what decoding a call
//!   costs: for `md-fence`, its YAML);
//! - `one-call-1MiB`: a line, one call whose string argument is about 1 MiB, a line.
//!
//! Each is fed whole, in 4-byte chunks and in 1-byte chunks (`whole`, `chunk-4`, `chunk-1`);
//! throughput is bytes of stream per second. The events of each push are taken before the
//! next, as a streaming consumer does (`streams::drain`). The baselines run over the `hermes` stream of
//! each kind (the streams of the other dialects differ only in their calls' syntax), fed the
//! same chunks: `memchr-lt` finds every `<`, `memchr3` every `<`, `\n` and `` ` ``.
//!
//! Goals (issue 14): prose whole >= 1 GB/s; mixed >= 200 MB/s for every dialect whose call body
//! is JSON; 4-byte chunks within 3x of whole. Time per byte against stream size is `sweep`.
//!
//! Run: `cargo bench -p toolcall-harness --bench limits` (about five minutes; add
//! `-- NAME` to run only the benchmarks whose id contains NAME, e.g. `-- mixed-1pct/hermes`).

mod streams;

use std::cell::Cell;
use std::hint::black_box;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use toolcall_harness::dialect::Dialect;

use streams::{CHUNKINGS, Stream, check, chunks, dense, drain, mixed, one_call, prose_only};

const MIB: usize = 1024 * 1024;

/// A baseline's scan of one chunk: how many bytes it finds.
type Scan = fn(&[u8]) -> usize;

/// The baselines, by name.
const BASELINES: &[(&str, Scan)] = &[
    ("memchr-lt", |bytes| {
        memchr::memchr_iter(b'<', bytes).count()
    }),
    ("memchr3", |bytes| {
        memchr::memchr3_iter(b'<', b'\n', b'`', bytes).count()
    }),
];

fn limits(c: &mut Criterion) {
    let tools = streams::tools();
    type Build = fn(Dialect) -> Stream;
    let kinds: [(&str, Build); 4] = [
        ("prose", |_| prose_only(MIB)),
        ("mixed-1pct", |d| mixed(d, MIB)),
        ("dense-50pct", |d| dense(d, MIB)),
        ("one-call-1MiB", |d| one_call(d, MIB)),
    ];
    for (kind, build) in kinds {
        let mut group = c.benchmark_group(kind);
        group.sampling_mode(SamplingMode::Flat);
        let baseline = build(Dialect::Hermes);
        group.throughput(Throughput::Bytes(baseline.text.len() as u64));
        for &(label, size) in CHUNKINGS {
            let chunks = chunks(&baseline.text, size);
            for &(name, count) in BASELINES {
                group.bench_with_input(BenchmarkId::new(name, label), &chunks, |b, chunks| {
                    b.iter(|| chunks.iter().map(|c| count(c.as_bytes())).sum::<usize>())
                });
            }
        }
        for &dialect in Dialect::ALL {
            let stream = build(dialect);
            // Checked before its first measurement, so that a filtered run checks only what
            // it measures.
            let checked = Cell::new(false);
            group.throughput(Throughput::Bytes(stream.text.len() as u64));
            for &(label, size) in CHUNKINGS {
                let chunks = chunks(&stream.text, size);
                group.bench_with_input(
                    BenchmarkId::new(dialect.name(), label),
                    &chunks,
                    |b, chunks| {
                        if !checked.replace(true) {
                            check(dialect, &tools, &stream, true);
                        }
                        b.iter(|| drain(dialect, &tools, black_box(chunks)))
                    },
                );
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = streams::criterion();
    targets = limits
}
criterion_main!(benches);
