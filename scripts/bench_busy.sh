#!/bin/sh
# Busy-machine benchmark: `sensim bench --json` with K other processes
# spinning on the cores (a game engine, a ROS stack), then the same quiet,
# ROUNDS times (default 5). Prints each round's pipeline ms (median of the
# frames) and ratio to the best bare loop, busy and quiet, and at the end
# per preset the median over the rounds of busy ratio / quiet ratio: the
# issue-14 figure, which should stay >= 0.5.
#
# Frames run 50 times a round unless the arguments say otherwise: a mid40
# frame (~1.2 ms) is shorter than a scheduler tick (4 ms here), so with a
# handful of frames a median is decided by whether one thread lost a slice
# in two or three of them (the "0.1-2.6 x" of earlier runs with --reps 5).
#
# usage: scripts/bench_busy.sh [K] [sensim bench arguments...]
set -eu
K=${1:-2}
[ $# -gt 0 ] && shift
ROUNDS=${ROUNDS:-5}
SENSIM=${SENSIM:-build/src/cli/sensim}
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; pids=""; }
trap cleanup EXIT INT TERM
out=$(mktemp)
trap 'cleanup; rm -f "$out"' EXIT INT TERM
r=1
while [ "$r" -le "$ROUNDS" ]; do
    i=0
    while [ "$i" -lt "$K" ]; do
        sh -c 'while :; do :; done' &
        pids="$pids $!"
        i=$((i + 1))
    done
    "$SENSIM" bench --reps 50 "$@" --json | sed "s/^/busy $r /" >> "$out"
    cleanup
    "$SENSIM" bench --reps 50 "$@" --json | sed "s/^/quiet $r /" >> "$out"
    r=$((r + 1))
done
awk -v K="$K" '
function field(key,   s) {
    s = $0; sub(".*\"" key "\": ", "", s); sub("[,}].*", "", s); gsub("\"", "", s); return s }
{ mode = $1; round = $2; p = field("preset");
  ms[mode, round, p] = field("pipeline_frame_ms"); ratio[mode, round, p] = field("ratio_vs_embree_best");
  if (!(p in seen)) { seen[p] = 1; order[++np] = p } if (round > nr) nr = round }
END {
  printf "# %d busy processes; pipeline ms and ratio to the best bare loop, busy | quiet\n", K;
  for (i = 1; i <= np; i++) {
    p = order[i]; n = 0;
    for (r = 1; r <= nr; r++) {
      printf "%-12s round %d: %7.2f ms %6.3f | %7.2f ms %6.3f\n", p, r, ms["busy", r, p], ratio["busy", r, p],
             ms["quiet", r, p], ratio["quiet", r, p];
      if (ratio["quiet", r, p] > 0) v[++n] = ratio["busy", r, p] / ratio["quiet", r, p] }
    for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++) if (v[b] < v[a]) { t = v[a]; v[a] = v[b]; v[b] = t }
    printf "%-12s busy/quiet ratio, median of %d rounds: %.2f (min %.2f, max %.2f)\n", p, n,
           n % 2 ? v[(n + 1) / 2] : 0.5 * (v[n / 2] + v[n / 2 + 1]), v[1], v[n] }
}' "$out"
