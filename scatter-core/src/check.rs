//! The `check-reference` build (on in this crate's tests and in the fuzz
//! targets): every apply of an active sampler on a medium of up to
//! [`MAX_CHECKED_MEDIUM`] candidates is recomputed by the plain reference
//! ([`crate::reference`]) and compared with what the sampler wrote. The
//! sampler calls it; the reference knows nothing of the sampler.

use crate::history::History;
use crate::params::Config;
use crate::reference::{compute, Buffers, MAX_CHECKED_MEDIUM, TOLERANCE};
use crate::{Outcome, TokenData, PROBABILITY_FLOOR};
use std::cell::RefCell;

#[derive(Default)]
struct State {
    buffers: Buffers,
    expected: Vec<(i32, f64)>,
    written: Vec<(i32, f64, f64)>,
}

thread_local! {
    static STATE: RefCell<State> = RefCell::default();
}

/// The reference result of one apply, taken before the sampler writes.
pub(crate) struct Check {
    /// `None`: the medium is too large to check.
    rewritten: Option<bool>,
}

impl Check {
    pub(crate) fn before(config: &Config, candidates: &[TokenData], history: &History) -> Self {
        let finite = candidates.iter().filter(|c| c.logit.is_finite()).count();
        if finite.min(config.k) > MAX_CHECKED_MEDIUM {
            return Self { rewritten: None };
        }
        let rewritten = STATE.with_borrow_mut(|s| {
            compute(
                config,
                candidates,
                |id| history.count(id),
                &mut s.buffers,
                &mut s.expected,
            )
        });
        Self {
            rewritten: Some(rewritten),
        }
    }

    /// Panics unless `outcome` and `candidates` are what the reference
    /// computed: the same tokens (as a multiset, since a path may order
    /// exact ties differently), each p within [`TOLERANCE`], each logit
    /// `ln(max(p, PROBABILITY_FLOOR))` (its `exp` within [`TOLERANCE`] of `max(p, PROBABILITY_FLOOR)`),
    /// the logits non-increasing as written.
    pub(crate) fn after(self, candidates: &[TokenData], outcome: Outcome) {
        let Some(rewritten) = self.rewritten else {
            return;
        };
        let size = match outcome {
            Outcome::Untouched => {
                assert!(
                    !rewritten,
                    "the sampler left an array the reference rewrites"
                );
                return;
            }
            Outcome::Rewritten { size } => size,
        };
        assert!(
            rewritten,
            "the sampler rewrote an array the reference leaves untouched"
        );
        let written = &candidates[..size];
        assert!(
            written.windows(2).all(|w| w[0].logit >= w[1].logit),
            "the written logits are not in non-increasing order"
        );
        STATE.with_borrow_mut(|s| {
            s.written.clear();
            s.written.extend(
                written
                    .iter()
                    .map(|c| (c.id, f64::from(c.p), f64::from(c.logit))),
            );
            s.written
                .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            s.expected
                .sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            assert_eq!(
                s.written.len(),
                s.expected.len(),
                "medium size differs from the reference"
            );
            for (&(id, p, logit), &(expected_id, expected_p)) in s.written.iter().zip(&s.expected) {
                assert!(
                    id == expected_id
                        && (p - expected_p).abs() <= TOLERANCE
                        && (logit.exp() - expected_p.max(PROBABILITY_FLOOR)).abs() <= TOLERANCE,
                    "token {id} p {p} logit {logit} differs from the reference: \
                     token {expected_id} p {expected_p}"
                );
            }
        });
    }
}
