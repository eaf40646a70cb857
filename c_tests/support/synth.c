#include "synth.h"

#include <math.h>
#include <stdlib.h>

uint64_t synth_next(uint64_t * state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double unit(uint64_t * state) {
    return (double) (synth_next(state) >> 11) * (1.0 / 9007199254740992.0);
}

static int by_logit_desc(const void * a, const void * b) {
    const float x = ((const llama_token_data *) a)->logit;
    const float y = ((const llama_token_data *) b)->logit;
    if (isnan(x) || isnan(y)) {
        return isnan(x) - isnan(y);
    }
    return (x < y) - (x > y);
}

void synth_fill(llama_token_data * d, size_t n, synth_kind kind, bool sorted, uint64_t seed) {
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) {
        float logit;
        if (kind == SYNTH_TIES) {
            logit = (float) (synth_next(&s) % 5) * 0.75f;
        } else {
            logit = (float) (-1.1 * log(1.0 + (double) i) + 0.3 * unit(&s));
            if (kind == SYNTH_NONFINITE) {
                const uint64_t r = synth_next(&s) % 10;
                logit = r == 0 ? -INFINITY : (r == 1 ? NAN : logit);
            }
        }
        d[i].id = (int32_t) i;
        d[i].logit = logit;
        d[i].p = 0.0f;
    }
    /* Fisher-Yates shuffle of the whole row (ids and logits together). */
    for (size_t i = n; i > 1; i--) {
        const size_t j = (size_t) (synth_next(&s) % i);
        const llama_token_data t = d[i - 1];
        d[i - 1] = d[j];
        d[j] = t;
    }
    if (sorted && n > 1) {
        /* qsort is not stable, but the ties' input order is whatever this
         * produces: the medium only has to keep it. */
        qsort(d, n, sizeof *d, by_logit_desc);
    }
}
