//! The lane width of apply's vector code, and the one loop shape that
//! keeps every per-candidate step in it.

/// Values one vector of the pipeline holds: eight f64 (one AVX-512
/// register, two AVX2 ones). Apply keeps its per-candidate buffers padded
/// to a multiple of it.
pub(crate) const VECTOR_LANES: usize = 8;

/// Replaces `xs[i]` by `f(xs[i])`, [`VECTOR_LANES`] at a time; `xs.len()` is a
/// multiple of [`VECTOR_LANES`] (the caller pads with an argument `f` takes
/// quietly), so every element goes through the vector code and no scalar
/// remainder loop runs: on the short media typical after truncation that
/// loop would be the whole of the work, and a second copy of the
/// polynomial to fetch when the caches are cold.
#[inline(always)]
pub(crate) fn map_lanes(xs: &mut [f64], f: impl Fn(f64) -> f64) {
    debug_assert_eq!(xs.len() % VECTOR_LANES, 0);
    for chunk in xs.chunks_exact_mut(VECTOR_LANES) {
        for x in chunk {
            *x = f(*x);
        }
    }
}
