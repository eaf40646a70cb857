/* The header compiles as strict C99 with every warning an error. */
#include "llama-scatter.h"

int main(void) {
    struct llama_sampler * s = llama_sampler_init_scatter(64, 0.18f, 2.5f, 1);
    struct llama_sampler * e = llama_sampler_init_scatter_ext(64, 0.14f, 2.5f, 1, true, 0.02f, 0.30f, 0.55f, 0.0f,
                                                              64, 1.0f, LLAMA_DEFAULT_SEED);
    struct llama_scatter_params params = llama_scatter_default_params();
    const int found = llama_scatter_preset_params(llama_scatter_preset_name(0), &params);
    struct llama_sampler * p = llama_sampler_init_scatter_params(&params);
    const int ok = s != 0 && e != 0 && p != 0 && found;
    llama_sampler_free(s);
    llama_sampler_free(e);
    llama_sampler_free(p);
    return ok ? 0 : 1;
}
