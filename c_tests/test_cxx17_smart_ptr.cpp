// A C++17 consumer: the header together with llama.cpp's llama-cpp.h smart
// pointers. Scatter samplers owned by llama_sampler_ptr, one handed over to
// a chain (which then owns it), a clone, and the result of a chain apply.
#include "llama-cpp.h"
#include "llama-scatter.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

static int failures = 0;

static void check(bool ok, const char * what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL %s\n", what);
        ++failures;
    }
}

int main() {
    llama_sampler_ptr chain(llama_sampler_chain_init(llama_sampler_chain_default_params()));
    llama_sampler_ptr scatter(llama_sampler_init_scatter(64, 0.18f, 2.5f, 1));
    check(scatter != nullptr && std::strcmp(llama_sampler_name(scatter.get()), "scatter") == 0, "scatter name");

    llama_sampler_ptr copy(llama_sampler_clone(scatter.get()));
    check(copy != nullptr && std::strcmp(llama_sampler_name(copy.get()), "scatter") == 0, "clone name");

    llama_sampler_chain_add(chain.get(), llama_sampler_init_top_k(40));
    llama_sampler_chain_add(chain.get(), scatter.release()); // the chain owns it now
    check(llama_sampler_chain_n(chain.get()) == 2, "chain length");

    std::vector<llama_token_data> data;
    for (int i = 0; i < 100; ++i) {
        data.push_back({ i, 10.0f - 0.1f * static_cast<float>(i), 0.0f });
    }
    llama_token_data_array arr = { data.data(), data.size(), -1, false };
    llama_sampler_apply(chain.get(), &arr);
    check(arr.size == 40, "top_k 40 then scatter keeps 40");
    double sum = 0.0;
    for (size_t i = 0; i < arr.size; ++i) {
        sum += arr.data[i].p;
        check(arr.data[i].id == static_cast<llama_token>(i), "ranking kept");
    }
    check(std::fabs(sum - 1.0) < 1e-5, "probabilities sum to 1");

    llama_sampler_ptr off(llama_sampler_init_scatter(64, 0.0f, 2.5f, 1));
    check(std::strcmp(llama_sampler_name(off.get()), "?scatter") == 0, "strength 0 is the no-op ?scatter");

    std::printf("%s\n", failures ? "FAILED" : "passed");
    return failures ? 1 : 0;
}
