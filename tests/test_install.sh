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
      /usr/bin/python3 -c "import sensim, sensim.carla, sensim.placement, os; print(sensim.__version__, os.path.basename(sensim.library_path()))")
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

# The Assimp helper is installed beside the library's libexec folder and the
# installed library finds it (glTF loads run it): a one-triangle glTF loads.
if grep -q 'SENSIM_HAVE_ASSIMP' "$builddir/build.ninja"; then
  helper=$(find "$dest" -name 'sensim-assimp' -type f | head -n 1)
  [ -n "$helper" ] || { echo "sensim-assimp not installed"; exit 1; }
  out=$(env -u SENSIM_LIBRARY PYTHONPATH="$(dirname "$(dirname "$init")")" LD_LIBRARY_PATH="$(dirname "$lib")" \
        /usr/bin/python3 -c "
import base64, json, os, struct, tempfile, sensim
d = tempfile.mkdtemp()
buf = struct.pack('<9f3I', 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 2)
g = {'asset': {'version': '2.0'}, 'scene': 0, 'scenes': [{'nodes': [0]}], 'nodes': [{'mesh': 0}],
     'meshes': [{'primitives': [{'attributes': {'POSITION': 0}, 'indices': 1}]}],
     'buffers': [{'byteLength': 48, 'uri': 'data:application/octet-stream;base64,' + base64.b64encode(buf).decode()}],
     'bufferViews': [{'buffer': 0, 'byteLength': 36}, {'buffer': 0, 'byteOffset': 36, 'byteLength': 12}],
     'accessors': [{'bufferView': 0, 'componentType': 5126, 'count': 3, 'type': 'VEC3', 'min': [0, 0, 0],
                    'max': [1, 1, 0]}, {'bufferView': 1, 'componentType': 5125, 'count': 3, 'type': 'SCALAR'}]}
p = os.path.join(d, 'tri.gltf')
json.dump(g, open(p, 'w'))
s = sensim.Scene(sensim.Context(1))
s.load(p)
print(s.info['triangle_count'])")
  echo "installed glTF load: $out triangle"
  [ "$out" = "1" ]
fi
