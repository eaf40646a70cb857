//! The one `llama_sampler_i` shared by every scatter sampler (llama.cpp
//! compares iface pointers, e.g. in `llama_sampler_copy`): the CPU
//! callbacks of `callbacks.rs` and, where llama.h has them, the backend
//! hooks of `backend/`. The constructors (`init.rs`) make samplers with it.

use super::bindings::{llama_sampler, llama_sampler_i};
use super::callbacks::{accept, apply, clone, free, name, reset};
use super::sampler::{context, wrap, Sampler};
use scatter_core::Scatter;
use std::ptr;

// Newer llama.h versions add backend-sampling hooks and `copy_state` after
// `free`. With older headers there is nothing left to zero.
#[allow(clippy::needless_update)]
static SCATTER_I: llama_sampler_i = llama_sampler_i {
    name: Some(name),
    accept: Some(accept),
    apply: Some(apply),
    reset: Some(reset),
    clone: Some(clone),
    free: Some(free),
    #[cfg(llama_backend_sampling)]
    backend_init: Some(super::backend::init),
    // No backend_accept, as for llama.cpp's own samplers: the history that
    // absorption needs is kept by the CPU `accept`, which llama.cpp calls for
    // every token either way (the zeroed rest below leaves it NULL).
    #[cfg(llama_backend_sampling)]
    backend_apply: Some(super::backend::apply),
    #[cfg(llama_backend_sampling)]
    backend_set_input: Some(super::backend::set_input),
    #[cfg(llama_backend_sampling)]
    backend_reset: Some(super::backend::reset),
    #[cfg(llama_backend_sampling)]
    copy_state: Some(super::backend::copy_state),
    // SAFETY: every remaining member is an optional function pointer, for
    // which all-zero bytes are `None`.
    ..unsafe { std::mem::zeroed() }
};

/// A new scatter sampler with this table.
pub(crate) fn new_sampler(scatter: Scatter) -> *mut llama_sampler {
    wrap(ptr::addr_of!(SCATTER_I), scatter)
}

/// The state behind `smpl` if it is a scatter sampler (its iface is ours);
/// `None` for NULL or any other sampler.
///
/// SAFETY: `smpl` is NULL or a live llama.cpp sampler.
pub(crate) unsafe fn checked_context<'a>(smpl: *const llama_sampler) -> Option<&'a Sampler> {
    let shell = unsafe { smpl.as_ref() }?;
    if !ptr::eq(shell.iface, ptr::addr_of!(SCATTER_I)) {
        return None;
    }
    unsafe { context(smpl) }
}
