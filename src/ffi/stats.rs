//! `llama_sampler_scatter_stats`: what a scatter sampler did, for tuning and
//! evaluation (the adaptive strength and the collision gate are otherwise
//! invisible from outside).

use super::bindings::llama_sampler;
use super::iface::checked_context;

/// Counters of a scatter sampler since it was made or last reset.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct llama_scatter_stats {
    /// Calls of apply.
    pub n_apply: u64,
    /// Applies on which the collision gate fired (every apply at collision 1).
    pub n_fired: u64,
    /// Applies that rewrote the candidates (the gate fired and there were at
    /// least two finite candidates and no forced token). Not counted for
    /// applies on llama.cpp's backend (backend sampling, `+scatter`), which
    /// happen in the graph; `n_apply` and `n_fired` are.
    pub n_scattered: u64,
    /// Sum of the strength those rewrites used (the adaptive strength in
    /// adaptive mode): `strength_sum / n_scattered` is the mean strength.
    pub strength_sum: f64,
}

/// Reads the counters of a scatter sampler into `*out`.
///
/// Returns false, and zeroes `*out`, when `smpl` is NULL or not a scatter
/// sampler (find it in a chain with `llama_sampler_chain_get`); a disabled
/// (`?scatter`) sampler returns true with all counters 0. `out` may not be
/// NULL (then nothing is written and false is returned). `clone` copies the
/// counters; `reset` clears them.
#[no_mangle]
pub extern "C" fn llama_sampler_scatter_stats(
    smpl: *const llama_sampler,
    out: *mut llama_scatter_stats,
) -> bool {
    ffi_guard!(false, {
        // SAFETY: the caller passes NULL or a writable llama_scatter_stats.
        let Some(out) = (unsafe { out.as_mut() }) else {
            return false;
        };
        // SAFETY: the caller passes NULL or a live llama.cpp sampler.
        let Some(state) = (unsafe { checked_context(smpl) }) else {
            *out = llama_scatter_stats::default();
            return false;
        };
        let s = state.scatter.stats();
        *out = llama_scatter_stats {
            n_apply: s.applies,
            n_fired: s.fired,
            n_scattered: s.scattered,
            strength_sum: s.strength_sum,
        };
        true
    })
}
