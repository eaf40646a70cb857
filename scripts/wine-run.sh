#!/usr/bin/env bash
# wine-run.sh PROGRAM.exe [ARG...]: runs a Windows program of the Windows build under Wine 8 (Debian's
# wine64, whose program is in /usr/lib/wine, not on PATH): CTest's and CMake's emulator in that build
# (cmake/mingw-w64-x86_64.cmake), and the launcher of the Windows release's tests.
# The Wine prefix is the project's cache folder's wine/ (made on first use, about 7 s), or $WINEPREFIX.
# LLAMA_SCATTER_WINE_DLLS: more folders (Unix paths, ':'-separated) where Windows looks for the DLLs
# the program needs, through WINEPATH: the build's DLLs, and the tests' bcryptprimitives.dll, which
# Rust's standard library imports (ProcessPrng), Windows 10 and later have and Wine 8 lacks
# (c_tests/support/wine/bcryptprimitives.c; never shipped).
set -euo pipefail
wine=$(command -v wine64 || command -v wine || echo /usr/lib/wine/wine64)
if [ ! -x "$wine" ]; then
  echo "wine-run.sh: Wine is not installed (scripts/install-prerequisites.sh windows)" >&2
  exit 127
fi
wineserver=$(dirname "$wine")/wineserver
[ -x "$wineserver" ] || wineserver=$(command -v wineserver)
export WINEPREFIX=${WINEPREFIX:-${LLAMA_SCATTER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/llama-scatter}/wine}
export WINEARCH=win64
# No debug channels on stderr (tests read it), no offer to install Mono or Gecko (no network here).
export WINEDEBUG=${WINEDEBUG:--all}
export WINEDLLOVERRIDES=${WINEDLLOVERRIDES:-mscoree,mshtml=}
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  mkdir -p "$(dirname "$WINEPREFIX")"
  # One maker at a time: CTest runs tests in parallel.
  (
    flock 9
    if [ ! -f "$WINEPREFIX/system.reg" ]; then
      "$wine" wineboot --init >/dev/null 2>&1
      "$wineserver" -w
    fi
  ) 9>"$WINEPREFIX.lock"
fi
# One Wine session for a run of programs, started apart from the caller's output: a wineserver that
# stays 30 s after its last program (one that stops as a program starts fails it with "wine client
# error: recvmsg: Connection reset by peer"), and Wine's own services (services.exe and the rest, which
# otherwise start with the first program and hold its caller's pipes until the wineserver exits).
"$wineserver" -p30 </dev/null >/dev/null 2>&1 || true
"$wine" wineboot </dev/null >/dev/null 2>&1 || true
if [ -n "${LLAMA_SCATTER_WINE_DLLS:-}" ]; then
  IFS=: read -r -a dirs <<<"$LLAMA_SCATTER_WINE_DLLS"
  path=""
  for dir in "${dirs[@]}"; do
    path+="${path:+;}Z:${dir//\//\\}"
  done
  export WINEPATH="$path${WINEPATH:+;$WINEPATH}"
fi
exec "$wine" "$@"
