//! The eleven user parameters plus the seed, the presets, and the hygiene
//! rules (SPEC §4.1) that turn any combination of them, hostile ones
//! included, into a defined configuration or into "noop".

use std::ffi::CStr;

/// `LLAMA_DEFAULT_SEED`: ask for a fresh random seed, as llama.cpp's `dist`
/// and `xtc` samplers do.
pub const DEFAULT_SEED: u32 = 0xFFFF_FFFF;

/// Cap on diffusion passes. `n` passes behave like one pass of radius·√n, so
/// 8 passes already equal a 2.8× wider kernel; more would only cost time.
pub const MAX_STEPS: u32 = 8;

/// Cap on the Gaussian radius, in ranks. At 16 the kernel reaches ±145 ranks
/// (`scatter-core/src/kernel.rs`). An apply costs about `medium × (2·reach + 1) ×
/// steps` multiply-adds, so with both caps a hostile 262,144-token medium
/// costs about 6·10^8 of them (a fraction of a second), not minutes.
pub const MAX_RADIUS: f64 = 16.0;

/// Cap on the absorption rate. `exp(-1000)` is already far below every
/// precision that reaches the output; the cap keeps the arithmetic finite.
pub const MAX_ABSORPTION: f64 = 1000.0;

/// Cap on the absorption history, in tokens. The ring buffer grows as tokens
/// are accepted and never beyond this, whatever `absorption_last_n` says.
pub const HISTORY_CAPACITY: usize = 65_536;

// The fields and their doc comments are made from the table of fields
// (`fields.rs`: each field's one description, `Field::doc`) by `made.rs`:
// `cargo xtask made` writes them.

/// Every parameter of a scatter sampler, the seed included (SPEC §2, §3).
///
/// This one type is the C API's `struct llama_scatter_params`: start from
/// `llama_scatter_default_params()` or `llama_scatter_preset_params()` and
/// change the fields you need. Any value is accepted; the sampler applies the
/// documented clamps, and a combination with no effect gives the do-nothing
/// `?scatter` sampler. Defaults in brackets.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct Params {
    // made: params
    /// [64] Size of the medium, the top-K candidates that take part; <= 1
    /// disables. Only finite candidates count; when scatter fires, the
    /// candidate array is truncated to the medium.
    pub k: i32,
    /// [0.0] Blend of the direct (0) and the rank-smoothed (1) distribution, 0
    /// disables. Clamped to [0, 1]; adaptive mode or absorption scatters even
    /// at 0.
    pub strength: f32,
    /// [2.5] Radius of the Gaussian kernel in ranks, larger moves mass across
    /// more ranks; 0 disables. Capped at 16; a negative or NaN radius disables
    /// too.
    pub radius: f32,
    /// [1] Diffusion passes, n passes ~ one pass of radius*sqrt(n); 0 disables.
    /// Capped at 8; a negative count disables too.
    pub steps: i32,
    /// [false] Strength follows the entropy of the medium. Its normalised
    /// entropy H picks the strength on the line through (0, `strength_max`),
    /// (`entropy_target`, `strength`), (1, `strength_min`), clamped to
    /// [`strength_min`, `strength_max`]. A confident model is scattered more:
    /// risky for code, math and names.
    pub adaptive: bool,
    /// [0.02] Lower clamp of the adaptive strength. In [0, 1]; NaN takes the
    /// default; swapped with `strength_max` if larger.
    pub strength_min: f32,
    /// [0.30] Upper clamp of the adaptive strength. In [0, 1]; NaN takes the
    /// default.
    pub strength_max: f32,
    /// [0.55] Normalised entropy at which adaptive mode uses the strength. In
    /// [0, 1]; NaN takes the default.
    pub entropy_target: f32,
    /// [0.0] Repeated-token damping p*exp(-absorption*count), keep it low; 0
    /// disables. `count` is the token's occurrences among the last
    /// `absorption_last_n` accepted tokens. Negative counts as 0, capped at
    /// 1000; the adaptive-absorb preset uses 0.06.
    pub absorption: f32,
    /// [64] History window of absorption in tokens; 0 disables. A negative
    /// window disables too; at most 65,536 tokens are kept.
    pub absorption_last_n: i32,
    /// [1.0] Probability per token that scattering happens, mean free path ~
    /// 1/collision tokens; 0 disables. Clamped to (0, 1]; negative or NaN
    /// disables too. When the gate does not fire, the candidates are left
    /// bit-for-bit untouched. Below 1 a number is drawn from the sampler's own
    /// RNG on every apply.
    pub collision: f32,
    /// [LLAMA_DEFAULT_SEED] Seed of the collision gate's RNG;
    /// LLAMA_DEFAULT_SEED picks a random seed (again at every reset).
    pub seed: u32,
    // made: end
}

/// cbindgen:ignore
/// (The C header offers the defaults as `llama_scatter_default_params()`.)
impl Params {
    /// The SPEC §2 defaults, under which scatter is a noop.
    pub const DEFAULT: Self = Self {
        k: 64,
        strength: 0.0,
        radius: 2.5,
        steps: 1,
        adaptive: false,
        strength_min: 0.02,
        strength_max: 0.30,
        entropy_target: 0.55,
        absorption: 0.0,
        absorption_last_n: 64,
        collision: 1.0,
        seed: DEFAULT_SEED,
    };
}

impl Params {
    /// The fixed diffusion mode of `llama_sampler_init_scatter`: every other
    /// parameter at its default.
    ///
    /// ```
    /// use scatter_core::Params;
    ///
    /// let creative = Params::fixed(64, 0.18, 2.5, 1);
    /// assert!(creative.enabled());
    /// assert_eq!(creative.collision, Params::default().collision);
    /// ```
    pub fn fixed(k: i32, strength: f32, radius: f32, steps: i32) -> Self {
        Self {
            k,
            strength,
            radius,
            steps,
            ..Self::DEFAULT
        }
    }

    /// Whether a sampler made from these parameters scatters: false for
    /// those of the noop sampler (SPEC §4.1).
    ///
    /// ```
    /// use scatter_core::Params;
    ///
    /// assert!(!Params::default().enabled()); // the defaults: `?scatter`
    /// assert!(!Params::fixed(64, 0.0, 2.5, 1).enabled()); // no strength
    /// assert!(Params::fixed(64, 0.1, 2.5, 1).enabled());
    /// ```
    pub fn enabled(&self) -> bool {
        self.config().is_some()
    }

    /// The preset called `name` (see [`PRESETS`]), or `None`.
    ///
    /// ```
    /// use scatter_core::params::{Params, PRESETS};
    ///
    /// for preset in PRESETS {
    ///     let name = preset.name.to_str().unwrap();
    ///     assert_eq!(Params::preset(name).unwrap().k, preset.params.k);
    /// }
    /// assert!(Params::preset("creative").unwrap().enabled());
    /// assert!(Params::preset("Creative").is_none());
    /// ```
    pub fn preset(name: &str) -> Option<Self> {
        PRESETS
            .iter()
            .find(|p| p.name.to_bytes() == name.as_bytes())
            .map(|p| p.params)
    }
}

impl Default for Params {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A named starting point (SPEC §6). A preset sets every parameter: those it
/// does not name keep their defaults.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    /// The name the flags (`--scatter-preset`) and server field
    /// (`scatter_preset`) take.
    pub name: &'static CStr,
    /// Its parameters; the seed is the default (random) one.
    pub params: Params,
}

const ADAPTIVE: Params = Params {
    adaptive: true,
    strength: 0.14,
    ..Params::DEFAULT
};

/// The SPEC §6 presets, in the order the docs list them. The only place
/// their values are written down: the C API, the llama.cpp patch, the tests,
/// the benchmark and the evaluation all read them from here.
pub const PRESETS: [Preset; 5] = [
    Preset {
        name: c"subtle",
        params: Params {
            strength: 0.12,
            radius: 2.0,
            ..Params::DEFAULT
        },
    },
    Preset {
        name: c"creative",
        params: Params {
            strength: 0.18,
            ..Params::DEFAULT
        },
    },
    Preset {
        name: c"adaptive",
        params: ADAPTIVE,
    },
    Preset {
        name: c"collision",
        params: Params {
            strength: 0.30,
            collision: 0.25,
            ..Params::DEFAULT
        },
    },
    Preset {
        name: c"adaptive-absorb",
        params: Params {
            absorption: 0.06,
            ..ADAPTIVE
        },
    },
];

/// Adaptive-strength curve (SPEC §4.4), already clamped to [0, 1] and
/// ordered (`min <= max`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Adaptive {
    /// Strength at entropy 1, and the lower clamp.
    pub min: f64,
    /// Strength at entropy 0, and the upper clamp.
    pub max: f64,
    /// Entropy at which the strength is the sampler's `strength`.
    pub target: f64,
}

/// Absorption settings of an enabled absorption.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Absorption {
    pub rate: f64,
    pub window: usize,
}

/// Sanitised parameters of an active sampler.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Config {
    pub k: usize,
    pub strength: f64,
    pub radius: f64,
    pub steps: u32,
    pub adaptive: Option<Adaptive>,
    pub absorption: Option<Absorption>,
    /// `None` when `collision >= 1`: the gate always fires and draws nothing.
    pub collision: Option<f64>,
    pub seed: u32,
}

/// `x` clamped to [0, 1], with NaN replaced by `nan_as`.
fn unit(x: f32, nan_as: f32) -> f64 {
    f64::from(if x.is_nan() {
        nan_as
    } else {
        x.clamp(0.0, 1.0)
    })
}

impl Params {
    /// Applies SPEC §4.1: `None` means the sampler is a noop. NaN never
    /// counts as "> 0", so a NaN strength, radius or collision cannot
    /// activate anything.
    ///
    /// Every field is named here (no `..`): a new field of `Params` does
    /// not compile until this decides what it does.
    pub(crate) fn config(&self) -> Option<Config> {
        let Self {
            k,
            strength,
            radius,
            steps,
            adaptive,
            strength_min,
            strength_max,
            entropy_target,
            absorption,
            absorption_last_n,
            collision,
            seed,
        } = *self;
        let defaults = Self::DEFAULT;
        let strength = unit(strength, 0.0);
        let absorption_rate = if absorption > 0.0 {
            f64::from(absorption).min(MAX_ABSORPTION)
        } else {
            0.0
        };
        let absorption = (absorption_rate > 0.0 && absorption_last_n > 0).then(|| Absorption {
            rate: absorption_rate,
            window: (absorption_last_n as usize).min(HISTORY_CAPACITY),
        });
        let wants_effect = strength > 0.0 || adaptive || absorption.is_some();
        let well_formed = k > 1 && radius > 0.0 && steps > 0 && collision > 0.0;
        if !(wants_effect && well_formed) {
            return None;
        }
        let mut min = unit(strength_min, defaults.strength_min);
        let mut max = unit(strength_max, defaults.strength_max);
        if min > max {
            std::mem::swap(&mut min, &mut max);
        }
        let adaptive = adaptive.then(|| Adaptive {
            min,
            max,
            target: unit(entropy_target, defaults.entropy_target),
        });
        Some(Config {
            k: k as usize,
            strength,
            radius: f64::from(radius).min(MAX_RADIUS),
            steps: (steps as u32).min(MAX_STEPS),
            adaptive,
            absorption,
            collision: (collision < 1.0).then_some(f64::from(collision)),
            seed,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn active(p: Params) -> bool {
        p.config().is_some()
    }

    #[test]
    fn defaults_are_a_noop() {
        assert!(!active(Params::default()));
    }

    #[test]
    fn any_effect_activates_only_a_well_formed_sampler() {
        let on = Params::fixed(64, 0.2, 2.5, 1);
        assert!(active(on));
        assert!(active(Params {
            strength: 0.0,
            adaptive: true,
            ..on
        }));
        assert!(active(Params {
            strength: 0.0,
            absorption: 0.1,
            ..on
        }));
        assert!(!active(Params {
            strength: 0.0,
            absorption: 0.1,
            absorption_last_n: 0,
            ..on
        }));
        assert!(!active(Params {
            strength: 0.0,
            absorption: -1.0,
            ..on
        }));
        for broken in [
            Params { k: 1, ..on },
            Params { k: i32::MIN, ..on },
            Params { radius: 0.0, ..on },
            Params {
                radius: f32::NAN,
                ..on
            },
            Params { steps: 0, ..on },
            Params {
                collision: 0.0,
                ..on
            },
            Params {
                collision: f32::NAN,
                ..on
            },
            Params {
                strength: f32::NAN,
                ..on
            },
            Params {
                strength: -0.5,
                ..on
            },
        ] {
            assert!(!active(broken), "{broken:?} must be a noop");
        }
    }

    #[test]
    fn clamps_and_defaults_follow_the_spec() {
        let c = Params {
            strength: 7.0,
            strength_min: 0.9,
            strength_max: f32::NAN,
            entropy_target: f32::INFINITY,
            adaptive: true,
            radius: f32::INFINITY,
            steps: i32::MAX,
            collision: 3.0,
            absorption: f32::INFINITY,
            absorption_last_n: i32::MAX,
            ..Params::default()
        }
        .config()
        .unwrap();
        assert_eq!(c.strength, 1.0);
        let a = c.adaptive.unwrap();
        // NaN max takes its default 0.30, then min 0.9 > max: swapped.
        assert_eq!((a.min, a.max), (f64::from(0.30f32), f64::from(0.9f32)));
        assert_eq!(a.target, 1.0);
        assert_eq!(c.radius, MAX_RADIUS);
        assert_eq!(c.steps, MAX_STEPS);
        assert_eq!(c.collision, None);
        let ab = c.absorption.unwrap();
        assert_eq!((ab.rate, ab.window), (MAX_ABSORPTION, HISTORY_CAPACITY));
    }

    #[test]
    fn nan_curve_parameters_take_their_defaults() {
        let c = Params {
            adaptive: true,
            strength_min: f32::NAN,
            strength_max: f32::NAN,
            entropy_target: f32::NAN,
            ..Params::default()
        }
        .config()
        .unwrap();
        let d = Params::default();
        let a = c.adaptive.unwrap();
        assert_eq!(a.min, f64::from(d.strength_min));
        assert_eq!(a.max, f64::from(d.strength_max));
        assert_eq!(a.target, f64::from(d.entropy_target));
    }
}
