//! The committed header must be exactly what cbindgen generates from the
//! current sources. `LLAMA_SCATTER_BLESS=1` rewrites it instead.

use std::path::Path;

#[test]
fn committed_header_is_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    let path = root.join("include/llama-scatter.h");
    if std::env::var_os("LLAMA_SCATTER_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write include/llama-scatter.h");
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/llama-scatter.h is stale: regenerate it with `LLAMA_SCATTER_BLESS=1 cargo test --test header` and commit it"
    );
}

/// The fields of the header's `struct llama_scatter_params`, in order.
fn params_fields(header: &str) -> Vec<&str> {
    let start = header
        .find("typedef struct llama_scatter_params {")
        .expect("the header declares struct llama_scatter_params");
    let body = &header[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find('}').unwrap()];
    body.lines()
        .filter_map(|line| line.trim().strip_suffix(';'))
        .filter_map(|decl| decl.split_whitespace().last())
        .collect()
}

/// The default of `field` in the core, as a parameter table writes it: a number, `off`/`on`, or
/// `` `LLAMA_DEFAULT_SEED` ``. A field this does not know is a new one: say how its default reads.
fn documented_default(field: &str) -> String {
    let d = scatter_core::Params::DEFAULT;
    let number = |v: f32| v.to_string();
    match field {
        "k" => d.k.to_string(),
        "strength" => number(d.strength),
        "radius" => number(d.radius),
        "steps" => d.steps.to_string(),
        "adaptive" => (if d.adaptive { "on" } else { "off" }).to_string(),
        "strength_min" => number(d.strength_min),
        "strength_max" => number(d.strength_max),
        "entropy_target" => number(d.entropy_target),
        "absorption" => number(d.absorption),
        "absorption_last_n" => d.absorption_last_n.to_string(),
        "collision" => number(d.collision),
        "seed" if d.seed == scatter_core::params::DEFAULT_SEED => {
            "`LLAMA_DEFAULT_SEED`".to_string()
        }
        other => {
            panic!("tests/header.rs: no documented form for the default of the new field `{other}`")
        }
    }
}

/// Whether a table cell states `default`: the same text, or the same number (`0.30` is 0.3).
fn states(cell: &str, default: &str) -> bool {
    cell == default
        || matches!((cell.parse::<f64>(), default.parse::<f64>()), (Ok(a), Ok(b)) if a == b)
}

/// README's parameter table and SPEC's flag table have a row for every field of the C struct, with
/// the core's default in its default column (README: the column after the field; SPEC: after the
/// C parameter), so a new field cannot ship undocumented and a wrong default fails here.
#[test]
fn every_parameter_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |name: &str| std::fs::read_to_string(root.join(name)).expect(name);
    let header = read("include/llama-scatter.h");
    let fields = params_fields(&header);
    assert!(fields.len() > 1, "no fields read from the header");
    for doc in ["README.md", "SPEC.md"] {
        let text = read(doc);
        for field in &fields {
            let name = format!("`{field}`");
            let row = text
                .lines()
                .map(|line| line.split('|').map(str::trim).collect::<Vec<_>>())
                .find(|cells| cells.contains(&name.as_str()))
                .unwrap_or_else(|| panic!("{doc} has no table row for the parameter `{field}`"));
            let at = row.iter().position(|cell| *cell == name).unwrap();
            let cell = row.get(at + 1).copied().unwrap_or_default();
            let default = documented_default(field);
            assert!(
                states(cell, &default),
                "{doc}: the default of `{field}` reads {cell:?}, the core's is {default}"
            );
        }
    }
}
