#!/bin/bash
# Starts a single-node Slurm cluster (munge + slurmctld + slurmd, as root, on
# loopback, in a scratch directory), submits scripts/slurm_array.sh as a
# 4-task job array and checks that the merged output equals a single run.
set -eu
sensim=$1
src=$2
[ "$(id -u)" = 0 ] || { echo "this test starts Slurm daemons and needs root"; exit 1; }
for b in munged slurmctld slurmd sbatch squeue sinfo; do
  command -v "$b" >/dev/null || { echo "missing $b (scripts/install-deps.sh installs Slurm)"; exit 1; }
done
D=$(mktemp -d /tmp/sensim-slurm.XXXXXX)
chmod 755 "$D"
cleanup() {
  pids=""
  for p in "$D/slurmd.pid" "$D/slurmctld.pid" "$D/msock/munged.pid"; do
    [ -f "$p" ] && pids="$pids $(cat "$p")"
  done
  pids="$pids $(pgrep -f "$D" || true)"
  kill $pids 2>/dev/null || true
  for i in $(seq 1 20); do
    alive=0
    for p in $pids; do kill -0 "$p" 2>/dev/null && alive=1; done
    [ $alive = 0 ] && break
    sleep 0.25
  done
  kill -9 $pids 2>/dev/null || true
  rm -rf "$D"
}
trap cleanup EXIT
port=$((20000 + $$ % 20000))
mkdir -p "$D/state" "$D/spool" "$D/munge" "$D/msock" "$D/work"
cp /etc/munge/munge.key "$D/munge/munge.key" 2>/dev/null || dd if=/dev/urandom of="$D/munge/munge.key" bs=128 count=1 2>/dev/null
chown -R munge:munge "$D/munge" "$D/msock"
chmod 700 "$D/munge"
chmod 400 "$D/munge/munge.key"
chmod 755 "$D/msock"
runuser -u munge -- munged --key-file="$D/munge/munge.key" --socket="$D/msock/munge.socket" \
  --pid-file="$D/msock/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/seed"
cat > "$D/slurm.conf" <<CONF
ClusterName=sensimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/msock/munge.socket
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmctldPort=$port
SlurmdPort=$((port + 1))
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$D/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost
for i in $(seq 1 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 0.5
done
sinfo -h -o %t | grep -q idle || { echo "slurm node did not come up"; tail -5 "$D/slurmctld.log" "$D/slurmd.log"; exit 1; }

cd "$D/work"
python3 - <<'PY'
import math
with open("traj.csv", "w") as f:
    f.write("t,x,y,z,roll,pitch,yaw\n")
    for i in range(0, 201):
        t = i * 0.01
        f.write("%g,%g,%g,1.8,0,0,%g\n" % (t, -30 + 8 * t, 0.5 * math.sin(t), 10 * math.sin(t)))
PY
args="--scene street --lidar vlp16 --trajectory $D/work/traj.csv --set range_noise_stddev_m=0.02 --seed 4"
"$sensim" batch $args --out "$D/work/single" --quiet
jid=$(sbatch --parsable --array=0-3 --output="$D/work/slurm-%A_%a.out" "$src/scripts/slurm_array.sh" "$sensim" $args --out "$D/work/array")
for i in $(seq 1 240); do
  [ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] && break
  sleep 0.5
done
[ -z "$(squeue -h -j "$jid" 2>/dev/null)" ] || { echo "array job $jid did not finish"; exit 1; }
cat "$D"/work/slurm-*.out
n=$(ls "$D/work/single" | wc -l)
if diff -r "$D/work/single" "$D/work/array"; then
  echo "slurm array of 4 tasks = single run ($n files)"
  echo "1 passed, 0 failed"
else
  echo "0 passed, 1 failed"
  exit 1
fi
