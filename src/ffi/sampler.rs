//! The scatter `llama_sampler`, as one C type with all of its functions:
//! its context ([`Sampler`]), the constructors
//! (`llama_sampler_init_scatter`, `_ext`, `_params`), the callbacks of its
//! one `llama_sampler_i` table (name, accept, apply, reset, clone, free and,
//! where llama.h has them, the backend-sampling hooks, whose graph is
//! `backend/`'s), and `llama_sampler_scatter_stats`.
//!
//! Ownership: [`wrap`] makes the context with `Box::into_raw`; the `free`
//! callback releases it; the `llama_sampler` shell belongs to llama.cpp,
//! which deletes it after calling `free`.

#[cfg(llama_backend_sampling)]
use super::backend;
#[cfg(llama_backend_sampling)]
use super::bindings::{ggml_backend_buffer_type_t, ggml_cgraph, ggml_context, llama_sampler_data};
use super::bindings::{
    llama_sampler, llama_sampler_i, llama_token, llama_token_data, llama_token_data_array,
};
use super::compat::llama_sampler_init;
use super::kernels;
use scatter_core::{Outcome, Params, Scatter, TokenData, NOOP_NAME};
use std::ffi::{c_char, c_void, CStr};
use std::mem::{align_of, offset_of, size_of};
use std::ptr;

// A candidate array is viewed as `&mut [TokenData]` without copying.
const _: () = {
    assert!(size_of::<TokenData>() == size_of::<llama_token_data>());
    assert!(align_of::<TokenData>() == align_of::<llama_token_data>());
    assert!(offset_of!(TokenData, id) == offset_of!(llama_token_data, id));
    assert!(offset_of!(TokenData, logit) == offset_of!(llama_token_data, logit));
    assert!(offset_of!(TokenData, p) == offset_of!(llama_token_data, p));
};

/// A scatter sampler's `ctx`: the core's sampler, and what the current
/// backend-sampling graph holds of it.
pub(crate) struct Sampler {
    scatter: Scatter,
    #[cfg(llama_backend_sampling)]
    backend: backend::State,
}

impl Sampler {
    /// `?scatter`, or `scatter` with llama.cpp's marks of backend sampling
    /// (`+scatter` runs there, `-scatter` sent the chain to the CPU, as
    /// llama.cpp names its own samplers once asked: `+top-k`, `-dist`).
    fn name(&self) -> &'static CStr {
        #[cfg(llama_backend_sampling)]
        if let (true, Some(runs)) = (self.scatter.is_active(), self.backend.runs()) {
            return if runs { c"+scatter" } else { c"-scatter" };
        }
        self.scatter.name()
    }

    /// The context behind `smpl`, or `None` for a NULL sampler or context.
    ///
    /// # Safety
    /// `smpl` is NULL or a live sampler made by [`wrap`].
    unsafe fn from_ptr<'a>(smpl: *const llama_sampler) -> Option<&'a Self> {
        // SAFETY: the caller's contract: NULL or a live sampler, whose ctx
        // is NULL (released) or the Box that `wrap` made.
        unsafe { smpl.as_ref()?.ctx.cast::<Self>().as_ref() }
    }

    /// Mutable form of [`Self::from_ptr`].
    ///
    /// # Safety
    /// As for [`Self::from_ptr`], and nothing else uses the sampler
    /// meanwhile (llama.cpp uses a sampler from one thread at a time).
    unsafe fn from_ptr_mut<'a>(smpl: *mut llama_sampler) -> Option<&'a mut Self> {
        // SAFETY: as in `from_ptr`; exclusive by the caller's contract.
        unsafe { smpl.as_ref()?.ctx.cast::<Self>().as_mut() }
    }
}

/// The context behind a sampler pointer a callback of [`SCATTER_I`] was
/// given (`ref` or `mut`), or `return $fallback` (nothing, if omitted) from
/// the callback's body for NULL, which then behaves as the noop sampler.
/// Only for those callbacks: llama.cpp calls a table's functions with the
/// samplers made with that table, from one thread at a time.
macro_rules! try_from_ptr {
    (ref $smpl:expr $(, $fallback:expr)?) => {
        try_from_ptr!(@from_ptr $smpl $(, $fallback)?)
    };
    (mut $smpl:expr $(, $fallback:expr)?) => {
        try_from_ptr!(@from_ptr_mut $smpl $(, $fallback)?)
    };
    (@$from:ident $smpl:expr $(, $fallback:expr)?) => {
        // SAFETY: a callback of SCATTER_I gets NULL or a live sampler of
        // that table, which `wrap` made, and never while another thread
        // uses it.
        match unsafe { Sampler::$from($smpl) } {
            Some(s) => s,
            None => return $($fallback)?,
        }
    };
}

/// Wraps a sampler state into a llama.cpp sampler with our table (NULL if
/// llama.cpp returns NULL, in which case the state is released here). A
/// new sampler belongs to no graph yet.
fn wrap(scatter: Scatter) -> *mut llama_sampler {
    let ctx = Box::into_raw(Box::new(Sampler {
        scatter,
        #[cfg(llama_backend_sampling)]
        backend: backend::State::default(),
    }))
    .cast::<c_void>();
    // SAFETY: the table is static and llama.cpp only reads it (older
    // llama.h declare the argument mutable, hence the cast); ctx is a
    // valid, uniquely owned Box that `free` releases.
    let smpl = unsafe { llama_sampler_init(ptr::addr_of!(SCATTER_I) as _, ctx) };
    if smpl.is_null() {
        // SAFETY: llama.cpp did not take ctx, so it is still ours.
        drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
    }
    smpl
}

// ---------------------------------------------------------------- constructors

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
        wrap(Scatter::new(&params))
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
/// The arguments are the fields of `struct llama_scatter_params` of the
/// same names (see there for their defaults and clamps): `k` medium size,
/// `strength` blend, `radius` in ranks, `steps` diffusion passes; every other
/// field keeps its default.
///
/// Returns a noop sampler named `?scatter` when `strength <= 0`, `k <= 1`,
/// `radius <= 0` or `steps <= 0` (NaN counts as "not > 0"). Otherwise the
/// name is `scatter`. Same as `llama_sampler_init_scatter_params` with these
/// four fields set over `llama_scatter_default_params()`.
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
        wrap(Scatter::new(&Params::fixed(k, strength, radius, steps)))
    })
}

/// Scatter sampler with adaptive strength, repeated-token absorption and a
/// seeded collision gate.
///
/// The arguments are the fields of `struct llama_scatter_params`, in its
/// order: see there for what each does, its default and its clamp. SPEC §3
/// fixes this signature: a field the struct gains later keeps its default
/// here. New code
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
        // Every field the signature has, today all of them; one added later keeps its default.
        #[allow(clippy::needless_update)]
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
            ..Params::DEFAULT
        };
        wrap(Scatter::new(&params))
    })
}

// ------------------------------------------------------------------- the table

// Newer llama.h versions add backend-sampling hooks and `copy_state` after
// `free`. With older headers there is nothing left to zero.
/// The one table of every scatter sampler: llama.cpp compares table
/// pointers (`llama_sampler_copy`), and `llama_sampler_scatter_stats` knows
/// a scatter sampler by it.
#[allow(clippy::needless_update)]
static SCATTER_I: llama_sampler_i = llama_sampler_i {
    name: Some(name),
    accept: Some(accept),
    apply: Some(apply),
    reset: Some(reset),
    clone: Some(clone),
    free: Some(free),
    #[cfg(llama_backend_sampling)]
    backend_init: Some(backend_init),
    // No backend_accept, as for llama.cpp's own samplers: the history that
    // absorption needs is kept by the CPU `accept`, which llama.cpp calls for
    // every token either way (the zeroed rest below leaves it NULL).
    #[cfg(llama_backend_sampling)]
    backend_apply: Some(backend_apply),
    #[cfg(llama_backend_sampling)]
    backend_set_input: Some(backend_set_input),
    #[cfg(llama_backend_sampling)]
    backend_reset: Some(backend_reset),
    #[cfg(llama_backend_sampling)]
    copy_state: Some(copy_state),
    // SAFETY: every remaining member is an optional function pointer, for
    // which all-zero bytes are `None`.
    ..unsafe { std::mem::zeroed() }
};

// --------------------------------------------------------------- CPU callbacks

unsafe extern "C" fn name(smpl: *const llama_sampler) -> *const c_char {
    // llama.cpp builds a std::string from the name: never NULL. A NULL
    // state is reported as the noop sampler it behaves like.
    ffi_guard!(NOOP_NAME.as_ptr(), {
        try_from_ptr!(ref smpl, NOOP_NAME.as_ptr()).name().as_ptr()
    })
}

unsafe extern "C" fn accept(smpl: *mut llama_sampler, token: llama_token) {
    ffi_guard!((), { try_from_ptr!(mut smpl).scatter.accept(token) })
}

unsafe extern "C" fn apply(smpl: *mut llama_sampler, cur_p: *mut llama_token_data_array) {
    ffi_guard!((), {
        let s = try_from_ptr!(mut smpl);
        // SAFETY: llama.cpp passes NULL or its live candidate array.
        let Some(arr) = (unsafe { cur_p.as_mut() }) else {
            return;
        };
        let candidates: &mut [TokenData] = if arr.data.is_null() || arr.size == 0 {
            &mut []
        } else {
            // SAFETY: llama.cpp's contract: data points to size candidates,
            // and TokenData has llama_token_data's layout (checked above).
            unsafe { std::slice::from_raw_parts_mut(arr.data.cast::<TokenData>(), arr.size) }
        };
        if let Outcome::Rewritten { size } = kernels::apply(&mut s.scatter, candidates) {
            arr.size = size;
            arr.sorted = true;
            arr.selected = -1;
        }
    })
}

unsafe extern "C" fn reset(smpl: *mut llama_sampler) {
    ffi_guard!((), { try_from_ptr!(mut smpl).scatter.reset() })
}

/// A new sampler with a copy of the source's state.
unsafe extern "C" fn clone(smpl: *const llama_sampler) -> *mut llama_sampler {
    ffi_guard!(ptr::null_mut(), {
        wrap(try_from_ptr!(ref smpl, ptr::null_mut()).scatter.clone())
    })
}

/// Releases the context and clears `ctx`, so that a second call finds
/// nothing to release.
unsafe extern "C" fn free(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        // SAFETY: llama.cpp passes NULL or a live sampler of SCATTER_I.
        let Some(shell) = (unsafe { smpl.as_mut() }) else {
            return;
        };
        let ctx = std::mem::replace(&mut shell.ctx, ptr::null_mut());
        if !ctx.is_null() {
            // SAFETY: ctx came from Box::into_raw in `wrap` and is released
            // exactly once (the pointer is cleared above).
            drop(unsafe { Box::from_raw(ctx.cast::<Sampler>()) });
        }
    })
}

// ------------------------------------------------------ backend-sampling hooks

#[cfg(llama_backend_sampling)]
unsafe extern "C" fn backend_init(
    smpl: *mut llama_sampler,
    buft: ggml_backend_buffer_type_t,
    n_outputs_max_per_seq: u32,
) -> bool {
    ffi_guard!(false, {
        let s = try_from_ptr!(mut smpl, false);
        // SAFETY: llama.cpp passes the buffer type of its sampling graph.
        unsafe { s.backend.init(&s.scatter, buft, n_outputs_max_per_seq) }
    })
}

#[cfg(llama_backend_sampling)]
unsafe extern "C" fn backend_apply(
    smpl: *mut llama_sampler,
    ctx: *mut ggml_context,
    _gf: *mut ggml_cgraph,
    data: *mut llama_sampler_data,
) {
    ffi_guard!((), {
        let s = try_from_ptr!(mut smpl);
        // SAFETY: llama.cpp passes NULL or the data of one output row.
        let Some(data) = (unsafe { data.as_mut() }) else {
            return;
        };
        // SAFETY: llama.cpp passes its live graph context and that row's
        // live tensors.
        unsafe { s.backend.apply(&s.scatter, ctx, data) }
    })
}

#[cfg(llama_backend_sampling)]
unsafe extern "C" fn backend_set_input(smpl: *mut llama_sampler) {
    ffi_guard!((), {
        let s = try_from_ptr!(mut smpl);
        // SAFETY: llama.cpp calls this once the graph `backend_apply` added
        // to is allocated, before it runs.
        unsafe { s.backend.set_input(&mut s.scatter) }
    })
}

#[cfg(llama_backend_sampling)]
unsafe extern "C" fn backend_reset(smpl: *mut llama_sampler) {
    ffi_guard!((), { try_from_ptr!(mut smpl).backend.reset() })
}

/// `llama_sampler_copy`: src's parameters, history, RNG and stats into
/// dst, whose graph inputs stay its own.
#[cfg(llama_backend_sampling)]
unsafe extern "C" fn copy_state(src: *const llama_sampler, dst: *mut llama_sampler) {
    ffi_guard!((), {
        let src = try_from_ptr!(ref src);
        try_from_ptr!(mut dst).scatter = src.scatter.clone();
    })
}

// ----------------------------------------------------------------------- stats

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
        // SAFETY: the caller passes NULL or a live llama.cpp sampler, of any
        // table: only one of ours is read as a scatter sampler.
        let ours = unsafe { smpl.as_ref() }.is_some_and(|s| ptr::eq(s.iface, &raw const SCATTER_I));
        // SAFETY: a sampler with our table was made by `wrap`.
        let Some(s) = ours.then(|| unsafe { Sampler::from_ptr(smpl) }).flatten() else {
            *out = llama_scatter_stats::default();
            return false;
        };
        let stats = s.scatter.stats();
        *out = llama_scatter_stats {
            n_apply: stats.applies,
            n_fired: stats.fired,
            n_scattered: stats.scattered,
            strength_sum: stats.strength_sum,
        };
        true
    })
}
