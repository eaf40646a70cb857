"""Builds the llama-scatter wheel around the C library of this repository.

LLAMA_SCATTER_LIBRARY names the libllama_scatter.so to ship: one built for this package, with no
DT_NEEDED on libllama (the CMake target `python_wheel` builds it; see llama_scatter/_library.py for
why). The version is the library's, read from ../Cargo.toml; the parameters' layout and ranges are in
llama_scatter/_fields.py, made from the library's table of fields. The wheel holds a native
library but no Python extension: tagged py3-none-<platform>."""

import os
import pathlib
import re
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

HERE = pathlib.Path(__file__).resolve().parent


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


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


setup(version=library_version(), cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel})
