"""Scatter under llama-server's speculative decoding, on the real model: a draft model
(the model itself, so that most drafts are accepted) and n-gram drafting (ngram-simple), with scatter
on the CPU and with backend sampling. Each server is started on 127.0.0.1 at a free port, one at a
time, and stopped whatever happens. Checked: drafts are made and accepted, no request fails, and
wherever llama.cpp's own chain keeps the same text with and without speculation at a fixed seed (the
draft's batch may round the logits otherwise), scatter keeps it too."""

from tools import Failure, Server, args, check, run_tests

BIN, MODEL = args()
# Repetitive enough for n-gram drafting to find matches.
PROMPT = "One, two, three, four. One, two, three, four. One, two, three, four. One, two,"
SPECULATION = {
    "none": [],
    "draft model": ["-md", MODEL, "--spec-type", "draft-simple", "--spec-draft-n-max", "4"],
    "n-gram": ["--spec-type", "ngram-simple", "--spec-ngram-simple-size-n", "3", "--spec-ngram-simple-size-m", "8"],
}
# (label, request fields): llama.cpp's own chain, then scatter with and without the collision gate,
# on the CPU and on the backend (where the gate falls back: several outputs per sequence).
CHAINS = [
    ("llama.cpp's chain", {}),
    ("creative", {"scatter_preset": "creative"}),
    ("collision", {"scatter_preset": "collision"}),
    ("creative, backend sampling", {"scatter_preset": "creative", "backend_sampling": True}),
    ("collision, backend sampling", {"scatter_preset": "collision", "backend_sampling": True}),
]
TEMPERATURES = [0.8, 0.0]


def generate(extra):
    """{(chain label, temperature): (text, timings, generation_settings)} from a server started with
    `extra`."""
    server = Server(BIN, MODEL, extra)
    try:
        server.wait_ready()
        out = {}
        for label, fields in CHAINS:
            for temperature in TEMPERATURES:
                status, body = server.request("/completion", {
                    "prompt": PROMPT, "n_predict": 32, "seed": 11, "temperature": temperature,
                    "cache_prompt": False, **fields})
                check(status == 200, f"{label}, temperature {temperature}: HTTP {status}: {body}")
                out[label, temperature] = (body["content"], body.get("timings", {}), body["generation_settings"])
        return out
    finally:
        server.stop()


RESULTS = {name: None for name in SPECULATION}


def results(name):
    if RESULTS[name] is None:
        RESULTS[name] = generate(SPECULATION[name])
    return RESULTS[name]


def drafts_are_made_and_accepted(name):
    def test():
        runs = results(name)
        for label, _ in CHAINS:
            timings = [runs[label, t][1] for t in TEMPERATURES]
            drafted = sum(t.get("draft_n", 0) for t in timings)
            accepted = sum(t.get("draft_n_accepted", 0) for t in timings)
            check(drafted > 0 and accepted > 0, f"{name}, {label}: drafted {drafted}, accepted {accepted}")
            enabled = runs[label, TEMPERATURES[0]][2]["scatter_enabled"]
            check(enabled is (label != "llama.cpp's chain"), f"{name}, {label}: scatter_enabled is {enabled}")
    return test


def same_text_where_llama_cpp_keeps_it(name):
    def test():
        plain, spec = results("none"), results(name)
        compared = 0
        for t in TEMPERATURES:
            if plain["llama.cpp's chain", t][0] != spec["llama.cpp's chain", t][0]:
                print(f"     ({name}, temperature {t}: llama.cpp's own chain changes the text under speculation)")
                continue
            for label, _ in CHAINS:
                check(plain[label, t][0] == spec[label, t][0],
                      f"{name}, {label}, temperature {t}: the text differs with speculation:\n"
                      f"{plain[label, t][0]!r}\n{spec[label, t][0]!r}")
                compared += 1
        check(compared > 0, f"{name}: llama.cpp's own chain kept no text, nothing was compared")
    return test


try:
    run_tests([
        ("draft model: drafts made and accepted with every chain", drafts_are_made_and_accepted("draft model")),
        ("draft model: the same text as without speculation", same_text_where_llama_cpp_keeps_it("draft model")),
        ("n-gram: drafts made and accepted with every chain", drafts_are_made_and_accepted("n-gram")),
        ("n-gram: the same text as without speculation", same_text_where_llama_cpp_keeps_it("n-gram")),
    ])
except Failure as e:
    print(f"FAIL server: {e}")
    raise SystemExit(1)
