//! The two exported constructors. Their doc comments become the header's.

use super::bindings::llama_sampler;
use super::vtable::new_sampler;
use scatter_core::{Params, Scatter};
use std::ptr;

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
/// Presets: subtle (64, 0.12, 2.0, 1); creative (64, 0.18, 2.5, 1).
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
/// - `k`, `strength`, `radius`, `steps`: as in `llama_sampler_init_scatter`.
/// - `adaptive` [false]: the strength follows the medium's normalised
///   entropy H (0 = spike, 1 = uniform) along the line through
///   (0, `strength_max`), (`entropy_target`, `strength`), (1, `strength_min`),
///   clamped to [`strength_min`, `strength_max`]. A confident model is
///   scattered more: risky for code, math, JSON and exact names.
/// - `strength_min` [0.02], `strength_max` [0.30], `entropy_target` [0.55]:
///   clamped to [0, 1]; NaN takes the default; min and max are swapped if
///   min > max.
/// - `absorption` [0.0]: `p_i *= exp(-absorption * c_i)`, c_i = occurrences
///   of the token among the last `absorption_last_n` [64] accepted tokens.
///   Negative counts as 0, capped at 1000; `absorption_last_n <= 0` turns
///   it off; the history keeps at most 65,536 tokens. Keep it low (0.06):
///   strong absorption breaks names, punctuation and formatting.
/// - `collision` [1.0]: per-apply probability that scattering happens,
///   clamped to (0, 1]; when it does not, the candidates are left
///   bit-for-bit untouched. Below 1 a number is drawn from the sampler's own
///   RNG on every apply.
/// - `seed` [LLAMA_DEFAULT_SEED]: seed of that RNG; LLAMA_DEFAULT_SEED picks
///   a random seed (again at every reset). `reset` restarts the stream and
///   clears the history; `clone` continues both.
///
/// Active only if (`strength > 0` or `adaptive` or absorption is on) and
/// `k > 1`, `radius > 0`, `steps > 0`, `collision > 0`; otherwise a noop
/// sampler named `?scatter` that costs nothing.
///
/// Presets: adaptive (64, 0.14, 2.5, 1, true, 0.02, 0.30, 0.55, 0, 64, 1);
/// collision (64, 0.30, 2.5, 1, false, 0.02, 0.30, 0.55, 0, 64, 0.25);
/// adaptive-absorb: adaptive with absorption 0.06, absorption_last_n 64.
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
        new_sampler(Scatter::new(&Params {
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
        }))
    })
}
