#!/usr/bin/env bash
# sillytavern-install.sh DEST: SillyTavern as integration/tests/sillytavern/ pins it (package.json and
# its lock file: the npm package `sillytavern` 1.19.0 and every dependency at a fixed version),
# installed with `npm ci` into DEST/node_modules; prints its folder (DEST/node_modules/sillytavern).
# npm's cache: $npm_config_cache (the build sets it to LLAMA_SCATTER_NPM_CACHE). Done again only
# when the lock file changes; progress goes to stderr.
set -euo pipefail
pinned=$(cd "$(dirname "$0")/../integration/tests/sillytavern" && pwd)
dest=$1
mkdir -p "$dest"
if ! cmp -s "$pinned/package-lock.json" "$dest/package-lock.json" || [ ! -f "$dest/node_modules/sillytavern/server.js" ]; then
  cp "$pinned/package.json" "$pinned/package-lock.json" "$dest/"
  (cd "$dest" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error >&2)
fi
echo "$dest/node_modules/sillytavern"
