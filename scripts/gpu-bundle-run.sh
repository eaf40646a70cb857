#!/usr/bin/env bash
# run.sh of a GPU bundle (scripts/gpu-bundle.sh writes this file into the bundle as run.sh): scatter's
# backend sampling checked and measured on this machine's NVIDIA GPU, with nothing from the network
# and no Rust toolchain. Needs CMake, a C/C++ compiler, Python 3 and, for CUDA, nvcc and nvidia-smi
# (ninja if present).
#
#   BUNDLE/run.sh [--backend cuda|cpu] [--work DIR] [-- CMAKE_OPTION...]
#
# --backend: cuda (the default where nvidia-smi is found) builds llama.cpp with CUDA for this GPU's
# architecture only and no flash-attention kernels, and puts the model and the sampling graph on
# CUDA0; cpu builds it for the CPU alone (how CI proves the bundle offline). --work: where the
# sources are unpacked and built (default: BUNDLE/work). Options after -- go to CMake as they are.
# Results (at most 8 files) go to $OUT when
# it is set, else BUNDLE/results. Steps:
#   (a) test_backend_graph: scatter's graph on the device against the CPU apply, no model;
#   (b) test_backend_sampling: the model's logits and scatter's graph on the device, step by step
#       against the CPU;
#   (c) bench/backend_sampling.py: llama-completion -bs tokens/s without scatter, with it and with
#       its CPU fallback, 7 rounds in rotating order, medians;
#   (d) scatter-graph-size: the kernels one apply adds.
# Exits non-zero when a build or a check fails; the benchmark and the graph size only report.
set -euo pipefail
bundle=$(cd "$(dirname "$0")" && pwd)
backend=
work=$bundle/work
while [ $# -gt 0 ]; do
  case $1 in
    --backend) backend=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [--backend cuda|cpu] [--work DIR] [-- CMAKE_OPTION...]" >&2; exit 2 ;;
  esac
done
if [ -z "$backend" ]; then
  backend=cpu
  command -v nvidia-smi >/dev/null && backend=cuda
fi
results=${OUT:-$bundle/results}
mkdir -p "$results" "$work"
jobs=$(nproc)
started=$SECONDS

device_env=()
device_args=""
cmake_backend=()
case $backend in
  cuda)
    for tool in nvidia-smi nvcc; do
      command -v "$tool" >/dev/null || { echo "run.sh: $tool not found (--backend cuda needs the CUDA toolkit)" >&2; exit 2; }
    done
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
    device="$gpu (compute capability $arch), CUDA0"
    cmake_backend=(-DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" -DGGML_CUDA_FA=OFF)
    device_env=(LLAMA_SCATTER_TEST_DEVICE=CUDA0)
    device_args="-ngl 99 -dev CUDA0"
    ;;
  cpu)
    device="the CPU backend"
    ;;
  *) echo "run.sh: --backend is cuda or cpu" >&2; exit 2 ;;
esac

# The project's sources and the pinned llama.cpp tree, pruned (the bundle's tarballs), unpacked
# anew so that no earlier build's state is reused.
project=$work/project
rm -rf "$project"
mkdir -p "$project/.deps"
tar -xzf "$bundle/project.tar.gz" -C "$project"
tar -xzf "$bundle/llama.cpp.tar.gz" -C "$project/.deps"

build=$project/build
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
t0=$SECONDS
{
  cmake -S "$project" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "${cmake_backend[@]}" \
    -DLLAMA_SCATTER_PREBUILT="$bundle/lib/$(cat "$bundle/lib/NAME")" \
    -DLLAMA_SCATTER_LLAMA_TOOLS=ON -DLLAMA_SCATTER_TOOLS_REQUIRED=ON -DLLAMA_SCATTER_UI=OFF -DLLAMA_SCATTER_PYTHON=OFF \
    -DLLAMA_SCATTER_RUST_TESTS=OFF -DLLAMA_SCATTER_CONSUMER_TESTS=OFF -DLLAMA_SCATTER_BENCHMARKS=ON "$@"
  cmake --build "$build" -j "$jobs" \
    --target test_backend_graph test_backend_sampling llama-completion scatter-graph-size
} >"$results/build.log" 2>&1 || { tail -n 40 "$results/build.log" >&2; echo "run.sh: the build failed ($results/build.log)" >&2; exit 1; }
built=$((SECONDS - t0))

model=$bundle/model.gguf
status=0
t0=$SECONDS
env "${device_env[@]}" "$build/c_tests/test_backend_graph" >"$results/graph.log" 2>&1 || status=1
graph_s=$((SECONDS - t0)); t0=$SECONDS
env "${device_env[@]}" "$build/c_tests/test_backend_sampling" "$model" >"$results/sampling.log" 2>&1 || status=1
sampling_s=$((SECONDS - t0)); t0=$SECONDS
python3 "$project/bench/backend_sampling.py" "$build/bin" "$model" --runs 7 --tokens 256 \
  --device-args "$device_args" >"$results/tokens-per-second.log" 2>&1 || status=1
bench_s=$((SECONDS - t0))
"$build/bench/scatter-graph-size" >"$results/graph-size.log" 2>&1 || status=1

result_line() {  # FILE NAME: the suite's result line, or why there is none
  grep -E "^$2: " "$1" || echo "$2: no result line [$1]"
}
{
  echo "== GPU bundle summary =="
  echo "bundle: $(head -n 1 "$bundle/BUNDLE")"
  echo "device: $device; llama.cpp built in ${built} s; whole run $((SECONDS - started)) s"
  echo "(a) $(result_line "$results/graph.log" test_backend_graph) (${graph_s} s)"
  echo "(b) $(result_line "$results/sampling.log" test_backend_sampling) (${sampling_s} s)"
  echo "(c) tokens/s with -bs, 7 rounds (${bench_s} s):"
  grep -E '^median ' "$results/tokens-per-second.log" | sed 's/^/    /' || echo "    no medians [$results/tokens-per-second.log]"
  echo "(d) kernels per apply (scatter-graph-size):"
  awk '/^[^ ]/ { chain = $0 } /^ +[-+?]?scatter / { sub(/^ +/, ""); print "    " $0 "  in  " chain }' "$results/graph-size.log"
  [ "$status" -eq 0 ] && echo "result: passed" || echo "result: FAILED"
} | tee "$results/summary.txt"
exit "$status"
