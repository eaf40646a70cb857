# Cross-compiling for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu (GCC 12): the
# `release-arm64` preset (DESIGN.md "The release"). The Rust library is built for
# aarch64-unknown-linux-gnu and linked by the same compiler (cmake/RustLibrary.cmake); the C suites
# run here through qemu-user (Debian's qemu-user-static), which finds the target's loader and C
# library in the cross toolchain's root (-L).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(_triple aarch64-linux-gnu)
set(CMAKE_C_COMPILER   ${_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_triple}-g++)

# Libraries and headers of the target only; programs (cargo, npm, python) of the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/${_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ARM programs run here through qemu-user: CTest's tests and CMake's try_run.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64-static -L /usr/${_triple})
