"""The parameters of include/llama-scatter.h as Python reads them: the fields of
`struct llama_scatter_params` and the range each one accepts.

One reader for every Python consumer (the wheel's build writes its result into the package;
the tools' tests import it), so a new field or cap reaches them from the header alone.

The ranges are those of the llama.cpp tools' --scatter-* flags and llama-server's scatter_*
fields: from 0 to LLAMA_SCATTER_MAX_<FIELD> where the header defines that cap, else to 1 for a
float (the fractions of SPEC section 3) and to the type's largest value for an integer."""

import re

TYPE_MAX = {"int32_t": 2**31 - 1, "uint32_t": 2**32 - 1, "float": 1.0}
CTYPES = {"int32_t": "c_int32", "uint32_t": "c_uint32", "float": "c_float", "bool": "c_bool"}


def params_fields(header):
    """[(name, C type)] of `struct llama_scatter_params`, in order."""
    body = re.search(r"typedef struct llama_scatter_params \{(.*?)\}", header, re.S).group(1)
    return [(name, ctype) for ctype, name in re.findall(r"^\s*(\w+) (\w+);", body, re.M)]


def params_ctypes(header):
    """[(name, name of its ctypes type)] of `struct llama_scatter_params`: a ctypes.Structure's
    _fields_ once each name is looked up in ctypes."""
    return [(name, CTYPES[ctype]) for name, ctype in params_fields(header)]


def params_ranges(header):
    """{name: (lo, hi)} of every number field; a bool field has none."""
    caps = {name.lower(): value for name, value in
            re.findall(r"^#define LLAMA_SCATTER_MAX_(\w+) ([\d.]+)$", header, re.M)}
    ranges = {}
    for name, ctype in params_fields(header):
        if ctype == "bool":
            continue
        number = float if ctype == "float" else int
        ranges[name] = (number(0), number(caps[name]) if name in caps else TYPE_MAX[ctype])
    return ranges


def read(path):
    with open(path) as f:
        return f.read()
