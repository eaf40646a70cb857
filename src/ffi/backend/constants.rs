//! The constants of scatter's graph, made once on the host and kept in a
//! buffer of the sampling graph's device for as long as the sampler lives:
//! a graph only reads them instead of building them from ranks every token
//! (the kernels saved: BENCHMARKS.md, "Graph size").
//!
//! They depend on the medium size `K = min(k, n)`, and `n` (what earlier
//! samplers leave) is known only when llama.cpp builds a graph, so a
//! sampler keeps one set per `K` it has met: one or two in practice (the
//! chain's, and the full vocabulary's when a graph is reserved), each
//! `3K·2K` floats for a fixed strength (1.5 MiB at the largest K, 256;
//! 96 KiB at the presets' 64), about `5K·2K` adaptive. A leaf: it knows
//! ggml and the plan, not the sampler.

use super::super::bindings::*;
use scatter_core::Plan;
use std::ptr;

/// Where the operator's product keeps each value, in rows (floats) from
/// its start: the adaptive strength's ramps in pairs first, then blocks of
/// K rows. The pairs are the one part a matrix product reads (Vulkan binds
/// a matrix product's operand only at an aligned offset: the start); the
/// blocks go to element-wise ops, which take any offset.
#[derive(Clone, Copy)]
pub(crate) struct Layout {
    k: i64,
    /// The number of ramps (the constant one included) where the strength
    /// is adaptive.
    ramps: Option<i64>,
}

impl Layout {
    fn of(k: i64, plan: &Plan) -> Self {
        Self {
            k,
            ramps: plan.strength_ramps().map(|r| r.ramps.len() as i64),
        }
    }

    /// A block's first row: after the pairs, `[e; kept; numerator; one;
    /// denominator]` where the strength is adaptive (the entropy's
    /// logarithms read `[e; kept]`, the blend divides `[kept; numerator]`
    /// by `[one; denominator]`), else `[kept; numerator; denominator]`.
    fn block(self, adaptive_at: i64, fixed_at: i64) -> i64 {
        match self.ramps {
            Some(n) => 2 * n + self.k * adaptive_at,
            None => self.k * fixed_at,
        }
    }

    /// `e·Σp` (so that its logarithm is 1) in every row; in the adaptive
    /// layout only.
    pub(crate) fn euler(self) -> i64 {
        self.block(0, 0)
    }
    /// `p`, times `1 − s` where the blend is folded in.
    pub(crate) fn kept(self) -> i64 {
        self.block(1, 0)
    }
    /// `σ·½·G·p`.
    pub(crate) fn numerator(self) -> i64 {
        self.block(2, 1)
    }
    /// `Σp` in every row; in the adaptive layout only.
    pub(crate) fn one(self) -> i64 {
        self.block(3, 0)
    }
    /// `G·f + τ·Σp`.
    pub(crate) fn denominator(self) -> i64 {
        self.block(4, 2)
    }
    /// The ramps' pairs `(start·Σp, −1/ln max(m, 2))` (`(Σp, 0)` for the
    /// constant one), from row 0, and their number.
    pub(crate) fn ramps(self) -> Option<(i64, i64)> {
        self.ramps.map(|n| (0, n))
    }

    fn rows(self) -> i64 {
        match self.ramps {
            Some(n) => 2 * n + 5 * self.k,
            None => 3 * self.k,
        }
    }
}

/// The constants' tensors for one `K`, as the graph uses them (`graph.rs`).
#[derive(Clone, Copy)]
pub(crate) struct Tensors {
    /// The pass, the blend and what the adaptive strength needs as one
    /// matrix product on `[p; f]`, the softmax and the finite weights (½
    /// for a finite logit, 0 for `-inf`) of the K ranks: `2K` columns, and
    /// rows as [`Layout`] places them:
    /// - numerator `σ·½·G·p`, with `G_ij = exp(-(i-j)² / (2·radius²))`
    ///   computed in f64 and rounded, dense (the CPU path stops where the
    ///   weight is below 2⁻⁶⁰, far below the resolution of f32 sums that
    ///   hold a weight of 1), and σ the strength where the blend is folded
    ///   in (fixed strength, one pass), else 1;
    /// - denominator `G·f + τ·Σp` = ½ the row sums over the finite ranks,
    ///   never 0: τ = 2⁻¹⁰⁰ (Σp is 1) is below every f32 sum that holds a
    ///   weight of ½ and keeps a row with no finite rank away from 0/0;
    /// - `(1 − s)·p` where the blend is folded in, else `p`;
    /// - adaptive: `e·Σp` and `Σp` (1 up to rounding) in every row, so that
    ///   one logarithm and one product give `[1, Σ p ln p]` and one
    ///   division gives `[p; q]`; and per ramp of the strength
    ///   (`Plan::strength_ramps`) its start and `−1 / ln max(m, 2)`, m the
    ///   number of finite ranks, as a sum that telescopes over them: with
    ///   `[1, Σ p ln p]` these give `H − start`.
    pub(crate) operator: *mut ggml_tensor,
    /// `[0, −inf]`: read, never computed, where a fired gate clears the
    /// logits outside the medium (`0 · inf` would rely on what fast math
    /// may drop).
    pub(crate) outside: *mut ggml_tensor,
    /// Adaptive: the ramps' weights, as the rows `1 − s` and `s` of one
    /// product on `max(H − start, 0)` (each 1 for the constant ramp).
    pub(crate) curve: Option<*mut ggml_tensor>,
    pub(crate) layout: Layout,
}

/// The denominator's floor τ.
const DENOMINATOR_FLOOR: f64 = 1.0 / (1u128 << 100) as f64;

/// The strength folded into the operator: a fixed strength and one pass
/// (every preset but adaptive), where the matrix product then is the blend;
/// `None` where the graph blends after the passes.
pub(crate) fn folded_strength(plan: &Plan) -> Option<f64> {
    (plan.adaptive.is_none() && plan.steps == 1).then_some(plan.strength)
}

impl Tensors {
    /// The tensors in `ctx`, without data.
    ///
    /// # Safety
    /// `ctx` is a live ggml context with room for three tensors.
    pub(crate) unsafe fn declare(ctx: *mut ggml_context, k: i64, plan: &Plan) -> Self {
        let layout = Layout::of(k, plan);
        // SAFETY: the caller's contract.
        unsafe {
            Self {
                operator: ggml_new_tensor_2d(ctx, ggml_type_GGML_TYPE_F32, 2 * k, layout.rows()),
                outside: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, 2),
                curve: layout
                    .ramps()
                    .map(|(_, n)| ggml_new_tensor_2d(ctx, ggml_type_GGML_TYPE_F32, n, 2)),
                layout,
            }
        }
    }

    /// Each tensor with its host values, in ggml's row-major order (row r,
    /// column c at `r·columns + c`).
    fn with_values(self, plan: &Plan) -> Vec<(*mut ggml_tensor, Vec<f32>)> {
        let layout = self.layout;
        let k = layout.k as usize;
        let two_r2 = 2.0 * plan.radius * plan.radius;
        let gaussian = |i: usize, j: usize| (-((i.abs_diff(j) as f64).powi(2)) / two_r2).exp();
        let sigma = folded_strength(plan).unwrap_or(1.0);
        let kept = if plan.adaptive.is_none() {
            1.0 - plan.strength
        } else {
            1.0
        };
        let columns = 2 * k;
        let mut operator = vec![0.0f32; layout.rows() as usize * columns];
        // Row `i` of the block that starts at row `at`.
        let row = |at: i64, i: usize| {
            let start = (at as usize + i) * columns;
            start..start + columns
        };
        for i in 0..k {
            let numerator = &mut operator[row(layout.numerator(), i)];
            for (j, value) in numerator[..k].iter_mut().enumerate() {
                *value = (sigma * 0.5 * gaussian(i, j)) as f32;
            }
            let (floor, weights) = operator[row(layout.denominator(), i)].split_at_mut(k);
            floor.fill(DENOMINATOR_FLOOR as f32);
            for (j, value) in weights.iter_mut().enumerate() {
                *value = gaussian(i, j) as f32;
            }
            operator[row(layout.kept(), i)][i] = kept as f32;
        }
        let mut values = vec![(self.outside, vec![0.0, f32::NEG_INFINITY])];
        if let (Some((at, _)), Some(ramps), Some(curve)) =
            (layout.ramps(), plan.strength_ramps(), self.curve)
        {
            for i in 0..k {
                operator[row(layout.euler(), i)][..k].fill(std::f32::consts::E);
                operator[row(layout.one(), i)][..k].fill(1.0);
            }
            // 1 / ln max(m, 2) as a sum over the finite ranks, which are the
            // first m: F(m) = F(0)·Σp + Σ_{j<m} 2·f_j·(F(j+1) − F(j)).
            let inverse_ln = |m: usize| 1.0 / (m.max(2) as f64).ln();
            for (r, &(start, _)) in ramps.ramps.iter().enumerate() {
                if start == f64::NEG_INFINITY {
                    operator[row(at, 2 * r)][..k].fill(1.0);
                    continue;
                }
                operator[row(at, 2 * r)][..k].fill(-start as f32);
                let (total, finite) = operator[row(at, 2 * r + 1)].split_at_mut(k);
                total.fill(-inverse_ln(0) as f32);
                for (j, value) in finite.iter_mut().enumerate() {
                    *value = (-2.0 * (inverse_ln(j + 1) - inverse_ln(j))) as f32;
                }
            }
            let s = ramps.ramps.iter().map(|&(_, weight)| weight);
            let one_minus_s = ramps.ramps.iter().map(|&(start, weight)| {
                if start == f64::NEG_INFINITY {
                    1.0 - weight
                } else {
                    -weight
                }
            });
            values.push((curve, one_minus_s.chain(s).map(|w| w as f32).collect()));
        }
        values.push((self.operator, operator));
        values
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

    /// The constants of `plan` (a sampler's plan never changes) for medium
    /// size `k`, made and uploaded the first time; `None` when the device
    /// cannot hold them (or before `reset`).
    ///
    /// # Safety
    /// the buffer type given to `reset` is live.
    pub(crate) unsafe fn get(&mut self, k: i64, plan: &Plan) -> Option<Tensors> {
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
            let tensors = Tensors::declare(ctx, k, plan);
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
            for (tensor, values) in tensors.with_values(plan) {
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
