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

/// README's parameter table and SPEC's flag table have a row for every field of the C struct, so a
/// new field cannot ship undocumented (its text is written by hand; its presence is checked).
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
            assert!(
                text.contains(&format!("| `{field}` |")),
                "{doc} has no table row for the parameter `{field}`"
            );
        }
    }
}
