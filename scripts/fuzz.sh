#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `asan`: clang, AddressSanitizer and
# UndefinedBehaviorSanitizer; the same tree as the sanitizer test suite) and
# runs each for SECONDS, one at a time, on a working corpus seeded from the
# committed corpus and files the repository holds (tests/fuzz/README.md).
# A finding (crash, sanitizer report, an exception other than vta::Error, an
# empty message, a hang past 10 s, more than 4 GiB) stops the target and
# leaves crash-*/timeout-*/oom-* files in build/asan/fuzz/findings/TARGET.
#   scripts/fuzz.sh [SECONDS] [TARGET ...]   (default 60 s; all targets)
#   scripts/fuzz.sh --ci [TARGET ...]        what CI runs: a fixed seed and a fixed
#                                            number of executions per target (about
#                                            10 to 40 s each) from a fresh working corpus, so
#                                            a commit's result is the same here and in CI
#   scripts/fuzz.sh --merge [TARGET ...]     minimise the working corpus into tests/fuzz/corpus/TARGET
#   scripts/fuzz.sh --jobs N SECONDS [TARGET ...]   N processes per target at once on
#                                            its working corpus (libFuzzer's -jobs), each with
#                                            its own log (build/asan/fuzz/findings/TARGET/fuzz-J.log)
#                                            and ledger row
# An open-ended run appends a row per target to tests/fuzz/campaign.tsv (date,
# commit, target, seconds, executions, edges, corpus, findings): the ledger
# of executions toward the target of 10 million per fuzz target;
#   scripts/fuzz_totals.sh   sums it per target.
# FUZZ_FLAGS adds libFuzzer flags (-use_value_profile=1 guides comparisons
# better at a third of the speed; tests/fuzz/README.md).
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0 ci=0 jobs=1
if [ "${1:-}" = --jobs ]; then
  jobs=${2:-}
  [[ "$jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz.sh: --jobs needs a positive number, got '$jobs'" >&2; exit 2; }
  shift 2
fi
case "${1:-}" in
  --merge) merge=1; shift; secs=0 ;;
  --ci) ci=1; shift; secs=0 ;;
  *) secs=${1:-60}; shift || true ;;
esac
if [ "$jobs" -gt 1 ] && [ $((ci + merge)) -gt 0 ]; then
  echo "fuzz.sh: --jobs is for open-ended runs, not --ci (one seed) or --merge" >&2
  exit 2
fi
# --ci: executions per target, about 10 to 40 s each (rates measured
# 2026-11-28 on the idle 2-core machine, two targets at once: config 2 000
# exec/s, config_import 14 600, vasm 8 300, program 760, onnx 2 000,
# sweep_spec 1 350, untrusted_text 1 100, systemc 1 800); libFuzzer with one
# seed and one process replays the same inputs for the same code, so CI's
# run is a regression check on the corpus plus a fixed walk; the open-ended
# campaigns (tests/fuzz/campaign.tsv) are where new inputs are found. Halved
# on 2026-11-28 (seventh session) to keep CI under 45 minutes: the stage
# took about 3.3 min of wall time, now about 1.7.
declare -A ci_runs=([config]=75000 [config_import]=300000 [vasm]=100000 [program]=20000 [onnx]=50000
  [sweep_spec]=50000 [systemc]=50000 [untrusted_text]=10000)
targets=("$@")
root=$(pwd) out=build/asan
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/lsan.supp:print_suppressions=0}"
cmake --preset asan >/dev/null
if [ ${#targets[@]} -eq 0 ]; then
  targets=(config config_import vasm program onnx sweep_spec untrusted_text systemc)
fi
cmake --build --preset asan --target vta "${targets[@]/#/fuzz_}"
# The commit the targets were built from (the ledger's; HEAD may move while they run).
commit=$(git rev-parse --short HEAD 2>/dev/null || echo -)
mkdir -p "$out/fuzz"
# One target: its run, its ledger row, and its findings (exit 1 on one).
fuzz_one() {
  local t=$1
  bin="$root/$out/tests/fuzz/fuzz_$t"
  work="$out/fuzz/corpus/$t"
  if [ $ci = 1 ]; then work="$out/fuzz/ci-corpus/$t"; rm -rf "$work"; fi
  tests/fuzz/seed_corpus.sh "$t" "$work" "$root/$out/apps/vta"
  if [ $merge = 1 ]; then
    mkdir -p "tests/fuzz/corpus/$t"
    "$bin" -merge=1 -rss_limit_mb=4096 -timeout=10 "tests/fuzz/corpus/$t" "$work" 2>&1 | grep -E "MERGE-OUTER: [0-9]+ new files" || true
    return 0
  fi
  dict=()
  [ -f "tests/fuzz/$t.dict" ] && dict=(-dict="$root/tests/fuzz/$t.dict")
  case $t in program | systemc) dict+=(-max_len=8192) ;; esac
  budget=(-max_total_time="$secs")
  [ $ci = 1 ] && budget=(-runs="${ci_runs[$t]}" -seed=1)
  mkdir -p "$out/fuzz/findings/$t"
  # Findings of this run only: files an earlier run left there (reviewed or
  # not) are older than the stamp.
  stamp="$out/fuzz/findings/$t/.started"
  touch "$stamp"
  log="$root/$out/fuzz/fuzz_$t.log"
  logs=("$log")
  par=()
  if [ "$jobs" -gt 1 ]; then
    # libFuzzer's job mode: N processes on the one working corpus, each with
    # its own seed and its own log, fuzz-J.log in the folder it runs in.
    par=(-jobs="$jobs" -workers="$jobs")
    rm -f "$out/fuzz/findings/$t"/fuzz-*.log
    logs=()
    for ((j = 0; j < jobs; j++)); do logs+=("$root/$out/fuzz/findings/$t/fuzz-$j.log"); done
  fi
  echo "== fuzz_$t: ${budget[*]} ${par[*]}"
  began=$SECONDS
  (cd "$out/fuzz/findings/$t" &&
    "$bin" "${budget[@]}" "${par[@]}" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 ${FUZZ_FLAGS:-} \
      "${dict[@]}" "$root/$work" 2>&1 | tee "$log" |
      grep -aE "^#[0-9]+.*(INITED|DONE)|stat::number_of_executed_units|ERROR|SUMMARY" || true)
  found=$(find "$out/fuzz/findings/$t" -maxdepth 1 -newer "$stamp" -regextype egrep -regex '.*/(crash|timeout|leak|oom)-[^/]*' | wc -l)
  if [ $ci = 0 ] && [ $merge = 0 ]; then
    # The campaign ledger (tests/fuzz/README.md "Runs"): one row per
    # open-ended process. The seconds it ran: fewer than asked when it was
    # interrupted (SIGINT to the fuzzer ends it with its statistics) or
    # stopped on a finding.
    ran=$((SECONDS - began))
    [ "$ran" -gt "$secs" ] && ran=$secs
    corpus=$(ls "$work" | wc -l)
    for log in "${logs[@]}"; do
      execs=$(grep -a -m1 -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo 0)
      edges=$(grep -a -oE 'cov: [0-9]+' "$log" | tail -1 | grep -oE '[0-9]+$' || echo 0)
      # This process's findings: libFuzzer names every file it writes.
      mine=$(grep -ac 'Test unit written to' "$log" || true)
      printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$commit" \
        "$t" "$ran" "$execs" "$edges" "$corpus" "$mine" >> tests/fuzz/campaign.tsv
    done
  fi
  if [ "$found" -gt 0 ]; then
    # The report and stack of the finding, so that a CI log alone says what broke.
    cat "${logs[@]}" | grep -a -m1 -B2 -A60 -E "ERROR: |runtime error:|terminate called|==[0-9]+==" | cut -c1-300 || true
    echo "fuzz_$t: findings in $out/fuzz/findings/$t (reproduce: $bin FILE)"
    return 1
  fi
}
if [ $ci = 1 ] && [ "$(nproc)" -gt 1 ] && [ ${#targets[@]} -gt 1 ]; then
  # CI's fixed runs are single processes: one per core at a time, each
  # target's output kept whole and printed in the targets' order.
  declare -A pid
  for t in "${targets[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
    fuzz_one "$t" > "$out/fuzz/fuzz_$t.out" 2>&1 &
    pid[$t]=$!
  done
  failed=0
  for t in "${targets[@]}"; do
    rc=0
    wait "${pid[$t]}" || rc=$?
    cat "$out/fuzz/fuzz_$t.out"
    [ $rc = 0 ] || failed=1
  done
  exit $failed
fi
for t in "${targets[@]}"; do fuzz_one "$t" || exit 1; done
