#!/usr/bin/env bash
# test/gpu/pages.sh -- page-form batches on the GPU (issue 7's first GPU
# step): with gpuagg.page_batches on server-wide the GPU service maps
# shared buffers into the GPU's address space and kernels deform heap
# tuples where they lie (gpuagg_deform, cuda/gpuagg_page.h).  Against the
# running server (gpuagg preloaded):
#   1. the service maps shared buffers (its LOG line), and an offloaded query
#      on cuda shows "Page Batches" in EXPLAIN ANALYZE;
#   2. pg_regress files of every type, NULL and heap shape with
#      gpuagg.device = cuda and page batches (PGOPTIONS), the randomized
#      differential test included;
#   3. a 100M-row GROUP BY with page batches and with column batches:
#      answers equal to native, EXPLAIN ANALYZE time split of each.
# The limit and setting it changes are reset on exit.  Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROWS=${ROWS:-100000000}
PG_CONFIG=${PG_CONFIG:-pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
PG_REGRESS=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
fails=0
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
q() { psql -X -q -At -d postgres -c "$1"; }
cleanup() { q "ALTER SYSTEM RESET gpuagg.page_batches" >/dev/null 2>&1; q "SELECT pg_reload_conf()" >/dev/null 2>&1; }
trap cleanup EXIT

q "CREATE EXTENSION IF NOT EXISTS gpuagg"
q "ALTER SYSTEM SET gpuagg.page_batches = on"
q "SELECT pg_reload_conf()" >/dev/null
sleep 3
q "DROP TABLE IF EXISTS pg_small"
q "CREATE TABLE pg_small AS SELECT i % 100 AS k, i AS v, CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3.0 END AS f FROM generate_series(1, 1000000) i"
q "VACUUM ANALYZE pg_small"
plan=$(psql -X -q -At -d postgres -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
	EXPLAIN (ANALYZE, COSTS OFF) SELECT k, count(*), sum(v), avg(f) FROM pg_small GROUP BY k" 2>&1)
echo "$plan"
check $(echo "$plan" | grep -q "Device: cuda" && echo "$plan" | grep -q "Page Batches" && echo 0 || echo 1) \
	"an offloaded query on cuda takes page-form batches"

echo "==== pg_regress with gpuagg.device = cuda and page batches"
work=$(mktemp -d /tmp/gpuagg-pages.XXXXXX)
cp -r sql expected "$work/"
sed -i 's/Device: cpu$/Device: cuda/' "$work"/expected/*.out
chmod -R a+rwX "$work"
PGOPTIONS="-c gpuagg.page_batches=on" GPUAGG_TEST_DEVICE=cuda "$PG_REGRESS" --inputdir="$work" \
	--outputdir="$work" --bindir="$BINDIR" --dbname=gpuagg_pages --encoding=UTF8 \
	setup types nulls filters having errors params rescan heap differential
status=$?
[ $status != 0 ] && [ -f "$work/regression.diffs" ] && head -150 "$work/regression.diffs"
check $status "pg_regress with page batches on cuda"

echo "==== $ROWS rows"
q "DROP TABLE IF EXISTS pg_big"
q "CREATE UNLOGGED TABLE pg_big (id1 int4, id3 int4, v1 int4, v3 float8)"
seq 0 15 | xargs -P 16 -I{} psql -X -q -d postgres -c "INSERT INTO pg_big SELECT (g % 100)::int4, ((g * 7919) % 1000000)::int4, (g % 5 + 1)::int4, (g % 10000) / 100.0 FROM generate_series({}::int8 * $ROWS / 16 + 1, ({}::int8 + 1) * $ROWS / 16) g"
q "VACUUM ANALYZE pg_big"
for query in "SELECT id1, sum(v1) FROM pg_big GROUP BY id1" \
	"SELECT id1, count(*), sum(v1), avg(v3) FROM pg_big WHERE v3 > 10 GROUP BY id1" \
	"SELECT id3, sum(v1), avg(v3) FROM pg_big GROUP BY id3"; do
	md5="SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($query) r"
	native=$(q "SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8; $md5")
	for pb in on off; do
		for par in off on; do
			opts="SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.page_batches = $pb; SET gpuagg.parallel = $par; SET max_parallel_workers_per_gather = 8;"
			t0=$(date +%s%N)
			got=$(q "$opts $md5")
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			echo "page_batches=$pb parallel=$par: $ms ms  [$query]"
			check $([ "$got" = "$native" ] && echo 0 || echo 1) "same as native (page_batches=$pb parallel=$par)"
		done
	done
	psql -X -q -d postgres -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
		EXPLAIN (ANALYZE, COSTS OFF) $query" | grep -E "Batches|Time|Bytes"
	t0=$(date +%s%N)
	q "SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8; $md5" >/dev/null
	echo "native, 8 workers: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
q "DROP TABLE pg_big"
q "DROP TABLE pg_small"
echo "$fails failed"
[ "$fails" = 0 ]
