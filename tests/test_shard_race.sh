#!/bin/sh
# Shards of one run start together (a Slurm array, GNU parallel) and meet in
# the output folder: shard B's open of meta.json fails, shard A renames its
# meta.json in, B lists the folder and sees meta.json beside A's first frame.
# B must read meta.json again and join the run, not refuse the folder (this
# failed a CI run). The preload shim makes the interleaving happen every time.
set -eu
sensim=$1
shim=$2
D=$(mktemp -d /tmp/sensim-shard-race.XXXXXX)
trap 'rm -rf "$D"' EXIT
printf 'v -50 -50 0\nv 50 -50 0\nv 50 50 0\nv -50 50 0\nf 1 2 3\nf 1 3 4\n' > "$D/plane.obj"
printf 't,x,y,z,roll,pitch,yaw\n0,0,0,1.8,0,0,0\n0.4,2,0,1.8,0,0,5\n' > "$D/traj.csv"
args="--scene $D/plane.obj --lidar vlp16 --trajectory $D/traj.csv --seed 3 --quiet"
# the whole run, in one go
"$sensim" batch $args --out "$D/single"
# shard 0 of 2 as "A": its meta.json and frames
"$sensim" batch $args --out "$D/a" --shard 0/2
mkdir "$D/b"
# shard 1 of 2 as "B" in an empty folder; A's meta.json and first frame arrive between B's open and B's listing
cp "$D/a/meta.json" "$D/meta.staged"
cp "$D"/a/frame_000000.* "$D/b/" 2>/dev/null || true
rm -f "$D/b/meta.json"
SENSIM_RACE_META_FROM="$D/meta.staged" SENSIM_RACE_META_TO="$D/b/meta.json" SENSIM_RACE_DIR="$D/b" LD_PRELOAD="$shim" \
  "$sensim" batch $args --out "$D/b" --shard 1/2 || { echo "FAIL: shard B refused the folder A had just claimed"; exit 1; }
[ ! -e "$D/meta.staged" ] || { echo "FAIL: the shim never ran (B did not list its folder)"; exit 1; }
cp -n "$D"/a/* "$D/b/"
diff -r "$D/single" "$D/b" || { echo "FAIL: the two shards differ from the single run"; exit 1; }
echo "shard race: B joined the run; shards = single run"
