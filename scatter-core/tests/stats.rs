//! `Scatter::stats` counts what the sampler did, so evaluation can report the
//! adaptive strength and the collision firing rate.

use scatter_core::{Params, Scatter, Stats, TokenData};

fn row(n: usize, slope: f32) -> Vec<TokenData> {
    (0..n)
        .map(|i| TokenData {
            id: i as i32,
            logit: -slope * i as f32,
            p: 0.0,
        })
        .collect()
}

fn params(strength: f32) -> Params {
    Params {
        strength,
        ..Params::default()
    }
}

#[test]
fn fixed_strength_sums_the_strength_of_each_rewrite() {
    let mut s = Scatter::new(&params(0.25));
    for _ in 0..4 {
        s.apply(&mut row(100, 0.3));
    }
    // One finite candidate: the gate fires, nothing is rewritten.
    s.apply(&mut row(1, 0.3));
    let st = s.stats();
    assert_eq!((st.applies, st.fired, st.scattered), (5, 5, 4));
    assert!((st.strength_sum - 4.0 * f64::from(0.25f32)).abs() < 1e-12);
}

#[test]
fn adaptive_strength_is_higher_on_a_peaked_medium() {
    let adaptive = Params {
        adaptive: true,
        strength: 0.14,
        ..Params::default()
    };
    let mut peaked = Scatter::new(&adaptive);
    peaked.apply(&mut row(64, 2.0));
    let mut flat = Scatter::new(&adaptive);
    flat.apply(&mut row(64, 0.01));
    let (p, f) = (peaked.stats().strength_sum, flat.stats().strength_sum);
    assert!(p > f, "peaked {p}, flat {f}");
    assert!((0.02..=0.30).contains(&p) && (0.02..=0.30).contains(&f));
}

#[test]
fn collision_gate_firing_rate_is_counted_and_reset_clears() {
    let gated = Params {
        collision: 0.25,
        seed: 9,
        ..params(0.3)
    };
    let mut s = Scatter::new(&gated);
    for _ in 0..4000 {
        s.apply(&mut row(50, 0.2));
    }
    let st = s.stats();
    assert_eq!(st.applies, 4000);
    assert_eq!(st.fired, st.scattered);
    let rate = st.fired as f64 / st.applies as f64;
    assert!((rate - 0.25).abs() < 0.03, "firing rate {rate}");
    let copy = s.clone();
    assert_eq!(copy.stats(), st);
    s.reset();
    assert_eq!(s.stats(), Stats::default());
}

#[test]
fn noop_sampler_counts_nothing() {
    let mut s = Scatter::new(&params(0.0));
    s.apply(&mut row(10, 0.5));
    assert_eq!(s.stats(), Stats::default());
}
