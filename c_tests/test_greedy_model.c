/* SPEC §5 "argmax preserved", end to end: with a real model (argv[1]) and
 * greedy decoding, the text generated through
 *   top_k 40 -> top_p 0.95 -> min_p 0.05 -> scatter -> greedy
 * is token-for-token the text generated without scatter, for every preset
 * without absorption (absorption may reorder repeated tokens by design). */
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"
#include "support/model.h"
#include "support/presets.h"

enum { N_PREDICT = 32 };

static const char * const PROMPTS[] = {
    "The capital of France is",
    "Once upon a time, in a village by the sea,",
    "def fibonacci(n):",
};

/* with_scatter: NULL for the chain without scatter. */
static struct llama_sampler * greedy_chain(const struct llama_scatter_params * with_scatter) {
    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    llama_sampler_chain_add(chain, llama_sampler_init_top_p(0.95f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_min_p(0.05f, 1));
    if (with_scatter) {
        llama_sampler_chain_add(chain, llama_sampler_init_scatter_params(with_scatter));
    }
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    return chain;
}

/* Generates N_PREDICT tokens (fewer at end of generation) into out;
 * returns how many. */
static int generate(struct llama_context * ctx, const struct llama_vocab * vocab, const char * prompt,
                    struct llama_sampler * chain, llama_token * out) {
    llama_memory_clear(llama_get_memory(ctx), true);
    llama_token tokens[256];
    const int n_prompt = llama_tokenize(vocab, prompt, (int32_t) strlen(prompt), tokens, 256, true, true);
    if (n_prompt <= 0) {
        return 0;
    }
    struct llama_batch batch = llama_batch_get_one(tokens, n_prompt);
    int n = 0;
    while (n < N_PREDICT) {
        if (llama_decode(ctx, batch) != 0) {
            break;
        }
        out[n] = llama_sampler_sample(chain, ctx, -1);
        if (llama_vocab_is_eog(vocab, out[n])) {
            break;
        }
        batch = llama_batch_get_one(&out[n], 1);
        n++;
    }
    return n;
}

int main(int argc, char ** argv) {
    struct llama_model * model = model_load(argc, argv);
    if (!model) {
        return harness_finish("test_greedy_model");
    }
    const struct llama_vocab * vocab = llama_model_get_vocab(model);
    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 512;
    struct llama_context * ctx = llama_init_from_model(model, cp);

    llama_token plain[N_PREDICT], scattered[N_PREDICT];
    for (size_t i = 0; i < sizeof PROMPTS / sizeof PROMPTS[0]; i++) {
        struct llama_sampler * base = greedy_chain(NULL);
        const int n_plain = generate(ctx, vocab, PROMPTS[i], base, plain);
        CHECK(n_plain > 0, "no tokens generated for \"%s\"", PROMPTS[i]);
        llama_sampler_free(base);
        for (size_t preset = 0; preset < presets_count(); preset++) {
            const struct llama_scatter_params p = preset_with_seed(preset, 42);
            if (p.absorption > 0.0f) {
                continue;
            }
            struct llama_sampler * chain = greedy_chain(&p);
            const int n = generate(ctx, vocab, PROMPTS[i], chain, scattered);
            CHECK(n == n_plain && memcmp(plain, scattered, (size_t) n * sizeof *plain) == 0,
                  "preset %s changed the greedy text of \"%s\"", llama_scatter_preset_name(preset),
                  PROMPTS[i]);
            llama_sampler_free(chain);
        }
    }
    llama_free(ctx);
    model_free(model);
    return harness_finish("test_greedy_model");
}
