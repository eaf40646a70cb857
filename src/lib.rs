//! C ABI of the scatter sampler for llama.cpp: `llama_sampler_init_scatter`
//! and `llama_sampler_init_scatter_ext` (header `include/llama-scatter.h`).
//!
//! The math lives in the safe crate `scatter_core`; this crate is the thin
//! boundary to llama.cpp and the only place with `unsafe`. Every entry point
//! checks its pointers and catches panics, so none crosses into C.

mod ffi;

pub use ffi::init::{llama_sampler_init_scatter, llama_sampler_init_scatter_ext};
pub use ffi::limits::{
    LLAMA_SCATTER_MAX_ABSORPTION, LLAMA_SCATTER_MAX_ABSORPTION_LAST_N, LLAMA_SCATTER_MAX_RADIUS,
    LLAMA_SCATTER_MAX_STEPS,
};
pub use ffi::stats::{llama_sampler_scatter_stats, llama_scatter_stats};
pub use ffi::version::{
    llama_scatter_version, LLAMA_SCATTER_VERSION_MAJOR, LLAMA_SCATTER_VERSION_MINOR,
    LLAMA_SCATTER_VERSION_PATCH,
};
