//! Everything that touches llama.cpp's C types.

mod bindings;
mod compat;
#[macro_use]
mod guard;
pub mod init;
pub mod limits;
pub mod stats;
pub mod version;
mod vtable;
