//! `apply` makes no heap allocation once a sampler has scattered an input
//! at least as large: scratch buffers are reused (scatter runs once per
//! generated token).
//!
//! A counting global allocator (test-only code; the library itself has no
//! `unsafe`) counts allocations made by this thread.

use scatter_core::{Outcome, Params, Scatter, TokenData};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only adds a thread-local count.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(Cell::get)
}

fn zipf(n: usize, sorted: bool) -> Vec<TokenData> {
    let mut v: Vec<TokenData> = (0..n)
        .map(|i| TokenData {
            id: i as i32,
            logit: -1.1 * ((1 + i) as f32).ln(),
            p: 0.0,
        })
        .collect();
    if !sorted {
        // A fixed interleaving: not sorted, same multiset.
        v.sort_by_key(|c| (c.id as u32).wrapping_mul(2_654_435_761));
    }
    v
}

#[test]
fn apply_does_not_allocate_after_the_first_input() {
    let presets = [
        Params::fixed(64, 0.12, 2.0, 1),
        Params::fixed(64, 0.18, 2.5, 1),
        Params::fixed(64, 0.18, 2.5, 4),
        Params {
            adaptive: true,
            strength: 0.14,
            ..Params::default()
        },
        Params {
            collision: 0.25,
            strength: 0.3,
            seed: 1,
            ..Params::default()
        },
        Params {
            adaptive: true,
            strength: 0.14,
            absorption: 0.06,
            ..Params::default()
        },
        Params::fixed(256, 0.3, 2.5, 2),
    ];
    let inputs = [
        zipf(262_144, false),
        zipf(40, true),
        zipf(64, true),
        zipf(32_000, false),
        zipf(3, false),
    ];
    let mut work = vec![TokenData::default(); 262_144];
    for params in presets {
        let mut scatter = Scatter::new(&params);
        for t in 0..50 {
            scatter.accept(t % 7);
        }
        // Warm-up: scattering the largest input sizes the scratch buffers
        // (with the collision gate, it may take a few applies to fire).
        loop {
            work.copy_from_slice(&inputs[0]);
            if scatter.apply(&mut work) != Outcome::Untouched {
                break;
            }
        }
        let before = allocations();
        for _ in 0..20 {
            for input in &inputs {
                work[..input.len()].copy_from_slice(input);
                scatter.apply(&mut work[..input.len()]);
            }
        }
        assert_eq!(
            allocations() - before,
            0,
            "{params:?} allocated inside apply"
        );
    }
}
