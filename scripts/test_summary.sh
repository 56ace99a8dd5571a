#!/bin/sh
# Closing line of `make test` (reached only when every step passed): the
# meson tests of both builds, the ThreadSanitizer run and the fuzz targets.
set -eu
count() {
  [ -f "$1" ] || { echo 0; return; }
  /usr/bin/python3 -c 'import json,sys
ok=bad=0
for line in open(sys.argv[1]):
    r=json.loads(line)["result"]
    ok+=r=="OK"; bad+=r not in ("OK","SKIP","EXPECTEDFAIL")
print(ok, bad)' "$1"
}
set -- $(count "${BUILD:-build}/meson-logs/testlog.json") $(count "${SAN_BUILD:-build-sanitize}/meson-logs/testlog.json")
passed=$(( $1 + $3 + 1 + 6 ))
failed=$(( $2 + $4 ))
echo "make test: ${passed} passed, ${failed} failed"
