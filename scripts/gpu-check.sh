#!/usr/bin/env bash
# gpu-check.sh [BUILD_DIR]: scatter's backend sampling on an NVIDIA GPU, for a machine that has one
# and the CUDA toolkit (nvcc, nvidia-smi); not part of CI, which has no GPU.
#
# Builds the pinned llama.cpp with CUDA for this machine's GPU only (its compute capability), the
# backend-sampling suite and the patched llama-completion (BUILD_DIR, default build-cuda/); runs the
# suite with the model and its sampling graph on CUDA0 (the step-by-step comparison with the CPU path:
# same tokens, same gate decisions, probabilities within 1e-6) and the -bs tokens/s benchmark with
# and without scatter (bench/backend_sampling.py, 7 runs each); prints one summary. Made to finish
# within about 10 minutes on 16 cores with a warm download cache (not yet run on one: no GPU was
# available where it was written).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build-cuda}
for tool in nvidia-smi nvcc cmake ninja cargo python3; do
  command -v "$tool" >/dev/null || { echo "gpu-check: $tool not found (needs the CUDA toolkit and the build prerequisites of CONTRIBUTING.md)" >&2; exit 2; }
done
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d '.')
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
start=$(date +%s)
cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "${launcher[@]}" \
  -DGGML_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES="$arch" \
  -DLLAMA_SCATTER_LLAMA_TOOLS=ON -DLLAMA_SCATTER_TOOLS_REQUIRED=ON -DLLAMA_SCATTER_PYTHON=OFF \
  -DLLAMA_SCATTER_RUST_TESTS=OFF -DLLAMA_SCATTER_CONSUMER_TESTS=OFF -DLLAMA_SCATTER_BUILD_EXAMPLES=OFF
cmake --build "$build" --target test_backend_sampling llama-completion -j "$(nproc)"
built=$(($(date +%s) - start))
model=$("$here/scripts/fetch-model.sh")

suite_log="$build/gpu-check-suite.log"
suite=0
LLAMA_SCATTER_TEST_DEVICE=CUDA0 "$build/c_tests/test_backend_sampling" "$model" >"$suite_log" 2>&1 || suite=$?
bench_log="$build/gpu-check-bench.log"
python3 "$here/bench/backend_sampling.py" "$build/bin" "$model" --runs 7 --tokens 256 \
  --device-args "-ngl 99 -dev CUDA0" | tee "$bench_log"

echo
echo "== gpu-check summary =="
echo "GPU: $gpu (compute capability $arch), llama.cpp: the pinned tree, built in ${built} s"
echo "backend-sampling suite on CUDA0: $(grep -E '^test_backend_sampling: ' "$suite_log" || echo "no result line (exit $suite)") [$suite_log]"
grep -E '^median ' "$bench_log"
exit "$suite"
