#!/bin/sh
#SBATCH --job-name=sensim-batch
#SBATCH --ntasks=1
# One shard of a `sensim batch` run per Slurm array task. Every task writes
# into the same --out directory (files are written through a temporary name
# and renamed, meta.json is identical for every shard), and the union of all
# tasks is byte-identical to a single run.
#
#   sbatch --array=0-7 scripts/slurm_array.sh /path/to/sensim \
#       --scene city.obj --lidar pandar64 --trajectory drive.csv --out /shared/run1
#
# The same with GNU parallel on one machine:
#   parallel sensim batch --scene city.obj --lidar pandar64 \
#       --trajectory drive.csv --out run1 --shard {}/8 ::: $(seq 0 7)
set -eu
: "${SLURM_ARRAY_TASK_ID:?submit with sbatch --array=0-(N-1)}"
: "${SLURM_ARRAY_TASK_COUNT:?submit with sbatch --array=0-(N-1)}"
sensim=$1
shift
exec "$sensim" batch "$@" --shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --quiet
