//! What a scatter sampler does in llama.cpp's backend sampling (built only
//! where the header has its hooks, `cfg(llama_backend_sampling)` from
//! build.rs): the state a sampler keeps of the sampling graph of the moment
//! and the work of each hook; the hooks themselves, which find the sampler
//! behind a pointer, are in `sampler.rs` with the sampler's other callbacks.
//!
//! A chain runs on the backend up to its first sampler whose
//! `backend_init` is missing or returns false; everything from there on
//! runs on the CPU. So:
//! - a disabled scatter answers true and adds nothing to the graph, as
//!   llama.cpp's own disabled ("empty") samplers do: the default chain of
//!   the patched tools, which always holds a `?scatter`, keeps temperature
//!   and the final draw on the device;
//! - an active scatter answers true where its graph ([`graph`]) can run,
//!   and is then named `+scatter`; otherwise false, named `-scatter`, and
//!   the chain runs on the CPU from scatter on, as llama.cpp does for its
//!   own samplers. It cannot run there with absorption (the token history
//!   is on the CPU), with `k` above [`graph::MAX_MEDIUM`], with the gate
//!   in play on a context that samples several outputs per sequence (the
//!   draws of outputs the caller then rejects could not be taken back), or
//!   on a device that lacks one of the graph's operations.
//!
//! The collision gate is drawn here, on the CPU, from the sampler's own
//! stream (`Scatter::draw_gate`, the draw `apply` makes) once per apply in
//! the graph, in `set_input`, and handed to the graph as an input: the same
//! seed gives the same gate decisions on the backend and on the CPU.

mod constants;
mod graph;

use super::bindings::{
    ggml_backend_buffer_type_t, ggml_backend_tensor_set, ggml_context, ggml_tensor,
    llama_sampler_data,
};
use scatter_core::Scatter;

/// What the sampling graph of the moment holds of a sampler.
#[derive(Default)]
pub(crate) struct State {
    /// `init`'s answer for an active sampler; `None` before.
    runs: Option<bool>,
    /// Each apply in the current graph, in build order, with its gate
    /// input where the plan is gated.
    gates: Vec<Option<*mut ggml_tensor>>,
    /// The graph's constants, on the device of the graph.
    constants: constants::Store,
}

impl State {
    /// Whether an active sampler runs in the graph (`+scatter`) or sent the
    /// chain to the CPU (`-scatter`); `None` before llama.cpp asked.
    pub(crate) fn runs(&self) -> Option<bool> {
        self.runs
    }

    /// `backend_init`: whether `scatter` can run in a graph on `buft`.
    ///
    /// # Safety
    /// `buft` is the live buffer type of llama.cpp's sampling graph.
    pub(crate) unsafe fn init(
        &mut self,
        scatter: &Scatter,
        buft: ggml_backend_buffer_type_t,
        n_outputs_max_per_seq: u32,
    ) -> bool {
        if !scatter.is_active() {
            return true;
        }
        self.constants.reset(buft);
        let runs = scatter.plan().is_some_and(|plan| {
            plan.k <= graph::MAX_MEDIUM
                && !(plan.gated && n_outputs_max_per_seq > 1)
                // SAFETY: the caller's contract.
                && unsafe { graph::supported(&plan, buft) }
        });
        self.runs = Some(runs);
        runs
    }

    /// `backend_apply`: appends one apply to the graph, for a sampler whose
    /// `init` answered true; a disabled one adds nothing.
    ///
    /// # Safety
    /// `ctx` is NULL or llama.cpp's live graph context; `data` holds NULL or
    /// live tensors of one output row, on the buffer type `init` was given.
    pub(crate) unsafe fn apply(
        &mut self,
        scatter: &Scatter,
        ctx: *mut ggml_context,
        data: &mut llama_sampler_data,
    ) {
        if ctx.is_null() || data.logits.is_null() || self.runs != Some(true) {
            return;
        }
        let Some(plan) = scatter.plan() else {
            return;
        };
        // SAFETY: the caller's contract, and the pointers checked above.
        let constants = unsafe {
            let k = graph::medium_size(&plan, data.logits);
            self.constants.get(k, &plan)
        };
        let Some(constants) = constants else {
            graph::warn(
                "llama_sampler_scatter_backend_apply: no room on the device for scatter's constants; \
                 this graph leaves the logits unscattered\n",
            );
            return;
        };
        // SAFETY: as above; the constants are for this medium size.
        let gate = unsafe { graph::build(ctx, data, &plan, constants) };
        self.gates.push(gate);
    }

    /// `backend_set_input`: draws each apply's gate from `scatter`'s stream,
    /// in build order, and sets its input.
    ///
    /// # Safety
    /// The graph the applies were added to is allocated and not yet run.
    pub(crate) unsafe fn set_input(&self, scatter: &mut Scatter) {
        for &gate in &self.gates {
            // Ungated, the draw only counts the apply (it always fires).
            let fires = f32::from(u8::from(scatter.draw_gate()));
            if let Some(gate) = gate {
                // SAFETY: the tensor is an input of that graph, one f32,
                // allocated by llama.cpp's scheduler (the caller's contract).
                unsafe {
                    ggml_backend_tensor_set(gate, (&raw const fires).cast(), 0, size_of::<f32>());
                }
            }
        }
    }

    /// `backend_reset`: forgets the inputs of the graph llama.cpp is about
    /// to rebuild.
    pub(crate) fn reset(&mut self) {
        self.gates.clear();
    }
}
