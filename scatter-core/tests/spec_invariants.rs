//! SPEC §5 invariants of the core on random inputs, and its output against
//! the plain float64 reference of SPEC §4 (`scatter_core::reference`).

use proptest::prelude::*;
use scatter_core::{Outcome, Params, Scatter, TokenData, PROBABILITY_FLOOR};

fn candidates(logits: &[f32]) -> Vec<TokenData> {
    logits
        .iter()
        .enumerate()
        .map(|(i, &logit)| TokenData {
            id: 1000 + i as i32,
            logit,
            p: -1.0,
        })
        .collect()
}

fn logit_strategy() -> impl Strategy<Value = f32> {
    prop_oneof![
        10 => (-300i32..300).prop_map(|x| x as f32 / 20.0),
        3 => (-3i32..3).prop_map(|x| x as f32),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::NAN),
    ]
}

fn params_strategy() -> impl Strategy<Value = Params> {
    (
        2i32..80,
        0.0f32..1.0,
        0.2f32..12.0,
        1i32..5,
        any::<bool>(),
        (0.0f32..0.5, 0.0f32..1.0, 0.01f32..0.99),
        prop_oneof![Just(0.0f32), 0.0f32..0.5],
        1i32..20,
    )
        .prop_map(
            |(k, strength, radius, steps, adaptive, (lo, hi, target), absorption, last_n)| Params {
                k,
                strength,
                radius,
                steps,
                adaptive,
                strength_min: lo,
                strength_max: hi,
                entropy_target: target,
                absorption,
                absorption_last_n: last_n,
                ..Params::default()
            },
        )
}

fn assert_sorted_and_normalised(out: &[TokenData]) {
    for w in out.windows(2) {
        assert!(w[0].p >= w[1].p, "p not non-increasing: {w:?}");
        assert!(w[0].logit >= w[1].logit, "logits not non-increasing: {w:?}");
    }
    let sum: f64 = out.iter().map(|c| f64::from(c.p)).sum();
    assert!((sum - 1.0).abs() <= 1e-6, "p sums to {sum}");
    assert!(out
        .iter()
        .all(|c| c.p.is_finite() && c.p >= 0.0 && c.logit.is_finite()));
    // softmax(written logits) equals p, up to the mass floored at ε.
    let max = f64::from(out[0].logit);
    let z: f64 = out.iter().map(|c| (f64::from(c.logit) - max).exp()).sum();
    for c in out {
        let soft = (f64::from(c.logit) - max).exp() / z;
        if f64::from(c.p) > PROBABILITY_FLOOR {
            assert!(
                (soft - f64::from(c.p)).abs() <= 1e-6,
                "softmax {soft} vs p {}",
                c.p
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn output_matches_the_reference_and_every_invariant(
        logits in proptest::collection::vec(logit_strategy(), 0..120),
        params in params_strategy(),
        history in proptest::collection::vec(0i32..12, 0..30),
    ) {
        let mut scatter = Scatter::new(&params);
        let history: Vec<i32> = history.iter().map(|h| 1000 + h * 3).collect();
        for &t in &history {
            scatter.accept(t);
        }
        let input = candidates(&logits);
        let mut out = input.clone();
        let n_finite = logits.iter().filter(|l| l.is_finite()).count();
        let outcome = scatter.apply(&mut out);
        if n_finite < 2 {
            prop_assert_eq!(outcome, Outcome::Untouched);
            prop_assert_eq!(format!("{out:?}"), format!("{input:?}"));
            return Ok(());
        }
        let m = n_finite.min(params.k as usize);
        prop_assert_eq!(outcome, Outcome::Rewritten { size: m });

        // The same candidates already sorted (as after top-k) take another
        // path through selection, and must give the same bits.
        let mut sorted = input.clone();
        sorted.sort_by(|a, b| match (a.logit.is_nan(), b.logit.is_nan()) {
            (false, false) => b.logit.partial_cmp(&a.logit).unwrap(),
            (x, y) => x.cmp(&y),
        });
        let mut twin = Scatter::new(&params);
        for &t in &history {
            twin.accept(t);
        }
        prop_assert_eq!(twin.apply(&mut sorted), Outcome::Rewritten { size: m });
        prop_assert_eq!(format!("{:?}", &sorted[..m]), format!("{:?}", &out[..m]));
        let out = &out[..m];
        assert_sorted_and_normalised(out);

        let expected = scatter_core::reference::scatter(&params, &input, &history)
            .expect("the reference rewrites what the sampler rewrites");
        prop_assert_eq!(expected.len(), m);
        let absorbing = params.absorption > 0.0;
        for (got, (id, p)) in out.iter().zip(&expected) {
            prop_assert!((f64::from(got.p) - p).abs() <= 1e-6, "p {} vs reference {}", got.p, p);
            if !absorbing {
                // Order stability: exactly the input ranking.
                prop_assert_eq!(got.id, *id);
            }
        }
        if absorbing {
            // Tokens that were not repeated keep their relative order.
            let window = &history[history.len().saturating_sub(params.absorption_last_n as usize)..];
            let mut ranked: Vec<&TokenData> = input.iter().filter(|c| c.logit.is_finite()).collect();
            ranked.sort_by(|a, b| b.logit.partial_cmp(&a.logit).unwrap());
            let kept = |ids: Vec<i32>| -> Vec<i32> {
                ids.into_iter().filter(|id| !window.contains(id)).collect()
            };
            prop_assert_eq!(
                kept(out.iter().map(|c| c.id).collect()),
                kept(ranked.iter().take(m).map(|c| c.id).collect())
            );
        }
        // No tail wake-up: every output token was in the input's top-k finite.
        let medium_ids: Vec<i32> = expected.iter().map(|(id, _)| *id).collect();
        prop_assert!(out.iter().all(|c| medium_ids.contains(&c.id)));
    }

    #[test]
    fn argmax_is_preserved_without_absorption(
        logits in proptest::collection::vec(logit_strategy(), 2..120),
        params in params_strategy(),
    ) {
        let params = Params { absorption: 0.0, ..params };
        let input = candidates(&logits);
        let best = input.iter().filter(|c| c.logit.is_finite()).fold(None::<TokenData>, |b, c| match b {
            Some(b) if b.logit >= c.logit => Some(b),
            _ => Some(*c),
        });
        let mut out = input.clone();
        if let Outcome::Rewritten { .. } = Scatter::new(&params).apply(&mut out) {
            prop_assert_eq!(out[0].id, best.unwrap().id);
        }
    }

    #[test]
    fn a_gate_that_does_not_fire_leaves_every_bit(
        logits in proptest::collection::vec(logit_strategy(), 0..60),
        seed in any::<u32>(),
    ) {
        let params = Params { strength: 0.3, collision: 0.5, seed, ..Params::default() };
        let mut scatter = Scatter::new(&params);
        let input = candidates(&logits);
        for _ in 0..20 {
            let mut out = input.clone();
            if scatter.apply(&mut out) == Outcome::Untouched {
                let bits = |v: &[TokenData]| v.iter().map(|c| (c.id, c.logit.to_bits(), c.p.to_bits())).collect::<Vec<_>>();
                prop_assert_eq!(bits(&out), bits(&input));
            }
        }
    }
}

#[test]
fn noop_sampler_never_touches_its_input() {
    let input = candidates(&[3.0, 1.0, f32::NAN, 2.0, f32::NEG_INFINITY]);
    for params in [
        Params::default(),
        Params::fixed(1, 0.5, 2.5, 1),
        Params::fixed(64, 0.5, 2.5, 0),
    ] {
        let mut s = Scatter::new(&params);
        assert!(!s.is_active());
        assert_eq!(s.name().to_str(), Ok("?scatter"));
        let mut out = input.clone();
        assert_eq!(s.apply(&mut out), Outcome::Untouched);
        assert_eq!(format!("{out:?}"), format!("{input:?}"));
    }
}

#[test]
fn a_forced_token_is_not_smoothed() {
    let input = candidates(&[3.0, f32::INFINITY, 2.0]);
    let mut out = input.clone();
    assert_eq!(
        Scatter::new(&Params::fixed(64, 0.5, 2.5, 1)).apply(&mut out),
        Outcome::Untouched
    );
    assert_eq!(format!("{out:?}"), format!("{input:?}"));
}

#[test]
fn absorption_lowers_exactly_the_repeated_tokens() {
    // Absorption only (strength 0): p_i = softmax_i · exp(-a·c_i) / Z, so
    // weights 1, e^-2.6, e^-1, e^-2.2: token 1001 drops below 1003.
    let params = Params {
        absorption: 0.7,
        absorption_last_n: 4,
        ..Params::default()
    };
    let mut s = Scatter::new(&params);
    // Window of 4 keeps [1001, 1001, 1003, 1001] from these six.
    for t in [1000, 1002, 1001, 1001, 1003, 1001] {
        s.accept(t);
    }
    let logits = [2.0f32, 1.5, 1.0, 0.5];
    let mut out = candidates(&logits);
    assert_eq!(s.apply(&mut out), Outcome::Rewritten { size: 4 });
    let counts = [0.0f64, 3.0, 0.0, 1.0];
    let w: Vec<f64> = logits
        .iter()
        .zip(counts)
        .map(|(&l, c)| (f64::from(l) - 2.0).exp() * (-0.7 * c).exp())
        .collect();
    let z: f64 = w.iter().sum();
    let expected_order = [1000, 1002, 1003, 1001];
    for (got, id) in out.iter().zip(expected_order) {
        assert_eq!(got.id, id);
        let i = (id - 1000) as usize;
        assert!((f64::from(got.p) - w[i] / z).abs() < 1e-7);
    }
    // A reset forgets the history: plain softmax again.
    s.reset();
    let mut out = candidates(&logits);
    s.apply(&mut out);
    assert_eq!(
        out.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![1000, 1001, 1002, 1003]
    );
}

#[test]
fn a_full_gemma_sized_medium_stays_normalised() {
    let n = 262_144;
    // Zipf-like logits with plenty of ties.
    let logits: Vec<f32> = (0..n)
        .map(|i| -((1 + i % 50_000) as f32).ln() * 1.1)
        .collect();
    let mut out = candidates(&logits);
    let outcome = Scatter::new(&Params::fixed(n as i32, 0.3, 2.5, 2)).apply(&mut out);
    assert_eq!(outcome, Outcome::Rewritten { size: n });
    assert_sorted_and_normalised(&out);
}

#[test]
fn clone_continues_and_reset_restarts_the_gate() {
    let params = Params {
        strength: 0.3,
        collision: 0.4,
        seed: 99,
        ..Params::default()
    };
    let input = candidates(&[2.0, 1.0, 0.0]);
    let fired = |s: &mut Scatter, n: usize| -> Vec<bool> {
        (0..n)
            .map(|_| s.apply(&mut input.clone()) != Outcome::Untouched)
            .collect()
    };
    let mut a = Scatter::new(&params);
    let first = fired(&mut a, 50);
    let mut b = a.clone();
    assert_eq!(fired(&mut a, 50), fired(&mut b, 50));
    a.reset();
    assert_eq!(fired(&mut a, 50), first);
    assert_eq!(fired(&mut Scatter::new(&params), 50), first);
}

/// Found by the c_api fuzz target (its input is in fuzz/seeds/c_api): with
/// every candidate repeated, every absorption factor underflows to 0; SPEC
/// defines only their ratios, which the sampler and the reference both keep
/// (the reference gave NaN before it worked in the log domain).
#[test]
fn absorption_that_underflows_every_factor_keeps_the_ratios() {
    let params = Params {
        k: 4,
        strength: 0.3,
        absorption: 1000.0,
        ..Params::default()
    };
    let input = candidates(&[2.0, 1.0, 0.5, 0.0]);
    // Each token 15 times in the window of 64: factors of e^-15000.
    let history: Vec<i32> = (0..60).map(|i| 1000 + i % 4).collect();
    let mut scatter = Scatter::new(&params);
    for &t in &history {
        scatter.accept(t);
    }
    let mut out = input.clone();
    assert_eq!(scatter.apply(&mut out), Outcome::Rewritten { size: 4 });
    let expected = scatter_core::reference::scatter(&params, &input, &history).unwrap();
    for ((id, p), got) in expected.iter().zip(&out) {
        assert!(p.is_finite(), "reference p {p}");
        assert_eq!(*id, got.id);
        assert!((f64::from(got.p) - p).abs() <= 1e-6, "{} vs {p}", got.p);
    }
}
