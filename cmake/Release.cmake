# The portable release (LLAMA_SCATTER_RELEASE, the `release`, `release-arm64` and `release-windows`
# presets; DESIGN.md "The release"): what `cmake --install` puts in a prefix, packed by cpack. On Linux,
# twice from one build (ARCH x64 and DEB_ARCH amd64, or arm64 and arm64 when cross-built for aarch64):
#   llama-scatter-VERSION-bin-linux-ARCH.tar.gz  a relocatable folder (run paths from $ORIGIN)
#   llama-scatter_VERSION_DEB_ARCH.deb           the same folder as /opt/llama-scatter, its three
#                                                tools linked into /usr/bin
# and the tests that check both (packaging/tests/test_release.py) and the container image made
# from the archive (packaging/Containerfile; its context, image/, by packaging/image-context.cmake).
# For Windows (cross-built with MinGW-w64):
#   llama-scatter-VERSION-bin-win-cpu-x64.zip    upstream's shape: the programs and every DLL they need
#                                                at the top, import libraries in lib/, headers in include/
# tested under Wine (packaging/tests/test_release_windows.py).

# llama.cpp's llama.pc names the configured prefix; the release's, like ours, the folder it is in.
install(CODE "
    set(_pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/llama.pc\")
    file(READ \"\${_pc}\" _text)
    string(REGEX REPLACE \"(^|\\n)prefix=[^\\n]*\" \"\\\\1prefix=\\\${pcfiledir}/../..\" _text \"\${_text}\")
    string(REGEX REPLACE \"(^|\\n)exec_prefix=[^\\n]*\" \"\\\\1exec_prefix=\\\${prefix}\" _text \"\${_text}\")
    string(REGEX REPLACE \"(^|\\n)libdir=[^\\n]*\" \"\\\\1libdir=\\\${prefix}/${CMAKE_INSTALL_LIBDIR}\" _text \"\${_text}\")
    string(REGEX REPLACE \"(^|\\n)includedir=[^\\n]*\" \"\\\\1includedir=\\\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}\" _text \"\${_text}\")
    file(WRITE \"\${_pc}\" \"\${_text}\")")

if(WIN32)
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/README-windows.md" DESTINATION . RENAME README.md)
else()
    install(FILES "${PROJECT_SOURCE_DIR}/packaging/README.md" DESTINATION .)
endif()
install(FILES "${PROJECT_SOURCE_DIR}/LICENSE" "${PROJECT_SOURCE_DIR}/CHANGELOG.md" DESTINATION .)
# The licences of what the tools carry: llama.cpp's, and those its own licence list names
# (cmake/license.cmake upstream: cpp-httplib in llama-server, nlohmann/json in llama-common). The
# other vendored headers (stb_image, miniaudio, subprocess.h) are public domain or Unlicense.
set(LLAMA_SCATTER_RELEASE_LICENSES
    "LICENSE.llama.cpp=${_llama_tree}/LICENSE"
    "LICENSE.cpp-httplib=${_llama_tree}/vendor/cpp-httplib/LICENSE"
    "LICENSE.jsonhpp=${_llama_tree}/licenses/LICENSE-jsonhpp")
foreach(_licence IN LISTS LLAMA_SCATTER_RELEASE_LICENSES)
    string(REGEX MATCH "^([^=]+)=(.*)$" _ "${_licence}")
    if(NOT EXISTS "${CMAKE_MATCH_2}")
        message(FATAL_ERROR "No ${CMAKE_MATCH_2}: the release ships that licence as ${CMAKE_MATCH_1} (cmake/Release.cmake)")
    endif()
    install(FILES "${CMAKE_MATCH_2}" DESTINATION . RENAME "${CMAKE_MATCH_1}")
endforeach()

set(CPACK_PACKAGE_NAME "llama-scatter")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "llama-scatter")
# The package's Maintainer field needs an address; the project has none public yet (CONTRIBUTING.md,
# "The Rust crates": no public URL), so a reserved, unreachable one stands in for it.
set(CPACK_PACKAGE_CONTACT "llama-scatter maintainers <maintainers@llama-scatter.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "llama.cpp's server and command-line tools with the scatter sampler")
set(CPACK_PACKAGE_DIRECTORY "${PROJECT_BINARY_DIR}/packages")
set(CPACK_STRIP_FILES ON)
set(CPACK_THREADS 0)
find_package(Python3 3.8 REQUIRED COMPONENTS Interpreter)
add_test(NAME fetch_model COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch-model.sh")
set_tests_properties(fetch_model PROPERTIES FIXTURES_SETUP model)
list(JOIN LLAMA_SCATTER_CPU_VARIANTS " " _variant_words)

if(WIN32)
    # MinGW's runtime DLLs beside the programs (cmake/LlamaCpp.cmake): nothing to install on Windows.
    install(FILES ${LLAMA_SCATTER_MINGW_RUNTIME_DLLS} DESTINATION "${CMAKE_INSTALL_BINDIR}")
    # Their licences, as Debian's packages of the cross compiler state them (GCC's runtime
    # exception; winpthreads' notices in mingw-w64's).
    foreach(_doc gcc-mingw-w64-base mingw-w64-common)
        if(NOT EXISTS "/usr/share/doc/${_doc}/copyright")
            message(FATAL_ERROR "No /usr/share/doc/${_doc}/copyright: the Windows release is built with Debian's MinGW-w64 (scripts/install-prerequisites.sh windows)")
        endif()
        install(FILES "/usr/share/doc/${_doc}/copyright" DESTINATION . RENAME "LICENSE.${_doc}")
    endforeach()
    set(CPACK_PACKAGE_FILE_NAME "llama-scatter-${PROJECT_VERSION}-bin-win-cpu-x64")
    set(CPACK_GENERATOR "ZIP")
    set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY OFF)
    include(CPack)
    enable_testing()
    # The zip as a user meets it, under Wine; the model as a Windows path.
    add_test(NAME release_zip COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/with-model.sh"
        "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/packaging/tests/test_release_windows.py"
        "${CPACK_PACKAGE_DIRECTORY}/llama-scatter-${PROJECT_VERSION}-bin-win-cpu-x64.zip" "${CMAKE_OBJDUMP}")
    set_tests_properties(release_zip PROPERTIES
        FIXTURES_REQUIRED model RESOURCE_LOCK model_cpu TIMEOUT 900
        ENVIRONMENT "LLAMA_SCATTER_CPU_VARIANTS=${_variant_words};LLAMA_SCATTER_WINE_DLLS=${PROJECT_BINARY_DIR}/c_tests/wine")
    return()
endif()

if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    set(_arch arm64)
else()
    set(_arch x64)
endif()
set(CPACK_PACKAGE_FILE_NAME "llama-scatter-${PROJECT_VERSION}-bin-linux-${_arch}")
# The Debian package: its dependencies from dpkg-shlibdeps, its files under /opt/llama-scatter (none
# collides with Debian's libllama0, libggml0 and llama.cpp-tools), its commands in /usr/bin through
# update-alternatives, and a declared conflict with llama.cpp-tools, whose /usr/bin/llama-server
# would otherwise shadow them. The Vulkan module brings libvulkan1 (the loader, 0.5 MB installed, no driver) into
# Depends; a driver is the user's (mesa-vulkan-drivers suggested: AMD and Intel; NVIDIA ships its own),
# and without one the tools run on the CPU and say why (README "Get it").
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
if(_arch STREQUAL "arm64")
    # Cross-built, the ARM libraries the programs link are the cross toolchain's, which dpkg-shlibdeps
    # cannot map to Debian's arm64 packages: those named here (x64's list from dpkg-shlibdeps, without
    # the Vulkan loader: the ARM64 release has no Vulkan module). The release test apt-installs the
    # package in Debian 12's arm64 root and finds every library its programs need.
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
    set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6 (>= 2.34), libgcc-s1 (>= 4.2), libgomp1 (>= 6), libstdc++6 (>= 12)")
    set(_deb_vulkan_words "")
else()
    set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
    set(CPACK_DEBIAN_PACKAGE_SUGGESTS "mesa-vulkan-drivers")
    set(_deb_vulkan_words "; its Vulkan backend is a module loaded where\na Vulkan driver is (AMD, Intel, NVIDIA)")
endif()
set(CPACK_DEBIAN_PACKAGE_SECTION "science")
# The extended description (cpack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY above it as the synopsis).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "llama-server (with its web UI), llama-cli and llama-completion of
llama.cpp, patched to offer the scatter token sampler (the --scatter-*
flags, the server's scatter_* request fields), and libllama_scatter,
the sampler's C library, with its header, CMake package and pkg-config
files. ggml's CPU backend comes in variants chosen at run time for the
processor${_deb_vulkan_words}.
Everything is in /opt/llama-scatter; the three commands are linked into
/usr/bin.")
# Debian's files of every package, which a package in /opt has too: /usr/share/doc/llama-scatter's
# copyright (the licences above) and changelog.gz, and lintian's overrides of the tags that only say
# the files are in /opt (packaging/debian-docs.cmake, run by cpack for the package only).
set(CPACK_LLAMA_SCATTER_LICENSES "${LLAMA_SCATTER_RELEASE_LICENSES}")
string(TIMESTAMP CPACK_LLAMA_SCATTER_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)
set(CPACK_PRE_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/packaging/debian-docs.cmake")
set(CPACK_DEBIAN_PACKAGE_CONFLICTS "llama.cpp-tools")
set(LLAMA_SCATTER_DEB_PREFIX "/opt/llama-scatter")
set(LLAMA_SCATTER_DEB_TOOLS "llama-server llama-cli llama-completion")
foreach(_script postinst prerm)
    configure_file("${PROJECT_SOURCE_DIR}/packaging/debian/${_script}.in" "${PROJECT_BINARY_DIR}/debian/${_script}" @ONLY
        FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
endforeach()
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/debian/postinst;${PROJECT_BINARY_DIR}/debian/prerm")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# The archive is rooted at its own folder, the package at /opt/llama-scatter.
configure_file("${PROJECT_SOURCE_DIR}/packaging/cpack-generators.cmake.in" "${PROJECT_BINARY_DIR}/cpack-generators.cmake" @ONLY)
set(CPACK_PROJECT_CONFIG_FILE "${PROJECT_BINARY_DIR}/cpack-generators.cmake")
set(CPACK_GENERATOR "TGZ;DEB")
# The container image's build context, made from the archive (packaging/Containerfile): x64's.
if(_arch STREQUAL "x64")
    set(CPACK_LLAMA_SCATTER_IMAGE_CONTEXT "${PROJECT_BINARY_DIR}/image")
    set(CPACK_POST_BUILD_SCRIPTS "${PROJECT_SOURCE_DIR}/packaging/image-context.cmake")
endif()
include(CPack)

# The tests of what cpack made (they need `cpack` first: the release workflow runs it before them).
enable_testing()
set(_release_test_args "${Python3_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/packaging/tests/test_release.py"
    "${CPACK_PACKAGE_DIRECTORY}" "${PROJECT_VERSION}")
add_test(NAME release_archive COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/with-model.sh" ${_release_test_args} archive)
add_test(NAME release_deb COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/with-model.sh" ${_release_test_args} deb)
# After the tests that made images: theirs and their Debian base removed (nothing left under a name a
# user's builds could resolve).
add_test(NAME release_images_removed COMMAND ${_release_test_args} cleanup)
set_tests_properties(release_images_removed PROPERTIES FIXTURES_CLEANUP podman_images)
if(_arch STREQUAL "arm64")
    # Both in Debian 12's arm64 root, run here by qemu-user through binfmt_misc
    # (scripts/install-prerequisites.sh arm64).
    set_tests_properties(release_archive release_deb PROPERTIES
        FIXTURES_REQUIRED "model;podman_images" RESOURCE_LOCK model_cpu TIMEOUT 1800
        ENVIRONMENT "LLAMA_SCATTER_CPU_VARIANTS=${_variant_words};LLAMA_SCATTER_RELEASE_ARCH=arm64")
    set_tests_properties(release_images_removed PROPERTIES ENVIRONMENT "LLAMA_SCATTER_RELEASE_ARCH=arm64")
    return()
endif()
add_test(NAME release_image COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/with-model.sh" ${_release_test_args} image)
# A release check (the release test preset leaves it out): the model on lavapipe, whose pipelines take
# minutes to compile with an empty shader cache.
add_test(NAME release_vulkan_offload COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/with-model.sh" ${_release_test_args} vulkan)
set_tests_properties(release_vulkan_offload PROPERTIES FIXTURES_REQUIRED model RESOURCE_LOCK model_cpu TIMEOUT 3600)
set_tests_properties(release_archive release_deb release_image PROPERTIES
    FIXTURES_REQUIRED model RESOURCE_LOCK model_cpu TIMEOUT 900
    ENVIRONMENT "LLAMA_SCATTER_CPU_VARIANTS=${_variant_words};LLAMA_SCATTER_IMAGE_CONTEXT=${CPACK_LLAMA_SCATTER_IMAGE_CONTEXT}"
    SKIP_REGULAR_EXPRESSION "SKIP the container image")
set_property(TEST release_deb release_image APPEND PROPERTY FIXTURES_REQUIRED podman_images)
