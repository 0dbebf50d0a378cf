#!/usr/bin/env bash
# test/gpu/admission.sh -- the GPU memory ledger and admission queue on a GPU
# (issue 6).  Against the running server (gpuagg preloaded):
#   1. session A holds a reservation (an offloaded query's cursor left open
#      after its first row); with gpuagg.device_memory_limit leaving no room,
#      session B queues (gpuagg.ledger() shows queued = 1), then after
#      gpuagg.admission_timeout runs on the CPU device with the same answer
#      as native and "Device Fallback: waited ...";
#   2. B again, cancelled while queued: the ledger's queue is empty after;
#   3. A closes its cursor: the ledger holds nothing.
# Then 32 concurrent sessions each run a 100M-row GROUP BY whose estimates
# together exceed the limit: all answers equal the native one, no session
# errors, and the sampled reservations never pass the limit.
# Prints PASS/FAIL lines; exits non-zero on a FAIL.
set -uo pipefail
ROWS=${ROWS:-100000000}
SESSIONS=${SESSIONS:-32}
DB=admission_test
fails=0
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
q() { psql -X -At -d $DB -c "$1"; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q "CREATE EXTENSION gpuagg" >/dev/null
q "CREATE UNLOGGED TABLE t AS SELECT (hashint8(g) & 2147483647) % 1000 AS k, (g % 5 + 1)::int AS v
   FROM generate_series(1, 2000000) g" >/dev/null
q "VACUUM ANALYZE t" >/dev/null
QUERY="SELECT k, count(*), sum(v) FROM t GROUP BY k"
native=$(q "SET gpuagg.enabled = off; SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r")

# the estimate of one query, and a limit with room for exactly one
est_kb=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; EXPLAIN (FORMAT JSON) $QUERY" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Plan"]["VRAM Estimate"])')
limit_mb=$(( est_kb / 1024 * 3 / 2 + 1 ))
echo "estimate ${est_kb} kB; limit ${limit_mb} MB"
psql -X -q -d postgres -c "ALTER SYSTEM SET gpuagg.device_memory_limit = '${limit_mb}MB'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5

# 1. A holds, B queues and times out onto the CPU device
coproc A { psql -X -At -d $DB 2>&1; }
echo "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; BEGIN;
DECLARE c CURSOR FOR $QUERY; FETCH 1 FROM c; SELECT 'A holds';" >&"${A[1]}"
for _ in $(seq 1 100); do read -r -t 1 line <&"${A[0]}" || true; [ "$line" = "A holds" ] && break; done
held=$(q "SELECT running FROM gpuagg.ledger()")
check $([ "$held" = 1 ] && echo 0 || echo 1) "session A holds a reservation (running = $held)"
(psql -X -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.admission_timeout = '3s';
	EXPLAIN (ANALYZE, FORMAT JSON) $QUERY" >/tmp/admission_b.json 2>/tmp/admission_b.err) &
sleep 1
queued=$(q "SELECT queued FROM gpuagg.ledger()")
check $([ "$queued" = 1 ] && echo 0 || echo 1) "session B waits in the queue (queued = $queued)"
wait
fb=$(python3 -c 'import json; p=json.load(open("/tmp/admission_b.json"))[0]["Plan"]; print(p.get("Device Fallback",""), "|", p.get("Admission Wait"))' 2>/dev/null)
echo "B: $fb"
check $(echo "$fb" | grep -q "gpuagg.admission_timeout" && echo 0 || echo 1) "session B ran on the CPU device after its timeout"
b_answer=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.admission_timeout = '1s'; SET client_min_messages = error;
	SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r")
check $([ "$b_answer" = "$native" ] && echo 0 || echo 1) "the timed-out query's answer is the native one"

# 2. B cancelled while queued
(psql -X -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.admission_timeout = '60s';
	SELECT pg_backend_pid(); $QUERY" >/tmp/admission_c.out 2>&1) &
sleep 1
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%admission_timeout = ''60s''%' AND pid <> pg_backend_pid()" >/dev/null
wait
check $(grep -q "canceling statement due to user request" /tmp/admission_c.out && echo 0 || echo 1) "a queued query is cancelled"
queued=$(q "SELECT queued FROM gpuagg.ledger()")
check $([ "$queued" = 0 ] && echo 0 || echo 1) "the queue is empty after the cancel (queued = $queued)"

# 3. A closes
echo "CLOSE c; COMMIT; \\q" >&"${A[1]}"
wait "$A_PID" 2>/dev/null
sleep 0.5
left=$(q "SELECT reserved_mb || ' ' || running FROM gpuagg.ledger()")
check $([ "$left" = "0 0" ] && echo 0 || echo 1) "nothing is reserved once A is done (reserved, running = $left)"

# 4. many sessions at once over a big table, limit for about four of them
q "DROP TABLE t" >/dev/null
q "CREATE UNLOGGED TABLE t AS SELECT (hashint8(g) & 2147483647) % 1000000 AS k, (g % 5 + 1)::int AS v
   FROM generate_series(1, $ROWS) g" >/dev/null
q "VACUUM ANALYZE t" >/dev/null
native=$(q "SET gpuagg.enabled = off; SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r")
est_kb=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; EXPLAIN (FORMAT JSON) $QUERY" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["Plan"]["VRAM Estimate"])')
limit_mb=$(( est_kb * 4 / 1024 + 1 ))
echo "estimate ${est_kb} kB; limit ${limit_mb} MB; $SESSIONS sessions"
psql -X -q -d postgres -c "ALTER SYSTEM SET gpuagg.device_memory_limit = '${limit_mb}MB'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
rm -f /tmp/admission_s.*
for i in $(seq 1 "$SESSIONS"); do
	(psql -X -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
		SET gpuagg.admission_timeout = '10min';
		SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r" >/tmp/admission_s.$i 2>&1) &
done
max=0
while [ "$(jobs -r | wc -l)" -gt 0 ]; do
	r=$(q "SELECT reserved_mb FROM gpuagg.ledger()")
	[ "${r:-0}" -gt "$max" ] && max=$r
	sleep 0.1
done
wait
right=$(grep -lx "$native" /tmp/admission_s.* | wc -l)
errors=$(grep -l "ERROR" /tmp/admission_s.* | wc -l)
check $([ "$right" = "$SESSIONS" ] && echo 0 || echo 1) "$right of $SESSIONS concurrent sessions answered as native"
check $([ "$errors" = 0 ] && echo 0 || echo 1) "no session errors ($errors)"
check $([ "$max" -le "$limit_mb" ] && echo 0 || echo 1) "reservations peaked at $max MB, limit $limit_mb MB"
q "SELECT * FROM gpuagg.ledger()"

psql -X -q -d postgres -c "ALTER SYSTEM RESET gpuagg.device_memory_limit" -c "SELECT pg_reload_conf()" >/dev/null
echo "$fails failed"
[ "$fails" = 0 ]
