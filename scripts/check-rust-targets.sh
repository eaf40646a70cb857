#!/usr/bin/env bash
# clippy, warnings as errors, on every Rust target a release is cross-built for (the ARM64 and the
# Windows release: DESIGN.md "The ARM64 release", "The Windows release"), tests and benches included.
# The release builds compile the library only, and the `test` preset's clippy runs for x86-64 Linux:
# code under `#[cfg(target_arch = ...)]` or `#[cfg(windows)]` is checked nowhere else (an import used
# only by an x86-64 test failed here on aarch64). Checking builds no llama.cpp: bindgen reads the
# pinned tree's llama.h (scripts/fetch-llama-cpp.sh) with each target's C headers, which the `arm64`
# and `windows` prerequisites install with the Rust targets. About a minute a target, cold.
#
# usage: scripts/check-rust-targets.sh [LLAMA_CPP_SOURCE_DIR]   (default: .deps/llama.cpp)
set -euo pipefail
cd "$(dirname "$0")/.."
source_dir=$(realpath "${1:-.deps/llama.cpp}")
[ -f "$source_dir/include/llama.h" ] || { echo "no llama.h in $source_dir: run scripts/fetch-llama-cpp.sh" >&2; exit 1; }

for target in aarch64-unknown-linux-gnu x86_64-pc-windows-gnu; do
  echo "--- clippy for $target"
  LLAMA_CPP_SOURCE_DIR="$source_dir" CARGO_TARGET_DIR="$PWD/target/check-$target" \
    cargo clippy --release --locked --workspace --exclude scatter-llama-cpp --all-targets --target "$target" -- -D warnings
done
echo "clippy passed on every release target"
