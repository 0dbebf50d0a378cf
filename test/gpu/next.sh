#!/usr/bin/env bash
# test/gpu/next.sh -- what the next GPU session has to prove, in one call
# (about 9 minutes on the H200 host; see ../shared/device/README.md):
#   1. test/gpu/run.sh: the whole suite with gpuagg.device = cuda and the
#      sanitizers (after removing the planner's gate on min/max of strings
#      on CUDA, src/planner.c, so that sql/strings.sql covers it there);
#   2. test/gpu/admission.sh at 10M rows: the ledger and admission queue;
#   3. db-benchmark q7 and q10 at 1e8 rows (q10 with room for its 1e8
#      groups) and the ClickBench count(DISTINCT) queries at 1e8 rows.
# Everything it writes goes under $OUT.  "next.sh a" runs 1 and 2 and the
# groupby part of 3, "next.sh b" the ClickBench part (one device call each).
set -uo pipefail
OUT=${OUT:-/tmp/next-out}
mkdir -p "$OUT"
s=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - s )) s)"; }
if [ "${1:-all}" != b ]; then
step "suite"
timeout 170 bash test/gpu/run.sh >"$OUT/gpu.log" 2>&1
grep -E "^test |PASS|FAIL|passed" "$OUT/gpu.log"
step "admission"
ROWS=10000000 SESSIONS=32 timeout 120 bash test/gpu/admission.sh >"$OUT/admission.log" 2>&1
grep -E "PASS|FAIL|failed" "$OUT/admission.log"
step "first-query latency"
# a new connection's first offloaded query, against native (CUDA start-up)
psql -X -q -d postgres -c "DROP TABLE IF EXISTS fq" -c "CREATE TABLE fq AS SELECT g AS i FROM generate_series(1, 1000) g" -c "ANALYZE fq"
for i in 1 2 3 4 5; do
	for dev in native cuda; do
		set_dev="SET gpuagg.device = cuda; SET gpuagg.force_offload = on;"
		[ $dev = native ] && set_dev="SET gpuagg.enabled = off;"
		t0=$(date +%s%N)
		psql -X -q -d postgres -c "$set_dev EXPLAIN ANALYZE SELECT count(*), sum(i) FROM fq" | grep -E "Device:|Execution Time" | tr "\n" " "
		echo " $dev connection $i: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	done
done | tee "$OUT/first-query.log"
step "groupby load"
N=1e8 K=100 JOBS=16 timeout 110 bash bench/gen/load.sh groupby >"$OUT/load-groupby.log" 2>&1
step "groupby q7 q10"
timeout 150 bench/run --db postgres --suite groupby --engines native_8,gpuagg_cuda --reps 1 \
	--timeout 70 --queries 'q7|q10' --set gpuagg.vram_budget=96GB --analyze --out "$OUT/groupby" \
	>"$OUT/bench-groupby.log" 2>&1
grep "bench/run: groupby" "$OUT/bench-groupby.log"
fi
if [ "${1:-all}" != a ]; then
step "hits load"
N=1e8 JOBS=16 timeout 120 bash bench/gen/load.sh hits >"$OUT/load-hits.log" 2>&1
step "clickbench count(DISTINCT)"
timeout 150 bench/run --db postgres --suite clickbench --engines native_8,gpuagg_cuda --reps 1 \
	--timeout 60 --queries 'Q5|Q6|Q9' --analyze --out "$OUT/clickbench" >"$OUT/bench-clickbench.log" 2>&1
grep "bench/run: clickbench" "$OUT/bench-clickbench.log"
fi
step "done"
for d in groupby clickbench; do [ -d "$OUT/$d" ] && (cd "$OUT" && tar czf "$d.tgz" "$d" && rm -rf "$d"); done
