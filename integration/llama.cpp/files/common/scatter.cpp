#include "scatter.h"

#include "arg.h"
#include "common.h"
#include "json.h"
#include "log.h"
#include "sampling.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace {

[[noreturn]] void out_of_range(const std::string & value, double lo, double hi) {
    throw std::invalid_argument(string_format("expected a number in [%.10g, %.10g], got '%s'", lo, hi, value.c_str()));
}

// The whole of value as a number in [lo, hi] (NaN is not), else the error with the range.
template <typename T>
T parse_number(const std::string & value, double lo, double hi) {
    size_t used = 0;
    double v = 0.0;
    try {
        v = std::is_integral_v<T> ? (double) std::stoll(value, &used) : std::stof(value, &used);
    } catch (const std::exception &) {
        out_of_range(value, lo, hi);
    }
    if (used != value.size() || !(v >= lo && v <= hi)) {
        out_of_range(value, lo, hi);
    }
    return (T) v;
}

std::string shown_default(const common_scatter_field & f, const llama_scatter_params & params) {
    if (f.i32) {
        return std::to_string(params.*f.i32);
    }
    if (f.f32) {
        return string_format("%.2f", (double) (params.*f.f32));
    }
    return params.*f.flag ? "enabled" : "disabled";
}

// common_arg keeps pointers to its names, so each flag's names live as long as the process.
struct flag_names {
    std::string flag, no_flag, env;

    explicit flag_names(const char * field) {
        std::string dashed = field, upper = field;
        std::replace(dashed.begin(), dashed.end(), '_', '-');
        std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return (char) std::toupper(c); });
        flag    = "--" + dashed;
        no_flag = "--no-" + dashed;
        env     = "LLAMA_ARG_" + upper;
    }
};

// A common_arg handler is a plain function pointer: one instance per row of the table.
template <size_t I>
void set_from_flag(common_params & params, const std::string & value) {
    constexpr const common_scatter_field & f = common_scatter_fields[I];
    if constexpr (f.i32 != nullptr) {
        params.sampling.scatter.params.*f.i32 = parse_number<int32_t>(value, f.lo, f.hi);
    } else {
        params.sampling.scatter.params.*f.f32 = parse_number<float>(value, f.lo, f.hi);
    }
}

template <size_t I>
void set_switch(common_params & params, bool value) {
    params.sampling.scatter.params.*common_scatter_fields[I].flag = value;
}

template <size_t I>
void add_flag(const std::function<void(common_arg)> & add_opt, const llama_scatter_params & defaults) {
    constexpr const common_scatter_field & f = common_scatter_fields[I];
    static const flag_names names(f.name);
    const std::string help = "scatter: " + std::string(f.help) + " (default: " + shown_default(f, defaults) + ")";
    if constexpr (f.flag != nullptr) {
        add_opt(common_arg({names.flag.c_str()}, {names.no_flag.c_str()}, help, set_switch<I>)
                    .set_sampling().set_env(names.env.c_str()));
    } else {
        add_opt(common_arg({names.flag.c_str()}, "N", help, set_from_flag<I>)
                    .set_sampling().set_env(names.env.c_str()));
    }
}

template <size_t... I>
void add_flags(const std::function<void(common_arg)> & add_opt, const llama_scatter_params & defaults, std::index_sequence<I...>) {
    (add_flag<I>(add_opt, defaults), ...);
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
    add_flags(add_opt, params.sampling.scatter.params, std::make_index_sequence<std::size(common_scatter_fields)>{});
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

void common_scatter_json_set(const common_scatter_field & f, const common_json & value, llama_scatter_params & params) {
    if (f.flag) {
        if (!value.is_boolean()) {
            throw std::invalid_argument("expected true or false, got " + common_scatter_json_shown(value));
        }
        params.*f.flag = value.get<bool>();
    } else if (f.f32) {
        params.*f.f32 = (float) json_number("a number", value, f.lo, f.hi);
    } else {
        const double v = json_number("an integer", value, f.lo, f.hi);
        if (v != std::floor(v)) {
            not_in_range("an integer", value, f.lo, f.hi);
        }
        params.*f.i32 = (int32_t) v;
    }
}

common_json common_scatter_json_get(const common_scatter_field & f, const llama_scatter_params & params) {
    if (f.flag) {
        return params.*f.flag;
    }
    return f.f32 ? common_json(params.*f.f32) : common_json(params.*f.i32);
}

struct llama_sampler * common_scatter_init(const common_params_sampling & params) {
    llama_scatter_params scatter = params.scatter.params;
    scatter.seed = params.seed;
    return llama_sampler_init_scatter_params(&scatter);
}

std::string common_scatter_print(const common_params_sampling & params) {
    std::string line = "\t";
    for (const common_scatter_field & f : common_scatter_fields) {
        line += std::string(line.size() > 1 ? ", " : "") + f.name + " = ";
        const llama_scatter_params & s = params.scatter.params;
        line += f.i32 ? std::to_string(s.*f.i32) : f.f32 ? string_format("%.3f", (double) (s.*f.f32)) : s.*f.flag ? "true" : "false";
    }
    return line;
}
