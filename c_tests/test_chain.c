/* Scatter inside llama.cpp sampler chains, in the SPEC's recommended
 * order: the chain owns and frees it, clones and copies carry it, greedy
 * decoding is unaffected, and sampling never leaves the truncated set. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/llama_compat.h"
#include "support/synth.h"

enum { N_VOCAB = 4096, STEPS = 300 };

/* penalties -> top_n_sigma -> top_k -> typ_p -> top_p -> min_p -> xtc ->
 * scatter -> temperature -> dist (DRY needs a model vocabulary; it is
 * covered by the end-to-end tests). */
static struct llama_sampler * recommended_chain(uint32_t seed) {
    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, compat_penalties(N_VOCAB, 64, 1.1f));
    compat_chain_add_top_n_sigma(chain);
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    llama_sampler_chain_add(chain, llama_sampler_init_typical(1.0f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.95f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_xtc(0.1f, 0.1f, 1, seed));
    struct llama_scatter_params scatter = llama_scatter_default_params();
    llama_scatter_preset_params("adaptive-absorb", &scatter);
    scatter.collision = 0.5f;
    scatter.seed = seed;
    llama_sampler_chain_add(chain, llama_sampler_init_scatter_params(&scatter));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(seed));
    return chain;
}

static llama_token_data ROW[N_VOCAB];

/* The logits of step `t`: a Zipf row reshuffled per step. */
static void logits_for_step(int t, llama_token_data * out) {
    synth_fill(out, N_VOCAB, SYNTH_ZIPF, false, 500u + (uint64_t) t);
}

static bool in_top(const llama_token_data * row, llama_token id, int k) {
    int better = 0;
    float mine = -INFINITY;
    for (int i = 0; i < N_VOCAB; i++) {
        if (row[i].id == id) {
            mine = row[i].logit;
        }
    }
    for (int i = 0; i < N_VOCAB; i++) {
        better += row[i].logit > mine;
    }
    return better < k;
}

static llama_token step(struct llama_sampler * chain, int t) {
    logits_for_step(t, ROW);
    llama_token_data_array arr = { ROW, N_VOCAB, -1, false };
    llama_sampler_apply(chain, &arr);
    if (arr.selected < 0 || (size_t) arr.selected >= arr.size) {
        return -1;
    }
    const llama_token id = arr.data[arr.selected].id;
    llama_sampler_accept(chain, id);
    return id;
}

static void run(struct llama_sampler * chain, llama_token * out, int first, int n) {
    for (int t = 0; t < n; t++) {
        out[t] = step(chain, first + t);
    }
}

static llama_token A[STEPS], B[STEPS];

int main(void) {
    struct llama_sampler * chain = recommended_chain(42);
#ifdef LLAMA_HAS_TOP_N_SIGMA
    const int chain_n = 10;
#else
    const int chain_n = 9;
#endif
    CHECK(llama_sampler_chain_n(chain) == chain_n, "chain has %d samplers", llama_sampler_chain_n(chain));
    CHECK(strcmp(llama_sampler_name(llama_sampler_chain_get(chain, chain_n - 3)), "scatter") == 0,
          "scatter is not third from the end: %s", llama_sampler_name(llama_sampler_chain_get(chain, chain_n - 3)));

    llama_token_data raw[N_VOCAB];
    for (int t = 0; t < STEPS; t++) {
        logits_for_step(t, raw);
        A[t] = step(chain, t);
        CHECK(A[t] >= 0 && in_top(raw, A[t], 40), "step %d sampled token %d outside the top-40", t, A[t]);
    }

    /* Same seed, same text; clone and copy continue identically. */
    struct llama_sampler * again = recommended_chain(42);
    run(again, B, 0, STEPS);
    CHECK(memcmp(A, B, sizeof A) == 0, "same seed, different tokens");

    struct llama_sampler * clone = llama_sampler_clone(chain);
    run(chain, A, STEPS, STEPS);
    run(clone, B, STEPS, STEPS);
    CHECK(memcmp(A, B, sizeof A) == 0, "cloned chain diverged");

#ifdef LLAMA_HAS_SAMPLER_COPY
    struct llama_sampler * other = recommended_chain(7);
    llama_sampler_copy(chain, other);
    run(chain, A, 2 * STEPS, STEPS);
    run(other, B, 2 * STEPS, STEPS);
    CHECK(memcmp(A, B, sizeof A) == 0, "llama_sampler_copy between chains diverged");
    llama_sampler_free(other);
#endif

    /* A different seed gives a different token sequence. */
    struct llama_sampler * seven = recommended_chain(7);
    run(seven, B, 0, STEPS);
    llama_sampler_reset(chain);
    run(chain, A, 0, STEPS);
    CHECK(memcmp(A, B, sizeof A) != 0, "seeds 42 and 7 gave the same tokens");

    /* Greedy decoding is unaffected: argmax survives every preset. */
    struct llama_sampler * greedy = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(greedy, llama_sampler_init_top_k(40));
    struct llama_scatter_params adaptive = llama_scatter_default_params();
    llama_scatter_preset_params("adaptive", &adaptive);
    adaptive.seed = 3;
    llama_sampler_chain_add(greedy, llama_sampler_init_scatter_params(&adaptive));
    llama_sampler_chain_add(greedy, llama_sampler_init_scatter(64, 0.3f, 2.5f, 4));
    llama_sampler_chain_add(greedy, llama_sampler_init_greedy());
    for (int t = 0; t < STEPS; t++) {
        logits_for_step(t, raw);
        int best = 0;
        for (int i = 1; i < N_VOCAB; i++) {
            best = raw[i].logit > raw[best].logit ? i : best;
        }
        const llama_token id = step(greedy, t);
        CHECK(id == raw[best].id, "step %d: greedy picked %d, argmax is %d", t, id, raw[best].id);
    }

    llama_sampler_free(chain);
    llama_sampler_free(again);
    llama_sampler_free(clone);
    llama_sampler_free(seven);
    llama_sampler_free(greedy);
    return harness_finish("test_chain");
}
