/* The llama.cpp API differences the C suites meet across the llama.cpp
 * versions they are tested with (README "Compatibility": the trees of
 * llama-cpp-python 0.3.2, 0.3.16, 0.3.36 and b11434), in one place.
 * cmake/LlamaCpp.cmake reads the llama.h under test and defines:
 *   LLAMA_PENALTIES_ARGS    9 (0.3.2), 4 (0.3.16) or 5 (0.3.36, b11434) arguments of
 *                           llama_sampler_init_penalties;
 *   LLAMA_HAS_TOP_N_SIGMA   llama_sampler_init_top_n_sigma exists (0.3.16 on);
 *   LLAMA_HAS_SAMPLER_COPY  llama_sampler_copy exists (0.3.36 on); the suites'
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
