#!/usr/bin/env bash
# test/gpu/fault.sh -- a CUDA fault on the H200 (issue 6): a query whose
# kernel reads an illegal address (gpuagg.debug_inject_fault, superuser)
# breaks the CUDA context.  The query must still answer as native (on the
# CPU device, with a WARNING); the CUDA process ends and the service starts
# a new one (gpuagg.service(): context_resets + 1, a new cuda_pid, the
# service itself the same process, state ready), and the next query runs on
# the GPU again.  Against the running server.
set -uo pipefail
DB=${DB:-postgres}
fails=0
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
q() { psql -X -q -At -d "$DB" -c "$1"; }

q "CREATE EXTENSION IF NOT EXISTS gpuagg"
q "DROP TABLE IF EXISTS fault_t"
q "CREATE TABLE fault_t AS SELECT i % 1000 AS k, i AS v FROM generate_series(1, 1000000) i"
q "ANALYZE fault_t"
QUERY="SELECT k, count(*), sum(v) FROM fault_t GROUP BY k"
MD5="SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r"
native=$(q "SET gpuagg.enabled = off; $MD5")
before=$(q "SELECT cuda_pid || ' ' || context_resets || ' ' || starts || ' ' || pid FROM gpuagg.service()")
echo "service before: $before"
out=$(psql -X -q -At -d "$DB" -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
	SET gpuagg.debug_inject_fault = on; $MD5" 2>&1)
echo "$out"
check $(echo "$out" | grep -qx "$native" && echo 0 || echo 1) "the faulting query answers as native"
check $(echo "$out" | grep -q "WARNING:  gpuagg: the cuda device failed" && echo 0 || echo 1) "it fell back to the CPU device with a WARNING"
for _ in $(seq 1 150); do
	[ "$(q "SELECT state FROM gpuagg.service() WHERE cuda_pid <> ${before%% *}")" = ready ] && break
	sleep 0.1
done
after=$(q "SELECT cuda_pid || ' ' || context_resets || ' ' || starts || ' ' || pid FROM gpuagg.service()")
echo "service after: $after ($(q "SELECT state || ': ' || detail FROM gpuagg.service()"))"
set -- $before
bcuda=$1 bres=$2 bstarts=$3 bpid=$4
set -- $after
check $([ "$1" != "$bcuda" ] && [ "$2" = $((bres + 1)) ] && [ "$3" = "$bstarts" ] && [ "$4" = "$bpid" ] && echo 0 || echo 1) \
	"a new CUDA process, once, with a new context; the service is the same process"
plan=$(psql -X -q -At -d "$DB" -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
	EXPLAIN (ANALYZE, COSTS OFF) $QUERY" 2>&1)
check $(echo "$plan" | grep -q "Device: cuda" && ! echo "$plan" | grep -q "Fallback" && echo 0 || echo 1) "the next query runs on the GPU"
again=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; $MD5")
check $([ "$again" = "$native" ] && echo 0 || echo 1) "and answers as native"
q "DROP TABLE fault_t"
echo "$fails failed"
[ "$fails" = 0 ]
