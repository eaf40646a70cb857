//! `exp` and `ln` in f64 without lookup tables, for the two per-candidate
//! calls of apply (softmax and write-back).
//!
//! Why not `f64::exp`/`f64::ln`: glibc's versions are table-driven, and in a
//! generation loop apply runs right after a model evaluation has streamed
//! hundreds of megabytes through the caches; their tables then miss the
//! caches on every apply, which costs more than the rest of scatter's work
//! on a typical medium (BENCHMARKS.md). These are polynomials with no data and no
//! branches, so the loops that call them also vectorise. Both stay within
//! one ulp of the standard library on a fixed sweep of their domains and
//! within two on random inputs (tested below); everything they feed is
//! rounded to f32 in the end, and apply enforces the order of what it
//! writes exactly, so an ulp here can never reorder tokens.

use crate::isa::Isa;
use std::f64::consts::{LN_2, LOG2_E, SQRT_2};

/// `1.5·2^52`: adding it rounds a double of magnitude below 2^51 to an
/// integer (to nearest, ties to even), with the integer in the low bits.
const SHIFTER: f64 = 6_755_399_441_055_744.0;
/// `ln 2 = LN_2_HI + LN_2_LO`, split so that `k·LN_2_HI` is exact for
/// |k| < 2^11 (the low part to full precision, not `LN_2 - LN_2_HI`).
const LN_2_HI: f64 = 0.693_147_180_369_123_8;
const LN_2_LO: f64 = 1.908_214_929_270_587_7e-10;

/// The argument below which `exp` rounds to 0: [`exp_nonpositive`] clamps
/// its arguments here and returns exactly 0 for it.
pub(crate) const EXP_FLOOR: f64 = -746.0;

/// `e^x` for `x <= 0` (softmax arguments: logit minus the maximum).
/// Arguments below [`EXP_FLOOR`], where the result rounds to 0 anyway,
/// are clamped there; NaN is not an input apply can produce.
#[inline(always)]
pub(crate) fn exp_nonpositive<I: Isa>(x: f64) -> f64 {
    let x = x.max(EXP_FLOOR);
    let shifted = x * LOG2_E + SHIFTER;
    let k = shifted - SHIFTER;
    let r = (x - k * LN_2_HI) - k * LN_2_LO;
    // Taylor series of e^r on |r| <= ln2/2 (the 14th term is below 2^-57),
    // as 1 + (r + r²·P(r)): the large terms are added last, each once, so
    // the result stays within an ulp or so of exact.
    let tail = estrin::<I, 12>(
        [
            0.5,
            1.0 / 6.0,
            1.0 / 24.0,
            1.0 / 120.0,
            1.0 / 720.0,
            1.0 / 5_040.0,
            1.0 / 40_320.0,
            1.0 / 362_880.0,
            1.0 / 3_628_800.0,
            1.0 / 39_916_800.0,
            1.0 / 479_001_600.0,
            1.0 / 6_227_020_800.0,
        ],
        r,
    );
    let poly = 1.0 + (r + r * r * tail);
    // 2^k as two normal factors, so that results down to the subnormals
    // come out right: k >= -1077, so each half is >= -539.
    let k = shifted.to_bits() as i32;
    let half = k >> 1;
    poly * pow2(half) * pow2(k - half)
}

/// `Σ c[i]·x^i` by Estrin's scheme: neighbouring coefficients are paired
/// (`c0 + c1·x`), the pairs paired with `x²`, and so on — four levels of
/// independent multiply-adds for these polynomials, where Horner's rule is
/// a chain of one per coefficient. A typical medium fits in one vector, so
/// apply waits on that chain's latency.
#[inline(always)]
fn estrin<I: Isa, const N: usize>(mut terms: [f64; N], x: f64) -> f64 {
    let mut len = N;
    let mut power = x;
    while len > 1 {
        let half = len.div_ceil(2);
        for i in 0..half {
            let high = if 2 * i + 1 < len {
                terms[2 * i + 1]
            } else {
                0.0
            };
            terms[i] = I::mul_add(high, power, terms[2 * i]);
        }
        len = half;
        power *= power;
    }
    terms[0]
}

/// `2^k` for `-1022 <= k <= 1023`.
#[inline(always)]
fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `ln x` for a positive normal finite `x` (write-back arguments are at
/// least ε = 1e-10).
#[inline(always)]
pub(crate) fn ln_normal<I: Isa>(x: f64) -> f64 {
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32 - 1023;
    let mantissa = f64::from_bits((bits & ((1 << 52) - 1)) | (1023 << 52));
    // Keep the mantissa in [√2/2, √2), so that |s| below is at most 0.1716.
    let (m, e) = if mantissa > SQRT_2 {
        (mantissa * 0.5, exponent + 1)
    } else {
        (mantissa, exponent)
    };
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    // ln(1+f) = 2·atanh s = 2s + s·r with r = 2·Σ_{n≥1} z^n/(2n+1), and
    // 2s = f − s·f: so ln(1+f) = f − s·(f − r), in which the leading term f
    // is exact (m − 1 is, for m in [√2/2, √2)) and the rest is of order f²,
    // so its rounding moves the result by well under an ulp. The term of r
    // for n = 11 is below 2^-57 of it.
    let r = z * estrin::<I, 10>(
        [
            2.0 / 3.0,
            2.0 / 5.0,
            2.0 / 7.0,
            2.0 / 9.0,
            2.0 / 11.0,
            2.0 / 13.0,
            2.0 / 15.0,
            2.0 / 17.0,
            2.0 / 19.0,
            2.0 / 21.0,
        ],
        z,
    );
    let ln_m = f - s * (f - r);
    let e = f64::from(e);
    e * LN_2_HI + (ln_m + e * LN_2_LO)
}

/// `ln x` for any `x >= 0`: `-inf` at 0, and a subnormal scaled into the
/// normal range first (absorption takes the logarithm of probabilities
/// that may have underflowed). Branch-free, like the others.
#[inline(always)]
pub(crate) fn ln_nonnegative<I: Isa>(x: f64) -> f64 {
    const TWO_POW_54: f64 = 18_014_398_509_481_984.0;
    let tiny = x < f64::MIN_POSITIVE;
    let ln = ln_normal::<I>(if tiny { x * TWO_POW_54 } else { x })
        - if tiny { 54.0 * LN_2 } else { 0.0 };
    if x == 0.0 {
        f64::NEG_INFINITY
    } else {
        ln
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isa::Baseline;
    use proptest::prelude::*;

    /// Distance in units in the last place, for finite doubles of one sign.
    fn ulps(a: f64, b: f64) -> u64 {
        (a.to_bits() as i64).abs_diff(b.to_bits() as i64)
    }

    #[test]
    fn exp_edges() {
        assert_eq!(exp_nonpositive::<Baseline>(0.0), 1.0);
        assert_eq!(exp_nonpositive::<Baseline>(-0.0), 1.0);
        assert_eq!(exp_nonpositive::<Baseline>(-800.0), 0.0);
        assert_eq!(exp_nonpositive::<Baseline>(f64::MIN), 0.0);
        // The softmax pads with the floor and counts its terms as 0.
        assert_eq!(exp_nonpositive::<Baseline>(EXP_FLOOR), 0.0);
        assert_eq!(exp_nonpositive::<Baseline>(-745.2), 0.0);
        assert!(
            exp_nonpositive::<Baseline>(-745.0) > 0.0,
            "the smallest subnormal survives"
        );
        assert!(ulps(exp_nonpositive::<Baseline>(-708.5), (-708.5f64).exp()) <= 2);
    }

    #[test]
    fn ln_2_splits_exactly() {
        assert_eq!(LN_2_HI.to_bits(), 0x3fe6_2e42_fee0_0000);
        assert_eq!(LN_2_HI.to_bits() & 0x1f_ffff, 0, "k·LN_2_HI exact");
        assert_eq!(LN_2_HI + LN_2_LO, LN_2);
    }

    #[test]
    fn ln_edges() {
        assert_eq!(ln_normal::<Baseline>(1.0), 0.0);
        assert_eq!(ln_normal::<Baseline>(2.0), LN_2);
        for x in [
            1e-10,
            0.5,
            SQRT_2,
            f64::MIN_POSITIVE,
            f64::MAX,
            1.0 - f64::EPSILON / 2.0,
        ] {
            assert!(ulps(ln_normal::<Baseline>(x), x.ln()) <= 2, "{x}");
        }
    }

    #[test]
    fn ln_of_zero_and_subnormals() {
        assert_eq!(ln_nonnegative::<Baseline>(0.0), f64::NEG_INFINITY);
        for x in [
            f64::from_bits(1),
            1e-310,
            f64::MIN_POSITIVE / 2.0,
            f64::MIN_POSITIVE,
            0.25,
        ] {
            assert!(ulps(ln_nonnegative::<Baseline>(x), x.ln()) <= 2, "{x}");
        }
    }

    /// A fixed sweep of 200,000 points per function over the domains apply
    /// uses: within one ulp of the standard library everywhere on it, with
    /// the multiply-adds of each instruction set.
    #[test]
    #[cfg_attr(miri, ignore = "200,000 points per function: slow under Miri")]
    fn within_one_ulp_on_a_fixed_sweep() {
        sweep::<Baseline>();
        #[cfg(target_arch = "x86_64")]
        sweep::<crate::isa::X86V3>();
    }

    fn sweep<I: Isa>() {
        let mut state = 1u64;
        for _ in 0..200_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let t = (state >> 11) as f64 / (1u64 << 53) as f64;
            let x = -708.0 * t;
            assert!(ulps(exp_nonpositive::<I>(x), x.exp()) <= 1, "exp({x})");
            for y in [1e-10f64.powf(t), 0.5 + t] {
                assert!(ulps(ln_normal::<I>(y), y.ln()) <= 1, "ln({y})");
            }
        }
    }

    proptest! {
        #[test]
        fn ln_nonnegative_within_two_ulp_on_subnormals(bits in 1u64..(1 << 52)) {
            let x = f64::from_bits(bits);
            prop_assert!(ulps(ln_nonnegative::<Baseline>(x), x.ln()) <= 2);
        }


        #[test]
        fn exp_within_two_ulp(x in -708.0f64..=0.0) {
            prop_assert!(ulps(exp_nonpositive::<Baseline>(x), x.exp()) <= 2);
        }

        #[test]
        fn exp_subnormal_results_are_close(x in -745.0f64..-708.0) {
            let (a, b) = (exp_nonpositive::<Baseline>(x), x.exp());
            prop_assert!((a - b).abs() <= 4.0 * f64::from_bits(1));
        }

        #[test]
        fn ln_within_two_ulp(x in f64::MIN_POSITIVE..f64::MAX) {
            prop_assert!(ulps(ln_normal::<Baseline>(x), x.ln()) <= 2);
        }

        #[test]
        fn ln_within_two_ulp_on_probabilities(x in 1e-10f64..=1.0) {
            prop_assert!(ulps(ln_normal::<Baseline>(x), x.ln()) <= 2);
        }
    }
}
