// The scatter sampler (llama-scatter) in llama-server: the scatter_* request fields, their echo
// in every response and in /props, and whether scatter ran on the backend. Header-only, so that
// no build file of the server needs a change; the upstream files call these from one-line hooks
// (integration/llama.cpp/hooks.patch).
#pragma once

#include "scatter.h"
#include "server-schema.h"

#include <atomic>
#include <functional>

// A scatter_* number field, read strictly (common/scatter.h); a field_str holds no value of
// its own, the handler sets the member.
template <typename T>
inline server_schema::field * server_scatter_field(const char * name, T llama_scatter_params::* member, T lo, T hi, const char * desc) {
    return (new server_schema::field_str(name))->set_desc(desc)->set_handler([=](server_schema::field_eval_context & ctx, const json & data) {
        ctx.params.sampling.scatter.params.*member = common_scatter_json_number(data.at(name), lo, hi);
    });
}

// The scatter_* fields of a completion request, added to make_llama_cmpl_schema's list.
inline void server_scatter_add_fields(const std::function<void(server_schema::field *)> & add, task_params & params) {
    using namespace server_schema;
    add((new field_str("scatter_preset"))
        ->set_desc("Set every scatter_* value to a preset of the scatter library (the names are listed by --help under --scatter-preset, and by the error for an unknown one); scatter_* fields in the same request override it")
        ->set_handler([](field_eval_context & ctx, const json & data) {
            const json & name = data.at("scatter_preset");
            if (!name.is_string() || !common_scatter_apply_preset(ctx.params.sampling, name.get<std::string>())) {
                throw std::invalid_argument("unknown scatter preset " + common_scatter_json_shown(name) + ", expected one of: " + common_scatter_preset_names());
            }
        }));

    add(server_scatter_field("scatter_k", &llama_scatter_params::k, 0, COMMON_SCATTER_K_MAX,
        "Scatter: size of the medium, the top-K candidates that take part (<= 1 = disabled)"));
    add(server_scatter_field("scatter_strength", &llama_scatter_params::strength, 0.0f, 1.0f,
        "Scatter: blend of the direct (0) and the rank-smoothed (1) distribution (0 = disabled)"));
    add(server_scatter_field("scatter_radius", &llama_scatter_params::radius, 0.0f, COMMON_SCATTER_RADIUS_MAX,
        "Scatter: Gaussian radius in ranks (0 = disabled)"));
    add(server_scatter_field("scatter_steps", &llama_scatter_params::steps, 0, COMMON_SCATTER_STEPS_MAX,
        "Scatter: diffusion passes (0 = disabled)"));
    add((new field_bool("scatter_adaptive", params.sampling.scatter.params.adaptive))
        ->set_handler([](field_eval_context & ctx, const json & data) {
            ctx.params.sampling.scatter.params.adaptive = common_scatter_json_bool(data.at("scatter_adaptive"));
        })
        ->set_desc("Scatter: strength follows the entropy of the medium"));
    add(server_scatter_field("scatter_strength_min", &llama_scatter_params::strength_min, 0.0f, 1.0f,
        "Scatter: lower clamp of the adaptive strength"));
    add(server_scatter_field("scatter_strength_max", &llama_scatter_params::strength_max, 0.0f, 1.0f,
        "Scatter: upper clamp of the adaptive strength"));
    add(server_scatter_field("scatter_entropy_target", &llama_scatter_params::entropy_target, 0.0f, 1.0f,
        "Scatter: normalised entropy at which adaptive mode uses scatter_strength"));
    add(server_scatter_field("scatter_absorption", &llama_scatter_params::absorption, 0.0f, COMMON_SCATTER_ABSORPTION_MAX,
        "Scatter: repeated-token damping p*exp(-absorption*count) (0 = disabled)"));
    add(server_scatter_field("scatter_absorption_last_n", &llama_scatter_params::absorption_last_n, 0, COMMON_SCATTER_ABSORPTION_LAST_N_MAX,
        "Scatter: history window of absorption in tokens (0 = disabled)"));
    add(server_scatter_field("scatter_collision", &llama_scatter_params::collision, 0.0f, 1.0f,
        "Scatter: probability per token that scattering happens (0 = disabled)"));
}

// task_params::to_json's result with the scatter settings added: the same fields in /props and
// in every response. scatter_enabled: whether scatter runs in this chain; scatter_backend:
// whether it runs on the backend.
inline json server_scatter_settings(const common_params_sampling & sampling, json res) {
    const llama_scatter_params & s = sampling.scatter.params;
    res["scatter_enabled"]           = common_scatter_runs(sampling);
    res["scatter_backend"]           = sampling.scatter.backend;
    res["scatter_k"]                 = s.k;
    res["scatter_strength"]          = s.strength;
    res["scatter_radius"]            = s.radius;
    res["scatter_steps"]             = s.steps;
    res["scatter_adaptive"]          = s.adaptive;
    res["scatter_strength_min"]      = s.strength_min;
    res["scatter_strength_max"]      = s.strength_max;
    res["scatter_entropy_target"]    = s.entropy_target;
    res["scatter_absorption"]        = s.absorption;
    res["scatter_absorption_last_n"] = s.absorption_last_n;
    res["scatter_collision"]         = s.collision;
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
