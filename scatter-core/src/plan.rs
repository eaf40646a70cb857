//! An apply of SPEC §4 as plain numbers, for code that runs the same
//! computation somewhere else: the C library turns a [`Plan`] into a ggml
//! graph for llama.cpp's backend sampling, where the candidates never reach
//! the CPU. The math there is the same; this crate keeps deciding the one
//! thing that must not differ, the collision gate's draws
//! ([`crate::Scatter::draw_gate`]).

use crate::params::{Adaptive, Config};
use crate::strength::Ramps;

/// The sanitised parameters of an active sampler without absorption (SPEC
/// §4.1 clamps applied): everything a graph needs, and nothing it cannot
/// compute there.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Plan {
    /// Medium size: the k best finite candidates (`k >= 2`).
    pub k: usize,
    /// Gaussian radius in ranks, in (0, 16].
    pub radius: f64,
    /// Diffusion passes, in [1, 8].
    pub steps: u32,
    /// The fixed strength, or the adaptive curve's strength at its target.
    pub strength: f64,
    /// The adaptive curve (SPEC §4.4), if adaptive.
    pub adaptive: Option<Adaptive>,
    /// Whether the collision gate can decline (`collision < 1`): an apply
    /// then needs a draw, and may leave the candidates untouched.
    pub gated: bool,
}

impl Plan {
    /// `None` for absorption, which needs the token history on the CPU.
    /// Every field of the configuration is named (no `..`): a new one does
    /// not compile until the plan, and so the backend graph, handles it.
    pub(crate) fn of(config: &Config) -> Option<Self> {
        let Config {
            k,
            strength,
            radius,
            steps,
            adaptive,
            absorption,
            collision,
            // The gate is drawn on the CPU (`Scatter::draw_gate`).
            seed: _,
        } = *config;
        if absorption.is_some() {
            return None;
        }
        Some(Self {
            k,
            radius,
            steps,
            strength,
            adaptive,
            gated: collision.is_some(),
        })
    }
}

impl Plan {
    /// The adaptive strength as ramps of the normalised entropy, for a
    /// graph that has no comparison; `None` for a fixed strength.
    ///
    /// ```
    /// use scatter_core::{Params, Scatter};
    ///
    /// let plan = Scatter::new(&Params::preset("adaptive").unwrap()).plan().unwrap();
    /// let ramps = plan.strength_ramps().unwrap();
    /// let curve = plan.adaptive.unwrap();
    /// // (0, max), (target, strength), (1, min), and flat beyond [0, 1].
    /// assert!((ramps.at(0.0) - curve.max).abs() < 1e-12);
    /// assert!((ramps.at(curve.target) - plan.strength).abs() < 1e-12);
    /// assert!((ramps.at(1.0) - curve.min).abs() < 1e-12);
    /// assert!((ramps.at(1.5) - curve.min).abs() < 1e-12);
    /// ```
    pub fn strength_ramps(&self) -> Option<Ramps> {
        self.adaptive
            .as_ref()
            .map(|curve| Ramps::of(self.strength, curve))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Params, Scatter};

    // Here, beside `Plan`, so that a new field of the plan is written into this expectation in the
    // file that adds it.
    #[test]
    fn the_plan_holds_the_sanitised_parameters() {
        let hostile = Params {
            strength: 7.0,
            radius: 1e9,
            steps: i32::MAX,
            collision: 0.5,
            ..Params::fixed(64, 0.0, 0.0, 1)
        };
        assert_eq!(
            Scatter::new(&hostile).plan(),
            Some(Plan {
                k: 64,
                radius: 16.0,
                steps: 8,
                strength: 1.0,
                adaptive: None,
                gated: true,
            })
        );
        let adaptive = Scatter::new(&Params {
            strength_min: 0.4,
            strength_max: 0.1,
            ..Params::preset("adaptive").unwrap()
        })
        .plan()
        .expect("adaptive runs elsewhere");
        assert_eq!(
            adaptive.adaptive,
            Some(Adaptive {
                min: f64::from(0.1f32),
                max: f64::from(0.4f32),
                target: f64::from(0.55f32),
            })
        );
        assert!(!adaptive.gated);
    }
}
