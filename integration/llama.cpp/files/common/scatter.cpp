#include "scatter.h"

#include "arg.h"
#include "common.h"
#include "json.h"
#include "log.h"
#include "sampling.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace {

// The C type of each kind.
template <common_scatter_kind K> struct ctype;
template <> struct ctype<common_scatter_kind::INT>   { using type = int32_t; };
template <> struct ctype<common_scatter_kind::FLOAT> { using type = float; };
template <> struct ctype<common_scatter_kind::FLAG>  { using type = bool; };
template <> struct ctype<common_scatter_kind::SEED>  { using type = uint32_t; };

// Each row's kind is its member's C type.
#define SCATTER_OWN(name, kind, lo, hi, help) \
    static_assert(std::is_same_v<decltype(llama_scatter_params::name), ctype<common_scatter_kind::kind>::type>, #name);
#define SCATTER_SEED SCATTER_OWN
#include "scatter-fields.def"
#undef SCATTER_SEED
#undef SCATTER_OWN

// The one switch from a kind to its C type: calls with_type(T{}).
template <typename F>
auto with_ctype(common_scatter_kind kind, F && with_type) {
    using K = common_scatter_kind;
    switch (kind) {
        case K::FLOAT: return with_type(ctype<K::FLOAT>::type{});
        case K::FLAG:  return with_type(ctype<K::FLAG>::type{});
        case K::SEED:  return with_type(ctype<K::SEED>::type{});
        default:       return with_type(ctype<K::INT>::type{});
    }
}

} // namespace

double common_scatter_get(const common_scatter_field & f, const llama_scatter_params & params) {
    return with_ctype(f.kind, [&](auto value) {
        std::memcpy(&value, reinterpret_cast<const char *>(&params) + f.offset, sizeof value);
        return (double) value;
    });
}

void common_scatter_set(const common_scatter_field & f, llama_scatter_params & params, double value) {
    with_ctype(f.kind, [&](auto typed) {
        typed = (decltype(typed)) value;
        std::memcpy(reinterpret_cast<char *>(&params) + f.offset, &typed, sizeof typed);
    });
}

double common_scatter_check(const common_scatter_field & f, double value, const std::string & shown) {
    const bool integral = f.kind != common_scatter_kind::FLOAT;
    if (!(value >= f.lo && value <= f.hi) || (integral && value != std::floor(value))) {
        throw std::invalid_argument(string_format("expected %s in [%.10g, %.10g], got %s", integral ? "an integer" : "a number",
                                                  f.lo, f.hi, shown.c_str()));
    }
    return value;
}

std::string common_scatter_format(const common_scatter_field & f, double value) {
    switch (f.kind) {
        case common_scatter_kind::FLOAT: return string_format("%.3f", value);
        case common_scatter_kind::FLAG:  return value != 0.0 ? "true" : "false";
        default:                         return string_format("%.0f", value);
    }
}

namespace {

// The whole of a command-line value as a number, else NaN (which no range holds).
double parse_number(const std::string & value) {
    char * end = nullptr;
    const double v = value.empty() ? NAN : std::strtod(value.c_str(), &end);
    return end == value.c_str() + value.size() ? v : NAN;
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
    const common_scatter_field & f = common_scatter_fields[I];
    common_scatter_set(f, params.sampling.scatter.params, common_scatter_check(f, parse_number(value), "'" + value + "'"));
}

template <size_t I>
void set_switch(common_params & params, bool value) {
    common_scatter_set(common_scatter_fields[I], params.sampling.scatter.params, value);
}

template <size_t I>
void add_flag(const std::function<void(common_arg)> & add_opt, const llama_scatter_params & defaults) {
    const common_scatter_field & f = common_scatter_fields[I];
    static const flag_names names(f.name);
    const std::string help = "scatter: " + std::string(f.help) + " (default: " + common_scatter_format(f, common_scatter_get(f, defaults)) + ")";
    if (f.kind == common_scatter_kind::FLAG) {
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
            common_scatter_set_preset(params.sampling, common_json(value));
        }
    ).set_sampling().set_env("LLAMA_ARG_SCATTER_PRESET"));
    add_flags(add_opt, params.sampling.scatter.params, std::make_index_sequence<std::size(common_scatter_fields)>{});
}

void common_scatter_set_preset(common_params_sampling & params, const common_json & name) {
    // a name with a NUL inside is no preset, whatever precedes the NUL
    const bool known = name.is_string() && name.get<std::string>().find('\0') == std::string::npos &&
                       llama_scatter_preset_params(name.get<std::string>().c_str(), &params.scatter.params);
    if (!known) {
        throw std::invalid_argument("unknown scatter preset " + common_scatter_json_shown(name) + ", expected one of: " + common_scatter_preset_names());
    }
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

void common_scatter_json_set(const common_scatter_field & f, const common_json & value, llama_scatter_params & params) {
    if (f.kind == common_scatter_kind::FLAG) {
        if (!value.is_boolean()) {
            throw std::invalid_argument("expected true or false, got " + common_scatter_json_shown(value));
        }
        common_scatter_set(f, params, value.get<bool>());
        return;
    }
    // another JSON type is NaN to the range rule: refused with the range
    const double v = value.is_number() ? value.get<double>() : NAN;
    common_scatter_set(f, params, common_scatter_check(f, v, common_scatter_json_shown(value)));
}

common_json common_scatter_json_get(const common_scatter_field & f, const llama_scatter_params & params) {
    const double v = common_scatter_get(f, params);
    switch (f.kind) {
        case common_scatter_kind::FLOAT: return v;
        case common_scatter_kind::FLAG:  return v != 0.0;
        default:                         return (int64_t) v;
    }
}

struct llama_sampler * common_scatter_init(const common_params_sampling & params) {
    llama_scatter_params scatter = params.scatter.params;
#define SCATTER_OWN(name, kind, lo, hi, help)
#define SCATTER_SEED(name, kind, lo, hi, help) scatter.name = params.seed;
#include "scatter-fields.def"
#undef SCATTER_SEED
#undef SCATTER_OWN
    return llama_sampler_init_scatter_params(&scatter);
}

std::string common_scatter_print(const common_params_sampling & params) {
    std::string line = "\t";
    for (const common_scatter_field & f : common_scatter_fields) {
        line += std::string(line.size() > 1 ? ", " : "") + f.name + " = " + common_scatter_format(f, common_scatter_get(f, params.scatter.params));
    }
    return line;
}
