// The header compiles as C++11 with every warning an error.
#include "llama-scatter.h"

int main() {
    llama_sampler * s = llama_sampler_init_scatter(64, 0.18f, 2.5f, 1);
    llama_sampler * e = llama_sampler_init_scatter_ext(64, 0.14f, 2.5f, 1, true, 0.02f, 0.30f, 0.55f, 0.0f, 64,
                                                       1.0f, LLAMA_DEFAULT_SEED);
    llama_scatter_params params = llama_scatter_default_params();
    const bool found = llama_scatter_preset_params(llama_scatter_preset_name(0), &params);
    llama_sampler * p = llama_sampler_init_scatter_params(&params);
    const bool ok = s != nullptr && e != nullptr && p != nullptr && found;
    llama_sampler_free(s);
    llama_sampler_free(e);
    llama_sampler_free(p);
    return ok ? 0 : 1;
}
