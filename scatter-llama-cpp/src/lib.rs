//! The **scatter** token sampler for programs that use llama.cpp through
//! [`llama-cpp-2`](https://crates.io/crates/llama-cpp-2).
//!
//! Scatter runs after the truncation samplers (top-k, top-p, min-p, XTC): it
//! takes the top-K survivors, smooths their probabilities over *rank* with
//! a row-normalised Gaussian kernel and blends that with the original, so
//! the head of the distribution flattens while the tail that truncation
//! removed stays removed (unlike a higher temperature). The math is
//! [`scatter_core`]'s, the same code the C library `llama_scatter` runs
//! inside llama.cpp, so a generation here gives the same tokens as one
//! through `llama_sampler_init_scatter_params` in a C chain with the same
//! parameters and seeds.
//!
//! llama-cpp-2 has no way to put a sampler of another crate into a
//! [`LlamaSampler`](llama_cpp_2::sampling::LlamaSampler) chain (its
//! constructor from a raw `llama_sampler` is private), so scatter runs
//! between two chains, on the [`LlamaTokenDataArray`] they pass along:
//!
//! ```
//! use llama_cpp_2::sampling::LlamaSampler;
//! use llama_cpp_2::token::data::LlamaTokenData;
//! use llama_cpp_2::token::data_array::LlamaTokenDataArray;
//! use llama_cpp_2::token::LlamaToken;
//! use scatter_llama_cpp::ScatterSampler;
//!
//! let mut truncate = LlamaSampler::chain_simple([
//!     LlamaSampler::top_k(40),
//!     LlamaSampler::top_p(0.95, 1),
//!     LlamaSampler::min_p(0.05, 1),
//! ]);
//! let mut scatter = ScatterSampler::preset("creative", 42).expect("a preset");
//! let mut pick = LlamaSampler::chain_simple([LlamaSampler::temp(0.8), LlamaSampler::dist(42)]);
//!
//! // In a generation loop: `ctx.token_data_array_ith(i)`.
//! let logits = [3.0f32, 2.5, 2.0, 1.0, -1.0, -4.0];
//! let mut candidates = LlamaTokenDataArray::from_iter(
//!     (0..).zip(logits).map(|(id, logit)| LlamaTokenData::new(LlamaToken(id), logit, 0.0)),
//!     false,
//! );
//! candidates.apply_sampler(&mut truncate);
//! scatter.apply(&mut candidates);
//! candidates.apply_sampler(&mut pick);
//! let token = candidates.selected_token().expect("dist selects a token");
//! truncate.accept(token);
//! scatter.accept(token);
//! pick.accept(token);
//! assert_eq!(scatter.stats().scattered, 1);
//! ```
//!
//! What it cannot do: join a `LlamaSampler` chain (above), and run on the
//! device with llama.cpp's backend sampling, which needs the sampler inside
//! the context's chain; for both, link the C library instead (README,
//! "Rust"). No second libllama: this crate links none, the program's
//! `llama-cpp-sys-2` is the only one.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

use llama_cpp_2::token::data::LlamaTokenData;
use llama_cpp_2::token::data_array::LlamaTokenDataArray;
use llama_cpp_2::token::LlamaToken;
use scatter_core::{Outcome, Scatter, TokenData};
pub use scatter_core::{Params, Stats};

/// A scatter sampler for a llama-cpp-2 generation loop: the C API's
/// `llama_sampler_init_scatter_params` sampler (name, apply, accept, reset,
/// clone, stats) on a [`LlamaTokenDataArray`].
///
/// ```
/// use scatter_llama_cpp::{Params, ScatterSampler};
///
/// // Every parameter, as the C API's `struct llama_scatter_params`.
/// let sampler = ScatterSampler::new(&Params { k: 32, ..Params::preset("subtle").unwrap() });
/// assert_eq!(sampler.name(), "scatter");
/// // Parameters that ask for no effect give llama.cpp's do-nothing sampler.
/// assert_eq!(ScatterSampler::new(&Params::fixed(64, 0.0, 2.5, 1)).name(), "?scatter");
/// ```
#[derive(Clone, Debug)]
pub struct ScatterSampler {
    scatter: Scatter,
    /// The candidates as scatter reads them, reused across applies.
    buffer: Vec<TokenData>,
}

impl ScatterSampler {
    /// A sampler with `params`, clamped as SPEC §4.1 says (the C API's
    /// clamps: the same code).
    pub fn new(params: &Params) -> Self {
        Self {
            scatter: Scatter::new(params),
            buffer: Vec::new(),
        }
    }

    /// A SPEC §6 preset (`subtle`, `creative`, `adaptive`,
    /// `adaptive-absorb`, `collision`) with the collision gate's `seed`;
    /// `None` for another name.
    ///
    /// ```
    /// use scatter_llama_cpp::ScatterSampler;
    ///
    /// assert!(ScatterSampler::preset("collision", 7).is_some());
    /// assert!(ScatterSampler::preset("loud", 7).is_none());
    /// ```
    pub fn preset(name: &str, seed: u32) -> Option<Self> {
        Params::preset(name).map(|params| Self::new(&Params { seed, ..params }))
    }

    /// `scatter`, or `?scatter` for the do-nothing sampler, as llama.cpp
    /// names it in a chain.
    pub fn name(&self) -> &'static str {
        self.scatter
            .name()
            .to_str()
            .expect("scatter's names are ASCII")
    }

    /// Scatters `candidates` in place: where it fires, they become the
    /// medium (at most `k`), sorted, with log-probabilities as logits and
    /// the probabilities in `p`, and any selection is cleared, as the C
    /// sampler leaves a `llama_token_data_array`; else they are left as
    /// they are.
    ///
    /// The candidates are copied into a buffer the sampler keeps and back
    /// (llama-cpp-2 lends no `llama_token_data_array` to another crate):
    /// after top-k 40 that is 40 entries; first in a chain, on a
    /// 262,144-token vocabulary, about 3 MiB each way.
    ///
    /// ```
    /// use llama_cpp_2::token::data::LlamaTokenData;
    /// use llama_cpp_2::token::data_array::LlamaTokenDataArray;
    /// use llama_cpp_2::token::LlamaToken;
    /// use scatter_llama_cpp::ScatterSampler;
    ///
    /// let mut scatter = ScatterSampler::preset("creative", 0).unwrap();
    /// let mut candidates = LlamaTokenDataArray::from_iter(
    ///     [(7, 1.0f32), (3, 4.0), (5, 2.0)].map(|(id, logit)| LlamaTokenData::new(LlamaToken(id), logit, 0.0)),
    ///     false,
    /// );
    /// scatter.apply(&mut candidates);
    /// let ids: Vec<i32> = candidates.data.iter().map(|c| c.id().0).collect();
    /// assert_eq!(ids, [3, 5, 7]);
    /// assert!(candidates.sorted);
    /// let p: Vec<f32> = candidates.data.iter().map(|c| c.p()).collect();
    /// assert!(p[0] > p[1] && p[1] > p[2]);
    /// assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    /// ```
    pub fn apply(&mut self, candidates: &mut LlamaTokenDataArray) {
        self.buffer.clear();
        self.buffer
            .extend(candidates.data.iter().map(|c| TokenData {
                id: c.id().0,
                logit: c.logit(),
                p: c.p(),
            }));
        if let Outcome::Rewritten { size } = self.scatter.apply(&mut self.buffer) {
            candidates.data.clear();
            candidates.data.extend(
                self.buffer[..size]
                    .iter()
                    .map(|c| LlamaTokenData::new(LlamaToken(c.id), c.logit, c.p)),
            );
            candidates.sorted = true;
            candidates.selected = None;
        }
    }

    /// Records the token the chain picked (absorption's history).
    pub fn accept(&mut self, token: LlamaToken) {
        self.scatter.accept(token.0);
    }

    /// Clears the history and the stats and restarts the collision gate
    /// from its seed: a new generation, as `llama_sampler_reset`.
    pub fn reset(&mut self) {
        self.scatter.reset();
    }

    /// What the sampler did since it was made or last reset.
    ///
    /// ```
    /// use scatter_llama_cpp::ScatterSampler;
    ///
    /// let stats = ScatterSampler::preset("adaptive", 0).unwrap().stats();
    /// assert_eq!((stats.applies, stats.scattered), (0, 0));
    /// ```
    pub fn stats(&self) -> Stats {
        self.scatter.stats()
    }
}
