#!/usr/bin/env bash
# The Rust crate for llama-cpp-2 programs (scatter-llama-cpp/README.md), end to end:
#  1. its tests and doc tests, and scatter-core's doc tests;
#  2. its example on the project's model, and the same tokens as the C chain: the example and
#     scatter-demo (the chain in C, through llama_sampler_init_scatter_params) generate with the
#     same prompt, presets and seeds; scatter-demo is built against b11434, the llama.cpp tree that
#     llama-cpp-sys-2 vendors (BUILD: the matrix step's build of it), each in its own process;
#  3. cargo publish --dry-run of scatter-core and scatter-llama-cpp (packaged and built from the
#     packages; nothing is uploaded).
# llama-cpp-sys-2 builds its own llama.cpp with CMake: ccache is its launcher, and AMX is left out
# where the superbuild's probe (cmake/amx-probe.cpp, built and run here the same way) fails.
#
# usage: scripts/check-rust-crate.sh BUILD
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/check-rust-crate.sh BUILD (a superbuild of b11434)}

export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
# cargo publish's check builds llama-cpp-sys-2 again, in a build folder of its own with the same
# flags: with paths taken relative to the folders under the clone and the working folder out of the
# key (the objects carry debug info), ccache gives it the first build's objects.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
# llama-cpp-sys-2 builds llama.cpp natively (GGML_NATIVE) when Rust targets the native CPU, as the
# superbuild does: the two builds of one tree then compute the same logits.
export RUSTFLAGS="-C target-cpu=native"
amx=$(bash scripts/amx-flags.sh)
if [ -n "$amx" ]; then
  export CFLAGS="$amx" CXXFLAGS="$amx"
fi
# The dev profile, as cargo publish's check builds: that build then finds every dependency built
# (llama.cpp itself is optimised in both: llama-cpp-sys-2 asks CMake for RelWithDebInfo).
crate=(--locked -p scatter-llama-cpp)

echo "--- rust-version: at least every dependency's"
cargo metadata --locked --format-version 1 | python3 -c '
import json, sys
meta = json.load(sys.stdin)
packages = {p["id"]: p for p in meta["packages"]}
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
def version(v):
    return tuple(int(x) for x in v.split("."))
for name in ("scatter-core", "scatter-llama-cpp"):
    root = next(p for p in meta["packages"] if p["name"] == name)
    seen, stack = set(), [root["id"]]
    while stack:
        at = stack.pop()
        if at not in seen:
            seen.add(at)
            stack += [d["pkg"] for d in nodes[at]["deps"] if any(k["kind"] in (None, "build") for k in d["dep_kinds"])]
    need = max((packages[i] for i in seen - {root["id"]} if packages[i]["rust_version"]),
               key=lambda p: version(p["rust_version"]), default=None)
    ours = root["rust_version"]
    newest = "no dependency names one" if need is None else "newest: %s %s" % (need["name"], need["rust_version"])
    if need and version(need["rust_version"]) > version(ours):
        sys.exit("%s: rust-version %s, below what its dependencies need (%s)" % (name, ours, newest))
    print("%s: rust-version %s (%s)" % (name, ours, newest))
'

echo "--- tests, doc tests, clippy"
cargo test "${crate[@]}"
cargo clippy "${crate[@]}" --all-targets -- -D warnings
cargo test --locked -p scatter-core --doc

echo "--- the example, and the same tokens as the C chain"
model=$(bash scripts/fetch-model.sh)
cmake -S . -B "$build" -DLLAMA_SCATTER_BUILD_EXAMPLES=ON >/dev/null
cmake --build "$build" --target scatter-demo
demo=$(find "$build" -name scatter-demo -type f -perm -u+x | head -n 1)
cargo build "${crate[@]}" --example generate
example=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/debug/examples/generate
"$example" "$model" -n 24
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for run in "creative 42" "collision 7" "adaptive 3"; do
  read -r preset seed <<<"$run"
  "$example" "$model" -n 48 -s "$seed" -t "$(nproc)" --preset "$preset" --ids >"$out/rust" 2>"$out/rust.log"
  "$demo" -m "$model" -n 48 -s "$seed" -t "$(nproc)" --preset "$preset" --ids >"$out/c" 2>"$out/c.log"
  if ! cmp -s "$out/rust" "$out/c"; then
    echo "FAILED: $preset, seed $seed: the crate's tokens differ from the C chain's" >&2
    diff "$out/rust" "$out/c" | head -n 20 >&2
    exit 1
  fi
  echo "$preset, seed $seed: the same $(wc -l <"$out/c") tokens; $(tail -n 1 "$out/rust.log")"
done

echo "--- cargo publish --dry-run"
cargo publish --dry-run --locked -p scatter-core -p scatter-llama-cpp
