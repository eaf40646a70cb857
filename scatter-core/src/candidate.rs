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
