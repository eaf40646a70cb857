//! llama.cpp's backend-sampling hooks (built only
//! where the header has them, `cfg(llama_backend_sampling)` from build.rs).
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

pub(crate) mod constants;
mod graph;

use super::bindings::{
    ggml_backend_buffer_type_t, ggml_backend_tensor_set, ggml_cgraph, ggml_context, llama_sampler,
    llama_sampler_data,
};
use super::sampler::{context, context_mut};

pub(crate) unsafe extern "C" fn init(
    smpl: *mut llama_sampler,
    buft: ggml_backend_buffer_type_t,
    n_outputs_max_per_seq: u32,
) -> bool {
    ffi_guard!(false, {
        // SAFETY: llama.cpp passes a live sampler made with our iface.
        let Some(s) = (unsafe { context_mut(smpl) }) else {
            return false;
        };
        if !s.scatter.is_active() {
            return true;
        }
        s.backend.constants.reset(buft);
        let runs = s.scatter.plan().is_some_and(|plan| {
            plan.k <= graph::MAX_MEDIUM
                && !(plan.gated && n_outputs_max_per_seq > 1)
                // SAFETY: llama.cpp passes the buffer type of its sampling graph.
                && unsafe { graph::supported(&plan, buft) }
        });
        s.backend.runs = Some(runs);
        runs
    })
}

/// Appends one apply to the graph, for a sampler whose `init` answered
/// true; a disabled one adds nothing.
pub(crate) unsafe extern "C" fn apply(
    smpl: *mut llama_sampler,
    ctx: *mut ggml_context,
    _gf: *mut ggml_cgraph,
    data: *mut llama_sampler_data,
) {
    ffi_guard!((), {
        // SAFETY: llama.cpp passes a live sampler, its graph context and
        // the data of one output row.
        let (Some(s), Some(data)) = (unsafe { context_mut(smpl) }, unsafe { data.as_mut() }) else {
            return;
        };
        if ctx.is_null() || data.logits.is_null() || s.backend.runs != Some(true) {
            return;
        }
        let Some(plan) = s.scatter.plan() else {
            return;
        };
        // SAFETY: checked above; the tensors are llama.cpp's, the buffer
        // type the one `init` was given.
        let constants = unsafe {
            let k = graph::medium_size(&plan, data.logits);
            s.backend.constants.get(k, plan.radius)
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
        s.backend.gates.push(gate);
    })
}

/// Draws each apply's gate, in build order, and sets its input.
pub(crate) unsafe extern "C" fn set_input(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        // SAFETY: llama.cpp passes a live sampler made with our iface.
        let Some(s) = (unsafe { context_mut(smpl) }) else {
            return;
        };
        for &gate in &s.backend.gates {
            // Ungated, the draw only counts the apply (it always fires).
            let fires = f32::from(u8::from(s.scatter.draw_gate()));
            if let Some(gate) = gate {
                // SAFETY: the tensor is an input of the graph being run,
                // one f32, allocated by llama.cpp's scheduler before this call.
                unsafe {
                    ggml_backend_tensor_set(gate, (&raw const fires).cast(), 0, size_of::<f32>());
                }
            }
        }
    })
}

/// Forgets the inputs of the graph llama.cpp is about to rebuild.
pub(crate) unsafe extern "C" fn reset(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        // SAFETY: llama.cpp passes a live sampler made with our iface.
        if let Some(s) = unsafe { context_mut(smpl) } {
            s.backend.gates.clear();
        }
    })
}

/// `llama_sampler_copy`: src's parameters, history, RNG and stats into
/// dst, whose graph inputs stay its own.
pub(crate) unsafe extern "C" fn copy_state(src: *const llama_sampler, dst: *mut llama_sampler) {
    ffi_guard!((), {
        // SAFETY: llama.cpp passes two live samplers of our iface, src != dst.
        if let (Some(src), Some(dst)) = (unsafe { context(src) }, unsafe { context_mut(dst) }) {
            dst.scatter = src.scatter.clone();
        }
    })
}
