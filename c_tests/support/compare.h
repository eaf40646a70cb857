/* What scatter's graph left on a device for one row, against what the CPU
 * apply of the same sampler (or chain) left for it: the check of the
 * backend-sampling suites (test_backend_sampling with a model,
 * test_backend_graph without). */
#ifndef SCATTER_TEST_COMPARE_H
#define SCATTER_TEST_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "llama.h"

/* The device computes in f32 with ggml's kernels, the CPU path in f64
 * rounded once: probabilities, compared rank by rank, differ by at most this. */
#define BACKEND_TOLERANCE 1e-6

/* Compares the device's output (logits[0..n), token ids `ids`, or the
 * positions where `ids` is NULL: a whole row nothing shrank) with `cpu`, the
 * array the CPU apply left. CHECKs that both keep the same finite
 * candidates (the same tokens where `exact_ids`; otherwise tokens of the
 * same input logits, for rows whose ties straddle the medium's edge, where
 * the two sorts may take other tied tokens) and that along the input logits
 * `raw` (indexed by token id) the device's never rise. Returns the largest
 * difference of a probability (softmax of the finite logits, rank by rank),
 * INFINITY where the outputs could not be compared. */
double compare_backend_output(const char * label, int step, const float * logits, const llama_token * ids, size_t n,
                              const llama_token_data_array * cpu, const float * raw, bool exact_ids);

#endif
