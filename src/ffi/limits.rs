//! The parameter caps of `scatter_core`, exported to the header as macros so
//! front ends (the llama.cpp patches' `--scatter-*` flags and llama-server
//! fields) validate against the same numbers the library clamps to.
//! cbindgen needs literals here; a compile-time assertion keeps them equal to the core's.

/// Largest `radius` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_RADIUS: f32 = 16.0;

/// Largest `steps` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_STEPS: i32 = 8;

/// Largest `absorption` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_ABSORPTION: f32 = 1000.0;

/// Largest `absorption_last_n` (history window) the sampler keeps.
pub const LLAMA_SCATTER_MAX_ABSORPTION_LAST_N: i32 = 65_536;

// The caps are the core's; these literals only restate them for cbindgen, and a literal that
// drifts from the core is a compile error.
const _: () = {
    use scatter_core::params;
    assert!(LLAMA_SCATTER_MAX_RADIUS as f64 == params::MAX_RADIUS);
    assert!(LLAMA_SCATTER_MAX_STEPS as u32 == params::MAX_STEPS);
    assert!(LLAMA_SCATTER_MAX_ABSORPTION as f64 == params::MAX_ABSORPTION);
    assert!(LLAMA_SCATTER_MAX_ABSORPTION_LAST_N as usize == params::HISTORY_CAPACITY);
};
