#!/usr/bin/env bash
# gpu-bundle.sh DIR [LIBRARY]: writes DIR, a GPU bundle: everything an NVIDIA machine needs to check and measure
# scatter's backend sampling with no network and no Rust toolchain (CONTRIBUTING.md, "On a GPU").
# Made here, with the network and cargo; DIR/run.sh runs there (scripts/gpu-bundle-run.sh says how).
#
#   project.tar.gz    this checkout's tracked files (the evaluation's records left out)
#   llama.cpp.tar.gz  the pinned llama.cpp tree (.deps/llama.cpp, fetched if missing) with scatter's
#                     hooks, pruned to what libllama, common/ and the tools need on the CPU and CUDA
#                     backends
#   lib/              libllama_scatter built for generic x86-64 (no -C target-cpu=native: it runs on
#                     any x86-64 CPU) against that tree; lib/NAME names the file. LIBRARY, when given,
#                     is such a build already made (the hardening preset's build-hardening/lib/ has
#                     one); else this script builds it
#   model.gguf        a random-weight model with a 32,000-token vocabulary (scripts/random-model.py)
#   run.sh, BUNDLE    the script that runs there; what made the bundle
#
# The bundle must stay within 60 MiB (checked here): the GPU machine takes at most 64 MiB in.
# Environment: LLAMA_SCATTER_BUNDLE_BUILD, the build folder of the library and the model's Python
# environment (default: build-bundle/ in this checkout).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 1 ] || [ $# -eq 2 ] || { echo "usage: $0 DIR [LIBRARY]" >&2; exit 2; }
out=$1
library=${2:-}
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "gpu-bundle: $out exists and is not empty" >&2
  exit 2
fi
mkdir -p "$out/lib"
out=$(cd "$out" && pwd)
build=${LLAMA_SCATTER_BUNDLE_BUILD:-$here/build-bundle}
tree=$here/.deps/llama.cpp
max_bytes=$((60 * 1024 * 1024))

# The library: the superbuild's, with nothing of this machine's CPU in it (and no RUSTFLAGS of the
# caller's environment). The superbuild also fetches the pinned tree when it is missing.
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS cmake -S "$here" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DLLAMA_SCATTER_NATIVE=OFF \
  -DLLAMA_SCATTER_BUILD_TESTS=OFF -DLLAMA_SCATTER_BUILD_EXAMPLES=OFF -DLLAMA_SCATTER_LLAMA_TOOLS=OFF >&2
if [ -z "$library" ]; then
  env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS cmake --build "$build" --target llama_scatter_cargo -j "$(nproc)" >&2
  library=$(ls "$build"/lib/libllama_scatter.so.*.*.*)
fi
cp "$library" "$out/lib/"
basename "$library" >"$out/lib/NAME"

# The model, written by the gguf package in an environment of its own.
venv=$build/gguf-venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "gguf==0.19.0" >&2
fi
"$venv/bin/python" "$here/scripts/random-model.py" "$out/model.gguf"

# The project: what git tracks, as it is in the working tree.
(cd "$here" && git ls-files -z -- . ':!:eval/results' | tar --null -T - -czf "$out/project.tar.gz")

# The llama.cpp tree with scatter's hooks applied here, where git is (patch-llama-cpp.sh copies such
# a tree without git there), and without what a CPU or CUDA build of libllama, common/ and the tools
# never reads: the other backends, models, docs, tests, examples, the web UI's sources and Python.
patched=$build/bundle/llama.cpp
bash "$here/scripts/patch-llama-cpp.sh" "$tree" "$patched" >&2
(cd "$patched/.." && tar -czf "$out/llama.cpp.tar.gz" \
  --exclude='llama.cpp/ggml/src/ggml-'{cann,et,hexagon,hip,metal,musa,opencl,openvino,sycl,virtgpu,vulkan,webgpu,zdnn,zendnn} \
  --exclude='llama.cpp/tools/ui/'{src,static,tests} \
  llama.cpp/CMakeLists.txt llama.cpp/LICENSE llama.cpp/.llama-scatter-source llama.cpp/.llama-scatter-patched \
  llama.cpp/cmake llama.cpp/include llama.cpp/src llama.cpp/ggml llama.cpp/common llama.cpp/vendor \
  llama.cpp/tools llama.cpp/licenses)

cp "$here/scripts/gpu-bundle-run.sh" "$out/run.sh"
{
  echo "llama-scatter $(git -C "$here" describe --always --dirty), made $(date -u +%Y-%m-%dT%H:%MZ)" \
    "on $(uname -m); llama.cpp $(tail -n 1 "$tree/.llama-scatter-source")"
  (cd "$out" && sha256sum run.sh project.tar.gz llama.cpp.tar.gz "lib/$(cat lib/NAME)" model.gguf)
} >"$out/BUNDLE"

bytes=$(du -sb "$out" | cut -f1)
if [ "$bytes" -gt "$max_bytes" ]; then
  echo "gpu-bundle: $out holds $bytes bytes, more than 60 MiB" >&2
  exit 1
fi
echo "gpu-bundle: $out, $((bytes / 1024 / 1024)) MiB ($bytes bytes)" >&2
