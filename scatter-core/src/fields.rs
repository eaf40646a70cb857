//! The user parameters as front ends present them: one row per field of
//! [`Params`] but the seed, with its one-line description and the range a
//! front end accepts. The only place these facts are written: the tools'
//! flags and help, llama-server's fields, the web UI and the Python
//! package's ranges are made from this table, and the header's doc comments
//! and the docs' parameter tables are checked against it (`tests/header.rs`
//! in the library). Defaults are read from [`Params::DEFAULT`], caps from
//! the `MAX_*` constants the sampler clamps with.

use crate::params::{Params, HISTORY_CAPACITY, MAX_ABSORPTION, MAX_RADIUS, MAX_STEPS};

/// The type of a field, as C declares it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `int32_t`.
    Int,
    /// `float`.
    Float,
    /// `bool`: a switch.
    Flag,
}

/// One user parameter.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's name in `struct llama_scatter_params` (and in [`Params`]).
    pub name: &'static str,
    /// Its C type.
    pub kind: Kind,
    /// What it does, in one line without a final full stop: the tools' help
    /// and the web UI's, and the first sentence of its doc comment.
    pub help: &'static str,
    /// Lowest value a front end accepts; below it a front end refuses the
    /// value (the library would clamp it or treat it as "off").
    pub lo: f64,
    /// Highest value a front end accepts: the cap the sampler clamps to, 1
    /// for a fraction, else the type's largest value. 1 for a flag.
    pub hi: f64,
    /// The field's value in a [`Params`], a flag as 0 or 1.
    pub value: fn(&Params) -> f64,
}

impl Field {
    /// The field's default, from [`Params::DEFAULT`].
    ///
    /// ```
    /// use scatter_core::fields::FIELDS;
    ///
    /// assert_eq!(FIELDS[0].name, "k");
    /// assert_eq!(FIELDS[0].default(), 64.0);
    /// ```
    pub fn default(&self) -> f64 {
        (self.value)(&Params::DEFAULT)
    }

    /// Whether [`Field::hi`] is a cap the sampler clamps to, rather than
    /// the type's largest value.
    pub fn capped(&self) -> bool {
        self.kind != Kind::Int || self.hi < f64::from(i32::MAX)
    }
}

/// Every user parameter, in the order of [`Params`] (the seed, which the
/// tools take from llama.cpp's own `--seed`, is left out).
pub const FIELDS: [Field; 11] = [
    Field {
        name: "k",
        kind: Kind::Int,
        help: "size of the medium, the top-K candidates that take part; <= 1 disables",
        lo: 0.0,
        hi: i32::MAX as f64,
        value: |p| f64::from(p.k),
    },
    Field {
        name: "strength",
        kind: Kind::Float,
        help: "blend of the direct (0) and the rank-smoothed (1) distribution, 0 disables",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(p.strength),
    },
    Field {
        name: "radius",
        kind: Kind::Float,
        help: "Gaussian radius in ranks, larger moves mass across more ranks; 0 disables",
        lo: 0.0,
        hi: MAX_RADIUS,
        value: |p| f64::from(p.radius),
    },
    Field {
        name: "steps",
        kind: Kind::Int,
        help: "diffusion passes, n passes ~ one pass of radius*sqrt(n); 0 disables",
        lo: 0.0,
        hi: MAX_STEPS as f64,
        value: |p| f64::from(p.steps),
    },
    Field {
        name: "adaptive",
        kind: Kind::Flag,
        help: "strength follows the entropy of the medium",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(u8::from(p.adaptive)),
    },
    Field {
        name: "strength_min",
        kind: Kind::Float,
        help: "lower clamp of the adaptive strength",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(p.strength_min),
    },
    Field {
        name: "strength_max",
        kind: Kind::Float,
        help: "upper clamp of the adaptive strength",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(p.strength_max),
    },
    Field {
        name: "entropy_target",
        kind: Kind::Float,
        help: "normalised entropy at which adaptive mode uses the strength",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(p.entropy_target),
    },
    Field {
        name: "absorption",
        kind: Kind::Float,
        help: "repeated-token damping p*exp(-absorption*count), keep it low; 0 disables",
        lo: 0.0,
        hi: MAX_ABSORPTION,
        value: |p| f64::from(p.absorption),
    },
    Field {
        name: "absorption_last_n",
        kind: Kind::Int,
        help: "history window of absorption in tokens; 0 disables",
        lo: 0.0,
        hi: HISTORY_CAPACITY as f64,
        value: |p| f64::from(p.absorption_last_n),
    },
    Field {
        name: "collision",
        kind: Kind::Float,
        help: "probability per token that scattering happens, mean free path ~ 1/collision tokens; 0 disables",
        lo: 0.0,
        hi: 1.0,
        value: |p| f64::from(p.collision),
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row reads its own field: changing that field of a `Params`
    /// changes the row's value and no other row's.
    #[test]
    fn each_row_reads_its_own_field() {
        let base = Params::DEFAULT;
        let bumped = |name: &str| {
            let mut p = base;
            match name {
                "k" => p.k += 1,
                "strength" => p.strength += 0.5,
                "radius" => p.radius += 0.5,
                "steps" => p.steps += 1,
                "adaptive" => p.adaptive = !p.adaptive,
                "strength_min" => p.strength_min += 0.5,
                "strength_max" => p.strength_max += 0.5,
                "entropy_target" => p.entropy_target += 0.25,
                "absorption" => p.absorption += 0.5,
                "absorption_last_n" => p.absorption_last_n += 1,
                "collision" => p.collision -= 0.5,
                other => panic!("no test edit for the field {other}"),
            }
            p
        };
        for changed in &FIELDS {
            let p = bumped(changed.name);
            for field in &FIELDS {
                let moved = (field.value)(&p) != field.default();
                assert_eq!(
                    moved,
                    field.name == changed.name,
                    "{} after {}",
                    field.name,
                    changed.name
                );
            }
        }
    }

    #[test]
    fn defaults_lie_in_the_accepted_ranges() {
        for field in &FIELDS {
            let d = field.default();
            assert!(field.lo <= d && d <= field.hi, "{}: {d}", field.name);
            assert!(!field.help.ends_with('.'), "{}", field.name);
        }
    }
}
