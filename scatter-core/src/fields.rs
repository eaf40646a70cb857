//! The user parameters as front ends present them: one row per field of
//! [`Params`], the seed included, with its kind, what llama.cpp's tools make
//! of it, and the range a front end accepts. The only place these facts are
//! written: every file made for a front end (the tools' rows, llama-server's
//! fields, the web UI's table, the Python package's list, the header's caps)
//! is made from this table by [`crate::made`], and the docs' parameter tables
//! are checked against it. Each field's description is its doc comment in
//! `params.rs`, the one C readers see ([`Field::help`] reads it from there);
//! defaults are read from [`Params::DEFAULT`], caps from the `MAX_*`
//! constants the sampler clamps with.

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
    ($name:ident, $kind:ident, $tools:ident, $cap:expr) => {
        Field {
            name: stringify!($name),
            kind: Kind::$kind,
            tools: Tools::$tools,
            cap: $cap,
            value: |p| Number::number(p.$name),
        }
    };
}

/// Every user parameter, in the order of [`Params`].
pub const FIELDS: [Field; 12] = [
    field!(k, Int, Own, None),
    field!(strength, Float, Own, Some(1.0)),
    field!(radius, Float, Own, Some(MAX_RADIUS)),
    field!(steps, Int, Own, Some(MAX_STEPS as f64)),
    field!(adaptive, Flag, Own, None),
    field!(strength_min, Float, Own, Some(1.0)),
    field!(strength_max, Float, Own, Some(1.0)),
    field!(entropy_target, Float, Own, Some(1.0)),
    field!(absorption, Float, Own, Some(MAX_ABSORPTION)),
    field!(absorption_last_n, Int, Own, Some(HISTORY_CAPACITY as f64)),
    field!(collision, Float, Own, Some(1.0)),
    field!(seed, Seed, Seed, None),
];

/// The source of [`Params`], whose doc comments are the fields' descriptions.
const PARAMS_SOURCE: &str = include_str!("params.rs");

/// The fields of `pub struct Params` in `params.rs`, in order: (name, Rust
/// type, doc comment as one line).
pub fn declared() -> Vec<(&'static str, &'static str, String)> {
    let body = PARAMS_SOURCE
        .split_once("pub struct Params {")
        .and_then(|(_, rest)| rest.split_once("\n}"))
        .map(|(body, _)| body)
        .expect("params.rs declares `pub struct Params`");
    let mut fields = Vec::new();
    let mut doc = Vec::new();
    for line in body.lines().map(str::trim) {
        if let Some(text) = line.strip_prefix("///") {
            doc.push(text.trim());
        } else if let Some((name, ty)) = line
            .strip_prefix("pub ")
            .and_then(|decl| decl.strip_suffix(','))
            .and_then(|decl| decl.split_once(": "))
        {
            fields.push((name, ty, doc.join(" ")));
            doc.clear();
        }
    }
    fields
}

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

    /// The field's doc comment in `params.rs`, as one line: `[default]`,
    /// then the description, then the clamps.
    pub fn doc(&self) -> String {
        declared()
            .into_iter()
            .find(|(name, _, _)| *name == self.name)
            .map(|(_, _, doc)| doc)
            .unwrap_or_else(|| panic!("`Params` has no field `{}`", self.name))
    }

    /// What the field does, in one line: the first sentence of its doc
    /// comment after the `[default]`, without its full stop and with its
    /// first letter in lower case (the tools' help and the web UI's).
    ///
    /// ```
    /// use scatter_core::fields::FIELDS;
    ///
    /// assert!(FIELDS[1].help().starts_with("blend of the direct (0)"));
    /// ```
    pub fn help(&self) -> String {
        let doc = self.doc();
        let text = doc.split_once("] ").map_or(doc.as_str(), |(_, text)| text);
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

    /// One row per field of `Params`, in its order and of its type.
    #[test]
    fn the_table_is_the_structs() {
        let declared: Vec<(&str, &str)> = declared().iter().map(|(n, t, _)| (*n, *t)).collect();
        let rows: Vec<(&str, &str)> = FIELDS
            .iter()
            .map(|f| (f.name, f.kind.rust_type()))
            .collect();
        assert_eq!(declared, rows);
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
