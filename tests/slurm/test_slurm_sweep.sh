#!/usr/bin/env bash
# ctest `slurm_sweep` (label slurm): a sharded sweep on a real single-node
# Slurm cluster. Submits 4 array tasks, cancels one with scancel while it
# runs, resubmits it with --resume, waits for the merge, and checks that the
# merged results equal those of the same sweep run locally. Exit 77 (skipped,
# with the reason) only where Slurm cannot be started.
# usage: test_slurm_sweep.sh VTA_EXE WORK_DIR
set -uo pipefail
vta="$1"
work="$2"
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/cluster.sh"
rm -rf "$work"
mkdir -p "$work"
cluster="$work/cluster"
trap 'cluster_stop "$cluster"' EXIT
if ! cluster_start "$cluster"; then
  echo "SKIPPED: Slurm cannot be started on this machine"
  exit 77
fi
export VTA_CONFIG_DIR="$here/../../configs"

# ResNet-18 makes each task last a few seconds (one build per task).
cat > "$work/spec.yaml" << 'SPEC'
name: slurm-test
base: vta-1x16x16
networks: [resnet18]
axes:
  - knob: clock.mhz
    values: [200, 250, 300, 333]
  - knob: gemm.pipeline_depth
    range: {from: 4, to: 13}
  - knob: alu.lanes
    values: [16, 32]
objectives:
  - minimize: time_ms
  - maximize: gops_per_mac
funnel:
  stage2: {top_k: 8, within_pct: 1}
  stage3: {top_k: 1}
SPEC

fail() { echo "FAIL: $*"; for f in "$cluster"/log/*.log "$work"/sweep/slurm-*.out; do echo "== $f"; tail -5 "$f"; done 2> /dev/null; exit 1; }
now() { date +%s%3N; }  # milliseconds

# Waits until no job of ours is queued or running (at most $1 seconds).
wait_idle() {
  for _ in $(seq 1 $(($1 * 5))); do
    [ -z "$(squeue -h -o %i)" ] && return 0
    sleep 0.2
  done
  squeue
  return 1
}

t0=$(now)
"$vta" sweep run -q -j 2 "$work/spec.yaml" --db "$work/local.sqlite" > /dev/null || fail "local run"
t_local=$(( $(now) - t0 ))

t0=$(now)
# Each job first sleeps 2 s (a --setup line), so that task 1 is still running
# when it is frozen below however fast its sweep is (0.8 s here) and however
# loaded the machine.
out=$("$vta" sweep submit "$work/spec.yaml" --slurm --dir "$work/sweep" --tasks 4 --cpus-per-task 1 --mem 1G --time 10:00 --vta "$vta" --setup 'sleep 2') || fail "submit: $out"
echo "$out"
job_a=$(sed -n 's/^stage 0-1 array job \([0-9]*\).*/\1/p' <<< "$out")
[ -n "$job_a" ] || fail "no job id in: $out"
# Cancel task 1 of the stage 0-1 array while it runs.
for _ in $(seq 1 150); do
  state=$(squeue -h -r -j "${job_a}_1" -o %T 2> /dev/null)
  [ "$state" = RUNNING ] && break
  sleep 0.1
done
[ "$state" = RUNNING ] || fail "task ${job_a}_1 never ran (state '$state')"
# Freeze the task (every process of it, the batch script included) at once, so
# that it cannot finish before the cancel however fast the machine is; then
# cancel it. A task that ended between the poll and the freeze is a failure
# of this test's timing, said as such.
scancel --full --signal=STOP "${job_a}_1" 2> /dev/null
state=$(squeue -h -r -j "${job_a}_1" -o %T 2> /dev/null)
[ "$state" = RUNNING ] || [ "$state" = STOPPED ] || fail "task ${job_a}_1 ended before it could be frozen (state '$state'): make the tasks longer"
scancel "${job_a}_1" || fail "scancel"
echo "cancelled ${job_a}_1 while it was $state"
wait_idle 120 || fail "jobs did not finish after the cancel"
[ -f "$work/sweep/merged.sqlite" ] && fail "the merge ran although a task was cancelled"
"$vta" sweep status "$work/sweep" || fail "status"
out=$("$vta" sweep submit "$work/spec.yaml" --slurm --dir "$work/sweep" --tasks 4 --cpus-per-task 1 --mem 1G --time 10:00 --vta "$vta" --resume) || fail "resume: $out"
echo "$out"
grep -q "tasks 1)" <<< "$out" || fail "--resume did not resubmit exactly task 1: $out"
wait_idle 180 || fail "jobs did not finish after the resubmission"
t_slurm=$(( $(now) - t0 ))
[ -f "$work/sweep/merged.sqlite" ] || fail "no merged store"
[ -f "$work/sweep/report.html" ] || fail "no report"
"$vta" sweep status "$work/sweep"

# The merged results equal the local run's (wall times aside).
stable() { "$vta" sweep export --json --layers "$1" | python3 -c '
import json, sys
j = json.load(sys.stdin)
for p in j["points"]:
    for st in p["stages"].values(): st.pop("wall_s", None)
print(json.dumps(sorted(j["points"], key=lambda p: p["key"]), sort_keys=True))'; }
stable "$work/local.sqlite" > "$work/local.json" || fail "export local"
stable "$work/sweep/merged.sqlite" > "$work/merged.json" || fail "export merged"
cmp -s "$work/local.json" "$work/merged.json" || fail "merged results differ from the local run"
points=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$work/local.json")
# The folder of shards reads like the merged store.
stable "$work/sweep" > "$work/folder.json" || fail "export folder"
cmp -s "$work/local.json" "$work/folder.json" || fail "the folder of shards differs from the local run"
echo "slurm sweep: $points points, merged == local; local ${t_local} ms, on Slurm ${t_slurm} ms (with a cancelled task and its resubmission)"
echo "1 passed, 0 failed"
