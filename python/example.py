"""llama-scatter from Python: a completion with the creative preset, then the same through a
low-level llama-cpp-python chain.

    pip install llama_scatter-*.whl          # next to llama-cpp-python 0.3.36
    python example.py MODEL.gguf
"""

import sys

import llama_cpp
from llama_cpp._internals import LlamaSampler

from llama_scatter import ScatterLlama, ScatterSampler

PROMPT = "Once upon a time, in a village by the sea,"

llm = ScatterLlama(model_path=sys.argv[1], n_ctx=512, verbose=False, scatter="creative", seed=7)
out = llm.create_completion(PROMPT, max_tokens=48, temperature=0.8)
print("ScatterLlama:", out["choices"][0]["text"])
print("scatter stats:", llm.last_scatter.stats())

chain = LlamaSampler()
chain.add_top_k(40)
chain.add_top_p(0.95, 1)
chain.add_min_p(0.05, 1)
scatter = ScatterSampler("creative", seed=7)
scatter.add_to(chain)
chain.add_temp(0.8)
chain.add_dist(7)

llm.reset()
llm.eval(llm.tokenize(PROMPT.encode()))
tokens = []
for _ in range(48):
    token = llama_cpp.llama_sampler_sample(chain.sampler, llm.ctx, -1)
    if token == llm.token_eos():
        break
    tokens.append(token)
    llm.eval([token])
print("low-level chain:", llm.detokenize(tokens).decode(errors="replace"))
print("scatter stats:", scatter.stats())
