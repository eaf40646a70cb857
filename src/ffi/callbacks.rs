//! The CPU callbacks of the scatter sampler's `llama_sampler_i` (the
//! table is in `iface.rs`): name, accept, apply, reset, clone, free.

use super::bindings::{llama_sampler, llama_token, llama_token_data, llama_token_data_array};
use super::sampler::{context, context_mut, release, wrap};
use scatter_core::{Outcome, TokenData, NOOP_NAME};
use std::ffi::c_char;
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

pub(crate) unsafe extern "C" fn name(smpl: *const llama_sampler) -> *const c_char {
    // llama.cpp builds a std::string from the name: never NULL.
    ffi_guard!(NOOP_NAME.as_ptr(), {
        // A NULL state is reported as the noop sampler it behaves like.
        match unsafe { context(smpl) } {
            Some(s) => s.name().as_ptr(),
            None => NOOP_NAME.as_ptr(),
        }
    })
}

pub(crate) unsafe extern "C" fn accept(smpl: *mut llama_sampler, token: llama_token) {
    ffi_guard!((), {
        if let Some(s) = unsafe { context_mut(smpl) } {
            s.scatter.accept(token);
        }
    })
}

pub(crate) unsafe extern "C" fn apply(
    smpl: *mut llama_sampler,
    cur_p: *mut llama_token_data_array,
) {
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

pub(crate) unsafe extern "C" fn reset(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        if let Some(s) = unsafe { context_mut(smpl) } {
            s.scatter.reset();
        }
    })
}

/// A new sampler with the same table (the source's `iface`) and a copy of
/// the source's state.
pub(crate) unsafe extern "C" fn clone(smpl: *const llama_sampler) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        match (unsafe { smpl.as_ref() }, unsafe { context(smpl) }) {
            (Some(shell), Some(s)) => wrap(shell.iface, s.scatter.clone()),
            _ => ptr::null_mut(),
        }
    })
}

pub(crate) unsafe extern "C" fn free(smpl: *mut llama_sampler) {
    ffi_guard!((), { unsafe { release(smpl) } })
}
