//! Choosing the medium (SPEC §4.3 step 1): the `k` best finite candidates,
//! ordered by logit descending with ties in input order.
//!
//! No sort of the vocabulary ever happens, and the input's `sorted` flag is
//! not trusted: the data alone decides. Two passes, both linear:
//!
//! 1. The maximum of every block of [`BLOCK`] candidates (branch-free, so
//!    the compiler vectorises it; NaN ignored). The k-th largest block
//!    maximum `T` is a lower bound on the k-th largest logit, because the
//!    k blocks holding the k largest maxima hold k candidates `>= T`.
//! 2. Only blocks whose maximum is `>= T` can hold a member of the medium;
//!    their candidates go through a bounded min-heap in input order.
//!
//! On a full 262,144-token row pass 1 reads everything once and pass 2
//! looks at about k blocks, so the cost stays close to a single read.

use crate::TokenData;
use std::cmp::Ordering;

/// Candidates per block.
pub(crate) const BLOCK: usize = 64;

#[derive(Clone, Copy, Debug)]
pub(crate) struct Entry {
    pub logit: f32,
    pub pos: usize,
}

/// `a` ranks below `b`: smaller logit, or the same logit seen later.
fn worse(a: &Entry, b: &Entry) -> bool {
    a.logit < b.logit || (a.logit == b.logit && a.pos > b.pos)
}

/// A forced token (`+inf` logit) was found: nothing may be smoothed.
#[derive(Debug, PartialEq)]
pub(crate) struct Forced;

/// Selection state and scratch, reused across applies.
#[derive(Clone, Debug, Default)]
pub(crate) struct Medium {
    /// The medium: a heap while selecting, best first afterwards.
    pub entries: Vec<Entry>,
    /// The medium is `cands[..len]` in its own order (sorted input), so
    /// apply can write it back in place, ids untouched.
    pub prefix: bool,
    /// Pass 1: the maximum of each block.
    block_max: Vec<f32>,
    /// The k largest block maxima (a heap), for the bound `T`.
    top_blocks: Vec<Entry>,
}

impl Medium {
    /// Fills `entries` with the top `k` finite candidates, best first.
    /// NaN and `-inf` logits never enter the medium.
    pub(crate) fn select(&mut self, cands: &[TokenData], k: usize) -> Result<(), Forced> {
        self.prefix = false;
        if let Some(n_finite) = finite_prefix_of_sorted(cands) {
            self.prefix = true;
            self.entries.clear();
            self.entries.extend(
                cands
                    .iter()
                    .take(n_finite.min(k))
                    .enumerate()
                    .map(|(pos, c)| Entry {
                        logit: c.logit,
                        pos,
                    }),
            );
            return Ok(());
        }
        self.select_unsorted(cands, k)
    }

    /// The two-pass selection of the module documentation. Kept out of
    /// line: after truncation the input is sorted and this code is not run,
    /// and apply's path is shorter without it in the middle (each code line
    /// on that path is a cache miss right after a model evaluation).
    #[inline(never)]
    fn select_unsorted(&mut self, cands: &[TokenData], k: usize) -> Result<(), Forced> {
        self.block_max.clear();
        self.block_max.extend(cands.chunks(BLOCK).map(block_max));
        if self.block_max.contains(&f32::INFINITY) {
            return Err(Forced);
        }
        self.top_blocks.clear();
        for (b, &m) in self.block_max.iter().enumerate() {
            offer(&mut self.top_blocks, k, Entry { logit: m, pos: b });
        }
        let bound = if self.top_blocks.len() == k {
            self.top_blocks[0].logit
        } else {
            f32::NEG_INFINITY
        };

        self.entries.clear();
        for (b, &m) in self.block_max.iter().enumerate() {
            // A block entirely of NaN/-inf has the maximum -inf.
            if m < bound || m == f32::NEG_INFINITY {
                continue;
            }
            if self.entries.len() == k && m <= self.entries[0].logit {
                continue;
            }
            for (offset, c) in cands[b * BLOCK..].iter().take(BLOCK).enumerate() {
                // Below the bound, a candidate cannot be in the medium even
                // while the heap is still filling.
                if c.logit >= bound && c.logit.is_finite() {
                    offer(
                        &mut self.entries,
                        k,
                        Entry {
                            logit: c.logit,
                            pos: b * BLOCK + offset,
                        },
                    );
                }
            }
        }
        sort_best_first(&mut self.entries);
        Ok(())
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

/// Orders the medium best first: logit descending, ties by position. After
/// top-k/top-p/min-p the medium is usually a handful of entries (about 7 on
/// average in the end-to-end benchmark); up to 16 an insertion sort handles
/// it with a few hundred bytes of code, which matters because apply runs
/// right after a model evaluation has evicted the caches (BENCHMARKS.md).
/// Larger media use the standard library's sort.
fn sort_best_first(entries: &mut [Entry]) {
    // `a` goes before `b`. Finite logits only, so -0.0 ties 0.0.
    let before = |a: &Entry, b: &Entry| a.logit > b.logit || (a.logit == b.logit && a.pos < b.pos);
    if entries.len() > 16 {
        entries.sort_unstable_by(|a, b| {
            if before(a, b) {
                Ordering::Less
            } else if before(b, a) {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        });
        return;
    }
    for i in 1..entries.len() {
        let mut j = i;
        while j > 0 && before(&entries[j], &entries[j - 1]) {
            entries.swap(j, j - 1);
            j -= 1;
        }
    }
}

/// The largest logit of a block, NaN ignored, `+inf` kept. Eight
/// independent lanes and the `x > m ? x : m` form (a NaN compares false and
/// is skipped) map onto vector max instructions.
fn block_max(block: &[TokenData]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = block.chunks_exact(8);
    for chunk in chunks.by_ref() {
        for (lane, c) in lanes.iter_mut().zip(chunk) {
            *lane = if c.logit > *lane { c.logit } else { *lane };
        }
    }
    for c in chunks.remainder() {
        lanes[0] = if c.logit > lanes[0] {
            c.logit
        } else {
            lanes[0]
        };
    }
    lanes
        .into_iter()
        .fold(f32::NEG_INFINITY, |m, x| if x > m { x } else { m })
}

/// Offers `entry` (finite or `-inf`, offered in increasing `pos`) to a
/// min-heap of at most `k` entries by [`worse`]. Until it holds `k`
/// entries it is a plain list (made a heap once, when it fills), so input
/// that never fills the medium costs no heap work; then only a strictly
/// greater logit replaces the weakest, so a later equal logit loses the tie.
#[inline(always)]
fn offer(heap: &mut Vec<Entry>, k: usize, entry: Entry) {
    if heap.len() < k {
        heap.push(entry);
        if heap.len() == k {
            for i in (0..k / 2).rev() {
                sift_down(heap, i);
            }
        }
    } else if entry.logit.partial_cmp(&heap[0].logit) == Some(Ordering::Greater) {
        heap[0] = entry;
        sift_down(heap, 0);
    }
}

/// Restores the min-heap below `i` after its entry grew.
fn sift_down(heap: &mut [Entry], mut i: usize) {
    loop {
        let left = 2 * i + 1;
        if left >= heap.len() {
            break;
        }
        let right = left + 1;
        let child = if right < heap.len() && worse(&heap[right], &heap[left]) {
            right
        } else {
            left
        };
        if !worse(&heap[child], &heap[i]) {
            break;
        }
        heap.swap(i, child);
        i = child;
    }
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

    fn positions(logits: &[f32], k: usize) -> Result<Vec<usize>, Forced> {
        let mut medium = Medium::default();
        medium.select(&cands(logits), k)?;
        Ok(medium.entries.iter().map(|e| e.pos).collect())
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
        assert_eq!(positions(&[1.0, 2.0, 3.0, f32::INFINITY], 2), Err(Forced));
        assert_eq!(positions(&[f32::INFINITY, 2.0], 1), Err(Forced));
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
        /// Many blocks and a small k: the block bound of pass 1 skips most
        /// blocks, and must never skip a member of the medium.
        #[test]
        fn the_block_bound_never_skips_a_member(
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
