#!/usr/bin/env bash
# test/gpu/cancel.sh -- 1,000 offloaded queries cancelled by statement_timeout
# in one backend leave no device memory behind: the free device memory after
# them equals the idle level after one completed query (context, module and
# staging buffers in place).  Prints "PASS"/"FAIL" and exits non-zero on FAIL.
set -uo pipefail
N=${N:-1000}
DB=cancel_test
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
psql -X -q -d $DB -c "CREATE EXTENSION gpuagg" \
	-c "CREATE TABLE c AS SELECT i % 100000 AS k, i AS v, i / 3.0 AS f FROM generate_series(1, 20000000) i" \
	-c "VACUUM ANALYZE c"
{
	echo "SET gpuagg.device = cuda; SET gpuagg.force_offload = on;"
	echo "SELECT count(*) FROM (SELECT k, sum(v), avg(f) FROM c GROUP BY k) s;"
	echo "SELECT memory_free_mb AS idle FROM gpuagg.devices() \\gset"
	echo "SET statement_timeout = '30ms';"
	for _ in $(seq 1 "$N"); do echo "SELECT k, sum(v), avg(f) FROM c GROUP BY k;"; done
	echo "RESET statement_timeout;"
	echo "SELECT memory_free_mb AS after FROM gpuagg.devices() \\gset"
	echo "SELECT :idle AS idle_free_mb, :after AS after_free_mb, :idle - :after AS leaked_mb, queries_cuda, device_fallbacks FROM gpuagg.backend_stats();"
} | psql -X -d $DB >/tmp/cancel.out 2>&1
cancelled=$(grep -c "canceling statement due to statement timeout" /tmp/cancel.out)
tail -4 /tmp/cancel.out
leaked=$(grep -A2 "leaked_mb" /tmp/cancel.out | tail -1 | awk -F'|' '{ gsub(/ /, "", $3); print $3 }')
echo "cancelled: $cancelled of $N; leaked: ${leaked:-?} MB"
if [ "$cancelled" -ge $((N * 9 / 10)) ] && [ "${leaked:-1}" -le 0 ]; then echo PASS; else echo FAIL; exit 1; fi
