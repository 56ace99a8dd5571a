#!/bin/sh
# A C program compiled against the build tree, as docs/cosim.md says, with no
# `make install`: pkg-config through build/meson-uninstalled gives the
# include paths (the generated sensim/version.h included) and the library;
# the program runs and scans.
set -eu
builddir="$1"
src="$2"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=$(PKG_CONFIG_PATH="$builddir/meson-uninstalled" pkg-config --cflags --libs sensim)
cc -std=c11 -o "$tmp/minimal_scan" "$src/examples/minimal_scan.c" $flags -Wl,-rpath,"$builddir"
out=$("$tmp/minimal_scan")
echo "$out"
case "$out" in
  *points*) ;;
  *) echo "the program built against the build tree did not scan"; exit 1 ;;
esac
