//! Choosing the medium (SPEC §4.3 step 1): the `k` best finite candidates,
//! ordered by logit descending with ties in input order.
//!
//! No sort of the vocabulary ever happens, and the input's `sorted` flag is
//! not trusted: the data alone decides. Unsorted input is read once, in
//! chunks of [`CHUNK`] candidates, against a running bound `t`: the k-th
//! best logit among the candidates kept so far, which can only rise. A
//! chunk with no logit above `t` is skipped by one vector comparison; the
//! few that have one go through a scalar path that keeps their candidates
//! and, when `2k` are kept, keeps the best `k` and raises `t`. On a full
//! row in random order few chunks take that path once the bound has
//! risen, so the pass costs little more than one read of the logits
//! (BENCHMARKS.md). Chunks of 16 because on AVX-512 the logits of 16
//! candidates (192 bytes) are gathered by three vector loads and two
//! permutes, and the comparison of a whole chunk is one mask test.

use crate::TokenData;

/// Candidates compared with the bound at once.
const CHUNK: usize = 16;

/// A member of the medium as one integer, so that ordering entries is
/// comparing integers (selection and sorting run on plain `u64`s): the
/// logit's bits mapped to an unsigned order and inverted, above the
/// position. Ascending keys are the medium's order — logit descending, ties
/// by position — with -0.0 counted as 0.0. Positions take 32 bits; longer
/// inputs are left untouched (see [`Medium::select`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Entry(u64);

impl Entry {
    /// `logit` finite, `pos` below 2^32.
    fn new(logit: f32, pos: usize) -> Self {
        // `+ 0.0` turns -0.0 into 0.0, which then ties with it.
        let bits = (logit + 0.0).to_bits();
        let ordered = if bits >> 31 == 1 {
            !bits
        } else {
            bits | 1 << 31
        };
        Self(u64::from(!ordered) << 32 | pos as u64)
    }

    pub(crate) fn logit(self) -> f32 {
        let ordered = !((self.0 >> 32) as u32);
        f32::from_bits(if ordered >> 31 == 1 {
            ordered & !(1 << 31)
        } else {
            !ordered
        })
    }

    pub(crate) fn pos(self) -> usize {
        (self.0 & u64::from(u32::MAX)) as usize
    }
}

/// Why no medium was selected: the candidates are left untouched.
#[derive(Debug, PartialEq)]
pub(crate) enum Unusable {
    /// A forced token (`+inf` logit): nothing may be smoothed.
    Forced,
    /// 2^32 candidates or more.
    TooLong,
}

/// Selection state and scratch, reused across applies.
#[derive(Clone, Debug, Default)]
pub(crate) struct Medium {
    /// Unsorted input: the medium, best first (while selecting: the
    /// candidates kept). Empty when the medium is a prefix.
    pub entries: Vec<Entry>,
    /// Sorted input: the medium is `cands[..len]` in its own order, so
    /// apply reads its logits where they are and writes it back in place,
    /// ids untouched; no entry is built.
    pub prefix: Option<usize>,
}

impl Medium {
    /// Finds the top `k` finite candidates, best first: a prefix of a
    /// sorted input, else `entries`.
    /// NaN and `-inf` logits never enter the medium. An input of 2^32
    /// candidates or more (no vocabulary comes near) is reported as too
    /// long: its positions would not all fit an [`Entry`].
    pub(crate) fn select(&mut self, cands: &[TokenData], k: usize) -> Result<(), Unusable> {
        self.prefix = None;
        self.entries.clear();
        if u32::try_from(cands.len()).is_err() {
            return Err(Unusable::TooLong);
        }
        if let Some(n_finite) = finite_prefix_of_sorted(cands) {
            self.prefix = Some(n_finite.min(k));
            return Ok(());
        }
        self.select_unsorted(cands, k)
    }

    /// The number of candidates in the medium.
    pub(crate) fn len(&self) -> usize {
        self.prefix.unwrap_or(self.entries.len())
    }

    /// Writes `logit_i − max` over the medium, best first, into
    /// `out[..len]` (the maximum is the first logit), in f64: exact, as
    /// both are f32.
    #[inline(always)]
    pub(crate) fn logits_minus_max(&self, cands: &[TokenData], out: &mut [f64]) {
        match self.prefix {
            Some(len) => {
                let max = f64::from(cands[0].logit);
                for (x, c) in out.iter_mut().zip(&cands[..len]) {
                    *x = f64::from(c.logit) - max;
                }
            }
            None => {
                let max = f64::from(self.entries[0].logit());
                for (x, e) in out.iter_mut().zip(&self.entries) {
                    *x = f64::from(e.logit()) - max;
                }
            }
        }
    }

    /// Appends the medium's ids, best first, to `out`.
    pub(crate) fn ids(&self, cands: &[TokenData], out: &mut Vec<i32>) {
        match self.prefix {
            Some(len) => out.extend(cands[..len].iter().map(|c| c.id)),
            None => out.extend(self.entry_ids(cands)),
        }
    }

    /// The ids of `entries`, best first: none for a prefix, whose ids stay
    /// where they are.
    pub(crate) fn entry_ids<'a>(
        &'a self,
        cands: &'a [TokenData],
    ) -> impl Iterator<Item = i32> + 'a {
        self.entries.iter().map(|e| cands[e.pos()].id)
    }

    /// The one pass of the module documentation. Kept out of line: after
    /// truncation the input is sorted and this code is not run, and apply's
    /// path is shorter without it in the middle (each code line on that
    /// path is a cache miss right after a model evaluation).
    #[inline(never)]
    fn select_unsorted(&mut self, cands: &[TokenData], k: usize) -> Result<(), Unusable> {
        // A medium cannot outnumber the input; k is bounded only by i32.
        let k = k.min(cands.len());
        // At most 2k entries are kept at once: no allocation after the
        // first unsorted input of this size.
        self.entries.reserve(2 * k);
        // Strictly above `t`: -inf and NaN never pass, and once `t` is the
        // k-th best kept logit, a later equal logit loses the tie to all k.
        let mut t = f32::NEG_INFINITY;
        let mut chunks = cands.chunks_exact(CHUNK);
        for (i, chunk) in chunks.by_ref().enumerate() {
            let logits: [f32; CHUNK] = std::array::from_fn(|j| chunk[j].logit);
            // A fold, not `any`: no early exit, so one vector comparison.
            if logits.iter().fold(false, |above, &x| above | (x > t)) {
                t = self.keep_above(chunk, i * CHUNK, t, k)?;
            }
        }
        let rest = chunks.remainder();
        self.keep_above(rest, cands.len() - rest.len(), t, k)?;
        if self.entries.len() > k {
            self.keep_best(k);
        }
        // Ascending keys: best first.
        self.entries.sort_unstable();
        Ok(())
    }

    /// Keeps the candidates of `chunk` (at `base` in the input) whose logit
    /// is above `t`; returns the new bound.
    #[cold]
    #[inline(never)]
    fn keep_above(
        &mut self,
        chunk: &[TokenData],
        base: usize,
        mut t: f32,
        k: usize,
    ) -> Result<f32, Unusable> {
        for (j, c) in chunk.iter().enumerate() {
            if c.logit > t {
                if c.logit == f32::INFINITY {
                    return Err(Unusable::Forced);
                }
                self.entries.push(Entry::new(c.logit, base + j));
                if self.entries.len() == 2 * k {
                    t = self.keep_best(k);
                }
            }
        }
        Ok(t)
    }

    /// Keeps the best `k` entries (in no particular order) and returns the
    /// logit of the k-th: linear time, where a heap would pay a logarithm
    /// on every entry kept.
    fn keep_best(&mut self, k: usize) -> f32 {
        self.entries.select_nth_unstable(k - 1);
        self.entries.truncate(k);
        self.entries[k - 1].logit()
    }
}

/// If the logits are non-increasing (the usual input after `top_k`,
/// `top_p` or `min_p`, which sort), the medium is a prefix of the input
/// and needs neither heap nor sort; this returns the number of finite
/// logits, which then form the prefix (a `-inf` can only trail). `None`
/// when the input is not sorted, which a NaN also makes it, or when its
/// first logit is `+inf` (a forced token, left to the general path to
/// report). A check that fails usually fails within the first few entries.
fn finite_prefix_of_sorted(cands: &[TokenData]) -> Option<usize> {
    let first = cands.first()?.logit;
    if first == f32::INFINITY || !cands.windows(2).all(|w| w[0].logit >= w[1].logit) {
        return None;
    }
    Some(cands.partition_point(|c| c.logit.is_finite()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cands(logits: &[f32]) -> Vec<TokenData> {
        logits
            .iter()
            .enumerate()
            .map(|(i, &logit)| TokenData {
                id: i as i32,
                logit,
                p: 0.0,
            })
            .collect()
    }

    fn positions(logits: &[f32], k: usize) -> Result<Vec<usize>, Unusable> {
        let mut medium = Medium::default();
        medium.select(&cands(logits), k)?;
        Ok(match medium.prefix {
            Some(len) => (0..len).collect(),
            None => medium.entries.iter().map(|e| e.pos()).collect(),
        })
    }

    #[test]
    fn ties_keep_input_order_and_nonfinite_never_enter() {
        let l = [1.0, f32::NAN, 3.0, 1.0, f32::NEG_INFINITY, 3.0, 2.0];
        assert_eq!(positions(&l, 4).unwrap(), vec![2, 5, 6, 0]);
        assert_eq!(positions(&l, 100).unwrap(), vec![2, 5, 6, 0, 3]);
        assert_eq!(positions(&[0.0, -0.0, 0.0], 2).unwrap(), vec![0, 1]);
    }

    #[test]
    fn a_forced_token_is_reported_wherever_it_is() {
        assert_eq!(
            positions(&[1.0, 2.0, 3.0, f32::INFINITY], 2),
            Err(Unusable::Forced)
        );
        assert_eq!(positions(&[f32::INFINITY, 2.0], 1), Err(Unusable::Forced));
    }

    /// The orders that make the running bound work hardest: rising logits
    /// (every candidate passes, so the kept set is cut back every k
    /// candidates) and a row of equal logits (ties only, decided by
    /// position), on a full-vocabulary-sized row.
    #[test]
    fn worst_orders_for_the_running_bound() {
        let n = 262_144;
        let rising: Vec<f32> = (0..n).map(|i| i as f32 / 1024.0).collect();
        assert_eq!(
            positions(&rising, 64).unwrap(),
            (n - 64..n).rev().collect::<Vec<_>>()
        );
        let mut equal = vec![0.5f32; n];
        equal[n - 1] = 0.25; // not sorted: the general path
        equal[n - 2] = -0.0;
        assert_eq!(positions(&equal, 64).unwrap(), (0..64).collect::<Vec<_>>());
        let mut zeros = vec![0.0f32; n];
        zeros[7] = -0.0;
        zeros[n - 1] = 1.0;
        let mut expected = vec![n - 1];
        expected.extend(0..63);
        assert_eq!(positions(&zeros, 64).unwrap(), expected);
    }

    fn stable_sort_reference(logits: &[f32], k: usize) -> Vec<usize> {
        let mut expected: Vec<usize> = (0..logits.len())
            .filter(|&i| logits[i].is_finite())
            .collect();
        expected.sort_by(|&a, &b| logits[b].partial_cmp(&logits[a]).unwrap());
        expected.truncate(k);
        expected
    }

    proptest! {
        /// The key keeps the logit (-0.0 read back as 0.0) and the position,
        /// and orders entries as the medium is ordered.
        #[test]
        fn entries_order_as_the_medium_does(
            a in proptest::num::f32::NORMAL | proptest::num::f32::SUBNORMAL | proptest::num::f32::ZERO,
            b in proptest::num::f32::NORMAL | proptest::num::f32::ZERO,
            i in 0usize..=u32::MAX as usize,
            j in 0usize..=u32::MAX as usize,
        ) {
            let (x, y) = (Entry::new(a, i), Entry::new(b, j));
            prop_assert_eq!(x.logit().to_bits(), (a + 0.0).to_bits());
            prop_assert_eq!(x.pos(), i);
            let before = a > b || (a == b && i < j);
            prop_assert_eq!(x < y, before);
        }

        /// Many chunks and a small k: the running bound skips most chunks
        /// and compacts the kept entries many times, and must never lose a
        /// member of the medium.
        #[test]
        fn the_running_bound_never_skips_a_member(
            logits in proptest::collection::vec(
                prop_oneof![
                    20 => (-2000i32..2000).prop_map(|x| x as f32 / 100.0),
                    2 => (-3i32..3).prop_map(|x| x as f32),
                    1 => Just(f32::NEG_INFINITY),
                    1 => Just(f32::NAN),
                ],
                0..3000,
            ),
            k in 1usize..40,
        ) {
            prop_assert_eq!(positions(&logits, k).unwrap(), stable_sort_reference(&logits, k));
        }

        #[test]
        fn equals_a_stable_sort_of_the_finite_candidates(
            logits in proptest::collection::vec(
                prop_oneof![
                    8 => (-4i8..4).prop_map(|x| f32::from(x) * 0.5),
                    1 => Just(f32::NEG_INFINITY),
                    1 => Just(f32::NAN),
                ],
                0..400,
            ),
            k in 1usize..90,
        ) {
            prop_assert_eq!(positions(&logits, k).unwrap(), stable_sort_reference(&logits, k));
        }
    }
}
