#!/bin/bash
# Interleaved A/B of `sensim bench --camera` between two builds: ROUNDS
# alternated runs; prints the median over rounds of each build's
# camera_ratio_vs_embree_tiled and camera_render_ms.
#   scripts/camera_ab.sh OLD_SENSIM NEW_SENSIM ROUNDS CAMERA [BENCH_ARGS...]
set -eu
old=$1 new=$2 rounds=$3 cam=$4
shift 4
a=() b=() ta=() tb=()
for r in $(seq "$rounds"); do
    order="old new"
    [ $((r % 2)) = 0 ] && order="new old"
    for v in $order; do
        bin=$old
        [ "$v" = new ] && bin=$new
        j=$("$bin" bench --camera "$cam" --reps 15 --json "$@" 2>/dev/null)
        x=$(echo "$j" | sed -n 's/.*"camera_ratio_vs_embree_tiled": \([0-9.]*\).*/\1/p')
        t=$(echo "$j" | sed -n 's/.*"camera_render_ms": \([0-9.]*\).*/\1/p')
        if [ "$v" = old ]; then a+=("$x") ta+=("$t"); else b+=("$x") tb+=("$t"); fi
    done
done
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
printf '%-14s ratio_vs_embree_tiled old %.3f new %.3f   render ms old %.3f new %.3f\n' "$cam" "$(med "${a[@]}")" \
    "$(med "${b[@]}")" "$(med "${ta[@]}")" "$(med "${tb[@]}")"
