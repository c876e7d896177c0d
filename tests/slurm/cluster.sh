#!/usr/bin/env bash
# A real single-node Slurm cluster on localhost for tests:
# munged, slurmctld and slurmd from Debian's packages, every file under DIR.
#   source tests/slurm/cluster.sh; cluster_start DIR || exit 77; ...; cluster_stop DIR
# cluster_start exports SLURM_CONF; it fails (returns 1, saying why) where
# Slurm cannot be started here.

cluster_start() {
  local dir="$1"
  for p in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
    command -v "$p" > /dev/null || { echo "slurm test: $p is not installed (Debian: slurm-wlm, munge)"; return 1; }
  done
  [ "$(id -u)" -eq 0 ] || { echo "slurm test: the daemons need root"; return 1; }
  cluster_stop "$dir" 2> /dev/null
  rm -rf "$dir"
  mkdir -p "$dir"/{munge,state,spool,log}
  chmod 755 "$dir/munge"
  mungekey --create --force --keyfile="$dir/munge/munge.key" > /dev/null 2>&1 || { echo "slurm test: mungekey failed"; return 1; }
  munged --foreground --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munge/munged.pid" --seed-file="$dir/munge/munge.seed" --log-file="$dir/munge/munged.log" \
    > "$dir/log/munged.out" 2>&1 &
  echo $! > "$dir/munged.pid"
  local node port=$((20000 + RANDOM % 20000))
  node=$(slurmd -C | head -1)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=vtatest
SlurmctldHost=localhost
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  slurmctld -D -i -f "$SLURM_CONF" > "$dir/log/slurmctld.out" 2>&1 &
  echo $! > "$dir/slurmctld.daemon"
  slurmd -D -N "$(hostname -s)" -f "$SLURM_CONF" > "$dir/log/slurmd.out" 2>&1 &
  echo $! > "$dir/slurmd.daemon"
  for _ in $(seq 1 100); do
    if sinfo -h -o '%t' 2> /dev/null | grep -qE '^(idle|mix|alloc)'; then return 0; fi
    sleep 0.2
  done
  echo "slurm test: the cluster did not come up; slurmctld log:"
  tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" 2> /dev/null
  return 1
}

cluster_stop() {
  local dir="$1"
  [ -f "$dir/slurm.conf" ] && SLURM_CONF="$dir/slurm.conf" scontrol shutdown > /dev/null 2>&1
  for f in slurmd.daemon slurmctld.daemon munged.pid; do
    [ -f "$dir/$f" ] && kill "$(cat "$dir/$f")" 2> /dev/null
  done
  sleep 0.5
  for f in slurmd.daemon slurmctld.daemon munged.pid; do
    [ -f "$dir/$f" ] && kill -9 "$(cat "$dir/$f")" 2> /dev/null && rm -f "$dir/$f"
  done
  rm -f "$dir"/slurmctld.pid "$dir"/slurmd.pid "$dir"/munge/munged.pid
  return 0
}
