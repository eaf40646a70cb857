/* Prints llama.cpp's system info, the CPU features its build uses: the test llama_amx_as_probed
 * (c_tests/CMakeLists.txt) holds AMX in it to what configure's probe decided. */
#include <stdio.h>

#include <llama.h>

int main(void) {
    llama_backend_init();
    puts(llama_print_system_info());
    llama_backend_free();
    return 0;
}
