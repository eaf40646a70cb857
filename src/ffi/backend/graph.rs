//! One apply of scatter as a ggml graph, for llama.cpp's backend sampling:
//! SPEC §4.3–4.6 in f32 (ggml's kernels), in as few kernels as the math
//! allows, since on a GPU each launch is what an apply costs (BENCHMARKS.md,
//! "Graph size").
//!
//! What the backend hands over differs from a candidate array: the logits
//! of one output row, the whole vocabulary or what earlier backend samplers
//! left — shrunk and in no order (`top_k`), or sorted with the rejected
//! masked by `-inf` (`top_p`, `min_p`) — and shapes are fixed when the
//! graph is built. So:
//! - the medium is the `K = min(k, n)` best logits (`ggml_top_k`), sorted
//!   descending; those of them that are `-inf` are masked, and the real
//!   medium size m is the number of finite ones;
//! - the pass, the blend and m are one matrix product (`constants.rs`) on
//!   the softmax p and the finite weights f (½ finite, 0 masked): the
//!   numerator `G·p` and the denominator `G·f` (the row-normalised kernel
//!   over the first m ranks) come out of the same product, so a medium of
//!   any m needs no mask of its own;
//! - the adaptive strength is a sum of ramps `max(H − start, 0)` of the
//!   entropy (`Plan::strength_ramps`: the curve's clamps included), so it
//!   takes three small products and no comparison, and both coefficients
//!   of the blend `[1 − s, s]` come out at once;
//! - the written logits are `ln(max(b, ε))` of the blend b before its
//!   renormalisation: log-probabilities up to one constant per row, which a
//!   softmax, and so every sampler after scatter, ignores (the CPU path
//!   writes them normalised; the tests compare probabilities);
//! - the exact order (SPEC §5: the kernel keeps it in exact arithmetic, the
//!   last ulp must be enforced) is a sort of the written logits: the ranks
//!   keep their tokens and take the values in descending order, which moves
//!   a value only where rounding broke the order, by an ulp;
//! - what is not finite is carried through, not tested for: `d = x −
//!   clamp(x)` is 0 for a finite logit and `±inf` for an infinite one, the
//!   arithmetic runs on `clamp(x)`, and `d` is added back at the end, so a
//!   masked rank stays `-inf` and a forced (`+inf`) one stays `+inf`. A
//!   medium of fewer than two finite logits, or with a forced one, then
//!   gives what leaving it untouched gives every sampler after scatter (a
//!   single finite logit, or the forced token), without a test and a
//!   selection;
//! - collision 1: the output is the medium (K logits, the masked at
//!   `-inf`) and its token ids, as `top_k` shrinks; collision < 1: the
//!   output keeps the input's shape, so that a declined gate leaves it
//!   untouched (the medium's own values written back), and a fired one
//!   writes the scattered values in place and, where the medium is not the
//!   whole row, sets every logit outside it to `-inf` (one pass adding 0 or
//!   `-inf`: the graph is fixed before the gate is drawn).
//!
//! Fast math (CUDA's `-use_fast_math`, Metal's default) may assume no inf
//! or NaN: no value is NaN anywhere in the graph, whatever the input
//! (a row with no finite logit included), and infinities only go through
//! clamp, subtraction and addition, `soft_max` (as in llama.cpp's own
//! `dist`), `hardsigmoid` (min and max) and sorts; `-inf` is read from a
//! constant or the input, never computed as `ln 0`.
//!
//! Precision: f32 throughout, where the CPU path computes in f64; the
//! tests (`c_tests/test_backend_sampling.c`) state and check the
//! difference. Ties between equal logits may take their ranks in another
//! order than the CPU path's (ggml's sort is not stable).

use super::super::bindings::*;
use super::constants::{folded_strength, Tensors};
use scatter_core::{Plan, PROBABILITY_FLOOR};
use std::ffi::{CStr, CString};
use std::ptr;

/// Largest `k` scattered on the backend: the operator is a dense
/// `3K × 2K` constant (1.5 MiB at 256; about `5K × 2K` adaptive). Every
/// preset uses 64. Also the longest row sorted whole.
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
/// size, and returns the gate input where the plan is gated: one f32, above
/// 0 if the gate fires.
///
/// # Safety
/// `ctx` is a live ggml context, `data.logits` a live f32 tensor of
/// it, `data.candidates` NULL or a live i32 tensor of the same length;
/// `constants` were declared for [`medium_size`] of them and this plan.
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
        operator,
        outside,
        curve,
        layout,
    } = constants;
    let g = Graph(ctx);
    // SAFETY: the caller's contract; every tensor below is made in `ctx`
    // from those tensors and the constants, with the shapes each op needs.
    unsafe {
        let n = ggml_nelements(data.logits);
        let logits = ggml_reshape_1d(ctx, data.logits, n);
        let k = medium_size(plan, logits);

        // SPEC §4.3 step 1: the medium, sorted. A row that earlier samplers
        // shrank to at most MAX_MEDIUM is sorted whole (two kernels); a
        // longer one is cut to its top K first (five: `top_k` leaves them in
        // no order).
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
        let finite = ggml_clamp(ctx, sorted, -f32::MAX, f32::MAX);
        let infinite = ggml_sub(ctx, sorted, finite);

        // Step 2: the softmax of the finite values; a masked logit, at
        // −FLT_MAX there, gets 0 (and a row with none is uniform, not NaN).
        let p = ggml_soft_max(ctx, finite);
        // ½ for a finite logit, 0 for −inf (and 1 for +inf).
        let weights = ggml_hardsigmoid(ctx, infinite);

        // Step 3 and (with a fixed strength and one pass) step 4: one
        // product gives the numerator, the denominator and the kept part
        // (adaptive: `[p; q]` in one division); each further pass
        // multiplies the last one's masked result again (½·½·G·q over ½ of
        // the row sums: twice the pass).
        let product = ggml_mul_mat(ctx, operator, ggml_concat(ctx, p, weights, 0));
        let block =
            |at: i64, len: i64| ggml_view_1d(ctx, product, len, at as usize * size_of::<f32>());
        let denominator = block(layout.denominator(), k);
        let kept = block(layout.kept(), k);
        let kept_and_pass = (adaptive.is_some())
            .then(|| ggml_div(ctx, block(layout.kept(), 2 * k), block(layout.one(), 2 * k)));
        let mut q = match kept_and_pass {
            Some(both) => ggml_view_1d(ctx, both, k, k as usize * size_of::<f32>()),
            None => ggml_div(ctx, block(layout.numerator(), k), denominator),
        };
        for _ in 1..steps {
            let masked = ggml_concat(ctx, ggml_mul(ctx, q, weights), weights, 0);
            let again = ggml_mul_mat(ctx, operator, masked);
            let numerator = ggml_view_1d(
                ctx,
                again,
                k,
                layout.numerator() as usize * size_of::<f32>(),
            );
            q = ggml_scale(ctx, ggml_div(ctx, numerator, denominator), 2.0);
        }

        // §4.4 and step 4: the blend; folded into the product where it can
        // be (`kept` is then (1 − s)·p and q already s·q).
        let blended = match (kept_and_pass, folded_strength(plan)) {
            (_, Some(_)) => ggml_add(ctx, q, kept),
            (None, None) => ggml_add(ctx, ggml_scale(ctx, q, strength as f32), kept),
            (Some(both), None) => {
                let both = if steps == 1 {
                    both
                } else {
                    ggml_concat(ctx, kept, q, 0)
                };
                let (Some((ramps, n)), Some(curve)) = (layout.ramps(), curve) else {
                    unreachable!("an adaptive plan's constants have ramps")
                };
                let s = g.adaptive_strength(p, product, layout.euler(), (ramps, n), curve);
                // (1 − s)·p + s·q: the two halves of [p; q]·[1 − s, s].
                let terms = ggml_mul(
                    ctx,
                    ggml_reshape_2d(ctx, both, k, 2),
                    ggml_reshape_2d(ctx, s, 1, 2),
                );
                ggml_add(
                    ctx,
                    ggml_view_1d(ctx, terms, k, 0),
                    ggml_view_1d(ctx, terms, k, k as usize * size_of::<f32>()),
                )
            }
        };

        // §4.6: ln(max(b, ε)), the infinities of the input added back, then
        // the values in descending order.
        let logged = ggml_log(
            ctx,
            ggml_clamp(ctx, blended, PROBABILITY_FLOOR as f32, f32::MAX),
        );
        let scattered = ggml_add(ctx, logged, infinite);
        let ranked = g.gather(
            scattered,
            ggml_argsort(ctx, scattered, ggml_sort_order_GGML_SORT_ORDER_DESC),
        );

        let gate = if gated {
            let gate = ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, 1);
            ggml_set_input(gate);
            ggml_set_name(gate, c"scatter_gate".as_ptr());
            // A step, so that `pick` is 0 or 1 even where llama.cpp never
            // sets the gate (an idle sequence's placeholder row).
            let pick = ggml_cast(ctx, ggml_step(ctx, gate), ggml_type_GGML_TYPE_I32);
            let medium = g.choose(sorted, ranked, pick);
            // The whole row is the medium, or it takes + 0 where the gate
            // declines and + (−inf) where it fires; then the medium's K
            // values in place.
            let base = if n == k {
                logits
            } else {
                ggml_add(ctx, logits, g.gather(outside, pick))
            };
            let rewritten = ggml_set_rows(
                ctx,
                ggml_reshape_2d(ctx, base, 1, n),
                ggml_reshape_2d(ctx, medium, 1, k),
                index,
            );
            data.logits = ggml_reshape_1d(ctx, rewritten, n);
            Some(gate)
        } else {
            data.logits = ranked;
            data.candidates = if data.candidates.is_null() {
                index
            } else {
                g.gather(ggml_reshape_1d(ctx, data.candidates, n), index)
            };
            None
        };
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
        let lacking = probe(plan, PROBE_VOCABULARY, |nodes| {
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

/// The row the device's support is probed on: a vocabulary of 128 Ki
/// logits (the graph's longest path).
const PROBE_VOCABULARY: i64 = 128 * 1024;

/// Calls `f` with the nodes of one apply's graph on a row of `n` logits
/// with their candidate ids, built in a context that allocates no tensor
/// data; `None` when no context could be made.
unsafe fn probe<T>(plan: &Plan, n: i64, f: impl FnOnce(Vec<*mut ggml_tensor>) -> T) -> Option<T> {
    const MAX_NODES: usize = 1024;
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
            logits: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_F32, n),
            probs: ptr::null_mut(),
            sampled: ptr::null_mut(),
            candidates: ggml_new_tensor_1d(ctx, ggml_type_GGML_TYPE_I32, n),
        };
        let constants = Tensors::declare(ctx, medium_size(plan, data.logits), plan);
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

    /// SPEC §4.4 on the softmax `p` of a medium of m: `[1 − s, s]`, the
    /// strength s as a sum of ramps of the entropy (`Plan::strength_ramps`:
    /// the clamps are ramps too, no comparison). From the operator's
    /// product: `ln [e·Σp; p]` (the clamp keeps a masked `p = 0` at
    /// `ln FLT_MIN`, which `0·` then drops) contracted with p gives `[1, Σ
    /// p ln p]`; each ramp's pair of rows turns that into `H − start`, H =
    /// `−Σ p ln p / ln max(m, 2)`; `max(·, 0)` of them, contracted with the
    /// ramps' weights (`curve`), gives both coefficients of the blend.
    unsafe fn adaptive_strength(
        self,
        p: *mut ggml_tensor,
        product: *mut ggml_tensor,
        euler: i64,
        (ramps, n): (i64, i64),
        curve: *mut ggml_tensor,
    ) -> *mut ggml_tensor {
        let ctx = self.0;
        let k = ggml_nelements(p);
        let at = |row: i64| row as usize * size_of::<f32>();
        // SAFETY: the caller passes live tensors of this graph's context,
        // `product` with the rows its layout names.
        unsafe {
            let logs = ggml_log(
                ctx,
                ggml_clamp(
                    ctx,
                    ggml_view_1d(ctx, product, 2 * k, at(euler)),
                    f32::MIN_POSITIVE,
                    f32::MAX,
                ),
            );
            let sums = ggml_mul_mat(ctx, p, ggml_reshape_2d(ctx, logs, k, 2));
            let pairs = ggml_reshape_2d(ctx, ggml_view_1d(ctx, product, 2 * n, at(ramps)), 2, n);
            let past = ggml_clamp(
                ctx,
                ggml_mul_mat(ctx, pairs, ggml_reshape_2d(ctx, sums, 2, 1)),
                0.0,
                f32::MAX,
            );
            ggml_mul_mat(ctx, curve, past)
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

    /// The kernels one apply launches on a row that `top_k 40` left (with
    /// its candidate ids): the nodes that compute, views and reshapes
    /// excluded. What `scatter-graph-size` reports, kept here as limits.
    fn kernels_after_top_k_40(preset: &str) -> usize {
        let plan = Scatter::new(&Params::preset(preset).unwrap())
            .plan()
            .expect("the preset runs on the backend");
        // SAFETY: probe hands live nodes.
        unsafe {
            probe(&plan, 40, |nodes| {
                nodes
                    .into_iter()
                    .filter(|&node| {
                        ![
                            ggml_op_GGML_OP_NONE,
                            ggml_op_GGML_OP_VIEW,
                            ggml_op_GGML_OP_RESHAPE,
                            ggml_op_GGML_OP_PERMUTE,
                            ggml_op_GGML_OP_TRANSPOSE,
                        ]
                        .contains(&(*node).op)
                    })
                    .count()
            })
        }
        .expect("a probe context")
    }

    #[test]
    fn an_apply_after_top_k_40_launches_few_kernels() {
        for (preset, most) in [
            ("subtle", 16),
            ("creative", 16),
            ("collision", 20),
            ("adaptive", 23),
        ] {
            let kernels = kernels_after_top_k_40(preset);
            assert!(
                kernels <= most,
                "{preset}: {kernels} kernels, more than {most}"
            );
        }
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
                probe(plan, PROBE_VOCABULARY, |nodes| {
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
