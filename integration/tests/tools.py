"""Helpers shared by the tests of the patched llama.cpp tools.

Every test gets the directory of the built tools and the model path on its
command line: `python3 test_x.py BIN_DIR MODEL`.
"""

import ctypes
import gzip
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request


sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "llama_scatter"))
from _fields import FIELDS as TABLE  # noqa: E402

# The library's table of fields (the Python package's copy, made from it): these tests hold no copy
# of the parameters' layout, names or ranges. FIELDS: those with a flag and a request field of their
# own; RANGES: their ranges, a flag has none.
FIELDS = [field["name"] for field in TABLE if field["tools"] == "own"]
RANGES = {field["name"]: (field["lo"], field["hi"]) for field in TABLE if field["name"] in FIELDS and field["kind"] != "flag"}


class ScatterParams(ctypes.Structure):
    """`struct llama_scatter_params` of include/llama-scatter.h."""
    _fields_ = [(field["name"], getattr(ctypes, field["ctype"])) for field in TABLE]


def _library_presets():
    """The defaults and the presets as the library defines them (CTest gives
    its path in LLAMA_SCATTER_LIBRARY): the tests hold no copy of either."""
    lib = ctypes.CDLL(os.environ["LLAMA_SCATTER_LIBRARY"])
    lib.llama_scatter_default_params.restype = ScatterParams
    lib.llama_scatter_preset_name.restype = ctypes.c_char_p
    lib.llama_scatter_preset_name.argtypes = [ctypes.c_size_t]
    lib.llama_scatter_preset_params.restype = ctypes.c_bool
    lib.llama_scatter_preset_params.argtypes = [ctypes.c_char_p, ctypes.POINTER(ScatterParams)]

    def fields(p):
        return {"scatter_" + name: getattr(p, name) for name in FIELDS}

    presets = {}
    while (name := lib.llama_scatter_preset_name(len(presets))) is not None:
        p = ScatterParams()
        if not lib.llama_scatter_preset_params(name, ctypes.byref(p)):
            sys.exit(f"the library lists preset {name!r} but does not know it")
        presets[name.decode()] = fields(p)
    return fields(lib.llama_scatter_default_params()), presets


def __getattr__(name):
    """DEFAULT_FIELDS, PRESET_FIELDS, PRESETS, RANK_PRESERVING: the server fields at their defaults,
    every preset's fields, and the presets that leave the ranking (hence greedy decoding) untouched
    (all but those with absorption, which may reorder). Read from the library when a test first
    imports one: a test of tools it cannot load here (the Windows release, under Wine) imports none."""
    if name not in ("DEFAULT_FIELDS", "PRESET_FIELDS", "PRESETS", "RANK_PRESERVING"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    defaults, presets = _library_presets()
    globals().update(DEFAULT_FIELDS=defaults, PRESET_FIELDS=presets, PRESETS=list(presets),
                     RANK_PRESERVING=[n for n, fields in presets.items() if fields["scatter_absorption"] == 0.0])
    return globals()[name]

PROMPTS = [
    "The old lighthouse keeper opened the door and",
    "Here is a short list of things to pack for a trip to the mountains:",
    "In the beginning of the twentieth century, the city",
]

# Small, fast and deterministic: a fixed thread count, a short context, no warmup.
COMMON_ARGS = ["--threads", "2", "--ctx-size", "256", "--no-warmup"]


class Failure(Exception):
    pass


def args():
    if len(sys.argv) != 3:
        sys.exit(f"usage: {sys.argv[0]} BIN_DIR MODEL")
    return sys.argv[1], sys.argv[2]


def check(cond, message):
    if not cond:
        raise Failure(message)


def chain_line(log):
    """The sampler chain a tool printed in its log."""
    m = re.search(r"sampler chain: (.*)", log)
    check(m, "no 'sampler chain:' line in the log")
    return m.group(1)


def completion(bin_dir, model, prompt, extra, n_predict=32, env=None):
    """Runs llama-completion once; returns (generated text, stderr log)."""
    cmd = [os.path.join(bin_dir, "llama-completion"), "-m", model, *COMMON_ARGS,
           "-no-cnv", "--no-display-prompt", "-p", prompt, "-n", str(n_predict), *extra]
    run_env = dict(os.environ, **(env or {}))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=run_env, timeout=300)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(cmd)} exited with {proc.returncode}:\n{proc.stderr[-3000:]}")
    return proc.stdout, proc.stderr


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """llama-server of BIN_DIR on MODEL at a free port of 127.0.0.1, with `extra` arguments; with
    no MODEL, a router (its models from `extra`: --models-preset), whose model instances inherit
    the same arguments. `launcher`, a command that ends in a llama-server, replaces BIN_DIR's
    (`env -i` before it, or a container's). With `api_key`, the server asks for it (--api-key) and
    `request` sends it."""

    def __init__(self, bin_dir, model, extra=(), env=None, launcher=None, port=None, api_key=None):
        self.port = port or free_port()
        self.log = tempfile.TemporaryFile(mode="w+")
        self.api_key = api_key
        cmd = [*(launcher or [os.path.join(bin_dir, "llama-server")]), *(["-m", model] if model else []), *COMMON_ARGS,
               "--host", "127.0.0.1", "--port", str(self.port), "--parallel", "1", *extra,
               *(["--api-key", api_key] if api_key else [])]
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT,
                                     env=dict(os.environ, **(env or {})))

    def request(self, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return resp.status, json.loads(resp.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"{}")

    def wait_ready(self, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise Failure(f"llama-server exited with {self.proc.returncode}:\n{self.tail()}")
            try:
                if self.request("/health")[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError):
                pass
            time.sleep(0.25)
        raise Failure(f"llama-server not ready after {timeout} s:\n{self.tail()}")

    def check_ui_page(self):
        """The server's / is the web UI's page (its files are embedded gzip-compressed, for clients
        that accept that, as browsers do)."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}/", headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(request, timeout=30) as resp:
            check(resp.status == 200 and resp.headers.get_content_type() == "text/html",
                  f"/ -> {resp.status} {resp.headers.get_content_type()}")
            page = resp.read()
            if resp.headers.get("Content-Encoding") == "gzip":
                page = gzip.decompress(page)
        check(b"<html" in page.lower(), "/ is not the web UI's page")

    def output(self):
        """Everything the server wrote so far."""
        self.log.seek(0)
        return self.log.read()

    def tail(self):
        return self.output()[-3000:]

    def last_task(self):
        """The id of the last task of the (one) slot."""
        status, slots = self.request("/slots")
        check(status == 200, f"/slots -> {status}")
        return slots[0].get("id_task")

    def stop(self):
        stop_process(self.proc)


def stop_process(proc):
    """Terminates proc, killed if it has not exited within 20 s."""
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_tests(tests):
    """Runs each (name, function) and reports like the C harness."""
    failed = 0
    for name, fn in tests:
        start = time.monotonic()
        try:
            fn()
            print(f"ok   {name} ({time.monotonic() - start:.1f} s)", flush=True)
        except Failure as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
    print(f"{len(tests) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def run_with_server(server, tests):
    """Waits until `server` is ready, runs `tests` (as run_tests does), and stops the server
    whatever happens."""
    try:
        server.wait_ready()
        run_tests(tests)
    except Failure as e:
        print(f"FAIL server start: {e}")
        raise SystemExit(1)
    finally:
        server.stop()
