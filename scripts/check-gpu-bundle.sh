#!/usr/bin/env bash
# check-gpu-bundle.sh [LIBRARY]: proves here that a GPU bundle needs nothing it does not carry. Writes
# one (scripts/gpu-bundle.sh, into build-bundle/check; LIBRARY as there) and runs its run.sh with the
# CPU backend in place of CUDA, in a network namespace with no network (unshare -n) and with every
# folder that holds cargo or rustc taken off the PATH; then checks that the summary has every line
# the GPU run prints and that the run passed, with at most 8 result files. The bundle's size limit
# is gpu-bundle.sh's own check.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dir=$here/build-bundle/check
rm -rf "$dir"
bash "$here/scripts/gpu-bundle.sh" "$dir/bundle" "$@"

offline_path=
IFS=: read -ra entries <<<"$PATH"
for entry in "${entries[@]}"; do
  [ -x "$entry/cargo" ] || [ -x "$entry/rustc" ] || offline_path=${offline_path:+$offline_path:}$entry
done
# The llama.cpp options every preset shares (RPC on; AMX decided by the same probe), so that in CI
# ccache hands back the test step's objects: the bundle builds the same tree.
results=$dir/results
status=0
OUT=$results unshare -n env PATH="$offline_path" bash -c \
  '! command -v cargo && ! command -v rustc && ! getent hosts pypi.org && exec "$@"' offline \
  bash "$dir/bundle/run.sh" --backend cpu --work "$dir/work" -- -DLLAMA_SCATTER_RPC=ON ||
  status=$?

summary=$results/summary.txt
for line in '^bundle: ' '^device: the CPU backend' '^\(a\) test_backend_graph: [0-9]+ passed, 0 failed' \
            '^\(b\) test_backend_sampling: [0-9]+ passed, 0 failed' '^ +median -bs +' \
            '^ +median -bs --scatter-preset creative +' '^ +median -bs --scatter-preset creative --scatter-k 300 ' \
            '^ +\+scatter +[0-9]+ nodes, +[0-9]+ kernels +in +top_k 40 -> scatter creative' '^result: passed$'; do
  grep -Eq -- "$line" "$summary" || { echo "check-gpu-bundle: the summary lacks a line matching $line" >&2; status=1; }
done
[ "$(find "$results" -type f | wc -l)" -le 8 ] || { echo "check-gpu-bundle: more than 8 result files" >&2; status=1; }
exit "$status"
