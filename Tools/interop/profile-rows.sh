#!/bin/bash
# Instructions per run of every `cblite-bench query` row beside the real Couchbase Lite 2.8 core,
# counted by callgrind: deterministic, so a change can be judged on this VM whose speed drifts.
#   Tools/interop/profile-rows.sh CBLITE_BENCH BENCH_LITECORE [RUNS]
# CBLITE_BENCH: a release cblite-bench; valgrind cannot read a static binary's debug information,
# so a copy without it is profiled. BENCH_LITECORE: the harness built from bench-litecore.c.
# Prints each row's instructions for ours on each engine and for the real core, and ours / real.
set -euo pipefail
bench=$1 harness=$2 runs=${3:-20}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
strip --strip-debug -o "$work/bench" "$bench"
mkdir "$work/real"
cd "$(dirname "$0")/../.."
SWIFT_DETERMINISTIC_HASHING=1 QUERY_REAL_CORE_ONLY=1 CBL_REAL_CORE_BENCH="$harness" QUERY_PROFILE_ALL=$runs QUERY_PROFILE_REAL_COMMANDS="$work/real" \
  valgrind --tool=callgrind --callgrind-out-file="$work/ours.%p" --toggle-collect='*profiledRuns*' \
  --dump-after='*profileBoundary*' "$work/bench" query > "$work/ours.labels" 2> "$work/ours.log" || true
mkdir "$work/db"
valgrind --tool=callgrind --callgrind-out-file="$work/real.%p" --toggle-collect='c4query*' \
  --dump-after='c4db_deleteIndex' "$harness" "$work/db" travel < "$work/real/commands" > "$work/real.out" 2> "$work/real.log"
python3 - "$work" "$runs" <<'PY'
import glob, re, sys
work, runs = sys.argv[1], int(sys.argv[2])
def totals(prefix):
    parts = []
    for path in glob.glob(f"{work}/{prefix}.*"):
        if path.endswith((".labels", ".log", ".out")): continue
        m = re.search(r"\.(\d+)$", path)
        part = int(m.group(1)) if m and "-" not in path.rsplit("/", 1)[1] else 0
        m2 = re.search(r"\.(\d+)-(\d+)$", path)
        if m2: part = int(m2.group(2))
        total = 0
        for line in open(path, errors="replace"):
            if line.startswith("totals:") or line.startswith("summary:"):
                total = int(line.split()[1]); break
        parts.append((part, total))
    return [t for _, t in sorted(parts)]
labels = [l[len("profiled: "):].strip() for l in open(f"{work}/ours.labels") if l.startswith("profiled: ")]
ours = totals("ours")[:len(labels)]
real = [t for t in totals("real") if t > 0]
rows = {}
for label, total in zip(labels, ours):
    name, engine = label.rsplit(", ", 1)
    rows.setdefault(name, {})[engine] = total / runs
print(f"{'row':70} {'SQLite':>11} {'RocksDB':>11} {'real 2.8':>11}  ratios")
for (name, engines), r in zip(rows.items(), real):
    r /= runs
    s, k = engines.get("SQLite", 0), engines.get("RocksDB", 0)
    print(f"{name[:70]:70} {s:11,.0f} {k:11,.0f} {r:11,.0f}  {s/r:.2f} {k/r:.2f}")
PY
