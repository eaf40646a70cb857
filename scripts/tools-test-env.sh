#!/usr/bin/env bash
# tools-test-env.sh VENV: a virtual environment for the tests of the patched tools that need
# packages of their own: Playwright (it drives Debian's Chromium, /usr/bin/chromium, for the web
# UI's test: no browser is downloaded) and gguf (it rewrites a copy of the model's metadata).
# Made once per VENV and set of versions; progress goes to stderr.
set -euo pipefail
venv=$1
packages=(playwright==1.65.2 gguf==0.19.0)
stamp="$venv/.llama-scatter-tools-test-env"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${packages[*]}" ]; then
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}" >&2
echo "${packages[*]}" > "$stamp"
