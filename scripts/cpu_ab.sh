#!/bin/bash
# Interleaved A/B of two builds' libsensim on bench/bench_cpu: per preset,
# ROUNDS runs of each (A B, B A, ...), each the minimum frame cost over
# FRAMES frames (one thread: the thread's CPU time, which the hypervisor's
# steal does not inflate); prints the median of each build's runs and their
# ratio. OLD_LIBDIR and NEW_LIBDIR hold libsensim.so.0 (a build directory).
#   scripts/cpu_ab.sh OLD_LIBDIR NEW_LIBDIR ROUNDS FRAMES THREADS PRESET... [-- STEP_NS]
#   e.g. scripts/cpu_ab.sh /tmp/base/build build 5 20 1 pandar64 mems_m1
set -eu
old=$1 new=$2 rounds=$3 frames=$4 threads=$5
shift 5
presets=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do presets+=("$1"); shift; done
[ $# -gt 0 ] && shift
bin=$(dirname "$0")/../build/bench/bench_cpu
[ -x "$bin" ] || { echo "cpu_ab.sh: build $bin first (ninja -C build bench/bench_cpu)" >&2; exit 2; }
med() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
for p in "${presets[@]}"; do
    a=() b=()
    for r in $(seq "$rounds"); do
        order="old new"
        [ $((r % 2)) = 0 ] && order="new old"
        for v in $order; do
            lib=$old
            [ "$v" = new ] && lib=$new
            t=$(LD_LIBRARY_PATH=$lib "$bin" "$p" "$frames" "$threads" "$@" | awk '{print $2}')
            if [ "$v" = old ]; then a+=("$t"); else b+=("$t"); fi
        done
    done
    ma=$(med "${a[@]}") mb=$(med "${b[@]}")
    printf '%-12s frame ms old %s new %s  new/old %s   (old: %s; new: %s)\n' "$p" "$ma" "$mb" \
        "$(awk -v x="$mb" -v y="$ma" 'BEGIN {printf "%.3f", x / y}')" "${a[*]}" "${b[*]}"
done
