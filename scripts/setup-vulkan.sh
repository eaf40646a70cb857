#!/usr/bin/env bash
# Sets up this machine (Debian 12) for the `vulkan` preset: llama.cpp's Vulkan backend built
# and run on Mesa's lavapipe, the software Vulkan driver. Usage: scripts/setup-vulkan.sh
#
# - glslc and the Vulkan loader (libvulkan-dev for its library; the build reads the headers below)
#   from Debian 12; lavapipe (mesa-vulkan-drivers) from bookworm-backports (Mesa 25), the driver
#   the results in RELIABILITY.md were taken with.
# - The Vulkan headers from Debian 13's libvulkan-dev, unpacked into .deps/vulkan-headers and
#   not installed: the pinned ggml-vulkan.cpp needs VK_EXT_layer_settings (headers 1.3.261 or
#   later) and Debian 12 ships 1.3.239. apt checks the package against Debian's signed index,
#   kept in .deps/apt-vulkan; the system's sources are left as they were.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dest="$here/.deps/vulkan-headers"
apt_dir="$here/.deps/apt-vulkan"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
export DEBIAN_FRONTEND=noninteractive

mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian bookworm-backports main" >"$apt_dir/backports.list"
echo "deb [signed-by=$keyring] http://deb.debian.org/debian trixie main" >"$apt_dir/trixie.list"
# Debian 12's own sources with bookworm-backports beside them (priority 100: only what -t names
# comes from there).
backports=(-o Dir::Etc::sourcelist="$apt_dir/backports.list")
apt-get update -qq "${backports[@]}"
apt-get install -y -qq --no-install-recommends "${backports[@]}" -t bookworm-backports mesa-vulkan-drivers
apt-get install -y -qq --no-install-recommends glslc libvulkan1 libvulkan-dev vulkan-tools

# Debian 13's index in a folder of its own, for one download.
if [ ! -f "$dest/usr/include/vulkan/vulkan.hpp" ]; then
  trixie=(-o Dir::Etc::sourcelist="$apt_dir/trixie.list" -o Dir::Etc::sourceparts=-
          -o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache")
  apt-get update -qq "${trixie[@]}"
  (cd "$apt_dir" && apt-get download -qq "${trixie[@]}" libvulkan-dev)
  rm -rf "$dest"
  dpkg -x "$apt_dir"/libvulkan-dev_*.deb "$dest"
fi
grep -m1 'VK_HEADER_VERSION ' "$dest/usr/include/vulkan/vulkan_core.h"
GGML_VK_VISIBLE_DEVICES=0 vulkaninfo --summary 2>/dev/null | grep -E 'deviceName|driverInfo' || true
