//! Absorption history (SPEC §4.5, §4.7): the last `window` accepted tokens in
//! a ring buffer, plus a running count per token so that an apply looks up
//! `c_i` in O(1) instead of rescanning the window for every candidate.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

#[derive(Clone, Debug, Default)]
pub(crate) struct History {
    window: usize,
    /// Grows as tokens arrive, up to `window`; then `next` is the oldest.
    ring: Vec<i32>,
    next: usize,
    counts: HashMap<i32, u32, BuildHasherDefault<TokenHasher>>,
}

/// A multiplicative (Fibonacci) hash of a token id. The standard SipHash
/// made absorption's lookups, one per medium entry and apply, cost more
/// than the rest of apply. SipHash guards against keys chosen to collide;
/// here the keys are token ids below the vocabulary size, and ids share a
/// bucket only when they agree in their low bits, which bounds any bucket
/// of a 65,536-token window to a handful of ids.
#[derive(Default)]
pub(crate) struct TokenHasher(u64);

impl Hasher for TokenHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u8(b);
        }
    }

    fn write_u8(&mut self, b: u8) {
        self.write_u32(u32::from(b));
    }

    fn write_u32(&mut self, x: u32) {
        self.0 = (self.0.rotate_left(32) ^ u64::from(x)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }

    fn write_i32(&mut self, x: i32) {
        self.write_u32(x as u32);
    }
}

impl History {
    pub(crate) fn new(window: usize) -> Self {
        Self {
            window,
            ..Self::default()
        }
    }

    pub(crate) fn accept(&mut self, token: i32) {
        if self.window == 0 {
            return;
        }
        if self.ring.len() < self.window {
            self.ring.push(token);
        } else {
            let evicted = std::mem::replace(&mut self.ring[self.next], token);
            self.next = (self.next + 1) % self.window;
            if let Some(c) = self.counts.get_mut(&evicted) {
                *c -= 1;
                if *c == 0 {
                    self.counts.remove(&evicted);
                }
            }
        }
        *self.counts.entry(token).or_insert(0) += 1;
    }

    /// How often `token` occurs among the last `window` accepted tokens.
    pub(crate) fn count(&self, token: i32) -> u32 {
        self.counts.get(&token).copied().unwrap_or(0)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.counts.is_empty()
    }

    pub(crate) fn clear(&mut self) {
        self.ring.clear();
        self.next = 0;
        self.counts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn counts_equal_a_rescan_of_the_last_window(
            window in 1usize..12,
            tokens in proptest::collection::vec(0i32..6, 0..60),
        ) {
            let mut h = History::new(window);
            for (i, &t) in tokens.iter().enumerate() {
                h.accept(t);
                let start = (i + 1).saturating_sub(window);
                let recent = &tokens[start..=i];
                for probe in 0..6 {
                    let expected = recent.iter().filter(|&&x| x == probe).count() as u32;
                    prop_assert_eq!(h.count(probe), expected);
                }
            }
        }
    }

    #[test]
    fn clear_forgets_everything() {
        let mut h = History::new(4);
        for t in [1, 2, 2, 3, 4, 2] {
            h.accept(t);
        }
        assert_eq!(h.count(2), 2);
        h.clear();
        assert!(h.is_empty());
        assert_eq!(h.count(2), 0);
        h.accept(9);
        assert_eq!(h.count(9), 1);
    }
}
