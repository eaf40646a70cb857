#!/usr/bin/env bash
# install-prerequisites.sh [GROUP...]: installs, as root (through sudo when run as a user), what
# building and testing llama-scatter needs on Debian 12 or Ubuntu 24.04 (amd64): the project's one
# list of system packages and tools.
# Groups (default: build):
#   build      the demo, the patched tools and the `test` workflow: CMake >= 3.25, Ninja, a C/C++
#              compiler, clang and libclang (bindgen reads llama.h through it), pkg-config, git (the
#              tools' patch is applied with `git apply`), Python 3 with pip and venv (llama.cpp
#              trees and the models are fetched from PyPI; the Python package is tested in a venv),
#              ccache (optional: the build uses it when it is there), Node.js and npm for
#              llama-server's web UI (Debian's, where no node is installed; the UI needs Node.js
#              >= 20.19, and the tools are built without it where node is older: configure says so)
#   browser    the web UI's browser test: Debian's Chromium and a font for its text
#   hardening  the `hardening` workflow: valgrind, and cargo-fuzz (built with cargo)
#   vulkan     the `vulkan` workflows: glslc, the Vulkan loader, SPIR-V headers and Mesa's lavapipe
#              (mesa-vulkan-drivers 25 from bookworm-backports: what RELIABILITY.md's results were
#              taken with; the system's apt sources are left as they are), and Vulkan headers new
#              enough for the pinned ggml-vulkan (>= 1.3.261; Debian 12 ships 1.3.239) unpacked from
#              Debian 13's libvulkan-dev into .deps/vulkan-headers, not installed
#   release    the `release` workflow: the vulkan group (the release carries ggml's Vulkan module, and
#              its tests run it on lavapipe), and for its tests (packaging/tests/test_release.py) podman
#              with runc to build and run packaging/Containerfile, mmdebstrap for its Debian base image
#              (no registry is needed), lintian to check the Debian package as Debian's tools do
#   windows    the `release-windows` workflow: MinGW-w64's cross compiler with POSIX threads (GCC 12,
#              what llama.cpp's std::thread needs), Wine 8 to run its tests (wine64; its program is in
#              /usr/lib/wine, scripts/wine-run.sh finds it), and Rust's x86_64-pc-windows-gnu target
#              (rustup target add, where rustup is)
#   arm64      the `release-arm64` workflow: Debian's aarch64-linux-gnu cross compiler (GCC 12),
#              qemu-user to run its tests (qemu-user-static), registered with binfmt_misc (mounted
#              where it is not; Debian's entry, flag F) so that Debian 12's arm64 root runs in podman
#              (made by the release group's mmdebstrap, which asks arch-test), and Rust's
#              aarch64-unknown-linux-gnu target (rustup target add, where rustup is)
#   all        every group (what .ci/run installs)
# The Rust toolchain is not installed here: rustup (the README's first commands).
# Installed packages are skipped, so a second run costs seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
# Run as a user, it asks sudo for root; as root (a container without sudo), it needs none.
if [ "$(id -u)" -ne 0 ]; then
  exec sudo "$0" "$@"
fi
export DEBIAN_FRONTEND=noninteractive

build_packages=(cmake ninja-build build-essential clang libclang-dev pkg-config git
                python3 python3-pip python3-venv ccache)
browser_packages=(chromium fonts-liberation)
hardening_packages=(valgrind)
release_packages=(podman runc mmdebstrap lintian)
windows_packages=(g++-mingw-w64-x86-64-posix gcc-mingw-w64-x86-64-posix wine64)
arm64_packages=(g++-aarch64-linux-gnu gcc-aarch64-linux-gnu qemu-user-static binfmt-support arch-test)
vulkan_packages=(glslc libvulkan1 libvulkan-dev spirv-headers vulkan-tools)
cargo_fuzz_version=0.13.2

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build)
[ "${groups[*]}" != all ] || groups=(build browser hardening vulkan release windows arm64)

updated=false
apt_install() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  echo "installing: ${missing[*]}"
  if ! $updated; then
    apt-get update -qq
    updated=true
  fi
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_vulkan() {
  apt_install "${vulkan_packages[@]}"
  local deps="$here/.deps" keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  local apt_dir="$deps/apt-vulkan" dest="$deps/vulkan-headers"
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
  if ! dpkg-query -W -f='${Version}' mesa-vulkan-drivers 2>/dev/null | grep -q '^25\.'; then
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-backports main" >"$apt_dir/backports.list"
    # Debian 12's own sources with bookworm-backports beside them (priority 100: only what -t
    # names comes from there).
    local backports=(-o Dir::Etc::sourcelist="$apt_dir/backports.list")
    apt-get update -qq "${backports[@]}"
    apt-get install -y -qq --no-install-recommends "${backports[@]}" -t bookworm-backports mesa-vulkan-drivers
  fi
  if [ ! -f "$dest/usr/include/vulkan/vulkan.hpp" ]; then
    # Debian 13's index in a folder of its own, for one download, checked against Debian's
    # signed index.
    echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie main" >"$apt_dir/trixie.list"
    local trixie=(-o Dir::Etc::sourcelist="$apt_dir/trixie.list" -o Dir::Etc::sourceparts=-
                  -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache")
    apt-get update -qq "${trixie[@]}"
    (cd "$apt_dir" && apt-get download -qq "${trixie[@]}" libvulkan-dev)
    rm -rf "$dest"
    dpkg -x "$apt_dir"/libvulkan-dev_*.deb "$dest"
  fi
  grep -m1 'VK_HEADER_VERSION ' "$dest/usr/include/vulkan/vulkan_core.h"
  GGML_VK_VISIBLE_DEVICES=0 vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverInfo' || true
}

rust_target() {
  if command -v rustup >/dev/null; then
    rustup target add "$1"
  else
    echo "note: no rustup on the PATH here (sudo's?): as the user who builds, run: rustup target add $1"
  fi
}

# arm64 programs run by the kernel through qemu, in containers too: binfmt_misc mounted (a container
# or a machine without systemd may not have it) and Debian's qemu-aarch64 entry enabled.
register_qemu_aarch64() {
  local misc=/proc/sys/fs/binfmt_misc
  [ -e "$misc/register" ] || mount -t binfmt_misc binfmt_misc "$misc"
  [ -e "$misc/qemu-aarch64" ] || update-binfmts --enable qemu-aarch64
  grep -q '^flags: .*F' "$misc/qemu-aarch64" || { echo "qemu-aarch64 is registered without flag F: containers cannot run it" >&2; exit 1; }
}

for group in "${groups[@]}"; do
  case $group in
    build)
      apt_install "${build_packages[@]}"
      command -v node >/dev/null || apt_install nodejs npm
      ;;
    browser) apt_install "${browser_packages[@]}" ;;
    hardening)
      apt_install "${hardening_packages[@]}"
      if ! command -v cargo-fuzz >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/cargo-fuzz" ]; then
        cargo install --locked cargo-fuzz --version "$cargo_fuzz_version"
      fi
      ;;
    vulkan) install_vulkan ;;
    release)
      install_vulkan
      apt_install "${release_packages[@]}"
      ;;
    windows)
      apt_install "${windows_packages[@]}"
      rust_target x86_64-pc-windows-gnu
      ;;
    arm64)
      apt_install "${arm64_packages[@]}"
      register_qemu_aarch64
      rust_target aarch64-unknown-linux-gnu
      ;;
    *) echo "install-prerequisites.sh: unknown group '$group' (build, browser, hardening, vulkan, release, windows, arm64, all)" >&2; exit 2 ;;
  esac
done
