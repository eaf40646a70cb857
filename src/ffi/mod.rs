//! Everything that touches llama.cpp's C types.
//!
//! The entry points check every pointer they are given (see the crate doc).
#![allow(clippy::not_unsafe_ptr_arg_deref)]

mod bindings;
mod compat;
#[macro_use]
mod guard;
#[cfg(llama_backend_sampling)]
mod backend;
mod callbacks;
mod iface;
pub mod init;
pub mod limits;
pub mod params;
mod sampler;
pub mod stats;
pub mod version;
