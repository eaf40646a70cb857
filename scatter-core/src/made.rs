//! The files made from the table of fields ([`crate::fields::FIELDS`]) and
//! the presets, for the front ends that cannot read this crate: llama.cpp's
//! tools, the web UI, the SillyTavern extension, the Python package, the C
//! header's caps, and the doc comments of [`crate::params::Params`] (the
//! header's comments on its fields). `cargo xtask made` (`xtask/`) writes
//! them, and the header after them; its test compares each with its
//! committed copy. Nothing else writes them.

use crate::fields::{Field, Kind, Tools, FIELDS};
use crate::params::PRESETS;

/// The first line of every made file, as a comment in its language.
const MADE: &str = "Made from scatter-core/src/fields.rs by scatter-core/src/made.rs \
                    (cargo xtask made): edit those, not this file.";

/// A made file, or a made block of a document: its path from the
/// repository's root, and its text.
pub struct File {
    /// Where it is committed, from the repository's root.
    pub path: &'static str,
    /// `None` for a whole file; else the name of the block the text is: the
    /// lines between `<!-- made: NAME -->` and `<!-- made: end -->` in a
    /// Markdown document, `// made: NAME` and `// made: end` in Rust.
    pub block: Option<&'static str>,
    /// What it holds.
    pub text: String,
}

/// Every made file and block but the header (which cbindgen makes from the
/// sources, `src/ffi/limits.rs` and `params.rs` included, so that those come
/// first).
pub fn files() -> Vec<File> {
    let file = |path, text| File {
        path,
        block: None,
        text,
    };
    vec![
        file("src/ffi/limits.rs", limits()),
        File {
            path: "scatter-core/src/params.rs",
            block: Some("params"),
            text: params_fields(),
        },
        file(
            "integration/llama.cpp/files/common/scatter-fields.def",
            tools_rows(),
        ),
        file(
            "integration/llama.cpp/files/tools/ui/src/lib/constants/scatter-table.generated.ts",
            js_table(true),
        ),
        file(
            "integration/sillytavern/llama-scatter/fields.js",
            js_table(false),
        ),
        file("python/llama_scatter/_fields.py", python_fields()),
        File {
            path: "README.md",
            block: Some("parameters"),
            text: readme_table(),
        },
        File {
            path: "SPEC.md",
            block: Some("parameters"),
            text: spec_table(),
        },
    ]
}

/// The fields of `struct Params`, each under its description as a doc
/// comment wrapped at 80 columns (cbindgen makes the header's comments of
/// them).
fn params_fields() -> String {
    const INDENT: &str = "    /// ";
    let mut out = String::new();
    for field in &FIELDS {
        let mut line = String::from(INDENT);
        for word in field.doc.split(' ') {
            if line.len() > INDENT.len() && line.len() + 1 + word.len() > 80 {
                out += &line;
                out.push('\n');
                line = String::from(INDENT);
            }
            if line.len() > INDENT.len() {
                line.push(' ');
            }
            line += word;
        }
        out += &format!(
            "{line}\n    pub {}: {},\n",
            field.name,
            field.kind.rust_type()
        );
    }
    out
}

/// The fields a request sets as `scatter_<name>`: those with [`Tools::Own`].
fn request_fields() -> impl Iterator<Item = &'static Field> {
    FIELDS.iter().filter(|f| f.tools == Tools::Own)
}

/// The caps, as the header's `LLAMA_SCATTER_MAX_<FIELD>` macros: cbindgen
/// makes a macro of a `pub const` with a literal value.
fn limits() -> String {
    let mut out = format!(
        "//! {MADE}\n//!\n\
         //! The caps the sampler clamps to, one per capped field, for C: the header's\n\
         //! `LLAMA_SCATTER_MAX_<FIELD>` macros.\n"
    );
    for field in FIELDS.iter().filter(|f| f.kind != Kind::Flag) {
        if let Some(cap) = field.cap {
            let value = match field.kind {
                Kind::Float => format!("{cap:?}"),
                _ => format!("{cap}"),
            };
            out += &format!(
                "\n/// Largest `{name}` the sampler uses; larger values are clamped to it.\n\
                 pub const LLAMA_SCATTER_MAX_{upper}: {ty} = {value};\n",
                name = field.name,
                upper = field.name.to_ascii_uppercase(),
                ty = field.kind.rust_type(),
            );
        }
    }
    out
}

/// llama.cpp's tools' rows, `SCATTER_<TOOLS>(name, KIND, lo, hi, "help")`,
/// which `common/scatter.h` expands.
fn tools_rows() -> String {
    let mut out = format!(
        "// {MADE}\n\
         // SCATTER_OWN: a --scatter-<name> flag and a scatter_<name> request field;\n\
         // SCATTER_SEED: set from llama.cpp's sampling seed (--seed, a request's seed).\n"
    );
    for field in &FIELDS {
        out += &format!(
            "SCATTER_{tools}({name}, {kind}, {lo}, {hi}, \"{help}\")\n",
            tools = field.tools.name().to_ascii_uppercase(),
            name = field.name,
            kind = field.kind.name().to_ascii_uppercase(),
            lo = Field::LO,
            hi = field.hi(),
            help = field.help(),
        );
    }
    out
}

/// A JavaScript string literal.
fn js_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The JavaScript table of the web UI (TypeScript, `typed`) and of the
/// SillyTavern extension: the preset names and the request fields.
fn js_table(typed: bool) -> String {
    let presets: Vec<String> = PRESETS
        .iter()
        .map(|p| js_string(&p.name.to_string_lossy()))
        .collect();
    let kinds: Vec<String> = Kind::ALL.iter().map(|k| js_string(k.name())).collect();
    let mut out = format!("// {MADE}\n\n");
    if typed {
        out += &format!(
            "export const SCATTER_PRESETS: readonly string[] = [{}];\n\n\
             export interface ScatterField {{\n\
             \tname: string;\n\tkind: {};\n\tmin: number;\n\tmax: number;\n\thelp: string;\n}}\n\n\
             export const SCATTER_FIELDS: readonly ScatterField[] = [\n",
            presets.join(", "),
            kinds.join(" | "),
        );
    } else {
        out += &format!(
            "export const SCATTER_PRESETS = [{}];\n\n\
             /** The request fields: name, kind ({}), accepted range, help. */\n\
             export const SCATTER_FIELDS = [\n",
            presets.join(", "),
            kinds.join(", "),
        );
    }
    for field in request_fields() {
        out += &format!(
            "\t{{ name: {}, kind: {}, min: {}, max: {}, help: {} }},\n",
            js_string(&format!("scatter_{}", field.name)),
            js_string(field.kind.name()),
            Field::LO,
            field.hi(),
            js_string(&field.help()),
        );
    }
    out + "];\n"
}

/// A number as Python writes it: an `int` for an integral kind.
fn python_number(kind: Kind, value: f64) -> String {
    if kind.integral() {
        format!("{value}")
    } else {
        format!("{value:?}")
    }
}

/// The Python package's list of fields (the tools' tests read it too).
fn python_fields() -> String {
    let mut out = format!(
        "\"\"\"{MADE}\n\n\
         Every field of `struct llama_scatter_params`, in order: its ctypes type, kind (int, float, flag,\n\
         seed), accepted range, default, what llama.cpp's tools make of it (own: a --scatter-<name> flag and\n\
         a scatter_<name> request field; seed: set from llama.cpp's seed) and help.\"\"\"\n\n\
         FIELDS = [\n"
    );
    for field in &FIELDS {
        let ctype = match field.kind {
            Kind::Int => "c_int32",
            Kind::Float => "c_float",
            Kind::Flag => "c_bool",
            Kind::Seed => "c_uint32",
        };
        let default = match field.kind {
            Kind::Flag if field.default() != 0.0 => "True".to_string(),
            Kind::Flag => "False".to_string(),
            kind => python_number(kind, field.default()),
        };
        out += &format!(
            "    {{\"name\": {:?}, \"ctype\": {ctype:?}, \"kind\": {:?}, \"lo\": {}, \"hi\": {},\n     \
             \"default\": {default}, \"tools\": {:?},\n     \"help\": {:?}}},\n",
            field.name,
            field.kind.name(),
            python_number(field.kind, Field::LO),
            python_number(field.kind, field.hi()),
            field.tools.name(),
            field.help(),
        );
    }
    out + "]\n"
}

/// A number as the docs write it: `0.3`, `16`, `65,536`, `2³¹−1`.
fn doc_number(kind: Kind, value: f64) -> String {
    if value == kind.max() && kind != Kind::Flag {
        return match kind {
            Kind::Seed => "2³²−1",
            _ => "2³¹−1",
        }
        .to_string();
    }
    if !kind.integral() {
        return format!("{}", value as f32);
    }
    let digits = format!("{value}");
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && digits.len() > 4 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A field's default as the docs' tables write it.
fn doc_default(field: &Field) -> String {
    match field.kind {
        Kind::Flag if field.default() != 0.0 => "on".to_string(),
        Kind::Flag => "off".to_string(),
        Kind::Seed if field.default() == f64::from(crate::params::DEFAULT_SEED) => {
            "`LLAMA_DEFAULT_SEED`".to_string()
        }
        Kind::Float => format!("{:?}", field.default() as f32),
        kind => doc_number(kind, field.default()),
    }
}

/// The flag of a field with [`Tools::Own`]: `--scatter-absorption-last-n`.
fn flag(field: &Field) -> String {
    format!("--scatter-{}", field.name.replace('_', "-"))
}

/// What a user of the tools gives for a field: a range, a switch, or
/// llama.cpp's own option.
fn doc_accepted(field: &Field) -> String {
    match (field.tools, field.kind) {
        (Tools::Seed, _) => "llama.cpp's `--seed` / `seed`".to_string(),
        (Tools::Own, Kind::Flag) => format!("`{}`, `--no-{}`", flag(field), &flag(field)[2..]),
        (Tools::Own, kind) => format!(
            "{} … {}",
            doc_number(kind, Field::LO),
            doc_number(kind, field.hi())
        ),
    }
}

/// Text for a Markdown table cell: `*` would start emphasis.
fn cell(text: &str) -> String {
    text.replace('*', "\\*")
}

/// README's parameter table: for users, the help and what the tools accept.
fn readme_table() -> String {
    let mut out =
        String::from("| field | default | meaning | the tools accept |\n|---|---|---|---|\n");
    for field in &FIELDS {
        out += &format!(
            "| `{}` | {} | {} | {} |\n",
            field.name,
            doc_default(field),
            cell(&field.help()),
            doc_accepted(field)
        );
    }
    out
}

/// SPEC §2's parameter table: the whole doc comment of each field.
fn spec_table() -> String {
    let mut out =
        String::from("| CLI flag | C parameter | default | meaning |\n|---|---|---|---|\n");
    for field in &FIELDS {
        let meaning = field
            .doc
            .split_once("] ")
            .map_or(field.doc, |(_, text)| text);
        let option = match (field.tools, field.kind) {
            (Tools::Seed, _) => "(the chain's `--seed`)".to_string(),
            (Tools::Own, Kind::Flag) => format!("`{}`", flag(field)),
            (Tools::Own, _) => format!("`{} N`", flag(field)),
        };
        out += &format!(
            "| {option} | `{}` | {} | {} |\n",
            field.name,
            doc_default(field),
            cell(meaning)
        );
    }
    out
}
