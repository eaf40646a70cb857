#!/usr/bin/env python3
"""Writes a small llama-architecture GGUF with deterministic random weights: the model of the GPU
bundle (scripts/gpu-bundle.sh), where there is no network to fetch a real one.

    python3 scripts/random-model.py OUT.gguf

Backend sampling's correctness does not need a good model, only rows of logits like a real one's: a
vocabulary of 32,000 (a SentencePiece one, so that llama.cpp tokenizes any prompt), logits spread
with a standard deviation of about 3, two layers of width 64 (the model's own time per token is small,
so sampling's share of it is large: BENCHMARKS.md says what its tokens/s mean). Needs the `gguf`
package (PyPI) and numpy; the same versions write the same bytes."""

import itertools
import string
import sys

import gguf
import numpy as np

VOCABULARY = 32000
WIDTH = 64
LAYERS = 2
HEADS = 4
FEED_FORWARD = 128
CONTEXT = 1024
SEED = 20261203
# Logits are the final hidden state (RMS 1) times the embeddings: a weight of standard deviation
# 3 / sqrt(WIDTH) spreads them with a standard deviation of about 3.
LOGIT_SPREAD = 3.0


def vocabulary():
    """SentencePiece pieces: <unk>, <s>, </s>, the 256 byte fallbacks, then every printable
    character and lowercase pair and triple, each alone and after the word boundary ▁."""
    tokens = ["<unk>", "<s>", "</s>"] + [f"<0x{b:02X}>" for b in range(256)]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    types += [gguf.TokenType.BYTE] * 256
    singles = [c for c in string.printable if not c.isspace()]
    letters = string.ascii_lowercase
    words = itertools.chain(singles, map("".join, itertools.product(letters, repeat=2)),
                            map("".join, itertools.product(letters, repeat=3)))
    for word in words:
        for piece in ("\u2581" + word, word):
            if len(tokens) < VOCABULARY:
                tokens.append(piece)
                types.append(gguf.TokenType.NORMAL)
    # Shorter pieces first, so the tokenizer prefers the longest match it can score.
    scores = [0.0] * 259 + [-float(i) for i in range(len(tokens) - 259)]
    return tokens, scores, types


def main(path):
    rng = np.random.default_rng(SEED)

    def weight(*shape, scale):
        return (rng.standard_normal(shape) * scale).astype(np.float16)

    writer = gguf.GGUFWriter(path, "llama")
    writer.add_name("llama-scatter random check model")
    writer.add_context_length(CONTEXT)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FEED_FORWARD)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens, scores, types = vocabulary()
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)

    # numpy shapes are ggml's reversed: (rows, columns) = (ne1, ne0). The output is not tied to
    # the embeddings, which would make every token its own likeliest successor.
    writer.add_tensor("token_embd.weight", weight(VOCABULARY, WIDTH, scale=1.0))
    writer.add_tensor("output_norm.weight", np.ones(WIDTH, dtype=np.float32))
    writer.add_tensor("output.weight", weight(VOCABULARY, WIDTH, scale=LOGIT_SPREAD / WIDTH**0.5))
    inner = 1 / WIDTH**0.5
    for layer in range(LAYERS):
        block = f"blk.{layer}"
        writer.add_tensor(f"{block}.attn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(f"{block}.{name}.weight", weight(WIDTH, WIDTH, scale=inner))
        writer.add_tensor(f"{block}.ffn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        writer.add_tensor(f"{block}.ffn_gate.weight", weight(FEED_FORWARD, WIDTH, scale=inner))
        writer.add_tensor(f"{block}.ffn_up.weight", weight(FEED_FORWARD, WIDTH, scale=inner))
        writer.add_tensor(f"{block}.ffn_down.weight", weight(WIDTH, FEED_FORWARD, scale=1 / FEED_FORWARD**0.5))

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
