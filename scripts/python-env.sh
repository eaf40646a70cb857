#!/usr/bin/env bash
# python-env.sh VENV WHEEL: a virtual environment for the Python package's tests:
# llama-cpp-python 0.3.36 from its source distribution (PyPI) with its Python part only
# (CMAKE_ARGS -DLLAMA_BUILD=OFF: it then loads the libllama of $LLAMA_CPP_LIB_PATH, the pinned
# tree this build made, so llama.cpp is not compiled twice), and WHEEL, the llama-scatter wheel.
# llama-cpp-python is installed once per VENV; WHEEL every time. Progress goes to stderr.
set -euo pipefail
venv=$1
wheel=$2
if [ ! -f "$venv/.llama-cpp-python-0.3.36" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2
  CMAKE_ARGS="-DLLAMA_BUILD=OFF -DLLAVA_BUILD=OFF" \
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-binary llama-cpp-python \
    "llama-cpp-python==0.3.36" >&2
  touch "$venv/.llama-cpp-python-0.3.36"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$wheel" >&2
