"""The scatter token sampler (llama-scatter) for llama-cpp-python.

Scatter smooths the head of the next-token distribution over rank: after top-k/top-p/min-p, the best
`k` candidates' probabilities are blended with a Gaussian-smoothed copy of themselves, so the
runners-up gain mass from the leader without waking the tail as a higher temperature would.

Three ways in:

- ``ScatterLlama``: ``llama_cpp.Llama`` with scatter in its sampling chain, right before temperature,
  for ``create_completion``, ``create_chat_completion`` and their streaming forms::

      llm = ScatterLlama(model_path="model.gguf", scatter="creative", seed=7)
      llm.create_completion("Once upon a time", max_tokens=64)

- ``ScatterSampler``: one sampler for a low-level ``llama_cpp._internals.LlamaSampler`` chain
  (``sampler.add_to(chain)``, in the place you choose).
- ``scatter_params``: the parameters themselves (the C library's ``struct llama_scatter_params``),
  from its defaults or one of its presets, checked against the ranges of the llama.cpp tools' flags.

Parameters, presets and defaults are the C library's: see the project README.
"""

import ctypes
import math
from typing import Any, Dict, List, Optional, Union

from ._fields import FIELDS
from ._library import Params, Stats, lib

import llama_cpp

__all__ = ["Params", "ScatterLlama", "ScatterSampler", "kernels", "preset_names", "scatter_params", "__version__"]

__version__: str = lib.llama_scatter_version().decode()

#: ``LLAMA_DEFAULT_SEED``: ``ScatterLlama`` seeds scatter with the ``Llama``'s seed instead.
DEFAULT_SEED = 0xFFFFFFFF

#: The accepted range of each number parameter (a flag has none), the one of the llama.cpp tools and
#: llama-server, from the library's table of fields (``_fields.py``).
RANGES: Dict[str, tuple] = {field["name"]: (field["lo"], field["hi"]) for field in FIELDS if field["kind"] != "flag"}
_KINDS: Dict[str, str] = {field["name"]: field["kind"] for field in FIELDS}


def kernels() -> str:
    """The build of scatter's arithmetic this process runs, chosen once from the CPU: ``"x86-64-v3"``
    (AVX2, FMA and the rest of that level; unless ``LLAMA_SCATTER_KERNELS=baseline`` was set before the
    first sampler) or ``"baseline"``, what the wheel's library was compiled for (any x86-64)."""
    return lib.llama_scatter_kernels().decode()


def preset_names() -> List[str]:
    """The names ``scatter_params`` and ``ScatterLlama`` take, as the library lists them."""
    names = []
    while (name := lib.llama_scatter_preset_name(len(names))) is not None:
        names.append(name.decode())
    return names


def _checked(name: str, value: Any) -> Any:
    if _KINDS[name] == "flag":
        if not isinstance(value, bool):
            raise ValueError(f"scatter parameter {name!r} must be a bool, got {value!r}")
        return value
    lo, hi = RANGES[name]
    if _KINDS[name] != "float":
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"scatter parameter {name!r} must be an integer in [{lo}, {hi}], got {value!r}")
    elif isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"scatter parameter {name!r} must be a number in [{lo}, {hi}], got {value!r}")
    if not lo <= value <= hi:
        raise ValueError(f"scatter parameter {name!r} must be in [{lo}, {hi}], got {value!r}")
    return value


def scatter_params(preset: Optional[str] = None, **fields: Any) -> Params:
    """The library's default parameters (scatter off), or those of ``preset``, with ``fields``
    (``k=32``, ``strength=0.3``, ...) set over them.

    Raises ``ValueError`` naming the parameter for an unknown preset, a value of the wrong type or
    out of its range (``RANGES``), and ``TypeError`` for an unknown parameter name."""
    params = lib.llama_scatter_default_params()
    if preset is not None:
        if not isinstance(preset, str) or not lib.llama_scatter_preset_params(preset.encode(), ctypes.byref(params)):
            raise ValueError(f"unknown scatter preset {preset!r}; presets: {', '.join(preset_names())}")
    known = [name for name, _ in Params._fields_]
    for name, value in fields.items():
        if name not in known:
            raise TypeError(f"unknown scatter parameter {name!r}; parameters: {', '.join(known)}")
        setattr(params, name, _checked(name, value))
    return params


class ScatterSampler:
    """One scatter sampler (a llama.cpp ``struct llama_sampler *``), made from a preset and/or
    parameters as ``scatter_params`` takes them, or from a ``Params``.

    Until ``add_to`` hands it to a chain, this object owns it; afterwards the chain does, and this
    object keeps the chain alive so that ``stats`` stays valid."""

    def __init__(self, preset: Optional[str] = None, *, params: Optional[Params] = None, **fields: Any):
        if params is not None and (preset is not None or fields):
            raise TypeError("give either params or a preset and/or fields")
        self.params: Params = scatter_params(preset, **fields) if params is None else params
        self.ptr = lib.llama_sampler_init_scatter_params(ctypes.byref(self.params))
        if not self.ptr:
            raise MemoryError("llama_sampler_init_scatter_params returned NULL")
        self._chain: Optional[Any] = None

    @property
    def enabled(self) -> bool:
        """False for parameters under which scatter does nothing (the ``?scatter`` sampler)."""
        return bool(lib.llama_scatter_params_enabled(ctypes.byref(self.params)))

    def add_to(self, chain: "llama_cpp._internals.LlamaSampler") -> None:
        """Appends this sampler to a ``LlamaSampler`` chain, which takes ownership of it."""
        if self._chain is not None:
            raise ValueError("this scatter sampler is already in a chain")
        llama_cpp.llama_sampler_chain_add(chain.sampler, self.ptr)
        self._chain = chain

    def stats(self) -> Dict[str, Any]:
        """What the sampler did since it was made or reset: applies, collision-gate firings,
        rewrites, and the mean strength of those rewrites (``llama_sampler_scatter_stats``)."""
        s = Stats()
        lib.llama_sampler_scatter_stats(self.ptr, ctypes.byref(s))
        mean = s.strength_sum / s.n_scattered if s.n_scattered else 0.0
        return {"n_apply": s.n_apply, "n_fired": s.n_fired, "n_scattered": s.n_scattered, "mean_strength": mean}

    def __del__(self) -> None:
        if getattr(self, "_chain", 1) is None and getattr(self, "ptr", None):
            llama_cpp.llama_sampler_free(self.ptr)


class ScatterLlama(llama_cpp.Llama):
    """``llama_cpp.Llama`` with scatter in the sampling chain it builds for every generation:
    top_k -> typical -> top_p -> min_p -> **scatter** -> temp -> dist.

    ``scatter`` is a preset name or a ``Params`` (``scatter_params(...)``); set the attribute of the
    same name between calls to change it, or to None for none. A ``Params`` whose seed is
    ``DEFAULT_SEED`` (every preset's) is seeded with the ``Llama``'s seed, so ``seed=`` makes the
    whole generation reproducible. With ``temperature`` 0 (greedy) or mirostat llama-cpp-python's
    chain has no temperature step and scatter is not added; greedy text is unaffected by scatter
    anyway. ``last_scatter`` is the sampler of the latest generation (for ``stats()``).

    The chain is llama-cpp-python's own: scatter is inserted into the chain ``Llama._init_sampler``
    returns, which is why this package accepts exactly the llama-cpp-python releases it was tested
    with."""

    def __init__(self, *args: Any, scatter: Union[str, Params, None] = None, **kwargs: Any):
        self.scatter: Optional[Params] = scatter_params(scatter) if isinstance(scatter, str) else scatter
        self.last_scatter: Optional[ScatterSampler] = None
        super().__init__(*args, **kwargs)

    def _init_sampler(self, *args: Any, **kwargs: Any) -> "llama_cpp._internals.LlamaSampler":
        sampler = super()._init_sampler(*args, **kwargs)
        self.last_scatter = None
        if self.scatter is None:
            return sampler
        chain = sampler.sampler
        # llama.cpp names a disabled sampler "?name" (temperature 1 is "?temp").
        names = [llama_cpp.llama_sampler_name(llama_cpp.llama_sampler_chain_get(chain, i)).lstrip(b"?")
                 for i in range(llama_cpp.llama_sampler_chain_n(chain))]
        if b"temp" not in names:
            return sampler
        at = names.index(b"temp")
        tail = [llama_cpp.llama_sampler_chain_remove(chain, at) for _ in range(len(names) - at)]
        params = Params.from_buffer_copy(self.scatter)
        if params.seed == DEFAULT_SEED:
            params.seed = self._seed & 0xFFFFFFFF
        self.last_scatter = ScatterSampler(params=params)
        self.last_scatter.add_to(sampler)
        for smpl in tail:
            llama_cpp.llama_sampler_chain_add(chain, smpl)
        return sampler
