//! Made from scatter-core/src/fields.rs by scatter-core/src/made.rs (cargo xtask made): edit those, not this file.
//!
//! The caps the sampler clamps to, one per capped field, for C: the header's
//! `LLAMA_SCATTER_MAX_<FIELD>` macros.

/// Largest `strength` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_STRENGTH: f32 = 1.0;

/// Largest `radius` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_RADIUS: f32 = 16.0;

/// Largest `steps` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_STEPS: i32 = 8;

/// Largest `strength_min` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_STRENGTH_MIN: f32 = 1.0;

/// Largest `strength_max` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_STRENGTH_MAX: f32 = 1.0;

/// Largest `entropy_target` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_ENTROPY_TARGET: f32 = 1.0;

/// Largest `absorption` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_ABSORPTION: f32 = 1000.0;

/// Largest `absorption_last_n` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_ABSORPTION_LAST_N: i32 = 65536;

/// Largest `collision` the sampler uses; larger values are clamped to it.
pub const LLAMA_SCATTER_MAX_COLLISION: f32 = 1.0;
