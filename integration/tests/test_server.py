"""The scatter_* request fields of the patched llama-server, on the real model
(issue 3, test 5). The server is started on 127.0.0.1 at a free port and is
stopped at the end whatever happens."""

import json
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

from tools import COMMON_ARGS, DEFAULT_FIELDS, PRESET_FIELDS, Failure, args, check, run_tests

BIN, MODEL = args()
# Server-wide defaults given on the command line; /props must show them.
SERVER_FLAGS = {"--scatter-radius": 3.0, "--scatter-steps": 2}
PROMPT = "The old lighthouse keeper opened the door and"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self):
        self.port = free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        cmd = [os.path.join(BIN, "llama-server"), "-m", MODEL, *COMMON_ARGS, "--host", "127.0.0.1",
               "--port", str(self.port), "--parallel", "1"]
        for flag, value in SERVER_FLAGS.items():
            cmd += [flag, str(value)]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT)

    def request(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def wait_ready(self):
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"llama-server exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if self.request("/health")[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.25)
        raise Failure(f"llama-server not ready after 120 s:\n{self.tail()}")

    def tail(self):
        self.log.seek(0)
        return self.log.read()[-3000:]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


server = Server()


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
    bad = [
        ("scatter_strength", 1.5), ("scatter_strength", -0.1), ("scatter_strength", "strong"),
        ("scatter_k", -1), ("scatter_k", "64"), ("scatter_radius", 100.0), ("scatter_steps", 9),
        ("scatter_adaptive", "yes"), ("scatter_strength_min", 2), ("scatter_strength_max", -1),
        ("scatter_entropy_target", 1.01), ("scatter_absorption", -0.5), ("scatter_absorption_last_n", 1 << 20),
        ("scatter_collision", 2.0), ("scatter_preset", "loud"), ("scatter_preset", 3),
    ]
    for name, value in bad:
        status, res = server.request("/completion", {"prompt": PROMPT, "n_predict": 1, name: value})
        check(status == 400, f"{name}={value!r} -> {status}, expected 400")
        check(name in json.dumps(res), f"{name}={value!r}: the error does not name the field: {res}")


try:
    server.wait_ready()
    run_tests([
        ("/props shows the scatter defaults and the chain", props_show_the_defaults),
        ("request fields reach the sampler and the response", fields_reach_the_sampler_and_the_response),
        ("same seed same text, other seed other text", reproducible_per_seed),
        ("samplers field accepts scatter", samplers_field_accepts_scatter),
        ("OpenAI-compatible endpoints take the fields", openai_endpoints_take_the_fields),
        ("bad fields get a 400 naming the field", bad_fields_get_400_naming_the_field),
    ])
except Failure as e:
    print(f"FAIL server start: {e}")
    raise SystemExit(1)
finally:
    server.stop()
