#!/usr/bin/env bash
# Sums the fuzz campaign ledger (tests/fuzz/campaign.tsv, written by
# scripts/fuzz.sh SECONDS) per target: runs, CPU-bound seconds, executions,
# the latest edge count and corpus size, and findings, as a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
ledger=tests/fuzz/campaign.tsv
[ -f "$ledger" ] || { echo "no ledger yet: $ledger (run scripts/fuzz.sh SECONDS)"; exit 0; }
awk -F'\t' '
  /^#/ { next }
  { runs[$3]++; secs[$3] += $4; ex[$3] += $5; edges[$3] = $6; corp[$3] = $7; found[$3] += $8
    if (!($3 in first)) { first[$3] = $1; order[++n] = $3 } last[$3] = $1 }
  END {
    print "| target | runs | seconds | executions | edges (last) | corpus (last) | findings | from | to |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) { t = order[i]
      printf "| `fuzz_%s` | %d | %d | %d | %d | %d | %d | %s | %s |\n", t, runs[t], secs[t], ex[t], edges[t], corp[t], found[t], substr(first[t], 1, 10), substr(last[t], 1, 10) }
  }' "$ledger"
