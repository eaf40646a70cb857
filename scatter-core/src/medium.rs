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
    for (pos, c) in cands.iter().enumerate() {
        let logit = c.logit;
        if medium.len() == k {
            // Only a strictly greater logit gets in: this also rejects NaN
            // and -inf, and a later equal logit loses the tie.
            if logit.partial_cmp(&medium[0].logit) != Some(Ordering::Greater) {
                continue;
            }
        }
        if logit == f32::INFINITY {
            return Err(Forced);
        }
        if !logit.is_finite() {
            continue;
        }
        let entry = Entry { logit, pos };
        if medium.len() < k {
            medium.push(entry);
            let last = medium.len() - 1;
            sift_up(medium, last);
        } else {
            medium[0] = entry;
            sift_down(medium, 0);
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

/// Min-heap by [`worse`]: the root is the weakest member of the medium.
fn sift_up(heap: &mut [Entry], mut i: usize) {
    while i > 0 {
        let parent = (i - 1) / 2;
        if !worse(&heap[i], &heap[parent]) {
            break;
        }
        heap.swap(i, parent);
        i = parent;
    }
}

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
                0..80,
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
