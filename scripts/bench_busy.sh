#!/bin/sh
# Busy-machine benchmark: `sensim bench` with K other processes spinning on
# the cores (a game engine, a ROS stack), then the same quiet.
# usage: scripts/bench_busy.sh [K] [sensim bench arguments...]
# The pipeline/bare ratio under load should stay >= 0.5 x the quiet one.
set -eu
K=${1:-2}
[ $# -gt 0 ] && shift
SENSIM=${SENSIM:-build/src/cli/sensim}
pids=""
cleanup() { for p in $pids; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT INT TERM
i=0
while [ "$i" -lt "$K" ]; do
    sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done
echo "# $K busy processes"
"$SENSIM" bench "$@" | tail -n +3
cleanup
pids=""
echo "# quiet"
"$SENSIM" bench "$@" | tail -n +3
