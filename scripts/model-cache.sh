# Sourced by the fetch-*.sh scripts: where models are cached, and the two
# steps every fetch shares. Cache: $LLAMA_SCATTER_CACHE, else
# $XDG_CACHE_HOME/llama-scatter, else ~/.cache/llama-scatter.
cache=${LLAMA_SCATTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llama-scatter}

# cached MODEL CHECK: prints MODEL and ends the script when MODEL exists and
# MODEL.verified holds CHECK (what the fetch wrote there once it verified it).
cached() {
  if [ -f "$1" ] && [ -f "$1.verified" ] && [ "$(cat "$1.verified")" = "$2" ]; then
    echo "$1"
    exit 0
  fi
}

# scratch NAME: a temporary folder in the cache, $tmp, removed at exit.
scratch() {
  mkdir -p "$cache"
  tmp=$(mktemp -d "$cache/pip.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "fetching $1 into $cache ..." >&2
}
