#!/usr/bin/env bash
# test/gpu/next.sh -- what the next GPU session has to prove, one device call
# a part (each under 10 minutes on the H200 host; ../shared/device/README.md):
#   a. test/gpu/run.sh (the suite through the GPU service, the sanitizers),
#      test/gpu/fault.sh (a broken context, the service restarts) and
#      test/gpu/service.sh at 1e8 rows, 32 sessions (issue 6's proof: with
#      the VRAM estimate fixed, the sessions must now run on cuda);
#   b. ClickBench Q9 (the group lock fix), Q6, Q5 at 1e8 rows, gpuagg first;
#   c. db-benchmark q7 and q10 at 1e8 rows (q10 with room for its groups);
#   d. test/gpu/pages.sh: page-form batches deformed by the GPU (issue 7).
# Usage: next.sh a|b|c|d.  Everything it writes goes under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/next-out}
mkdir -p "$OUT"
s=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - s )) s)"; }
case "${1:-}" in
a)
	step "suite"
	timeout 150 bash test/gpu/run.sh >"$OUT/gpu.log" 2>&1
	grep -E "^test |PASS|FAIL|passed" "$OUT/gpu.log"
	step "fault"
	timeout 45 bash test/gpu/fault.sh >"$OUT/fault.log" 2>&1
	grep -E "PASS|FAIL|failed" "$OUT/fault.log"
	step "service"
	ROWS=100000000 SESSIONS=32 timeout 390 bash test/gpu/service.sh >"$OUT/service.log" 2>&1
	grep -E "PASS|FAIL|failed|median|sessions" "$OUT/service.log"
	;;
b)
	step "hits load"
	N=1e8 JOBS=16 timeout 120 bash bench/gen/load.sh hits >"$OUT/load-hits.log" 2>&1
	step "clickbench"
	timeout 400 bench/run --db postgres --suite clickbench --engines gpuagg_cuda,native_8 --reps 1 \
		--timeout 90 --queries 'Q9|Q6|Q5' --analyze --out "$OUT/clickbench" >"$OUT/bench-clickbench.log" 2>&1
	grep "bench/run: clickbench" "$OUT/bench-clickbench.log"
	;;
c)
	step "groupby load"
	N=1e8 K=100 JOBS=16 timeout 110 bash bench/gen/load.sh groupby >"$OUT/load-groupby.log" 2>&1
	step "groupby q7 q10"
	timeout 420 bench/run --db postgres --suite groupby --engines gpuagg_cuda,native_8 --reps 1 \
		--timeout 150 --queries 'q7|q10' --set gpuagg.vram_budget=96GB --analyze --out "$OUT/groupby" \
		>"$OUT/bench-groupby.log" 2>&1
	grep "bench/run: groupby" "$OUT/bench-groupby.log"
	;;
d)
	step "pages"
	ROWS=100000000 timeout 560 bash test/gpu/pages.sh >"$OUT/pages.log" 2>&1
	grep -E "PASS|FAIL|failed|ms|Time" "$OUT/pages.log"
	;;
*)
	echo "usage: $0 a|b|c|d" >&2
	exit 2
	;;
esac
step "done"
for d in groupby clickbench; do [ -d "$OUT/$d" ] && (cd "$OUT" && tar czf "$d.tgz" "$d" && rm -rf "$d"); done
exit 0
