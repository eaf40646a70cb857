# Builds the Rust library with cargo against the llama.cpp target `llama`
# and exposes it as two imported targets:
#   llama_scatter::llama_scatter         shared (libllama_scatter.so)
#   llama_scatter::llama_scatter_static  static (libllama_scatter.a)
# The build tree mirrors an install tree: lib/ holds the versioned shared
# library with its soname and dev symlinks.
#
# Or, on a machine without Rust (the GPU bundle of scripts/gpu-bundle.sh),
# takes a shared library built elsewhere against the same llama.cpp tree;
# there is then no static library, and nothing runs cargo.
set(LLAMA_SCATTER_PREBUILT "" CACHE FILEPATH
    "A libllama_scatter.so built elsewhere against this llama.cpp tree, used instead of building with cargo (the static library and the Rust tests are then not available)")
if(NOT LLAMA_SCATTER_PREBUILT)
    find_program(CARGO_EXECUTABLE cargo HINTS "$ENV{HOME}/.cargo/bin" REQUIRED)
elseif(LLAMA_SCATTER_RUST_TESTS OR LLAMA_SCATTER_PYTHON OR LLAMA_SCATTER_HARDENING)
    message(FATAL_ERROR "With LLAMA_SCATTER_PREBUILT nothing runs cargo: turn LLAMA_SCATTER_RUST_TESTS, "
        "LLAMA_SCATTER_PYTHON and LLAMA_SCATTER_HARDENING off")
endif()

set(LLAMA_SCATTER_CARGO_TARGET_DIR "${PROJECT_BINARY_DIR}/cargo")
set(_lib_dir "${PROJECT_BINARY_DIR}/lib")
# Soname policy, here only (build.rs links with the soname it is given in
# LLAMA_SCATTER_SONAME): .so.MAJOR, or .so.0.MINOR while the major version
# is 0, where every minor release may break the ABI.
if(PROJECT_VERSION_MAJOR EQUAL 0)
    set(LLAMA_SCATTER_ABI_VERSION "0.${PROJECT_VERSION_MINOR}")
    set(LLAMA_SCATTER_COMPATIBILITY SameMinorVersion)
else()
    set(LLAMA_SCATTER_ABI_VERSION "${PROJECT_VERSION_MAJOR}")
    set(LLAMA_SCATTER_COMPATIBILITY SameMajorVersion)
endif()

# Cross-compiling (the Windows release: cmake/mingw-w64-x86_64.cmake; the ARM64 release:
# cmake/aarch64-linux-gnu.cmake), cargo builds for the Rust target of the system CMake targets and links
# with CMake's C compiler. Windows has no soname: the DLL, llama_scatter.dll, is found by name beside
# the program; programs link its import library, libllama_scatter.dll.a for MinGW or llama_scatter.lib
# for MSVC, made by dlltool from the exports the linker wrote (LLAMA_SCATTER_DEF, build.rs).
set(LLAMA_SCATTER_RUST_TARGET "")
if(CMAKE_CROSSCOMPILING AND WIN32 AND MINGW)
    set(LLAMA_SCATTER_RUST_TARGET "${CMAKE_SYSTEM_PROCESSOR}-pc-windows-gnu")
elseif(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    set(LLAMA_SCATTER_RUST_TARGET "aarch64-unknown-linux-gnu")
elseif(CMAKE_CROSSCOMPILING)
    message(FATAL_ERROR "Cross-compiling, the Rust library is built for Windows with MinGW-w64 "
        "(cmake/mingw-w64-x86_64.cmake) and for aarch64 Linux (cmake/aarch64-linux-gnu.cmake) only, "
        "not for ${CMAKE_SYSTEM_NAME} on ${CMAKE_SYSTEM_PROCESSOR} with ${CMAKE_C_COMPILER}")
endif()
if(WIN32)
    set(LLAMA_SCATTER_SHARED_FILE "llama_scatter.dll")
    set(LLAMA_SCATTER_SHARED "${_lib_dir}/${LLAMA_SCATTER_SHARED_FILE}")
    set(LLAMA_SCATTER_IMPLIB "${_lib_dir}/libllama_scatter.dll.a")
    set(LLAMA_SCATTER_MSVC_IMPLIB "${_lib_dir}/llama_scatter.lib")
    set(_cargo_shared llama_scatter.dll)
    set(_def "${LLAMA_SCATTER_CARGO_TARGET_DIR}/llama_scatter.def")
else()
    set(LLAMA_SCATTER_SONAME "libllama_scatter.so.${LLAMA_SCATTER_ABI_VERSION}")
    set(LLAMA_SCATTER_SHARED_FILE "libllama_scatter.so.${PROJECT_VERSION}")
    set(LLAMA_SCATTER_SHARED "${_lib_dir}/${LLAMA_SCATTER_SHARED_FILE}")
    set(_cargo_shared libllama_scatter.so)
endif()
set(LLAMA_SCATTER_STATIC "${_lib_dir}/libllama_scatter.a")
if(LLAMA_SCATTER_RUST_TARGET)
    set(_cargo_out "${LLAMA_SCATTER_CARGO_TARGET_DIR}/${LLAMA_SCATTER_RUST_TARGET}/release")
    set(_cargo_target --target "${LLAMA_SCATTER_RUST_TARGET}")
else()
    set(_cargo_out "${LLAMA_SCATTER_CARGO_TARGET_DIR}/release")
    set(_cargo_target "")
endif()

# Like llama.cpp's GGML_NATIVE (on by default), build for this machine's
# CPU: the selection pass over a full vocabulary is load-bound and gains
# from wider vector loads. Turn off for binaries that must run elsewhere.
if(DEFINED GGML_NATIVE)
    set(_native_default ${GGML_NATIVE})
else()
    set(_native_default OFF)
endif()
option(LLAMA_SCATTER_NATIVE "Build the Rust library with -C target-cpu=native" ${_native_default})

# The build tree's library finds libllama and libggml-base in llama.cpp's
# output folder; the installed one beside it (cmake/Install.cmake).
set(LLAMA_SCATTER_BUILD_RPATH "$<TARGET_FILE_DIR:llama>")

# Environment every cargo invocation of this build uses (build, test, lint).
set(LLAMA_SCATTER_CARGO_ENV
    "LLAMA_CPP_SOURCE_DIR=${LLAMA_CPP_SOURCE_DIR}"
    "LLAMA_CPP_LIB_DIR=$<TARGET_FILE_DIR:llama>"
    "CARGO_TARGET_DIR=${LLAMA_SCATTER_CARGO_TARGET_DIR}")
if(WIN32)
    list(APPEND LLAMA_SCATTER_CARGO_ENV "LLAMA_SCATTER_DEF=${_def}")
else()
    list(APPEND LLAMA_SCATTER_CARGO_ENV
        "LLAMA_SCATTER_SONAME=${LLAMA_SCATTER_SONAME}"
        "LLAMA_SCATTER_BUILD_RPATH=${LLAMA_SCATTER_BUILD_RPATH}")
endif()
if(LLAMA_SCATTER_RUST_TARGET)
    string(TOUPPER "${LLAMA_SCATTER_RUST_TARGET}" _target_var)
    string(REPLACE "-" "_" _target_var "${_target_var}")
    list(APPEND LLAMA_SCATTER_CARGO_ENV "CARGO_TARGET_${_target_var}_LINKER=${CMAKE_C_COMPILER}")
endif()
# LLVM's own vector width for the CPU: forcing 512-bit vectors needs a
# target feature rustc calls unstable (it warns on every build), and bought
# nothing measurable (BENCHMARKS.md, "Vector width").
if(LLAMA_SCATTER_NATIVE)
    list(APPEND LLAMA_SCATTER_CARGO_ENV "RUSTFLAGS=-C target-cpu=native")
endif()

file(GLOB_RECURSE _rust_sources CONFIGURE_DEPENDS
    "${PROJECT_SOURCE_DIR}/src/*.rs" "${PROJECT_SOURCE_DIR}/src/*.cpp"
    "${PROJECT_SOURCE_DIR}/scatter-core/src/*.rs")
list(APPEND _rust_sources
    "${PROJECT_SOURCE_DIR}/Cargo.toml" "${PROJECT_SOURCE_DIR}/Cargo.lock"
    "${PROJECT_SOURCE_DIR}/scatter-core/Cargo.toml" "${PROJECT_SOURCE_DIR}/build.rs")

if(WIN32)
    if(LLAMA_SCATTER_PREBUILT)
        message(FATAL_ERROR "LLAMA_SCATTER_PREBUILT takes a Linux libllama_scatter.so (the GPU bundle); a Windows build runs cargo")
    endif()
    # The DLL's imports for both linkers: MinGW's from the Rust linker, MSVC's from dlltool.
    set(_outputs "${LLAMA_SCATTER_SHARED}" "${LLAMA_SCATTER_IMPLIB}" "${LLAMA_SCATTER_MSVC_IMPLIB}" "${LLAMA_SCATTER_STATIC}")
    set(_platform_steps
        COMMAND ${CMAKE_COMMAND} -E copy "${_cargo_out}/libllama_scatter.dll.a" "${LLAMA_SCATTER_IMPLIB}"
        COMMAND "${CMAKE_DLLTOOL}" --input-def "${_def}" --dllname "${LLAMA_SCATTER_SHARED_FILE}"
                --output-lib "${LLAMA_SCATTER_MSVC_IMPLIB}" --machine i386:x86-64)
else()
    set(_outputs "${LLAMA_SCATTER_SHARED}" "${LLAMA_SCATTER_STATIC}")
    set(_platform_steps
        COMMAND ${CMAKE_COMMAND} -E create_symlink "${LLAMA_SCATTER_SHARED_FILE}" "${_lib_dir}/${LLAMA_SCATTER_SONAME}"
        COMMAND ${CMAKE_COMMAND} -E create_symlink "${LLAMA_SCATTER_SONAME}" "${_lib_dir}/libllama_scatter.so")
endif()
if(LLAMA_SCATTER_PREBUILT)
    add_custom_command(
        OUTPUT "${LLAMA_SCATTER_SHARED}"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${_lib_dir}"
        COMMAND ${CMAKE_COMMAND} -E copy "${LLAMA_SCATTER_PREBUILT}" "${LLAMA_SCATTER_SHARED}"
        ${_platform_steps}
        DEPENDS "${LLAMA_SCATTER_PREBUILT}"
        COMMENT "Taking the prebuilt ${LLAMA_SCATTER_PREBUILT}")
    add_custom_target(llama_scatter_cargo ALL DEPENDS "${LLAMA_SCATTER_SHARED}")
else()
    add_custom_command(
        OUTPUT ${_outputs}
        COMMAND ${CMAKE_COMMAND} -E env ${LLAMA_SCATTER_CARGO_ENV}
                "${CARGO_EXECUTABLE}" build --release --locked -p llama-scatter ${_cargo_target}
                --manifest-path "${PROJECT_SOURCE_DIR}/Cargo.toml"
        COMMAND ${CMAKE_COMMAND} -E make_directory "${_lib_dir}"
        COMMAND ${CMAKE_COMMAND} -E copy "${_cargo_out}/${_cargo_shared}" "${LLAMA_SCATTER_SHARED}"
        COMMAND ${CMAKE_COMMAND} -E copy "${_cargo_out}/libllama_scatter.a" "${LLAMA_SCATTER_STATIC}"
        ${_platform_steps}
        DEPENDS ${_rust_sources} llama "$<TARGET_FILE:llama>"
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
        COMMENT "Building the Rust library llama_scatter with cargo"
        USES_TERMINAL)
    add_custom_target(llama_scatter_cargo ALL DEPENDS ${_outputs})
endif()

add_library(llama_scatter SHARED IMPORTED GLOBAL)
set_target_properties(llama_scatter PROPERTIES
    IMPORTED_LOCATION "${LLAMA_SCATTER_SHARED}"
    INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include"
    INTERFACE_LINK_LIBRARIES llama)
if(WIN32)
    set_target_properties(llama_scatter PROPERTIES IMPORTED_IMPLIB "${LLAMA_SCATTER_IMPLIB}")
else()
    set_target_properties(llama_scatter PROPERTIES IMPORTED_SONAME "${LLAMA_SCATTER_SONAME}")
endif()
add_dependencies(llama_scatter llama_scatter_cargo)
add_library(llama_scatter::llama_scatter ALIAS llama_scatter)

# A Rust staticlib carries the Rust standard library, which needs these
# system libraries (cargo's "native-static-libs" list for the target).
# One list, for the CMake targets and (as -l flags) the pkg-config files.
if(WIN32)
    set(LLAMA_SCATTER_STATIC_SYSTEM_LIBS kernel32 ntdll userenv ws2_32 dbghelp)
else()
    set(LLAMA_SCATTER_STATIC_SYSTEM_LIBS pthread ${CMAKE_DL_LIBS} m gcc_s util rt)
endif()
if(NOT LLAMA_HAS_SAMPLER_INIT)
    # The C++ shim of src/ffi/compat.rs uses operator new.
    list(APPEND LLAMA_SCATTER_STATIC_SYSTEM_LIBS stdc++)
endif()
list(TRANSFORM LLAMA_SCATTER_STATIC_SYSTEM_LIBS PREPEND "-l" OUTPUT_VARIABLE _pc_libs)
string(JOIN " " LLAMA_SCATTER_STATIC_SYSTEM_LIBS_PC ${_pc_libs})
if(NOT LLAMA_SCATTER_PREBUILT)
    add_library(llama_scatter_static STATIC IMPORTED GLOBAL)
    set_target_properties(llama_scatter_static PROPERTIES
        IMPORTED_LOCATION "${LLAMA_SCATTER_STATIC}"
        INTERFACE_INCLUDE_DIRECTORIES "${PROJECT_SOURCE_DIR}/include"
        INTERFACE_LINK_LIBRARIES "llama;${LLAMA_SCATTER_STATIC_SYSTEM_LIBS}")
    add_dependencies(llama_scatter_static llama_scatter_cargo)
    add_library(llama_scatter::llama_scatter_static ALIAS llama_scatter_static)
endif()
