//! The rank-space Gaussian kernel (SPEC §4.3 step 3):
//! `K_ij = exp(-(i-j)² / (2·radius²))`, applied row-normalised.
//!
//! The kernel depends only on the rank distance `|i-j|`, so one table of
//! weights serves every row and every medium size; it is computed once per
//! sampler. Weights below 2^-60 of the centre weight are dropped: a dropped
//! term moves less than 2^-60 ≈ 8.7e-19 of probability, far below the
//! write-back floor ε = 1e-10 and below f32 resolution at ε. That bounds
//! the reach to `radius·√(120·ln 2) ≈ 9.12·radius` ranks.

use std::f64::consts::LN_2;

#[derive(Clone, Debug)]
pub(crate) struct RankKernel {
    /// `band[reach + d]` = K at distance |d|, for d in -reach..=reach: a row
    /// of the kernel, so each output is one contiguous dot product.
    band: Vec<f64>,
    /// `cumulative[d]` = Σ K over distances 0..=d: row sums in O(1).
    cumulative: Vec<f64>,
}

impl RankKernel {
    pub(crate) fn new(radius: f64) -> Self {
        let reach = (radius * (120.0 * LN_2).sqrt()).floor() as usize;
        let two_r2 = 2.0 * radius * radius;
        let weights: Vec<f64> = (0..=reach)
            .map(|d| (-((d * d) as f64) / two_r2).exp())
            .collect();
        let cumulative = weights
            .iter()
            .scan(0.0, |acc, w| {
                *acc += w;
                Some(*acc)
            })
            .collect();
        let band = weights.iter().rev().chain(&weights[1..]).copied().collect();
        Self { band, cumulative }
    }

    fn reach(&self) -> usize {
        self.cumulative.len() - 1
    }

    /// One pass: `q_i = Σ_j K_ij p_j / Σ_j K_ij` over the ranks of `p`.
    pub(crate) fn diffuse(&self, p: &[f64], q: &mut [f64]) {
        let m = p.len();
        let full = self.reach();
        let reach = full.min(m.saturating_sub(1));
        for (i, qi) in q.iter_mut().enumerate().take(m) {
            let lo = i.saturating_sub(reach);
            let hi = (i + reach).min(m - 1);
            let weights = &self.band[full + lo - i..=full + hi - i];
            let row = self.cumulative[i - lo] + self.cumulative[hi - i] - 1.0;
            *qi = dot(weights, &p[lo..=hi]) / row;
        }
    }
}

/// Dot product with four independent partial sums, so the additions
/// pipeline instead of waiting on each other (the band is up to 2·145+1
/// long and this is the inner loop of every pass).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (a4, a_rest) = a.split_at(a.len() - a.len() % 4);
    let (b4, b_rest) = b.split_at(a4.len());
    for (x, y) in a4.chunks_exact(4).zip(b4.chunks_exact(4)) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let tail: f64 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    (acc[0] + acc[1]) + (acc[2] + acc[3]) + tail
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
                let mut q = vec![0.0; m];
                RankKernel::new(radius).diffuse(&p, &mut q);
                for (a, b) in q.iter().zip(dense(radius, &p)) {
                    assert!((a - b).abs() <= 1e-15, "radius {radius} m {m}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn rows_are_normalised_so_a_constant_stays_constant() {
        let p = vec![0.25; 40];
        let mut q = vec![0.0; 40];
        RankKernel::new(3.0).diffuse(&p, &mut q);
        assert!(q.iter().all(|x| (x - 0.25).abs() < 1e-15));
    }
}
