#!/bin/sh
# `meson install` into a scratch DESTDIR, then import the installed Python
# package with Debian's interpreter: no SENSIM_LIBRARY, no source tree on the
# path; the loader finds the installed libsensim.so.0.
set -eu
builddir="$1"
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
meson install -C "$builddir" --no-rebuild --destdir "$dest" >/dev/null
init=$(find "$dest" -path '*sensim/__init__.py' | head -n 1)
lib=$(find "$dest" -name 'libsensim.so.0' | head -n 1)
hdr=$(find "$dest" -name 'sensim.h' | head -n 1)
pc=$(find "$dest" -name 'sensim.pc' | head -n 1)
for f in "$init" "$lib" "$hdr" "$pc"; do
  [ -n "$f" ] || { echo "install is missing a file (package, library, header or sensim.pc)"; exit 1; }
done
[ -f "$(dirname "$hdr")/version.h" ] || { echo "version.h not installed"; exit 1; }
cd "$dest"
out=$(env -u SENSIM_LIBRARY PYTHONPATH="$(dirname "$(dirname "$init")")" LD_LIBRARY_PATH="$(dirname "$lib")" \
      /usr/bin/python3 -c "import sensim, os; print(sensim.__version__, os.path.basename(sensim.library_path()))")
echo "installed package: $out"
[ "$out" = "0.1.0 libsensim.so.0" ]
