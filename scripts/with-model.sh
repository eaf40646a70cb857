#!/usr/bin/env bash
# with-model.sh COMMAND [ARGS...]: runs COMMAND ARGS... MODEL, with MODEL the
# GGUF in $LLAMA_SCATTER_MODEL or, when that is empty, the default model
# (Gemma 3 270M Q4_K_M, fetched and cached by fetch-model.sh).
set -euo pipefail
model=${LLAMA_SCATTER_MODEL:-}
if [ -z "$model" ]; then
  model=$("$(dirname "$0")/fetch-model.sh")
fi
exec "$@" "$model"
