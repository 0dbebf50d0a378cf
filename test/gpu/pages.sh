#!/usr/bin/env bash
# test/gpu/pages.sh -- page-form batches on the GPU (issue 7's first GPU
# step): with gpuagg.page_batches on server-wide the GPU service maps
# shared buffers into the GPU's address space and kernels deform heap
# tuples where they lie (gpuagg_deform_pages, cuda/gpuagg_page.h).  Against the
# running server (gpuagg preloaded):
#   1. the service maps shared buffers (its LOG line), and an offloaded query
#      on cuda shows "Page Batches" in EXPLAIN ANALYZE;
#   2. pg_regress files of every type, NULL and heap shape with
#      gpuagg.device = cuda and page batches (PGOPTIONS), the randomized
#      differential test included;
#   3. a 100M-row GROUP BY with page batches and with column batches:
#      answers equal to native, EXPLAIN ANALYZE time split of each;
#   4. scans of a table (ROWS / 10) while writers update, move, insert and
#      roll back, and VACUUM it: answers equal to the table's unchanging one.
# The limit and setting it changes are reset on exit.  Prints PASS/FAIL.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROWS=${ROWS:-100000000}
PARTS=${PARTS:-1234}		# which of the parts below to run
DEVICE=${DEVICE:-cuda}		# cpu: the same checks on the CPU device, without a GPU
PG_CONFIG=${PG_CONFIG:-pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
PG_REGRESS=$(dirname "$("$PG_CONFIG" --pgxs)")/../test/regress/pg_regress
fails=0
part() { [[ $PARTS == *$1* ]]; }
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
q() { psql -X -q -At -d postgres -c "$1"; }
# the settings of an offloaded run: offload PAGE_BATCHES PARALLEL
offload() {
	echo "SET gpuagg.device = $DEVICE; SET gpuagg.force_offload = on; SET gpuagg.page_batches = $1;" \
		"SET gpuagg.parallel = $2; SET max_parallel_workers_per_gather = 8;"
}
cleanup() { q "ALTER SYSTEM RESET gpuagg.page_batches" >/dev/null 2>&1; q "SELECT pg_reload_conf()" >/dev/null 2>&1; }
trap cleanup EXIT

q "CREATE EXTENSION IF NOT EXISTS gpuagg"
q "ALTER SYSTEM SET gpuagg.page_batches = on"
q "SELECT pg_reload_conf()" >/dev/null
sleep 3
q "DROP TABLE IF EXISTS pg_small"
q "CREATE TABLE pg_small AS SELECT i % 100 AS k, i AS v, CASE WHEN i % 7 = 0 THEN NULL ELSE i / 3.0::float8 END AS f FROM generate_series(1, 1000000) i"
q "VACUUM ANALYZE pg_small"
if part 1; then
plan=$(psql -X -q -At -d postgres -c "SET gpuagg.device = $DEVICE; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
	EXPLAIN (ANALYZE, COSTS OFF) SELECT k, count(*), sum(v), avg(f) FROM pg_small GROUP BY k" 2>&1)
echo "$plan"
check $(echo "$plan" | grep -q "Device: $DEVICE" && echo "$plan" | grep -q "Page Batches" && echo 0 || echo 1) \
	"an offloaded query on $DEVICE takes page-form batches"
fi

if part 2; then
echo "==== pg_regress with gpuagg.device = $DEVICE and page batches"
work=$(mktemp -d /tmp/gpuagg-pages.XXXXXX)
cp -r sql expected "$work/"
sed -i "s/Device: cpu\$/Device: $DEVICE/" "$work"/expected/*.out
chmod -R a+rwX "$work"
PGOPTIONS="-c gpuagg.page_batches=on" GPUAGG_TEST_DEVICE=$DEVICE "$PG_REGRESS" --inputdir="$work" \
	--outputdir="$work" --bindir="$BINDIR" --dbname=gpuagg_pages --encoding=UTF8 \
	setup types nulls filters having errors params rescan heap differential
status=$?
[ $status != 0 ] && [ -f "$work/regression.diffs" ] && head -150 "$work/regression.diffs"
check $status "pg_regress with page batches on $DEVICE"
fi

if part 3; then
echo "==== $ROWS rows"
q "DROP TABLE IF EXISTS pg_big"
q "CREATE UNLOGGED TABLE pg_big (id1 int4, id3 int4, v1 int4, v3 float8)"
seq 0 15 | xargs -P 16 -I{} psql -X -q -d postgres -c "INSERT INTO pg_big SELECT (g % 100)::int4, ((g * 7919) % 1000000)::int4, (g % 5 + 1)::int4, (g % 10000) / 100.0 FROM generate_series({}::int8 * $ROWS / 16 + 1, ({}::int8 + 1) * $ROWS / 16) g"
q "VACUUM ANALYZE pg_big"
# Each query with the text of its answer rows: avg(float8) is compared to 9
# significant digits (the order of float additions differs between the
# devices and native, so the last bits may).
for pair in "SELECT id1, sum(v1) FROM pg_big GROUP BY id1|r::text" \
	"SELECT id1, count(*), sum(v1), avg(v3) AS a FROM pg_big WHERE v3 > 10 GROUP BY id1|concat_ws(',', id1, count, sum, to_char(a, '9.99999999EEEE'))" \
	"SELECT id3, sum(v1), avg(v3) AS a FROM pg_big GROUP BY id3|concat_ws(',', id3, sum, to_char(a, '9.99999999EEEE'))"; do
	query=${pair%|*}
	row=${pair##*|}
	md5="SELECT md5(string_agg($row, ';' ORDER BY $row)) FROM ($query) r"
	native=$(q "SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8; $md5")
	for pb in on off; do
		for par in off on; do
			t0=$(date +%s%N)
			got=$(q "$(offload $pb $par) $md5")
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			echo "page_batches=$pb parallel=$par: $ms ms  [$query]"
			check $([ "$got" = "$native" ] && echo 0 || echo 1) "same as native (page_batches=$pb parallel=$par)"
		done
	done
	for par in off on; do
		echo "EXPLAIN ANALYZE, page batches, parallel $par:"
		psql -X -q -d postgres -c "$(offload on $par) EXPLAIN (ANALYZE, COSTS OFF) $query" | grep -E "Workers|Batches|Pages|Time|Bytes"
	done
	t0=$(date +%s%N)
	q "SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8; $md5" >/dev/null
	echo "native, 8 workers: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
q "DROP TABLE pg_big"
fi

if part 4; then
echo "==== concurrent writers during the scans"
# Writers that never change the answer at any snapshot: committed updates
# that rewrite rows with their own values (new tuple versions, old ones
# deleted), deletes re-inserting what they deleted in one statement,
# inserts rolled back (tuples on the pages that nobody may see), and VACUUM
# (pruning, all-visible marks) -- on the pages the scans have pinned.
CROWS=$(( ROWS / 10 ))
q "DROP TABLE IF EXISTS pg_conc"
q "CREATE TABLE pg_conc (id1 int4, id3 int4, v1 int4, v3 float8) WITH (autovacuum_enabled = off)"
q "INSERT INTO pg_conc SELECT (g % 100)::int4, (g % 100000)::int4, (g % 5 + 1)::int4, (g % 1000) / 8.0 FROM generate_series(1::int8, $CROWS) g"
q "VACUUM ANALYZE pg_conc"
cq="SELECT md5(string_agg(concat_ws(',', id1, c, s, to_char(a, '9.99999999EEEE')), ';' ORDER BY id1)) FROM (SELECT id1, count(*) AS c, sum(v1) AS s, avg(v3) AS a FROM pg_conc GROUP BY id1) r"
cnative=$(q "SET gpuagg.enabled = off; $cq")
stop=$(mktemp /tmp/gpuagg-pages-stop.XXXXXX)
writer() {
	local i=0
	while [ -f "$stop" ]; do
		i=$(( i + 1 ))
		case $1 in
		update) q "UPDATE pg_conc SET v1 = v1, v3 = v3 WHERE id3 = $(( (i * 7919 + $2) % 100000 ))" ;;
		move) q "WITH d AS (DELETE FROM pg_conc WHERE id3 = $(( (i * 104729 + $2) % 100000 )) RETURNING *) INSERT INTO pg_conc SELECT * FROM d" ;;
		abort) q "BEGIN; INSERT INTO pg_conc SELECT 1, 1, 1000000, 1e9 FROM generate_series(1, 2000); ROLLBACK" ;;
		vacuum) q "VACUUM pg_conc"; sleep 0.2 ;;
		esac >/dev/null 2>&1
	done
	echo "writer $1 $2: $i statements"
}
writer update 1 & writer update 2 & writer move 3 & writer move 4 & writer abort 5 & writer vacuum 6 &
sleep 1
cbad=0
cruns=0
cpages=0
for par in off on off on off on; do
	for pb in on on off; do
		got=$(q "$(offload $pb $par) $cq")
		cruns=$(( cruns + 1 ))
		[ "$got" = "$cnative" ] || { cbad=$(( cbad + 1 )); echo "differs: page_batches=$pb parallel=$par: $got"; }
	done
	checked=$(psql -X -q -At -d postgres -c "$(offload on off)
		EXPLAIN (ANALYZE, COSTS OFF) SELECT id1, count(*) FROM pg_conc GROUP BY id1" | grep "Pages Checked by Host" | grep -o "[0-9]*")
	cpages=$(( cpages + ${checked:-0} ))
done
rm -f "$stop"
wait
echo "$cruns scans under writers, $cbad answers differ; pages checked by host in the EXPLAINs: $cpages"
check $([ "$cbad" = 0 ] && [ "$cruns" -gt 0 ] && echo 0 || echo 1) "answers under concurrent writers the same as before them"
check $([ "$cpages" -gt 0 ] && echo 0 || echo 1) "the writers left pages for the host's visibility checks"
q "DROP TABLE pg_conc"
fi
q "DROP TABLE pg_small"
echo "$fails failed"
[ "$fails" = 0 ]
