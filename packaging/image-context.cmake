# Run by cpack after it made the Linux archive (CPACK_POST_BUILD_SCRIPTS, cmake/Release.cmake): the
# container image's build context, CPACK_LLAMA_SCATTER_IMAGE_CONTEXT (build-release/image/), made anew
# from the archive so that it holds one version only: app/ is llama-server and what it loads (ggml's
# CPU variants and RPC module, the shared libraries by their run-time names) and the licences. Not the
# other tools, the static library, the headers, CMake's and pkg-config's files: the image serves, it
# builds nothing (upstream's server image holds the server and its libraries only). Not the Vulkan
# module either: the image is the CPU server, as upstream's `server` image of cpu.Dockerfile, and a
# container reaches a GPU only with its driver inside and the device passed in (29 MB it cannot use).
set(_archive "")
foreach(_file IN LISTS CPACK_PACKAGE_FILES)
    if(_file MATCHES "\\.tar\\.gz$")
        set(_archive "${_file}")
    endif()
endforeach()
if(NOT _archive)
    return() # the package's run
endif()

set(_context "${CPACK_LLAMA_SCATTER_IMAGE_CONTEXT}")
set(_unpacked "${_context}.unpacked")
file(REMOVE_RECURSE "${_context}" "${_unpacked}")
file(ARCHIVE_EXTRACT INPUT "${_archive}" DESTINATION "${_unpacked}")
file(GLOB _top LIST_DIRECTORIES true "${_unpacked}/*")
set(_app "${_context}/app")
file(MAKE_DIRECTORY "${_app}/bin" "${_app}/lib")
file(GLOB _bin "${_top}/bin/llama-server" "${_top}/bin/libggml-*.so")
list(FILTER _bin EXCLUDE REGEX "/libggml-vulkan\\.so$")
# A library goes by its soname (libX.so.N, libX.so.N.M.K behind it); llama.cpp's tools' own libraries
# have none (libllama-server-impl.so). A bare libX.so beside a versioned one is a link-time name.
file(GLOB _lib LIST_DIRECTORIES false "${_top}/lib/*.so*")
foreach(_file IN LISTS _lib)
    get_filename_component(_name "${_file}" NAME)
    string(REGEX REPLACE "\\.so$" "" _stem "${_name}")
    file(GLOB _versioned "${_top}/lib/${_stem}.so.*")
    if((_name MATCHES "\\.so$" AND _versioned) OR _name MATCHES "^libllama-(cli|completion)-impl\\.so$")
        continue()
    endif()
    list(APPEND _libs "${_file}")
endforeach()
file(COPY ${_bin} DESTINATION "${_app}/bin")
file(COPY ${_libs} DESTINATION "${_app}/lib")
file(GLOB _licences "${_top}/LICENSE*")
file(COPY ${_licences} DESTINATION "${_app}")
file(REMOVE_RECURSE "${_unpacked}")
message(STATUS "llama-scatter: the container image's context: ${_context}")
