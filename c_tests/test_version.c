/* One version everywhere: the header's macros and string, the library's
 * llama_scatter_version() and the version CMake read from Cargo.toml
 * (EXPECTED_VERSION, passed by c_tests/CMakeLists.txt) agree.
 * cmake/CheckVersion.cmake checks the soname and the package files. */
#include <stdio.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"

int main(void) {
    char from_macros[64];
    snprintf(from_macros, sizeof from_macros, "%d.%d.%d", LLAMA_SCATTER_VERSION_MAJOR,
             LLAMA_SCATTER_VERSION_MINOR, LLAMA_SCATTER_VERSION_PATCH);
    const char * runtime = llama_scatter_version();

    CHECK(runtime != NULL, "llama_scatter_version() returned NULL");
    CHECK(strcmp(LLAMA_SCATTER_VERSION_STRING, from_macros) == 0, "string %s, macros %s",
          LLAMA_SCATTER_VERSION_STRING, from_macros);
    CHECK(runtime && strcmp(runtime, LLAMA_SCATTER_VERSION_STRING) == 0, "library %s, header %s",
          runtime ? runtime : "(null)", LLAMA_SCATTER_VERSION_STRING);
    CHECK(strcmp(EXPECTED_VERSION, LLAMA_SCATTER_VERSION_STRING) == 0, "Cargo.toml %s, header %s",
          EXPECTED_VERSION, LLAMA_SCATTER_VERSION_STRING);
    return harness_finish("version");
}
