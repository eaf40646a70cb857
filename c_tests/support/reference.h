/* An independent, straightforward implementation of SPEC §4.3-4.5 in
 * float64 with a dense kernel: full sort, explicit matrix passes. The
 * library must agree with it to 1e-6. */
#ifndef SCATTER_TEST_REFERENCE_H
#define SCATTER_TEST_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "llama.h"
#include "llama-scatter.h"

/* Writes the medium (ids and probabilities, best first) and returns its
 * size m, or returns 0 when SPEC leaves the array untouched (fewer than two
 * finite candidates, or a +inf logit). `history` holds every accepted
 * token, oldest first; ids and probs need room for min(k, n) entries. */
size_t reference_scatter(const llama_token_data * in, size_t n, const struct llama_scatter_params * p,
                         const int32_t * history, size_t n_history, int32_t * ids, double * probs);

#endif
