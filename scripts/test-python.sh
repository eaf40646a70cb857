#!/usr/bin/env bash
# test-python.sh VENV DIST LIBLLAMA_DIR HEADER: installs llama-cpp-python 0.3.36 (once) and the
# wheel in DIST into VENV (python-env.sh), then runs python/tests/test_llama_scatter.py with the
# default model, llama-cpp-python loading the libllama in LIBLLAMA_DIR.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv=$1
wheels=("$2"/llama_scatter-*.whl)
bash "$here/python-env.sh" "$venv" "${wheels[0]}"
cd "$(mktemp -d)"   # not the source tree: the test must import the installed package
LLAMA_CPP_LIB_PATH=$3 exec bash "$here/with-model.sh" \
  "$venv/bin/python" "$here/../python/tests/test_llama_scatter.py" "$4"
