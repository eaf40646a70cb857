//! The committed files made from the sources must be exactly what the sources make: the files
//! and document blocks made from scatter-core's table of fields (`scatter_core::made`), and the
//! header (cbindgen). `LLAMA_SCATTER_BLESS=1` rewrites them instead. The doc comments the
//! descriptions come from are checked against the table's defaults and caps.

use scatter_core::fields::{Kind, FIELDS};
use scatter_core::made::{self, File};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const BLESS: &str = "LLAMA_SCATTER_BLESS=1 cargo test --test made";

/// `text` with the block `name` (the lines between its two markers) replaced by `block`.
fn with_block(path: &str, text: &str, name: &str, block: &str) -> String {
    let begin = format!("<!-- made: {name} -->\n");
    let end = "<!-- made: end -->\n";
    let start = text
        .find(&begin)
        .unwrap_or_else(|| panic!("{path} has no line `<!-- made: {name} -->`"))
        + begin.len();
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{path}: the block {name} has no `{end}`"));
    format!("{}{block}{}", &text[..start], &text[stop..])
}

/// The committed file is what its sources make, or, under `LLAMA_SCATTER_BLESS`, becomes it.
fn committed_is(file: &File) {
    let path = root().join(file.path);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let made = match file.block {
        None => file.text.clone(),
        Some(name) => with_block(file.path, &committed, name, &file.text),
    };
    if std::env::var_os("LLAMA_SCATTER_BLESS").is_some() {
        std::fs::write(&path, made).unwrap_or_else(|e| panic!("write {}: {e}", file.path));
        return;
    }
    assert!(
        committed == made,
        "{} is stale: regenerate it with `{BLESS}` and commit it",
        file.path
    );
}

fn generated_header() -> String {
    let config = cbindgen::Config::from_file(root().join("cbindgen.toml")).expect("cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root())
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    String::from_utf8(generated).expect("the header is UTF-8")
}

/// One test, in order: the header is made from `src/ffi/limits.rs`, itself a made file.
#[test]
fn committed_made_files_are_current() {
    for file in made::files() {
        committed_is(&file);
    }
    committed_is(&File {
        path: "include/llama-scatter.h",
        block: None,
        text: generated_header(),
    });
}

/// A number as a doc comment writes it: `0.3`, `16`, `65,536`.
fn number(v: f64) -> Vec<String> {
    let plain = (v as f32).to_string();
    let grouped = if v >= 10_000.0 && v.fract() == 0.0 {
        let digits = plain.as_bytes();
        let mut out = String::new();
        for (i, c) in digits.iter().enumerate() {
            if i > 0 && (digits.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(char::from(*c));
        }
        out
    } else {
        plain.clone()
    };
    vec![plain, grouped]
}

/// Whether `doc` states `cap` as what the sampler clamps to: "capped at CAP", "at most CAP", or a
/// range after "clamped to" or "in" that ends at it ("Clamped to (0, 1]"). A number elsewhere
/// ("1/collision", "the rank-smoothed (1)") is not a cap.
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

/// Each field's doc comment starts with its default in brackets, the core's, and states the cap
/// the sampler clamps to.
#[test]
fn each_doc_comment_states_the_default_and_the_cap() {
    for field in &FIELDS {
        let doc = field.doc();
        let (bracket, rest) = doc
            .strip_prefix('[')
            .and_then(|d| d.split_once("] "))
            .unwrap_or_else(|| panic!("the doc of `{}` does not start with [default]", field.name));
        let stated = match field.kind {
            Kind::Flag => bracket.parse::<bool>().map(|b| f64::from(u8::from(b))).ok(),
            Kind::Seed if bracket == "LLAMA_DEFAULT_SEED" => {
                Some(f64::from(scatter_core::params::DEFAULT_SEED))
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
