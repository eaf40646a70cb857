"""The portable release as a user gets it (cmake/Release.cmake, README "Get it"):

  archive  the .tar.gz extracted into a fresh folder (its programs and libraries stripped, its
           licences and CHANGELOG there), moved, and its llama-server run with a clean
           environment (env -i): /health, a request with scatter_* fields that its
           generation_settings show, the web UI's page, the CPU variant ggml loaded here, and the
           Vulkan module finding Mesa's lavapipe
  vulkan   the archive on lavapipe with -ngl 99 -bs: the model and scatter on Vulkan0 (a release
           check, CTest's release_vulkan_offload, left out of the release workflow's tests)
  deb      the .deb's control and files (dpkg-deb -I/-c), its copyright file holding every licence,
           lintian's verdict (no error, no warning), then unpacked into a scratch root and
           run the same way, then installed with apt in Debian 12 (libvulkan1 comes with it; no
           driver: the tools say so)
  image    the archive in Debian 12's minimal root (no Vulkan loader: the tools say so), then
           packaging/Containerfile built with podman from its context (the archive's server files,
           packaging/image-context.cmake; LLAMA_SCATTER_IMAGE_CONTEXT names the folder), run with the
           model mounted: the same checks, its HEALTHCHECK, and what it holds (the server's files in
           one layer, nothing twice); skipped (SKIP, with the reason) where podman cannot run containers
  cleanup  the images the other modes made removed: theirs, and the Debian base they made under a
           local name (CTest runs it after them, a fixture's cleanup)

With LLAMA_SCATTER_RELEASE_ARCH=arm64 (the ARM64 release, cross-built: cmake/Release.cmake) the
archive and the package are arm64's and both run in Debian 12's arm64 root, through qemu-user
(binfmt_misc): the archive's llama-server serves there (with a 400 for a bad field), and apt installs
the package there, whose llama-completion runs scatter and whose llama-server serves as the archive's;
neither has a Vulkan module.

The Debian base is made here with mmdebstrap (no registry is reachable) and named
localhost/llama-scatter-test-base: never a name that a user's own builds would resolve.

usage: test_release.py PACKAGES_DIR VERSION archive|vulkan|deb|image MODEL
       test_release.py PACKAGES_DIR VERSION cleanup
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile

if not (len(sys.argv) == 5 and sys.argv[3] in ("archive", "vulkan", "deb", "image")
        or len(sys.argv) == 4 and sys.argv[3] == "cleanup"):
    sys.exit(f"usage: {sys.argv[0]} PACKAGES_DIR VERSION archive|vulkan|deb|image MODEL | cleanup")
PACKAGES, VERSION, MODE = sys.argv[1:4]
MODEL = sys.argv[4] if MODE != "cleanup" else None
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ARCH = os.environ.get("LLAMA_SCATTER_RELEASE_ARCH", "x64")
DEB_ARCH, BASELINE_VARIANT = {"x64": ("amd64", "x64"), "arm64": ("arm64", "armv8.0_1")}[ARCH]
ARCHIVE = os.path.join(PACKAGES, f"llama-scatter-{VERSION}-bin-linux-{ARCH}.tar.gz")
DEB = os.path.join(PACKAGES, f"llama-scatter_{VERSION}_{DEB_ARCH}.deb")
TOOLS = ["llama-server", "llama-cli", "llama-completion"]
VARIANTS = sorted(os.environ.get("LLAMA_SCATTER_CPU_VARIANTS", "").split())
DEB_PREFIX = "opt/llama-scatter"
# The licences of what the release carries (cmake/Release.cmake), beside its README and CHANGELOG.
LICENSES = ["LICENSE", "LICENSE.llama.cpp", "LICENSE.cpp-httplib", "LICENSE.jsonhpp"]
# The package's files outside DEB_PREFIX, under its own name (packaging/debian-docs.cmake).
DEB_DOC = "usr/share/doc/llama-scatter"
DEB_OWN_FILES = [f"{DEB_DOC}/copyright", f"{DEB_DOC}/changelog.gz", "usr/share/lintian/overrides/llama-scatter"]
# Nothing of the build tree may be reached: not CTest's library path either.
os.environ.pop("LD_LIBRARY_PATH", None)
WORK = tempfile.mkdtemp(prefix="release-test-")


def unpack_archive():
    """The archive extracted into one folder, then moved: the release's root."""
    first = os.path.join(WORK, "first")
    with tarfile.open(ARCHIVE) as tar:
        tar.extractall(first, filter="tar")
    (top,) = os.listdir(first)
    moved = os.path.join(WORK, "moved")
    shutil.move(os.path.join(first, top), moved)
    return moved


def unpack_deb():
    root = os.path.join(WORK, "root")
    subprocess.run(["dpkg-deb", "-x", DEB, root], check=True)
    return os.path.join(root, DEB_PREFIX)


# tools.py reads the presets from the library: the release's own.
RELEASE = {"deb": unpack_deb, "archive": unpack_archive, "vulkan": unpack_archive, "image": unpack_archive}.get(MODE, lambda: None)()
if RELEASE:
    os.environ["LLAMA_SCATTER_LIBRARY"] = os.path.join(RELEASE, "lib", f"libllama_scatter.so.{VERSION}")
sys.path.insert(0, os.path.join(ROOT, "integration", "tests"))
import tools  # noqa: E402
from tools import Failure, Server, check, run_tests  # noqa: E402

REQUEST = {"prompt": "Once upon a time", "n_predict": 8, "seed": 1, "scatter_preset": "creative",
           "scatter_radius": 3.0}


def the_release_holds_what_a_user_needs():
    for path in [*(f"bin/{tool}" for tool in TOOLS), f"lib/libllama_scatter.so.{VERSION}", "lib/libllama_scatter.a",
                 "include/llama-scatter.h", "include/llama.h", "lib/cmake/llama_scatter/llama_scatterConfig.cmake",
                 "lib/pkgconfig/llama-scatter.pc", "lib/pkgconfig/llama.pc", *LICENSES, "README.md", "CHANGELOG.md",
                 "share/llama-scatter/sillytavern/llama-scatter/manifest.json"]:
        check(os.path.exists(os.path.join(RELEASE, path)), f"the release has no {path}")
    variants = sorted(re.fullmatch(r"libggml-cpu-(.+)\.so", name).group(1)
                      for name in os.listdir(os.path.join(RELEASE, "bin")) if name.startswith("libggml-cpu-"))
    print(f"note: CPU variants: {' '.join(variants)}", flush=True)
    check(variants == VARIANTS, f"the CPU variants are {variants}, not the release's {VARIANTS}")
    check(BASELINE_VARIANT in variants, f"no baseline variant {BASELINE_VARIANT} among {variants}")
    check(os.path.exists(os.path.join(RELEASE, "bin", "libggml-vulkan.so")) == (ARCH == "x64"),
          "x64's release has a Vulkan module, arm64's none")
    with open(os.path.join(RELEASE, "lib", "pkgconfig", "llama.pc")) as f:
        check("prefix=${pcfiledir}/../.." in f.read(), "llama.pc names a fixed prefix")


def the_release_is_stripped():
    """No program or shared library carries debug information or a symbol table beyond what it exports,
    nor the static library debug information: cpack strips llama.cpp's, cmake/Install.cmake the
    library cargo built (whose release profile keeps line tables)."""
    for name, path in [*elf_files(), ("lib/libllama_scatter.a", os.path.join(RELEASE, "lib", "libllama_scatter.a"))]:
        sections = subprocess.run(["readelf", "-S", "-W", path], capture_output=True, text=True, check=True).stdout
        check(".debug_" not in sections, f"{name} carries debug information")
        check(name.endswith(".a") or ".symtab" not in sections, f"{name} carries a symbol table")


def elf_files():
    """The release's programs and shared libraries: ELF files under bin/ and lib/, links left out."""
    for folder in ("bin", "lib"):
        for name in sorted(os.listdir(os.path.join(RELEASE, folder))):
            path = os.path.join(RELEASE, folder, name)
            if not os.path.islink(path) and os.path.isfile(path):
                with open(path, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        yield f"{folder}/{name}", path


def the_release_is_hardened():
    """Every program and shared library has its relocations read-only and bound at load (RELRO, BIND_NOW),
    and llama.cpp's, built with a stack protector and fortified libc calls, call their checks
    (cmake/LlamaCpp.cmake: Debian 12's hardening=+all)."""
    checked = set()
    for name, path in elf_files():
        dynamic = subprocess.run(["readelf", "-d", "-l", "-W", path], capture_output=True, text=True, check=True).stdout
        check("GNU_RELRO" in dynamic, f"{name} has no read-only relocations (GNU_RELRO)")
        check(re.search(r"\(FLAGS(_1)?\).*\b(BIND_)?NOW\b", dynamic), f"{name} is not bound at load (BIND_NOW)")
        if re.fullmatch(r"lib/lib(llama|llama-common|llama-server-impl|ggml-base)\.so[.\d]*", name):
            symbols = subprocess.run(["readelf", "--dyn-syms", "-W", path], capture_output=True, text=True,
                                     check=True).stdout
            check("__stack_chk_fail" in symbols, f"{name} has no stack protector (__stack_chk_fail)")
            check(re.search(r"\b__\w+_chk\b", symbols.replace("__stack_chk_fail", "")),
                  f"{name} calls no fortified libc function (__*_chk)")
            checked.add(re.sub(r"\.so[.\d]*$", "", name))
    check(len(checked) == 4, f"checked the stack protector of {sorted(checked)}, not of llama.cpp's four libraries")


# arm64's server runs with the README's --scatter-preset creative: creative_fields reads it back.
SERVER_ARGS = ["--scatter-preset", "creative"] if ARCH == "arm64" else []


def creative_fields(server):
    """The creative preset's fields as the library defines them: read here through ctypes where the
    release's library loads on this machine (x64); arm64's cannot, so from the server's /props, where
    its --scatter-preset creative (SERVER_ARGS) put them."""
    if ARCH == "x64":
        return tools.PRESET_FIELDS["creative"]
    status, props = server.request("/props")
    check(status == 200, f"/props -> {status}: {props}")
    params = props["default_generation_settings"]["params"]
    check(params.get("scatter_enabled") is True, f"/props: the server's creative preset is off: {params}")
    return {f"scatter_{name}": params[f"scatter_{name}"] for name in tools.FIELDS}


def check_serves(server, pid):
    """/health, a request with scatter fields, the web UI's page, and the CPU variant that the process
    `pid()` has loaded (its memory map: the server logs it only at a higher verbosity)."""
    server.wait_ready(READY_S)
    status, body = server.request("/completion", REQUEST)
    check(status == 200, f"/completion -> {status}: {body}")
    settings = body["generation_settings"]
    check(settings["scatter_enabled"], "scatter did not run")
    expected = dict(creative_fields(server), scatter_radius=REQUEST["scatter_radius"])
    for name, value in expected.items():
        check(abs(settings[name] - value) < 1e-6, f"generation_settings {name} = {settings[name]}, sent {value}")
    server.check_ui_page()
    with open(f"/proc/{pid()}/maps") as maps:
        loaded = sorted(set(re.findall(r"\S*/libggml-cpu-[^/\s]+\.so", maps.read())))
    check(len(loaded) == 1, f"llama-server has mapped {loaded}, not one CPU variant")
    variant = re.search(r"libggml-cpu-(.+)\.so", loaded[0]).group(1)
    print(f"note: ggml loaded the CPU variant {variant} on this machine ({loaded[0]})", flush=True)
    check(variant in VARIANTS, f"ggml loaded {variant}, not one of the release's variants {VARIANTS}")
    return loaded[0]


def check_versions(run):
    """Each tool's --version, as `run(tool)` runs it, names the build with scatter."""
    for tool in TOOLS:
        version = run(tool)
        check(version.returncode == 0 and "+scatter" in version.stdout + version.stderr,
              f"{tool} --version: {version.returncode} {version.stderr[-1000:]}")


def served_with_a_clean_environment(release):
    server = Server(None, MODEL, launcher=["env", "-i", os.path.join(release, "bin", "llama-server")])
    try:
        path = check_serves(server, lambda: server.proc.pid)
        check(path.startswith(os.path.join(release, "bin")), f"the CPU backend came from {path}, not the release")
        # Here Vulkan has Mesa's lavapipe only, a CPU device that ggml leaves unless told: the
        # server says so. Where a GPU is, ggml uses it.
        check(VULKAN_SKIPPED["no device"] in server.output() or "Vulkan0" in server.output(),
              "the server neither used a Vulkan device nor said why not")
        check_versions(lambda tool: subprocess.run(["env", "-i", os.path.join(release, "bin", tool), "--version"],
                                                   capture_output=True, text=True))
    except Failure:
        print(server.tail())
        raise
    finally:
        server.stop()


# The patched tools' warnings (common/scatter-modules.cpp) when the Vulkan module is not in use.
VULKAN_SKIPPED = {"no loader": "ggml's vulkan module is not loaded (libvulkan.so.1: cannot open shared object file",
                  "no driver": "ggml's vulkan module loads, but its backend did not start (no driver answered)",
                  "no device": "ggml's vulkan backend found no device, so the model runs on the CPU"}


def lists_lavapipe():
    """The Vulkan module loads from the moved archive with a clean environment and its backend finds
    Mesa's lavapipe, a Vulkan device on the CPU, when GGML_VK_VISIBLE_DEVICES names it (ggml leaves
    CPU devices otherwise)."""
    listed = subprocess.run(["env", "-i", "GGML_VK_VISIBLE_DEVICES=0", os.path.join(RELEASE, "bin", "llama-server"),
                             "--list-devices"], capture_output=True, text=True, timeout=120)
    output = listed.stdout + listed.stderr
    check(listed.returncode == 0 and re.search(r"Vulkan0: .*llvmpipe", output), f"--list-devices:\n{output[-2000:]}")


def offloads_to_vulkan(release):
    """On lavapipe, as a GPU user runs it (-ngl 99 -bs), with the repeating layers kept on the CPU
    (-ot blk.=CPU, as the `vulkan-model` suite does: on a software device they would take hours): the
    output, so the logits and the sampler chain, on Vulkan0, scatter run there (`scatter_backend`), the
    same seed giving the same text. A release check, not every submission's: lavapipe compiles each
    Vulkan pipeline on first use, minutes of one core with an empty shader cache (CONTRIBUTING.md
    "Continuous integration"); Mesa's cache is kept where the environment names it. That scatter's
    numbers on Vulkan match the CPU's is the `vulkan` suites' check."""
    cache = [f"{name}={os.environ[name]}" for name in ("HOME", "MESA_SHADER_CACHE_DIR") if name in os.environ]
    server = Server(None, MODEL, extra=["-ngl", "99", "-ot", "blk\\.=CPU", "-bs"], launcher=[
        "env", "-i", "GGML_VK_VISIBLE_DEVICES=0", *cache, os.path.join(release, "bin", "llama-server")])
    try:
        server.wait_ready()
        texts = []
        for _ in range(2):
            status, body = server.request("/completion", REQUEST)
            check(status == 200, f"/completion -> {status}: {body}")
            settings = body["generation_settings"]
            check(settings["scatter_enabled"] and settings["scatter_backend"],
                  f"scatter_enabled {settings['scatter_enabled']}, scatter_backend {settings['scatter_backend']}")
            texts.append(body["content"])
        check(texts[0] == texts[1] and texts[0], f"the same seed gave {texts}")
        check(re.search(r"Vulkan0 model buffer size", server.output()), "no model buffer on Vulkan0")
        with open(f"/proc/{server.proc.pid}/maps") as maps:
            check(os.path.join(release, "bin", "libggml-vulkan.so") in maps.read(), "the release's Vulkan module is not mapped")
    except Failure:
        print(server.tail())
        raise
    finally:
        server.stop()


def the_deb_declares_what_it_needs():
    info = subprocess.run(["dpkg-deb", "-I", DEB], capture_output=True, text=True, check=True).stdout
    fields = dict(re.findall(r"^ ([A-Z][\w-]*): (.*)$", info, re.M))
    check(fields.get("Package") == "llama-scatter" and fields.get("Version") == VERSION
          and fields.get("Architecture") == DEB_ARCH, f"control:\n{info}")
    depends = fields.get("Depends", "")
    for library in ("libc6", "libgomp1", "libstdc++6", *(["libvulkan1"] if ARCH == "x64" else [])):
        check(library in depends, f"Depends lacks {library}: {depends}")
    check("llama.cpp-tools" in fields.get("Conflicts", ""), f"no Conflicts with llama.cpp-tools:\n{info}")
    check(("mesa-vulkan-drivers" in fields.get("Suggests", "")) == (ARCH == "x64"),
          f"a Suggests of a Vulkan driver where a Vulkan module is (x64):\n{info}")
    check(re.search(r"^ .*\bpostinst\b", info, re.M) and re.search(r"^ .*\bprerm\b", info, re.M),
          f"no postinst/prerm (the commands in /usr/bin):\n{info}")
    listing = subprocess.run(["dpkg-deb", "-c", DEB], capture_output=True, text=True, check=True).stdout
    paths = [line.split()[5] for line in listing.splitlines()]
    own = [f"./{path}" for path in DEB_OWN_FILES]
    outside = [p for p in paths if not (p.startswith(f"./{DEB_PREFIX}/") or f"./{DEB_PREFIX}/".startswith(p)
                                        or p in own or any(path.startswith(p) for path in own))]
    check(not outside, f"files outside /{DEB_PREFIX} (they could collide with Debian's llama.cpp): {outside[:10]}")
    for path in own:
        check(path in paths, f"the package has no /{path[2:]}")
    check(re.search(r"^ Description: .+\n(  .+\n)+", info, re.M), f"no extended description:\n{info}")


def the_deb_states_its_licences():
    """/usr/share/doc/llama-scatter/copyright holds each licence the release ships, whole."""
    with open(os.path.join(WORK, "root", DEB_DOC, "copyright")) as f:
        copyright_file = f.read()
    for name in LICENSES:
        with open(os.path.join(RELEASE, name)) as f:
            check(f.read() in copyright_file, f"/{DEB_DOC}/copyright lacks {name}")


def lintian_passes():
    """lintian, Debian's package checker, as a repository or a careful user runs it: no error, no warning
    (its overrides, packaging/debian-docs.cmake: the files are in /opt)."""
    linted = subprocess.run(["lintian", "--fail-on", "error,warning", "--tag-display-limit", "0", DEB],
                            capture_output=True, text=True)
    check(linted.returncode == 0, f"lintian ({linted.returncode}):\n{linted.stdout[-3000:]}{linted.stderr[-1000:]}")


def podman(*args, **kwargs):
    return subprocess.run(["podman", *PODMAN_OPTIONS, *args], capture_output=True, text=True, **kwargs)


PODMAN_OPTIONS = ["--runtime", "runc"]
os.environ.setdefault("CONTAINERS_CONF", os.path.join(HERE, "containers.conf"))
IMAGE = "localhost/llama-scatter-release-test"
BASE = "localhost/llama-scatter-test-base:bookworm" + ("" if ARCH == "x64" else f"-{ARCH}")
# Under qemu-user, apt and the model load take minutes where they take seconds natively.
READY_S = 120 if ARCH == "x64" else 900
CONTEXT = os.environ.get("LLAMA_SCATTER_IMAGE_CONTEXT", "")


def podman_reason():
    """Why podman cannot run a container here, or None."""
    if not shutil.which("podman"):
        return "podman is not installed (scripts/install-prerequisites.sh release)"
    if podman("image", "exists", BASE).returncode != 0:
        made = make_base()
        if made:
            return made
    probe = podman("run", "--rm", "--network=host", BASE, "true")
    return None if probe.returncode == 0 else f"podman run failed: {probe.stderr[-1000:]}"


def make_base():
    """No registry is reachable here: Debian 12's minimal root from mmdebstrap, imported under a local
    name that the Containerfile's BASE argument is set to (a user's build takes debian:bookworm-slim)."""
    if not shutil.which("mmdebstrap"):
        return "mmdebstrap is not installed (scripts/install-prerequisites.sh release)"
    tar = os.path.join(WORK, "bookworm.tar")
    made = subprocess.run(["mmdebstrap", "--variant=minbase", f"--architectures={DEB_ARCH}", "bookworm", tar],
                          capture_output=True, text=True)
    if made.returncode != 0:
        return f"mmdebstrap failed: {made.stderr[-1000:]}"
    imported = podman("import", tar, BASE)
    return None if imported.returncode == 0 else f"podman import failed: {imported.stderr[-1000:]}"


def folder_bytes(folder):
    return sum(os.lstat(os.path.join(d, f)).st_size for d, _, files in os.walk(folder) for f in files)


def the_context_holds_the_server_only():
    """One version, the server's files: no other tool, static library, header or build file."""
    check(os.listdir(CONTEXT) == ["app"], f"the context {CONTEXT} holds {os.listdir(CONTEXT)}, not app/ alone")
    app = os.path.join(CONTEXT, "app")
    files = sorted(os.path.relpath(os.path.join(d, f), app) for d, _, names in os.walk(app) for f in names)
    print(f"note: the image's /app: {len(files)} files, {folder_bytes(app) / 1e6:.1f} MB", flush=True)
    for path in files:
        check(not re.search(r"\.a$|^include/|^lib/(cmake|pkgconfig)/|llama-(cli|completion)|libggml-vulkan", path),
              f"the context holds {path}, which the server does not need")
    for path in ["bin/llama-server", f"lib/libllama_scatter.so.{VERSION}", *LICENSES,
                 *(f"bin/libggml-cpu-{variant}.so" for variant in VARIANTS)]:
        check(path in files, f"the context has no {path}")


def the_image_serves():
    built = podman("build", "--pull=never", "--format", "docker", "--network=host", "--build-arg", f"BASE={BASE}",
                   "-t", IMAGE, "-f", os.path.join(ROOT, "packaging", "Containerfile"), CONTEXT)
    check(built.returncode == 0, f"podman build failed:\n{built.stdout[-3000:]}{built.stderr[-3000:]}")
    the_image_holds_each_file_once()
    model_dir, model_name = os.path.split(os.path.abspath(MODEL))
    # The port the image's HEALTHCHECK asks, where it is free; its timer needs systemd, so the test
    # runs the check itself.
    with socket.socket() as s:
        healthcheck = s.connect_ex(("127.0.0.1", 8080)) != 0

    def image_checks(server, name):
        config = podman("image", "inspect", "--format", "{{json .Config.Healthcheck}} {{json .Config.Env}}", IMAGE)
        check("/health" in config.stdout and "LLAMA_ARG_HOST=0.0.0.0" in config.stdout,
              f"the image's HEALTHCHECK and environment: {config.stdout}{config.stderr}")
        if healthcheck:
            health = podman("healthcheck", "run", name)
            check(health.returncode == 0, f"the image's HEALTHCHECK fails: {health.stdout}{health.stderr}")
        else:
            print("note: port 8080 is taken here; the image's HEALTHCHECK (on 8080) is not run", flush=True)

    served_in_a_container(["--health-interval=disable", "-v", f"{model_dir}:/models:ro", IMAGE],
                          f"/models/{model_name}", image_checks, port=8080 if healthcheck else None)


def served_in_a_container(run_args, model, then, port=None):
    """llama-server run by `podman run --network=host RUN_ARGS` on MODEL (a path in the container):
    check_serves, then `then(server, container name)`."""
    name = f"llama-scatter-release-test-{os.getpid()}"
    server = Server(None, model, extra=SERVER_ARGS, port=port, launcher=[
        "podman", *PODMAN_OPTIONS, "run", "--rm", "--name", name, "--network=host", *run_args])
    try:
        check_serves(server, lambda: podman("inspect", "--format", "{{.State.Pid}}", name).stdout.strip())
        then(server, name)
    except Failure:
        print(server.tail())
        raise
    finally:
        podman("rm", "-f", name)
        server.stop()


def the_image_holds_each_file_once():
    """Above the base: the apt layer (packages and no package cache) and /app in one layer of its own
    size; what the image adds, printed (README "Get it" quotes it)."""
    history = json.loads(podman("history", "--format", "json", IMAGE).stdout)
    base_layers = len(json.loads(podman("history", "--format", "json", BASE).stdout))
    stored = [(layer["size"], layer["CreatedBy"]) for layer in history[:-base_layers] if layer["size"] > 0]
    app = folder_bytes(os.path.join(CONTEXT, "app"))
    print(f"note: the image adds {sum(size for size, _ in stored) / 1e6:.1f} MB to its base: "
          + "; ".join(f"{size / 1e6:.1f} MB {by.strip()[:60]}" for size, by in stored), flush=True)
    check(len(stored) == 2, f"the image adds {len(stored)} layers with content, not 2 (apt, /app): {stored}")
    copied = [size for size, by in stored if "COPY" in by]
    check(len(copied) == 1 and app <= copied[0] < app + 1_000_000,
          f"/app ({app} bytes in the context) is not stored once in one layer: {stored}")
    apt = [size for size, by in stored if "apt-get" in by]
    check(len(apt) == 1 and apt[0] < 40_000_000, f"the apt layer keeps more than libgomp1 and curl: {stored}")


def cleanup():
    """The images the tests made, and the base they made, removed."""
    for image in (IMAGE, BASE):
        if shutil.which("podman") and podman("image", "exists", image).returncode == 0:
            removed = podman("rmi", "-f", image)
            check(removed.returncode == 0, f"podman rmi {image}: {removed.stderr[-1000:]}")


def served_in_the_base(install, server, then, mounts=()):
    """llama-server (`server`: a path or a command on the PATH) in Debian 12's minimal root once apt has
    installed `install` there, and nothing else (no libvulkan1); MOUNTS: more `-v` arguments.
    check_serves, then `then(server, container name)`."""
    model_dir, model_name = os.path.split(os.path.abspath(MODEL))
    script = (f"apt-get update -qq && apt-get install -y -qq --no-install-recommends {install} >/dev/null"
              f' && exec {server} "$@"')
    served_in_a_container([*mounts, "-v", f"{model_dir}:/models:ro", BASE, "bash", "-c", script, "llama-server"],
                          f"/models/{model_name}", then)


def served_from_the_archive_in_the_base(then):
    """The archive's llama-server in the minimal root with libgomp1 installed, as README says."""
    served_in_the_base("libgomp1", "/release/bin/llama-server", then, ["-v", f"{RELEASE}:/release:ro"])


def the_archive_serves_without_a_vulkan_loader():
    """x64's archive in the minimal root serves scatter on the CPU and says why Vulkan is not used."""
    served_from_the_archive_in_the_base(
        lambda server, _: check(VULKAN_SKIPPED["no loader"] in server.output(),
                                "the server did not say why Vulkan is not used"))


def apt_installs_the_deb():
    """`apt install ./llama-scatter_*.deb` in Debian 12: its dependencies resolved from Debian's
    archive, its postinst's commands on the PATH, run with the model."""
    model_dir, model_name = os.path.split(os.path.abspath(MODEL))
    script = ("apt-get update -qq && apt-get install -y -qq --no-install-recommends /packages/" + os.path.basename(DEB)
              + " >/dev/null && command -v llama-server llama-cli llama-completion"
              + " && llama-completion -m /models/" + model_name
              + " -no-cnv -p 'Once upon a time' -n 8 --threads 2 --ctx-size 256 --no-warmup --scatter-preset creative")
    ran = podman("run", "--rm", "--network=host", "-v", f"{os.path.abspath(PACKAGES)}:/packages:ro",
                 "-v", f"{model_dir}:/models:ro", BASE, "bash", "-c", script)
    output = ran.stdout + ran.stderr
    check(ran.returncode == 0, f"apt install and run in Debian 12 failed ({ran.returncode}):\n{output[-3000:]}")
    for tool in TOOLS:
        check(f"/usr/bin/{tool}" in ran.stdout, f"{tool} is not /usr/bin/{tool} after apt install:\n{ran.stdout[-1000:]}")
    check(re.search(r"sampler chain: .*scatter", output), f"llama-completion ran no scatter:\n{output[-2000:]}")
    # libvulkan1 came with x64's package; Debian's minimal root has no Vulkan driver.
    check((VULKAN_SKIPPED["no driver"] in output) == (ARCH == "x64"),
          f"llama-completion did not say why Vulkan is not used, or spoke of a module arm64's has not:\n{output[-2000:]}")


def answers_a_bad_field_and_names_its_build(bin_prefix):
    """After check_serves in a container: a bad field's 400 names it, and each tool (BIN_PREFIX + its
    name) run there names its build."""
    def then(server, name):
        status, body = server.request("/completion", dict(REQUEST, scatter_strength="strong"))
        check(status == 400 and "scatter_strength" in json.dumps(body), f"scatter_strength 'strong' -> {status}: {body}")
        check_versions(lambda tool: podman("exec", name, f"{bin_prefix}{tool}", "--version"))
    return then


def the_archive_serves_in_the_arm64_root():
    """arm64's archive in Debian 12's arm64 root, under qemu-user."""
    served_from_the_archive_in_the_base(answers_a_bad_field_and_names_its_build("/release/bin/"))


def the_apt_installed_package_serves_in_the_arm64_root():
    """`apt install ./llama-scatter_*_arm64.deb` in Debian 12's arm64 root, then its /usr/bin/llama-server,
    under qemu-user."""
    served_in_the_base(f"/packages/{os.path.basename(DEB)}", "/usr/bin/llama-server",
                       answers_a_bad_field_and_names_its_build("/usr/bin/"),
                       ["-v", f"{os.path.abspath(PACKAGES)}:/packages:ro"])


try:
    if MODE == "archive" and ARCH == "arm64":
        reason = podman_reason()
        check(reason is None, f"the arm64 root cannot run here: {reason}")
        run_tests([("the archive holds what a user needs", the_release_holds_what_a_user_needs),
                   ("the archive's programs and libraries are stripped", the_release_is_stripped),
                   ("the archive's programs and libraries are hardened", the_release_is_hardened),
                   ("the archive serves scatter in Debian 12's arm64 root", the_archive_serves_in_the_arm64_root)])
    elif MODE == "deb" and ARCH == "arm64":
        reason = podman_reason()
        check(reason is None, f"the arm64 root cannot run here: {reason}")
        run_tests([("the package declares its architecture, dependencies, conflict and files",
                    the_deb_declares_what_it_needs),
                   ("the unpacked package holds what a user needs", the_release_holds_what_a_user_needs),
                   ("the package states every licence", the_deb_states_its_licences),
                   ("lintian passes the package", lintian_passes),
                   ("apt installs the package in Debian 12's arm64 root, whose llama-completion runs scatter",
                    apt_installs_the_deb),
                   ("the apt-installed package's llama-server serves scatter in Debian 12's arm64 root",
                    the_apt_installed_package_serves_in_the_arm64_root)])
    elif MODE == "archive":
        run_tests([("the archive holds what a user needs", the_release_holds_what_a_user_needs),
                   ("the archive's programs and libraries are stripped", the_release_is_stripped),
                   ("the archive's programs and libraries are hardened", the_release_is_hardened),
                   ("the moved archive serves scatter with a clean environment",
                    lambda: served_with_a_clean_environment(RELEASE)),
                   ("the moved archive's Vulkan module finds lavapipe", lists_lavapipe)])
    elif MODE == "vulkan":
        run_tests([("the moved archive offloads the model and scatter to Vulkan (lavapipe)",
                    lambda: offloads_to_vulkan(RELEASE))])
    elif MODE == "deb":
        tests = [("the package declares its dependencies, conflict and files", the_deb_declares_what_it_needs),
                 ("the unpacked package holds what a user needs", the_release_holds_what_a_user_needs),
                 ("the package states every licence", the_deb_states_its_licences),
                 ("lintian passes the package", lintian_passes),
                 ("the unpacked package serves scatter with a clean environment",
                  lambda: served_with_a_clean_environment(RELEASE))]
        reason = podman_reason()
        if reason:
            print(f"note: apt install in Debian 12 not checked: {reason}")
        else:
            tests.append(("apt installs the package in Debian 12, whose llama-completion runs scatter",
                          apt_installs_the_deb))
        run_tests(tests)
    elif MODE == "image":
        reason = podman_reason()
        if reason:
            print(f"SKIP the container image: {reason}")
            sys.exit(0)
        run_tests([("the archive in Debian 12 without a Vulkan loader serves on the CPU and says why",
                    the_archive_serves_without_a_vulkan_loader),
                   ("the image's context holds the server's files, one version", the_context_holds_the_server_only),
                   ("the image built from its context serves scatter", the_image_serves)])
    else:
        run_tests([("the tests' images and their base removed", cleanup)])
finally:
    shutil.rmtree(WORK, ignore_errors=True)
