//! C ABI of the scatter sampler for llama.cpp (header
//! `include/llama-scatter.h`): the constructors `llama_sampler_init_scatter`,
//! `_ext` and `_params`, the parameter struct with its defaults and presets,
//! `llama_sampler_scatter_stats`, the caps and the version.
//!
//! The math lives in the safe crate `scatter_core`; this crate is the thin
//! boundary to llama.cpp and the only place with `unsafe`. Every entry point
//! checks its pointers and catches panics, so none crosses into C.
//!
//! The exported functions take raw pointers but are not `unsafe fn`, as in
//! rustls-ffi: each checks its pointers itself, and the C header carries no
//! Rust `# Safety` sections.

#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod ffi;

pub use ffi::kernels::llama_scatter_kernels;
pub use ffi::limits::*;
pub use ffi::params::{
    llama_scatter_default_params, llama_scatter_params_enabled, llama_scatter_preset_name,
    llama_scatter_preset_params,
};
pub use ffi::sampler::{
    llama_sampler_init_scatter, llama_sampler_init_scatter_ext, llama_sampler_init_scatter_params,
    llama_sampler_scatter_stats, llama_scatter_stats,
};
pub use ffi::version::{
    llama_scatter_version, LLAMA_SCATTER_VERSION_MAJOR, LLAMA_SCATTER_VERSION_MINOR,
    LLAMA_SCATTER_VERSION_PATCH,
};
