# cmake -DVERSION=x.y.z -DSONAME=... -DSHARED=lib.so -DPC=llama-scatter.pc
#       -DCONFIG_VERSION=llama_scatterConfigVersion.cmake -P CheckVersion.cmake
# The version CMake read from Cargo.toml reaches the soname the linker wrote
# into the shared library (build.rs), the pkg-config file and the CMake
# package version file; fails naming whichever disagrees.
find_program(READELF readelf REQUIRED)
execute_process(COMMAND "${READELF}" -d "${SHARED}" OUTPUT_VARIABLE dynamic COMMAND_ERROR_IS_FATAL ANY)
string(REGEX MATCH "Library soname: \\[([^]]*)\\]" _ "${dynamic}")
if(NOT CMAKE_MATCH_1 STREQUAL SONAME)
    message(FATAL_ERROR "soname in ${SHARED} is '${CMAKE_MATCH_1}', expected '${SONAME}' (cmake/RustLibrary.cmake passes it to build.rs in LLAMA_SCATTER_SONAME)")
endif()

file(STRINGS "${PC}" pc_version REGEX "^Version: ")
if(NOT pc_version STREQUAL "Version: ${VERSION}")
    message(FATAL_ERROR "${PC}: '${pc_version}', expected 'Version: ${VERSION}'")
endif()

include("${CONFIG_VERSION}")
if(NOT PACKAGE_VERSION STREQUAL VERSION)
    message(FATAL_ERROR "${CONFIG_VERSION}: ${PACKAGE_VERSION}, expected ${VERSION}")
endif()
message(STATUS "version ${VERSION}, soname ${SONAME}: the library, pkg-config and CMake package agree")
