//! The preset tables of SPEC.md §6 and README.md are written as flags; the
//! values themselves live once, in `scatter_core::params::PRESETS`. This test
//! reads each table back into parameters and compares, so the docs cannot
//! drift from the library.

use scatter_core::params::PRESETS;
use scatter_core::Params;
use std::path::Path;

/// Applies `--scatter-*` flags (as the patched llama.cpp tools take them) to
/// `params`. A row may start from another preset ("adaptive, plus …").
fn apply_flags(mut params: Params, text: &str) -> Params {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == '`')
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while i < words.len() {
        let flag = words[i];
        let value = || -> f32 {
            words
                .get(i + 1)
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{flag} needs a number in {text:?}"))
        };
        let mut takes_value = true;
        match flag {
            "--scatter-k" => params.k = value() as i32,
            "--scatter-strength" => params.strength = value(),
            "--scatter-radius" => params.radius = value(),
            "--scatter-steps" => params.steps = value() as i32,
            "--scatter-strength-min" => params.strength_min = value(),
            "--scatter-strength-max" => params.strength_max = value(),
            "--scatter-entropy-target" => params.entropy_target = value(),
            "--scatter-absorption" => params.absorption = value(),
            "--scatter-absorption-last-n" => params.absorption_last_n = value() as i32,
            "--scatter-collision" => params.collision = value(),
            "--scatter-adaptive" => {
                params.adaptive = true;
                takes_value = false;
            }
            other => {
                assert!(!other.starts_with("--"), "unknown flag {other} in {text:?}");
                takes_value = false;
            }
        }
        i += if takes_value { 2 } else { 1 };
    }
    params
}

/// Checks every preset row of the markdown table in `file`.
fn check_table(file: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut seen = Vec::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let (Some(name), Some(flags)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let Some(preset) = PRESETS
            .iter()
            .find(|p| p.name.to_bytes() == name.as_bytes())
        else {
            continue;
        };
        let base = match PRESETS
            .iter()
            .find(|p| flags.starts_with(p.name.to_str().unwrap()))
        {
            Some(base) => base.params,
            None => Params::DEFAULT,
        };
        assert_eq!(
            apply_flags(base, flags),
            preset.params,
            "{file}: the row of preset {name} disagrees with scatter_core::params::PRESETS"
        );
        seen.push(*name);
    }
    let all: Vec<&str> = PRESETS.iter().map(|p| p.name.to_str().unwrap()).collect();
    assert_eq!(seen, all, "{file} must list every preset once, in order");
}

#[test]
fn spec_presets_table_matches_the_library() {
    check_table("SPEC.md");
}

#[test]
fn readme_presets_table_matches_the_library() {
    check_table("README.md");
}

#[test]
fn every_preset_is_found_by_name_and_is_active() {
    for preset in PRESETS {
        let name = preset.name.to_str().unwrap();
        assert_eq!(Params::preset(name), Some(preset.params));
        assert_ne!(
            scatter_core::Scatter::new(&preset.params).name(),
            c"?scatter"
        );
    }
    assert_eq!(Params::preset("Creative"), None);
    assert_eq!(Params::preset(""), None);
}
