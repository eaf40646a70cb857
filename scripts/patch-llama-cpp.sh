#!/usr/bin/env bash
# Apply integration/llama.cpp/scatter.patch (scatter in llama.cpp's common/,
# llama-cli, llama-completion and llama-server) to a llama.cpp tree.
#
#   scripts/patch-llama-cpp.sh TREE           patch TREE in place
#   scripts/patch-llama-cpp.sh SOURCE DEST    copy SOURCE to DEST, patch DEST
#
# In place: a tree that already has the patch is detected and left alone
# (exit 0, "already applied"); a tree the patch does not apply to cleanly is
# left untouched and the script fails, so nothing is ever half-applied.
# Copy mode (what the CMake option LLAMA_SCATTER_LLAMA_TOOLS uses) keeps the
# user's SOURCE pristine; DEST is made anew whenever SOURCE or the patch
# changed (for a git checkout: its HEAD), and kept as it is otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
patch_file="$here/integration/llama.cpp/scatter.patch"

# git apply outside any repository: DEST may sit inside ours (build/), and
# git would otherwise resolve the patch's paths against our top level.
git_apply() {
  local tree=$1; shift
  (cd "$tree" && GIT_CEILING_DIRECTORIES=$(dirname "$tree") GIT_DIR=/nonexistent \
     git apply "$@" "$patch_file")
}

patch_in_place() {
  local tree
  tree=$(cd "$1" && pwd)
  if [ ! -f "$tree/include/llama.h" ]; then
    echo "error: $tree is not a llama.cpp tree (no include/llama.h)" >&2
    return 1
  fi
  if git_apply "$tree" --reverse --check 2>/dev/null; then
    echo "scatter patch already applied in $tree"
    return 0
  fi
  if ! git_apply "$tree" --check; then
    echo "error: the scatter patch does not apply cleanly to $tree (another llama.cpp version, or local changes); nothing was changed" >&2
    return 1
  fi
  git_apply "$tree"
  echo "scatter patch applied to $tree"
}

case $# in
  1)
    patch_in_place "$1"
    ;;
  2)
    source=$(cd "$1" && pwd)
    dest=$2
    stamp="$dest/.llama-scatter-patched"
    revision=$(GIT_CEILING_DIRECTORIES=$(dirname "$source") git -C "$source" rev-parse HEAD 2>/dev/null ||
               cat "$source/.llama-scatter-source" 2>/dev/null || true)
    want="$(sha256sum "$patch_file" | cut -d' ' -f1) $source $revision"
    if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
      echo "patched llama.cpp in $dest is up to date"
      exit 0
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    # Everything the build needs; not the VCS data, model files, docs or
    # build trees of the user's checkout.
    tar -C "$source" --exclude=./.git --exclude=./models --exclude=./docs \
        --exclude=./media --exclude='./build*' -cf - . | tar -C "$dest" -xf -
    patch_in_place "$dest"
    echo "$want" > "$stamp"
    ;;
  *)
    echo "usage: $0 TREE | $0 SOURCE DEST" >&2
    exit 2
    ;;
esac
