//! SPEC §4.3–4.5 written the plain way: copy, sort, dense kernel, one
//! formula per step, the standard library's `exp` and `ln`, and its own
//! entropy and adaptive curve (none of the sampler's code but the §4.1
//! clamps of [`Params`]). Nothing here is fast; it is what the paths of
//! [`crate::sampler`] must agree with.
//!
//! With the cargo feature `check-reference` (on in this crate's tests and in
//! the fuzz targets) every apply of an active sampler on a medium of up to
//! [`MAX_CHECKED_MEDIUM`] candidates is recomputed by [`compute`] and
//! compared with what the sampler wrote (`check.rs`, which the sampler
//! calls): the same tokens, each probability within [`TOLERANCE`], each
//! logit `ln(max(p, PROBABILITY_FLOOR))` of it, in non-increasing order.
//! The buffers are kept per thread and reused, so a checked apply
//! allocates nothing once it has seen its sizes (`tests/no_alloc.rs` holds
//! with the check on).

use crate::params::{Adaptive, Config, Params};
use crate::TokenData;

/// Largest medium the check recomputes (the dense kernel costs m² per
/// pass): the short path, and the general path on media up to the `k` of
/// every SPEC §6 preset. Larger media take the general path, which the
/// tests compare with this reference directly.
pub const MAX_CHECKED_MEDIUM: usize = 8 * crate::kernel::MAX_SHORT_MEDIUM;

/// How far a written probability (f32) may be from the reference (f64).
pub const TOLERANCE: f64 = 1e-6;

/// The scattered medium as SPEC §4 defines it, for `params` after
/// `history` (oldest first) was accepted: `(id, p)` in the order the
/// sampler writes them, or `None` where SPEC leaves the array untouched
/// (a noop sampler, fewer than two finite candidates, a `+inf` logit). The
/// collision gate is not modelled: this is the result when it fires.
///
/// ```
/// use scatter_core::{reference, Params, Scatter, TokenData};
///
/// let params = Params::preset("creative").unwrap();
/// let mut candidates: Vec<TokenData> = (0..10)
///     .map(|id| TokenData { id, logit: -0.4 * id as f32, p: 0.0 })
///     .collect();
/// let want = reference::scatter(&params, &candidates, &[]).unwrap();
/// Scatter::new(&params).apply(&mut candidates);
/// for (c, (id, p)) in candidates.iter().zip(want) {
///     assert_eq!(c.id, id);
///     assert!((f64::from(c.p) - p).abs() < reference::TOLERANCE);
/// }
/// ```
pub fn scatter(
    params: &Params,
    candidates: &[TokenData],
    history: &[i32],
) -> Option<Vec<(i32, f64)>> {
    let config = params.config()?;
    let window = config.absorption.map_or(&[][..], |a| {
        &history[history.len().saturating_sub(a.window)..]
    });
    let mut out = Vec::new();
    let count = |id: i32| window.iter().filter(|&&t| t == id).count() as u32;
    compute(
        &config,
        candidates,
        count,
        &mut Buffers::default(),
        &mut out,
    )
    .then_some(out)
}

/// Reused storage of [`compute`].
#[derive(Default)]
pub(crate) struct Buffers {
    medium: Vec<(usize, TokenData)>,
    p: Vec<f64>,
    q: Vec<f64>,
    next: Vec<f64>,
    weights: Vec<f64>,
    order: Vec<usize>,
    sorted: Vec<(i32, f64)>,
}

/// [`scatter`] on sanitised parameters, with `count(id)` the occurrences of
/// `id` in absorption's window; writes `(id, p)` to `out`. False where SPEC
/// leaves the array untouched.
pub(crate) fn compute(
    config: &Config,
    candidates: &[TokenData],
    count: impl Fn(i32) -> u32,
    b: &mut Buffers,
    out: &mut Vec<(i32, f64)>,
) -> bool {
    out.clear();
    if candidates.iter().any(|c| c.logit == f32::INFINITY) {
        return false;
    }
    // §4.3 step 1: the k best finite candidates, ties in input order.
    b.medium.clear();
    b.medium.extend(
        candidates
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, c)| c.logit.is_finite()),
    );
    // Finite logits only: partial_cmp is total here, and −0 equals +0.
    let by_logit = |a: &(usize, TokenData), b: &(usize, TokenData)| {
        b.1.logit
            .partial_cmp(&a.1.logit)
            .unwrap()
            .then(a.0.cmp(&b.0))
    };
    if b.medium.len() > config.k {
        b.medium.select_nth_unstable_by(config.k - 1, by_logit);
        b.medium.truncate(config.k);
    }
    b.medium.sort_unstable_by(by_logit);
    let m = b.medium.len();
    if m < 2 {
        return false;
    }

    // Step 2: softmax.
    let max = f64::from(b.medium[0].1.logit);
    b.p.clear();
    b.p.extend(
        b.medium
            .iter()
            .map(|(_, c)| (f64::from(c.logit) - max).exp()),
    );
    let total: f64 = b.p.iter().sum();
    b.p.iter_mut().for_each(|x| *x /= total);

    // §4.4: the strength, from the entropy −Σ p ln p / ln m.
    let strength = match &config.adaptive {
        Some(curve) => {
            let h =
                -b.p.iter()
                    .filter(|&&x| x > 0.0)
                    .map(|x| x * x.ln())
                    .sum::<f64>()
                    / (m as f64).ln();
            on_the_curve(h.clamp(0.0, 1.0), config.strength, curve)
        }
        None => config.strength,
    };

    // Step 3: `steps` passes of q_i = Σ_j K_ij q_j / Σ_j K_ij, dense.
    // K_ij = exp(-(i-j)² / 2r²) depends on |i-j| only: one weight per distance.
    let two_r2 = 2.0 * config.radius * config.radius;
    b.weights.clear();
    b.weights
        .extend((0..m).map(|d| (-((d * d) as f64) / two_r2).exp()));
    let kernel = |i: usize, j: usize| b.weights[i.abs_diff(j)];
    b.q.clone_from(&b.p);
    for _ in 0..config.steps {
        b.next.clear();
        b.next.extend((0..m).map(|i| {
            let row: f64 = (0..m).map(|j| kernel(i, j)).sum();
            (0..m).map(|j| kernel(i, j) * b.q[j]).sum::<f64>() / row
        }));
        std::mem::swap(&mut b.q, &mut b.next);
    }

    // Step 4: blend and renormalise.
    for (p, q) in b.p.iter_mut().zip(&b.q) {
        *p = (1.0 - strength) * *p + strength * q;
    }
    let total: f64 = b.p.iter().sum();
    out.extend(
        b.medium
            .iter()
            .zip(&b.p)
            .map(|((_, c), p)| (c.id, p / total)),
    );

    // §4.5: absorption, then the order by the new probabilities (stable:
    // ties keep their rank).
    // p_i·exp(−rate·c_i), renormalised, in the log domain: with every
    // token repeated, each factor may underflow to 0 while their ratios,
    // which are all that SPEC defines, do not.
    if let Some(a) = config.absorption {
        for (id, p) in out.iter_mut() {
            *p = p.ln() - a.rate * f64::from(count(*id));
        }
        let max = out
            .iter()
            .map(|(_, w)| *w)
            .fold(f64::NEG_INFINITY, f64::max);
        out.iter_mut().for_each(|(_, w)| *w = (*w - max).exp());
        let total: f64 = out.iter().map(|(_, p)| p).sum();
        out.iter_mut().for_each(|(_, p)| *p /= total);
        b.order.clear();
        b.order.extend(0..m);
        b.order
            .sort_unstable_by(|&i, &j| out[j].1.total_cmp(&out[i].1).then(i.cmp(&j)));
        b.sorted.clear();
        b.sorted.extend(b.order.iter().map(|&i| out[i]));
        out.clone_from(&b.sorted);
    }
    true
}

/// SPEC §4.4's line through (0, max), (target, strength), (1, min) at `h`,
/// as the interpolation between the two points around `h`, clamped to
/// [min, max].
fn on_the_curve(h: f64, strength: f64, curve: &Adaptive) -> f64 {
    let (t, line) = (
        curve.target,
        |(x0, y0): (f64, f64), (x1, y1): (f64, f64)| y0 + (y1 - y0) * (h - x0) / (x1 - x0),
    );
    let s = if h == t {
        strength
    } else if h < t {
        line((0.0, curve.max), (t, strength))
    } else {
        line((t, strength), (1.0, curve.min))
    };
    s.clamp(curve.min, curve.max)
}
