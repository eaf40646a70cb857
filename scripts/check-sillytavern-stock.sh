#!/usr/bin/env bash
# The SillyTavern extension against llama.cpp's own llama-server, which has no scatter: a release
# check (CONTRIBUTING.md "Continuous integration": llama.cpp's tools built a second time, unpatched,
# cost about 7 minutes of two cores, more than every-submission CI has room for). Builds llama-server
# from BUILD's pristine llama.cpp tree (its LLAMA_CPP_SOURCE_DIR: no hooks, no web UI; ccache as the
# launcher; AMX left out where the superbuild's probe fails), then runs BUILD's tools_sillytavern
# with it (LLAMA_SCATTER_STOCK_SERVER): the extension must send that server no scatter field, and its
# panel must say why.
#
# usage: scripts/check-sillytavern-stock.sh BUILD   (a build of the tools with their web UI: build-test)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/check-sillytavern-stock.sh BUILD (a build of the tools with their web UI)}
source_dir=$(sed -n 's/^LLAMA_CPP_SOURCE_DIR:[A-Z]*=//p' "$build/CMakeCache.txt")
[ -f "$source_dir/tools/server/server.cpp" ] || { echo "no llama-server sources in '$source_dir' (LLAMA_CPP_SOURCE_DIR of $build)" >&2; exit 1; }
stock="$build/stock-server"
amx=$(bash scripts/amx-flags.sh)
cmake -S "$source_dir" -B "$stock" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_APP=OFF \
  -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
  -DCMAKE_C_FLAGS="$amx" -DCMAKE_CXX_FLAGS="$amx"
cmake --build "$stock" --target llama-server
LLAMA_SCATTER_STOCK_SERVER="$stock/bin" ctest --test-dir "$build" -R '^tools_sillytavern$' --output-on-failure
