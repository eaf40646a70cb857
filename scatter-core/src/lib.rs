//! Pure-Rust core of the **scatter** token sampler for llama.cpp.
//!
//! Scatter runs after the truncation samplers (top-k, top-p, min-p, XTC). It
//! takes the top-K surviving candidates (the *medium*), softmaxes them,
//! smooths the probabilities over *rank* with a row-normalised Gaussian
//! kernel, blends that with the original and writes log-probabilities back:
//! the head of the distribution flattens, and no token outside the medium
//! ever gains mass (unlike raising the temperature).
//!
//! This crate has no `unsafe` and no llama.cpp types: [`TokenData`] has the
//! layout of `llama_token_data`, so Rust bindings can hand their candidate
//! slice straight to [`Scatter::apply`]. The C library `llama_scatter` is a
//! thin layer over it.
//!
//! ```
//! use scatter_core::{Outcome, Params, Scatter, TokenData};
//!
//! // The "creative" preset: strength 0.18, radius 2.5, k 64.
//! let mut scatter = Scatter::new(&Params::fixed(64, 0.18, 2.5, 1));
//! let mut cands: Vec<TokenData> = [4.0f32, 2.0, 1.0, 0.5]
//!     .iter()
//!     .enumerate()
//!     .map(|(i, &logit)| TokenData { id: i as i32, logit, p: 0.0 })
//!     .collect();
//! assert_eq!(scatter.apply(&mut cands), Outcome::Rewritten { size: 4 });
//! assert!(cands[0].p > cands[1].p); // the ranking is kept...
//! assert!(cands[0].p < 0.83); // ...but the head lost some mass
//! ```
//!
//! # Precision
//! Everything between reading the logits and writing them back is computed
//! in f64: a 262,144-token medium must still sum to 1 within 1e-6, and the
//! order of the output must be exact. Results are rounded to f32 once, at
//! write-back.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod candidate;
#[cfg(feature = "check-reference")]
mod check;
mod expln;
pub mod fields;
mod gate;
mod history;
mod isa;
mod kernel;
mod lanes;
#[cfg(feature = "made")]
pub mod made;
mod medium;
pub mod params;
mod plan;
pub mod reference;
mod sampler;
mod strength;

pub use candidate::{Outcome, TokenData, PROBABILITY_FLOOR};
pub use params::Params;
pub use plan::Plan;
pub use sampler::{Scatter, Stats, NAME, NOOP_NAME};
pub use strength::Ramps;
