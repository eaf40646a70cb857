#!/usr/bin/env bash
# Prints the compiler flags that keep AMX out of a native build of llama.cpp made outside the
# superbuild (-mno-amx-*), where cmake/amx-probe.cpp, built and run as the superbuild's configure
# does, fails on this machine and compiler (DESIGN.md "AMX"); prints nothing where it runs.
set -euo pipefail
cd "$(dirname "$0")/.."
probe=$(mktemp)
if ! { c++ -O3 -march=native -o "$probe" cmake/amx-probe.cpp 2>/dev/null && bash -c '"$0"' "$probe" >/dev/null 2>&1; }; then
  echo "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
fi
rm -f "$probe"
