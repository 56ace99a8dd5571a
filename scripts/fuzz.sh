#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan) and run each for a
# bounded time from the seed corpus in tests/corpus/<target>, one target per
# core at a time (FUZZ_JOBS; each target's budget is its own). Findings are
# written to $FUZZ_OUT (default build-fuzz/findings) and make this fail; add
# them to tests/corpus/<target>/ as regression seeds once fixed.
#   scripts/fuzz.sh [seconds per target]      exploration: random seed, time-bounded
#   FUZZ_RUNS=N [FUZZ_SEED=S] scripts/fuzz.sh   reproducible: N inputs per target from seed S
#                                             (default 1); `make test` uses this, so the CI
#                                             verdict of a commit does not depend on luck or speed
set -eu
cd "$(dirname "$0")/.."
seconds=${1:-${FUZZ_SECONDS:-20}}
build=${FUZZ_BUILD:-build-fuzz}
out=${FUZZ_OUT:-$build/findings}
if [ ! -f "$build/build.ninja" ]; then
  CC=clang-14 CXX=clang++-14 meson setup "$build" -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false -Dtests=true \
    --buildtype=debugoptimized >/dev/null
fi
targets="obj ply preset csv trajectory rig tagmap camera mtl actors view odr"
ninja -C "$build" $(for t in $targets; do printf 'tests/fuzz/fuzz_%s ' "$t"; done) >/dev/null
mkdir -p "$out"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
if [ -n "${FUZZ_RUNS:-}" ]; then
  budget="-runs=$FUZZ_RUNS -seed=${FUZZ_SEED:-1}"
else
  budget="-max_total_time=$seconds"
fi
# the targets side by side, one per core (each is one process): every one runs its whole budget, and
# their verdicts are printed in the targets' order
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
export build out budget
rm -f "$out"/*.verdict "$out"/*.failed
printf '%s\n' $targets | xargs -P "$jobs" -I{} sh -c '
  t={}
  work=$(mktemp -d)
  if "$build/tests/fuzz/fuzz_$t" $budget -timeout=10 -rss_limit_mb=2048 -close_fd_mask=3 \
      -artifact_prefix="$out/$t-" "$work" "tests/corpus/$t" > "$out/$t.log" 2>&1; then
    echo "fuzz $t: $(grep -E "^Done [0-9]+ runs" "$out/$t.log" | tail -n 1), corpus $(ls "$work" | wc -l) inputs" \
      > "$out/$t.verdict"
  else
    { echo "fuzz $t: FAILED, see $out/$t.log and $out/$t-*"; tail -n 20 "$out/$t.log"; } > "$out/$t.verdict"
    touch "$out/$t.failed"
  fi
  rm -rf "$work"
' || true
failed=0
for t in $targets; do
  if [ -f "$out/$t.verdict" ]; then cat "$out/$t.verdict"; else echo "fuzz $t: did not run"; failed=1; fi
  [ -f "$out/$t.failed" ] && failed=1
  rm -f "$out/$t.verdict" "$out/$t.failed"
done
exit $failed
