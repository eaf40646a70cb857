/* Synthetic candidate rows: deterministic, with distinct token ids, so
 * that "which token went where" can be checked exactly. */
#ifndef SCATTER_TEST_SYNTH_H
#define SCATTER_TEST_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "llama.h"

typedef enum {
    SYNTH_ZIPF,      /* logits of a Zipf-like next-token distribution */
    SYNTH_TIES,      /* logits drawn from five values: long runs of ties */
    SYNTH_NONFINITE, /* Zipf with -inf (grammar, bias) and NaN sprinkled in */
} synth_kind;

/* SplitMix64 step: the test data's random source. */
uint64_t synth_next(uint64_t * state);

/* Fills d[0..n) with ids 0..n-1 in a shuffled order. With `sorted`, the
 * row is ordered by logit descending (NaN last), as llama.cpp marks with
 * cur_p->sorted. */
void synth_fill(llama_token_data * d, size_t n, synth_kind kind, bool sorted, uint64_t seed);

#endif
