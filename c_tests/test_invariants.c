/* SPEC §5 invariants of every preset on synthetic rows: sorted and
 * unsorted, ties, -inf and NaN logits, sizes 0, 1, 2, k-1, k, k+1 and a
 * full Gemma 3 vocabulary (262,144); plus names, noop samplers, forced
 * tokens and extra parameter combinations, all through llama.cpp's API. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/check.h"
#include "support/harness.h"
#include "support/synth.h"

static const size_t SIZES[] = { 0, 1, 2, 63, 64, 65, 262144 };
static const char * const KINDS[] = { "zipf", "ties", "nonfinite" };

/* Ids 0..9 are the ten most likely tokens of a Zipf row. */
static const int32_t HISTORY[] = { 0, 1, 0, 2, 0, 5, 1, 9, 0, 3 };
enum { N_HISTORY = sizeof HISTORY / sizeof HISTORY[0] };

static void check_params_on_all_rows(const scatter_params * p) {
    const bool absorbing = p->absorption > 0.0f;
    for (size_t si = 0; si < sizeof SIZES / sizeof SIZES[0]; si++) {
        const size_t n = SIZES[si];
        llama_token_data * row = malloc((n ? n : 1) * sizeof *row);
        for (int kind = 0; kind < 3; kind++) {
            for (int sorted = 0; sorted < 2; sorted++) {
                synth_fill(row, n, (synth_kind) kind, sorted, 1000u * n + 10u * kind + sorted);
                char label[160];
                snprintf(label, sizeof label, "%s k=%d steps=%d r=%g n=%zu %s %s", p->name, p->k, p->steps,
                         (double) p->radius, n, KINDS[kind], sorted ? "sorted" : "unsorted");
                struct llama_sampler * smpl = scatter_make(p);
                if (absorbing) {
                    for (int h = 0; h < N_HISTORY; h++) {
                        llama_sampler_accept(smpl, HISTORY[h]);
                    }
                }
                /* The collision gate may skip an apply; try until it fires. */
                bool rewritten = false;
                for (int attempt = 0; attempt < 40 && !rewritten; attempt++) {
                    rewritten = check_scatter_apply(label, smpl, p, row, n, sorted, HISTORY,
                                                    absorbing ? N_HISTORY : 0);
                }
                size_t n_finite = 0;
                for (size_t i = 0; i < n; i++) {
                    n_finite += isfinite(row[i].logit) != 0;
                }
                CHECK(rewritten == (n_finite >= 2), "%s: rewritten %d with %zu finite candidates", label, rewritten,
                      n_finite);
                llama_sampler_free(smpl);
            }
        }
        free(row);
    }
}

static void check_names_and_noops(void) {
    struct llama_sampler * active = llama_sampler_init_scatter(64, 0.18f, 2.5f, 1);
    CHECK(strcmp(llama_sampler_name(active), "scatter") == 0, "active name %s", llama_sampler_name(active));

    scatter_params d = scatter_defaults();
    struct llama_sampler * noops[] = {
        scatter_make(&d),
        llama_sampler_init_scatter(64, 0.0f, 2.5f, 1),
        llama_sampler_init_scatter(1, 0.3f, 2.5f, 1),
        llama_sampler_init_scatter(64, 0.3f, 0.0f, 1),
        llama_sampler_init_scatter(64, 0.3f, 2.5f, 0),
        llama_sampler_init_scatter(64, NAN, 2.5f, 1),
        llama_sampler_init_scatter(64, 0.3f, NAN, 1),
        llama_sampler_init_scatter_ext(64, 0.3f, 2.5f, 1, false, 0.02f, 0.3f, 0.55f, 0.0f, 64, 0.0f, 1),
        llama_sampler_init_scatter_ext(64, 0.0f, 2.5f, 1, false, 0.02f, 0.3f, 0.55f, 0.5f, 0, 1.0f, 1),
    };
    llama_token_data row[100];
    for (size_t i = 0; i < sizeof noops / sizeof noops[0]; i++) {
        CHECK(strcmp(llama_sampler_name(noops[i]), "?scatter") == 0, "noop %zu name %s", i,
              llama_sampler_name(noops[i]));
        for (int kind = 0; kind < 3; kind++) {
            synth_fill(row, 100, (synth_kind) kind, kind == 1, 7u + (uint64_t) kind);
            llama_token_data buf[100];
            memcpy(buf, row, sizeof row);
            llama_token_data_array arr = { buf, 100, 42, kind == 1 };
            llama_sampler_apply(noops[i], &arr);
            CHECK(is_untouched(&arr, buf, row, 100, kind == 1, 42), "noop %zu changed its input", i);
        }
        llama_sampler_free(noops[i]);
    }

    /* A forced token (+inf logit) is not smoothed. */
    synth_fill(row, 100, SYNTH_ZIPF, false, 3);
    row[17].logit = INFINITY;
    llama_token_data buf[100];
    memcpy(buf, row, sizeof row);
    llama_token_data_array arr = { buf, 100, -1, false };
    llama_sampler_apply(active, &arr);
    CHECK(is_untouched(&arr, buf, row, 100, false, -1), "a +inf logit must leave the array untouched");
    llama_sampler_free(active);
}

/* llama_sampler_init_scatter(k, s, r, n) is exactly the _ext call with
 * every other parameter at its default. */
static void check_fixed_equals_ext(void) {
    struct llama_sampler * fixed = llama_sampler_init_scatter(48, 0.25f, 3.0f, 2);
    struct llama_sampler * ext =
        llama_sampler_init_scatter_ext(48, 0.25f, 3.0f, 2, false, 0.02f, 0.30f, 0.55f, 0.0f, 64, 1.0f,
                                       LLAMA_DEFAULT_SEED);
    llama_token_data a[500], b[500];
    synth_fill(a, 500, SYNTH_ZIPF, false, 11);
    memcpy(b, a, sizeof a);
    llama_token_data_array aa = { a, 500, -1, false }, bb = { b, 500, -1, false };
    llama_sampler_apply(fixed, &aa);
    llama_sampler_apply(ext, &bb);
    CHECK(aa.size == 48 && bb.size == 48 && memcmp(a, b, 48 * sizeof *a) == 0, "fixed and _ext differ");
    llama_sampler_free(fixed);
    llama_sampler_free(ext);
}

int main(void) {
    for (int i = 0; i < N_PRESETS; i++) {
        scatter_params p = scatter_preset(i, 1234u + (uint32_t) i);
        check_params_on_all_rows(&p);
    }
    /* Beyond the presets: several passes, small and large media, a narrow
     * and a wide kernel, full strength, adaptive with a steep curve. */
    const struct { int32_t k; float s; float r; int32_t steps; bool adaptive; } extra[] = {
        { 64, 0.18f, 2.5f, 4, false }, { 16, 0.3f, 2.5f, 1, false }, { 256, 0.3f, 2.5f, 2, false },
        { 64, 1.0f, 0.5f, 1, false },  { 64, 0.5f, 8.0f, 3, false }, { 40, 0.05f, 1.5f, 1, true },
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        scatter_params p = scatter_defaults();
        p.name = "extra";
        p.k = extra[i].k;
        p.strength = extra[i].s;
        p.radius = extra[i].r;
        p.steps = extra[i].steps;
        p.adaptive = extra[i].adaptive;
        check_params_on_all_rows(&p);
    }
    check_names_and_noops();
    check_fixed_equals_ext();
    return harness_finish("test_invariants");
}
