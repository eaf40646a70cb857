//! The constants of scatter's graph, made once on the host and kept in a
//! buffer of the sampling graph's device for as long as the sampler lives:
//! a graph only reads them instead of building them from ranks every token
//! (the kernels saved: BENCHMARKS.md, "Graph size").
//!
//! They depend on the medium size `K = min(k, n)`, and `n` (what earlier
//! samplers leave) is known only when llama.cpp builds a graph, so a
//! sampler keeps one set per `K` it has met: one or two in practice (the
//! chain's, and the full vocabulary's when a graph is reserved), each
//! `2·K² + 3` floats (512 KiB at the largest K, 256). A leaf: it knows
//! ggml, not the sampler.

use super::super::bindings::*;
use std::ptr;

/// The constants' tensors for one `K`, as the graph uses them (`graph.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Tensors {
    /// K × K: `exp(-(i-j)² / (2·radius²))`, computed in f64 and rounded,
    /// dense (the CPU path stops where the weight is below 2⁻⁶⁰, far
    /// below the resolution of f32 sums that hold a weight of 1).
    pub(crate) kernel: *mut ggml_tensor,
    /// K × K: 0 where column ≤ row, else −2: added to `−blended` ∈ [−1, 0],
    /// it keeps columns 0..=i of row i exactly and moves the rest below them.
    pub(crate) above: *mut ggml_tensor,
    /// `[−inf, 0, −inf]`: read, never computed, wherever the graph writes
    /// `−inf` (`ln 0` or `0 · inf` would rely on what fast math may drop).
    pub(crate) outside: *mut ggml_tensor,
}

impl Tensors {
    /// The three tensors in `ctx`, without data.
    ///
    /// # Safety
    /// `ctx` is a live ggml context with room for three tensors.
    pub(crate) unsafe fn declare(ctx: *mut ggml_context, k: i64) -> Self {
        // SAFETY: the caller's contract.
        unsafe {
            let square = || ggml_new_tensor_2d(ctx, ggml_type_GGML_TYPE_F32, k, k);
            Self {
                kernel: square(),
                above: square(),
                outside: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, 3),
            }
        }
    }

    /// Each tensor with its host values, in ggml's row-major order (row i,
    /// column j at `i·K + j`).
    fn with_values(self, k: usize, radius: f64) -> [(*mut ggml_tensor, Vec<f32>); 3] {
        let grid = |f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> {
            (0..k * k).map(|at| f(at / k, at % k)).collect()
        };
        let two_r2 = 2.0 * radius * radius;
        [
            (
                self.kernel,
                grid(&|i, j| (-((i.abs_diff(j) as f64).powi(2)) / two_r2).exp() as f32),
            ),
            (self.above, grid(&|i, j| if j <= i { 0.0 } else { -2.0 })),
            (
                self.outside,
                vec![f32::NEG_INFINITY, 0.0, f32::NEG_INFINITY],
            ),
        ]
    }
}

/// One set of constants in a device buffer of its own.
struct Set {
    k: i64,
    tensors: Tensors,
    ctx: *mut ggml_context,
    buffer: ggml_backend_buffer_t,
}

impl Drop for Set {
    fn drop(&mut self) {
        // SAFETY: both were made by `Store::get` and are freed once, here;
        // the buffer first, as it holds the context's tensors' data.
        unsafe {
            ggml_backend_buffer_free(self.buffer);
            ggml_free(self.ctx);
        }
    }
}

/// A sampler's constants on the device of its sampling graph.
pub(crate) struct Store {
    buft: ggml_backend_buffer_type_t,
    sets: Vec<Set>,
}

impl Default for Store {
    fn default() -> Self {
        Self {
            buft: ptr::null_mut(),
            sets: Vec::new(),
        }
    }
}

impl Store {
    /// Forgets every set, and makes the next ones in `buft` (llama.cpp
    /// calls `backend_init` again when the sampler moves to another graph).
    pub(crate) fn reset(&mut self, buft: ggml_backend_buffer_type_t) {
        self.sets.clear();
        self.buft = buft;
    }

    /// The constants for medium size `k`, made and uploaded the first time;
    /// `None` when the device cannot hold them (or before `reset`).
    ///
    /// # Safety
    /// the buffer type given to `reset` is live.
    pub(crate) unsafe fn get(&mut self, k: i64, radius: f64) -> Option<Tensors> {
        if let Some(set) = self.sets.iter().find(|set| set.k == k) {
            return Some(set.tensors);
        }
        if self.buft.is_null() {
            return None;
        }
        // SAFETY: `buft` is live (the caller's contract); the context and
        // buffer are checked for NULL, and the data written is each
        // tensor's size, into the buffer just allocated for it.
        unsafe {
            let ctx = ggml_init(ggml_init_params {
                mem_size: 3 * ggml_tensor_overhead(),
                mem_buffer: ptr::null_mut(),
                no_alloc: true,
            });
            if ctx.is_null() {
                return None;
            }
            let tensors = Tensors::declare(ctx, k);
            let buffer = ggml_backend_alloc_ctx_tensors_from_buft(ctx, self.buft);
            if buffer.is_null() {
                ggml_free(ctx);
                return None;
            }
            let set = Set {
                k,
                tensors,
                ctx,
                buffer,
            };
            for (tensor, values) in tensors.with_values(k as usize, radius) {
                ggml_backend_tensor_set(
                    tensor,
                    values.as_ptr().cast(),
                    0,
                    size_of_val(values.as_slice()),
                );
            }
            self.sets.push(set);
            Some(tensors)
        }
    }
}
