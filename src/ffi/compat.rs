//! The one place where llama.cpp versions differ for us beyond what bindgen
//! absorbs: creating the `llama_sampler` shell.
//!
//! - llama.h of llama-cpp-python 0.3.16 on has `llama_sampler_init(iface, ctx)`
//!   (its `iface` argument is `const` in some trees; the caller casts).
//! - llama.h of llama-cpp-python 0.3.2 has none: the caller
//!   allocates the shell with C++ `new`, since `llama_sampler_free` uses
//!   `delete`. build.rs then sets `cfg(llama_no_sampler_init)` and compiles
//!   `compat/sampler_init.cpp`, whose function we call instead.
//!
//! Everything else (the 6- or 12-member `llama_sampler_i`, `const` or not)
//! is bindgen's output for the llama.h at hand.

#[cfg(not(llama_no_sampler_init))]
pub(crate) use super::bindings::llama_sampler_init;

#[cfg(llama_no_sampler_init)]
pub(crate) use self::shim::llama_scatter_compat_sampler_init as llama_sampler_init;

#[cfg(llama_no_sampler_init)]
mod shim {
    use super::super::bindings::{llama_sampler, llama_sampler_context_t, llama_sampler_i};

    extern "C" {
        pub(crate) fn llama_scatter_compat_sampler_init(
            iface: *mut llama_sampler_i,
            ctx: llama_sampler_context_t,
        ) -> *mut llama_sampler;
    }
}
