//! Time per byte against stream size: prose from 1 KiB to 64 MiB, fed whole, through `hermes`
//! (a kit dialect) and `md-fence` (its own line machine), next to `memchr` finding every `<`
//! in the same bytes, and `hermes` fed 64 KiB chunks. Flat throughput across sizes is linear
//! time; a drop at the small end is a fixed cost per stream (a parser, its first allocations),
//! at the large end the stream and its copy leaving the caches, and (fed whole) the one text
//! event as large as the stream, whose fresh pages the allocator maps for every run.
//!
//! Run: `cargo bench -p toolcall-harness --bench sweep` (about two minutes).

mod streams;

use std::hint::black_box;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use toolcall_harness::dialect::Dialect;

use streams::{check, chunks, drain, prose_only};

const KIB: usize = 1024;

fn sweep(c: &mut Criterion) {
    let tools = streams::tools();
    let mut group = c.benchmark_group("sweep");
    group.sampling_mode(SamplingMode::Flat);
    let largest = prose_only(64 * KIB * KIB);
    for size in [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536] {
        // A prefix of the largest stream, cut at a char boundary.
        let mut end = (size * KIB).min(largest.text.len());
        while !largest.text.is_char_boundary(end) {
            end -= 1;
        }
        let text = &largest.text[..end];
        let label = if size >= 1024 {
            format!("{}MiB", size / 1024)
        } else {
            format!("{size}KiB")
        };
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("memchr-lt", &label), text, |b, text| {
            b.iter(|| memchr::memchr_iter(b'<', text.as_bytes()).count())
        });
        for dialect in [Dialect::Hermes, Dialect::MdFence] {
            if size == 1024 {
                let stream = streams::Stream {
                    name: "prose",
                    text: text.to_owned(),
                    calls: Vec::new(),
                };
                check(dialect, &tools, &stream, true);
            }
            group.bench_with_input(BenchmarkId::new(dialect.name(), &label), text, |b, text| {
                b.iter(|| drain(dialect, &tools, black_box(&[text])))
            });
        }
        // The same bytes in 64 KiB chunks (a pipe's or socket's read): each text event is at
        // most a chunk, so the cost of allocating one text as large as the stream drops out.
        let reads = chunks(text, 64 * KIB);
        let name = "hermes-chunk-64KiB";
        group.bench_with_input(BenchmarkId::new(name, &label), &reads, |b, reads| {
            b.iter(|| drain(Dialect::Hermes, &tools, black_box(reads)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = streams::criterion();
    targets = sweep
}
criterion_main!(benches);
