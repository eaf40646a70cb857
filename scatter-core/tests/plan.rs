//! `Scatter::plan` and `Scatter::draw_gate`, what the C library's backend
//! graph is built from: no plan where the backend cannot run it, and the
//! gate drawn for an apply elsewhere is the gate `apply` would have drawn.

use scatter_core::{Outcome, Params, Scatter, TokenData};

#[test]
fn no_plan_for_the_noop_sampler_or_absorption() {
    assert_eq!(Scatter::new(&Params::default()).plan(), None);
    assert_eq!(
        Scatter::new(&Params::preset("adaptive-absorb").unwrap()).plan(),
        None
    );
}

#[test]
fn drawn_gates_follow_the_stream_apply_draws_from() {
    let params = Params {
        seed: 1234,
        ..Params::preset("collision").unwrap()
    };
    let mut applied = Scatter::new(&params);
    let mut drawn = Scatter::new(&params);
    let row = || -> Vec<TokenData> {
        (0..5)
            .map(|i| TokenData {
                id: i,
                logit: -(i as f32),
                p: 0.0,
            })
            .collect()
    };
    let fired: Vec<bool> = (0..200)
        .map(|_| applied.apply(&mut row()) != Outcome::Untouched)
        .collect();
    let gates: Vec<bool> = (0..200).map(|_| drawn.draw_gate()).collect();
    assert_eq!(gates, fired);
    assert!(gates.contains(&true) && gates.contains(&false));
    let (a, d) = (applied.stats(), drawn.stats());
    assert_eq!((d.applies, d.fired), (a.applies, a.fired));
    assert_eq!((d.scattered, d.strength_sum), (0, 0.0));
    drawn.reset();
    assert_eq!(drawn.draw_gate(), gates[0]);
}

#[test]
fn an_ungated_sampler_always_fires_and_a_noop_never() {
    let mut creative = Scatter::new(&Params::preset("creative").unwrap());
    assert!((0..10).all(|_| creative.draw_gate()));
    assert_eq!(creative.stats().fired, 10);
    assert!(!Scatter::new(&Params::default()).draw_gate());
}
