#!/usr/bin/env python3
"""Tokens per second of llama-completion with backend sampling (-bs), with scatter (a preset) and
without, in alternating runs, and with scatter falling back to the CPU (--scatter-k 300); prints each
run and the medians. A benchmark, not a test.

    python3 bench/backend_sampling.py BUILD/bin MODEL.gguf [--runs 7] [--tokens 256] [--preset creative]
        [--device-args "-ngl 99 -dev CUDA0" | --rpc-server BUILD/c_tests/scatter_rpc_server]

Reads llama.cpp's own timing lines: "eval time" (the generated tokens; with -bs the sampling runs in
that graph) and the whole run's "total time".

With --rpc-server the model runs on a ggml RPC server that the script starts on a free loopback port
(every layer and the output: "--rpc 127.0.0.1:PORT -ngl 99"), and the script also counts the bytes
the server sends and receives (bench/rpc-bytes.c, preloaded into it: its send and recv calls):
everything the host and the device exchange, the graph's description included. Per token: (bytes of
a run of N tokens - bytes of a run of 1 token) / (N - 1), so the model's upload and the prompt cancel
out."""

import argparse
import os
import re
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

PROMPT = "Once upon a time, in a village by the sea,"


def run(bin_dir, model, tokens, seed, extra):
    cmd = [os.path.join(bin_dir, "llama-completion"), "-m", model, "--threads", "2", "--ctx-size", "512",
           "-no-cnv", "--no-display-prompt", "-p", PROMPT, "-n", str(tokens), "--ignore-eos",
           "--temp", "0.8", "--seed", str(seed), "-bs", *extra]
    # Once in CI (the bundle's offline run) a run ended without llama.cpp's timing lines and with exit
    # status 0; such a run is reported with the end of its log and made again, once.
    for attempt in (1, 2):
        # errors="replace": a model may print bytes that are not UTF-8 (a random one does).
        log = subprocess.run(cmd, capture_output=True, text=True, errors="replace", check=True, timeout=600).stderr
        chain = re.search(r"sampler chain: (.*)", log)
        eval_tps = re.search(r"\beval time =.*?([\d.]+) tokens per second", log)
        if chain and eval_tps:
            return chain.group(1), float(eval_tps.group(1))
        tail = "\n    ".join(log.splitlines()[-12:])
        print(f"attempt {attempt} of {' '.join(extra)} (seed {seed}): no timing line; the log ends:\n    {tail}",
              file=sys.stderr, flush=True)
    raise RuntimeError("llama-completion printed no timing line twice")


class RpcServer:
    """The RPC server on a free loopback port, with the bytes its sockets have moved so far counted by
    bench/rpc-bytes.c (preloaded) in a file."""

    def __init__(self, binary):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        shim = os.path.join(os.path.dirname(binary), os.pardir, "bench", "scatter-rpc-bytes.so")
        self.counts = tempfile.NamedTemporaryFile(prefix="scatter-rpc-bytes-")
        env = dict(os.environ, LD_PRELOAD=os.path.abspath(shim), SCATTER_RPC_BYTES=self.counts.name)
        self.proc = subprocess.Popen([binary, f"127.0.0.1:{self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, env=env)
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"the RPC server is not listening on 127.0.0.1:{self.port}")

    def device_args(self):
        return ["--rpc", f"127.0.0.1:{self.port}", "-ngl", "99"]

    def bytes(self):
        """Bytes the server has sent and received so far."""
        with open(self.counts.name, "rb") as f:
            sent, received = struct.unpack("=QQ", f.read(16))
        return sent + received

    def stop(self):
        self.proc.kill()
        self.proc.wait()
        self.counts.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("model")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--tokens", type=int, default=256)
    ap.add_argument("--preset", default="creative")
    ap.add_argument("--device-args", default="", help="llama.cpp arguments that choose the device, for every run")
    ap.add_argument("--rpc-server", help="scatter_rpc_server: run the model on it, and count the bytes")
    a = ap.parse_args()
    server = RpcServer(a.rpc_server) if a.rpc_server else None
    device = server.device_args() if server else a.device_args.split()
    configs = {"-bs": device, f"-bs --scatter-preset {a.preset}": [*device, "--scatter-preset", a.preset],
               # k above the graph's 256 makes scatter fall back to the CPU (with the chain after it);
               # after top_k 40 the medium, and so the result, is the same as with k 64.
               f"-bs --scatter-preset {a.preset} --scatter-k 300": [*device, "--scatter-preset", a.preset,
                                                                    "--scatter-k", "300"]}
    try:
        if server:
            for name, extra in configs.items():
                sent = []
                for tokens in (1, a.tokens):
                    before = server.bytes()
                    run(a.bin_dir, a.model, tokens, 100, extra)
                    sent.append(server.bytes() - before)
                print(f"bytes  {name:32s} {(sent[1] - sent[0]) / (a.tokens - 1):10.0f} per token "
                      f"(runs of 1 and {a.tokens} tokens: {sent[0]} and {sent[1]})", flush=True)
        # Round i runs every configuration once, starting with the i-th, so that no configuration
        # always comes first (or after the same one).
        names = list(configs)
        figures = {name: [] for name in names}
        for i in range(a.runs):
            for name in names[i % len(names):] + names[:i % len(names)]:
                chain, tps = run(a.bin_dir, a.model, a.tokens, 100 + i, configs[name])
                figures[name].append(tps)
                print(f"run {i}  {name:32s} {tps:8.2f} tokens/s   chain: {chain}", flush=True)
    finally:
        if server:
            server.stop()
    base = statistics.median(figures["-bs"])
    for name, values in figures.items():
        med = statistics.median(values)
        ratios = [v / b for v, b in zip(values, figures["-bs"])]
        print(f"median {name:32s} {med:8.2f} tokens/s  ({med / base:.3f} x -bs alone; "
              f"min {min(values):.2f}, max {max(values):.2f}; the same round's ratio: median "
              f"{statistics.median(ratios):.3f}, {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
