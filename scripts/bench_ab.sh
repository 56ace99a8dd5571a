#!/bin/bash
# Interleaved A/B of `sensim bench` between two builds: ROUNDS alternated runs
# (A B, B A, ...) per preset; prints the median over rounds of each build's
# ratio_vs_embree_best (the bare loop of the same run, so load on the machine
# divides out) and of its pipeline_frame_ms.
#   scripts/bench_ab.sh OLD_SENSIM NEW_SENSIM ROUNDS PRESET... [-- BENCH_ARGS...]
set -eu
old=$1 new=$2 rounds=$3
shift 3
presets=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do presets+=("$1"); shift; done
[ $# -gt 0 ] && shift
key=${KEY:-ratio_vs_embree_best}
for p in "${presets[@]}"; do
    a=() b=() ta=() tb=()
    for r in $(seq "$rounds"); do
        order="old new"
        [ $((r % 2)) = 0 ] && order="new old"
        for v in $order; do
            bin=$old
            [ "$v" = new ] && bin=$new
            j=$("$bin" bench --lidar "$p" --reps 20 --json "$@" 2>/dev/null)
            x=$(echo "$j" | sed -n "s/.*\"$key\": \([0-9.]*\).*/\1/p")
            t=$(echo "$j" | sed -n 's/.*"pipeline_frame_ms": \([0-9.]*\).*/\1/p')
            if [ "$v" = old ]; then a+=("$x") ta+=("$t"); else b+=("$x") tb+=("$t"); fi
        done
    done
    med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
    printf '%-10s %s old %.3f new %.3f   pipeline ms old %.3f new %.3f\n' "$p" "$key" "$(med "${a[@]}")" \
        "$(med "${b[@]}")" "$(med "${ta[@]}")" "$(med "${tb[@]}")"
done
