#!/bin/sh
# `make test`: every stage runs and reports even when an earlier one failed;
# the last lines are one line per stage (verdict, seconds) and the meson test
# counts; the exit status is 0 only when every stage passed.
#
# Stages: the API reference (Doxygen, warnings as errors); the build with
# tests; the suite; the ASan + UBSan build; the suite under it; the
# concurrency tests under ThreadSanitizer (TSAN_RUNS times); every fuzzer for
# FUZZ_RUNS inputs from seed 1.
#
# Timeouts are the tests' own (sized for a quiet machine) times
# TIMEOUT_MULTIPLIER (default 3): a machine with one core taken by another
# process runs the suite about twice as slowly, and a hang is still caught.
# No test asserts a wall-clock rate or duration, so load changes times only.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
SAN_BUILD=${SAN_BUILD:-build-sanitize}
MULT=${TIMEOUT_MULTIPLIER:-3}
FUZZ_RUNS=${FUZZ_RUNS:-250000}
MAKE=${MAKE:-make}
summary=""
failed=0

stage() {
  name=$1
  shift
  echo "=== make test: stage $name: $*"
  start=$(date +%s)
  if sh -c "$*"; then verdict=passed; else verdict=FAILED; failed=$((failed + 1)); fi
  secs=$(( $(date +%s) - start ))
  echo "=== make test: stage $name $verdict ($secs s)"
  summary="$summary$(printf '  %-12s %-7s %5d s' "$name" "$verdict" "$secs")
"
}

stage docs "$MAKE --no-print-directory docs"
stage build "{ [ -f $BUILD/build.ninja ] || meson setup $BUILD --buildtype=debugoptimized -Dtests=true; } \
  && meson configure $BUILD -Dtests=true && ninja -C $BUILD"
stage suite "meson test -C $BUILD --print-errorlogs --timeout-multiplier $MULT"
stage asan-build "{ [ -f $SAN_BUILD/build.ninja ] || meson setup $SAN_BUILD --buildtype=debug \
  -Db_sanitize=address,undefined -Db_lundef=false -Dtests=true; } && ninja -C $SAN_BUILD"
stage asan "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C $SAN_BUILD --print-errorlogs --timeout-multiplier $MULT"
stage tsan "$MAKE --no-print-directory tsan"
stage fuzz "FUZZ_RUNS=$FUZZ_RUNS FUZZ_SEED=1 scripts/fuzz.sh"

count() {
  [ -f "$1/meson-logs/testlog.json" ] || { echo "no test log"; return; }
  /usr/bin/python3 -c 'import json, sys
res = [json.loads(l)["result"] for l in open(sys.argv[1])]
bad = [r for r in res if r not in ("OK", "SKIP", "EXPECTEDFAIL")]
print("%d passed, %d failed, %d skipped" % (res.count("OK"), len(bad), res.count("SKIP")))' "$1/meson-logs/testlog.json"
}
echo
echo "make test: summary"
printf '%s' "$summary"
echo "  meson tests ($BUILD): $(count "$BUILD")"
echo "  meson tests ($SAN_BUILD): $(count "$SAN_BUILD")"
if [ "$failed" -ne 0 ]; then
  echo "make test: $failed stage(s) FAILED"
  exit 1
fi
echo "make test: every stage passed"
