#!/usr/bin/env bash
# test/gpu/bench.sh -- first numbers for the CUDA device (issue: the CUDA device).
#
# Same server, same data, one run: a 100M-row table
#   t(id1 int4 -- 100 values, id3 int4 -- 1M values, v1 int4 1..5, v3 float8 0..100)
# and four queries, each run natively with max_parallel_workers_per_gather 0
# and 8, and offloaded with gpuagg.device = cuda.  Prints a Markdown table
# (best of the runs, seconds) and, for the offloaded runs, EXPLAIN ANALYZE's
# split of gpuagg's time: host scan and deform into batches, transfer,
# kernels, result building.
#
# Environment: ROWS (default 100000000), PARALLEL_LOAD (default 8).
set -euo pipefail
ROWS=${ROWS:-100000000}
LOADERS=${PARALLEL_LOAD:-8}
DB=bench
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d $DB -c "CREATE EXTENSION gpuagg" \
	-c "CREATE UNLOGGED TABLE t (id1 int4, id3 int4, v1 int4, v3 float8)"

t0=$(date +%s.%N)
per=$(( (ROWS + LOADERS - 1) / LOADERS ))
for i in $(seq 0 $((LOADERS - 1))); do
	lo=$((i * per + 1)); hi=$(( (i + 1) * per < ROWS ? (i + 1) * per : ROWS ))
	psql -X -q -d $DB -c "INSERT INTO t
		SELECT (hashint8(g) & 2147483647) % 100 + 1,
		       (hashint8(g + 1000000000000) & 2147483647) % 1000000 + 1,
		       (hashint8(g + 2000000000000) & 2147483647) % 5 + 1,
		       round(((hashint8(g + 3000000000000) & 2147483647) % 100000001) / 1e6, 6)
		  FROM generate_series($lo::int8, $hi::int8) g" &
done
wait
psql -X -q -d $DB -c "VACUUM ANALYZE t"
t1=$(date +%s.%N)
echo "loaded $ROWS rows in $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s; heap $(psql -XAt -d $DB -c "SELECT pg_size_pretty(pg_table_size('t'))")"

declare -a NAMES=(q1 q2 q3 q4)
declare -A SQL=(
	[q1]="SELECT id1, sum(v1) FROM t GROUP BY id1"
	[q2]="SELECT id1, count(*), sum(v1), avg(v3) FROM t WHERE v3 > 10 GROUP BY id1"
	[q3]="SELECT id3, sum(v1), avg(v3) FROM t GROUP BY id3"
	[q4]="SELECT count(*) FROM t WHERE v3 > 10"
)

# best wall time (s) of $reps runs of CREATE TEMP TABLE ans AS <query>
timeit() {
	local settings=$1 query=$2 reps=$3 best=
	for r in $(seq 1 "$reps"); do
		ms=$(psql -X -q -d $DB <<SQL | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -1
$settings
DROP TABLE IF EXISTS ans;
\timing on
CREATE TEMP TABLE ans AS $query;
SQL
)
		if [ -z "$best" ] || awk "BEGIN { exit !($ms < $best) }"; then best=$ms; fi
	done
	awk "BEGIN { printf \"%.3f\", $best / 1000 }"
}

NATIVE0="SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 0;"
NATIVE8="SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8;"
GPU="SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET jit = off;"

# warm the cache and the backend code paths once
psql -X -q -d $DB -c "SELECT count(*) FROM t" >/dev/null

echo
echo "| query | native, 0 workers (s) | native, 8 workers (s) | gpuagg cuda (s) | vs 8 workers |"
echo "|---|---|---|---|---|"
for q in "${NAMES[@]}"; do
	n8=$(timeit "$NATIVE8" "${SQL[$q]}" 2)
	g=$(timeit "$GPU" "${SQL[$q]}" 3)
	n0=$(timeit "$NATIVE0" "${SQL[$q]}" 1)
	echo "| \`${SQL[$q]}\` | $n0 | $n8 | $g | $(awk "BEGIN { printf \"%.2f\", $n8 / $g }")x |"
done

echo
echo "Where gpuagg's time goes (EXPLAIN ANALYZE, gpuagg.device = cuda):"
for q in "${NAMES[@]}"; do
	echo
	echo "$q: ${SQL[$q]}"
	psql -X -q -d $DB <<SQL | grep -E "Execution Time|Scan Time|Transfer Time|Device Time|Result Time|Batches|Rows In|Groups|Bytes To Device|Device:|Fallback"
$GPU
EXPLAIN (ANALYZE) ${SQL[$q]};
SQL
done
