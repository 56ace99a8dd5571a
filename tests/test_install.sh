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

# Installed code looks only in installed places: a package copied next to a
# folder named build/ does not load build/libsensim.so from it, and the
# installed library's preset search path holds no source-tree directory.
src="$2"
mkdir -p "$dest/copy/x" "$dest/copy/build"
cp -r "$(dirname "$init")" "$dest/copy/x/sensim"
cp "$lib" "$dest/copy/build/libsensim.so"
out=$(env -u SENSIM_LIBRARY -u SENSIM_PRESET_PATH PYTHONPATH="$dest/copy/x" LD_LIBRARY_PATH="$(dirname "$lib")" \
      /usr/bin/python3 -c "
import ctypes, sensim
lib = ctypes.CDLL(sensim.library_path())
lib.sensim_preset_search_dir.restype = ctypes.c_char_p
dirs = [lib.sensim_preset_search_dir(i) for i in range(4)]
print(sensim.library_path(), *[d.decode() for d in dirs if d])")
echo "copied package: $out"
case "$out" in
  *"$dest/copy/build"*) echo "a copied package loaded build/libsensim.so next to it"; exit 1 ;;
esac
case "$out" in
  *"$src/scan_patterns"*) echo "the installed library searches the source tree's presets"; exit 1 ;;
esac
