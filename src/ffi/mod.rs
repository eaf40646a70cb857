//! Everything that touches llama.cpp's C types.

mod bindings;
#[macro_use]
mod guard;
pub mod init;
pub mod limits;
mod vtable;
