//! The committed files made from the sources must be exactly what the sources make: the header
//! (cbindgen) and the tools' table of fields (scatter-core's `FIELDS`). `LLAMA_SCATTER_BLESS=1`
//! rewrites them instead. The header's doc comments and the docs' parameter tables are checked
//! against that table of fields.

use scatter_core::fields::{Field, Kind, FIELDS};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).expect(name)
}

/// `generated` is the committed file `name`, or, under `LLAMA_SCATTER_BLESS`, becomes it.
fn committed_is(name: &str, generated: &[u8]) {
    let path = root().join(name);
    if std::env::var_os("LLAMA_SCATTER_BLESS").is_some() {
        std::fs::write(&path, generated).unwrap_or_else(|e| panic!("write {name}: {e}"));
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{name} is stale: regenerate it with `LLAMA_SCATTER_BLESS=1 cargo test --test header` and commit it"
    );
}

fn generated_header() -> Vec<u8> {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root())
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    generated
}

#[test]
fn committed_header_is_current() {
    committed_is("include/llama-scatter.h", &generated_header());
}

const FIELDS_DEF: &str = "integration/llama.cpp/files/common/scatter-fields.def";

/// The tools' rows, one `SCATTER_FIELD(name, kind, lo, hi, help)` a field, which
/// `common/scatter.h` expands into its table and `scripts/scatter_header.py` reads.
fn fields_def() -> String {
    let mut out = String::from(
        "// Made from scatter-core/src/fields.rs by the library's `cargo test --test header`\n\
         // (LLAMA_SCATTER_BLESS=1 rewrites it): edit the table there, not here.\n",
    );
    for field in &FIELDS {
        assert!(
            !field.help.contains(['"', '\\']),
            "{}: the help must be a plain C string",
            field.name
        );
        let kind = match field.kind {
            Kind::Int => "INT",
            Kind::Float => "FLOAT",
            Kind::Flag => "FLAG",
        };
        out += &format!(
            "SCATTER_FIELD({}, {kind}, {}, {}, \"{}\")\n",
            field.name, field.lo, field.hi, field.help
        );
    }
    out
}

#[test]
fn committed_fields_def_is_current() {
    committed_is(FIELDS_DEF, fields_def().as_bytes());
}

/// The fields of the header's `struct llama_scatter_params`, in order: (C type, name, the doc
/// comment above it as one line).
fn params_fields(header: &str) -> Vec<(&str, &str, String)> {
    let start = header
        .find("typedef struct llama_scatter_params {")
        .expect("the header declares struct llama_scatter_params");
    let body = &header[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    let mut fields = Vec::new();
    let mut doc = Vec::new();
    for line in body.lines().map(str::trim) {
        if let Some(text) = line.strip_prefix("//") {
            doc.push(text.trim());
        } else if let Some((ctype, name)) = line.strip_suffix(';').and_then(|d| d.split_once(' ')) {
            fields.push((ctype, name, doc.join(" ")));
            doc.clear();
        }
    }
    fields
}

/// The core's table has one row per field of the struct but the seed, in order, of its C type.
#[test]
fn the_table_of_fields_is_the_structs() {
    let header = read("include/llama-scatter.h");
    let fields = params_fields(&header);
    let expected: Vec<(&str, &str)> = FIELDS
        .iter()
        .map(|f| {
            let ctype = match f.kind {
                Kind::Int => "int32_t",
                Kind::Float => "float",
                Kind::Flag => "bool",
            };
            (ctype, f.name)
        })
        .chain([("uint32_t", "seed")])
        .collect();
    let actual: Vec<(&str, &str)> = fields.iter().map(|(t, n, _)| (*t, *n)).collect();
    assert_eq!(actual, expected);
}

/// A number as the docs write it: `0.3`, `16`, `65,536`.
fn number(v: f64) -> String {
    if v.fract() != 0.0 || v.abs() < 10_000.0 {
        return (v as f32).to_string();
    }
    let digits = (v as i64).to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A field's default as a parameter table writes it: a number, or `off`/`on`.
fn documented_default(field: &Field) -> String {
    match field.kind {
        Kind::Flag if field.default() == 0.0 => "off".to_string(),
        Kind::Flag => "on".to_string(),
        _ => number(field.default()),
    }
}

/// Whether a table cell states `default`: the same text, or the same number (`0.30` is 0.3).
fn states(cell: &str, default: &str) -> bool {
    cell == default
        || matches!((cell.parse::<f64>(), default.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

/// Each field's doc comment in the header starts with its default in brackets and the table's
/// help, and names the cap the sampler clamps to.
#[test]
fn the_header_documents_each_field_as_the_table() {
    let header = read("include/llama-scatter.h");
    let docs = params_fields(&header);
    for (field, (_, _, doc)) in FIELDS.iter().zip(&docs) {
        let default = match field.kind {
            Kind::Flag => (field.default() != 0.0).to_string(),
            _ => number(field.default()),
        };
        let (bracket, rest) = doc
            .strip_prefix('[')
            .and_then(|d| d.split_once("] "))
            .unwrap_or_else(|| panic!("the doc of `{}` does not start with [default]", field.name));
        assert!(
            states(bracket, &default),
            "the header's default of `{}` is [{bracket}], the core's {default}",
            field.name
        );
        let mut help = field.help.to_string();
        help[..1].make_ascii_uppercase();
        assert!(
            rest.starts_with(&help),
            "the doc of `{}` does not start with its help {help:?}: {rest:?}",
            field.name
        );
        if field.capped() && field.kind != Kind::Flag {
            let cap = number(field.hi);
            let named = rest
                .split(|c: char| !(c.is_ascii_digit() || c == ',' || c == '.'))
                .any(|word| word.trim_end_matches(['.', ',']) == cap);
            assert!(
                named,
                "the doc of `{}` does not name its cap {cap}: {rest:?}",
                field.name
            );
        }
    }
    let seed = &docs.last().expect("the seed").2;
    assert!(
        seed.starts_with("[LLAMA_DEFAULT_SEED]"),
        "the seed's doc: {seed:?}"
    );
}

/// The range a field's row in README's table gives for the tools: `0 … 16`.
fn documented_range(field: &Field) -> String {
    let hi = if field.hi == f64::from(i32::MAX) {
        "2³¹−1".to_string()
    } else {
        number(field.hi)
    };
    format!("{} … {hi}", number(field.lo))
}

/// The row of a docs table that names `` `field` ``, as its cells, and the cell after the name.
fn row<'a>(doc: &str, text: &'a str, field: &str) -> (Vec<&'a str>, usize) {
    let name = format!("`{field}`");
    let cells = text
        .lines()
        .map(|line| line.split('|').map(str::trim).collect::<Vec<_>>())
        .find(|cells| cells.contains(&name.as_str()))
        .unwrap_or_else(|| panic!("{doc} has no table row for the parameter `{field}`"));
    let at = cells.iter().position(|cell| *cell == name).unwrap() + 1;
    (cells, at)
}

/// README's parameter table and SPEC's flag table have a row for every field of the C struct, with
/// the core's default in its default column (README: the column after the field; SPEC: after the
/// C parameter); README's last column gives the tools' range. A new field cannot ship
/// undocumented, and a wrong default or range fails here.
#[test]
fn every_parameter_is_documented() {
    for doc in ["README.md", "SPEC.md"] {
        let text = read(doc);
        for field in &FIELDS {
            let (cells, at) = row(doc, &text, field.name);
            let cell = cells.get(at).copied().unwrap_or_default();
            let default = documented_default(field);
            assert!(
                states(cell, &default),
                "{doc}: the default of `{}` reads {cell:?}, the core's is {default}",
                field.name
            );
            if doc == "README.md" && field.kind != Kind::Flag {
                let range = documented_range(field);
                let last = cells
                    .iter()
                    .rev()
                    .find(|c| !c.is_empty())
                    .copied()
                    .unwrap_or_default();
                assert!(
                    last.starts_with(&range),
                    "README.md: the tools' range of `{}` reads {last:?}, the core's is {range}",
                    field.name
                );
            }
        }
        let (cells, at) = row(doc, &text, "seed");
        assert_eq!(
            cells.get(at).copied(),
            Some("`LLAMA_DEFAULT_SEED`"),
            "{doc}: the seed's default"
        );
    }
}
