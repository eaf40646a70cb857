/* One apply of a scatter sampler, checked against every SPEC §5 invariant
 * and against the float64 reference. */
#ifndef SCATTER_TEST_CHECK_H
#define SCATTER_TEST_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llama.h"
#include "llama-scatter.h"

/* Applies `smpl` (built from `p`, with `history` already accepted, oldest
 * first) to a copy of input[0..n) marked `sorted`, then checks:
 * untouched bit-for-bit when SPEC says so (or when the gate did not fire);
 * otherwise size == min(k, n_finite), sorted set, selected -1, the
 * reference's medium and probabilities within 1e-6, the input ranking kept
 * exactly (without absorption), p and logits non-increasing, p summing to 1
 * within 1e-6, softmax(logits) == p, and no token from outside the top-k.
 * Returns whether the array was rewritten. */
bool check_scatter_apply(const char * label, struct llama_sampler * smpl, const struct llama_scatter_params * p,
                         const llama_token_data * input, size_t n, bool sorted,
                         const int32_t * history, size_t n_history);

/* True if arr still holds exactly input[0..n) with the given flags. */
bool is_untouched(const llama_token_data_array * arr, const llama_token_data * buf,
                  const llama_token_data * input, size_t n, bool sorted, int64_t selected);

#endif
