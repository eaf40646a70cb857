//! The user parameters as front ends present them: one row per field of
//! [`Params`], the seed included, with its kind, what llama.cpp's tools make
//! of it, and the range a front end accepts. The only place these facts are
//! written: every file made for a front end (the tools' rows, llama-server's
//! fields, the web UI's table, the Python package's list, the header's caps)
//! is made from this table by [`crate::made`], and the docs' parameter tables
//! are checked against it. Each field's description is written here, once
//! ([`Field::doc`]): `params.rs`'s doc comments of [`Params`], the ones C
//! readers see in the header, are made from it, and [`Field::help`] is its
//! first sentence. Defaults are read from [`Params::DEFAULT`], caps from the
//! `MAX_*` constants the sampler clamps with.

use crate::params::{Params, HISTORY_CAPACITY, MAX_ABSORPTION, MAX_RADIUS, MAX_STEPS};

/// The type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `int32_t` (Rust `i32`).
    Int,
    /// `float` (Rust `f32`).
    Float,
    /// `bool`: a switch.
    Flag,
    /// `uint32_t` (Rust `u32`), a seed: `LLAMA_DEFAULT_SEED` asks for a random one.
    Seed,
}

/// cbindgen:ignore
/// (Rust-side facts of the table; C sees the fields themselves.)
impl Kind {
    /// Every kind, for the files that describe them all.
    pub const ALL: [Kind; 4] = [Kind::Int, Kind::Float, Kind::Flag, Kind::Seed];

    /// The kind's name in the made files: `int`, `float`, `flag`, `seed`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Float => "float",
            Kind::Flag => "flag",
            Kind::Seed => "seed",
        }
    }

    /// The C type of a field of this kind.
    pub fn c_type(self) -> &'static str {
        match self {
            Kind::Int => "int32_t",
            Kind::Float => "float",
            Kind::Flag => "bool",
            Kind::Seed => "uint32_t",
        }
    }

    /// The Rust type of a field of this kind.
    pub fn rust_type(self) -> &'static str {
        match self {
            Kind::Int => "i32",
            Kind::Float => "f32",
            Kind::Flag => "bool",
            Kind::Seed => "u32",
        }
    }

    /// The largest value of the type: the top of the accepted range of a
    /// field without a cap.
    pub fn max(self) -> f64 {
        match self {
            Kind::Int => f64::from(i32::MAX),
            Kind::Float => f64::from(f32::MAX),
            Kind::Flag => 1.0,
            Kind::Seed => f64::from(u32::MAX),
        }
    }

    /// Whether a value of this kind is a whole number.
    pub fn integral(self) -> bool {
        self != Kind::Float
    }
}

/// What llama.cpp's tools (the patched llama-cli, llama-completion,
/// llama-server) make of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tools {
    /// A field of scatter's own: the flag `--scatter-<name>` (`_` as `-`),
    /// its environment variable `LLAMA_ARG_SCATTER_<NAME>`, the request field
    /// `scatter_<name>` and its echo in the settings.
    Own,
    /// Set from llama.cpp's own sampling seed (`--seed`, a request's `seed`),
    /// as the seeds of its `dist` and `xtc` samplers are: no flag or field of
    /// its own.
    Seed,
}

impl Tools {
    /// The attribute's name in the made files: `own`, `seed`.
    pub fn name(self) -> &'static str {
        match self {
            Tools::Own => "own",
            Tools::Seed => "seed",
        }
    }
}

/// One user parameter.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    /// The field's name in `struct llama_scatter_params` (and in [`Params`]).
    pub name: &'static str,
    /// Its type.
    pub kind: Kind,
    /// What the tools make of it.
    pub tools: Tools,
    /// The cap the sampler clamps larger values to (1 for a fraction), or
    /// `None`: the type's largest value is the top of the range.
    pub cap: Option<f64>,
    /// Its description, as one line: `[default]`, one sentence that every
    /// front end shows as its help, then the clamps (for C readers: the
    /// header's comment on the field).
    pub doc: &'static str,
    /// The field's value in a [`Params`], a flag as 0 or 1.
    pub value: fn(&Params) -> f64,
}

/// A field's value as a number: every kind fits an `f64` exactly.
trait Number: Copy {
    fn number(self) -> f64;
}

impl Number for i32 {
    fn number(self) -> f64 {
        f64::from(self)
    }
}

impl Number for u32 {
    fn number(self) -> f64 {
        f64::from(self)
    }
}

impl Number for f32 {
    fn number(self) -> f64 {
        f64::from(self)
    }
}

impl Number for bool {
    fn number(self) -> f64 {
        f64::from(u8::from(self))
    }
}

/// A row: the name and the accessor come from the one identifier, so that a
/// row cannot read another field.
macro_rules! field {
    ($name:ident, $kind:ident, $tools:ident, $cap:expr, $doc:expr) => {
        Field {
            name: stringify!($name),
            kind: Kind::$kind,
            tools: Tools::$tools,
            cap: $cap,
            doc: $doc,
            value: |p| Number::number(p.$name),
        }
    };
}

/// Every user parameter, in the order of [`Params`].
pub const FIELDS: [Field; 12] = [
    field!(
        k,
        Int,
        Own,
        None,
        "[64] Size of the medium, the top-K candidates that take part; <= 1 disables. \
         Only finite candidates count; when scatter fires, the candidate array is \
         truncated to the medium."
    ),
    field!(
        strength,
        Float,
        Own,
        Some(1.0),
        "[0.0] Blend of the direct (0) and the rank-smoothed (1) distribution, 0 \
         disables. Clamped to [0, 1]; adaptive mode or absorption scatters even at 0."
    ),
    field!(
        radius,
        Float,
        Own,
        Some(MAX_RADIUS),
        "[2.5] Radius of the Gaussian kernel in ranks, larger moves mass across more \
         ranks; 0 disables. Capped at 16; a negative or NaN radius disables too."
    ),
    field!(
        steps,
        Int,
        Own,
        Some(MAX_STEPS as f64),
        "[1] Diffusion passes, n passes ~ one pass of radius*sqrt(n); 0 disables. Capped \
         at 8; a negative count disables too."
    ),
    field!(
        adaptive,
        Flag,
        Own,
        None,
        "[false] Strength follows the entropy of the medium. Its normalised entropy H \
         picks the strength on the line through (0, `strength_max`), (`entropy_target`, \
         `strength`), (1, `strength_min`), clamped to [`strength_min`, `strength_max`]. A \
         confident model is scattered more: risky for code, math and names."
    ),
    field!(
        strength_min,
        Float,
        Own,
        Some(1.0),
        "[0.02] Lower clamp of the adaptive strength. In [0, 1]; NaN takes the default; \
         swapped with `strength_max` if larger."
    ),
    field!(
        strength_max,
        Float,
        Own,
        Some(1.0),
        "[0.30] Upper clamp of the adaptive strength. In [0, 1]; NaN takes the default."
    ),
    field!(
        entropy_target,
        Float,
        Own,
        Some(1.0),
        "[0.55] Normalised entropy at which adaptive mode uses the strength. In [0, 1]; \
         NaN takes the default."
    ),
    field!(
        absorption,
        Float,
        Own,
        Some(MAX_ABSORPTION),
        "[0.0] Repeated-token damping p*exp(-absorption*count), keep it low; 0 disables. \
         `count` is the token's occurrences among the last `absorption_last_n` accepted \
         tokens. Negative counts as 0, capped at 1000; the adaptive-absorb preset uses \
         0.06."
    ),
    field!(
        absorption_last_n,
        Int,
        Own,
        Some(HISTORY_CAPACITY as f64),
        "[64] History window of absorption in tokens; 0 disables. A negative window \
         disables too; at most 65,536 tokens are kept."
    ),
    field!(
        collision,
        Float,
        Own,
        Some(1.0),
        "[1.0] Probability per token that scattering happens, mean free path ~ \
         1/collision tokens; 0 disables. Clamped to (0, 1]; negative or NaN disables too. \
         When the gate does not fire, the candidates are left bit-for-bit untouched. \
         Below 1 a number is drawn from the sampler's own RNG on every apply."
    ),
    field!(
        seed,
        Seed,
        Seed,
        None,
        "[LLAMA_DEFAULT_SEED] Seed of the collision gate's RNG; LLAMA_DEFAULT_SEED picks \
         a random seed (again at every reset)."
    ),
];

/// cbindgen:ignore
/// (Rust-side facts of the table; C sees the fields themselves.)
impl Field {
    /// The lowest value a front end accepts: 0 for every field (below it the
    /// library would clamp the value or treat it as "off").
    pub const LO: f64 = 0.0;

    /// The highest value a front end accepts: the cap, or the type's largest.
    pub fn hi(&self) -> f64 {
        self.cap.unwrap_or(self.kind.max())
    }

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

    /// What the field does, in one line: the first sentence of its
    /// description after the `[default]`, without its full stop and with its
    /// first letter in lower case (the tools' help and the web UI's).
    ///
    /// ```
    /// use scatter_core::fields::FIELDS;
    ///
    /// assert!(FIELDS[1].help().starts_with("blend of the direct (0)"));
    /// ```
    pub fn help(&self) -> String {
        let text = self.doc.split_once("] ").map_or(self.doc, |(_, text)| text);
        let sentence = text
            .split_once(". ")
            .map_or(text.trim_end_matches('.'), |(first, _)| first);
        let mut help = sentence.to_string();
        help[..1].make_ascii_lowercase();
        help
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A number as a description writes it: `0.3`, `16`, and `65,536` too.
    fn number(v: f64) -> Vec<String> {
        let plain = (v as f32).to_string();
        let mut grouped = String::new();
        for (i, c) in plain.chars().enumerate() {
            if i > 0 && v >= 10_000.0 && v.fract() == 0.0 && (plain.len() - i) % 3 == 0 {
                grouped.push(',');
            }
            grouped.push(c);
        }
        vec![plain, grouped]
    }

    /// Whether `doc` states `cap` as what the sampler clamps to: "capped at
    /// CAP", "at most CAP", or a range after "clamped to" or "in" that ends
    /// at it ("Clamped to (0, 1]"). A number elsewhere ("1/collision", "the
    /// rank-smoothed (1)") is not a cap.
    fn states_cap(doc: &str, cap: f64) -> bool {
        let doc = doc.to_lowercase();
        let ends = |rest: &str| {
            let mut next = rest.chars();
            match next.next() {
                Some(c) if c.is_ascii_digit() => false,
                Some(',' | '.') => !next.next().is_some_and(|c| c.is_ascii_digit()),
                _ => true,
            }
        };
        number(cap).iter().any(|n| {
            ["capped at ", "at most "].iter().any(|lead| {
                let phrase = format!("{lead}{n}");
                doc.match_indices(&phrase)
                    .any(|(at, _)| ends(&doc[at + phrase.len()..]))
            }) || doc.match_indices(&format!(", {n}]")).any(|(end, _)| {
                let open = doc[..end].rfind(['[', '(']).unwrap_or(0);
                doc[..open].ends_with("clamped to ") || doc[..open].ends_with("in ")
            })
        })
    }

    /// Each description starts with the field's default in brackets, the
    /// core's, and states the cap the sampler clamps to.
    #[test]
    fn each_description_states_the_default_and_the_cap() {
        for field in &FIELDS {
            let (bracket, rest) = field
                .doc
                .strip_prefix('[')
                .and_then(|d| d.split_once("] "))
                .unwrap_or_else(|| {
                    panic!("the doc of `{}` does not start with [default]", field.name)
                });
            let stated = match field.kind {
                Kind::Flag => bracket.parse::<bool>().map(|b| f64::from(u8::from(b))).ok(),
                Kind::Seed if bracket == "LLAMA_DEFAULT_SEED" => {
                    Some(f64::from(crate::params::DEFAULT_SEED))
                }
                _ => bracket.parse::<f64>().ok(),
            };
            assert_eq!(
                stated.map(|v| v as f32),
                Some(field.default() as f32),
                "the doc of `{}` states the default [{bracket}]",
                field.name
            );
            if let Some(cap) = field.cap {
                assert!(
                    states_cap(rest, cap),
                    "the doc of `{}` does not state its cap {cap}: {rest:?}",
                    field.name
                );
            }
        }
    }

    #[test]
    fn defaults_lie_in_the_accepted_ranges() {
        for field in &FIELDS {
            let d = field.default();
            assert!(Field::LO <= d && d <= field.hi(), "{}: {d}", field.name);
        }
    }

    /// Each help is one plain line, with no character a made file would
    /// have to escape.
    #[test]
    fn each_help_is_one_plain_line() {
        for field in &FIELDS {
            let help = field.help();
            assert!(
                !help.is_empty() && help.is_ascii() && !help.contains(['"', '\\', '`']),
                "{}: {help:?}",
                field.name
            );
        }
    }
}
