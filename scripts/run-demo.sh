#!/usr/bin/env bash
# run-demo.sh DEMO_BINARY [MODEL.gguf]: runs the demo on MODEL, or on the
# default model (fetched by fetch-model.sh) when MODEL is empty.
set -euo pipefail
demo=$1
model=${2:-}
if [ -z "$model" ]; then
  model=$("$(dirname "$0")/fetch-model.sh")
fi
exec "$demo" -m "$model"
