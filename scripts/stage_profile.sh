#!/bin/sh
# Stage breakdown of the scan pipeline (ns per shot per stage) from a perf
# profile of a one-thread `sensim scan` of PRESET on the built-in street.
# usage: scripts/stage_profile.sh PRESET [FRAMES] (SENSIM=... for another binary)
set -eu
P=$1
F=${2:-40}
SENSIM=${SENSIM:-build/src/cli/sensim}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
perf record -q -o "$out/perf.data" -- "$SENSIM" scan --scene street --lidar "$P" --pose 0,0,1.8,0,0,0 \
    --count "$F" --threads 1 --out "$out/frames" > "$out/log" 2>/dev/null
shots=$("$SENSIM" scan --scene street --lidar "$P" --pose 0,0,1.8,0,0,0 --count 1 --threads 1 \
    --out "$out/one" | sed -n 's/.* \([0-9]*\) shots\/frame.*/\1/p')
secs=$(sed -n 's/.*seconds \([0-9.]*\).*/\1/p' "$out/log")
perf report -q -i "$out/perf.data" --no-children --sort dso,symbol 2>/dev/null |
awk -v shots="$shots" -v frames="$F" -v secs="$secs" '
{ pct = $1; sub("%", "", pct); dso = $2; sym = $4;
  st = "other";
  if (dso ~ /embree/ || sym ~ /trace_rays|fill_hit|trace_one/) st = "trace (Embree + packing + hit decode)";
  else if (sym ~ /mech_|compose|head_angle|pattern_|risley|refract|walk_step|^turn$|mems|sincos|__divmodti/) st = "pattern";
  else if (sym ~ /follow|emit|merge|add_cand|returns_|erfc|detect|rng|exp$|__ieee754/) st = "return model";
  else if (sym ~ /scan_chunk/) st = "lane setup, rays, ring copy";
  else if (sym ~ /path_pose|slerp|mat4|quat|to_floats/) st = "poses";
  else if (sym ~ /write_spans|pack|libc_write|copy_folio|memmove/) st = "PLY writing (not the scan)";
  else if (dso ~ /gomp/) st = "OpenMP";
  else if (dso ~ /libm/) st = "libm (trig, log, erfc of both)";
  t[st] += pct }
END { total_ns = secs * 1e9 / frames / shots;
  printf "%s: %d shots/frame, %.1f ns per shot in all (1 thread, including PLY writing)\n", "'"$P"'", shots, total_ns;
  for (s in t) printf "  %-40s %6.1f ns/shot (%4.1f %%)\n", s, t[s] / 100 * total_ns, t[s] }'
