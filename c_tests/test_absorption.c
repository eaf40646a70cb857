/* Absorption (SPEC §4.5) against values computed by hand from the
 * formula p_i <- p_i * exp(-absorption * c_i), renormalised. */
#include <math.h>
#include <string.h>

#include "llama-scatter.h"
#include "support/harness.h"

static void set_row(llama_token_data * row) {
    const float logits[4] = { 2.0f, 1.5f, 1.0f, 0.5f };
    for (int i = 0; i < 4; i++) {
        row[i].id = 10 + i;
        row[i].logit = logits[i];
        row[i].p = 0.0f;
    }
}

int main(void) {
    /* Absorption alone (strength 0): window 4 keeps [11, 11, 13, 11] of
     * the six accepted tokens, so c = {0, 3, 0, 1}; with rate 0.7 the
     * weights are e^0, e^(-0.5-2.1), e^-1, e^(-1.5-0.7): 11 drops to last. */
    struct llama_scatter_params p = llama_scatter_default_params();
    p.absorption = 0.7f;
    p.absorption_last_n = 4;
    p.seed = 1;
    struct llama_sampler * s = llama_sampler_init_scatter_params(&p);
    CHECK(strcmp(llama_sampler_name(s), "scatter") == 0, "absorption alone must activate scatter");
    const llama_token accepted[] = { 10, 12, 11, 11, 13, 11 };
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        llama_sampler_accept(s, accepted[i]);
    }
    llama_token_data row[4];
    set_row(row);
    llama_token_data_array arr = { row, 4, -1, false };
    llama_sampler_apply(s, &arr);

    const double w10 = 1.0, w11 = exp(-2.6), w12 = exp(-1.0), w13 = exp(-2.2);
    const double z = w10 + w11 + w12 + w13;
    const int32_t ids[4] = { 10, 12, 13, 11 };
    const double expected[4] = { w10 / z, w12 / z, w13 / z, w11 / z };
    CHECK(arr.size == 4 && arr.sorted, "size %zu sorted %d", arr.size, arr.sorted);
    for (int i = 0; i < 4; i++) {
        CHECK(row[i].id == ids[i], "rank %d holds token %d, expected %d", i, row[i].id, ids[i]);
        CHECK(fabs((double) row[i].p - expected[i]) < 1e-7, "token %d: p %.9f, expected %.9f", row[i].id,
              (double) row[i].p, expected[i]);
        CHECK(fabs((double) row[i].logit - log(expected[i])) < 1e-6, "token %d: logit %.7f, expected %.7f",
              row[i].id, (double) row[i].logit, log(expected[i]));
    }

    /* After reset the history is empty: the plain softmax comes back. */
    llama_sampler_reset(s);
    set_row(row);
    arr.size = 4;
    llama_sampler_apply(s, &arr);
    double zs = 0.0;
    for (int i = 0; i < 4; i++) {
        zs += exp(0.5 * -i);
    }
    for (int i = 0; i < 4; i++) {
        CHECK(row[i].id == 10 + i && fabs((double) row[i].p - exp(-0.5 * i) / zs) < 1e-7,
              "after reset rank %d: token %d p %.9f", i, row[i].id, (double) row[i].p);
    }

    /* Tokens leave the window: four fresh tokens push every count to 0. */
    const llama_token fresh[] = { 11, 13, 99, 98, 97, 96 };
    for (size_t i = 0; i < sizeof fresh / sizeof fresh[0]; i++) {
        llama_sampler_accept(s, fresh[i]);
    }
    set_row(row);
    arr.size = 4;
    llama_sampler_apply(s, &arr);
    CHECK(row[0].id == 10 && row[1].id == 11 && row[2].id == 12 && row[3].id == 13,
          "tokens outside the window must not be damped");

    llama_sampler_free(s);
    return harness_finish("test_absorption");
}
