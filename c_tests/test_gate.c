/* The collision gate (SPEC §4.2): firing rate, reproducibility per seed,
 * clone continuing the stream, reset restarting it, llama_sampler_copy
 * carrying it over, and no drawing at collision 1. */
#include <math.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/synth.h"

enum { N_ROW = 100, K = 64, N_DECISIONS = 10000 };

static llama_token_data ROW[N_ROW];

static struct llama_sampler * gated(float collision, uint32_t seed) {
    struct llama_scatter_params p = llama_scatter_default_params();
    p.k = K;
    p.strength = 0.3f;
    p.collision = collision;
    p.seed = seed;
    return llama_sampler_init_scatter_params(&p);
}

/* One apply on an unsorted row of 100: firing truncates it to k. */
static bool fires(struct llama_sampler * smpl) {
    llama_token_data buf[N_ROW];
    memcpy(buf, ROW, sizeof buf);
    llama_token_data_array arr = { buf, N_ROW, -1, false };
    llama_sampler_apply(smpl, &arr);
    return arr.size == K;
}

static void decisions(struct llama_sampler * smpl, bool * out, int n) {
    for (int i = 0; i < n; i++) {
        out[i] = fires(smpl);
    }
}

static bool same(const bool * a, const bool * b, int n) {
    return memcmp(a, b, (size_t) n * sizeof *a) == 0;
}

static bool first[N_DECISIONS], second[N_DECISIONS];

int main(void) {
    synth_fill(ROW, N_ROW, SYNTH_ZIPF, false, 99);

    const float rates[] = { 0.05f, 0.25f, 0.5f, 0.9f };
    for (size_t r = 0; r < sizeof rates / sizeof rates[0]; r++) {
        struct llama_sampler * s = gated(rates[r], 2024u + (uint32_t) r);
        decisions(s, first, N_DECISIONS);
        int fired = 0;
        for (int i = 0; i < N_DECISIONS; i++) {
            fired += first[i];
        }
        const double observed = (double) fired / N_DECISIONS;
        CHECK(fabs(observed - rates[r]) <= 0.03, "collision %.2f fired at rate %.4f", (double) rates[r], observed);
        llama_sampler_free(s);
    }

    /* Same seed, same decisions; another seed, other decisions. */
    struct llama_sampler * a = gated(0.5f, 77);
    struct llama_sampler * b = gated(0.5f, 77);
    struct llama_sampler * c = gated(0.5f, 78);
    decisions(a, first, 2000);
    decisions(b, second, 2000);
    CHECK(same(first, second, 2000), "same seed gave different gate decisions");
    decisions(c, second, 2000);
    CHECK(!same(first, second, 2000), "different seeds gave identical gate decisions");

    /* reset restarts the stream from the seed. */
    llama_sampler_reset(a);
    decisions(a, second, 2000);
    CHECK(same(first, second, 2000), "reset did not restart the gate's stream");

    /* A clone continues the same stream, independently. */
    struct llama_sampler * clone = llama_sampler_clone(a);
    CHECK(strcmp(llama_sampler_name(clone), "scatter") == 0, "clone name %s", llama_sampler_name(clone));
    decisions(a, first, 1000);
    decisions(clone, second, 1000);
    CHECK(same(first, second, 1000), "clone did not continue the stream");

#ifdef LLAMA_HAS_SAMPLER_COPY
    /* llama_sampler_copy(src, dst) makes dst continue src's stream. */
    llama_sampler_copy(a, c);
    decisions(a, first, 1000);
    decisions(c, second, 1000);
    CHECK(same(first, second, 1000), "llama_sampler_copy did not carry the gate state");

    /* Copying into a noop scatter sampler makes it that sampler. */
    struct llama_sampler * noop = llama_sampler_init_scatter(64, 0.0f, 2.5f, 1);
    llama_sampler_copy(a, noop);
    CHECK(strcmp(llama_sampler_name(noop), "scatter") == 0, "copied noop is named %s", llama_sampler_name(noop));
    decisions(a, first, 500);
    decisions(noop, second, 500);
    CHECK(same(first, second, 500), "copy into a noop sampler did not carry the state");
    llama_sampler_free(noop);
#endif

    /* collision >= 1: every apply scatters. */
    struct llama_sampler * always = gated(1.5f, 5);
    decisions(always, first, 500);
    int fired = 0;
    for (int i = 0; i < 500; i++) {
        fired += first[i];
    }
    CHECK(fired == 500, "collision 1.5 fired %d of 500 times", fired);

    llama_sampler_free(a);
    llama_sampler_free(b);
    llama_sampler_free(c);
    llama_sampler_free(clone);
    llama_sampler_free(always);
    return harness_finish("test_gate");
}
