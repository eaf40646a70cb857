//! What one apply costs when the caches are cold, as right after a model
//! evaluation in a generation loop (BENCHMARKS.md, "End to end").
//!
//! Reads a buffer larger than the last-level cache before each timed apply
//! and reports median ns per apply in three conditions: warm (nothing
//! evicted), cold (code and data evicted), and cold data only (a second
//! sampler's apply runs just before, so the code is back in the caches but
//! this sampler's buffers are not). The difference between the last two is
//! the cost of fetching apply's code.
//!
//! ```sh
//! cargo run --release -p cold-apply -- [MEDIUM] [EVICT_MIB] [REPS]
//! ```
//! Defaults: a sorted medium of 7 candidates (a short medium, as top-k 40,
//! top-p 0.95 and min-p 0.05 leave it: BENCHMARKS.md), 256 MiB (about the
//! size of Gemma 3 270M's weights), 301 repetitions. Build with
//! `RUSTFLAGS="-C target-cpu=native"` to match the library's native build.

use scatter_core::{Params, Scatter, TokenData};
use std::hint::black_box;
use std::time::Instant;

fn arg(n: usize, default: usize) -> usize {
    std::env::args()
        .nth(n)
        .map_or(default, |a| a.parse().expect("a positive integer"))
}

/// Out of line, as the C library calls it, so that the apply timed here is
/// compiled as it is there and not inlined into this loop.
#[inline(never)]
fn apply(sampler: &mut Scatter, work: &mut [TokenData]) {
    black_box(sampler.apply(work));
}

fn median(mut xs: Vec<u128>) -> u128 {
    xs.sort_unstable();
    xs[xs.len() / 2]
}

fn main() {
    let m = arg(1, 7).max(2);
    let evict_mib = arg(2, 256);
    let reps = arg(3, 301).max(1);
    let creative = Params::fixed(64, 0.18, 2.5, 1);
    let input: Vec<TokenData> = (0..m)
        .map(|i| TokenData {
            id: i as i32,
            logit: 10.0 - 2.0 * (i as f32).ln_1p(),
            p: 0.0,
        })
        .collect();
    let evict = vec![1u64; evict_mib << 17];
    let mut sink = 0u64;

    let mut run = |evict_first: bool, warm_code_first: bool| {
        let mut sampler = Scatter::new(&creative);
        let mut other = Scatter::new(&creative);
        let mut work = input.clone();
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps {
            if evict_first {
                sink = evict
                    .iter()
                    .step_by(8)
                    .fold(sink, |s, x| s.wrapping_add(*x));
            }
            if warm_code_first {
                work.copy_from_slice(&input);
                apply(&mut other, &mut work);
            }
            work.copy_from_slice(&input);
            let t = Instant::now();
            apply(&mut sampler, black_box(&mut work));
            samples.push(t.elapsed().as_nanos());
        }
        median(samples)
    };
    // A quarter of a second of applies first: the processor's clock ramps
    // up, and without this the first condition timed would look slower.
    let start = Instant::now();
    let mut spare = Scatter::new(&creative);
    let mut work = input.clone();
    while start.elapsed().as_millis() < 250 {
        work.copy_from_slice(&input);
        apply(&mut spare, &mut work);
    }
    let warm = run(false, false);
    let cold = run(true, false);
    let cold_data = run(true, true);
    black_box(sink);
    println!("scatter creative on {m} sorted candidates, {evict_mib} MiB read between applies, median of {reps}:");
    println!("  warm:            {warm:>6} ns");
    println!("  cold:            {cold:>6} ns");
    println!(
        "  cold data only:  {cold_data:>6} ns  (code fetched again: {} ns)",
        cold.saturating_sub(cold_data)
    );
}
