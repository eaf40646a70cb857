//! The C type behind every scatter sampler: the `ctx` of its
//! `llama_sampler`, and the only code that turns a `llama_sampler *` back
//! into it. A leaf: the callbacks (`callbacks.rs`, `backend/`) and the
//! table that wires them (`iface.rs`) build on it, never it on them (it
//! holds the backend graph's constants, `backend/constants.rs`, a leaf
//! of its own).
//!
//! Ownership: `wrap` makes the `ctx` with `Box::into_raw`; the `free`
//! callback releases it; the `llama_sampler` shell belongs to llama.cpp,
//! which deletes it after calling `free`.

use super::bindings::{llama_sampler, llama_sampler_i};
use super::compat::llama_sampler_init;
use scatter_core::Scatter;
use std::ffi::{c_void, CStr};

/// A scatter sampler's `ctx`: the core's sampler, and what the current
/// backend-sampling graph holds of it.
pub(crate) struct Sampler {
    pub(crate) scatter: Scatter,
    #[cfg(llama_backend_sampling)]
    pub(crate) backend: Backend,
}

/// What the sampling graph of the moment holds of a sampler (`backend/`).
#[cfg(llama_backend_sampling)]
#[derive(Default)]
pub(crate) struct Backend {
    /// `backend_init`'s answer for an active sampler; `None` before.
    pub(crate) runs: Option<bool>,
    /// Each apply in the current graph, in build order, with its gate
    /// input where the plan is gated.
    pub(crate) gates: Vec<Option<*mut super::bindings::ggml_tensor>>,
    /// The graph's constants, on the device of the graph.
    pub(crate) constants: super::backend::constants::Store,
}

impl Sampler {
    /// `?scatter`, or `scatter` with llama.cpp's marks of backend sampling
    /// (`+scatter` runs there, `-scatter` sent the chain to the CPU, as
    /// llama.cpp names its own samplers once asked: `+top-k`, `-dist`).
    pub(crate) fn name(&self) -> &'static CStr {
        #[cfg(llama_backend_sampling)]
        if let (true, Some(runs)) = (self.scatter.is_active(), self.backend.runs) {
            return if runs { c"+scatter" } else { c"-scatter" };
        }
        self.scatter.name()
    }
}

/// Wraps a sampler state into a llama.cpp sampler with `iface` (NULL if
/// llama.cpp returns NULL, in which case the state is released here). A
/// new sampler belongs to no graph yet.
pub(crate) fn wrap(iface: *const llama_sampler_i, scatter: Scatter) -> *mut llama_sampler {
    let ctx = Box::into_raw(Box::new(Sampler {
        scatter,
        #[cfg(llama_backend_sampling)]
        backend: Backend::default(),
    }))
    .cast::<c_void>();
    // SAFETY: iface is the static table of iface.rs, which llama.cpp only
    // reads; ctx is a valid, uniquely owned Box that `free` releases.
    let smpl = unsafe { llama_sampler_init(iface as _, ctx) };
    if smpl.is_null() {
        // SAFETY: llama.cpp did not take ctx, so it is still ours.
        drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
    }
    smpl
}

/// The state behind `smpl`, or `None` for a NULL sampler or context.
///
/// SAFETY: `smpl` is NULL or a live sampler made by [`wrap`].
pub(crate) unsafe fn context<'a>(smpl: *const llama_sampler) -> Option<&'a Sampler> {
    let smpl = unsafe { smpl.as_ref() }?;
    unsafe { smpl.ctx.cast::<Sampler>().as_ref() }
}

/// Mutable form of [`context`].
///
/// SAFETY: as for [`context`], and nothing else uses the sampler meanwhile
/// (llama.cpp samplers are used from one thread at a time).
pub(crate) unsafe fn context_mut<'a>(smpl: *mut llama_sampler) -> Option<&'a mut Sampler> {
    let smpl = unsafe { smpl.as_ref() }?;
    unsafe { smpl.ctx.cast::<Sampler>().as_mut() }
}

/// Releases the state of `smpl` and clears its `ctx`, so that a second
/// call finds nothing to release.
///
/// SAFETY: `smpl` is NULL or a live sampler made by [`wrap`].
pub(crate) unsafe fn release(smpl: *mut llama_sampler) {
    if let Some(smpl) = unsafe { smpl.as_mut() } {
        let ctx = std::mem::replace(&mut smpl.ctx, std::ptr::null_mut());
        if !ctx.is_null() {
            // SAFETY: ctx came from Box::into_raw in wrap and is released
            // exactly once (the pointer is cleared above).
            drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
        }
    }
}
