/* Scatter in chains that llama.cpp runs on the backend (backend sampling:
 * a context made with sampler chains in llama_context_params.samplers),
 * with a real model (argv[1]) on the CPU backend:
 *  - a disabled scatter is invisible there: a chain holding one samples
 *    every token on the backend, and the same tokens as the chain without
 *    it (llama.cpp's own disabled samplers behave so);
 *  - an active scatter without absorption runs there (`+scatter`): on the
 *    steps of a greedy continuation, what top_k(40) -> scatter leaves on
 *    the backend (an unsorted medium) equals what it leaves on the CPU
 *    (same tokens, each probability within BACKEND_TOLERANCE, the collision gate
 *    deciding the same way from the same seed) for every such preset, also
 *    after top_p and min_p (which mask with -inf on the backend), and on
 *    the whole vocabulary (adaptive, collision: no top_k before it), and
 *    the input ranking is kept; generated with dist on the backend, every token
 *    is sampled there and every step counted; greedy text is unchanged; a
 *    sequence left idle beside a decoded one is harmless;
 *  - with absorption the chain falls back to the CPU at scatter
 *    (`-scatter`), and the text is the text of the same chain in a context
 *    without backend sampling. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/compare.h"
#include "support/harness.h"
#include "support/model.h"
#include "support/presets.h"

enum { N_PREDICT = 24, N_COMPARE = 12, TOP_K = 40 };

static const char PROMPT[] = "Once upon a time, in a village by the sea,";

/* [top_k 40 -> [top_p 0.9 -> min_p 0.05]] -> [scatter] -> [temp 0.8 -> dist | greedy (top_k 1 -> dist) | nothing];
 * *scatter_out gets the scatter sampler (owned by the chain) or NULL. Before
 * scatter: top_k (a short row: the graph sorts it whole), top_k and the masks,
 * or nothing (the whole vocabulary: the graph cuts it with ggml_top_k). */
enum before { BEFORE_TOP_K, BEFORE_TOP_K_MASKS, BEFORE_NOTHING };
enum tail { TAIL_DIST, TAIL_GREEDY, TAIL_NONE };

static struct llama_sampler * chain_before(const struct llama_scatter_params * scatter, enum before before,
                                           enum tail tail, struct llama_sampler ** scatter_out) {
    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    if (before != BEFORE_NOTHING) {
        llama_sampler_chain_add(chain, llama_sampler_init_top_k(TOP_K));
    }
    if (before == BEFORE_TOP_K_MASKS) {
        /* On the backend these mask with -inf instead of shrinking. */
        llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.9f, 1));
        llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
    }
    *scatter_out = NULL;
    if (scatter) {
        *scatter_out = llama_sampler_init_scatter_params(scatter);
        llama_sampler_chain_add(chain, *scatter_out);
    }
    if (tail == TAIL_DIST) {
        llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8f));
        llama_sampler_chain_add(chain, llama_sampler_init_dist(1234));
    } else if (tail == TAIL_GREEDY) {
        /* Not llama_sampler_init_greedy: on the backend of the pinned tree
         * it returns the argmax's position among the candidates, not its
         * token id, after a sampler that shrinks them (top_k). */
        llama_sampler_chain_add(chain, llama_sampler_init_top_k(1));
        llama_sampler_chain_add(chain, llama_sampler_init_dist(1234));
    }
    return chain;
}

static struct llama_sampler * chain_with(const struct llama_scatter_params * scatter, enum tail tail,
                                         struct llama_sampler ** scatter_out) {
    return chain_before(scatter, BEFORE_TOP_K, tail, scatter_out);
}

/* A context for `model`, with `chain` attached for backend sampling unless
 * it is NULL. */
static struct llama_context * context_for(struct llama_model * model, struct llama_sampler * chain) {
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 256;
    struct llama_sampler_seq_config config = { 0, chain };
    if (chain) {
        cp.samplers = &config;
        cp.n_samplers = 1;
    }
    struct llama_context * ctx = llama_init_from_model(model, cp);
    CHECK(ctx != NULL, "no context (backend sampling %d)", chain != NULL);
    return ctx;
}

static int tokenize_prompt(struct llama_model * model, llama_token * out, int cap) {
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    return llama_tokenize(vocab, PROMPT, (int32_t) strlen(PROMPT), out, cap, true, true);
}

struct run {
    llama_token tokens[N_PREDICT];
    int n;          /* tokens generated before the end of generation */
    int steps;      /* tokens sampled: n, plus the end-of-generation token */
    int on_backend; /* steps whose token the backend sampled */
};

/* Generates with `chain`, attached to the context for backend sampling
 * when `backend` is true. */
static struct run generate(struct llama_model * model, struct llama_sampler * chain, bool backend) {
    struct run r = { { 0 }, 0, 0, 0 };
    struct llama_context * ctx = context_for(model, backend ? chain : NULL);
    if (!ctx) {
        return r;
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    llama_token prompt[64];
    const int n_prompt = tokenize_prompt(model, prompt, 64);
    struct llama_batch batch = llama_batch_get_one(prompt, n_prompt);
    while (r.n < N_PREDICT && llama_decode(ctx, batch) == 0) {
        r.on_backend += llama_get_sampled_token_ith(ctx, -1) != LLAMA_TOKEN_NULL;
        r.tokens[r.n] = llama_sampler_sample(chain, ctx, -1);
        r.steps++;
        if (llama_vocab_is_eog(vocab, r.tokens[r.n])) {
            break;
        }
        batch = llama_batch_get_one(&r.tokens[r.n], 1);
        r.n++;
    }
    llama_free(ctx);
    return r;
}

static bool same_text(const struct run * a, const struct run * b) {
    return a->n == b->n && memcmp(a->tokens, b->tokens, (size_t) a->n * sizeof a->tokens[0]) == 0;
}

/* The device's output of the step just decoded in `backend_ctx` against
 * `cpu_chain` applied to the raw logits of `cpu_ctx`; returns the largest
 * difference of a probability. */
static double compare_step(const char * label, int step, struct llama_context * backend_ctx,
                           struct llama_context * cpu_ctx, struct llama_sampler * cpu_chain, int n_vocab) {
    const float * raw = llama_get_logits_ith(cpu_ctx, -1);
    llama_token_data * cur = malloc((size_t) n_vocab * sizeof(llama_token_data));
    for (int i = 0; i < n_vocab; i++) {
        cur[i] = (llama_token_data) { i, raw[i], 0.0f };
    }
    llama_token_data_array arr = { cur, (size_t) n_vocab, -1, false };
    llama_sampler_apply(cpu_chain, &arr);

    const uint32_t n_out = llama_get_sampled_logits_count_ith(backend_ctx, -1);
    const float * out_logits = llama_get_sampled_logits_ith(backend_ctx, -1);
    const llama_token * out_ids = llama_get_sampled_candidates_ith(backend_ctx, -1);
    /* A whole row that no sampler shrank has no candidates of its own:
     * llama.cpp then hands out the vocabulary's ids. */
    const size_t n_ids = llama_get_sampled_candidates_count_ith(backend_ctx, -1);
    CHECK(out_logits != NULL && out_ids != NULL && (n_ids == n_out || (n_ids == 0 && n_out == (uint32_t) n_vocab)),
          "%s step %d: the backend left no logits or candidates", label, step);
    double worst = INFINITY;
    if (out_logits && out_ids) {
        worst = compare_backend_output(label, step, out_logits, out_ids, n_out, &arr, raw, true);
    }
    free(cur);
    return worst;
}

/* For a preset without absorption: the same steps of a greedy continuation
 * in a backend-sampling context and a CPU context, compared step by step. */
static void compare_preset(struct llama_model * model, const struct llama_scatter_params * params,
                           enum before before, const char * label) {
    struct llama_sampler * backend_scatter = NULL;
    struct llama_sampler * cpu_scatter = NULL;
    struct llama_sampler * backend_chain = chain_before(params, before, TAIL_NONE, &backend_scatter);
    struct llama_sampler * cpu_chain = chain_before(params, before, TAIL_NONE, &cpu_scatter);
    struct llama_context * backend_ctx = context_for(model, backend_chain);
    struct llama_context * cpu_ctx = context_for(model, NULL);
    if (backend_ctx && cpu_ctx) {
        CHECK(strcmp(llama_sampler_name(backend_scatter), "+scatter") == 0, "%s is named %s on the backend",
              label, llama_sampler_name(backend_scatter));
        const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model));
        llama_token tokens[64 + N_COMPARE];
        int n = tokenize_prompt(model, tokens, 64);
        int start = 0;
        double worst = 0.0;
        for (int step = 0; step < N_COMPARE; step++) {
            if (llama_decode(backend_ctx, llama_batch_get_one(tokens + start, n - start)) != 0 ||
                llama_decode(cpu_ctx, llama_batch_get_one(tokens + start, n - start)) != 0) {
                CHECK(false, "%s: decode failed at step %d", label, step);
                break;
            }
            worst = fmax(worst, compare_step(label, step, backend_ctx, cpu_ctx, cpu_chain, n_vocab));
            const float * raw = llama_get_logits_ith(cpu_ctx, -1);
            llama_token next = 0;
            for (int i = 1; i < n_vocab; i++) {
                next = raw[i] > raw[next] ? i : next;
            }
            start = n;
            tokens[n++] = next;
        }
        CHECK(worst <= BACKEND_TOLERANCE, "%s: a probability differs by %.3g between backend and CPU", label, worst);
        printf("%s: largest difference of a probability, backend vs CPU: %.3g\n", label, worst);
        struct llama_scatter_stats b;
        struct llama_scatter_stats c;
        llama_sampler_scatter_stats(backend_scatter, &b);
        llama_sampler_scatter_stats(cpu_scatter, &c);
        CHECK(b.n_apply == N_COMPARE && b.n_apply == c.n_apply && b.n_fired == c.n_fired,
              "%s: the backend counted %llu applies (%llu fired), the CPU %llu (%llu)", label,
              (unsigned long long) b.n_apply, (unsigned long long) b.n_fired, (unsigned long long) c.n_apply,
              (unsigned long long) c.n_fired);
    }
    if (backend_ctx) {
        llama_free(backend_ctx);
    }
    if (cpu_ctx) {
        llama_free(cpu_ctx);
    }
    llama_sampler_free(backend_chain);
    llama_sampler_free(cpu_chain);
}

/* Two sequences with a gated scatter on the backend, only the first one
 * decoded: llama.cpp still builds the idle one's apply (on a placeholder
 * row) without ever setting its gate; that must run harmlessly. */
static void idle_sequence_is_harmless(struct llama_model * model) {
    struct llama_scatter_params collision;
    CHECK(llama_scatter_preset_params("collision", &collision), "no collision preset");
    collision.seed = 5;
    struct llama_sampler * scatter[2];
    struct llama_sampler * chains[2] = { chain_with(&collision, TAIL_DIST, &scatter[0]),
                                         chain_with(&collision, TAIL_DIST, &scatter[1]) };
    struct llama_sampler_seq_config configs[2] = { { 0, chains[0] }, { 1, chains[1] } };
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512;
    cp.n_seq_max = 2;
    cp.samplers = configs;
    cp.n_samplers = 2;
    struct llama_context * ctx = llama_init_from_model(model, cp);
    CHECK(ctx != NULL, "no two-sequence context");
    if (ctx) {
        llama_token tokens[64 + 8];
        int n = tokenize_prompt(model, tokens, 64);
        int start = 0;
        int sampled = 0;
        for (int step = 0; step < 8 && llama_decode(ctx, llama_batch_get_one(tokens + start, n - start)) == 0; step++) {
            const llama_token t = llama_get_sampled_token_ith(ctx, -1);
            sampled += t != LLAMA_TOKEN_NULL;
            start = n;
            tokens[n++] = t == LLAMA_TOKEN_NULL ? 0 : t;
        }
        CHECK(sampled == 8, "sequence 0 sampled %d of 8 tokens on the backend beside an idle sequence", sampled);
        struct llama_scatter_stats idle;
        llama_sampler_scatter_stats(scatter[1], &idle);
        CHECK(idle.n_apply == 0, "the idle sequence's scatter drew %llu gates", (unsigned long long) idle.n_apply);
        llama_free(ctx);
    }
    llama_sampler_free(chains[0]);
    llama_sampler_free(chains[1]);
}

int main(int argc, char ** argv) {
    struct llama_model * model = model_load(argc, argv);
    if (!model) {
        return harness_finish("test_backend_sampling");
    }

    struct llama_sampler * scatter = NULL;
    struct llama_sampler * plain = chain_with(NULL, TAIL_DIST, &scatter);
    const struct run without = generate(model, plain, true);
    CHECK(without.n > 0 && without.on_backend == without.steps,
          "the chain without scatter sampled %d of %d steps on the backend", without.on_backend, without.steps);

    const struct llama_scatter_params off = llama_scatter_default_params();
    struct llama_sampler * with_noop = chain_with(&off, TAIL_DIST, &scatter);
    const struct run noop = generate(model, with_noop, true);
    CHECK(noop.on_backend == without.on_backend,
          "with a disabled scatter %d steps were sampled on the backend, without it %d", noop.on_backend,
          without.on_backend);
    CHECK(same_text(&noop, &without), "a disabled scatter changed the backend-sampled text");

    struct llama_scatter_params creative = llama_scatter_default_params();
    for (size_t i = 0; i < presets_count(); i++) {
        const struct llama_scatter_params p = preset_with_seed(i, 7);
        if (p.absorption <= 0.0f) {
            compare_preset(model, &p, BEFORE_TOP_K, llama_scatter_preset_name(i));
        }
        if (strcmp(llama_scatter_preset_name(i), "creative") == 0) {
            creative = p;
        }
    }
    compare_preset(model, &creative, BEFORE_TOP_K_MASKS, "creative after top_p and min_p");
    for (size_t i = 0; i < presets_count(); i++) {
        const struct llama_scatter_params p = preset_with_seed(i, 7);
        const char * name = llama_scatter_preset_name(i);
        if (strcmp(name, "adaptive") == 0 || strcmp(name, "collision") == 0) {
            char label[64];
            snprintf(label, sizeof label, "%s after top_p and min_p", name);
            compare_preset(model, &p, BEFORE_TOP_K_MASKS, label);
            snprintf(label, sizeof label, "%s on the whole vocabulary", name);
            compare_preset(model, &p, BEFORE_NOTHING, label);
        }
    }
    creative.k = 16;
    compare_preset(model, &creative, BEFORE_TOP_K, "creative, k 16");
    creative.k = 64;
    creative.steps = 3;
    creative.radius = 6.0f;
    compare_preset(model, &creative, BEFORE_TOP_K, "creative, steps 3, radius 6");
    creative.steps = 1;
    creative.radius = 2.5f;

    idle_sequence_is_harmless(model);

    struct llama_sampler * active_chain = chain_with(&creative, TAIL_DIST, &scatter);
    const struct run active = generate(model, active_chain, true);
    struct llama_scatter_stats stats;
    CHECK(llama_sampler_scatter_stats(scatter, &stats), "no stats from the active scatter");
    CHECK(active.n > 0 && active.on_backend == active.steps, "creative: %d of %d steps sampled on the backend",
          active.on_backend, active.steps);
    CHECK(stats.n_apply == (uint64_t) active.steps && stats.n_fired == stats.n_apply,
          "scatter counted %llu applies (fired %llu) on %d steps", (unsigned long long) stats.n_apply,
          (unsigned long long) stats.n_fired, active.steps);

    struct llama_sampler * greedy_plain = chain_with(NULL, TAIL_GREEDY, &scatter);
    struct llama_sampler * greedy_scattered = chain_with(&creative, TAIL_GREEDY, &scatter);
    const struct run greedy_without = generate(model, greedy_plain, true);
    const struct run greedy_with = generate(model, greedy_scattered, true);
    CHECK(greedy_with.on_backend == greedy_with.steps && same_text(&greedy_with, &greedy_without),
          "greedy text with scatter on the backend differs (%d of %d steps there)", greedy_with.on_backend,
          greedy_with.steps);

    struct llama_scatter_params absorbing;
    CHECK(llama_scatter_preset_params("adaptive-absorb", &absorbing), "no adaptive-absorb preset");
    absorbing.seed = 99;
    struct llama_sampler * absorbing_chain = chain_with(&absorbing, TAIL_DIST, &scatter);
    const struct run fallen = generate(model, absorbing_chain, true);
    CHECK(strcmp(llama_sampler_name(scatter), "-scatter") == 0, "absorbing scatter is named %s",
          llama_sampler_name(scatter));
    CHECK(llama_sampler_scatter_stats(scatter, &stats), "no stats from the absorbing scatter");
    CHECK(fallen.n > 0 && fallen.on_backend == 0,
          "absorption must make the chain fall back to the CPU: %d of %d steps sampled on the backend",
          fallen.on_backend, fallen.steps);
    CHECK(stats.n_apply == (uint64_t) fallen.steps && stats.n_scattered == stats.n_apply,
          "scatter ran %llu times (scattered %llu) on %d steps", (unsigned long long) stats.n_apply,
          (unsigned long long) stats.n_scattered, fallen.steps);
    struct llama_sampler * cpu_chain = chain_with(&absorbing, TAIL_DIST, &scatter);
    const struct run cpu = generate(model, cpu_chain, false);
    CHECK(same_text(&fallen, &cpu), "the fallen-back chain and the CPU chain generated different text");

    llama_sampler_free(plain);
    llama_sampler_free(with_noop);
    llama_sampler_free(active_chain);
    llama_sampler_free(greedy_plain);
    llama_sampler_free(greedy_scattered);
    llama_sampler_free(absorbing_chain);
    llama_sampler_free(cpu_chain);
    model_free(model);
    return harness_finish("test_backend_sampling");
}
