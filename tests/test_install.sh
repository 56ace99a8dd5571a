#!/bin/sh
# The installed SDK as its users meet it (issue 61): `meson install` into a
# scratch DESTDIR, the prefix then moved to a fresh folder (so nothing may
# depend on where it was built or first installed), and from there, with no
# LD_LIBRARY_PATH, SENSIM_LIBRARY or SENSIM_PRESET_PATH:
#   every public header installed; each compiles alone as C11, all together as C++17;
#   a C program through pkg-config and a C++ program through CMake find_package build and run;
#   the installed `sensim` (and the Assimp helper it spawns) start;
#   the installed Python package finds its own library and presets and scans;
#   the Python package installs offline into a venv (pip --no-build-isolation) and imports.
# usage: test_install.sh BUILDDIR SRCDIR
set -eu
builddir=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH SENSIM_LIBRARY SENSIM_PRESET_PATH PYTHONPATH CMAKE_PREFIX_PATH PKG_CONFIG_PATH || true
fail() { echo "install: FAIL: $*"; exit 1; }

meson install -C "$builddir" --no-rebuild --destdir "$tmp/dest" >/dev/null
first=$(cd "$tmp/dest" && find . -name 'libsensim.so.0' | head -n 1)
[ -n "$first" ] || fail "libsensim.so.0 not installed"
# the install prefix is the DESTDIR folder above lib/; move it whole to a fresh folder
libdir_rel=$(dirname "$first")                        # ./usr/local/lib/x86_64-linux-gnu
orig_prefix=$(cd "$tmp/dest/$libdir_rel/../.." && pwd) # .../dest/usr/local (Debian's lib/<triplet>)
[ -d "$orig_prefix/include/sensim" ] || orig_prefix=$(cd "$tmp/dest/$libdir_rel/.." && pwd)
[ -d "$orig_prefix/include/sensim" ] || fail "no include/sensim beside the installed library"
P="$tmp/fresh-prefix"
mv "$orig_prefix" "$P"
lib=$(find "$P" -name 'libsensim.so.0' | head -n 1)
libdir=$(dirname "$lib")
echo "install: prefix moved to $P"

# 1. every public header, and version.h
for h in "$src"/include/sensim/*.h; do
  [ -f "$P/include/sensim/$(basename "$h")" ] || fail "include/sensim/$(basename "$h") is not installed"
done
[ -f "$P/include/sensim/version.h" ] || fail "version.h not installed"
n=0
for h in "$P"/include/sensim/*.h; do
  printf '#include <sensim/%s>\nint sensim_header_user(void);\nint sensim_header_user(void) { return 0; }\n' \
    "$(basename "$h")" > "$tmp/one.c"
  cc -std=c11 -pedantic-errors -Wall -Wextra -Werror -I"$P/include" -c "$tmp/one.c" -o "$tmp/one.o" \
    || fail "$(basename "$h") does not compile alone as C11"
  n=$((n + 1))
done
{ for h in "$P"/include/sensim/*.h; do echo "#include <sensim/$(basename "$h")>"; done
  echo 'int main() { return sizeof(sensim_point) == 32 ? 0 : 1; }'; } > "$tmp/all.cpp"
c++ -std=c++17 -pedantic-errors -Wall -Wextra -Werror -I"$P/include" "$tmp/all.cpp" -o "$tmp/all" \
  || fail "the headers together do not compile as C++17"
echo "install: $n headers, each alone in C11 and all together in C++17"

# 2. C through pkg-config (a relocatable sensim.pc), run without LD_LIBRARY_PATH
export PKG_CONFIG_PATH="$libdir/pkgconfig"
pkg-config --exists sensim || fail "pkg-config does not find sensim.pc"
[ "$(pkg-config --variable=libdir sensim)" -ef "$libdir" ] || fail "sensim.pc's libdir is not the moved prefix's"
# shellcheck disable=SC2046
cc -std=c11 -Wall -Werror -o "$tmp/minimal_scan" "$src/examples/minimal_scan.c" $(pkg-config --cflags --libs sensim) \
  -Wl,-rpath,"$(pkg-config --variable=libdir sensim)" || fail "a C program does not build with pkg-config"
out=$(cd "$tmp" && ./minimal_scan) || fail "the pkg-config program does not run"
echo "install: pkg-config C program: $out"
case "$out" in *points*) ;; *) fail "minimal_scan printed no frame" ;; esac
unset PKG_CONFIG_PATH

# 3. C++17 through CMake find_package(sensim CONFIG REQUIRED), target sensim::sensim
cmake -S "$src/tests/install" -B "$tmp/cmake" -DCMAKE_PREFIX_PATH="$P" >"$tmp/cmake.log" 2>&1 \
  || { cat "$tmp/cmake.log"; fail "CMake find_package(sensim) failed"; }
cmake --build "$tmp/cmake" >"$tmp/cmake-build.log" 2>&1 || { cat "$tmp/cmake-build.log"; fail "the CMake project does not build"; }
out=$("$tmp/cmake/ground_scan") || fail "the CMake program failed: $out"
echo "install: CMake C++ program: $out"

# 4. the installed command, its presets and its Assimp helper, no LD_LIBRARY_PATH
ver=$("$P/bin/sensim" --version) || fail "the installed sensim does not start"
echo "install: $ver"
"$P/bin/sensim" scan --scene street --lidar vlp16 --pose 0,0,1.8,0,0,0 --out "$tmp/scan" >/dev/null \
  || fail "the installed sensim does not scan the street with an installed preset"
[ -s "$tmp/scan/frame_000000.ply" ] || fail "the installed sensim wrote no frame"
gltf_py='
import base64, json, struct, sys
buf = struct.pack("<12f3I", -50, -50, 0, 50, -50, 0, 0, 50, 0, 0, 0, 0, 0, 1, 2)
g = {"asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}], "nodes": [{"mesh": 0}],
     "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
     "buffers": [{"byteLength": 48, "uri": "data:application/octet-stream;base64," + base64.b64encode(buf[:36] + buf[48:]).decode()}],
     "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 12}],
     "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [-50, -50, 0],
                    "max": [50, 50, 0]}, {"bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR"}]}
json.dump(g, open(sys.argv[1], "w"))'
/usr/bin/python3 -c "$gltf_py" "$tmp/tri.gltf"
if [ -n "$(find "$P" -name 'sensim-assimp' -type f)" ]; then
  "$P/bin/sensim" scan --scene "$tmp/tri.gltf" --lidar vlp16 --pose 0,0,1.8,0,0,0 --out "$tmp/gltf" >"$tmp/gltf.log" 2>&1 \
    || { cat "$tmp/gltf.log"; fail "the installed sensim cannot load a glTF scene through its Assimp helper"; }
  echo "install: the installed Assimp helper loads a glTF scene"
fi

# 5. the installed Python package: its own prefix's library and presets, no environment
pydir=$(dirname "$(dirname "$(find "$P" -path '*sensim/__init__.py' | head -n 1)")")
for m in "$src"/python/sensim/*.py "$src"/python/sensim/_shim/*.py; do   # every module of the package
  rel=${m#"$src"/python/}
  [ -f "$pydir/$rel" ] || fail "python/$rel is not installed (meson.build's install_sources)"
done
out=$(cd "$tmp" && PYTHONPATH="$pydir" /usr/bin/python3 -c "
import sensim
ctx = sensim.Context(1)
scene = sensim.Scene(ctx)
scene.load('street')
scene.commit()
lidar = sensim.Lidar(ctx, 'vlp16')
ring = sensim.Ring.for_lidar(lidar)
lidar.scan(scene, 0, 100_000_000, ring, pose=sensim.pose(z=1.8))
f = ring.pop()
print(sensim.__version__, sensim.library_path(), len(f.points) > 1000)") || fail "the installed Python package does not scan"
echo "install: installed Python package: $out"
case "$out" in
  "0.1.0 $libdir/libsensim.so.0 True") ;;
  *) fail "the installed package did not load its own prefix's library ($libdir) or scanned nothing" ;;
esac

# Installed code looks only in installed places: a package copied next to a
# folder named build/ does not load build/libsensim.so from it, and the
# installed library's preset search path holds no source-tree directory.
mkdir -p "$tmp/copy/x" "$tmp/copy/build"
cp -r "$pydir/sensim" "$tmp/copy/x/sensim"
cp "$lib" "$tmp/copy/build/libsensim.so"
out=$(PYTHONPATH="$tmp/copy/x" LD_LIBRARY_PATH="$libdir" /usr/bin/python3 -c "
import ctypes, sensim
lib = ctypes.CDLL(sensim.library_path())
lib.sensim_preset_search_dir.restype = ctypes.c_char_p
dirs = [lib.sensim_preset_search_dir(i) for i in range(4)]
print(sensim.library_path(), *[d.decode() for d in dirs if d])")
echo "install: copied package: $out"
case "$out" in *"$tmp/copy/build"*) fail "a copied package loaded build/libsensim.so next to it" ;; esac
case "$out" in *"$src/scan_patterns"*) fail "the installed library searches the source tree's presets" ;; esac

# 6. pip, offline, as python/README.md says: a venv over Debian's packages
/usr/bin/python3 -m venv --system-site-packages --without-pip "$tmp/venv"
cp -r "$src/python" "$tmp/pysrc"   # pip writes build files beside the sources: not into the checkout
"$tmp/venv/bin/python" -m pip install -q --no-build-isolation --no-index "$tmp/pysrc" >"$tmp/pip.log" 2>&1 \
  || { cat "$tmp/pip.log"; fail "pip install --no-build-isolation --no-index into a venv failed"; }
out=$(cd "$tmp" && SENSIM_LIBRARY="$lib" "$tmp/venv/bin/python" -c "
import sensim, os
print(os.path.dirname(sensim.__file__).startswith('$tmp/venv'), sensim.Lidar(sensim.Context(1), 'vlp16').info['channel_count'])") \
  || fail "the pip-installed package does not import"
echo "install: pip-installed package in a venv: $out"
[ "$out" = "True 16" ] || fail "the pip-installed package is not the venv's, or the preset was not found"
echo "install: all checks passed"
