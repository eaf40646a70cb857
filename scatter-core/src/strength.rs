//! Effective strength (SPEC §4.4): fixed, or adaptive through the medium's
//! normalised entropy.

use crate::expln::ln_normal;
use crate::params::Adaptive;

/// `H = −Σ p ln p / ln m` in [0, 1]: 0 for a spike, 1 for uniform, with
/// `p_i = weights_i / total` (apply keeps the softmax unnormalised until
/// its final normalisation) and `log_p` the exact `ln p_i` of that softmax
/// (`logit_i − lse`, finite even where `p_i` underflows to 0). Needs
/// `weights.len() >= 2`; the result is clamped against rounding.
pub(crate) fn normalized_entropy(
    weights: &[f64],
    total: f64,
    log_p: impl Iterator<Item = f64>,
) -> f64 {
    let h: f64 = weights
        .iter()
        .zip(log_p)
        .map(|(x, lx)| -x * lx)
        .sum::<f64>()
        / total;
    (h / ln_normal(weights.len() as f64)).clamp(0.0, 1.0)
}

/// The piecewise-linear curve through (0, max), (target, strength),
/// (1, min), clamped to [min, max]. A branch whose denominator would be 0
/// cannot be taken: `h < t` implies `t > 0`, `h > t` implies `t < 1`.
pub(crate) fn adaptive_strength(h: f64, strength: f64, curve: &Adaptive) -> f64 {
    let t = curve.target;
    let s = if h < t {
        curve.max + (strength - curve.max) * h / t
    } else if h > t {
        strength + (curve.min - strength) * (h - t) / (1.0 - t)
    } else {
        strength
    };
    s.clamp(curve.min, curve.max)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CURVE: Adaptive = Adaptive {
        min: 0.02,
        max: 0.30,
        target: 0.55,
    };

    #[test]
    fn entropy_of_spike_and_uniform() {
        let spike_logits = [0.0, -800.0, -800.0];
        let spike = [1.0, 0.0, 0.0];
        assert_eq!(
            normalized_entropy(&spike, 1.0, spike_logits.into_iter()),
            0.0
        );
        let uniform_log = (0.25f64).ln();
        assert!(
            (normalized_entropy(&[0.25; 4], 1.0, [uniform_log; 4].into_iter()) - 1.0).abs() < 1e-15
        );
    }

    #[test]
    fn curve_passes_through_its_three_points_and_is_clamped() {
        assert_eq!(adaptive_strength(0.0, 0.14, &CURVE), 0.30);
        assert_eq!(adaptive_strength(0.55, 0.14, &CURVE), 0.14);
        assert!((adaptive_strength(1.0, 0.14, &CURVE) - 0.02).abs() < 1e-15);
        let mid = adaptive_strength(0.275, 0.14, &CURVE);
        assert!((mid - 0.22).abs() < 1e-12);
        // strength outside [min, max] is clamped back onto the range.
        assert_eq!(adaptive_strength(0.55, 0.9, &CURVE), 0.30);
    }

    #[test]
    fn extreme_targets_do_not_divide_by_zero() {
        let at0 = Adaptive {
            target: 0.0,
            ..CURVE
        };
        let at1 = Adaptive {
            target: 1.0,
            ..CURVE
        };
        for h in [0.0, 0.5, 1.0] {
            assert!(adaptive_strength(h, 0.14, &at0).is_finite());
            assert!(adaptive_strength(h, 0.14, &at1).is_finite());
        }
    }
}
