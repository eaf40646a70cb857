//! The project's own commands, in Rust alone (no llama.cpp, no CMake):
//!
//! `cargo xtask made`: every made file written anew (CONTRIBUTING.md "The made files"): the files and
//! document blocks that scatter-core's `made` makes from its table of fields, then the header, which
//! cbindgen makes from the sources those include (`src/ffi/limits.rs`, `scatter-core/src/params.rs`).
//! `cargo xtask made --check`: nothing written; each stale file named, exit status 1. The test below
//! runs the check with the workspace's tests, so CI fails on a stale file.

use scatter_core::made::{self, File};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

const USAGE: &str = "usage: cargo xtask made [--check]";

/// The repository's root: the workspace this crate is a member of.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask/ is in the repository")
        .to_path_buf()
}

/// The two marker lines of the block `name` in `path`, in its language.
fn markers(path: &str, name: &str) -> (String, String) {
    if path.ends_with(".rs") {
        (format!("// made: {name}"), "// made: end".to_string())
    } else {
        (
            format!("<!-- made: {name} -->"),
            "<!-- made: end -->".to_string(),
        )
    }
}

/// `text` with the lines between the block's two marker lines replaced by `block`.
fn with_block(path: &str, text: &str, name: &str, block: &str) -> Result<String, String> {
    let (begin, end) = markers(path, name);
    let mut offset = 0;
    let (mut start, mut stop) = (None, None);
    for line in text.split_inclusive('\n') {
        if start.is_none() && line.trim() == begin {
            start = Some(offset + line.len());
        } else if start.is_some() && line.trim() == end {
            stop = Some(offset);
            break;
        }
        offset += line.len();
    }
    match (start, stop) {
        (Some(start), Some(stop)) => Ok(format!("{}{block}{}", &text[..start], &text[stop..])),
        _ => Err(format!("{path} has no block between `{begin}` and `{end}`")),
    }
}

/// The header as cbindgen makes it from the sources now on disk.
fn header(root: &Path) -> Result<String, String> {
    let config = cbindgen::Config::from_file(root.join("cbindgen.toml"))?;
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(root)
        .with_config(config)
        .generate()
        .map_err(|e| format!("cbindgen: {e}"))?
        .write(&mut generated);
    String::from_utf8(generated).map_err(|e| format!("the header is not UTF-8: {e}"))
}

/// Compares `file` with its committed copy under `root`, or writes it: the paths found stale.
fn settle(root: &Path, file: &File, write: bool) -> Result<Option<&'static str>, String> {
    let path = root.join(file.path);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let made = match file.block {
        None => file.text.clone(),
        Some(name) => with_block(file.path, &committed, name, &file.text)?,
    };
    if made == committed {
        return Ok(None);
    }
    if write {
        std::fs::write(&path, made).map_err(|e| format!("write {}: {e}", file.path))?;
    }
    Ok(Some(file.path))
}

/// Every made file compared or written, the header last (it is made from two of them): the
/// paths that were stale.
fn made_files(root: &Path, write: bool) -> Result<Vec<&'static str>, String> {
    let mut stale = Vec::new();
    for file in made::files() {
        stale.extend(settle(root, &file, write)?);
    }
    let header = File {
        path: "include/llama-scatter.h",
        block: None,
        text: header(root)?,
    };
    stale.extend(settle(root, &header, write)?);
    Ok(stale)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let check = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["made"] => false,
        ["made", "--check"] => true,
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match made_files(&root(), !check) {
        Ok(stale) if stale.is_empty() => {
            println!("every made file is current");
            ExitCode::SUCCESS
        }
        Ok(stale) if check => {
            eprintln!(
                "stale (remake them with `cargo xtask made` and commit them): {}",
                stale.join(", ")
            );
            ExitCode::FAILURE
        }
        Ok(stale) => {
            println!("made anew: {}", stale.join(", "));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("cargo xtask made: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed made files are what the sources make now.
    #[test]
    fn committed_made_files_are_current() {
        let stale = made_files(&root(), false).expect("the made files can be made");
        assert!(
            stale.is_empty(),
            "stale: {stale:?}: run `cargo xtask made` and commit them"
        );
    }

    #[test]
    fn a_block_is_replaced_between_its_markers_only() {
        let rust = "a\n    // made: x\nold\n    // made: end\nb\n";
        assert_eq!(
            with_block("f.rs", rust, "x", "new\n").unwrap(),
            "a\n    // made: x\nnew\n    // made: end\nb\n"
        );
        let doc = "<!-- made: x -->\nold\n<!-- made: end -->\n";
        assert_eq!(
            with_block("f.md", doc, "x", "").unwrap(),
            "<!-- made: x -->\n<!-- made: end -->\n"
        );
        assert!(with_block("f.md", "<!-- made: xy -->\n<!-- made: end -->\n", "x", "").is_err());
    }
}
