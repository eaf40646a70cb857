"""The scatter_* request fields of the patched llama-server, on the real model.
The server is started on 127.0.0.1 at a free port and is
stopped at the end whatever happens."""

import json
import re

from tools import DEFAULT_FIELDS, FIELDS, PRESET_FIELDS, RANGES, Server, args, check, run_with_server

BIN, MODEL = args()
# Server-wide defaults given on the command line; /props must show them.
SERVER_FLAGS = {"--scatter-radius": 3.0, "--scatter-steps": 2}
PROMPT = "The old lighthouse keeper opened the door and"


server = Server(BIN, MODEL, [arg for flag, value in SERVER_FLAGS.items() for arg in (flag, str(value))])


def complete(**fields):
    status, body = server.request("/completion", {"prompt": PROMPT, "n_predict": 32, "temperature": 1.0,
                                                  "cache_prompt": False, **fields})
    check(status == 200, f"/completion {fields} -> {status}: {body}")
    return body


def props_show_the_defaults():
    status, props = server.request("/props")
    check(status == 200, f"/props -> {status}")
    params = props["default_generation_settings"]["params"]
    expected = dict(DEFAULT_FIELDS, scatter_radius=SERVER_FLAGS["--scatter-radius"], scatter_steps=SERVER_FLAGS["--scatter-steps"])
    for name, value in expected.items():
        check(name in params, f"/props lacks {name}")
        check(abs(params[name] - value) < 1e-6 if isinstance(value, float) else params[name] == value,
              f"/props {name} = {params[name]}, expected {value}")
    samplers = params["samplers"]
    check(samplers.index("scatter") == samplers.index("xtc") + 1 and samplers[samplers.index("scatter") + 1] == "temperature",
          f"scatter not between xtc and temperature in the default samplers: {samplers}")


def fields_reach_the_sampler_and_the_response():
    request = {"scatter_k": 32, "scatter_strength": 0.3, "scatter_radius": 2.0, "scatter_steps": 1,
               "scatter_adaptive": True, "scatter_strength_min": 0.05, "scatter_strength_max": 0.4,
               "scatter_entropy_target": 0.6, "scatter_absorption": 0.05, "scatter_absorption_last_n": 32,
               "scatter_collision": 0.5}
    body = complete(seed=3, **request)
    settings = body["generation_settings"]
    for name, value in request.items():
        check(abs(settings[name] - value) < 1e-6 if isinstance(value, float) else settings[name] == value,
              f"generation_settings {name} = {settings.get(name)}, expected {value}")
    # Every preset of the library, and a field after it overriding it.
    for name, fields in PRESET_FIELDS.items():
        for override in [{}, {"scatter_radius": 3.5}]:
            settings = complete(seed=3, scatter_preset=name, **override)["generation_settings"]
            for field, value in dict(fields, **override).items():
                check(abs(settings[field] - value) < 1e-6,
                      f"scatter_preset {name} {override}: {field} = {settings[field]}, expected {value}")


def reproducible_per_seed():
    for fields in [{"scatter_strength": 0.3}, {"scatter_preset": "collision"}]:
        a = complete(seed=21, **fields)["content"]
        b = complete(seed=21, **fields)["content"]
        c = complete(seed=22, **fields)["content"]
        check(a == b, f"{fields}: same seed gave different texts")
        check(a != c, f"{fields}: seeds 21 and 22 gave the same text")
    off = complete(seed=21)["content"]
    on = complete(seed=21, scatter_strength=0.3)["content"]
    check(off != on, "scatter_strength 0.3 did not change the text at the same seed")


def samplers_field_accepts_scatter():
    body = complete(seed=4, samplers=["top_k", "scatter", "temperature"], scatter_strength=0.2)
    check(body["generation_settings"]["samplers"] == ["top_k", "scatter", "temperature"], f"samplers: {body['generation_settings']['samplers']}")
    body = complete(seed=4, samplers="kprt", scatter_strength=0.2)
    check(body["generation_settings"]["samplers"] == ["top_k", "top_p", "scatter", "temperature"], "samplers 'kprt'")


def openai_endpoints_take_the_fields():
    for path, body in [("/v1/completions", {"prompt": PROMPT}),
                       ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Write one sentence about the sea."}]})]:
        texts = []
        for seed in [31, 31]:
            status, res = server.request(path, {**body, "max_tokens": 24, "temperature": 1.0, "seed": seed,
                                                "scatter_strength": 0.3, "scatter_radius": 2.0})
            check(status == 200, f"{path} -> {status}: {res}")
            choice = res["choices"][0]
            texts.append(choice["text"] if "text" in choice else choice["message"]["content"])
        check(texts[0] == texts[1], f"{path}: same seed gave different texts")
        status, res = server.request(path, {**body, "max_tokens": 4, "scatter_steps": 100})
        check(status == 400 and "scatter_steps" in json.dumps(res), f"{path}: scatter_steps 100 -> {status}: {res}")


def bad_fields_get_400_naming_the_field():
    bad = [("scatter_strength", "strong"), ("scatter_k", "64"), ("scatter_adaptive", "yes"),
           ("scatter_preset", "loud"), ("scatter_preset", 3)]
    for name, (lo, hi) in RANGES.items():
        if name in FIELDS:
            bad += [("scatter_" + name, lo - 1), ("scatter_" + name, hi + 1 if isinstance(hi, int) else hi * 1.01)]
    for name, value in bad:
        status, res = server.request("/completion", {"prompt": PROMPT, "n_predict": 1, name: value})
        check(status == 400, f"{name}={value!r} -> {status}, expected 400")
        check(name in json.dumps(res), f"{name}={value!r}: the error does not name the field: {res}")


def error_message(status, res, what):
    check(status == 400, f"{what} -> {status}, expected 400: {res}")
    return res.get("error", {}).get("message", "")


def sent_value(message):
    """The value a message says it got, parsed back from its JSON text."""
    m = re.search(r"got (.*)$", message)
    check(m, f"no 'got VALUE' in {message!r}")
    return json.loads(m.group(1))


NUMBER_FIELDS = ["scatter_" + name for name in FIELDS if name in RANGES]


def hostile_values_get_400_with_the_value_as_sent():
    cases = [(name, True) for name in NUMBER_FIELDS] + [(name, False) for name in NUMBER_FIELDS[:2]] + [
        # integers that wrapped before the range check
        ("scatter_k", 4294967360), ("scatter_k", 9223372036854775808), ("scatter_steps", 4294967297),
        ("scatter_absorption_last_n", -4294967291), ("scatter_k", 2147483648), ("scatter_k", 1e10),
        ("scatter_k", 1e308),
        # fractions that were cut
        ("scatter_k", 64.9), ("scatter_steps", 0.5), ("scatter_absorption_last_n", 3.25),
        # just past a float limit
        ("scatter_strength", 1.0000001), ("scatter_collision", 1.0000000001),
        # other types
        ("scatter_radius", "2.5"), ("scatter_k", [64]), ("scatter_adaptive", 1),
    ]
    for path, body in [("/completion", {"prompt": PROMPT, "n_predict": 1}),
                       ("/v1/completions", {"prompt": PROMPT, "max_tokens": 1}),
                       ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1})]:
        for name, value in cases if path == "/completion" else cases[::5]:
            status, res = server.request(path, {**body, name: value})
            message = error_message(status, res, f"{path} {name}={value!r}")
            check(f"'{name}'" in message, f"{path} {name}={value!r}: the message does not name the field: {message!r}")
            got = sent_value(message)
            check(got == value and type(got) is type(value), f"{path} {name}={value!r}: the message shows {got!r}")
    # An integral number is an integer: 64.0 is 64.
    settings = complete(seed=1, scatter_k=48.0, scatter_steps=2.0)["generation_settings"]
    check(settings["scatter_k"] == 48 and settings["scatter_steps"] == 2, f"48.0 and 2.0: {settings['scatter_k']}, {settings['scatter_steps']}")


def preset_names_are_shown_safely():
    status, res = server.request("/completion", {"prompt": PROMPT, "n_predict": 1, "scatter_preset": "crea\u0000tive"})
    message = error_message(status, res, "a preset name with a NUL")
    check("scatter_preset" in message and "expected one of: subtle" in message and "\\u0000" in message,
          f"a preset name with a NUL: {message!r}")
    long_name = "x" * 100_000
    status, res = server.request("/completion", {"prompt": PROMPT, "n_predict": 1, "scatter_preset": long_name})
    message = error_message(status, res, "a 100 KB preset name")
    check(len(message) < 400 and "expected one of: subtle" in message, f"a 100 KB preset name: {len(message)} characters")


# The sampler lists clients send (llama.cpp's names for their samplers).
SILLYTAVERN = ["top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"]
TEXTGEN_WEBUI = ["penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"]


def sampler_lists_without_scatter_get_it():
    for client, samplers in [("SillyTavern", SILLYTAVERN), ("text-generation-webui", TEXTGEN_WEBUI)]:
        body = {"samplers": samplers, "temperature": 1.0, "top_k": 40, "top_p": 0.95, "min_p": 0.05, "typical_p": 1.0,
                "repeat_penalty": 1.0, "xtc_probability": 0.0}
        plain = complete(seed=8, **body)
        settings = plain["generation_settings"]
        check(settings["samplers"] == samplers and settings["scatter_enabled"] is False,
              f"{client} without scatter fields: {settings['samplers']}, scatter_enabled {settings['scatter_enabled']}")
        for fields in [{"scatter_preset": "creative"}, {"scatter_strength": 0.3}]:
            res = complete(seed=8, **body, **fields)
            settings = res["generation_settings"]
            expected = samplers[:-1] + ["scatter", "temperature"]
            check(settings["samplers"] == expected and settings["scatter_enabled"] is True,
                  f"{client} with {fields}: samplers {settings['samplers']}, scatter_enabled {settings['scatter_enabled']}")
        check(res["content"] != plain["content"], f"{client}: scatter_strength 0.3 did not change the text")
        # Explicitly off: nothing is inserted, and the response says scatter did not run.
        settings = complete(seed=8, **body, scatter_preset="creative", scatter_strength=0.0)["generation_settings"]
        check(settings["samplers"] == samplers and settings["scatter_enabled"] is False,
              f"{client} with strength 0: {settings['samplers']}, scatter_enabled {settings['scatter_enabled']}")
    # No temperature in the list: scatter goes last, before the final draw.
    settings = complete(seed=8, samplers=["top_k", "top_p"], scatter_strength=0.2)["generation_settings"]
    check(settings["samplers"] == ["top_k", "top_p", "scatter"], f"no temperature: {settings['samplers']}")
    settings = complete(seed=8, samplers="kpt", scatter_strength=0.2)["generation_settings"]
    check(settings["samplers"] == ["top_k", "top_p", "scatter", "temperature"], f"'kpt': {settings['samplers']}")
    # The OpenAI-compatible endpoints echo nothing, but run the same chain: same seed, same text as /completion's.
    status, res = server.request("/v1/completions", {"prompt": PROMPT, "max_tokens": 32, "temperature": 1.0, "seed": 8,
                                                     "cache_prompt": False, "samplers": SILLYTAVERN, "scatter_strength": 0.3})
    check(status == 200, f"/v1/completions -> {status}: {res}")
    direct = complete(seed=8, samplers=SILLYTAVERN, scatter_strength=0.3, temperature=1.0)
    check(res["choices"][0]["text"] == direct["content"], "/v1/completions and /completion ran different chains")


def backend_sampling_is_reported():
    # A request may ask for backend sampling ("backend_sampling": true); the response says whether its
    # scatter ran there. This server was started without -bs, so /props says the default chain does not.
    status, props = server.request("/props")
    check(props["default_generation_settings"]["params"]["scatter_backend"] is False, "/props: scatter_backend")
    cases = [({"backend_sampling": True, "scatter_preset": "creative"}, True, True),
             ({"backend_sampling": True, "scatter_preset": "collision"}, True, True),
             ({"backend_sampling": True, "scatter_preset": "adaptive-absorb"}, True, False),
             ({"backend_sampling": True}, False, False),
             ({"backend_sampling": False, "scatter_preset": "creative"}, True, False),
             # Probabilities before sampling keep the request on the CPU (llama.cpp's rule).
             ({"backend_sampling": True, "scatter_preset": "creative", "n_probs": 3}, True, False)]
    for fields, enabled, on_backend in cases:
        settings = complete(seed=5, **fields)["generation_settings"]
        check(settings["scatter_enabled"] is enabled and settings["scatter_backend"] is on_backend,
              f"{fields}: scatter_enabled {settings['scatter_enabled']}, scatter_backend {settings['scatter_backend']}")
    a = complete(seed=5, backend_sampling=True, scatter_preset="creative")["content"]
    b = complete(seed=5, backend_sampling=True, scatter_preset="creative")["content"]
    plain = complete(seed=5, backend_sampling=True)["content"]
    check(a == b, "backend sampling with scatter: the same seed gave two texts")
    check(a != plain, "scatter on the backend did not change the text")


run_with_server(server, [
    ("/props shows the scatter defaults and the chain", props_show_the_defaults),
    ("request fields reach the sampler and the response", fields_reach_the_sampler_and_the_response),
    ("same seed same text, other seed other text", reproducible_per_seed),
    ("samplers field accepts scatter", samplers_field_accepts_scatter),
    ("OpenAI-compatible endpoints take the fields", openai_endpoints_take_the_fields),
    ("bad fields get a 400 naming the field", bad_fields_get_400_naming_the_field),
    ("hostile values get a 400 with the value as sent", hostile_values_get_400_with_the_value_as_sent),
    ("preset names are shown safely in errors", preset_names_are_shown_safely),
    ("sampler lists without scatter get it", sampler_lists_without_scatter_get_it),
    ("backend sampling is reported", backend_sampling_is_reported),
])
