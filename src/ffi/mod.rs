//! Everything that touches llama.cpp's C types, in layers that only look
//! down: `bindings` and `compat` (llama.h as bindgen reads it), `guard` (no
//! panic crosses into C), the free functions of the API (`params`,
//! `limits`, `version`), then the sampler (`sampler`, one C type and all
//! of its functions), whose graph for llama.cpp's backend sampling is
//! `backend`'s.
//!
//! The entry points check every pointer they are given (see the crate doc).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod bindings;
mod compat;
#[macro_use]
mod guard;
#[cfg(llama_backend_sampling)]
mod backend;
// The sampler before the free functions: its constructors open the header.
pub mod sampler;

pub mod limits;
pub mod params;
pub mod version;
// apply's dispatch (the sampler's apply calls it) and `llama_scatter_kernels`.
pub mod kernels;
