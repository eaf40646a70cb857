/* The llama.cpp API differences the C suites meet across the llama.cpp
 * versions they are tested with (README "Compatibility"), in one place.
 * cmake/LlamaCpp.cmake reads the llama.h under test and defines:
 *   LLAMA_PENALTIES_ARGS    9 (late 2024), 4 (2025) or 5 (2026) arguments of
 *                           llama_sampler_init_penalties;
 *   LLAMA_HAS_TOP_N_SIGMA   llama_sampler_init_top_n_sigma exists (2025);
 *   LLAMA_HAS_SAMPLER_COPY  llama_sampler_copy exists (2026); the suites'
 *                           copy checks are compiled only then. */
#ifndef SCATTER_TEST_LLAMA_COMPAT_H
#define SCATTER_TEST_LLAMA_COMPAT_H

#include "llama.h"

/* A repetition penalty over the last `last_n` tokens of an `n_vocab`
 * vocabulary (neutral with the 4-argument API: see llama_compat.c). */
struct llama_sampler * compat_penalties(int32_t n_vocab, int32_t last_n, float repeat);

/* Adds a disabled top_n_sigma to `chain` where llama.cpp has that sampler. */
void compat_chain_add_top_n_sigma(struct llama_sampler * chain);

#endif
