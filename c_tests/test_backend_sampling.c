/* Scatter in chains that llama.cpp runs on the backend (backend sampling:
 * a context made with sampler chains in llama_context_params.samplers),
 * with a real model (argv[1]) on the CPU backend:
 *  - a disabled scatter is invisible there: a chain holding one samples
 *    every token on the backend, and the same tokens as the chain without
 *    it (llama.cpp's own disabled samplers behave so);
 *  - an active scatter is not run on the backend: the chain falls back to
 *    the CPU at scatter, scatter runs on every step there, and the text is
 *    the text of the same chain in a context without backend sampling. */
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/model.h"

enum { N_PREDICT = 24 };

static const char PROMPT[] = "Once upon a time, in a village by the sea,";

/* top_k 40 -> [scatter] -> temp 0.8 -> dist; *scatter_out gets the scatter
 * sampler (owned by the chain) or NULL. */
static struct llama_sampler * chain_with(const struct llama_scatter_params * scatter,
                                         struct llama_sampler ** scatter_out) {
    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    *scatter_out = NULL;
    if (scatter) {
        *scatter_out = llama_sampler_init_scatter_params(scatter);
        llama_sampler_chain_add(chain, *scatter_out);
    }
    llama_sampler_chain_add(chain, llama_sampler_init_temp(0.8f));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(1234));
    return chain;
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
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 256;
    struct llama_sampler_seq_config config = { 0, chain };
    if (backend) {
        cp.samplers = &config;
        cp.n_samplers = 1;
    }
    struct llama_context * ctx = llama_init_from_model(model, cp);
    CHECK(ctx != NULL, "no context (backend sampling %d)", (int) backend);
    if (!ctx) {
        return r;
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    llama_token prompt[64];
    const int n_prompt = llama_tokenize(vocab, PROMPT, (int32_t) strlen(PROMPT), prompt, 64, true, true);
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

int main(int argc, char ** argv) {
    struct llama_model * model = model_load(argc, argv);
    if (!model) {
        return harness_finish("test_backend_sampling");
    }

    struct llama_sampler * scatter = NULL;
    struct llama_sampler * plain = chain_with(NULL, &scatter);
    const struct run without = generate(model, plain, true);
    CHECK(without.n > 0 && without.on_backend == without.steps,
          "the chain without scatter sampled %d of %d steps on the backend", without.on_backend, without.steps);

    const struct llama_scatter_params off = llama_scatter_default_params();
    struct llama_sampler * with_noop = chain_with(&off, &scatter);
    const struct run noop = generate(model, with_noop, true);
    CHECK(noop.on_backend == without.on_backend,
          "with a disabled scatter %d steps were sampled on the backend, without it %d", noop.on_backend,
          without.on_backend);
    CHECK(same_text(&noop, &without), "a disabled scatter changed the backend-sampled text");

    struct llama_scatter_params creative;
    CHECK(llama_scatter_preset_params("creative", &creative), "no creative preset");
    creative.seed = 99;
    struct llama_sampler * active_chain = chain_with(&creative, &scatter);
    const struct run active = generate(model, active_chain, true);
    struct llama_scatter_stats stats;
    CHECK(llama_sampler_scatter_stats(scatter, &stats), "no stats from the active scatter");
    CHECK(active.n > 0 && active.on_backend == 0,
          "an active scatter must make the chain fall back to the CPU: %d of %d steps sampled on the backend",
          active.on_backend, active.steps);
    CHECK(stats.n_apply == (uint64_t) active.steps && stats.n_scattered == stats.n_apply,
          "scatter ran %llu times (scattered %llu) on %d steps", (unsigned long long) stats.n_apply,
          (unsigned long long) stats.n_scattered, active.steps);

    struct llama_sampler * cpu_chain = chain_with(&creative, &scatter);
    const struct run cpu = generate(model, cpu_chain, false);
    CHECK(same_text(&active, &cpu), "the fallen-back chain and the CPU chain generated different text");

    llama_sampler_free(plain);
    llama_sampler_free(with_noop);
    llama_sampler_free(active_chain);
    llama_sampler_free(cpu_chain);
    model_free(model);
    return harness_finish("test_backend_sampling");
}
