#!/usr/bin/env bash
# Fetch the pinned llama.cpp tree: the copy vendored in the PyPI source
# distribution of llama-cpp-python (llama.cpp commit 0c1e570 for 0.3.36).
# Usage: scripts/fetch-llama-cpp.sh [DEST] [LLAMA_CPP_PYTHON_VERSION]
# DEST defaults to .deps/llama.cpp (ignored by git). Nothing is done when
# DEST already holds the requested version.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$here/.deps/llama.cpp}
version=${2:-0.3.36}
stamp="$dest/.llama-scatter-source"

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "llama-cpp-python==$version" ]; then
  echo "llama.cpp from llama-cpp-python==$version already in $dest"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m pip download --quiet --no-deps --no-binary llama-cpp-python \
  --dest "$work" "llama-cpp-python==$version"
tar -xzf "$work"/llama_cpp_python-"$version".tar.gz -C "$work" \
  "llama_cpp_python-$version/vendor/llama.cpp"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$work/llama_cpp_python-$version/vendor/llama.cpp" "$dest"
# The vendored tree's .git is a file pointing into the sdist's own
# .git/modules, which is not shipped: git commands inside it would fail.
rm -f "$dest/.git"
echo "llama-cpp-python==$version" > "$stamp"
echo "llama.cpp from llama-cpp-python==$version unpacked into $dest"
