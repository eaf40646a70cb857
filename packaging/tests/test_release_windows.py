"""The Windows release as a user meets it, under Wine (cmake/Release.cmake, README "Get it"): the zip
extracted into a folder whose path has a space, what it holds, every DLL its programs import either
in it or part of Windows, then llama-server.exe on the model with --scatter-preset creative (/health,
/props, a request with scatter fields that its generation_settings show, a bad field's 400 naming it,
the web UI's page, the CPU variant ggml loaded), each tool's --version, and llama-completion.exe
writing text with scatter in its chain.

Wine's only help is the tests' bcryptprimitives.dll on WINEPATH (LLAMA_SCATTER_WINE_DLLS, CTest sets
it: scripts/wine-run.sh); nothing of the build tree is on it.

usage: test_release_windows.py ZIP OBJDUMP MODEL
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile

if len(sys.argv) != 4:
    sys.exit(f"usage: {sys.argv[0]} ZIP OBJDUMP MODEL")
ZIP, OBJDUMP, MODEL = sys.argv[1:]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "integration", "tests"))
from tools import COMMON_ARGS, RANGES, Failure, Server, check, run_tests  # noqa: E402

WINE_RUN = os.path.join(ROOT, "scripts", "wine-run.sh")
TOOLS = ["llama-server", "llama-cli", "llama-completion"]
VARIANTS = sorted(os.environ["LLAMA_SCATTER_CPU_VARIANTS"].split())
VERSION = re.search(r"llama-scatter-(.+)-bin-win-cpu-x64\.zip$", ZIP).group(1)
# What Windows 10 and later have: the DLLs a program of the release may import without carrying them.
WINDOWS_DLLS = {"kernel32.dll", "msvcrt.dll", "advapi32.dll", "ws2_32.dll", "user32.dll", "shell32.dll",
                "ole32.dll", "bcrypt.dll", "bcryptprimitives.dll", "ntdll.dll", "userenv.dll", "dbghelp.dll",
                "crypt32.dll", "secur32.dll", "iphlpapi.dll", "shlwapi.dll", "winmm.dll", "gdi32.dll"}
WORK = tempfile.mkdtemp(prefix="release-windows-test-")
# A folder whose path has a space, as C:\Program Files\ has.
RELEASE = os.path.join(WORK, "llama scatter")
with zipfile.ZipFile(ZIP) as archive:
    archive.extractall(RELEASE)
REQUEST = {"prompt": "Once upon a time", "n_predict": 8, "seed": 1, "scatter_preset": "creative",
           "scatter_radius": 3.0}


def windows_path(path):
    """Wine's drive Z: is the Unix root."""
    return "Z:" + os.path.abspath(path).replace("/", "\\")


def run(tool, *args, timeout=300):
    """Runs the release's TOOL.exe under Wine; returns (exit code, stdout, stderr). Its output goes
    through files: Wine's own processes (wineserver, services.exe), which the first program of a
    session starts, inherit pipes and would hold them open past the program's exit."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        code = subprocess.run([WINE_RUN, os.path.join(RELEASE, tool + ".exe"), *args], stdout=out, stderr=err,
                              timeout=timeout).returncode
        out.seek(0)
        err.seek(0)
        return code, out.read(), err.read()


def the_zip_holds_what_a_user_needs():
    for path in [*(tool + ".exe" for tool in TOOLS), "llama_scatter.dll", "libllama.dll", "ggml.dll", "ggml-base.dll",
                 "libstdc++-6.dll", "libgomp-1.dll", "lib/libllama_scatter.dll.a", "lib/llama_scatter.lib",
                 "lib/libllama_scatter.a", "include/llama-scatter.h", "include/llama.h",
                 "lib/cmake/llama_scatter/llama_scatterConfig.cmake", "lib/pkgconfig/llama-scatter.pc", "LICENSE",
                 "LICENSE.llama.cpp", "LICENSE.cpp-httplib", "LICENSE.jsonhpp", "CHANGELOG.md", "README.md",
                 "share/llama-scatter/sillytavern/llama-scatter/manifest.json"]:
        check(os.path.isfile(os.path.join(RELEASE, path)), f"the zip has no {path}")
    check(not os.path.exists(os.path.join(RELEASE, "bcryptprimitives.dll")), "the zip carries the tests' bcryptprimitives.dll")
    variants = sorted(re.fullmatch(r"ggml-cpu-(.+)\.dll", name).group(1)
                      for name in os.listdir(RELEASE) if name.startswith("ggml-cpu-"))
    print(f"note: CPU variants: {' '.join(variants)}", flush=True)
    check(variants == VARIANTS, f"the CPU variants are {variants}, not the release's {VARIANTS}")


def every_dll_a_program_needs_is_in_the_zip_or_windows():
    top = {name.lower() for name in os.listdir(RELEASE)}
    binaries = sorted(name for name in os.listdir(RELEASE) if name.endswith((".exe", ".dll")))
    check(len(binaries) > 10, f"only {binaries} at the top of the zip")
    for name in binaries:
        dump = subprocess.run([OBJDUMP, "-p", os.path.join(RELEASE, name)], capture_output=True, text=True, check=True)
        imports = {dll.lower() for dll in re.findall(r"DLL Name: (\S+)", dump.stdout)}
        missing = sorted(dll for dll in imports - top - WINDOWS_DLLS if not dll.startswith("api-ms-win-"))
        check(not missing, f"{name} imports {missing}, neither in the zip nor part of Windows")


def the_dlls_and_the_library_are_stripped():
    """MinGW's runtime DLLs carry no debug information (Debian's libstdc++-6.dll has 21 MB of it), nor
    does the library's DLL (cmake/Install.cmake strips what cargo built)."""
    for name in ("libstdc++-6.dll", "libgcc_s_seh-1.dll", "libgomp-1.dll", "libwinpthread-1.dll", "llama_scatter.dll"):
        sections = subprocess.run([OBJDUMP, "-h", os.path.join(RELEASE, name)], capture_output=True, text=True,
                                  check=True).stdout
        check(".debug_" not in sections, f"{name} carries debug information")


def the_library_exports_the_header_functions():
    """llama_scatter.dll exports every function the header declares, and the MSVC import library names each."""
    with open(os.path.join(RELEASE, "include", "llama-scatter.h")) as f:
        declared = set(re.findall(r"\b(llama_(?:sampler_init_scatter\w*|scatter_\w+))\s*\(", f.read()))
    check(len(declared) >= 5, f"the header declares {sorted(declared)}")
    dump = subprocess.run([OBJDUMP, "-p", os.path.join(RELEASE, "llama_scatter.dll")], capture_output=True, text=True,
                          check=True).stdout
    exported = set(re.findall(r"^\s*\[\s*\d+\]\s+(?:\+base\[\s*\d+\]\s+\w+\s+)?(\w+)$", dump, re.M))
    check(declared <= exported, f"llama_scatter.dll does not export {sorted(declared - exported)}")
    with open(os.path.join(RELEASE, "lib", "llama_scatter.lib"), "rb") as f:
        implib = f.read()
    absent = sorted(name for name in declared if name.encode() not in implib)
    check(not absent, f"llama_scatter.lib does not name {absent}")


def serves_scatter():
    server = Server(None, windows_path(MODEL), extra=["--scatter-preset", "creative"], launcher=[WINE_RUN, os.path.join(RELEASE, "llama-server.exe")])
    try:
        server.wait_ready()
        status, props = server.request("/props")
        check(status == 200, f"/props -> {status}")
        defaults = {k: v for k, v in props["default_generation_settings"]["params"].items() if k.startswith("scatter_")}
        check(defaults.get("scatter_enabled") is True and len(defaults) > 5, f"/props: {defaults}")
        check("+scatter" in props.get("build_info", ""), f"/props build_info: {props.get('build_info')}")
        status, body = server.request("/completion", REQUEST)
        check(status == 200, f"/completion -> {status}: {body}")
        settings = body["generation_settings"]
        check(settings["scatter_enabled"] and settings["scatter_radius"] == REQUEST["scatter_radius"],
              f"generation_settings: scatter_enabled {settings['scatter_enabled']}, radius {settings['scatter_radius']}")
        # The server's preset (creative, from the command line) and the request's agree but for the radius.
        for name, value in defaults.items():
            if name != "scatter_radius" and isinstance(value, (int, float)):
                check(settings[name] == value, f"generation_settings {name} = {settings[name]}, creative's is {value}")
        check(body["content"].strip(), "the completion is empty")
        hi = RANGES["strength"][1]
        for name, value in [("scatter_strength", hi * 2), ("scatter_preset", "loud")]:
            status, res = server.request("/completion", {"prompt": "Hi", "n_predict": 1, name: value})
            check(status == 400 and name in str(res), f"{name}={value!r} -> {status}: {res}")
        server.check_ui_page()
        with open(f"/proc/{server.proc.pid}/maps") as maps:
            paths = {line.split(None, 5)[5].strip() for line in maps if len(line.split(None, 5)) == 6}
        loaded = sorted(path for path in paths if re.search(r"/ggml-cpu-[^/]+\.dll$", path))
        check(len(loaded) == 1, f"llama-server.exe has mapped {loaded}, not one CPU variant")
        variant = re.search(r"ggml-cpu-(.+)\.dll", loaded[0]).group(1)
        print(f"note: ggml loaded the CPU variant {variant} under Wine ({loaded[0]})", flush=True)
        check(variant in VARIANTS and loaded[0].startswith(RELEASE), f"ggml loaded {loaded[0]}")
    except Failure:
        print(server.tail())
        raise
    finally:
        server.stop()


def each_tool_names_its_version():
    # llama-server.exe --version, under Wine 8, prints its version and then never exits: its version is
    # checked through /props (serves_scatter).
    for tool in ("llama-cli", "llama-completion"):
        code, out, err = run(tool, "--version", timeout=120)
        check(code == 0 and "+scatter" in out + err, f"{tool}.exe --version: {code} {out[-500:]}{err[-1000:]}")


def llama_completion_writes_with_scatter():
    code, out, err = run("llama-completion", "-m", windows_path(MODEL), *COMMON_ARGS, "-no-cnv", "--no-display-prompt",
                         "-p", "Once upon a time", "-n", "16", "--scatter-preset", "creative")
    check(code == 0, f"llama-completion.exe exited with {code}:\n{err[-3000:]}")
    check(re.search(r"sampler chain: .*scatter", err), f"no scatter in the chain:\n{err[-2000:]}")
    check(out.strip(), f"llama-completion.exe wrote no text:\n{err[-2000:]}")

try:
    print(f"note: llama-scatter {VERSION} extracted into '{RELEASE}'", flush=True)
    run_tests([("the zip holds what a user needs", the_zip_holds_what_a_user_needs),
               ("every DLL a program imports is in the zip or part of Windows",
                every_dll_a_program_needs_is_in_the_zip_or_windows),
               ("MinGW's runtime DLLs and the library are stripped", the_dlls_and_the_library_are_stripped),
               ("llama_scatter.dll and llama_scatter.lib carry the header's functions",
                the_library_exports_the_header_functions),
               ("llama-server.exe serves scatter under Wine", serves_scatter),
               ("each tool names its version with +scatter", each_tool_names_its_version),
               ("llama-completion.exe writes text with scatter", llama_completion_writes_with_scatter)])
finally:
    shutil.rmtree(WORK, ignore_errors=True)
