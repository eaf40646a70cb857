#!/usr/bin/env bash
# test-consumers.sh BUILD_DIR: installs BUILD_DIR into a temporary prefix,
# then builds consumer.c against that prefix only, four ways: CMake
# find_package and pkg-config, each with the shared and the static library,
# and runs each. The shared builds must load libllama_scatter from the
# prefix (checked with ldd); the static ones must not load it at all.
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix="$work/prefix"

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
# llama.cpp's llama.pc records the configured prefix, not this one.
sed -i -e "s|^prefix=.*|prefix=$prefix|" -e 's|^exec_prefix=.*|exec_prefix=${prefix}|' \
       -e 's|^libdir=.*|libdir=${prefix}/lib|' -e 's|^includedir=.*|includedir=${prefix}/include|' \
       "$prefix/lib/pkgconfig/llama.pc"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
export CMAKE_PREFIX_PATH="$prefix"
unset LD_LIBRARY_PATH

check_links() {
  local exe=$1 mode=$2 libs
  # ldd's output is read whole first: `ldd | grep -q` can fail under
  # pipefail when grep exits early and ldd gets SIGPIPE.
  libs=$(ldd "$exe")
  if [ "$mode" = shared ]; then
    grep -q "libllama_scatter.so.* => $prefix/lib/" <<< "$libs" ||
      { echo "FAIL $exe does not load libllama_scatter from the prefix"; echo "$libs"; return 1; }
  else
    ! grep -q libllama_scatter <<< "$libs" ||
      { echo "FAIL $exe loads libllama_scatter although linked statically"; return 1; }
  fi
}

for mode in shared static; do
  static=OFF; [ "$mode" = static ] && static=ON
  cmake -S "$here/find-package" -B "$work/fp-$mode" -DCONSUMER_STATIC=$static -DCMAKE_BUILD_RPATH="$prefix/lib" > "$work/fp-$mode.log"
  cmake --build "$work/fp-$mode" >> "$work/fp-$mode.log"
  "$work/fp-$mode/consumer"
  check_links "$work/fp-$mode/consumer" $mode
  echo "ok   find_package, $mode"
done

module=llama-scatter
cc -std=c11 -Wall -Wextra -Werror -pedantic "$here/consumer.c" -o "$work/pc-shared" \
   $(pkg-config --cflags --libs $module) -lm -Wl,-rpath,"$prefix/lib"
"$work/pc-shared"
check_links "$work/pc-shared" shared
echo "ok   pkg-config $module, shared"

module=llama-scatter-static
cc -std=c11 -Wall -Wextra -Werror -pedantic "$here/consumer.c" -o "$work/pc-static" \
   $(pkg-config --cflags --libs $module) -lm -Wl,-rpath,"$prefix/lib"
"$work/pc-static"
check_links "$work/pc-static" static
echo "ok   pkg-config $module, static"

[ "$(pkg-config --modversion llama-scatter)" = "$(pkg-config --modversion llama-scatter-static)" ] ||
  { echo "FAIL the two pkg-config modules disagree on the version"; exit 1; }
echo "4 passed, 0 failed"
