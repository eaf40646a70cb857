#include "scatter.h"

#include "arg.h"
#include "common.h"
#include "json.h"
#include "log.h"
#include "sampling.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace {

[[noreturn]] void out_of_range(const std::string & value, double lo, double hi) {
    throw std::invalid_argument(string_format("expected a number in [%.10g, %.10g], got '%s'", lo, hi, value.c_str()));
}

} // namespace

void common_scatter_add_args(const std::function<void(common_arg)> & add_opt, const common_params & params) {
    add_opt(common_arg(
        {"--scatter-preset"}, "NAME",
        string_format("scatter: set every --scatter-* value to a preset: %s (flags after it override it)", common_scatter_preset_names().c_str()),
        [](common_params & params, const std::string & value) {
            if (!common_scatter_apply_preset(params.sampling, value)) {
                throw std::invalid_argument("unknown scatter preset '" + value + "', expected one of: " + common_scatter_preset_names());
            }
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_PRESET"));
    add_opt(common_arg(
        {"--scatter-k"}, "N",
        string_format("scatter: size of the medium, the top-K candidates that take part; <= 1 disables (default: %d)", params.sampling.scatter.params.k),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.k = common_scatter_parse_int(value, 0, COMMON_SCATTER_K_MAX);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_K"));
    add_opt(common_arg(
        {"--scatter-strength"}, "N",
        string_format("scatter: blend of the direct (0) and the rank-smoothed (1) distribution, 0.0 = disabled (default: %.2f)", (double)params.sampling.scatter.params.strength),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.strength = common_scatter_parse_float(value, 0.0f, 1.0f);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_STRENGTH"));
    add_opt(common_arg(
        {"--scatter-radius"}, "N",
        string_format("scatter: Gaussian radius in ranks, larger moves mass across more ranks; 0 disables (default: %.2f)", (double)params.sampling.scatter.params.radius),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.radius = common_scatter_parse_float(value, 0.0f, COMMON_SCATTER_RADIUS_MAX);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_RADIUS"));
    add_opt(common_arg(
        {"--scatter-steps"}, "N",
        string_format("scatter: diffusion passes, n passes ~ one pass of radius*sqrt(n); 0 disables (default: %d)", params.sampling.scatter.params.steps),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.steps = common_scatter_parse_int(value, 0, COMMON_SCATTER_STEPS_MAX);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_STEPS"));
    add_opt(common_arg(
        {"--scatter-adaptive"},
        {"--no-scatter-adaptive"},
        string_format("scatter: strength follows the entropy of the medium (default: %s)", params.sampling.scatter.params.adaptive ? "enabled" : "disabled"),
        [](common_params & params, bool value) {
            params.sampling.scatter.params.adaptive = value;
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_ADAPTIVE"));
    add_opt(common_arg(
        {"--scatter-strength-min"}, "N",
        string_format("scatter: lower clamp of the adaptive strength (default: %.2f)", (double)params.sampling.scatter.params.strength_min),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.strength_min = common_scatter_parse_float(value, 0.0f, 1.0f);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_STRENGTH_MIN"));
    add_opt(common_arg(
        {"--scatter-strength-max"}, "N",
        string_format("scatter: upper clamp of the adaptive strength (default: %.2f)", (double)params.sampling.scatter.params.strength_max),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.strength_max = common_scatter_parse_float(value, 0.0f, 1.0f);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_STRENGTH_MAX"));
    add_opt(common_arg(
        {"--scatter-entropy-target"}, "N",
        string_format("scatter: normalised entropy at which adaptive mode uses --scatter-strength (default: %.2f)", (double)params.sampling.scatter.params.entropy_target),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.entropy_target = common_scatter_parse_float(value, 0.0f, 1.0f);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_ENTROPY_TARGET"));
    add_opt(common_arg(
        {"--scatter-absorption"}, "N",
        string_format("scatter: repeated-token damping p*exp(-N*count), keep it low; 0.0 = disabled (default: %.2f)", (double)params.sampling.scatter.params.absorption),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.absorption = common_scatter_parse_float(value, 0.0f, COMMON_SCATTER_ABSORPTION_MAX);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_ABSORPTION"));
    add_opt(common_arg(
        {"--scatter-absorption-last-n"}, "N",
        string_format("scatter: history window of absorption in tokens; 0 disables (default: %d)", params.sampling.scatter.params.absorption_last_n),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.absorption_last_n = common_scatter_parse_int(value, 0, COMMON_SCATTER_ABSORPTION_LAST_N_MAX);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_ABSORPTION_LAST_N"));
    add_opt(common_arg(
        {"--scatter-collision"}, "N",
        string_format("scatter: probability per token that scattering happens, mean free path ~ 1/N tokens; 0 disables (default: %.2f)", (double)params.sampling.scatter.params.collision),
        [](common_params & params, const std::string & value) {
            params.sampling.scatter.params.collision = common_scatter_parse_float(value, 0.0f, 1.0f);
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_COLLISION"));
}

bool common_scatter_apply_preset(common_params_sampling & params, const std::string & name) {
    // a name with a NUL inside is no preset, whatever precedes the NUL
    return name.find('\0') == std::string::npos && llama_scatter_preset_params(name.c_str(), &params.scatter.params);
}

std::string common_scatter_preset_names() {
    std::string names;
    for (size_t i = 0; llama_scatter_preset_name(i) != nullptr; i++) {
        names += i == 0 ? "" : ", ";
        names += llama_scatter_preset_name(i);
    }
    return names;
}

float common_scatter_parse_float(const std::string & value, float lo, float hi) {
    size_t used = 0;
    float v = 0.0f;
    try {
        v = std::stof(value, &used);
    } catch (const std::exception &) {
        out_of_range(value, lo, hi);
    }
    if (used != value.size() || !(v >= lo && v <= hi)) {
        out_of_range(value, lo, hi);
    }
    return v;
}

int32_t common_scatter_parse_int(const std::string & value, int32_t lo, int32_t hi) {
    size_t used = 0;
    long long v = 0;
    try {
        v = std::stoll(value, &used);
    } catch (const std::exception &) {
        out_of_range(value, lo, hi);
    }
    if (used != value.size() || v < lo || v > hi) {
        out_of_range(value, lo, hi);
    }
    return (int32_t) v;
}

bool common_scatter_place(common_params_sampling & params) {
    auto & list = params.samplers;
    if (!llama_scatter_params_enabled(&params.scatter.params) ||
        std::find(list.begin(), list.end(), COMMON_SAMPLER_TYPE_SCATTER) != list.end()) {
        return false;
    }
    list.insert(std::find(list.begin(), list.end(), COMMON_SAMPLER_TYPE_TEMPERATURE), COMMON_SAMPLER_TYPE_SCATTER);
    return true;
}

void common_scatter_place_in_cli_chain(common_params_sampling & params) {
    if (common_scatter_place(params)) {
        LOG_WRN("scatter is enabled but the sampler list has none: inserted before temperature "
                "(name it in --samplers or --sampler-seq to place it elsewhere)\n");
    }
}

bool common_scatter_on_backend(const common_sampler * smpl) {
    llama_sampler * chain = common_sampler_get(smpl);
    for (int32_t i = 0; chain && i < llama_sampler_chain_n(chain); i++) {
        if (std::strcmp(llama_sampler_name(llama_sampler_chain_get(chain, i)), "+scatter") == 0) {
            return true;
        }
    }
    return false;
}

bool common_scatter_runs(const common_params_sampling & params) {
    const auto & list = params.samplers;
    return params.mirostat == 0 && llama_scatter_params_enabled(&params.scatter.params) &&
           std::find(list.begin(), list.end(), COMMON_SAMPLER_TYPE_SCATTER) != list.end();
}

std::string common_scatter_json_shown(const common_json & value) {
    const std::string text = value.dump_safe();
    return text.size() <= 64 ? text : text.substr(0, 61) + "...";
}

namespace {

[[noreturn]] void not_in_range(const char * what, const common_json & value, double lo, double hi) {
    throw std::invalid_argument(string_format("expected %s in [%.10g, %.10g], got %s", what, lo, hi,
                                              common_scatter_json_shown(value).c_str()));
}

// The number as a double, before any narrowing; a bool or any other type is rejected.
double json_number(const char * what, const common_json & value, double lo, double hi) {
    if (!value.is_number()) {
        not_in_range(what, value, lo, hi);
    }
    const double v = value.get<double>();
    if (!(v >= lo && v <= hi)) {
        not_in_range(what, value, lo, hi);
    }
    return v;
}

} // namespace

float common_scatter_json_number(const common_json & value, float lo, float hi) {
    return (float) json_number("a number", value, lo, hi);
}

int32_t common_scatter_json_number(const common_json & value, int32_t lo, int32_t hi) {
    const double v = json_number("an integer", value, lo, hi);
    if (v != std::floor(v)) {
        not_in_range("an integer", value, lo, hi);
    }
    return (int32_t) v;
}

bool common_scatter_json_bool(const common_json & value) {
    if (!value.is_boolean()) {
        throw std::invalid_argument("expected true or false, got " + common_scatter_json_shown(value));
    }
    return value.get<bool>();
}

struct llama_sampler * common_scatter_init(const common_params_sampling & params) {
    llama_scatter_params scatter = params.scatter.params;
    scatter.seed = params.seed;
    return llama_sampler_init_scatter_params(&scatter);
}

std::string common_scatter_print(const common_params_sampling & params) {
    const llama_scatter_params & s = params.scatter.params;
    char line[512];
    snprintf(line, sizeof(line),
        "\tscatter_k = %d, scatter_strength = %.3f, scatter_radius = %.3f, scatter_steps = %d, scatter_adaptive = %s, "
        "scatter_strength_min = %.3f, scatter_strength_max = %.3f, scatter_entropy_target = %.3f, "
        "scatter_absorption = %.3f, scatter_absorption_last_n = %d, scatter_collision = %.3f",
        s.k, s.strength, s.radius, s.steps, s.adaptive ? "true" : "false",
        s.strength_min, s.strength_max, s.entropy_target,
        s.absorption, s.absorption_last_n, s.collision);
    return line;
}
