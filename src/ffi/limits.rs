//! The parameter caps of `scatter_core`, exported to the header as macros so
//! front ends (the llama.cpp patches' `--scatter-*` flags and llama-server
//! fields) validate against the same numbers the library clamps to.
//! cbindgen needs literals here; a test keeps them equal to the core's.

/// Largest `radius` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_RADIUS: f32 = 16.0;

/// Largest `steps` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_STEPS: i32 = 8;

/// Largest `absorption` the sampler uses; larger values are capped to it.
pub const LLAMA_SCATTER_MAX_ABSORPTION: f32 = 1000.0;

/// Largest `absorption_last_n` (history window) the sampler keeps.
pub const LLAMA_SCATTER_MAX_ABSORPTION_LAST_N: i32 = 65_536;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_caps_equal_the_core_caps() {
        assert_eq!(
            f64::from(LLAMA_SCATTER_MAX_RADIUS),
            scatter_core::params::MAX_RADIUS
        );
        assert_eq!(
            LLAMA_SCATTER_MAX_STEPS as u32,
            scatter_core::params::MAX_STEPS
        );
        assert_eq!(
            f64::from(LLAMA_SCATTER_MAX_ABSORPTION),
            scatter_core::params::MAX_ABSORPTION
        );
        assert_eq!(
            LLAMA_SCATTER_MAX_ABSORPTION_LAST_N as usize,
            scatter_core::params::HISTORY_CAPACITY
        );
    }
}
