//! SPEC §4.3 step 3 with `steps = n`: `q = (D⁻¹K)ⁿ p`, as n banded passes
//! of the kernel or, for n > 1 on short media, as one dense operator.
//!
//! n passes cost about n·m·(2·reach + 1) multiply-adds. The n-step operator
//! is not a function of rank distance (the row normalisation differs near
//! both ends of the medium), but for a given radius and n it depends on the
//! medium size m alone, so one m × m matrix per size serves every apply on a
//! medium of that size, in m² multiply-adds whatever n is. A matrix is built
//! the first time its size occurs, from the banded passes themselves
//! (column j is the n-step image of the unit vector e_j), so it is the same
//! operator up to rounding; and which path serves a size depends only on
//! (radius, n, k, m), never on which sizes came before, so a result does
//! not depend on the sampler's past.

use crate::kernel::{RankKernel, Smoothing, MAX_SHORT_MEDIUM, PASS_BLOCK};

/// Largest medium served by a dense operator. Storage for every size up to
/// it (Σ m·⌈m⌉₁₆ doubles, ~0.76 MB at 64) is reserved, zeroed, when the
/// sampler is made, so that apply never allocates; glibc serves a block
/// that large from fresh zero pages, which stay unmapped until a size
/// occurs. 64 is the largest `k` of the SPEC §6 presets.
const MAX_DENSE_MEDIUM: usize = 64;

#[derive(Clone, Debug)]
pub(crate) struct Diffusion {
    kernel: RankKernel,
    steps: u32,
    /// The dense operators; `None` (nothing allocated, and a sampler one
    /// pointer larger) when no size has one, e.g. for `steps` = 1.
    dense: Option<Box<Operators>>,
}

#[derive(Debug)]
struct Operators {
    /// Largest size with a dense operator (at least 2).
    limit: usize,
    /// `offsets[m]`: start of the operator of size m in `storage`, stored
    /// by columns, each padded with zeros to a multiple of [`PASS_BLOCK`].
    offsets: Vec<usize>,
    /// `built[m]`: whether the operator of size m is in `storage`.
    built: Vec<bool>,
    storage: Vec<f64>,
}

impl Diffusion {
    pub(crate) fn new(radius: f64, steps: u32, k: usize) -> Self {
        let kernel = RankKernel::new(radius);
        // Dense costs m², the passes about n·m·min(m, 2·reach + 1): for
        // n > 1 dense is the cheaper below n·(2·reach + 1).
        let limit = if steps > 1 {
            let band = 2 * kernel.reach() + 1;
            k.min(MAX_DENSE_MEDIUM).min(steps as usize * band - 1)
        } else {
            0
        };
        Self {
            kernel,
            steps,
            dense: (limit >= 2).then(|| Box::new(Operators::new(limit))),
        }
    }

    /// `(D⁻¹K)ⁿ p` for a medium of 2 to `N` ranks held in `N` lanes, zeros
    /// past its end, `N` being [`MAX_SHORT_MEDIUM`] ([`RankKernel::smooth_one_vector`]) or
    /// [`crate::kernel::MAX_STACK_MEDIUM`] (the dense operator where there is one, else
    /// [`RankKernel::smooth_toeplitz`]).
    #[inline(always)]
    pub(crate) fn smooth_on_stack<const N: usize>(
        &mut self,
        p: &[f64; N],
        m: usize,
        s: &mut Smoothing,
        q: &mut [f64; N],
    ) {
        if N == MAX_SHORT_MEDIUM {
            *q = self.kernel.smooth_one_vector(p, m, self.steps);
            return;
        }
        match &mut self.dense {
            Some(ops) if m <= ops.limit => {
                let operator = ops.operator(m, &self.kernel, self.steps, s);
                apply_dense(operator, stride(m), &p[..m], &mut q[..m]);
            }
            _ => self.kernel.smooth_toeplitz(p, m, self.steps, q),
        }
    }

    /// `(D⁻¹K)ⁿ p` for a medium of two or more.
    pub(crate) fn smooth<'a>(&mut self, p: &[f64], s: &'a mut Smoothing) -> &'a [f64] {
        let m = p.len();
        match &mut self.dense {
            Some(ops) if m <= ops.limit => {
                let operator = ops.operator(m, &self.kernel, self.steps, s);
                let out = s.result(m);
                apply_dense(operator, stride(m), p, out);
                out
            }
            _ => self.kernel.smooth(p, self.steps, s),
        }
    }

    #[cfg(test)]
    fn limit(&self) -> usize {
        self.dense.as_ref().map_or(0, |ops| ops.limit)
    }
}

impl Operators {
    /// The operator of size m (at most `limit`), built the first time.
    fn operator(&mut self, m: usize, kernel: &RankKernel, steps: u32, s: &mut Smoothing) -> &[f64] {
        let operator = &mut self.storage[self.offsets[m]..][..m * stride(m)];
        if !self.built[m] {
            build(kernel, steps, m, operator, s);
            self.built[m] = true;
        }
        operator
    }

    fn new(limit: usize) -> Self {
        let offsets: Vec<usize> = (0..=limit)
            .scan(0, |end, m| {
                let start = *end;
                *end += m * stride(m);
                Some(start)
            })
            .collect();
        let total = offsets[limit] + limit * stride(limit);
        Self {
            limit,
            offsets,
            built: vec![false; limit + 1],
            storage: vec![0.0; total],
        }
    }
}

/// Operators are a pure function of the parameters, so a clone starts
/// without them and builds what it uses: cloning copies no matrices.
impl Clone for Operators {
    fn clone(&self) -> Self {
        Self::new(self.limit)
    }
}

fn stride(m: usize) -> usize {
    m.next_multiple_of(PASS_BLOCK)
}

/// Column j of `operator` (zeros on entry) ← n banded passes over e_j.
fn build(kernel: &RankKernel, steps: u32, m: usize, operator: &mut [f64], s: &mut Smoothing) {
    for (j, column) in operator.chunks_exact_mut(stride(m)).enumerate() {
        column[j] = 1.0;
        let image = kernel.smooth(&column[..m], steps, s);
        column[..m].copy_from_slice(image);
    }
}

/// `out = A p` for A stored by padded columns: blocks of [`PASS_BLOCK`] rows
/// accumulated in registers over the columns, even and odd columns in two
/// sums so that each lane's additions form two chains, not one.
fn apply_dense(operator: &[f64], stride: usize, p: &[f64], out: &mut [f64]) {
    for (block, out) in out.chunks_mut(PASS_BLOCK).enumerate() {
        let rows = |j: usize| &operator[j * stride + block * PASS_BLOCK..][..PASS_BLOCK];
        let mut even = [0.0; PASS_BLOCK];
        let mut odd = [0.0; PASS_BLOCK];
        let axpy = |acc: &mut [f64; PASS_BLOCK], x: f64, column: &[f64]| {
            for (a, c) in acc.iter_mut().zip(column) {
                *a += x * c;
            }
        };
        for (pair, j) in p.chunks(2).zip((0..).step_by(2)) {
            axpy(&mut even, pair[0], rows(j));
            if let Some(&x) = pair.get(1) {
                axpy(&mut odd, x, rows(j + 1));
            }
        }
        for ((o, a), b) in out.iter_mut().zip(even).zip(odd) {
            *o = a + b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn distribution(m: usize) -> Vec<f64> {
        let raw: Vec<f64> = (0..m).map(|i| 1.0 / (1.0 + i as f64).powf(1.3)).collect();
        let sum: f64 = raw.iter().sum();
        raw.iter().map(|x| x / sum).collect()
    }

    #[test]
    fn the_dense_operator_equals_the_passes() {
        for (radius, steps) in [(0.5, 2), (2.5, 4), (7.0, 8), (16.0, 3)] {
            let mut diffusion = Diffusion::new(radius, steps, 64);
            let kernel = RankKernel::new(radius);
            let limit = diffusion.limit();
            assert!(limit >= 17, "radius {radius} steps {steps}");
            for m in [2, 3, 17, 40, 64].into_iter().filter(|&m| m <= limit) {
                let p = distribution(m);
                let (mut dense, mut passes) = (Smoothing::default(), Smoothing::default());
                let q = diffusion.smooth(&p, &mut dense);
                let expected = kernel.smooth(&p, steps, &mut passes);
                for (a, b) in q.iter().zip(expected) {
                    assert!((a - b).abs() <= 1e-15, "radius {radius} m {m}: {a} vs {b}");
                }
            }
        }
    }

    #[test]
    fn dense_only_where_it_is_cheaper_and_never_for_one_step() {
        assert_eq!(Diffusion::new(2.5, 1, 64).limit(), 0);
        assert_eq!(Diffusion::new(2.5, 4, 40).limit(), 40);
        assert_eq!(Diffusion::new(2.5, 4, 1000).limit(), MAX_DENSE_MEDIUM);
        // Reach 1: a pass costs 3 multiply-adds per rank, 2 passes 6.
        let narrow = Diffusion::new(0.15, 2, 64);
        assert_eq!(narrow.kernel.reach(), 1);
        assert_eq!(narrow.limit(), 5);
    }

    #[test]
    fn results_do_not_depend_on_what_was_built_before_or_on_cloning() {
        let mut first = Diffusion::new(2.5, 4, 64);
        let mut scratch = Smoothing::default();
        let p40 = distribution(40);
        let fresh = first.smooth(&p40, &mut scratch).to_vec();
        for m in [7, 64, 40, 3] {
            first.smooth(&distribution(m), &mut scratch);
        }
        let mut clone = first.clone();
        assert_eq!(first.smooth(&p40, &mut scratch), fresh);
        assert_eq!(clone.smooth(&p40, &mut scratch), fresh);
    }
}
