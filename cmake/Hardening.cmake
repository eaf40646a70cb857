# The hardening suite (RELIABILITY.md "What runs"), registered with
# CTest in the `hardening` preset. That build has no AVX-512 code
# (GGML_NATIVE and LLAMA_SCATTER_NATIVE off), because valgrind cannot
# execute it.
#  - memcheck_*: every C suite under valgrind memcheck (errors and
#    definite/indirect/possible leaks fail the test);
#  - helgrind_test_threads: the threads suite under valgrind's race detector;
#  - tsan_test_threads: the threads suite under ThreadSanitizer;
#  - fuzz_*: each cargo-fuzz target for a short smoke run.
find_program(VALGRIND_EXECUTABLE valgrind REQUIRED)
find_package(Threads REQUIRED)

foreach(suite IN LISTS LLAMA_SCATTER_C_SUITES)
    add_test(NAME memcheck_${suite}
        COMMAND "${VALGRIND_EXECUTABLE}" --quiet --leak-check=full
                --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99
                "$<TARGET_FILE:${suite}>")
endforeach()
# Memcheck checks each path's memory, not each size: the invariants' largest row is 4,096 here (the full
# vocabulary of 262,144 runs in the test preset): 7 s of valgrind instead of 316 s (RELIABILITY.md).
set_tests_properties(memcheck_test_invariants PROPERTIES ENVIRONMENT LLAMA_SCATTER_TEST_LARGE_ROW=4096)
add_test(NAME helgrind_test_threads
    COMMAND "${VALGRIND_EXECUTABLE}" --quiet --tool=helgrind --error-exitcode=99 "$<TARGET_FILE:test_threads>")

# Fuzz smoke: cargo-fuzz on the stable toolchain (RUSTC_BOOTSTRAP lets it
# pass libFuzzer's -Z flags), each target for LLAMA_SCATTER_FUZZ_SECONDS
# starting from the committed seed corpus.
set(LLAMA_SCATTER_FUZZ_SECONDS 30 CACHE STRING "Seconds each fuzz target runs in the smoke test")
find_program(CARGO_FUZZ_EXECUTABLE cargo-fuzz HINTS "$ENV{CARGO_HOME}/bin" "$ENV{HOME}/.cargo/bin" REQUIRED)
foreach(target core_sequence c_api)
    file(MAKE_DIRECTORY "${PROJECT_BINARY_DIR}/fuzz-corpus/${target}")
    add_test(NAME fuzz_${target}
        COMMAND ${CMAKE_COMMAND} -E env RUSTC_BOOTSTRAP=1 ${LLAMA_SCATTER_CARGO_ENV}
                "CARGO_TARGET_DIR=${PROJECT_BINARY_DIR}/fuzz-target"
                "LD_LIBRARY_PATH=$<TARGET_FILE_DIR:llama>"
                "${CARGO_EXECUTABLE}" fuzz run --fuzz-dir "${PROJECT_SOURCE_DIR}/fuzz" ${target}
                "${PROJECT_BINARY_DIR}/fuzz-corpus/${target}" "${PROJECT_SOURCE_DIR}/fuzz/seeds/${target}"
                -- -max_total_time=${LLAMA_SCATTER_FUZZ_SECONDS} -timeout=60 -rss_limit_mb=4096
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
endforeach()
# The two share one target directory without a CTest lock: cargo's own lock makes the second wait for
# the first's build, and the two fuzzers then run side by side, one core each.

# ThreadSanitizer on the threads suite. The Rust library is rebuilt with
# -Zsanitizer=thread (RUSTC_BOOTSTRAP; the standard library stays
# uninstrumented because the stable toolchain has no rust-src to rebuild
# it, hence -Cunsafe-allow-abi-mismatch), the C code is compiled with
# -fsanitize=thread, and the program links the TSan runtime that ships with
# the Rust toolchain: the system compilers' runtimes lack entry points that
# current rustc emits (__tsan_memcpy).
execute_process(COMMAND rustc --print sysroot OUTPUT_VARIABLE _sysroot OUTPUT_STRIP_TRAILING_WHITESPACE)
file(GLOB _tsan_runtime "${_sysroot}/lib/rustlib/x86_64-unknown-linux-gnu/lib/librustc-*_rt.tsan.a")
if(NOT _tsan_runtime)
    message(FATAL_ERROR "no TSan runtime (librustc-*_rt.tsan.a) in the Rust toolchain at ${_sysroot}")
endif()
list(GET _tsan_runtime 0 _tsan_runtime)
set(_tsan_target_dir "${PROJECT_BINARY_DIR}/cargo-tsan")
set(_tsan_lib_dir "${_tsan_target_dir}/x86_64-unknown-linux-gnu/release")
add_custom_command(
    OUTPUT "${_tsan_lib_dir}/libllama_scatter.so" "${_tsan_lib_dir}/${LLAMA_SCATTER_SONAME}"
    COMMAND ${CMAKE_COMMAND} -E env ${LLAMA_SCATTER_CARGO_ENV} RUSTC_BOOTSTRAP=1
            "RUSTFLAGS=-Zsanitizer=thread -Cunsafe-allow-abi-mismatch=sanitizer"
            "CARGO_TARGET_DIR=${_tsan_target_dir}"
            "${CARGO_EXECUTABLE}" build --release --locked -p llama-scatter --target x86_64-unknown-linux-gnu
            --manifest-path "${PROJECT_SOURCE_DIR}/Cargo.toml"
    COMMAND ${CMAKE_COMMAND} -E create_symlink libllama_scatter.so "${_tsan_lib_dir}/${LLAMA_SCATTER_SONAME}"
    DEPENDS ${_rust_sources} llama
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    COMMENT "Building the Rust library with ThreadSanitizer"
    USES_TERMINAL)
add_custom_target(llama_scatter_tsan DEPENDS "${_tsan_lib_dir}/${LLAMA_SCATTER_SONAME}")

add_executable(tsan_test_threads "${PROJECT_SOURCE_DIR}/c_tests/test_threads.c" ${SCATTER_TEST_SUPPORT_SOURCES})
target_include_directories(tsan_test_threads PRIVATE "${PROJECT_SOURCE_DIR}/include" "${PROJECT_SOURCE_DIR}/c_tests")
target_compile_definitions(tsan_test_threads PRIVATE ${LLAMA_API_DEFINITIONS})
target_compile_options(tsan_test_threads PRIVATE -Wall -Wextra -Werror -fsanitize=thread)
target_link_libraries(tsan_test_threads PRIVATE
    -Wl,--whole-archive "${_tsan_runtime}" -Wl,--no-whole-archive
    "${_tsan_lib_dir}/libllama_scatter.so" llama m Threads::Threads ${CMAKE_DL_LIBS} stdc++)
set_target_properties(tsan_test_threads PROPERTIES C_STANDARD 11 C_STANDARD_REQUIRED ON)
add_dependencies(tsan_test_threads llama_scatter_tsan)
add_test(NAME tsan_test_threads COMMAND tsan_test_threads)
