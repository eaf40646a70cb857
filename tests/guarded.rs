//! Every function C can call — the exported `llama_*` functions and the
//! callbacks of the sampler's table — is guarded the same structural way:
//! its whole body is one `ffi_guard!` (src/ffi/guard.rs), so no panic can
//! unwind into C. hyper's `ffi_fn!` wraps the whole function instead, but
//! cbindgen reads no function a macro makes (short of nightly-only macro
//! expansion), and the header is generated from these functions; this test
//! is what makes an unguarded entry point fail instead.

use std::path::{Path, PathBuf};
use syn::{Expr, Item, ItemFn, Stmt};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The functions of `items` (inline modules included, tests excluded) that
/// C can call: `extern "C"` with a body.
fn entry_points<'a>(items: &'a [Item], out: &mut Vec<&'a ItemFn>) {
    for item in items {
        match item {
            Item::Fn(f) if f.sig.abi.is_some() => out.push(f),
            Item::Fn(f) => assert!(
                !f.attrs.iter().any(|a| a.path().is_ident("no_mangle")),
                "{} is #[no_mangle] but not extern \"C\"",
                f.sig.ident
            ),
            Item::Mod(m) if !m.attrs.iter().any(|a| a.path().is_ident("cfg")) => {
                if let Some((_, items)) = &m.content {
                    entry_points(items, out);
                }
            }
            _ => {}
        }
    }
}

fn is_guarded(f: &ItemFn) -> bool {
    let is_guard = |path: &syn::Path| path.is_ident("ffi_guard");
    match f.block.stmts.as_slice() {
        [Stmt::Macro(m)] => is_guard(&m.mac.path),
        [Stmt::Expr(Expr::Macro(m), None)] => is_guard(&m.mac.path),
        _ => false,
    }
}

#[test]
fn every_entry_point_is_one_ffi_guard() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    let (mut exported, mut callbacks) = (Vec::new(), 0);
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a source file");
        let parsed = syn::parse_file(&text).expect("the source parses");
        let mut found = Vec::new();
        entry_points(&parsed.items, &mut found);
        for f in found {
            let no_mangle = f.attrs.iter().any(|a| a.path().is_ident("no_mangle"));
            if no_mangle {
                exported.push(f.sig.ident.to_string());
            } else {
                callbacks += 1;
            }
            assert!(
                is_guarded(f),
                "{}: the body of {} is not one ffi_guard!(fallback, {{ ... }})",
                file.display(),
                f.sig.ident
            );
        }
    }
    // The walk found every function the header declares, and the CPU
    // callbacks at least.
    let header = std::fs::read_to_string(root.join("include/llama-scatter.h")).expect("the header");
    let mut declared: Vec<String> = header
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()) && l.contains('('))
        .filter_map(|l| l.split('(').next()?.rsplit(['*', ' ']).next())
        .map(str::to_owned)
        .collect();
    declared.sort();
    exported.sort();
    assert_eq!(
        exported, declared,
        "exported functions vs the header's declarations"
    );
    assert!(callbacks >= 6, "only {callbacks} callbacks found");
}
