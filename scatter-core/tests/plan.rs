//! `Scatter::plan` and `Scatter::draw_gate`, what the C library's backend
//! graph is built from: the plan carries the sanitised parameters, and the
//! gate drawn for an apply elsewhere is the gate `apply` would have drawn.

use scatter_core::params::{Adaptive, PRESETS};
use scatter_core::{Outcome, Params, Plan, Scatter, TokenData};

fn preset(name: &str) -> Params {
    PRESETS
        .iter()
        .find(|p| p.name.to_str() == Ok(name))
        .expect("a preset of that name")
        .params
}

#[test]
fn the_plan_holds_the_sanitised_parameters() {
    let hostile = Params {
        strength: 7.0,
        radius: 1e9,
        steps: i32::MAX,
        collision: 0.5,
        ..Params::fixed(64, 0.0, 0.0, 1)
    };
    assert_eq!(
        Scatter::new(&hostile).plan(),
        Some(Plan {
            k: 64,
            radius: 16.0,
            steps: 8,
            strength: 1.0,
            adaptive: None,
            gated: true,
        })
    );
    let adaptive = Scatter::new(&Params {
        strength_min: 0.4,
        strength_max: 0.1,
        ..preset("adaptive")
    })
    .plan()
    .expect("adaptive runs elsewhere");
    assert_eq!(
        adaptive.adaptive,
        Some(Adaptive {
            min: f64::from(0.1f32),
            max: f64::from(0.4f32),
            target: f64::from(0.55f32),
        })
    );
    assert!(!adaptive.gated);
}

#[test]
fn no_plan_for_the_noop_sampler_or_absorption() {
    assert_eq!(Scatter::new(&Params::default()).plan(), None);
    assert_eq!(Scatter::new(&preset("adaptive-absorb")).plan(), None);
}

#[test]
fn drawn_gates_follow_the_stream_apply_draws_from() {
    let params = Params {
        seed: 1234,
        ..preset("collision")
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
    let mut creative = Scatter::new(&preset("creative"));
    assert!((0..10).all(|_| creative.draw_gate()));
    assert_eq!(creative.stats().fired, 10);
    assert!(!Scatter::new(&Params::default()).draw_gate());
}
