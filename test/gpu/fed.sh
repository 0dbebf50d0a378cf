#!/usr/bin/env bash
# test/gpu/fed.sh -- the fed parallel plan (workers pin pages for the
# leader's session) timed on both devices over a 600k-row table, as the
# regression test runs it, with EXPLAIN ANALYZE; for a slow run's diagnosis.
set -uo pipefail
q() { psql -X -q -d postgres -c "$1"; }
q "CREATE EXTENSION IF NOT EXISTS gpuagg"
q "DROP TABLE IF EXISTS parfeed"
q "CREATE TABLE parfeed AS SELECT (i::int8 * 7919 % 150000)::int4 AS k, 's' || (i % 200000) AS s, i AS v, i / 7.0::float8 AS f FROM generate_series(1, 600000) i"
q "ANALYZE parfeed"
common="SET gpuagg.force_offload = on; SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2; SET gpuagg.tuple_cost = 10; SET gpuagg.page_batches = on;"
for dev in ${DEVICES:-cuda cpu}; do
	for extra in "" "SET gpuagg.batch_size = '64kB';" "SET gpuagg.batch_size = '64kB'; SET gpuagg.debug_fail_batch = 3;" "SET max_parallel_workers = 0;"; do
		echo "== $dev: $extra"
		psql -X -q -d postgres -c "$common SET gpuagg.device = $dev; $extra" -c '\timing on' \
			-c "EXPLAIN (ANALYZE, COSTS OFF) SELECT k, sum(v), count(*), max(f) FROM parfeed GROUP BY k" \
			-c "SELECT count(*) FROM (SELECT s, count(*), max(v), count(DISTINCT k) FROM parfeed GROUP BY s) r" 2>&1 |
			grep -E "Time|Workers|Batches|Execution|Gather|Device|Aggregation|WARNING|^ *[0-9]+$"
	done
done
q "DROP TABLE parfeed"
