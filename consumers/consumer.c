/* An application built against an installed llama-scatter only: it makes a
 * scatter sampler, applies it through a llama.cpp chain and checks the
 * result. Built by consumers/test-consumers.sh with find_package and with
 * pkg-config, against the shared and the static library. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "llama-scatter.h"

int main(void) {
    int failed = 0;
    if (strcmp(llama_scatter_version(), LLAMA_SCATTER_VERSION_STRING) != 0) {
        fprintf(stderr, "library %s, header %s\n", llama_scatter_version(), LLAMA_SCATTER_VERSION_STRING);
        failed++;
    }

    struct llama_sampler * chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(40));
    llama_sampler_chain_add(chain, llama_sampler_init_scatter(64, 0.18f, 2.5f, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(1234));

    llama_token_data data[100];
    for (int i = 0; i < 100; i++) {
        data[i] = (llama_token_data){ 99 - i, (float) i * 0.1f, 0.0f };
    }
    llama_token_data_array arr = { data, 100, -1, false };
    llama_sampler_apply(chain, &arr);

    if (arr.size != 40 || arr.selected < 0 || arr.selected >= (int64_t) arr.size) {
        fprintf(stderr, "size %zu, selected %lld\n", arr.size, (long long) arr.selected);
        failed++;
    } else {
        double sum = 0.0;
        for (size_t i = 0; i < arr.size; i++) {
            sum += arr.data[i].p;
            if (i > 0 && arr.data[i].p > arr.data[i - 1].p) {
                failed++;
            }
        }
        if (fabs(sum - 1.0) > 1e-5 || arr.data[0].id != 0) {
            fprintf(stderr, "sum %f, top token %d\n", sum, arr.data[0].id);
            failed++;
        }
    }
    if (strcmp(llama_sampler_name(llama_sampler_chain_get(chain, 1)), "scatter") != 0) {
        failed++;
    }
    llama_sampler_free(chain);
    printf("consumer of llama-scatter %s: %s\n", llama_scatter_version(), failed ? "FAILED" : "ok");
    return failed ? 1 : 0;
}
