/* The scatter parameters as one struct, the SPEC §6 presets, and the
 * constructor that passes them to llama_sampler_init_scatter_ext. */
#ifndef SCATTER_TEST_PARAMS_H
#define SCATTER_TEST_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

struct llama_sampler;

typedef struct scatter_params {
    const char * name;
    int32_t  k;
    float    strength;
    float    radius;
    int32_t  steps;
    bool     adaptive;
    float    strength_min;
    float    strength_max;
    float    entropy_target;
    float    absorption;
    int32_t  absorption_last_n;
    float    collision;
    uint32_t seed;
} scatter_params;

/* SPEC §2 defaults (a noop sampler). */
scatter_params scatter_defaults(void);

/* The five SPEC §6 presets, with the given gate seed. */
enum { N_PRESETS = 5 };
scatter_params scatter_preset(int i, uint32_t seed);

struct llama_sampler * scatter_make(const scatter_params * p);

#endif
