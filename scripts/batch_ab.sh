#!/bin/bash
# A/B of `sensim batch` between two builds: run both with the same arguments and
# compare the output trees file by file (meta.json records the command's path,
# so it always differs).
#   scripts/batch_ab.sh OLD_SENSIM NEW_SENSIM NAME BATCH_ARGS...
# e.g. build the previous commit in a worktree (git worktree add /tmp/base REV;
# meson setup /tmp/base/build --buildtype=debugoptimized; ninja -C /tmp/base/build src/cli/sensim), then
#   scripts/batch_ab.sh /tmp/base/build/src/cli/sensim build/src/cli/sensim lidar \
#       --scene street --lidar vlp16 --trajectory traj.csv
# Outputs go to ab_old_NAME/ and ab_new_NAME/ in the current folder.
set -u
old=$1 new=$2 name=$3
shift 3
for v in old new; do
    bin=$old
    [ "$v" = new ] && bin=$new
    rm -rf "ab_${v}_$name"
    "$bin" batch "$@" --out "ab_${v}_$name" --quiet 2> "ab_${v}_$name.err" ||
        echo "$v: exit $?: $(tail -n 2 "ab_${v}_$name.err")"
done
n=$(find "ab_new_$name" -type f | wc -l)
d=$(diff -rq "ab_old_$name" "ab_new_$name" | grep -v "meta.json differ" | wc -l)
echo "$name: $d of $n files differ (meta.json aside)"
diff -rq "ab_old_$name" "ab_new_$name" | grep -v "meta.json differ" | head -n 10
[ "$d" = 0 ]
