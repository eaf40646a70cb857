#!/usr/bin/env bash
# Wire scatter into a llama.cpp tree's common/, llama-cli, llama-completion and llama-server:
# copy our own files (integration/llama.cpp/files/) into the tree and apply the one-line hooks
# of integration/llama.cpp/hooks.patch to llama.cpp's files.
#
#   scripts/patch-llama-cpp.sh TREE           patch TREE in place
#   scripts/patch-llama-cpp.sh SOURCE DEST    copy SOURCE to DEST, patch DEST
#   scripts/patch-llama-cpp.sh --check TREE   only report whether the hooks fit TREE
#
# Every hunk is tried on its own. When all fit, they are applied; a hunk whose surroundings
# changed upstream may still fit with one line of context on each side (git apply -C1), and
# is then applied so, with a warning naming it. When any hunk does not fit even so, the
# script names each one (file, hunk, the hook line, the context it looked for), changes
# nothing and exits 1. In place: a tree that already has the hooks is detected ("already
# applied"; our files are refreshed). Copy mode (what the CMake option
# LLAMA_SCATTER_LLAMA_TOOLS uses) keeps the user's SOURCE pristine; DEST is made anew whenever
# SOURCE or the hooks changed (for a git checkout: its HEAD), and kept otherwise; a SOURCE that is
# itself such a copy, made with the same hooks, is copied without git. Our files are synced into
# the tree file by file in every mode: only a file whose content changed is written, so that an
# edit of one of them rebuilds what includes it, not llama.cpp and its web UI.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
integration="$here/integration/llama.cpp"
hooks="$integration/hooks.patch"
files="$integration/files"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# git apply outside any repository: DEST may sit inside ours (build/), and
# git would otherwise resolve the patch's paths against our top level.
git_apply() {
  local tree=$1; shift
  (cd "$tree" && GIT_CEILING_DIRECTORIES=$(dirname "$tree") GIT_DIR=/nonexistent git apply "$@")
}

# split_hunks DIR: one patch file per hunk of hooks.patch in DIR (NNN.patch), each with its
# file header, and DIR/NNN.name: "FILE, hunk K (@@ … @@)".
split_hunks() {
  awk -v dir="$1" '
    /^diff --git / { header = $0 "\n"; in_header = 1; k = 0; file = substr($3, 3); next }
    in_header && !/^@@/ { header = header $0 "\n"; next }
    /^@@/ {
      in_header = 0; n++; k++
      out = sprintf("%s/%03d.patch", dir, n)
      printf "%s", header > out
      printf "%s, hunk %d (%s)\n", file, k, $0 > sprintf("%s/%03d.name", dir, n)
    }
    { print > out }
  ' "$hooks"
}

# report TREE DIR: prints, for each hunk in DIR that does not fit TREE even with -C1, its
# name, its hook lines and the context it looked for; returns 1 if there was any.
report_misfits() {
  local tree=$1 dir=$2 failed=0 p
  for p in "$dir"/*.patch; do
    git_apply "$tree" --check -C1 "$p" 2>/dev/null && continue
    failed=1
    echo "  $(cat "${p%.patch}.name")"
    grep '^+[^+]' "$p" | sed 's/^+/      hook:    /'
    grep '^ ' "$p" | sed 's/^ /      context: /'
  done
  return $failed
}

# fuzzy_hunks TREE DIR: names of the hunks that fit only with -C1.
fuzzy_hunks() {
  local tree=$1 dir=$2 p
  for p in "$dir"/*.patch; do
    git_apply "$tree" --check "$p" 2>/dev/null || echo "  $(cat "${p%.patch}.name")"
  done
}

# copy_files TREE: our files into TREE, each only where its content differs (an unchanged file
# keeps its time stamp); a file copied before that we no longer have is removed (TREE's
# .llama-scatter-files lists what was copied; our files are all new to llama.cpp's tree).
copy_files() {
  local tree=$1 manifest="$1/.llama-scatter-files" now rel
  now=$(cd "$files" && find . -type f | LC_ALL=C sort)
  if [ -f "$manifest" ]; then
    LC_ALL=C comm -23 "$manifest" <(echo "$now") | while read -r rel; do rm -f "$tree/$rel"; done
  fi
  echo "$now" | while read -r rel; do
    cmp -s "$files/$rel" "$tree/$rel" && continue
    mkdir -p "$(dirname "$tree/$rel")"
    cp "$files/$rel" "$tree/$rel"
  done
  echo "$now" > "$manifest"
}

# patch_tree TREE CHECK_ONLY
patch_tree() {
  local tree check_only=$2
  tree=$(cd "$1" && pwd)
  if [ ! -f "$tree/include/llama.h" ]; then
    echo "error: $tree is not a llama.cpp tree (no include/llama.h)" >&2
    return 1
  fi
  if git_apply "$tree" --reverse --check "$hooks" 2>/dev/null ||
     git_apply "$tree" --reverse --check -C1 "$hooks" 2>/dev/null; then
    [ "$check_only" = 1 ] || copy_files "$tree"
    echo "scatter hooks already applied in $tree"
    return 0
  fi
  local work
  work=$(mktemp -d "$scratch/hunks.XXXXXX")
  split_hunks "$work"
  local total
  total=$(find "$work" -name '*.patch' | wc -l)
  if ! misfits=$(report_misfits "$tree" "$work"); then
    {
      echo "error: the scatter hooks do not fit $tree; these hunks of integration/llama.cpp/hooks.patch"
      echo "(of $total) found no place, even with one line of context on each side:"
      echo "$misfits"
      echo "Nothing was changed."
    } >&2
    return 1
  fi
  local context=()
  fuzzy=$(fuzzy_hunks "$tree" "$work")
  if [ -n "$fuzzy" ]; then
    context=(-C1)
    echo "warning: these hooks fit $tree only with one line of context on each side (check them, or rebase hooks.patch):" >&2
    echo "$fuzzy" >&2
  fi
  if [ "$check_only" = 1 ]; then
    echo "scatter hooks fit $tree"
    return 0
  fi
  git_apply "$tree" "${context[@]}" "$hooks"
  copy_files "$tree"
  echo "scatter hooks applied to $tree"
}

case ${1:-} in
  --check)
    [ $# -eq 2 ] || { echo "usage: $0 --check TREE" >&2; exit 2; }
    patch_tree "$2" 1
    ;;
  *)
    case $# in
      1)
        patch_tree "$1" 0
        ;;
      2)
        source=$(cd "$1" && pwd)
        dest=$2
        stamp="$dest/.llama-scatter-patched"
        revision=$(GIT_CEILING_DIRECTORIES=$(dirname "$source") git -C "$source" rev-parse HEAD 2>/dev/null ||
                   cat "$source/.llama-scatter-source" 2>/dev/null || true)
        ours=$(sha256sum < "$hooks" | cut -d' ' -f1)
        want="$ours $source $revision"
        if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
          copy_files "$dest"
          echo "patched llama.cpp in $dest is up to date"
          exit 0
        fi
        # Everything the build needs; not the VCS data, model files, docs or
        # build trees of the user's checkout.
        copy_tree() {
          rm -rf "$dest"
          mkdir -p "$dest"
          tar -C "$source" --exclude=./.git --exclude=./models --exclude=./docs \
              --exclude=./media --exclude='./build*' --exclude=./.llama-scatter-patched -cf - . |
            tar -C "$dest" -xf -
        }
        # A copy this script made with the same hooks (its stamp says so) is copied as it is,
        # without git, and our files synced: the GPU bundle's tree, patched where git is, built
        # where it may not be, and pruned (the web UI's sources are left out, so the hooks cannot
        # be checked there). The hash is the stamp's first word; a revision from
        # .llama-scatter-source adds a line.
        if [ -f "$source/.llama-scatter-patched" ] && [ "$(head -n 1 "$source/.llama-scatter-patched" | cut -d' ' -f1)" = "$ours" ]; then
          copy_tree
          copy_files "$dest"
          echo "$want" > "$stamp"
          echo "copied $source, patched with these hooks already"
          exit 0
        fi
        # Check before copying, so that a tree the hooks do not fit costs no copy.
        patch_tree "$source" 1 >/dev/null
        copy_tree
        patch_tree "$dest" 0 2>/dev/null
        echo "$want" > "$stamp"
        ;;
      *)
        echo "usage: $0 TREE | $0 SOURCE DEST | $0 --check TREE" >&2
        exit 2
        ;;
    esac
    ;;
esac
