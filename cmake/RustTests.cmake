# The Rust side of the test suite, run by CTest next to the C tests:
# unit, property and doc tests of the library and scatter-core (including the
# check that include/llama-scatter.h is what cbindgen generates), rustfmt and
# clippy. Not scatter-llama-cpp: it builds a llama.cpp of its own (through
# llama-cpp-sys-2), which scripts/check-rust-crate.sh builds once, in its CI
# step, and tests there.
set(_cargo ${CMAKE_COMMAND} -E env ${LLAMA_SCATTER_CARGO_ENV} "LD_LIBRARY_PATH=$<TARGET_FILE_DIR:llama>"
    "${CARGO_EXECUTABLE}")
set(_manifest --manifest-path "${PROJECT_SOURCE_DIR}/Cargo.toml")

add_test(NAME rust_tests
    COMMAND ${_cargo} test --profile release-tests --locked --workspace --exclude scatter-llama-cpp ${_manifest}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
add_test(NAME rust_fmt
    COMMAND ${_cargo} fmt --all --check ${_manifest}
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
add_test(NAME rust_clippy
    COMMAND ${_cargo} clippy --release --locked --workspace --exclude scatter-llama-cpp --all-targets ${_manifest} -- -D warnings
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}")
# They share cargo's target directory and lock; run them one at a time.
set_tests_properties(rust_tests rust_fmt rust_clippy PROPERTIES RESOURCE_LOCK cargo)
