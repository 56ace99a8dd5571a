#!/usr/bin/env bash
# Installs whatever libsensim needs, from Debian packages (and npm, pinned).
# Idempotent: does nothing (and needs no network) when everything is present.
#   install-deps.sh build   the library, the sensim command, examples, `make demo`
#   install-deps.sh test    also what `make test` runs (the default): cmocka,
#                           numpy, Slurm, clang/libFuzzer, valgrind, chromium,
#                           doxygen, the test-only npm packages of tests/node
#   install-deps.sh docs    doxygen alone (`make docs`)
set -euo pipefail

mode="${1:-test}"
case "$mode" in
  build|test|docs) ;;
  *) echo "usage: install-deps.sh [build|test|docs]" >&2; exit 2 ;;
esac

pkgs=(
  build-essential meson ninja-build pkg-config cmake python3
  libembree-dev libcglm-dev libpng-dev libdeflate-dev libproj-dev
  libzstd-dev liblz4-dev zlib1g-dev libassimp-dev libjansson-dev libexpat1-dev
  cyclonedds-dev libsleef-dev
)
if [ "$mode" = test ]; then
  pkgs+=(
    libcmocka-dev libspng-dev python3-numpy python3-open3d python3-pip python3-setuptools
    munge slurmctld slurmd slurm-client
    clang-14 libclang-rt-14-dev libomp-14-dev valgrind
    geographiclib-tools chromium cyclonedds-tools doxygen
  )
fi
if [ "$mode" = docs ]; then
  pkgs=(doxygen)
fi

missing=()
for p in "${pkgs[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

# Node.js and npm install three.js for the viewer the sensim command embeds
# and run the independent MCAP reader in the tests (tests/node, pinned by its
# package-lock.json). Machines may carry their own Node.js
# (NodeSource's bundles npm and conflicts with Debian's npm package): only
# a machine without one gets Debian's.
if [ "$mode" != docs ] && { ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; }; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    SUDO="sudo"
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm packages, exactly as each package-lock.json pins them: three.js for
# the viewer page the sensim command embeds (src/cli/viewer), and the
# test-only readers and browser driver (tests/node). Reinstalled only when a
# lock file changed since the last install.
root="$(cd "$(dirname "$0")/.." && pwd)"
node_dirs=()
if [ "$mode" != docs ]; then
  node_dirs+=("$root/src/cli/viewer")
fi
if [ "$mode" = test ]; then
  node_dirs+=("$root/tests/node")
fi
for node_dir in ${node_dirs[@]+"${node_dirs[@]}"}; do
  stamp="$node_dir/node_modules/.sensim-lock"
  if ! cmp -s "$node_dir/package-lock.json" "$stamp" 2>/dev/null; then
    echo "install-deps: npm ci in ${node_dir#$root/}" >&2
    (cd "$node_dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$node_dir/package-lock.json" "$stamp"
  fi
done
