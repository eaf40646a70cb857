//! llama.cpp's backend-sampling hooks (llama.h since early 2026; built only
//! where the header has them, `cfg(llama_backend_sampling)` from build.rs).
//!
//! A chain runs on the backend up to its first sampler whose
//! `backend_init` is missing or returns false; everything from there on
//! runs on the CPU. A disabled scatter therefore answers true and does
//! nothing on the backend, as llama.cpp's own disabled ("empty") samplers
//! do, so that the default chain of the patched tools, which always holds a
//! `?scatter`, keeps temperature and the final draw on the device. An
//! active scatter answers false (its graph is not built yet): the chain
//! falls back to the CPU at scatter, which then runs as everywhere else.
//!
//! llama.cpp asks once per sampler, and a sampler's parameters never change
//! after it is made; `llama_sampler_copy` between samplers of different
//! parameters is outside llama.cpp's contract for chains on the backend
//! ("same type and configuration").

use super::bindings::{
    ggml_backend_buffer_type_t, ggml_cgraph, ggml_context, ggml_tensor, llama_sampler,
    llama_sampler_data,
};
use super::vtable::context;

pub(crate) unsafe extern "C" fn init(
    smpl: *mut llama_sampler,
    _buft: ggml_backend_buffer_type_t,
    _n_outputs_max_per_seq: u32,
) -> bool {
    ffi_guard!(false, {
        // SAFETY: llama.cpp passes a live sampler made with our iface.
        unsafe { context(smpl) }.is_some_and(|s| !s.is_active())
    })
}

/// Called only for a sampler whose `init` returned true: a disabled one.
pub(crate) unsafe extern "C" fn accept(
    _smpl: *mut llama_sampler,
    _ctx: *mut ggml_context,
    _gf: *mut ggml_cgraph,
    _selected_token: *mut ggml_tensor,
) {
}

/// Called only for a disabled sampler: adds nothing to the graph.
pub(crate) unsafe extern "C" fn apply(
    _smpl: *mut llama_sampler,
    _ctx: *mut ggml_context,
    _gf: *mut ggml_cgraph,
    _data: *mut llama_sampler_data,
) {
}

/// A disabled sampler has no inputs to set.
pub(crate) unsafe extern "C" fn set_input(_smpl: *mut llama_sampler) {}
