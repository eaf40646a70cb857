/* llama_sampler_scatter_stats: counters of a scatter sampler found in a
 * chain; false and zeros for anything that is not a scatter sampler. */
#include <math.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"

enum { N = 200, STEPS = 2000 };

static void apply_row(struct llama_sampler * chain) {
    static llama_token_data data[N];
    for (int i = 0; i < N; i++) {
        data[i] = (llama_token_data){ i, -0.05f * (float) i, 0.0f };
    }
    llama_token_data_array arr = { data, N, -1, false };
    llama_sampler_apply(chain, &arr);
}

int main(void) {
    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    struct llama_scatter_params p = llama_scatter_default_params();
    llama_scatter_preset_params("adaptive", &p);
    p.collision = 0.5f;
    p.seed = 17;
    llama_sampler_chain_add(chain, llama_sampler_init_scatter_params(&p));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(17));
    for (int t = 0; t < STEPS; t++) {
        apply_row(chain);
    }

    struct llama_scatter_stats st;
    CHECK(llama_sampler_scatter_stats(llama_sampler_chain_get(chain, 1), &st), "scatter in a chain not recognised");
    CHECK(st.n_apply == STEPS, "n_apply %llu", (unsigned long long) st.n_apply);
    CHECK(st.n_fired == st.n_scattered, "fired %llu, scattered %llu", (unsigned long long) st.n_fired,
          (unsigned long long) st.n_scattered);
    const double rate = (double) st.n_fired / STEPS;
    CHECK(fabs(rate - 0.5) < 0.05, "firing rate %f at collision 0.5", rate);
    const double mean = st.strength_sum / (double) st.n_scattered;
    CHECK(mean >= 0.02 && mean <= 0.30, "adaptive mean strength %f outside [0.02, 0.30]", mean);

    struct llama_sampler * copy = llama_sampler_clone(llama_sampler_chain_get(chain, 1));
    struct llama_scatter_stats st_copy;
    CHECK(llama_sampler_scatter_stats(copy, &st_copy) && memcmp(&st, &st_copy, sizeof st) == 0,
          "clone does not carry the counters");
    llama_sampler_reset(copy);
    CHECK(llama_sampler_scatter_stats(copy, &st_copy) && st_copy.n_apply == 0 && st_copy.strength_sum == 0.0,
          "reset does not clear the counters");

    st.n_apply = 99;
    CHECK(!llama_sampler_scatter_stats(llama_sampler_chain_get(chain, 0), &st) && st.n_apply == 0,
          "top_k taken for a scatter sampler");
    CHECK(!llama_sampler_scatter_stats(chain, &st), "a chain taken for a scatter sampler");
    CHECK(!llama_sampler_scatter_stats(NULL, &st), "NULL sampler");
    CHECK(!llama_sampler_scatter_stats(copy, NULL), "NULL out");

    struct llama_sampler * off = llama_sampler_init_scatter(64, 0.0f, 2.5f, 1);
    apply_row(off);
    CHECK(llama_sampler_scatter_stats(off, &st) && st.n_apply == 0, "a disabled scatter sampler counts");

    llama_sampler_free(off);
    llama_sampler_free(copy);
    llama_sampler_free(chain);
    return harness_finish("test_stats");
}
