//! What apply reads and writes: the candidates, what it did to them, and
//! the floor of the probabilities it writes back.

/// One candidate token, laid out exactly like llama.cpp's `llama_token_data`
/// (`{ int32_t id; float logit; float p; }`), so a C candidate array can be
/// viewed as a slice of these without copying.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TokenData {
    /// Token id in the model's vocabulary.
    pub id: i32,
    /// Unnormalised log-probability. `-inf` marks a token that must never be
    /// chosen (grammar, logit bias); `+inf` a forced token.
    pub logit: f32,
    /// Probability; written by scatter, read by nothing in scatter.
    pub p: f32,
}

/// Floor of the write-back: `logit = ln(max(p, PROBABILITY_FLOOR))`.
/// Probabilities below it are sampled as the floor (a logit of about −23)
/// instead of as `ln 0 = -inf`.
pub const PROBABILITY_FLOOR: f64 = 1e-10;

/// What [`Scatter::apply`] did to the candidates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Not a single byte was written: noop sampler, gate did not fire, fewer
    /// than two finite candidates, or a forced (`+inf`) token.
    Untouched,
    /// `candidates[..size]` now hold the medium, sorted by logit descending,
    /// with `p` filled in; the caller truncates its array to `size`, marks it
    /// sorted and clears any selection.
    Rewritten {
        /// Number of candidates kept: `min(k, finite candidates)`.
        size: usize,
    },
}
