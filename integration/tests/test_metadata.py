"""A model's own sampler order: llama.cpp takes a GGUF's `general.sampling.sequence` as the default
chain when no --samplers is given. One without scatter still gets an enabled scatter, before
temperature, with the same warning as a --samplers list without it, in llama-completion and in
llama-server's chain; a disabled scatter stays out of it, and nothing is said. The model is a copy
of the real one with that key written by the `gguf` package (scripts/tools-test-env.sh).

usage: test_metadata.py BIN_DIR MODEL
"""

import os
import re
import tempfile

import gguf
from gguf.scripts.gguf_new_metadata import MetadataDetails, copy_with_new_metadata, get_field_data

from tools import PROMPTS, Server, args, chain_line, check, completion, run_tests

BIN, MODEL = args()
# No scatter, and none of the default chain's other samplers: a chain of exactly these shows that
# the model's order was taken.
SEQUENCE = ["top_k", "top_p", "min_p", "temperature"]
WARNING = "scatter is enabled but the sampler list has none"


def copy_with_sequence(dest, sequence):
    reader = gguf.GGUFReader(MODEL, "r")
    writer = gguf.GGUFWriter(dest, arch=get_field_data(reader, gguf.Keys.General.ARCHITECTURE),
                             endianess=reader.endianess)
    alignment = get_field_data(reader, gguf.Keys.General.ALIGNMENT)
    if alignment is not None:
        writer.data_alignment = alignment
    key = "general.sampling.sequence"
    copy_with_new_metadata(reader, writer, {key: MetadataDetails(gguf.GGUFValueType.STRING, ";".join(sequence))}, [])


def the_tools_insert_an_enabled_scatter():
    _, log = completion(BIN, model, PROMPTS[0], ["--temp", "1.0", "--scatter-preset", "creative"], n_predict=4)
    check(re.search(r"top-k -> top-p -> min-p -> scatter -> \??temp-ext -> dist\s*$", chain_line(log)),
          f"the model's order with scatter inserted: {chain_line(log)}")
    check(WARNING in log, "no warning that scatter was inserted into the model's order")


def a_disabled_scatter_stays_out():
    _, log = completion(BIN, model, PROMPTS[0], ["--temp", "1.0"], n_predict=4)
    check(re.search(r"top-k -> top-p -> min-p -> \??temp-ext -> dist\s*$", chain_line(log)), f"the model's order: {chain_line(log)}")
    check(WARNING not in log, "a warning about scatter while it is off")


def the_server_inserts_it_too():
    server = Server(BIN, model, ["--scatter-preset", "creative"])
    try:
        server.wait_ready()
        status, props = server.request("/props")
        check(status == 200, f"/props -> {status}")
        params = props["default_generation_settings"]["params"]
        check(params["samplers"] == ["top_k", "top_p", "min_p", "scatter", "temperature"],
              f"/props samplers: {params['samplers']}")
        check(params["scatter_enabled"], "/props: scatter_enabled is false")
        check(WARNING in server.output(), "llama-server gave no warning that scatter was inserted")
    finally:
        server.stop()


with tempfile.TemporaryDirectory() as folder:
    model = os.path.join(folder, "with-sequence.gguf")
    try:
        copy_with_sequence(model, SEQUENCE)
    except (OSError, ValueError) as e:
        raise SystemExit(f"FAIL writing the model copy: {e}")
    run_tests([
        ("an enabled scatter joins the model's sampler order, with a warning", the_tools_insert_an_enabled_scatter),
        ("a disabled scatter stays out of it", a_disabled_scatter_stays_out),
        ("llama-server's chain gets it too", the_server_inserts_it_too),
    ])
