// The scatter sampler (llama-scatter) in llama-server: the scatter_* request fields, their echo
// in every response and in /props, and whether scatter ran on the backend. Header-only, so that
// no build file of the server needs a change; the upstream files call these from one-line hooks
// (integration/llama.cpp/hooks.patch).
#pragma once

#include "scatter.h"
#include "server-schema.h"

#include <atomic>
#include <functional>
#include <iterator>
#include <string>
#include <vector>

// The scatter_* fields of a completion request, added to make_llama_cmpl_schema's list.
inline void server_scatter_add_fields(const std::function<void(server_schema::field *)> & add) {
    using namespace server_schema;
    add((new field_str("scatter_preset"))
        ->set_desc("Set every scatter_* value to a preset of the scatter library (the names are listed by --help under --scatter-preset, and by the error for an unknown one); scatter_* fields in the same request override it")
        ->set_handler([](field_eval_context & ctx, const json & data) {
            common_scatter_set_preset(ctx.params.sampling, data.at("scatter_preset"));
        }));

    // The schema keeps pointers to the descriptions: made once, for the life of the process.
    static const std::vector<std::string> descs = [] {
        std::vector<std::string> all;
        for (const common_scatter_field & f : common_scatter_fields) {
            all.push_back("Scatter: " + std::string(f.help));
        }
        return all;
    }();
    for (size_t i = 0; i < std::size(common_scatter_fields); i++) {
        const common_scatter_field & f = common_scatter_fields[i];
        add((new field_str(f.name))->set_desc(descs[i].c_str())->set_handler([&f](field_eval_context & ctx, const json & data) {
            common_scatter_json_set(f, data.at(f.name), ctx.params.sampling.scatter.params);
        }));
    }
}

// task_params::to_json's result with the scatter settings added: the same fields in /props and
// in every response. scatter_enabled: whether scatter runs in this chain; scatter_backend:
// whether it runs on the backend.
inline json server_scatter_settings(const common_params_sampling & sampling, json res) {
    res["scatter_enabled"] = common_scatter_runs(sampling);
    res["scatter_backend"] = sampling.scatter.backend;
    for (const common_scatter_field & f : common_scatter_fields) {
        res[f.name] = common_scatter_json_get(f, sampling.scatter.params);
    }
    return res;
}

// Whether the default chain (the one set up at load, which /props describes) runs scatter on the
// backend. A process serves one model, and /props is answered from a copy of the parameters
// (also while the model sleeps), so the load records it here rather than in a member of
// llama.cpp's own structs.
inline std::atomic<bool> server_scatter_default_backend{false};

// At load: records where the default chain runs scatter.
inline void server_scatter_note_default_chain(const common_params_sampling & sampling, const common_sampler * smpl) {
    server_scatter_default_backend = sampling.backend_sampling && common_scatter_on_backend(smpl);
}

// Per request, once the slot's chain is attached: whether this request's scatter runs on the backend.
inline void server_scatter_note_request(common_params_sampling & sampling, bool use_backend_sampling, const common_sampler * smpl) {
    sampling.scatter.backend = use_backend_sampling && common_scatter_on_backend(smpl);
}

// For /props: the default chain's value.
inline void server_scatter_props(common_params_sampling & sampling) {
    sampling.scatter.backend = server_scatter_default_backend;
}
