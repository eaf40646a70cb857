/* The build of apply the library runs (DESIGN.md, "Kernels chosen at run
 * time"): on an x86-64-v3 CPU (AVX2, FMA, ...) it is "x86-64-v3" unless
 * LLAMA_SCATTER_KERNELS=baseline asks for what the library was compiled
 * for; on any other CPU, "baseline". The CPU's features are read here with
 * the compiler's own CPUID check, apart from the library's. CTest runs it
 * with and without the variable; the invariant suite runs on both builds. */
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"

int main(void) {
    const char * setting  = getenv("LLAMA_SCATTER_KERNELS");
    const int    baseline = setting != NULL && strcmp(setting, "baseline") == 0;
    int          fast     = 0;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    fast = __builtin_cpu_supports("x86-64-v3");
#endif
    const char * expected = fast && !baseline ? "x86-64-v3" : "baseline";
    const char * chosen   = llama_scatter_kernels();

    CHECK(chosen != NULL, "llama_scatter_kernels() returned NULL");
    CHECK(chosen && strcmp(chosen, expected) == 0, "chosen %s, expected %s (LLAMA_SCATTER_KERNELS=%s)",
          chosen ? chosen : "(null)", expected, setting ? setting : "(unset)");
    CHECK(chosen == llama_scatter_kernels(), "the choice is made once: the same string every call");
    return harness_finish("kernels");
}
