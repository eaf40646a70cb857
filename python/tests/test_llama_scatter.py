"""The llama-scatter Python package against llama-cpp-python 0.3.36 (Python part from its sdist,
the pinned libllama of this build through LLAMA_CPP_LIB_PATH) and the real model:

    python test_llama_scatter.py HEADER MODEL.gguf   (HEADER: include/llama-scatter.h)

Reports like the C harness; exit status 1 on any failure."""

import ctypes
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile

import llama_cpp
import llama_scatter
from llama_cpp._internals import LlamaSampler
from llama_scatter import ScatterLlama, ScatterSampler, scatter_params
from llama_scatter._fields import FIELDS
from llama_scatter._library import Stats

HEADER, MODEL = sys.argv[1], sys.argv[2]
PROMPT = "Once upon a time, in a village by the sea,"
failures = []


def check(cond, message):
    if not cond:
        failures.append(message)
        print(f"  FAIL {message}", flush=True)


def llama(**kwargs):
    return ScatterLlama(model_path=MODEL, n_ctx=512, n_threads=2, verbose=False, **kwargs)


def version_and_layout():
    check(llama_scatter.__version__ == importlib.metadata.version("llama-scatter"),
          f"__version__ {llama_scatter.__version__} is not the package's {importlib.metadata.version('llama-scatter')}")
    header = open(HEADER).read()
    major, minor, patch = (re.search(rf"#define LLAMA_SCATTER_VERSION_{p} (\d+)", header).group(1)
                           for p in ("MAJOR", "MINOR", "PATCH"))
    check(llama_scatter.__version__ == f"{major}.{minor}.{patch}", "__version__ is not the header's")
    # The layout: each struct's members, in order, with their C types, as the header declares them
    # (equal defaults alone would not see two int32 fields of the same default swapped).
    c_types = {"int32_t": ctypes.c_int32, "uint32_t": ctypes.c_uint32, "uint64_t": ctypes.c_uint64,
               "float": ctypes.c_float, "double": ctypes.c_double, "bool": ctypes.c_bool}
    for struct, binding in [("llama_scatter_params", llama_scatter.Params), ("llama_scatter_stats", Stats)]:
        body = re.search(rf"struct {struct} {{(.*?)\n}}", header, re.S).group(1)
        declared = [(name, c_types[ctype]) for ctype, name in re.findall(r"^\s*(\w+) (\w+);", body, re.M)]
        check(binding._fields_ == declared,
              f"{binding.__name__}: {[(n, t.__name__) for n, t in binding._fields_]}, the header's {struct}: "
              f"{[(n, t.__name__) for n, t in declared]}")
    # The library's defaults, read through Params, are the table's, field by field.
    defaults = llama_scatter.scatter_params()
    for field in FIELDS:
        expected = getattr(ctypes, field["ctype"])(field["default"]).value
        check(getattr(defaults, field["name"]) == expected,
              f"{field['name']}: the library's default reads {getattr(defaults, field['name'])!r}, the table's is {expected!r}")
    maps = open("/proc/self/maps").read()
    libllamas = {p for p in re.findall(r"(\S*/libllama\.so[.\d]*)\n", maps)}
    check(len(libllamas) == 1, f"libllama mapped {len(libllamas)} times: {libllamas}")
    check("libllama_scatter.so" in maps, "libllama_scatter is not loaded")


def the_library_is_stripped():
    """The wheel's library carries no debug information or symbol table beyond its exports (python/CMakeLists.txt
    strips it: 5 MB of the release profile's line tables and symbols otherwise)."""
    library = os.path.join(os.path.dirname(llama_scatter.__file__), "libllama_scatter.so")
    sections = subprocess.run(["readelf", "-S", "-W", library], capture_output=True, text=True, check=True).stdout
    check(".debug_" not in sections and ".symtab" not in sections, f"{library} is not stripped:\n{sections[-2000:]}")


def kernels_follow_the_cpu():
    """The wheel's library is compiled for any x86-64 and picks its x86-64-v3 build where the CPU has
    it (flags as Linux names them: abm is LZCNT), the baseline when LLAMA_SCATTER_KERNELS=baseline."""
    flags = set(re.search(r"^flags\s*:(.*)$", open("/proc/cpuinfo").read(), re.M).group(1).split())
    v3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "popcnt"} <= flags
    expected = "x86-64-v3" if v3 and os.environ.get("LLAMA_SCATTER_KERNELS") != "baseline" else "baseline"
    check(llama_scatter.kernels() == expected, f"kernels() is {llama_scatter.kernels()!r}, expected {expected!r}")
    forced = subprocess.run([sys.executable, "-c", "import llama_scatter; print(llama_scatter.kernels())"],
                            env=dict(os.environ, LLAMA_SCATTER_KERNELS="baseline"), capture_output=True, text=True)
    check(forced.stdout.strip() == "baseline", f"with LLAMA_SCATTER_KERNELS=baseline: {forced.stdout}{forced.stderr[-1000:]}")


def parameters_and_bad_values():
    check(llama_scatter.preset_names() == ["subtle", "creative", "adaptive", "collision", "adaptive-absorb"],
          f"presets {llama_scatter.preset_names()}")
    p = scatter_params("creative", k=32, seed=5)
    check((p.k, p.seed, abs(p.strength - 0.18) < 1e-6) == (32, 5, True), f"creative with k 32: {p}")
    check(not ScatterSampler().enabled and ScatterSampler("subtle").enabled, "enabled")
    for fields in [{"strength": 1.5}, {"strength": float("nan")}, {"k": -1}, {"k": 2.5}, {"steps": 9},
                   {"radius": True}, {"adaptive": 1}, {"collision": "0.5"}, {"absorption_last_n": 65537},
                   {"seed": -1}]:
        name = next(iter(fields))
        try:
            scatter_params(**fields)
            check(False, f"{fields} was accepted")
        except ValueError as e:
            check(repr(name) in str(e), f"{fields}: the message does not name {name}: {e}")
    for call, expected in [(lambda: scatter_params("loud"), ValueError), (lambda: scatter_params(strenght=0.2), TypeError)]:
        try:
            call()
            check(False, f"{expected.__name__} not raised")
        except expected as e:
            check("loud" in str(e) or "strenght" in str(e), f"message: {e}")


def low_level_generate(llm, chain, n=24):
    llm.reset()
    llm.eval(llm.tokenize(PROMPT.encode()))
    out = []
    for _ in range(n):
        token = llama_cpp.llama_sampler_sample(chain.sampler, llm.ctx, -1)
        if token == llm.token_eos():
            break
        out.append(token)
        llm.eval([token])
    return out


def low_level_chain_keeps_greedy_text():
    llm = llama()
    plain = LlamaSampler()
    plain.add_top_k(40)
    plain.add_greedy()
    base = low_level_generate(llm, plain)
    check(len(base) > 0, "no greedy text")
    for name in llama_scatter.preset_names():
        chain = LlamaSampler()
        chain.add_top_k(40)
        scatter = ScatterSampler(name, seed=3)
        scatter.add_to(chain)
        chain.add_greedy()
        tokens = low_level_generate(llm, chain)
        check(tokens == base, f"{name}: greedy text changed")
        stats = scatter.stats()
        check(stats["n_apply"] == len(tokens) + (len(tokens) < 24) and stats["n_scattered"] > 0,
              f"{name}: stats {stats} after {len(tokens)} tokens")


def completions_with_scatter():
    llm = llama(scatter="creative", seed=7)
    kw = dict(max_tokens=32, temperature=1.0, top_k=40, top_p=0.95, min_p=0.05)
    a = llm.create_completion(PROMPT, seed=7, **kw)["choices"][0]["text"]
    stats = llm.last_scatter.stats()
    check(stats["n_apply"] >= 32 and stats["n_scattered"] > 0, f"creative: stats {stats}")
    b = llm.create_completion(PROMPT, seed=7, **kw)["choices"][0]["text"]
    c = llm.create_completion(PROMPT, seed=8, **kw)["choices"][0]["text"]
    check(a == b, "creative: the same seed gave two texts")
    check(a != c, "creative: seeds 7 and 8 gave the same text")
    llm.scatter = scatter_params(strength=0.5)
    strong = llm.create_completion(PROMPT, seed=7, **kw)["choices"][0]["text"]
    llm.scatter = None
    plain = llm.create_completion(PROMPT, seed=7, **kw)["choices"][0]["text"]
    check(llm.last_scatter is None, "scatter None: a scatter sampler was still made")
    check(strong != plain, "strength 0.5 did not change the text")
    llm.scatter = scatter_params("creative")
    greedy = llm.create_completion(PROMPT, temperature=0.0, max_tokens=16)["choices"][0]["text"]
    llm.scatter = None
    check(greedy == llm.create_completion(PROMPT, temperature=0.0, max_tokens=16)["choices"][0]["text"],
          "temperature 0: the text changed")


def chat_and_streaming():
    # llama-cpp-python 0.3.36 does not take Gemma 3's template from the GGUF (it falls back to llama-2).
    llm = llama(scatter="adaptive", chat_format="gemma")
    messages = [{"role": "user", "content": "Write one sentence about the sea."}]
    kw = dict(max_tokens=24, temperature=0.9, seed=11)
    whole = llm.create_chat_completion(messages, **kw)["choices"][0]["message"]["content"]
    check(whole and llm.last_scatter.stats()["n_scattered"] > 0, f"chat: {whole!r}, {llm.last_scatter.stats()}")
    streamed = "".join(chunk["choices"][0]["delta"].get("content", "") or ""
                       for chunk in llm.create_chat_completion(messages, stream=True, **kw))
    check(streamed == whole, f"chat streamed {streamed!r} differs from {whole!r}")
    pieces = list(llm.create_completion(PROMPT, stream=True, max_tokens=16, temperature=0.9, seed=11))
    check(len(pieces) > 1 and llm.last_scatter.stats()["n_apply"] >= len(pieces) - 1, "completion streaming")


def version_guard_refuses_other_releases():
    with tempfile.TemporaryDirectory() as fake:
        info = os.path.join(fake, "llama_cpp_python-0.3.35.dist-info")
        os.mkdir(info)
        with open(os.path.join(info, "METADATA"), "w") as f:
            f.write("Metadata-Version: 2.1\nName: llama_cpp_python\nVersion: 0.3.35\n")
        probe = ("import re, sys\n"
                 "try:\n    import llama_scatter\nexcept ImportError as e:\n    print('refused:', e)\n"
                 "print('libllama loaded' if re.search(r'/libllama\\.so', open('/proc/self/maps').read()) else 'nothing loaded')\n")
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120,
                             env=dict(os.environ, PYTHONPATH=fake)).stdout
    check("refused:" in out and "0.3.35" in out and "0.3.36" in out, f"no refusal naming both releases: {out!r}")
    check("nothing loaded" in out, f"libllama was loaded before the refusal: {out!r}")


def example_runs():
    # Run from a copy: beside python/llama_scatter/ it would import the sources, not the wheel.
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "example.py")
    with tempfile.TemporaryDirectory() as work:
        example = shutil.copy(source, work)
        proc = subprocess.run([sys.executable, example, MODEL], capture_output=True, text=True, timeout=600)
    check(proc.returncode == 0 and "ScatterLlama:" in proc.stdout and "low-level chain:" in proc.stdout,
          f"example.py: exit {proc.returncode}\n{proc.stdout[-1000:]}\n{proc.stderr[-2000:]}")


for name, test in [("version and layout agree with the header; one libllama", version_and_layout),
                   ("the wheel's library is stripped", the_library_is_stripped),
                   ("the kernels follow the CPU and LLAMA_SCATTER_KERNELS", kernels_follow_the_cpu),
                   ("parameters, presets and bad values", parameters_and_bad_values),
                   ("low-level chain: greedy text unchanged by every preset", low_level_chain_keeps_greedy_text),
                   ("completions: seeds, strength, stats, greedy", completions_with_scatter),
                   ("chat completion and streaming", chat_and_streaming),
                   ("the version guard refuses another llama-cpp-python", version_guard_refuses_other_releases),
                   ("python/example.py runs", example_runs)]:
    before = len(failures)
    test()
    print(f"{'ok  ' if len(failures) == before else 'FAIL'} {name}", flush=True)
print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
