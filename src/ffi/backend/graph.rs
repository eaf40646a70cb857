//! One apply of scatter as a ggml graph, for llama.cpp's backend sampling:
//! SPEC §4.3–4.6 in f32 (ggml's kernels), the steps of the CPU path in the
//! same order.
//!
//! What the backend hands over differs from a candidate array: the logits
//! of one output row, the whole vocabulary or what earlier backend samplers
//! left — shrunk and in no order (`top_k`), or sorted with the rejected
//! masked by `-inf` (`top_p`, `min_p`) — and shapes are fixed when the
//! graph is built. So:
//! - the medium is the `K = min(k, n)` best logits (`ggml_top_k`), sorted
//!   descending; those of them that are `-inf` are masked (the indicator
//!   f), and the real medium size is `m = Σ f`;
//! - the kernel is the dense K × K Gaussian, a constant made once on the
//!   host (`constants.rs`); each pass is `q ← (K q) / (K f) · f`, which is
//!   the row-normalised kernel over the first m ranks, the masked ones
//!   kept 0;
//! - the order clamp is a cumulative minimum: `argmax` over each row of a
//!   K × K grid of `-blended` whose entries above the diagonal are moved
//!   below every other by a constant mask;
//! - what SPEC leaves untouched (gate declined, m < 2, a `+inf` logit) is
//!   selected with `get_rows` on a 0/1 index, never by arithmetic that
//!   could turn `-inf` into NaN;
//! - collision 1: the output is the medium (K logits, the masked at
//!   `-inf`) and its token ids, as `top_k` shrinks; collision < 1: the
//!   output keeps the input's shape, so that a declined gate can leave it
//!   untouched (one pass adding 0: the graph is fixed before the gate is
//!   drawn), and a fired one sets every logit outside the medium to
//!   `-inf`.
//!
//! Fast math (CUDA's `-use_fast_math`, Metal's default) may assume no inf
//! or NaN: no result relies on either. `-inf` arrives in the input
//! (earlier samplers' masks), goes through `soft_max` as in llama.cpp's
//! own `dist` and every backend's attention mask, and otherwise through
//! add, scale and step comparisons only; it is written by adding the
//! constant `−inf`, never computed as `ln 0`. Rows that a 0/1 index
//! discards (m < 2) may hold anything, NaN where no logit is finite; none
//! is read.
//!
//! Precision: f32 throughout, where the CPU path computes in f64; the
//! tests (`c_tests/test_backend_sampling.c`) state and check the
//! difference. Ties between equal logits may take their ranks in another
//! order than the CPU path's (ggml's sort is not stable).

use super::super::bindings::*;
use super::constants::Tensors;
use scatter_core::{Plan, PROBABILITY_FLOOR};
use std::ffi::{CStr, CString};
use std::ptr;

/// Largest `k` scattered on the backend: the kernel and the order clamp's
/// mask are dense K × K constants (256 KiB each at 256). Every preset uses
/// 64. Also the longest row sorted whole.
pub(super) const MAX_MEDIUM: usize = 256;

/// The medium size of an apply on `logits`: `K = min(k, n)`.
///
/// # Safety
/// `logits` is a live tensor.
pub(super) unsafe fn medium_size(plan: &Plan, logits: *const ggml_tensor) -> i64 {
    // SAFETY: the caller's contract.
    (plan.k as i64).min(unsafe { ggml_nelements(logits) })
}

/// Builds one apply on `data` (its logits rewritten, its candidates
/// selected where the output shrinks) with the constants for its medium
/// size, and returns the gate input where the plan is gated: one f32, 1 if
/// the gate fires.
///
/// # Safety
/// `ctx` is a live ggml context, `data.logits` a live f32 tensor of
/// it, `data.candidates` NULL or a live i32 tensor of the same length;
/// `constants` were declared for [`medium_size`] of them.
pub(super) unsafe fn build(
    ctx: *mut ggml_context,
    data: &mut llama_sampler_data,
    plan: &Plan,
    constants: Tensors,
) -> Option<*mut ggml_tensor> {
    // Every field named (no `..`): a new one does not compile until the
    // graph handles it.
    let Plan {
        k: _,
        radius: _,
        steps,
        strength,
        adaptive,
        gated,
    } = *plan;
    let Tensors {
        kernel,
        above,
        outside,
    } = constants;
    let g = Graph(ctx);
    // SAFETY: the caller's contract; every tensor below is made in `ctx`
    // from those tensors and the constants, with the shapes each op needs.
    unsafe {
        let n = ggml_nelements(data.logits);
        let logits = ggml_reshape_1d(ctx, data.logits, n);
        let k = medium_size(plan, logits);

        // SPEC §4.3 step 1: the medium, sorted, and its finite indicator. A
        // row that earlier samplers shrank to at most MAX_MEDIUM is sorted
        // whole (two kernels); a longer one is cut to its top K first (five:
        // `top_k` leaves them in no order).
        let index = if n <= MAX_MEDIUM as i64 {
            let order = ggml_argsort(ctx, logits, ggml_sort_order_GGML_SORT_ORDER_DESC);
            ggml_view_1d(ctx, order, k, 0)
        } else {
            let top = ggml_top_k(ctx, logits, k as i32);
            let order = ggml_argsort(
                ctx,
                g.gather(logits, top),
                ggml_sort_order_GGML_SORT_ORDER_DESC,
            );
            g.gather(top, order)
        };
        let sorted = g.gather(logits, index);
        let finite = ggml_step(ctx, ggml_scale_bias(ctx, sorted, 1.0, f32::MAX));
        let m = ggml_sum(ctx, finite);

        // Step 2: softmax (a masked logit gets 0, as in llama.cpp's `dist`
        // and every backend's attention mask).
        let p = ggml_soft_max(ctx, sorted);

        // Step 3: the kernel on rank distance, `steps` passes. The row sums
        // are over the medium; a finite row's is at least its own weight,
        // 1, so raising them to 1 changes only the masked rows, whose pass
        // result is masked anyway, and no row divides by 0.
        let row_sums = ggml_clamp(ctx, ggml_mul_mat(ctx, kernel, finite), 1.0, f32::MAX);
        let mut q = p;
        for _ in 0..steps {
            q = ggml_mul(
                ctx,
                ggml_div(ctx, ggml_mul_mat(ctx, kernel, q), row_sums),
                finite,
            );
        }

        // §4.4 and step 4: the strength, the blend, negated (exactly: every
        // rounding is symmetric), as the order clamp wants it.
        let negated = match &adaptive {
            None => ggml_add(
                ctx,
                ggml_scale(ctx, p, (strength - 1.0) as f32),
                ggml_scale(ctx, q, -strength as f32),
            ),
            Some(curve) => {
                let s = g.adaptive_strength(p, m, strength, curve.min, curve.max, curve.target);
                ggml_sub(
                    ctx,
                    ggml_mul(ctx, p, ggml_scale_bias(ctx, s, 1.0, -1.0)),
                    ggml_mul(ctx, q, s),
                )
            }
        };

        // The exact order clamp (a cumulative minimum), then the sum to 1:
        // row i of the K × K grid `above + (−blended)` is −blended over
        // columns ≤ i (+ 0, exact) and below −2 past it, so its argmax is the
        // smallest blended among ranks 0..=i. Finite values only. The
        // quotient of the negated values is the blend's own.
        let running_min = ggml_argmax(ctx, ggml_add(ctx, above, negated));
        let clamped = g.gather(negated, running_min);
        let settled = ggml_div(ctx, clamped, ggml_sum(ctx, clamped));

        // §4.6: ln(max(p, ε)), `-inf` (read from `outside`) for the masked.
        let masked = g.gather(
            ggml_view_1d(ctx, outside, 2, 0),
            ggml_cast(ctx, finite, ggml_type_GGML_TYPE_I32),
        );
        let scattered = ggml_add(
            ctx,
            ggml_log(ctx, ggml_clamp(ctx, settled, PROBABILITY_FLOOR as f32, 1.0)),
            masked,
        );

        // Whether it fires: two finite candidates, no `+inf` logit (the
        // best is below `2·FLT_MAX` after halving, so a finite `FLT_MAX`
        // still counts), and the gate drawn where there is one. Every factor
        // is a step, so `pick` is 0 or 1 even where llama.cpp never sets the
        // gate (an idle sequence's placeholder row).
        let enough = ggml_step(ctx, ggml_scale_bias(ctx, m, 1.0, -1.5));
        let not_forced = ggml_step(
            ctx,
            ggml_scale_bias(ctx, ggml_view_1d(ctx, sorted, 1, 0), -0.5, f32::MAX),
        );
        let mut fires = ggml_mul(ctx, enough, not_forced);
        let gate = gated.then(|| {
            let gate = ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, 1);
            ggml_set_input(gate);
            ggml_set_name(gate, c"scatter_gate".as_ptr());
            let drawn = ggml_step(ctx, ggml_scale_bias(ctx, gate, 1.0, -0.5));
            fires = ggml_mul(ctx, fires, drawn);
            gate
        });
        let pick = ggml_cast(ctx, fires, ggml_type_GGML_TYPE_I32);
        let medium = g.choose(sorted, scattered, pick);

        if gated {
            // One pass over the row: + 0 where it declines, + (−inf) where
            // it fires; then the medium's K values in place.
            let cleared = ggml_add(
                ctx,
                logits,
                g.gather(ggml_view_1d(ctx, outside, 2, size_of::<f32>()), pick),
            );
            let rewritten = ggml_set_rows(
                ctx,
                ggml_reshape_2d(ctx, cleared, 1, n),
                ggml_reshape_2d(ctx, medium, 1, k),
                index,
            );
            data.logits = ggml_reshape_1d(ctx, rewritten, n);
        } else {
            data.logits = medium;
            data.candidates = if data.candidates.is_null() {
                index
            } else {
                g.gather(ggml_reshape_1d(ctx, data.candidates, n), index)
            };
        }
        ggml_set_name(data.logits, c"scatter_logits".as_ptr());
        gate
    }
}

/// Whether the device behind `buft` runs every operation of the graph
/// (the CPU always does), probed on a graph built for a full vocabulary.
/// When it does not, says which op it lacks, as llama.cpp's own probe does
/// for its samplers, through llama.cpp's log callback.
///
/// # Safety
/// `buft` is a live buffer type.
pub(super) unsafe fn supported(plan: &Plan, buft: ggml_backend_buffer_type_t) -> bool {
    // SAFETY: `buft` is live (the caller's contract), so is its device, and
    // `probe` hands over live nodes.
    unsafe {
        let device = ggml_backend_buft_get_device(buft);
        if device.is_null() {
            return true;
        }
        let lacking = probe(plan, |nodes| {
            nodes
                .into_iter()
                .find(|&node| !ggml_backend_dev_supports_op(device, node))
                .map(|node| op_name(node))
        });
        match lacking {
            Some(None) => true,
            Some(Some(op)) => {
                let device = CStr::from_ptr(ggml_backend_dev_name(device)).to_string_lossy();
                warn(&format!(
                    "llama_sampler_scatter_backend_init: device '{device}' does not have support for op {op} \
                     needed for sampler 'scatter'; it runs on the CPU\n"
                ));
                false
            }
            None => false,
        }
    }
}

/// Calls `f` with the nodes of one apply's graph, built for a vocabulary of
/// 128 Ki logits in a context that allocates no tensor data; `None` when no
/// context could be made.
unsafe fn probe<T>(plan: &Plan, f: impl FnOnce(Vec<*mut ggml_tensor>) -> T) -> Option<T> {
    const MAX_NODES: usize = 1024;
    const PROBE_VOCABULARY: i64 = 128 * 1024;
    // SAFETY: the context is checked for NULL before use and freed once,
    // after `f` has seen its nodes.
    unsafe {
        let ctx = ggml_init(ggml_init_params {
            mem_size: MAX_NODES * ggml_tensor_overhead()
                + ggml_graph_overhead_custom(MAX_NODES, false),
            mem_buffer: ptr::null_mut(),
            no_alloc: true,
        });
        if ctx.is_null() {
            return None;
        }
        let graph = ggml_new_graph_custom(ctx, MAX_NODES, false);
        let mut data = llama_sampler_data {
            logits: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, PROBE_VOCABULARY),
            probs: ptr::null_mut(),
            sampled: ptr::null_mut(),
            candidates: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_I32, PROBE_VOCABULARY),
        };
        let constants = Tensors::declare(ctx, medium_size(plan, data.logits));
        build(ctx, &mut data, plan, constants);
        ggml_build_forward_expand(graph, data.logits);
        ggml_build_forward_expand(graph, data.candidates);
        let nodes = (0..ggml_graph_n_nodes(graph))
            .map(|i| ggml_graph_node(graph, i))
            .collect();
        let result = f(nodes);
        ggml_free(ctx);
        Some(result)
    }
}

/// A node's op as llama.cpp names it in its own probe's warning (a unary op
/// by its own name).
///
/// # Safety
/// `node` is a live tensor.
unsafe fn op_name(node: *mut ggml_tensor) -> String {
    // SAFETY: the caller's contract; ggml names every op with a static string.
    unsafe { CStr::from_ptr(ggml_op_desc(node)) }
        .to_string_lossy()
        .into_owned()
}

/// A warning through llama.cpp's log callback (`llama_log_set`), where the
/// user of the library looks for llama.cpp's own.
pub(super) fn warn(message: &str) {
    let Ok(message) = CString::new(message) else {
        return;
    };
    let mut callback: ggml_log_callback = None;
    let mut user_data = ptr::null_mut();
    // SAFETY: llama_log_get writes the two out-parameters; the callback is
    // llama.cpp's or the user's, called as llama.cpp calls it.
    unsafe {
        llama_log_get(&mut callback, &mut user_data);
        if let Some(callback) = callback {
            callback(
                ggml_log_level_GGML_LOG_LEVEL_WARN,
                message.as_ptr(),
                user_data,
            );
        }
    }
}

/// The graph context, with the few compound steps used above.
#[derive(Clone, Copy)]
struct Graph(*mut ggml_context);

impl Graph {
    /// `values[index]`: a 1-D tensor of `index`'s length.
    unsafe fn gather(self, values: *mut ggml_tensor, index: *mut ggml_tensor) -> *mut ggml_tensor {
        // SAFETY: the caller passes live tensors of this graph's context.
        unsafe {
            let rows = ggml_reshape_2d(self.0, values, 1, ggml_nelements(values));
            ggml_reshape_1d(
                self.0,
                ggml_get_rows(self.0, rows, index),
                ggml_nelements(index),
            )
        }
    }

    /// `pick` (an i32, 0 or 1) ? `b` : `a`, for two 1-D tensors of one
    /// length: row `pick` of the two stacked.
    unsafe fn choose(
        self,
        a: *mut ggml_tensor,
        b: *mut ggml_tensor,
        pick: *mut ggml_tensor,
    ) -> *mut ggml_tensor {
        // SAFETY: the caller passes live tensors of this graph's context.
        unsafe {
            let n = ggml_nelements(a);
            let rows = ggml_concat(self.0, a, b, 1);
            ggml_reshape_1d(self.0, ggml_get_rows(self.0, rows, pick), n)
        }
    }

    /// SPEC §4.4 on the softmax `p` of a medium of `m` (a one-element
    /// tensor): the entropy `H = −Σ p ln p / ln m`, clamped to [0, 1], and
    /// the piecewise-linear strength through (0, max), (target, strength),
    /// (1, min), clamped to [min, max]. A branch whose denominator is 0 is
    /// never taken (`H < target` needs target > 0, `H > target` needs
    /// target < 1) and is not built.
    unsafe fn adaptive_strength(
        self,
        p: *mut ggml_tensor,
        m: *mut ggml_tensor,
        strength: f64,
        min: f64,
        max: f64,
        target: f64,
    ) -> *mut ggml_tensor {
        let ctx = self.0;
        // SAFETY: the caller passes live tensors of this graph's context.
        unsafe {
            // ln(max(p, FLT_MIN)): 0 · ln p is 0 for a masked p = 0.
            let ln_p = ggml_log(ctx, ggml_clamp(ctx, p, f32::MIN_POSITIVE, 1.0));
            let neg_entropy = ggml_sum(ctx, ggml_mul(ctx, p, ln_p));
            let h = ggml_clamp(
                ctx,
                ggml_div(
                    ctx,
                    ggml_neg(ctx, neg_entropy),
                    ggml_log(ctx, ggml_clamp(ctx, m, 2.0, f32::MAX)),
                ),
                0.0,
                1.0,
            );
            let before_target = (target > 0.0).then(|| {
                let slope = (strength - max) / target;
                ggml_scale_bias(ctx, h, slope as f32, max as f32)
            });
            let after_target = (target < 1.0).then(|| {
                let slope = (min - strength) / (1.0 - target);
                ggml_scale_bias(ctx, h, slope as f32, (strength - slope * target) as f32)
            });
            let s = match (before_target, after_target) {
                (Some(before_target), Some(after_target)) => {
                    let is_before = ggml_step(ctx, ggml_scale_bias(ctx, h, -1.0, target as f32));
                    ggml_add(
                        ctx,
                        after_target,
                        ggml_mul(ctx, ggml_sub(ctx, before_target, after_target), is_before),
                    )
                }
                (Some(only), None) | (None, Some(only)) => only,
                (None, None) => unreachable!("target is in [0, 1]"),
            };
            ggml_clamp(ctx, s, min as f32, max as f32)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use scatter_core::{params::PRESETS, Params, Scatter};
    use std::collections::BTreeSet;

    /// The committed table of which backend runs which op, with the
    /// `supports_op` line each entry was read from.
    const TABLE: &str = include_str!("ops.md");

    /// The backends of the table's columns whose cell for `op` says `yes`.
    fn runs_on(op: &str) -> Option<Vec<bool>> {
        TABLE.lines().find_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (cells.len() == 6 && cells[1] == op)
                .then(|| cells[2..5].iter().map(|c| c.starts_with("yes ")).collect())
        })
    }

    #[test]
    fn every_op_of_the_graph_runs_on_cuda_vulkan_and_metal() {
        let mut plans: Vec<Plan> = PRESETS
            .iter()
            .filter_map(|preset| Scatter::new(&preset.params).plan())
            .collect();
        // The largest medium the backend takes, and several passes.
        let wide = Params {
            k: MAX_MEDIUM as i32,
            steps: 3,
            ..Params::preset("creative").unwrap()
        };
        plans.extend(Scatter::new(&wide).plan());
        assert!(
            plans.len() >= 5,
            "the presets without absorption plan a graph"
        );
        let mut ops = BTreeSet::new();
        for plan in &plans {
            // SAFETY: probe hands `op_name` the live nodes of its graph.
            let names = unsafe {
                probe(plan, |nodes| {
                    nodes.into_iter().map(|n| op_name(n)).collect::<Vec<_>>()
                })
            };
            ops.extend(names.expect("a probe context"));
        }
        assert!(
            ops.contains("TOP_K") && ops.contains("MUL_MAT"),
            "ops: {ops:?}"
        );
        // The table lists the graph's ops and no other: an op the graph no
        // longer uses leaves it.
        let listed: BTreeSet<&str> = TABLE
            .lines()
            .filter_map(|line| {
                let cells: Vec<&str> = line.split('|').map(str::trim).collect();
                (cells.len() == 6 && cells[2].starts_with("yes ")).then(|| cells[1])
            })
            .collect();
        assert_eq!(
            listed,
            ops.iter().map(String::as_str).collect(),
            "ops.md's rows"
        );
        for op in &ops {
            let support = runs_on(op).unwrap_or_else(|| panic!("op {op} is not in ops.md"));
            assert_eq!(
                support,
                [true, true, true],
                "op {op}: not run by every backend of ops.md"
            );
        }
    }
}
