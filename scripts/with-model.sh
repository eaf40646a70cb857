#!/usr/bin/env bash
# with-model.sh [--chat] COMMAND [ARGS...]: runs COMMAND ARGS... MODEL, with MODEL the GGUF in
# $LLAMA_SCATTER_MODEL or, when that is empty, the default model (Gemma 3 270M Q4_K_M, a base model,
# fetched and cached by fetch-model.sh); with --chat, the chat model SmolLM2-135M-Instruct
# (fetch-smollm2.sh), whatever LLAMA_SCATTER_MODEL says.
set -euo pipefail
here=$(dirname "$0")
if [ "${1:-}" = --chat ]; then
  shift
  model=$("$here/fetch-smollm2.sh")
else
  model=${LLAMA_SCATTER_MODEL:-}
  if [ -z "$model" ]; then
    model=$("$here/fetch-model.sh")
  fi
fi
exec "$@" "$model"
