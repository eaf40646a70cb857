//! The one `llama_sampler_i` shared by every scatter sampler (llama.cpp
//! compares iface pointers, e.g. in `llama_sampler_copy`), and its callbacks.
//!
//! Ownership: the sampler's `ctx` is a `Box<Sampler>` made here and released
//! by `free`; the `llama_sampler` shell belongs to llama.cpp, which deletes
//! it after calling `free`.

use super::bindings::{
    llama_sampler, llama_sampler_i, llama_token, llama_token_data, llama_token_data_array,
};
use super::compat::llama_sampler_init;
use scatter_core::{Outcome, Scatter, TokenData, NOOP_NAME};
use std::ffi::{c_char, c_void, CStr};
use std::mem::{align_of, offset_of, size_of};
use std::ptr;

// A candidate array is viewed as `&mut [TokenData]` without copying.
const _: () = {
    assert!(size_of::<TokenData>() == size_of::<llama_token_data>());
    assert!(align_of::<TokenData>() == align_of::<llama_token_data>());
    assert!(offset_of!(TokenData, id) == offset_of!(llama_token_data, id));
    assert!(offset_of!(TokenData, logit) == offset_of!(llama_token_data, logit));
    assert!(offset_of!(TokenData, p) == offset_of!(llama_token_data, p));
};

// Newer llama.h versions add backend-sampling hooks and `copy_state` after
// `free` (super::backend). With older headers there is nothing left to
// zero.
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

/// A scatter sampler's `ctx`: the core's sampler, and what the current
/// backend-sampling graph holds of it.
pub(crate) struct Sampler {
    pub(crate) scatter: Scatter,
    #[cfg(llama_backend_sampling)]
    pub(crate) backend: super::backend::Backend,
}

impl Sampler {
    fn new(scatter: Scatter) -> Self {
        Self {
            scatter,
            #[cfg(llama_backend_sampling)]
            backend: Default::default(),
        }
    }

    /// `?scatter`, or `scatter` with llama.cpp's marks of backend sampling
    /// (`+scatter` runs there, `-scatter` sent the chain to the CPU).
    fn name(&self) -> &'static CStr {
        #[cfg(llama_backend_sampling)]
        if self.scatter.is_active() {
            if let Some(name) = self.backend.name() {
                return name;
            }
        }
        self.scatter.name()
    }
}

/// Wraps a sampler state into a llama.cpp sampler (NULL if llama.cpp
/// returns NULL, in which case the state is released here). A new sampler
/// belongs to no graph yet.
pub(crate) fn new_sampler(scatter: Scatter) -> *mut llama_sampler {
    let ctx = Box::into_raw(Box::new(Sampler::new(scatter))).cast::<c_void>();
    // SAFETY: the iface is a static that llama.cpp only reads; ctx is a
    // valid, uniquely owned Box that `free` releases.
    let smpl = unsafe { llama_sampler_init(ptr::addr_of!(SCATTER_I) as _, ctx) };
    if smpl.is_null() {
        // SAFETY: llama.cpp did not take ctx, so it is still ours.
        drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
    }
    smpl
}

/// The state behind `smpl`, or `None` for a NULL sampler or context.
///
/// SAFETY: `smpl` is NULL or a live sampler made by `new_sampler`.
pub(super) unsafe fn context<'a>(smpl: *const llama_sampler) -> Option<&'a Sampler> {
    let smpl = unsafe { smpl.as_ref() }?;
    unsafe { smpl.ctx.cast::<Sampler>().as_ref() }
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

/// Mutable form of [`context`].
///
/// SAFETY: as for [`context`], and nothing else uses the sampler meanwhile
/// (llama.cpp samplers are used from one thread at a time).
pub(super) unsafe fn context_mut<'a>(smpl: *mut llama_sampler) -> Option<&'a mut Sampler> {
    let smpl = unsafe { smpl.as_ref() }?;
    unsafe { smpl.ctx.cast::<Sampler>().as_mut() }
}

unsafe extern "C" fn name(smpl: *const llama_sampler) -> *const c_char {
    // llama.cpp builds a std::string from the name: never NULL.
    ffi_guard!(NOOP_NAME.as_ptr(), {
        // A NULL state is reported as the noop sampler it behaves like.
        match unsafe { context(smpl) } {
            Some(s) => s.name().as_ptr(),
            None => NOOP_NAME.as_ptr(),
        }
    })
}

unsafe extern "C" fn accept(smpl: *mut llama_sampler, token: llama_token) {
    ffi_guard!((), {
        if let Some(s) = unsafe { context_mut(smpl) } {
            s.scatter.accept(token);
        }
    })
}

unsafe extern "C" fn apply(smpl: *mut llama_sampler, cur_p: *mut llama_token_data_array) {
    ffi_guard!((), {
        let (Some(s), Some(arr)) = (unsafe { context_mut(smpl) }, unsafe { cur_p.as_mut() }) else {
            return;
        };
        let candidates: &mut [TokenData] = if arr.data.is_null() || arr.size == 0 {
            &mut []
        } else {
            // SAFETY: llama.cpp's contract: data points to size candidates,
            // and TokenData has llama_token_data's layout (checked above).
            unsafe { std::slice::from_raw_parts_mut(arr.data.cast::<TokenData>(), arr.size) }
        };
        if let Outcome::Rewritten { size } = s.scatter.apply(candidates) {
            arr.size = size;
            arr.sorted = true;
            arr.selected = -1;
        }
    })
}

unsafe extern "C" fn reset(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        if let Some(s) = unsafe { context_mut(smpl) } {
            s.scatter.reset();
        }
    })
}

unsafe extern "C" fn clone(smpl: *const llama_sampler) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        match unsafe { context(smpl) } {
            Some(s) => new_sampler(s.scatter.clone()),
            None => ptr::null_mut(),
        }
    })
}

unsafe extern "C" fn free(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        if let Some(smpl) = unsafe { smpl.as_mut() } {
            let ctx = std::mem::replace(&mut smpl.ctx, ptr::null_mut());
            if !ctx.is_null() {
                // SAFETY: ctx came from Box::into_raw in new_sampler and is
                // released exactly once (the pointer is cleared above).
                drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
            }
        }
    })
}
