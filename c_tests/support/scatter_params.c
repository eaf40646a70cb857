#include "scatter_params.h"

#include "llama-scatter.h"

scatter_params scatter_defaults(void) {
    scatter_params p = {
        "defaults", 64, 0.0f, 2.5f, 1, false, 0.02f, 0.30f, 0.55f, 0.0f, 64, 1.0f, LLAMA_DEFAULT_SEED,
    };
    return p;
}

scatter_params scatter_preset(int i, uint32_t seed) {
    scatter_params p = scatter_defaults();
    p.seed = seed;
    switch (i) {
        case 0:
            p.name = "subtle";
            p.strength = 0.12f;
            p.radius = 2.0f;
            break;
        case 1:
            p.name = "creative";
            p.strength = 0.18f;
            break;
        case 2:
            p.name = "adaptive";
            p.adaptive = true;
            p.strength = 0.14f;
            break;
        case 3:
            p.name = "collision";
            p.collision = 0.25f;
            p.strength = 0.30f;
            break;
        default:
            p.name = "adaptive-absorb";
            p.adaptive = true;
            p.strength = 0.14f;
            p.absorption = 0.06f;
            p.absorption_last_n = 64;
            break;
    }
    return p;
}

struct llama_sampler * scatter_make(const scatter_params * p) {
    return llama_sampler_init_scatter_ext(p->k, p->strength, p->radius, p->steps, p->adaptive, p->strength_min,
                                          p->strength_max, p->entropy_target, p->absorption, p->absorption_last_n,
                                          p->collision, p->seed);
}
