// Wiring of the scatter sampler (llama-scatter, https://github.com/llama-scatter/llama-scatter)
// into llama.cpp's common/: flags, sampler lists, chain construction. The sampler itself lives
// in libllama_scatter, with its parameter struct, defaults and presets; this file only maps
// flags, preset names and server fields to them.
//
// Everything lives here and in scatter.cpp (and tools/server/server-scatter.h for the server):
// the upstream files get one-line hooks only (integration/llama.cpp/hooks.patch), so that the
// integration survives llama.cpp's churn.
#pragma once

#include "llama-scatter.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

class common_json;
struct common_arg;
struct common_params;
struct common_params_sampling;
struct common_sampler;

// The hooks also add COMMON_SAMPLER_TYPE_SCATTER to common_sampler_type: as its first line, since
// the start of the enum does not move while upstream appends samplers at its end, and with the
// value 100, far from the value of upstream's next sampler.

// Scatter's part of common_params_sampling (its member `scatter`).
struct common_scatter_sampling {
    // The library's own parameter struct and defaults (scatter off). Its seed field is not
    // used: common_params_sampling::seed seeds scatter, as it seeds xtc and dist.
    struct llama_scatter_params params = llama_scatter_default_params();
    // Set by llama-server: the attached chain runs scatter on the backend.
    bool backend = false;
};

// The type of a scatter parameter: INT is int32_t, FLOAT float, FLAG bool, SEED uint32_t.
enum class common_scatter_kind { INT, FLOAT, FLAG, SEED };

// One scatter parameter as the tools and llama-server expose it. This table is the only list of
// them: the flag --scatter-<name> ('_' as '-'), its environment variable LLAMA_ARG_SCATTER_<NAME>,
// the request field scatter_<name>, its echo in responses and /props and its part of the "sampler
// params" line are all made from it. A value is read and written through common_scatter_get/set,
// the one place that knows which C type a kind is.
struct common_scatter_field {
    const char * name; // "scatter_k": the server field
    common_scatter_kind kind;
    size_t offset;     // of the member in llama_scatter_params
    double lo;
    double hi;
    const char * help;
};

// The rows, kinds, ranges and help included, are made from the library's own table of parameters
// (scatter-core/src/fields.rs) into scatter-fields.def, one SCATTER_<TOOLS>(name, KIND, lo, hi,
// help) a field. SCATTER_OWN rows are the fields above; a SCATTER_SEED row is set from llama.cpp's
// sampling seed instead (common_scatter_init), as its dist and xtc samplers are.
#define SCATTER_OWN(name, kind, lo, hi, help) \
    {"scatter_" #name, common_scatter_kind::kind, offsetof(llama_scatter_params, name), lo, hi, help},
#define SCATTER_SEED(name, kind, lo, hi, help)
inline constexpr common_scatter_field common_scatter_fields[] = {
#include "scatter-fields.def"
};
#undef SCATTER_SEED
#undef SCATTER_OWN

// A field's value in params; every kind fits a double exactly.
double common_scatter_get(const common_scatter_field & field, const llama_scatter_params & params);

// Sets a field to a value common_scatter_check accepted.
void common_scatter_set(const common_scatter_field & field, llama_scatter_params & params, double value);

// The one range rule of the command line and llama-server: a number in [lo, hi] (NaN is not), and
// a whole number for an integer kind (64.0 is 64, 64.5 is not). Returns value, or throws
// std::invalid_argument "expected an integer in [0, 8], got <shown>" (shown: the value as given).
double common_scatter_check(const common_scatter_field & field, double value, const std::string & shown);

// A value as --help, the "sampler params" line and the logs show it: 64, 0.180, true.
std::string common_scatter_format(const common_scatter_field & field, double value);

// Adds --scatter-preset and one flag per row of common_scatter_fields through
// common_params_parser_init's add_opt. The preset comes first, so that its environment variable is
// applied before those of the single flags, which override it.
void common_scatter_add_args(const std::function<void(common_arg)> & add_opt, const common_params & params);

// Presets of the scatter SPEC, section 6, as the library defines them. A preset sets every scatter
// parameter (those it does not name go back to their defaults), so flags given after it override
// it. A name that is not a preset's (not a string, or with a NUL inside) changes nothing and throws
// std::invalid_argument "unknown scatter preset <the name as JSON>, expected one of: <names>", the
// one message of the command line and the server.
void common_scatter_set_preset(common_params_sampling & params, const common_json & name);

// "subtle, creative, adaptive, collision, adaptive-absorb"
std::string common_scatter_preset_names();

// The scatter sampler for params.scatter, seeded with params.seed: a no-op
// named "?scatter" while llama_scatter_params_enabled is false (strength 0
// with no adaptive mode or absorption that turns it on: the defaults), like
// a disabled xtc.
struct llama_sampler * common_scatter_init(const common_params_sampling & params);

// An enabled scatter is always in the chain: when params.scatter is enabled
// (llama_scatter_params_enabled) and params.samplers has no scatter, inserts
// it at its place in the default chain, before the first temperature, or
// last (before the final draw) if there is none. Returns whether it did.
// Called where a sampler list is final: by common_sampler_init (so a server
// request's "samplers" too), and after the command line is parsed, through
// common_scatter_place_in_cli_chain, which also warns.
bool common_scatter_place(common_params_sampling & params);
void common_scatter_place_in_cli_chain(common_params_sampling & params);

// Whether the chain of smpl runs scatter on the backend: llama.cpp has set
// the chain up for backend sampling and scatter took part ("+scatter"; a
// "-scatter" sent the chain back to the CPU from there on).
bool common_scatter_on_backend(const struct common_sampler * smpl);

// Whether scatter runs in the chain params describe: enabled, in the list,
// and no mirostat (which replaces the list).
bool common_scatter_runs(const common_params_sampling & params);

// Strict reading of a llama-server scatter_* request field into params: a value of another JSON
// type (a bool is not 1) throws std::invalid_argument with the value as sent, shortened; a number
// is held to common_scatter_check before any narrowing.
void common_scatter_json_set(const common_scatter_field & field, const common_json & value, llama_scatter_params & params);

// A field's value in params as JSON, for the echo of the settings.
common_json common_scatter_json_get(const common_scatter_field & field, const llama_scatter_params & params);

// A request's value for messages: its JSON text, at most 64 characters.
std::string common_scatter_json_shown(const common_json & value);

// One line for common_params_sampling::print().
std::string common_scatter_print(const common_params_sampling & params);


// Before a model loads: a warning when a GPU module beside the program (the release's
// libggml-vulkan.so) is not in use, with the reason (not loaded, no driver, no device) and what a
// GPU needs. ggml's release build loads its modules silently, so without this a GPU user whose
// Vulkan loader or driver is missing sees the model run on the CPU and no word why. Linux only: the
// Windows release ships no GPU module. (common/scatter-modules.cpp)
void common_scatter_note_modules();
