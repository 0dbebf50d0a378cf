#!/usr/bin/env bash
# test/gpu/next.sh -- what the next GPU session has to prove, one device call
# a part (each under 10 minutes on the H200 host; ../shared/device/README.md):
#   a. test/gpu/run.sh with gpuagg.page_batches on server-wide (the whole
#      suite through the GPU service on the page path where a program can
#      take it; the sanitizers over column and page batches), then
#      test/gpu/pages.sh parts 1, 3, 4 (the page path at 1e8 rows, under
#      concurrent writers);
#   b. the five PG-Strom queries (bench suite ints) at 1e8 rows with page
#      batches, against native with 8 workers; then GpuAgg again with
#      gpuagg.parallel off (the planner's parallel plan of 1M groups gathers
#      8M partial groups);
#   e. issue 6's proof on this card: test/gpu/service.sh at 1e8 rows, 32
#      sessions;
#   c. db-benchmark q7 and q10 at 1e8 rows (q10 with room for its groups);
#   d. ClickBench Q9, Q6, Q5 at 1e8 rows, gpuagg first;
#   f. the suite with page batches on, the ints suite at 1e8 (3 runs each; i4,
#      47x with one run, left out),
#      db-benchmark q10 at 1e7 rows (no warm-up);
#   g. the suite with page batches on, then q1i q2i q3i q7i (x_int) at 1e8;
#   j. the suite with page batches on, then q1 q2 q3 q7 q3i q7i at 1e8 (the
#      fed plan for the many-group ones; QUERIES picks others);
#   k. test/gpu/fed.sh (the fed plan timed on both devices), then ClickBench
#      Q5 Q6 Q9 Q13 Q17 Q31 at 1e8 in page form (QUERIES picks others);
#   l. the suite, then fed against partial plans where groups are few:
#      q1 q2 at 1e8 (against native) and again with gpuagg.fed_groups = 0,
#      the five PG-Strom queries both ways (GpuAgg only);
#   m. the suite, q1 q2 q3 q7 and the five PG-Strom queries against native,
#      the few-group ones fed too;
#   o. ClickBench in page form: Q5 Q6 Q9 GpuAgg only, Q2 Q8 Q43 Q13 against
#      native, Q13 fed (a part n before it, which ran ClickBench against
#      native without page batches in the server's configuration, so in
#      column form, is gone);
#   p. pg_test_timing (what a clock reading costs on the host), then the
#      suite with page batches on;
#   q. p, then db-benchmark q1 q2 q4 q5 at 1e8 in page form against native;
#   r. ClickBench Q13 Q16 Q31 (top-N over many groups) against native
#      (QUERIES picks others, VRAM_BUDGET sets gpuagg.vram_budget), in page
#      form;
#   s. the suite, then the five PG-Strom queries at 1e8 against native;
#   t. db-benchmark q1 q2 q4 at 1e8 in page form against native;
#   u. the suite's setup, having, parallel and differential (no sanitizers);
#   v. the suite, then db-benchmark q1 q2 q4 and the five PG-Strom queries
#      at 1e8 in page form against native;
#   w. the suite without sanitizers, then i1 i2 at 1e8 against native;
#   x. the suite, then r with Q13 Q16 Q31 Q33 and gpuagg.vram_budget 96GB
#      (Q33 needs 24.6 GB);
#   y. the suite without sanitizers, then TPC-H Q1 over int8 cents at 1e8
#      lines (SF 16.7) against native;
#   z. the rows of the whole bench table last measured before HEAD's page
#      path: ClickBench Q2 Q3 Q8 Q17 at 1e8, db-benchmark q10 q10i at 1e7
#      (no warm-up), q1i q2i q3 q5 at 1e8, all against native;
#   z2. after z on the same warm machine (x and x_int still loaded, else
#      loaded again): q7 q3i q7i at 1e8 against native;
#   z3. where q10's time goes (a group a row: its rows, not its aggregation,
#      cost): at 1e7, GpuAgg's q10 counted, written by CREATE TABLE AS,
#      serial and parallel, against the same rows copied table to table;
#   z4. ClickBench Q5 Q6 Q9 (count(DISTINCT)) at 1e8 against native in one
#      call (their last same-call ratios are 9eb24f4's lower bounds);
#   z5. db-benchmark q10i at 1e8 against native, no warm-up (native takes
#      ~200 s).
# Done on 2026-12-03 (test/gpu/results, bench/results/2026-12-03-h200): a, e,
# b (before and after 852a7e1), c (q10's native run cut by the time limit),
# f at bc09ccd, g at 1a7cafe, j at 2299ee3, k at bffe753 (its fed.sh ran
# natively: no extension then; ClickBench cut by the time limit after Q17).
# Later that day: l at d6091aa, m at a7ee6bd, o at 9926598; then q at
# 82d7f83, s, r, t and r with QUERIES="Q17|Q33" at ed46ecf, u at 837cb17.
# Sixth session: s and t at e6d4d7d, v and r with QUERIES=Q33
# VRAM_BUDGET=96GB (timed out: every tied group returned) on a tree with
# the warps' copies, v at e33833d, w at 2aafab6.
# Seventh session: v at 38868fe, r with QUERIES=Q33 VRAM_BUDGET=96GB
# TIMEOUT=300 (Q33 7.0 s, native over 30 s), x at 7f49315 (the device
# chooses a top-N's groups: Q33 447.6 ms), y at 30e7f6d.
# Eighth session: x at 682b420 (the suite, Q13 Q16 Q31 Q33), z and z2 at
# f4a0f10, q10 at 1e8 by hand (bench/results/2026-12-03-h200, "Eighth
# session"), z3 at 1e7 (its GpuAgg rows ran native: no CREATE EXTENSION
# then, mended since).
# Next: z3 again (GpuAgg's q10 rows against the sink's cost), z4, z5;
# g's first half on a host with two GPUs
# (kind nvidia-h200-x2, when lent: gpuagg.devices() should list two rows
# and a parallel query's processes spread over them).
# Usage: next.sh a|b|c|d|e|f|g|j|k|l|m|o|p|q|r|s|t|u|v|w|x|y|z|z2|z3|z4|z5.  Everything it writes goes under $OUT.
set -uo pipefail
OUT=${OUT:-/tmp/next-out}
mkdir -p "$OUT"
s=$(date +%s)
step() { echo "== $1 ($(( $(date +%s) - s )) s)"; }
q() { psql -X -q -At -d postgres -c "$1"; }
pages_on() { q "ALTER SYSTEM SET gpuagg.page_batches = on" && q "SELECT pg_reload_conf()" >/dev/null && sleep 3; }
pages_off() { q "ALTER SYSTEM RESET gpuagg.page_batches" && q "SELECT pg_reload_conf()" >/dev/null && sleep 3; }
# the whole suite with page batches on server-wide, within $1 seconds
# (run.sh's TESTS and SANITIZE, when set, pick a part)
suite() {
	pages_on
	step "suite, page batches on${TESTS:+: $TESTS}"
	timeout "$1" bash test/gpu/run.sh >"$OUT/gpu.log" 2>&1
	grep -E "^test |PASS|FAIL|passed|failed" "$OUT/gpu.log"
	pages_off
}
# load SUITE LIMIT [N]: bench/gen/load.sh SUITE at N rows (1e8) within
# LIMIT seconds
load() {
	step "$1 load"
	N=${3:-1e8} JOBS=16 timeout "$2" bash bench/gen/load.sh "$1" >"$OUT/load-$1.log" 2>&1
}
# bench_run NAME LIMIT ARGS...: bench/run on this server with ARGS, within
# LIMIT seconds, into $OUT/NAME; its lines of timings printed
bench_run() {
	local name=$1 limit=$2
	shift 2
	timeout "$limit" bench/run --db postgres "$@" --out "$OUT/$name" >"$OUT/bench-$name.log" 2>&1
	grep "bench/run: [a-z]*\." "$OUT/bench-$name.log"
}
# db-benchmark q1 q2 fed (gpuagg.fed_groups = 0), GpuAgg only, best of 3,
# within $1 seconds, $2 a query, into $OUT/groupby-fed
fed_q1_q2() {
	step "q1 q2 fed"
	bench_run groupby-fed "$1" --suite groupby --engines gpuagg_cuda --reps 3 --timeout "$2" \
		--queries 'q1|q2' --set gpuagg.page_batches=on --set gpuagg.fed_groups=0 --analyze
}
# the five PG-Strom queries (a regex $2 picks some) in page form against
# native with 8 workers, within $1 seconds, into $OUT/ints (after pages_on:
# the GPU service maps shared buffers then)
ints_pages() {
	step "ints, page batches"
	bench_run ints "$1" --suite ints --engines native_8,gpuagg_cuda --reps 1 --timeout 20 \
		${2:+--queries "$2"} --set gpuagg.page_batches=on --analyze
}
# db-benchmark's tables at 1e8, then queries $1 in page form against native
# with 8 workers, into $OUT/$2
groupby_pages() {
	load groupby 100
	step "groupby $1, page batches"
	timeout 250 bench/run --db postgres --suite groupby --engines native_8,gpuagg_cuda --reps 1 \
		--timeout 60 --queries "$1" --set gpuagg.page_batches=on --analyze \
		--out "$OUT/$2" >"$OUT/bench-$2.log" 2>&1
	grep "bench/run: groupby" "$OUT/bench-$2.log"
}
# ClickBench's top-N queries (ORDER BY count(*) DESC LIMIT 10: GPU Top-N)
# at 1e8 in page form against native (QUERIES picks others, VRAM_BUDGET
# sets gpuagg.vram_budget, STMT_TIMEOUT a statement's limit (30 s),
# TIMEOUT bounds the whole run)
clickbench_topn() {
	pages_on
	load hits 100
	step "clickbench, page batches"
	bench_run clickbench "${TIMEOUT:-250}" --suite clickbench --engines native_8,gpuagg_cuda --reps 1 \
		--timeout "${STMT_TIMEOUT:-30}" --queries "${QUERIES:-Q13|Q16|Q31}" --set gpuagg.page_batches=on \
		--set gpuagg.vram_budget="${VRAM_BUDGET:-8GB}" --analyze
	pages_off
}
case "${1:-}" in
z)
	QUERIES='Q2|Q3|Q8|Q17' VRAM_BUDGET=0 TIMEOUT=150 clickbench_topn
	q "DROP TABLE hits"
	pages_on
	load groupby 60 1e7
	step "groupby q10 q10i at 1e7, page batches"
	bench_run groupby-1e7 150 --suite groupby --engines native_8,gpuagg_cuda --reps 1 --no-warmup \
		--timeout 60 --queries 'q10|q10i' --set gpuagg.page_batches=on --analyze
	q "DROP TABLE x, x_int"
	groupby_pages 'q1i|q2i|q3|q5' groupby
	pages_off
	;;
z3)
	pages_on
	load groupby 60 1e7
	# bench/run creates the extension; here psql alone runs (without it
	# the planner leaves every plan native), and the service maps shared
	# buffers for ~13 s after pages_on
	q "CREATE EXTENSION IF NOT EXISTS gpuagg"
	sleep 15
	step "q10 at 1e7: rows counted, written, copied"
	q10="SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x GROUP BY id1, id2, id3, id4, id5, id6"
	psql -X -d postgres -c "SET statement_timeout = '60s'" -c "SET gpuagg.device = cuda" \
		-c "SET gpuagg.force_offload = on" -c "SET max_parallel_workers_per_gather = 8" \
		-c '\timing on' -c "SELECT count(*) FROM ($q10) s" -c "CREATE TEMP TABLE a1 AS $q10" \
		-c "CREATE TEMP TABLE a2 AS SELECT * FROM a1" -c "SELECT count(*) FROM a1" \
		-c "EXPLAIN (ANALYZE, TIMING OFF) $q10" -c "EXPLAIN (ANALYZE) $q10" \
		-c "SET max_parallel_workers_per_gather = 0" -c "SELECT count(*) FROM ($q10) s" \
		-c "CREATE TEMP TABLE a3 AS $q10" -c "EXPLAIN (ANALYZE) $q10" \
		-c "SET gpuagg.enabled = off" -c "SET max_parallel_workers_per_gather = 8" \
		-c "SELECT count(*) FROM ($q10) s" 2>&1 | tee "$OUT/q10.txt" | grep -E 'Time|^ *[0-9]+$|Gather|GpuAgg'
	pages_off
	;;
z4)
	QUERIES='Q5|Q6|Q9' VRAM_BUDGET=0 STMT_TIMEOUT=60 TIMEOUT=330 clickbench_topn
	;;
z5)
	pages_on
	load groupby 150
	step "groupby q10i at 1e8, page batches"
	bench_run groupby-q10i 420 --suite groupby --engines gpuagg_cuda,native_8 --reps 1 --no-warmup \
		--timeout 300 --queries q10i --set gpuagg.page_batches=on
	pages_off
	;;
z2)
	pages_on
	[ -n "$(q "SELECT to_regclass('x_int')")" ] || load groupby 100
	step "groupby q7 q3i q7i, page batches"
	bench_run groupby2 250 --suite groupby --engines native_8,gpuagg_cuda --reps 1 --timeout 60 \
		--queries 'q7|q3i|q7i' --set gpuagg.page_batches=on --analyze
	pages_off
	;;
a)
	suite 220
	step "pages"
	PARTS=134 ROWS=100000000 timeout 330 bash test/gpu/pages.sh >"$OUT/pages.log" 2>&1
	grep -E "PASS|FAIL|failed|ms|Time|scans" "$OUT/pages.log"
	;;
b)
	load ints 100
	pages_on
	step "ints"
	timeout 200 bench/run --db postgres --suite ints --engines native_8,gpuagg_cuda --reps 1 \
		--timeout 40 --set gpuagg.page_batches=on --analyze --out "$OUT/ints" >"$OUT/bench-ints.log" 2>&1
	grep "bench/run: ints" "$OUT/bench-ints.log"
	step "ints, serial GpuAgg"
	timeout 100 bench/run --db postgres --suite ints --engines gpuagg_cuda --reps 3 \
		--timeout 40 --set gpuagg.page_batches=on --set gpuagg.parallel=off --analyze \
		--out "$OUT/ints-serial" >"$OUT/bench-ints-serial.log" 2>&1
	grep "bench/run: ints" "$OUT/bench-ints-serial.log"
	pages_off
	;;
e)
	step "service"
	ROWS=100000000 SESSIONS=32 timeout 280 bash test/gpu/service.sh >"$OUT/service.log" 2>&1
	grep -E "PASS|FAIL|failed|median|sessions" "$OUT/service.log"
	;;
c)
	load groupby 110
	step "groupby q7"
	timeout 100 bench/run --db postgres --suite groupby --engines gpuagg_cuda,native_8 --reps 1 \
		--timeout 60 --queries 'q7' --analyze --out "$OUT/groupby" >"$OUT/bench-groupby.log" 2>&1
	grep "bench/run: groupby" "$OUT/bench-groupby.log"
	step "groupby q10, no warm-up"
	timeout 330 bench/run --db postgres --suite groupby --engines gpuagg_cuda,native_8 --reps 1 \
		--no-warmup --timeout 160 --queries 'q10' --set gpuagg.vram_budget=96GB --out "$OUT/groupby-q10" \
		>"$OUT/bench-groupby-q10.log" 2>&1
	grep "bench/run: groupby" "$OUT/bench-groupby-q10.log"
	;;
d)
	load hits 120
	step "clickbench"
	timeout 400 bench/run --db postgres --suite clickbench --engines gpuagg_cuda,native_8 --reps 1 \
		--timeout 90 --queries 'Q9|Q6|Q5' --analyze --out "$OUT/clickbench" >"$OUT/bench-clickbench.log" 2>&1
	grep "bench/run: clickbench" "$OUT/bench-clickbench.log"
	;;
f)
	# the engine with a context per GPU (on this host's one), smaller host
	# buffers for page form, Open and Finish Time in EXPLAIN ANALYZE
	pages_on
	step "suite, page batches on"
	timeout 240 bash test/gpu/run.sh >"$OUT/gpu.log" 2>&1
	grep -E "^test |PASS|FAIL|passed|failed" "$OUT/gpu.log"
	q "SELECT device, name, memory_limit_mb, queries_running FROM gpuagg.devices()"
	pages_off
	load ints 100
	step "ints"
	timeout 150 bench/run --db postgres --suite ints --engines native_8,gpuagg_cuda --reps 3 --queries 'i1|i2|i3|i5' \
		--timeout 40 --set gpuagg.page_batches=on --analyze --out "$OUT/ints" >"$OUT/bench-ints.log" 2>&1
	grep "bench/run: ints" "$OUT/bench-ints.log"
	q "DROP TABLE t_ints"
	load groupby 60 1e7
	step "q10 at 1e7"
	timeout 150 bench/run --db postgres --suite groupby --engines gpuagg_cuda,native_8 --reps 1 \
		--no-warmup --timeout 60 --queries 'q10' --analyze --out "$OUT/groupby-q10" \
		>"$OUT/bench-groupby-q10.log" 2>&1
	grep "bench/run: groupby" "$OUT/bench-groupby-q10.log"
	;;
g)
	# the suite again (parallel fail-over now reads its blocks again), then
	# db-benchmark's int-keyed queries at 1e8 in page form
	suite 200
	groupby_pages 'q1i|q2i|q3i|q7i' groupby-int
	;;
j)
	# the fed parallel plan (workers pin pages for the leader's session):
	# the suite with page batches on, then db-benchmark's many-group and
	# text queries at 1e8 (x and x_int)
	suite 220
	groupby_pages "${QUERIES:-q1|q2|q3|q7|q3i|q7i}" groupby
	;;
k)
	# the fed plan's timing as the regression test runs it (its parallel
	# test took 118 s here, 13 s on a CI-like machine), then ClickBench's
	# string and many-group queries at 1e8
	step "fed"
	pages_on
	timeout 120 bash test/gpu/fed.sh >"$OUT/fed.log" 2>&1
	cat "$OUT/fed.log"
	pages_off
	load hits 130
	step "clickbench, page batches"
	timeout 210 bench/run --db postgres --suite clickbench --engines native_8,gpuagg_cuda --reps 1 \
		--timeout "${TIMEOUT:-30}" --queries "${QUERIES:-Q5|Q6|Q9|Q13|Q17|Q31}" --set gpuagg.page_batches=on --analyze \
		--out "$OUT/clickbench" >"$OUT/bench-clickbench.log" 2>&1
	grep "bench/run: clickbench" "$OUT/bench-clickbench.log"
	;;
l)
	# the suite, then the fed plan against the partial one where groups are
	# few (gpuagg.fed_groups = 0 feeds every page-form parallel scan): q1 q2
	# at 1e8, and the five PG-Strom queries (i4, count(DISTINCT), now fed)
	suite 220
	groupby_pages 'q1|q2' groupby
	fed_q1_q2 60 30
	q "DROP TABLE x, x_int"
	load ints 100
	for f in 100000 0; do
		step "ints, fed_groups $f"
		bench_run ints-fed$f 60 --suite ints --engines gpuagg_cuda --reps 3 --timeout 30 \
			--set gpuagg.page_batches=on --set gpuagg.fed_groups=$f --analyze
	done
	;;
m)
	# the engine's counters read without a wait a batch (b0eeff1): the
	# suite, then q1 q2 q3 q7 and the five PG-Strom queries against native,
	# and the few-group ones fed as well
	suite 200
	groupby_pages 'q1|q2|q3|q7' groupby
	fed_q1_q2 40 20
	q "DROP TABLE x, x_int"
	load ints 60
	step "ints"
	bench_run ints 90 --suite ints --engines native_8,gpuagg_cuda --reps 1 --timeout 30 \
		--set gpuagg.page_batches=on --analyze
	step "ints fed"
	bench_run ints-fed0 40 --suite ints --engines gpuagg_cuda --reps 3 --timeout 20 \
		--queries 'i1|i2|i5' --set gpuagg.page_batches=on --set gpuagg.fed_groups=0 --analyze
	;;
o)
	# ClickBench in page form: Q5 Q6 Q9 (native takes 34 s or more on them;
	# QUERIES_GPU) GpuAgg only, Q2 Q8 Q43 Q13 (QUERIES) against native, then
	# Q13 fed (its planner estimate of the groups is 1000 times too low,
	# which picks the partial plan)
	pages_on
	load hits 100
	step "clickbench GpuAgg only, page batches"
	bench_run clickbench-gpu 60 --suite clickbench --engines gpuagg_cuda --reps 1 --timeout 30 \
		--queries "${QUERIES_GPU:-Q5|Q6|Q9}" --set gpuagg.page_batches=on --analyze
	step "clickbench, page batches"
	bench_run clickbench "${TIMEOUT:-110}" --suite clickbench --engines native_8,gpuagg_cuda --reps 1 \
		--timeout 40 --queries "${QUERIES:-Q2|Q8|Q43|Q13}" --set gpuagg.page_batches=on --analyze
	step "Q13 fed"
	bench_run clickbench-fed 40 --suite clickbench --engines gpuagg_cuda --reps 3 --timeout 20 \
		--queries 'Q13' --set gpuagg.page_batches=on --set gpuagg.fed_groups=0 --analyze
	pages_off
	;;
p | q)
	# what a clock reading costs on the host (the result loop read the
	# clock twice a group: ~200 ns a group there, 46 here), then the suite
	step "pg_test_timing"
	"$("${PG_CONFIG:-pg_config}" --bindir)/pg_test_timing" -d 3 | head -8
	suite 220
	[ "$1" = q ] && groupby_pages 'q1|q2|q4|q5' groupby
	;;
r)
	clickbench_topn
	;;
y)
	# TPC-H Q1 over lineitem_cents at 1e8 lines (SF 16.7) in page form
	# against native (q1 itself sums numeric: native only), after the
	# suite without sanitizers
	SANITIZE=0 suite 150
	pages_on
	step "tpch load"
	SF=16.7 JOBS=16 timeout 200 bash bench/gen/load.sh tpch >"$OUT/load-tpch.log" 2>&1
	step "tpch, page batches"
	bench_run tpch 200 --suite tpch --engines native_8,gpuagg_cuda --reps 1 --timeout 60 \
		--queries 'q1_cents|q1_cents_interval' --set gpuagg.page_batches=on --analyze
	pages_off
	;;
x)
	# the device's top-N select: the suite, then ClickBench's top-N
	# queries with Q33 (a group a row)
	suite 220
	QUERIES=${QUERIES:-Q13|Q16|Q31|Q33} VRAM_BUDGET=${VRAM_BUDGET:-96GB} clickbench_topn
	;;
u)
	TESTS="setup having parallel differential" SANITIZE=0 suite 150
	;;
t)
	pages_on
	groupby_pages 'q1|q2|q4' groupby
	pages_off
	;;
s)
	suite 220
	load ints 100
	pages_on
	ints_pages 200
	pages_off
	;;
v)
	# the kernel path of avg of floats over few groups: the suite, q1 q2
	# q4 and the five PG-Strom queries against native
	suite 220
	pages_on
	groupby_pages 'q1|q2|q4' groupby
	q "DROP TABLE x, x_int"
	load ints 100
	ints_pages 150
	pages_off
	;;
w)
	# v in less time: the suite without sanitizers, i1 i2 against native
	SANITIZE=0 suite 150
	load ints 60
	pages_on
	ints_pages 60 'i1|i2'
	pages_off
	;;
*)
	echo "usage: $0 a|b|c|d|e|f|g|j|k|l|m|o|p|q|r|s|t|u|v|w|x|y" >&2
	exit 2
	;;
esac
step "done"
for d in tpch groupby groupby-q10 groupby-int groupby-fed clickbench clickbench-gpu clickbench-fed ints ints-serial ints-fed100000 ints-fed0; do [ -d "$OUT/$d" ] && (cd "$OUT" && tar czf "$d.tgz" "$d" && rm -rf "$d"); done
# what comes back is a few files: the logs in one
(cd "$OUT" && ls *.log >/dev/null 2>&1 && tar czf logs.tgz *.log && rm -f load-*.log postgres.log)
exit 0
