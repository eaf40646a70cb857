# Adds the llama.cpp tree the library is built against, with only what we
# need: libllama and ggml as shared libraries (the way users' llama.cpp
# builds ship them). No common/, tools, server, tests or examples of its own.
#
# A parent project that already has a `llama` target (it added llama.cpp
# itself, then added us with add_subdirectory) keeps its own: we only need
# the source tree for the headers bindgen reads.
if(TARGET llama)
    get_target_property(_llama_src llama SOURCE_DIR)
    get_filename_component(_llama_root "${_llama_src}/.." ABSOLUTE)
    set(LLAMA_CPP_SOURCE_DIR "${_llama_root}" CACHE PATH "llama.cpp source tree to build against")
    return()
endif()

set(LLAMA_CPP_SOURCE_DIR "${PROJECT_SOURCE_DIR}/.deps/llama.cpp" CACHE PATH
    "llama.cpp source tree to build against (default: the pinned tree fetched by scripts/fetch-llama-cpp.sh)")

if(NOT EXISTS "${LLAMA_CPP_SOURCE_DIR}/include/llama.h")
    if(LLAMA_CPP_SOURCE_DIR STREQUAL "${PROJECT_SOURCE_DIR}/.deps/llama.cpp")
        message(STATUS "Fetching the pinned llama.cpp into ${LLAMA_CPP_SOURCE_DIR}")
        execute_process(
            COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch-llama-cpp.sh" "${LLAMA_CPP_SOURCE_DIR}"
            RESULT_VARIABLE fetch_result)
        if(NOT fetch_result EQUAL 0)
            message(FATAL_ERROR "scripts/fetch-llama-cpp.sh failed; pass -DLLAMA_CPP_SOURCE_DIR=/path/to/llama.cpp to use your own checkout")
        endif()
    else()
        message(FATAL_ERROR "LLAMA_CPP_SOURCE_DIR=${LLAMA_CPP_SOURCE_DIR} has no include/llama.h: point it at a llama.cpp checkout")
    endif()
endif()

set(BUILD_SHARED_LIBS ON CACHE BOOL "" FORCE)
set(LLAMA_BUILD_COMMON   OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TESTS    OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TOOLS    OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_SERVER   OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_APP      OFF CACHE BOOL "" FORCE)
set(LLAMA_OPENSSL        OFF CACHE BOOL "" FORCE)
set(LLAMA_CURL           OFF CACHE BOOL "" FORCE)
set(GGML_BACKEND_DL      OFF CACHE BOOL "" FORCE)

# Installed libllama finds the ggml libraries beside it, so an install
# prefix outside the loader's search path still works.
set(CMAKE_INSTALL_RPATH "$ORIGIN")

add_subdirectory("${LLAMA_CPP_SOURCE_DIR}" llama.cpp)
