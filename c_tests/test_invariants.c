/* SPEC §5 invariants of every preset on synthetic rows: sorted and
 * unsorted, ties, -inf and NaN logits, sizes 0, 1, 2, k-1, k, k+1 and a
 * full Gemma 3 vocabulary (262,144); plus names, noop samplers, forced
 * tokens and extra parameter combinations, all through llama.cpp's API. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/check.h"
#include "support/harness.h"
#include "support/presets.h"
#include "support/synth.h"

/* The last size is a full Gemma 3 vocabulary, or the size LLAMA_SCATTER_TEST_LARGE_ROW names: under
 * valgrind memcheck a row of 4,096 (cmake/Hardening.cmake), which takes every path the full row takes
 * (k <= 256 candidates out of a larger row) at a fraction of valgrind's time. */
static size_t SIZES[] = { 0, 1, 2, 63, 64, 65, 262144 };
enum { N_SIZES = sizeof SIZES / sizeof SIZES[0] };
static const char * const KINDS[] = { "zipf", "ties", "nonfinite" };

/* Ids 0..9 are the ten most likely tokens of a Zipf row. */
static const int32_t HISTORY[] = { 0, 1, 0, 2, 0, 5, 1, 9, 0, 3 };
enum { N_HISTORY = sizeof HISTORY / sizeof HISTORY[0] };

static void check_params_on_all_rows(const char * name, const struct llama_scatter_params * p) {
    const bool absorbing = p->absorption > 0.0f;
    for (size_t si = 0; si < N_SIZES; si++) {
        const size_t n = SIZES[si];
        llama_token_data * row = malloc((n ? n : 1) * sizeof *row);
        for (int kind = 0; kind < 3; kind++) {
            for (int sorted = 0; sorted < 2; sorted++) {
                synth_fill(row, n, (synth_kind) kind, sorted, 1000u * n + 10u * kind + sorted);
                char label[160];
                snprintf(label, sizeof label, "%s k=%d steps=%d r=%g n=%zu %s %s", name, p->k, p->steps,
                         (double) p->radius, n, KINDS[kind], sorted ? "sorted" : "unsorted");
                struct llama_sampler * smpl = llama_sampler_init_scatter_params(p);
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

    const struct llama_scatter_params d = llama_scatter_default_params();
    struct llama_sampler * noops[] = {
        llama_sampler_init_scatter_params(&d),
        llama_sampler_init_scatter_params(NULL),
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

/* Applies a and b to the same rows, accepting the same tokens between
 * applies: their outputs must be bit-for-bit equal. Frees both. */
static void check_same_outputs(const char * label, struct llama_sampler * a, struct llama_sampler * b) {
    for (int round = 0; round < 12; round++) {
        llama_token_data x[500], y[500];
        synth_fill(x, 500, (synth_kind) (round % 3), round % 2 == 0, 11u + (uint64_t) round);
        memcpy(y, x, sizeof x);
        llama_token_data_array xa = { x, 500, -1, round % 2 == 0 }, ya = { y, 500, -1, round % 2 == 0 };
        llama_sampler_apply(a, &xa);
        llama_sampler_apply(b, &ya);
        CHECK(xa.size == ya.size && xa.sorted == ya.sorted && xa.selected == ya.selected &&
                  memcmp(x, y, xa.size * sizeof *x) == 0,
              "%s: outputs differ at round %d", label, round);
        llama_sampler_accept(a, x[0].id);
        llama_sampler_accept(b, x[0].id);
    }
    llama_sampler_free(a);
    llama_sampler_free(b);
}

/* The three constructors are one: llama_sampler_init_scatter(k, s, r, n) is
 * _ext with every other parameter at its default, and _ext is _params with
 * the struct filled from its arguments in field order. */
static void check_constructors_agree(void) {
    struct llama_scatter_params fixed = llama_scatter_default_params();
    fixed.k = 48;
    fixed.strength = 0.25f;
    fixed.radius = 3.0f;
    fixed.steps = 2;
    check_same_outputs("fixed vs _params", llama_sampler_init_scatter(48, 0.25f, 3.0f, 2),
                       llama_sampler_init_scatter_params(&fixed));
    check_same_outputs("fixed vs _ext", llama_sampler_init_scatter(48, 0.25f, 3.0f, 2),
                       llama_sampler_init_scatter_ext(48, 0.25f, 3.0f, 2, false, 0.02f, 0.30f, 0.55f, 0.0f, 64,
                                                      1.0f, LLAMA_DEFAULT_SEED));
    for (size_t i = 0; i < presets_count(); i++) {
        const struct llama_scatter_params p = preset_with_seed(i, 99u + (uint32_t) i);
        check_same_outputs(llama_scatter_preset_name(i), llama_sampler_init_scatter_params(&p),
                           llama_sampler_init_scatter_ext(p.k, p.strength, p.radius, p.steps, p.adaptive,
                                                          p.strength_min, p.strength_max, p.entropy_target,
                                                          p.absorption, p.absorption_last_n, p.collision, p.seed));
    }
}

/* The preset API: every listed name is found, the list ends with NULL,
 * and an unknown name or a NULL leaves the output untouched. */
static void check_preset_api(void) {
    const size_t n = presets_count();
    CHECK(n == 5, "%zu presets listed, SPEC §6 has 5", n);
    for (size_t i = 0; i < n; i++) {
        struct llama_scatter_params p = llama_scatter_default_params();
        CHECK(llama_scatter_preset_params(llama_scatter_preset_name(i), &p), "preset %s not found",
              llama_scatter_preset_name(i));
        struct llama_sampler * s = llama_sampler_init_scatter_params(&p);
        CHECK(strcmp(llama_sampler_name(s), "scatter") == 0, "preset %s is not active", llama_scatter_preset_name(i));
        llama_sampler_free(s);
    }
    const char * const unknown[] = { "", "Creative", "creative ", "none", NULL };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        struct llama_scatter_params p = llama_scatter_default_params();
        p.k = -7;
        CHECK(!llama_scatter_preset_params(unknown[i], &p) && p.k == -7 && p.strength == 0.0f,
              "unknown preset %zu changed the output", i);
    }
    CHECK(!llama_scatter_preset_params("creative", NULL), "a NULL output must give false");
}

/* llama_scatter_params_enabled says ahead what the constructor makes: true
 * exactly when the sampler is the active "scatter", for the presets, the
 * defaults and parameters at and past every edge of SPEC §4.1. */
static void check_enabled(void) {
    struct llama_scatter_params cases[16];
    size_t n = 0;
    for (size_t i = 0; i < presets_count(); i++) {
        cases[n++] = preset_with_seed(i, 5u);
    }
    const struct llama_scatter_params d = llama_scatter_default_params();
    cases[n] = d; n++;
    cases[n] = d; cases[n].strength = 0.18f; cases[n].k = 1; n++;
    cases[n] = d; cases[n].strength = 0.18f; cases[n].radius = 0.0f; n++;
    cases[n] = d; cases[n].strength = NAN; n++;
    cases[n] = d; cases[n].adaptive = true; n++;
    cases[n] = d; cases[n].adaptive = true; cases[n].steps = 0; n++;
    cases[n] = d; cases[n].absorption = 0.06f; n++;
    cases[n] = d; cases[n].absorption = 0.06f; cases[n].absorption_last_n = 0; n++;
    cases[n] = d; cases[n].strength = 0.18f; cases[n].collision = 0.0f; n++;
    cases[n] = d; cases[n].strength = 0.18f; cases[n].collision = -INFINITY; n++;
    size_t enabled = 0;
    for (size_t i = 0; i < n; i++) {
        struct llama_sampler * s = llama_sampler_init_scatter_params(&cases[i]);
        const bool active = strcmp(llama_sampler_name(s), "scatter") == 0;
        CHECK(llama_scatter_params_enabled(&cases[i]) == active, "case %zu: enabled says %d, the sampler is %s",
              i, (int) llama_scatter_params_enabled(&cases[i]), llama_sampler_name(s));
        enabled += active;
        llama_sampler_free(s);
    }
    CHECK(enabled == presets_count() + 2, "%zu of the cases enabled, expected the presets and 2 more", enabled);
    CHECK(!llama_scatter_params_enabled(NULL), "NULL parameters must not count as enabled");
}

int main(void) {
    const char * large = getenv("LLAMA_SCATTER_TEST_LARGE_ROW");
    if (large) {
        char * end = NULL;
        const unsigned long n = strtoul(large, &end, 10);
        if (*large == '\0' || *end != '\0' || n <= 256 || n > 262144) {
            fprintf(stderr, "LLAMA_SCATTER_TEST_LARGE_ROW=%s: a row size above 256 (the largest k here) and at most 262144\n", large);
            return 2;
        }
        SIZES[N_SIZES - 1] = (size_t) n;
    }
    for (size_t i = 0; i < presets_count(); i++) {
        const struct llama_scatter_params p = preset_with_seed(i, 1234u + (uint32_t) i);
        check_params_on_all_rows(llama_scatter_preset_name(i), &p);
    }
    /* Beyond the presets: several passes, small and large media, a narrow
     * and a wide kernel, full strength, adaptive with a steep curve. */
    const struct { int32_t k; float s; float r; int32_t steps; bool adaptive; } extra[] = {
        { 64, 0.18f, 2.5f, 4, false }, { 16, 0.3f, 2.5f, 1, false }, { 256, 0.3f, 2.5f, 2, false },
        { 64, 1.0f, 0.5f, 1, false },  { 64, 0.5f, 8.0f, 3, false }, { 40, 0.05f, 1.5f, 1, true },
    };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        struct llama_scatter_params p = llama_scatter_default_params();
        p.k = extra[i].k;
        p.strength = extra[i].s;
        p.radius = extra[i].r;
        p.steps = extra[i].steps;
        p.adaptive = extra[i].adaptive;
        check_params_on_all_rows("extra", &p);
    }
    check_names_and_noops();
    check_constructors_agree();
    check_preset_api();
    check_enabled();
    return harness_finish("test_invariants");
}
