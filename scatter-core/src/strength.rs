//! Effective strength (SPEC §4.4): fixed, or adaptive through the medium's
//! normalised entropy.

use crate::expln::ln_normal;
use crate::isa::Isa;
use crate::params::Adaptive;

/// `H = −Σ p ln p / ln m` in [0, 1]: 0 for a spike, 1 for uniform, for
/// the m-candidate softmax `p_i = e_i / total` with `e_i = exp(x_i)`,
/// `x_i = logit_i − max`, given `total = Σ e_i` and `tilted = Σ e_i·x_i`
/// (apply sums both as it computes the `e_i`). Since `ln p_i = x_i − ln
/// total`, `−Σ p ln p = ln total − tilted / total`: no logarithm per
/// candidate, and no serial sum. `total >= 1` (the maximum's `e` is 1),
/// `m >= 2`; the result is clamped against rounding.
#[inline(always)]
pub(crate) fn normalized_entropy<I: Isa>(total: f64, tilted: f64, m: usize) -> f64 {
    ((ln_normal::<I>(total) - tilted / total) / ln_normal::<I>(m as f64)).clamp(0.0, 1.0)
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

/// The adaptive strength as a function of the normalised entropy H, for a
/// computation that has no comparison per value (a ggml graph): `s(H) =
/// Σ_j weight_j · max(H − start_j, 0)` over ramps whose first starts at
/// −∞ (a constant) and whose last, at 1, cancels the slope, so that `s` is
/// [`adaptive_strength`] at `H` clamped to [0, 1], clamp to [min, max]
/// included. The starts are the curve's bends in (0, 1): its target and
/// where its two lines meet min or max.
#[derive(Clone, Debug, PartialEq)]
pub struct Ramps {
    /// `(start, weight)`, starts ascending; the first start is
    /// `f64::NEG_INFINITY` (its ramp is the constant `weight`).
    pub ramps: Vec<(f64, f64)>,
}

impl Ramps {
    /// The ramps of the curve with `strength` at its target.
    pub(crate) fn of(strength: f64, curve: &Adaptive) -> Self {
        let Adaptive { min, max, target } = *curve;
        let mut bends = vec![0.0, target, 1.0];
        for level in [min, max] {
            if strength != max {
                bends.push(target * (level - max) / (strength - max));
            }
            if strength != min {
                bends.push(target + (1.0 - target) * (level - strength) / (min - strength));
            }
        }
        bends.retain(|h| (0.0..=1.0).contains(h));
        bends.sort_by(f64::total_cmp);
        bends.dedup();
        let at = |h: f64| adaptive_strength(h, strength, curve);
        let mut ramps = vec![(f64::NEG_INFINITY, at(0.0))];
        let mut slope = 0.0;
        for pair in bends.windows(2) {
            let next = (at(pair[1]) - at(pair[0])) / (pair[1] - pair[0]);
            ramps.push((pair[0], next - slope));
            slope = next;
        }
        ramps.push((1.0, -slope));
        Self { ramps }
    }

    /// `s(h)` as the ramps give it, in f64.
    pub fn at(&self, h: f64) -> f64 {
        self.ramps
            .iter()
            .map(|&(start, weight)| {
                if start == f64::NEG_INFINITY {
                    weight
                } else {
                    weight * (h - start).max(0.0)
                }
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Baseline;

    const CURVE: Adaptive = Adaptive {
        min: 0.02,
        max: 0.30,
        target: 0.55,
    };

    #[test]
    fn entropy_of_spike_and_uniform() {
        // e = [1, e^-800 = 0, 0]: x·e is 0 for the two underflowed terms.
        assert_eq!(normalized_entropy::<Baseline>(1.0, 0.0, 3), 0.0);
        // Four equal logits: e_i = 1, x_i = 0.
        assert!((normalized_entropy::<Baseline>(4.0, 0.0, 4) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn entropy_equals_the_sum_over_the_normalised_softmax() {
        let x: Vec<f64> = (0..40)
            .map(|i| -0.3 * f64::from(i) - 0.01 * f64::from(i * i))
            .collect();
        let e: Vec<f64> = x.iter().map(|x| x.exp()).collect();
        let total: f64 = e.iter().sum();
        let tilted: f64 = e.iter().zip(&x).map(|(e, x)| e * x).sum();
        let direct = -e.iter().map(|e| e / total).map(|p| p * p.ln()).sum::<f64>() / 40f64.ln();
        let h = normalized_entropy::<Baseline>(total, tilted, 40);
        assert!((h - direct).abs() < 1e-14, "{h} vs {direct}");
        assert!(h > 0.1 && h < 0.9);
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

    #[test]
    fn ramps_follow_the_clamped_curve_everywhere() {
        let curves = [
            (0.14, CURVE),
            (0.9, CURVE),
            (-0.5, CURVE),
            (
                0.14,
                Adaptive {
                    target: 0.0,
                    ..CURVE
                },
            ),
            (
                0.14,
                Adaptive {
                    target: 1.0,
                    ..CURVE
                },
            ),
            (
                0.5,
                Adaptive {
                    target: 0.0,
                    ..CURVE
                },
            ),
            (
                0.01,
                Adaptive {
                    target: 1.0,
                    ..CURVE
                },
            ),
            (
                0.3,
                Adaptive {
                    min: 0.3,
                    max: 0.3,
                    target: 0.2,
                },
            ),
            (
                0.8,
                Adaptive {
                    min: 0.0,
                    max: 1.0,
                    target: 0.001,
                },
            ),
            (
                0.0,
                Adaptive {
                    min: 0.0,
                    max: 1.0,
                    target: 0.999,
                },
            ),
        ];
        for (strength, curve) in curves {
            let ramps = Ramps::of(strength, &curve);
            assert!(ramps.ramps.len() <= 8, "{ramps:?}");
            for i in -200..=1200 {
                let h = f64::from(i) / 1000.0;
                let want = adaptive_strength(h.clamp(0.0, 1.0), strength, &curve);
                let got = ramps.at(h);
                assert!(
                    (got - want).abs() < 1e-9,
                    "strength {strength}, {curve:?}, H {h}: {got} vs {want}"
                );
            }
        }
    }
}
