//! The collision gate (SPEC §4.2): a seeded RNG kept in the sampler's state,
//! like llama.cpp's `xtc`, drawn once per apply while `collision < 1`.

use crate::params::DEFAULT_SEED;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

/// SplitMix64: tiny state (so clones are cheap and exact), full 2^64 period,
/// and well-distributed output even from small consecutive seeds.
#[derive(Clone, Debug, PartialEq)]
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A seed from the process's hash randomisation and the clock; used for
/// [`DEFAULT_SEED`], where llama.cpp would use `std::random_device`.
fn random_seed() -> u32 {
    let mut h = RandomState::new().build_hasher();
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    h.write_u128(now);
    h.finish() as u32
}

/// Decides, per apply, whether scattering happens.
#[derive(Clone, Debug)]
pub(crate) struct CollisionGate {
    /// `None`: always fires, draws nothing (`collision >= 1`).
    collision: Option<f64>,
    seed: u32,
    rng: SplitMix64,
}

impl CollisionGate {
    pub(crate) fn new(collision: Option<f64>, seed: u32) -> Self {
        let mut gate = Self {
            collision,
            seed,
            rng: SplitMix64(0),
        };
        gate.reset();
        gate
    }

    /// Restarts the stream from the seed; a fresh random seed each time for
    /// [`DEFAULT_SEED`], as llama.cpp's `dist` does on reset.
    pub(crate) fn reset(&mut self) {
        let seed = if self.seed == DEFAULT_SEED {
            random_seed()
        } else {
            self.seed
        };
        self.rng = SplitMix64(u64::from(seed));
    }

    /// Draws u in [0, 1) and fires when u < collision.
    pub(crate) fn fires(&mut self) -> bool {
        match self.collision {
            None => true,
            Some(rate) => self.rng.next_unit() < rate,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decisions(gate: &mut CollisionGate, n: usize) -> Vec<bool> {
        (0..n).map(|_| gate.fires()).collect()
    }

    #[test]
    fn same_seed_same_stream_and_reset_restarts_it() {
        let mut a = CollisionGate::new(Some(0.5), 42);
        let mut b = CollisionGate::new(Some(0.5), 42);
        let first = decisions(&mut a, 200);
        assert_eq!(first, decisions(&mut b, 200));
        a.reset();
        assert_eq!(first, decisions(&mut a, 200));
        let mut c = CollisionGate::new(Some(0.5), 43);
        assert_ne!(first, decisions(&mut c, 200));
    }

    #[test]
    fn clone_continues_the_stream() {
        let mut a = CollisionGate::new(Some(0.3), 7);
        decisions(&mut a, 17);
        let mut b = a.clone();
        assert_eq!(decisions(&mut a, 100), decisions(&mut b, 100));
    }

    #[test]
    #[cfg_attr(miri, ignore = "400,000 draws: too slow under Miri")]
    fn rate_matches_the_setting() {
        for rate in [0.05, 0.25, 0.5, 0.9] {
            let mut g = CollisionGate::new(Some(rate), 1234);
            let n = 100_000;
            let fired = decisions(&mut g, n).iter().filter(|&&f| f).count();
            let observed = fired as f64 / n as f64;
            assert!(
                (observed - rate).abs() < 0.01,
                "rate {rate}: observed {observed}"
            );
        }
    }

    #[test]
    fn no_gate_always_fires_without_drawing() {
        let mut g = CollisionGate::new(None, 5);
        let before = g.rng.clone();
        assert!(decisions(&mut g, 10).into_iter().all(|f| f));
        assert_eq!(g.rng, before);
    }

    #[test]
    fn default_seed_picks_different_streams() {
        let mut a = CollisionGate::new(Some(0.5), DEFAULT_SEED);
        let mut b = CollisionGate::new(Some(0.5), DEFAULT_SEED);
        assert_ne!(decisions(&mut a, 64), decisions(&mut b, 64));
    }
}
