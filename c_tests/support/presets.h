/* The library's presets by index, for suites that run every one of them. */
#ifndef SCATTER_TEST_PRESETS_H
#define SCATTER_TEST_PRESETS_H

#include <stddef.h>
#include <stdint.h>

#include "llama-scatter.h"

/* How many names llama_scatter_preset_name lists. */
size_t presets_count(void);

/* Preset i (0 <= i < presets_count()) with the gate seeded by `seed`. */
struct llama_scatter_params preset_with_seed(size_t i, uint32_t seed);

#endif
