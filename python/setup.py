"""Builds the llama-scatter wheel around the C library of this repository.

LLAMA_SCATTER_LIBRARY names the libllama_scatter.so to ship: one built for this package, with no
DT_NEEDED on libllama (the CMake target `python_wheel` builds it; see llama_scatter/_library.py for
why). The version is the library's, read from ../Cargo.toml; the parameters' layout is the header's and
their ranges the tools' (scripts/scatter_header.py reads both), written into llama_scatter/_header.py. The wheel holds a native
library but no Python extension: tagged py3-none-<platform>."""

import os
import pathlib
import re
import shutil
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
import scatter_header  # noqa: E402


def library_version():
    cargo = (HERE.parent / "Cargo.toml").read_text()
    return re.search(r'^version = "([^"]+)"', cargo, re.M).group(1)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library = os.environ.get("LLAMA_SCATTER_LIBRARY")
        if not library or not os.path.isfile(library):
            raise SystemExit("LLAMA_SCATTER_LIBRARY must name the libllama_scatter.so to ship "
                             "(build it with: cmake --build build --target python_wheel)")
        shutil.copyfile(library, os.path.join(self.build_lib, "llama_scatter", "libllama_scatter.so"))
        header = scatter_header.read(scatter_header.HEADER)
        fields_def = scatter_header.read(scatter_header.FIELDS_DEF)
        with open(os.path.join(self.build_lib, "llama_scatter", "_header.py"), "w") as out:
            out.write('"""Written by setup.py from include/llama-scatter.h and the tools\' scatter-fields.def '
                      '(scripts/scatter_header.py)."""\n\n')
            out.write(f"PARAMS_CTYPES = {scatter_header.params_ctypes(header)!r}\n")
            out.write(f"PARAMS_RANGES = {scatter_header.params_ranges(fields_def)!r}\n")


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(version=library_version(), cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
