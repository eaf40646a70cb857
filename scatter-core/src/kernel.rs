//! The rank-space Gaussian kernel (SPEC §4.3 step 3):
//! `K_ij = exp(-(i-j)² / (2·radius²))`, applied row-normalised.
//!
//! The kernel depends only on the rank distance `|i-j|`, so one table of
//! weights serves every row and every medium size; it is computed once per
//! sampler. Weights below 2^-60 of the centre weight are dropped: a dropped
//! term moves less than 2^-60 ≈ 8.7e-19 of probability, far below the
//! write-back floor ε = 1e-10 and below f32 resolution at ε. That bounds
//! the reach to `radius·√(120·ln 2) ≈ 9.12·radius` ranks.

use crate::lanes::VECTOR_LANES;
use std::f64::consts::LN_2;

#[derive(Clone, Debug)]
pub(crate) struct RankKernel {
    /// `weights[d]` = K at rank distance d, for d in 0..=reach.
    weights: Vec<f64>,
    /// `cumulative[d]` = Σ K over distances 0..=d: row sums in O(1).
    cumulative: Vec<f64>,
    /// K at rank distances 0..[`MAX_SHORT_MEDIUM`], zero past the reach:
    /// inline, so that the short path reads no other buffer.
    near: [f64; MAX_SHORT_MEDIUM],
}

impl RankKernel {
    pub(crate) fn new(radius: f64) -> Self {
        let reach = (radius * (120.0 * LN_2).sqrt()).floor() as usize;
        let two_r2 = 2.0 * radius * radius;
        let weights: Vec<f64> = (0..=reach)
            .map(|d| (-((d * d) as f64) / two_r2).exp())
            .collect();
        let cumulative: Vec<f64> = weights
            .iter()
            .scan(0.0, |acc, w| {
                *acc += w;
                Some(*acc)
            })
            .collect();
        let near = std::array::from_fn(|d| weights.get(d).copied().unwrap_or(0.0));
        Self {
            weights,
            cumulative,
            near,
        }
    }

    /// `q = (D⁻¹K)^steps p`: `steps` passes of
    /// `q_i = Σ_j K_ij p_j / Σ_j K_ij` over the ranks of `p`.
    #[inline(always)]
    pub(crate) fn smooth<'a>(&self, p: &[f64], steps: u32, s: &'a mut Smoothing) -> &'a [f64] {
        let m = p.len();
        let reach = (self.weights.len() - 1).min(m.saturating_sub(1));
        // One allocation: the padded distribution, then the row sums.
        let padded = reach + m.next_multiple_of(PASS_BLOCK) + reach;
        s.padded.clear();
        s.padded.resize(padded, 0.0);
        s.padded.extend((0..m).map(|i| self.row_sum(i, m, reach)));
        s.q.clear();
        s.q.resize(m, 0.0);
        s.padded[reach..reach + m].copy_from_slice(p);
        for step in 0..steps {
            if step > 0 {
                s.padded[reach..reach + m].copy_from_slice(&s.q);
            }
            let (src, rows) = s.padded.split_at(padded);
            self.pass(src, rows, &mut s.q, reach);
        }
        &s.q
    }

    /// `Σ_j K_ij` over the m ranks of a medium, `reach` capped at m − 1:
    /// the distances to both ends, each side's weights from the prefix
    /// sums, the centre (weight 1) counted once.
    #[inline(always)]
    fn row_sum(&self, i: usize, m: usize, reach: usize) -> f64 {
        self.cumulative[i.min(reach)] + self.cumulative[(m - 1 - i).min(reach)] - 1.0
    }

    /// [`Self::smooth`] for a medium of 2 to [`MAX_SHORT_MEDIUM`] ranks held
    /// in that many lanes, zeros past its end: each pass is the whole
    /// 8 × 8 kernel at once, and the row sums are the same product applied
    /// to the medium's indicator, so there are no padding buffers, no loops
    /// over blocks and no table lookups. This is the code that runs after
    /// `top_p`/`min_p`, right after a model evaluation has evicted the
    /// caches, where every code line is a miss.
    #[inline(always)]
    pub(crate) fn smooth_short(
        &self,
        p: &[f64; MAX_SHORT_MEDIUM],
        m: usize,
        steps: u32,
    ) -> [f64; MAX_SHORT_MEDIUM] {
        let indicator = std::array::from_fn(|j| if j < m { 1.0 } else { 0.0 });
        let rows = self.product_short(&indicator);
        let mut q = *p;
        for _ in 0..steps {
            let y = self.product_short(&q);
            // Past the medium a row may sum to 0; its output stays 0.
            for (i, (q, (y, row))) in q.iter_mut().zip(y.iter().zip(rows)).enumerate() {
                *q = if i < m { y / row } else { 0.0 };
            }
        }
        q
    }

    /// `K·x` on [`MAX_SHORT_MEDIUM`] lanes: column j of the kernel is the
    /// weights shifted by j, so each term is a broadcast times a
    /// permutation of [`Self::near`] (constant indices: the permutations
    /// are known when this is compiled).
    #[inline(always)]
    fn product_short(&self, x: &[f64; MAX_SHORT_MEDIUM]) -> [f64; MAX_SHORT_MEDIUM] {
        let mut y = [0.0; MAX_SHORT_MEDIUM];
        for (j, &xj) in x.iter().enumerate() {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi += self.near[i.abs_diff(j)] * xj;
            }
        }
        y
    }

    /// One pass from `src` (the distribution at offset `reach`, zero
    /// beyond it on both sides) into `out`, divided by the row sums.
    ///
    /// Each block of [`PASS_BLOCK`] outputs is accumulated in registers over the
    /// rank distances d, from the two neighbours at ±d (equal weights, so one
    /// multiply per pair). Nothing is stored until the block is done, and the
    /// blocks' sums do not wait on each other, so the loop vectorises and
    /// pipelines; the zero padding stands in for the truncated rows at the
    /// edges, so no lane needs a bounds test. Larger weights are added
    /// first, which also keeps the rounding small.
    #[inline(always)]
    fn pass(&self, src: &[f64], rows: &[f64], out: &mut [f64], reach: usize) {
        let weights = &self.weights[..=reach];
        for (block, out) in out.chunks_mut(PASS_BLOCK).enumerate() {
            let at = reach + block * PASS_BLOCK;
            // Two sums (odd and even distances) halve the chain of
            // dependent additions each lane waits on.
            let mut odd = [0.0; PASS_BLOCK];
            let mut even = [0.0; PASS_BLOCK];
            even.copy_from_slice(&src[at..at + PASS_BLOCK]);
            for (d, pair) in (1..).step_by(2).zip(weights[1..].chunks(2)) {
                let neighbours = |d: usize, w: f64, acc: &mut [f64; PASS_BLOCK]| {
                    let below = &src[at - d..at - d + PASS_BLOCK];
                    let above = &src[at + d..at + d + PASS_BLOCK];
                    for ((a, x), y) in acc.iter_mut().zip(below).zip(above) {
                        *a += w * (x + y);
                    }
                };
                neighbours(d, pair[0], &mut odd);
                if let Some(&w) = pair.get(1) {
                    neighbours(d + 1, w, &mut even);
                }
            }
            for ((o, a), b) in out.iter_mut().zip(odd).zip(even) {
                *o = a + b;
            }
        }
        for (o, row) in out.iter_mut().zip(rows) {
            *o /= row;
        }
    }
}

/// The longest medium of the short path: one vector of [`VECTOR_LANES`].
pub(crate) const MAX_SHORT_MEDIUM: usize = VECTOR_LANES;

/// Outputs computed together by [`RankKernel::smooth`]: two AVX-512
/// vectors of f64, or four AVX2 ones.
pub(crate) const PASS_BLOCK: usize = 16;

/// Scratch for [`RankKernel::smooth`], reused across applies: the
/// distribution a pass reads, zero-padded by the reach on both sides and
/// followed by the row sums, and the pass's result. Two buffers, because
/// right after a model evaluation every cache line apply touches is a miss.
#[derive(Clone, Debug, Default)]
pub(crate) struct Smoothing {
    padded: Vec<f64>,
    q: Vec<f64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dense, untruncated reference.
    fn dense(radius: f64, p: &[f64]) -> Vec<f64> {
        let m = p.len();
        (0..m)
            .map(|i| {
                let w =
                    |j: usize| (-((i as f64 - j as f64).powi(2)) / (2.0 * radius * radius)).exp();
                let num: f64 = (0..m).map(|j| w(j) * p[j]).sum();
                let den: f64 = (0..m).map(w).sum();
                num / den
            })
            .collect()
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "dense reference on media up to 300: too slow under Miri"
    )]
    fn banded_equals_dense_within_the_truncation_bound() {
        for radius in [0.3, 1.0, 2.5, 7.0, 40.0] {
            for m in [2, 3, 10, 64, 300] {
                let raw: Vec<f64> = (0..m).map(|i| (-(i as f64) * 0.37).exp()).collect();
                let sum: f64 = raw.iter().sum();
                let p: Vec<f64> = raw.iter().map(|x| x / sum).collect();
                let mut scratch = Smoothing::default();
                let q = RankKernel::new(radius).smooth(&p, 1, &mut scratch);
                for (a, b) in q.iter().zip(dense(radius, &p)) {
                    assert!((a - b).abs() <= 1e-15, "radius {radius} m {m}: {a} vs {b}");
                }
            }
        }
    }

    /// The short form against the banded passes: every medium size of the
    /// short path, a reach of 0, 2, 4, 22 and 145 ranks (inside and beyond
    /// a vector, and beyond the medium), one and several steps; zeros past
    /// the medium.
    #[test]
    fn the_short_form_equals_the_passes() {
        let mut scratch = Smoothing::default();
        for radius in [0.1, 0.3, 0.5, 2.5, 16.0] {
            let kernel = RankKernel::new(radius);
            for m in 2..=MAX_SHORT_MEDIUM {
                for steps in [1, 2, 8] {
                    let p: Vec<f64> = (0..m).map(|i| 1.0 / (1.0 + i as f64)).collect();
                    let passes = kernel.smooth(&p, steps, &mut scratch);
                    let mut lanes = [0.0; MAX_SHORT_MEDIUM];
                    lanes[..m].copy_from_slice(&p);
                    let short = kernel.smooth_short(&lanes, m, steps);
                    // Values up to 1; a few ulps of rounding per pass.
                    let tolerance = 4.0 * f64::from(steps) * f64::EPSILON;
                    for (a, b) in short[..m].iter().zip(passes) {
                        assert!(
                            (a - b).abs() <= tolerance,
                            "radius {radius} m {m} steps {steps}: {a} vs {b}"
                        );
                    }
                    assert!(short[m..].iter().all(|&x| x == 0.0));
                }
            }
        }
    }

    #[test]
    fn rows_are_normalised_so_a_constant_stays_constant() {
        let p = vec![0.25; 40];
        let mut scratch = Smoothing::default();
        let q = RankKernel::new(3.0).smooth(&p, 3, &mut scratch);
        assert!(q.iter().all(|x| (x - 0.25).abs() < 1e-15));
    }

    #[test]
    fn steps_are_repeated_passes_and_scratch_is_reusable() {
        let mut scratch = Smoothing::default();
        for (m, steps) in [(70, 3), (5, 4), (40, 2), (2, 8)] {
            let p: Vec<f64> = (0..m).map(|i| 1.0 / (1.0 + i as f64)).collect();
            let expected = (0..steps).fold(p.clone(), |q, _| dense(2.5, &q));
            let q = RankKernel::new(2.5).smooth(&p, steps, &mut scratch);
            assert_eq!(q.len(), m);
            for (a, b) in q.iter().zip(&expected) {
                assert!((a - b).abs() <= 1e-15, "m {m} steps {steps}: {a} vs {b}");
            }
        }
    }
}
