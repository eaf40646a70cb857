//! Choosing the medium (SPEC §4.3 step 1): the `k` best finite candidates,
//! ordered by logit descending with ties in input order.
//!
//! One pass with a bounded min-heap: after the heap holds `k` entries, a
//! candidate costs a single comparison against the current k-th best, so the
//! work is linear in the number of candidates plus `O(log k)` per
//! improvement. No sort of the vocabulary ever happens. The input's `sorted`
//! flag is not trusted: the data alone decides.

use crate::TokenData;
use std::cmp::Ordering;

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

/// Fills `medium` with the top `k` finite candidates, best first.
/// NaN and `-inf` logits never enter the medium.
pub(crate) fn select(cands: &[TokenData], k: usize, medium: &mut Vec<Entry>) -> Result<(), Forced> {
    medium.clear();
    // Fill phase: the first k finite candidates, in input order. When the
    // input never fills the medium (the usual case after top-k/top-p), no
    // heap is built and the final sort sees input order, which for sorted
    // input it recognises in one pass.
    let mut rest = cands.iter().enumerate();
    for (pos, c) in rest.by_ref() {
        if c.logit == f32::INFINITY {
            return Err(Forced);
        }
        if c.logit.is_finite() {
            medium.push(Entry {
                logit: c.logit,
                pos,
            });
            if medium.len() == k {
                break;
            }
        }
    }
    if medium.len() == k {
        for i in (0..k / 2).rev() {
            sift_down(medium, i);
        }
        // Steady phase: blocks whose largest logit cannot enter the medium
        // are skipped after one branch-free max over the block; only a
        // block holding a contender is examined candidate by candidate.
        let start = rest.next().map_or(cands.len(), |(pos, _)| pos);
        for (b, block) in cands[start..].chunks(BLOCK).enumerate() {
            if block_max(block) <= medium[0].logit {
                continue;
            }
            for (offset, c) in block.iter().enumerate() {
                // Only a strictly greater logit gets in: this also rejects
                // NaN and -inf, and a later equal logit loses the tie.
                if c.logit.partial_cmp(&medium[0].logit) != Some(Ordering::Greater) {
                    continue;
                }
                if c.logit == f32::INFINITY {
                    return Err(Forced);
                }
                medium[0] = Entry {
                    logit: c.logit,
                    pos: start + b * BLOCK + offset,
                };
                sift_down(medium, 0);
            }
        }
    }
    // Finite logits only, so partial_cmp always answers; -0.0 ties 0.0.
    medium.sort_unstable_by(|a, b| {
        b.logit
            .partial_cmp(&a.logit)
            .unwrap_or(Ordering::Equal)
            .then(a.pos.cmp(&b.pos))
    });
    Ok(())
}

/// Candidates per block of the steady phase.
const BLOCK: usize = 64;

/// The largest logit of a block, NaN ignored (`f32::max`), `+inf` kept.
/// Eight independent lanes let the compiler vectorise the reduction.
fn block_max(block: &[TokenData]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut chunks = block.chunks_exact(8);
    for chunk in chunks.by_ref() {
        for (lane, c) in lanes.iter_mut().zip(chunk) {
            *lane = lane.max(c.logit);
        }
    }
    for c in chunks.remainder() {
        lanes[0] = lanes[0].max(c.logit);
    }
    lanes.into_iter().fold(f32::NEG_INFINITY, f32::max)
}

/// Min-heap by [`worse`]: the root is the weakest member of the medium.
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
        let mut medium = Vec::new();
        select(&cands(logits), k, &mut medium)?;
        Ok(medium.iter().map(|e| e.pos).collect())
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

    proptest! {
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
            let mut expected: Vec<usize> = (0..logits.len()).filter(|&i| logits[i].is_finite()).collect();
            expected.sort_by(|&a, &b| logits[b].partial_cmp(&logits[a]).unwrap());
            expected.truncate(k);
            prop_assert_eq!(positions(&logits, k).unwrap(), expected);
        }
    }
}
