#include "presets.h"

#include <stdio.h>
#include <stdlib.h>

size_t presets_count(void) {
    size_t n = 0;
    while (llama_scatter_preset_name(n) != NULL) {
        n++;
    }
    return n;
}

struct llama_scatter_params preset_with_seed(size_t i, uint32_t seed) {
    struct llama_scatter_params p = llama_scatter_default_params();
    const char * name = llama_scatter_preset_name(i);
    if (name == NULL || !llama_scatter_preset_params(name, &p)) {
        fprintf(stderr, "no preset %zu\n", i);
        abort();
    }
    p.seed = seed;
    return p;
}
