//! The parameter struct API: defaults and presets of a `struct
//! llama_scatter_params` (the constructor that takes one is in `sampler.rs`).
//! The struct is scatter-core's `Params` itself (`#[repr(C)]`;
//! cbindgen.toml renames it), so the C and Rust views cannot drift apart.

use scatter_core::params::PRESETS;
use scatter_core::Params;
use std::ffi::{c_char, CStr};
use std::ptr;

/// The SPEC defaults: every field as documented above, seed
/// LLAMA_DEFAULT_SEED. A sampler made from them is the do-nothing
/// `?scatter`.
#[no_mangle]
pub extern "C" fn llama_scatter_default_params() -> Params {
    ffi_guard!(Params::DEFAULT, { Params::DEFAULT })
}

/// Writes the preset called `name` ("subtle", "creative", "adaptive",
/// "collision", "adaptive-absorb") to `*out` and returns true. A preset sets
/// every field: those it does not name take their defaults, the seed
/// included. Returns false and leaves `*out` untouched for an unknown name or
/// a NULL argument.
#[no_mangle]
pub extern "C" fn llama_scatter_preset_params(name: *const c_char, out: *mut Params) -> bool {
    ffi_guard!(false, {
        if name.is_null() {
            return false;
        }
        // SAFETY: the caller passes NULL (checked) or a NUL-terminated string.
        let name = unsafe { CStr::from_ptr(name) };
        let preset = name.to_str().ok().and_then(Params::preset);
        // SAFETY: the caller passes NULL or a writable llama_scatter_params.
        let (Some(preset), Some(out)) = (preset, unsafe { out.as_mut() }) else {
            return false;
        };
        *out = preset;
        true
    })
}

/// Name of the `i`-th preset (0-based), a static string; NULL past the last.
/// Lists the names `llama_scatter_preset_params` takes:
/// `for (size_t i = 0; llama_scatter_preset_name(i); i++)`.
#[no_mangle]
pub extern "C" fn llama_scatter_preset_name(i: usize) -> *const c_char {
    ffi_guard!(ptr::null(), {
        PRESETS.get(i).map_or(ptr::null(), |p| p.name.as_ptr())
    })
}

/// Whether a sampler made from `*params` scatters (is named `scatter`)
/// rather than being the do-nothing `?scatter`; false for NULL. For callers
/// that must know whether scatter will run before they make one, e.g. to
/// put an enabled scatter into a sampler list that lacks it.
#[no_mangle]
pub extern "C" fn llama_scatter_params_enabled(params: *const Params) -> bool {
    ffi_guard!(false, {
        // SAFETY: the caller passes NULL or a readable llama_scatter_params.
        unsafe { params.as_ref() }.is_some_and(Params::enabled)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_name_gives_its_preset_and_unknown_names_touch_nothing() {
        let mut i = 0;
        while !llama_scatter_preset_name(i).is_null() {
            let name = llama_scatter_preset_name(i);
            let mut out = Params::DEFAULT;
            assert!(llama_scatter_preset_params(name, &mut out));
            assert_eq!(out, PRESETS[i].params);
            i += 1;
        }
        assert_eq!(i, PRESETS.len());
        let sentinel = Params {
            k: -7,
            ..Params::DEFAULT
        };
        for bad in [c"", c"Creative", c"creative ", c"none"] {
            let mut out = sentinel;
            assert!(!llama_scatter_preset_params(bad.as_ptr(), &mut out));
            assert_eq!(out, sentinel);
        }
        let mut out = sentinel;
        assert!(!llama_scatter_preset_params(ptr::null(), &mut out));
        assert_eq!(out, sentinel);
        assert!(!llama_scatter_preset_params(
            c"creative".as_ptr(),
            ptr::null_mut()
        ));
    }
}
