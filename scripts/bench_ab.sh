#!/bin/bash
# Interleaved A/B of `sensim bench` between two builds: ROUNDS alternated runs
# (A B, B A, ...) per sensor; prints the median over rounds of each build's
# ratio against the bare loop of the same run (so load on the machine
# divides out) and of its frame time. A lidar preset is measured with
# ratio_vs_embree_best (KEY=... for another key); camera:NAME measures a
# camera's depth + semantic render (camera_ratio_vs_embree_tiled).
#   scripts/bench_ab.sh OLD_SENSIM NEW_SENSIM ROUNDS SENSOR... [-- BENCH_ARGS...]
#   e.g. scripts/bench_ab.sh /tmp/base/build/src/cli/sensim build/src/cli/sensim 4 mems_m1 camera:pinhole_720p
set -eu
old=$1 new=$2 rounds=$3
shift 3
sensors=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do sensors+=("$1"); shift; done
[ $# -gt 0 ] && shift
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for p in "${sensors[@]}"; do
    if [ "${p#camera:}" != "$p" ]; then
        sel=(--camera "${p#camera:}") key=camera_ratio_vs_embree_tiled tkey=camera_render_ms
    else
        sel=(--lidar "$p") key=${KEY:-ratio_vs_embree_best} tkey=pipeline_frame_ms
    fi
    a=() b=() ta=() tb=()
    for r in $(seq "$rounds"); do
        order="old new"
        [ $((r % 2)) = 0 ] && order="new old"
        for v in $order; do
            bin=$old
            [ "$v" = new ] && bin=$new
            j=$("$bin" bench "${sel[@]}" --reps 20 --json "$@" 2>/dev/null)
            x=$(echo "$j" | sed -n "s/.*\"$key\": \([0-9.]*\).*/\1/p")
            t=$(echo "$j" | sed -n "s/.*\"$tkey\": \([0-9.]*\).*/\1/p")
            if [ "$v" = old ]; then a+=("$x") ta+=("$t"); else b+=("$x") tb+=("$t"); fi
        done
    done
    printf '%-20s %s old %.3f new %.3f   frame ms old %.3f new %.3f\n' "$p" "$key" "$(med "${a[@]}")" \
        "$(med "${b[@]}")" "$(med "${ta[@]}")" "$(med "${tb[@]}")"
done
