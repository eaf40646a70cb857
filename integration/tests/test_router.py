"""llama-server in router mode (`--models-preset FILE`: several models behind one server, each
section of the INI file a model with its own flags) sets scatter per model: by flag name, by
environment variable name, not at all; request fields still override a section; a section whose
value the tools refuse fails to load that model, with the tool's message naming the flag in the
server's log, while the other models keep serving. Every section serves the real model.

usage: test_router.py BIN_DIR MODEL
"""

import os
import tempfile
import time

from tools import DEFAULT_FIELDS, PRESET_FIELDS, Server, args, check, run_with_server

BIN, MODEL = args()
PROMPT = "The old lighthouse keeper opened the door and"

# What each section sets, as the INI file says it and as the model's requests must then show it.
SECTIONS = {
    "creative": ({"scatter-preset": "creative", "scatter-radius": "3.0"},
                 dict(PRESET_FIELDS["creative"], scatter_radius=3.0)),
    "env": ({"LLAMA_ARG_SCATTER_STRENGTH": "0.25"}, dict(DEFAULT_FIELDS, scatter_strength=0.25)),
    "plain": ({}, DEFAULT_FIELDS),
    "refused": ({"scatter-strength": "2"}, None),
}


def preset_file(folder):
    path = os.path.join(folder, "models.ini")
    with open(path, "w") as f:
        f.write("version = 1\n")
        for name, (keys, _) in SECTIONS.items():
            f.write(f"\n[{name}]\nmodel = {MODEL}\n")
            f.writelines(f"{key} = {value}\n" for key, value in keys.items())
    return path


def complete(model, **fields):
    return server.request("/completion", {"model": model, "prompt": PROMPT, "n_predict": 8, "seed": 1,
                                          "cache_prompt": False, **fields})


def settings_of(model, **fields):
    status, body = complete(model, **fields)
    check(status == 200, f"model {model} {fields} -> {status}: {body}")
    return body["generation_settings"]


def check_fields(what, settings, expected):
    for name, value in expected.items():
        check(abs(settings[name] - value) < 1e-6, f"{what}: {name} = {settings[name]}, expected {value}")


def each_model_has_its_sections_settings():
    for name, (_, expected) in SECTIONS.items():
        if expected is None:
            continue
        settings = settings_of(name)
        check_fields(f"model {name}", settings, expected)
        check(settings["scatter_enabled"] == (expected["scatter_strength"] > 0),
              f"model {name}: scatter_enabled = {settings['scatter_enabled']}")


def request_fields_override_the_section():
    settings = settings_of("creative", scatter_strength=0.1)
    check_fields("creative with scatter_strength 0.1", settings, dict(SECTIONS["creative"][1], scatter_strength=0.1))
    settings = settings_of("plain", scatter_preset="subtle")
    check_fields("plain with scatter_preset subtle", settings, PRESET_FIELDS["subtle"])
    check(settings["scatter_enabled"], "plain with scatter_preset subtle: scatter not enabled")


def a_refused_value_fails_only_its_model():
    start = time.monotonic()
    status, body = complete("refused")
    check(status >= 400, f"model refused answered {status}: {body}")
    check(time.monotonic() - start < 60, "model refused took over a minute to fail")
    log = server.output()
    check('error while handling argument "--scatter-strength"' in log and "got '2'" in log,
          f"the server's log does not name the refused flag and its value:\n{log[-3000:]}")
    for name in ("creative", "plain"):
        settings_of(name)


with tempfile.TemporaryDirectory() as folder:
    server = Server(BIN, None, ["--models-preset", preset_file(folder)])
    run_with_server(server, [
        ("each model has its section's scatter settings", each_model_has_its_sections_settings),
        ("request fields override a section", request_fields_override_the_section),
        ("a refused value fails only its model, naming the flag", a_refused_value_fails_only_its_model),
    ])
