#!/usr/bin/env bash
# Installs whatever libsensim needs to build and test, from Debian packages.
# Idempotent: does nothing (and needs no network) when everything is present.
set -euo pipefail

pkgs=(
  build-essential meson ninja-build pkg-config cmake
  libembree-dev libcglm-dev libpng-dev libcmocka-dev
  python3 python3-numpy python3-open3d
  munge slurmctld slurmd slurm-client
  clang-14 libclang-rt-14-dev libomp-14-dev valgrind
  libproj-dev geographiclib-tools
)

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
