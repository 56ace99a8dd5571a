#!/usr/bin/env bash
# Dataset writing against stepping alone (issue 53), interleaved runs of two builds:
#   scripts/dataset_ab.sh OLD_SENSIM NEW_SENSIM [ROUNDS]
# The collection: pandar64 + a pinhole_720p camera writing rgb, depth and
# semantic at 20 Hz, 2 s of the street. Each round runs, one after the other,
# OLD and NEW `batch --rig` (files), `batch --format mcap`, `collect --rate 20`,
# and NEW's `ros2 --dry-run --rate max` (the same rig stepped, every frame
# discarded). Prints per command the median wall and CPU (user + sys) seconds
# over the rounds and the ratio of the medians to NEW's dry run.
set -euo pipefail
old="$1" new="$2" rounds="${3:-5}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/rig.ini" <<'EOF'
[sensor top]
preset = pandar64
mount_xyz_m = 0, 0, 1.8

[sensor front]
type = camera
preset = pinhole_720p
rate_hz = 20
outputs = rgb, depth, semantic
mount_xyz_m = 1.5, 0, 1.4
EOF
printf 't,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n2,20,0,0,0,0,0\n' > "$tmp/traj.csv"
common=(--scene street --rig "$tmp/rig.ini" --trajectory "$tmp/traj.csv")
for r in $(seq "$rounds"); do
  for b in old new; do
    bin=$old; [ "$b" = new ] && bin=$new
    for kind in files mcap collect; do
      rm -rf "$tmp/out"
      case $kind in
        files) args=(batch "${common[@]}" --out "$tmp/out" --quiet) ;;
        mcap) args=(batch "${common[@]}" --out "$tmp/out" --format mcap --quiet) ;;
        collect) args=(collect "${common[@]}" --out "$tmp/out" --rate 20) ;;
      esac
      /usr/bin/time -f "$b-$kind %e %U %S" -o "$tmp/t" "$bin" "${args[@]}" >/dev/null 2>&1
      cat "$tmp/t" >> "$tmp/times"
    done
  done
  /usr/bin/time -f "dry %e %U %S" -o "$tmp/t" "$new" ros2 --dry-run --rate max "${common[@]}" --quiet >/dev/null 2>&1
  cat "$tmp/t" >> "$tmp/times"
done
/usr/bin/python3 - "$tmp/times" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    k, w, u, s = line.split()
    rows.setdefault(k, []).append((float(w), float(u) + float(s)))
dry = statistics.median(w for w, _ in rows["dry"])
for k in sorted(rows):
    w = statistics.median(x for x, _ in rows[k])
    c = statistics.median(x for _, x in rows[k])
    print("%-12s wall %5.2f s  cpu %5.2f s  x dry %4.2f  (walls %s)" %
          (k, w, c, w / dry, " ".join("%.2f" % x for x, _ in rows[k])))
EOF
