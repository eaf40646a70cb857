"""The parameters of the library as Python reads them: the fields of `struct llama_scatter_params`
from include/llama-scatter.h, and the range each one accepts from the tools' table of fields,
integration/llama.cpp/files/common/scatter-fields.def (made from scatter-core's table,
scatter-core/src/fields.rs).

One reader for every Python consumer (the wheel's build writes its result into the package;
the tools' tests import it), so a new field or cap reaches them from those two files alone."""

import os
import re

CTYPES = {"int32_t": "c_int32", "uint32_t": "c_uint32", "float": "c_float", "bool": "c_bool"}
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
HEADER = os.path.join(ROOT, "include", "llama-scatter.h")
FIELDS_DEF = os.path.join(ROOT, "integration", "llama.cpp", "files", "common", "scatter-fields.def")


def params_fields(header):
    """[(name, C type)] of `struct llama_scatter_params`, in order."""
    body = re.search(r"typedef struct llama_scatter_params \{(.*?)\}", header, re.S).group(1)
    return [(name, ctype) for ctype, name in re.findall(r"^\s*(\w+) (\w+);", body, re.M)]


def params_ctypes(header):
    """[(name, name of its ctypes type)] of `struct llama_scatter_params`: a ctypes.Structure's
    _fields_ once each name is looked up in ctypes."""
    return [(name, CTYPES[ctype]) for name, ctype in params_fields(header)]


def params_ranges(fields_def):
    """{name: (lo, hi)} of every number field of the tools' table; a flag has none."""
    ranges = {}
    for name, kind, lo, hi in re.findall(r"^SCATTER_FIELD\((\w+), (\w+), ([\d.]+), ([\d.]+),", fields_def, re.M):
        if kind != "FLAG":
            number = int if kind == "INT" else float
            ranges[name] = (number(lo), number(hi))
    return ranges


def read(path):
    with open(path) as f:
        return f.read()
