//! The three constructors: `llama_sampler_init_scatter_params`, and the two
//! positional ones SPEC §3 fixes as thin wrappers of it. Their doc comments
//! become the header's.

use super::bindings::llama_sampler;
use super::iface::new_sampler;
use scatter_core::{Params, Scatter};
use std::ptr;

/// Scatter sampler with every parameter taken from `*params` (copied; the
/// struct may be freed after the call). NULL `params` means the defaults,
/// hence the do-nothing `?scatter` sampler.
///
/// Active only if (`strength > 0` or `adaptive` or absorption is on) and
/// `k > 1`, `radius > 0`, `steps > 0`, `collision > 0` (a NaN never counts
/// as greater than 0); otherwise a noop sampler named `?scatter` that costs
/// nothing. An active one is named `scatter`. `reset` restarts the gate's
/// random stream and clears the absorption history; `clone` continues both.
///
/// `llama_sampler_init_scatter` and `llama_sampler_init_scatter_ext` are
/// this constructor with the struct filled from their arguments, with
/// bit-for-bit the same results.
#[no_mangle]
pub extern "C" fn llama_sampler_init_scatter_params(params: *const Params) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        // SAFETY: the caller passes NULL or a readable llama_scatter_params.
        let params = unsafe { params.as_ref() }
            .copied()
            .unwrap_or(Params::DEFAULT);
        new_sampler(Scatter::new(&params))
    })
}

/// Scatter sampler, fixed diffusion mode.
///
/// Place it after the truncation samplers and before temperature:
/// `penalties -> dry -> top_n_sigma -> top_k -> typ_p -> top_p -> min_p -> xtc -> scatter -> temperature -> dist`.
/// It takes the `k` best finite candidates (the medium), softmaxes them,
/// smooths the probabilities over rank with a row-normalised Gaussian kernel
/// of the given `radius` (`steps` passes), blends the result with the
/// original by `strength`, and writes `logit = ln(max(p, 1e-10))` and `p`
/// back, truncating the array to the medium. The ranking never changes and
/// no token outside the medium gains mass.
///
/// Parameters (SPEC defaults in brackets): `k` [64] medium size;
/// `strength` [0.0] blend, clamped to [0, 1]; `radius` [2.5] in ranks,
/// capped at 16; `steps` [1] diffusion passes, capped at 8.
///
/// Returns a noop sampler named `?scatter` when `strength <= 0`, `k <= 1`,
/// `radius <= 0` or `steps <= 0` (NaN counts as "not > 0"). Otherwise the
/// name is `scatter`. Same as `llama_sampler_init_scatter_ext(k, strength,
/// radius, steps, false, 0.02, 0.30, 0.55, 0.0, 64, 1.0, LLAMA_DEFAULT_SEED)`.
///
/// The result is an ordinary `struct llama_sampler *`: use it with
/// `llama_sampler_apply/accept/reset/clone/free`, or hand it to
/// `llama_sampler_chain_add`, which takes ownership. Every argument gives a
/// sampler; NULL would mean an internal error was caught at the boundary.
#[no_mangle]
pub extern "C" fn llama_sampler_init_scatter(
    k: i32,
    strength: f32,
    radius: f32,
    steps: i32,
) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        new_sampler(Scatter::new(&Params::fixed(k, strength, radius, steps)))
    })
}

/// Scatter sampler with adaptive strength, repeated-token absorption and a
/// seeded collision gate.
///
/// The arguments are the fields of `struct llama_scatter_params`, in its
/// order: see there for what each does, its default and its clamp. New code
/// is clearer with that struct and `llama_sampler_init_scatter_params`,
/// where adjacent floats cannot be swapped silently and presets are one call.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn llama_sampler_init_scatter_ext(
    k: i32,
    strength: f32,
    radius: f32,
    steps: i32,
    adaptive: bool,
    strength_min: f32,
    strength_max: f32,
    entropy_target: f32,
    absorption: f32,
    absorption_last_n: i32,
    collision: f32,
    seed: u32,
) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        let params = Params {
            k,
            strength,
            radius,
            steps,
            adaptive,
            strength_min,
            strength_max,
            entropy_target,
            absorption,
            absorption_last_n,
            collision,
            seed,
        };
        new_sampler(Scatter::new(&params))
    })
}
