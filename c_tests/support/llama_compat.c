#include "llama_compat.h"

struct llama_sampler * compat_penalties(int32_t n_vocab, int32_t last_n, float repeat) {
#if LLAMA_PENALTIES_ARGS == 9
    /* eos 1, linefeed 0 (any valid ids), newlines penalised, eos kept */
    return llama_sampler_init_penalties(n_vocab, 1, 0, last_n, repeat, 0.0f, 0.0f, true, false);
#elif LLAMA_PENALTIES_ARGS == 4
    /* This generation's penalties clone copies the token ring but not the
     * token counts (llama.cpp 4227c9b, llama_sampler_penalties_clone), so a
     * cloned chain diverges from its original through llama.cpp alone: the
     * penalty is kept neutral, the sampler stays in the chain. */
    (void) n_vocab;
    (void) repeat;
    return llama_sampler_init_penalties(last_n, 1.0f, 0.0f, 0.0f);
#else
    return llama_sampler_init_penalties(n_vocab, last_n, repeat, 0.0f, 0.0f);
#endif
}

void compat_chain_add_top_n_sigma(struct llama_sampler * chain) {
#ifdef LLAMA_HAS_TOP_N_SIGMA
    llama_sampler_chain_add(chain, llama_sampler_init_top_n_sigma(-1.0f));
#else
    (void) chain;
#endif
}
