"""Loads libllama_scatter into this process against llama-cpp-python's own libllama.

The library shipped in this package is linked to no libllama and no libggml-base (no DT_NEEDED): its
llama.cpp symbols are bound at load time to the copies llama-cpp-python has already loaded. So there
is exactly one libllama in the process whatever soname, file name or RUNPATH llama-cpp-python's build
gave it. llama-cpp-python loads its libraries with RTLD_LOCAL; they are made global with
RTLD_NOLOAD (which reopens what is loaded and never loads a second copy) before this library is
loaded, and the process's mappings are checked before and after.

Nothing is loaded or called before the installed llama-cpp-python is found to be the release whose
llama.h the library was built against (SUPPORTED)."""

import ctypes
import importlib.metadata
import os
import re
import sys

from ._fields import FIELDS

SUPPORTED = ("0.3.36",)


def check_llama_cpp_python():
    """Raises ImportError unless the installed llama-cpp-python is a SUPPORTED release."""
    try:
        found = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        raise ImportError("llama-scatter needs llama-cpp-python " + " or ".join(SUPPORTED)
                          + ", which is not installed") from None
    if found not in SUPPORTED:
        raise ImportError(f"llama-scatter was built and tested for llama-cpp-python {' or '.join(SUPPORTED)} "
                          f"(its llama.h), but {found} is installed: install llama-cpp-python=="
                          f"{SUPPORTED[-1]}, or a llama-scatter built for {found}")


def mapped(pattern):
    """The distinct files mapped into this process whose name matches pattern."""
    with open("/proc/self/maps") as maps:
        paths = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
    return sorted(p for p in paths if re.fullmatch(pattern, os.path.basename(p)))


LIBLLAMA = r"libllama\.so(\.\d+)*"
LIBGGML_BASE = r"libggml-base\.so(\.\d+)*"


def one(pattern, when):
    paths = mapped(pattern)
    if len(paths) != 1:
        raise ImportError(f"llama-scatter: expected one {pattern} in the process {when}, found {paths or 'none'}")
    return paths[0]


def load():
    if not sys.platform.startswith("linux"):
        raise ImportError("llama-scatter's Python package supports Linux only")
    check_llama_cpp_python()
    import llama_cpp  # noqa: F401  (loads libllama and ggml)

    libllama = one(LIBLLAMA, "after importing llama_cpp")
    for path in (libllama, one(LIBGGML_BASE, "after importing llama_cpp")):
        ctypes.CDLL(path, mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
    lib = ctypes.CDLL(os.path.join(os.path.dirname(__file__), "libllama_scatter.so"))
    if one(LIBLLAMA, "after loading libllama_scatter") != libllama:
        raise ImportError("llama-scatter: libllama changed while loading libllama_scatter")
    return lib


class Params(ctypes.Structure):
    """`struct llama_scatter_params` of include/llama-scatter.h (the layout; the values come from
    the library: llama_scatter_default_params, llama_scatter_preset_params)."""

    _fields_ = [(field["name"], getattr(ctypes, field["ctype"])) for field in FIELDS]

    def __repr__(self):
        return f"Params({', '.join(f'{name}={getattr(self, name)!r}' for name, _ in self._fields_)})"


class Stats(ctypes.Structure):
    """`struct llama_scatter_stats` of include/llama-scatter.h."""

    _fields_ = [
        ("n_apply", ctypes.c_uint64),
        ("n_fired", ctypes.c_uint64),
        ("n_scattered", ctypes.c_uint64),
        ("strength_sum", ctypes.c_double),
    ]


lib = load()
import llama_cpp  # noqa: E402  (loaded by load(), after the version check)

lib.llama_scatter_default_params.restype = Params
lib.llama_scatter_default_params.argtypes = []
lib.llama_scatter_preset_params.restype = ctypes.c_bool
lib.llama_scatter_preset_params.argtypes = [ctypes.c_char_p, ctypes.POINTER(Params)]
lib.llama_scatter_preset_name.restype = ctypes.c_char_p
lib.llama_scatter_preset_name.argtypes = [ctypes.c_size_t]
lib.llama_scatter_params_enabled.restype = ctypes.c_bool
lib.llama_scatter_params_enabled.argtypes = [ctypes.POINTER(Params)]
lib.llama_sampler_init_scatter_params.restype = llama_cpp.llama_sampler_p_ctypes
lib.llama_sampler_init_scatter_params.argtypes = [ctypes.POINTER(Params)]
lib.llama_sampler_scatter_stats.restype = ctypes.c_bool
lib.llama_sampler_scatter_stats.argtypes = [llama_cpp.llama_sampler_p_ctypes, ctypes.POINTER(Stats)]
lib.llama_scatter_version.restype = ctypes.c_char_p
lib.llama_scatter_version.argtypes = []
lib.llama_scatter_kernels.restype = ctypes.c_char_p
lib.llama_scatter_kernels.argtypes = []
