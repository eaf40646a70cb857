/* Hostile parameters and inputs through the C API (SPEC §4.1): every
 * edge value of every parameter, one at a time around the creative preset,
 * on rows of several sizes with NaN, ±inf and ties, flags that lie about
 * sorting, and any `selected`. Each apply must leave the array untouched
 * or rewrite it validly: size never grows, p finite, sorted and summing to
 * 1, nothing written past `size` (canaries), no token from outside the
 * finite candidates. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/synth.h"

enum { CANARIES = 8 };

static const float FLOATS[] = { NAN, INFINITY, -INFINITY, -0.0f, 0.0f, FLT_MIN / 4.0f, FLT_MIN, 1e-30f,
                                0.5f, 1.0f, 1.5f, 1e30f, FLT_MAX, -1.0f, -FLT_MAX };
static const int32_t INTS[] = { INT32_MIN, -1, 0, 1, 2, 3, 64, 65536, INT32_MAX };
enum { N_FLOATS = sizeof FLOATS / sizeof FLOATS[0], N_INTS = sizeof INTS / sizeof INTS[0] };

static const size_t SIZES[] = { 0, 1, 2, 100, 5000 };

static void check_one(const char * name, const struct llama_scatter_params * p, size_t n, int variant) {
    llama_token_data * buf = malloc((n + CANARIES) * sizeof *buf);
    synth_fill(buf, n, (synth_kind) (variant % 3), false, (uint64_t) variant * 31u + n);
    if (n > 3 && variant % 4 == 0) {
        buf[n / 2].logit = INFINITY; /* a forced token */
    }
    for (size_t c = 0; c < CANARIES; c++) {
        buf[n + c].id = -7;
        buf[n + c].logit = 123.0f;
        buf[n + c].p = 0.5f;
    }
    llama_token_data * input = malloc((n ? n : 1) * sizeof *input);
    memcpy(input, buf, n * sizeof *buf);
    /* The sorted flag is set on unsorted data half of the time. */
    const bool lie = variant % 2 == 1;
    llama_token_data_array arr = { buf, n, (int64_t) variant - 3, lie };

    struct llama_sampler * s = llama_sampler_init_scatter_params(p);
    for (int t = 0; t < 5; t++) {
        llama_sampler_accept(s, t);
    }
    llama_sampler_apply(s, &arr);

    for (size_t c = 0; c < CANARIES; c++) {
        CHECK(buf[n + c].id == -7 && buf[n + c].logit == 123.0f, "%s n=%zu: wrote past the array", name, n);
    }
    CHECK(arr.data == buf && arr.size <= n, "%s n=%zu: size grew to %zu", name, n, arr.size);
    const bool untouched = arr.size == n && arr.sorted == lie && arr.selected == (int64_t) variant - 3 &&
                           (n == 0 || memcmp(buf, input, n * sizeof *buf) == 0);
    if (!untouched) {
        CHECK(arr.sorted && arr.selected == -1 && arr.size >= 2, "%s n=%zu: bad flags after a rewrite", name, n);
        double sum = 0.0;
        for (size_t i = 0; i < arr.size; i++) {
            const llama_token_data * d = &buf[i];
            CHECK(isfinite(d->p) && d->p >= 0.0f && d->p <= 1.0f && isfinite(d->logit), "%s n=%zu: [%zu] p %g",
                  name, n, i, (double) d->p);
            CHECK(i == 0 || (d->p <= buf[i - 1].p && d->logit <= buf[i - 1].logit), "%s n=%zu: unsorted at %zu",
                  name, n, i);
            CHECK(d->id >= 0 && (size_t) d->id < n, "%s: id %d out of range", name, d->id);
            for (size_t j = 0; j < n; j++) {
                if (input[j].id == d->id) {
                    CHECK(isfinite(input[j].logit), "%s n=%zu: non-finite token %d got mass", name, n, d->id);
                }
            }
            sum += d->p;
        }
        CHECK(fabs(sum - 1.0) <= 1e-6, "%s n=%zu: p sums to %.9f", name, n, sum);
    }
    llama_sampler_free(s);
    free(input);
    free(buf);
}

static void each_size(const struct llama_scatter_params * p, const char * name, int variant) {
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        check_one(name, p, SIZES[si], variant);
    }
}

int main(void) {
    int variant = 0;
    for (int f = 0; f < N_FLOATS; f++) {
        const float v = FLOATS[f];
        struct llama_scatter_params base = llama_scatter_default_params();
        llama_scatter_preset_params("creative", &base);
        base.seed = 5;
        base.adaptive = true;
        base.absorption = 0.06f;
        base.collision = 0.9f;
        struct llama_scatter_params p;
        p = base; p.strength = v; each_size(&p, "strength", variant++);
        p = base; p.radius = v; each_size(&p, "radius", variant++);
        p = base; p.strength_min = v; each_size(&p, "strength_min", variant++);
        p = base; p.strength_max = v; each_size(&p, "strength_max", variant++);
        p = base; p.entropy_target = v; each_size(&p, "entropy_target", variant++);
        p = base; p.absorption = v; each_size(&p, "absorption", variant++);
        p = base; p.collision = v; each_size(&p, "collision", variant++);
    }
    for (int i = 0; i < N_INTS; i++) {
        struct llama_scatter_params base = llama_scatter_default_params();
        llama_scatter_preset_params("adaptive-absorb", &base);
        base.seed = 9;
        struct llama_scatter_params p;
        p = base; p.k = INTS[i]; each_size(&p, "k", variant++);
        p = base; p.steps = INTS[i]; each_size(&p, "steps", variant++);
        p = base; p.absorption_last_n = INTS[i]; each_size(&p, "absorption_last_n", variant++);
        p = base; p.seed = (uint32_t) INTS[i]; each_size(&p, "seed", variant++);
    }
    /* Every parameter hostile at once. */
    const struct llama_scatter_params all = { INT32_MAX, FLT_MAX, FLT_MAX, INT32_MAX, true, NAN, -FLT_MAX,
                                              INFINITY, INFINITY, INT32_MAX, FLT_MAX, 0u };
    each_size(&all, "all hostile", variant++);
    return harness_finish("test_hostile");
}
