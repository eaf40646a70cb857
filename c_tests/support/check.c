#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "reference.h"

#define SCATTER_PROBABILITY_FLOOR 1e-10

bool is_untouched(const llama_token_data_array * arr, const llama_token_data * buf,
                  const llama_token_data * input, size_t n, bool sorted, int64_t selected) {
    return arr->data == buf && arr->size == n && arr->sorted == sorted && arr->selected == selected &&
           (n == 0 || memcmp(buf, input, n * sizeof *input) == 0);
}

static void check_rewritten(const char * label, const llama_token_data_array * arr, const struct llama_scatter_params * p,
                            const int32_t * ids, const double * probs, size_t m) {
    CHECK(arr->size == m, "%s: size %zu, expected min(k, n_finite) = %zu", label, arr->size, m);
    CHECK(arr->sorted, "%s: sorted flag not set", label);
    CHECK(arr->selected == -1, "%s: selected %lld", label, (long long) arr->selected);
    if (arr->size != m) {
        return;
    }
    const bool absorbing = p->absorption > 0.0f && p->absorption_last_n > 0;
    const llama_token_data * d = arr->data;
    double sum = 0.0;
    for (size_t i = 0; i < m; i++) {
        sum += d[i].p;
        CHECK(isfinite(d[i].p) && d[i].p >= 0.0f && isfinite(d[i].logit), "%s: [%zu] p %g logit %g", label, i,
              (double) d[i].p, (double) d[i].logit);
        if (i > 0) {
            CHECK(d[i].p <= d[i - 1].p, "%s: p rises at %zu: %.9g > %.9g", label, i, (double) d[i].p,
                  (double) d[i - 1].p);
            CHECK(d[i].logit <= d[i - 1].logit, "%s: logit rises at %zu", label, i);
        }
        /* The same token as the reference at this rank (order stability),
         * or, with absorption, somewhere in the reference's medium. */
        size_t j = i;
        if (absorbing) {
            for (j = 0; j < m && ids[j] != d[i].id; j++) {
            }
        }
        CHECK(j < m && ids[j] == d[i].id, "%s: token %d at rank %zu is not the reference's (tail wake-up or reorder)",
              label, d[i].id, i);
        if (j < m) {
            CHECK(fabs((double) d[i].p - probs[j]) <= 1e-6, "%s: p[%zu] = %.9g, reference %.9g", label, i,
                  (double) d[i].p, probs[j]);
        }
    }
    CHECK(fabs(sum - 1.0) <= 1e-6, "%s: p sums to %.12f", label, sum);
    double z = 0.0;
    for (size_t i = 0; i < m; i++) {
        z += exp((double) d[i].logit - (double) d[0].logit);
    }
    for (size_t i = 0; i < m; i++) {
        if (d[i].p > SCATTER_PROBABILITY_FLOOR) {
            const double soft = exp((double) d[i].logit - (double) d[0].logit) / z;
            CHECK(fabs(soft - (double) d[i].p) <= 1e-6, "%s: softmax(logit)[%zu] = %.9g, p %.9g", label, i, soft,
                  (double) d[i].p);
        }
    }
}

bool check_scatter_apply(const char * label, struct llama_sampler * smpl, const struct llama_scatter_params * p,
                         const llama_token_data * input, size_t n, bool sorted,
                         const int32_t * history, size_t n_history) {
    const int64_t selected = n > 0 ? (int64_t) (n - 1) : -1;
    llama_token_data * buf = malloc((n ? n : 1) * sizeof *buf);
    if (n) {
        memcpy(buf, input, n * sizeof *buf);
    }
    llama_token_data_array arr = { buf, n, selected, sorted };
    llama_sampler_apply(smpl, &arr);

    const size_t cap = n < (size_t) p->k ? n : (size_t) p->k;
    int32_t * ids = malloc((cap ? cap : 1) * sizeof *ids);
    double * probs = malloc((cap ? cap : 1) * sizeof *probs);
    const size_t m = reference_scatter(input, n, p, history, n_history, ids, probs);

    const bool untouched = is_untouched(&arr, buf, input, n, sorted, selected);
    bool rewritten = false;
    if (m == 0) {
        CHECK(untouched, "%s: SPEC leaves this array untouched", label);
    } else if (untouched && p->collision < 1.0f) {
        /* The gate did not fire this time. */
    } else {
        CHECK(arr.data == buf, "%s: data pointer replaced", label);
        check_rewritten(label, &arr, p, ids, probs, m);
        rewritten = true;
    }
    free(buf);
    free(ids);
    free(probs);
    return rewritten;
}
