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
