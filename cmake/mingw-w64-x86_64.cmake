# Cross-compiling for 64-bit Windows on Linux with MinGW-w64 (Debian's g++-mingw-w64-x86-64-posix:
# GCC 12 with POSIX threads, which llama.cpp's std::thread needs): the `release-windows` preset
# (DESIGN.md "The Windows release"). The Rust library is built for x86_64-pc-windows-gnu and linked
# by the same compiler (cmake/RustLibrary.cmake); the tests run under Wine (cmake/Release.cmake).
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER   ${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER  ${_mingw}-windres)
set(CMAKE_DLLTOOL      ${_mingw}-dlltool)

# Libraries and headers of the target only; programs (cargo, npm, python) of the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# Windows programs run here through Wine: CTest's tests and CMake's try_run (cmake/wine-run.sh).
set(CMAKE_CROSSCOMPILING_EMULATOR "${CMAKE_CURRENT_LIST_DIR}/../scripts/wine-run.sh")
