// llama.cpp without llama_sampler_init() (e.g. the tree in llama-cpp-python
// 0.3.2): a sampler's shell is made by the caller
// with C++ `new`, because llama_sampler_free() releases it with `delete`.
// Built by build.rs (cc crate) only for such a llama.h; see src/ffi/compat.rs.
#include "llama.h"

extern "C" struct llama_sampler * llama_scatter_compat_sampler_init(struct llama_sampler_i * iface,
                                                                      llama_sampler_context_t ctx) {
    return new llama_sampler{ iface, ctx };
}
