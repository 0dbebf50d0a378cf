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
# Prints PASS/FAIL lines; exits non-zero on a FAIL.  Whatever happens (a
# failure midway, ^C, timeout), an EXIT trap ends the sessions it started and
# resets gpuagg.device_memory_limit (ALTER SYSTEM RESET, pg_reload_conf()), so
# that a tiny limit is never left behind for later runs.
set -uo pipefail
ROWS=${ROWS:-100000000}
SESSIONS=${SESSIONS:-32}
DB=admission_test
fails=0
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
# -q: no command tags ("SET", "BEGIN") before the output that is parsed
q() { psql -X -q -At -d $DB -c "$1"; }
reset_limit() {
	timeout 30 psql -X -q -d postgres -c "ALTER SYSTEM RESET gpuagg.device_memory_limit" \
		-c "SELECT pg_reload_conf()" >/dev/null
}
cleanup() {
	local p
	[ -n "${A_PID:-}" ] && kill "$A_PID" 2>/dev/null
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	# a killed psql leaves its backend running until it next writes to it
	timeout 30 psql -X -q -At -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = '$DB' AND pid <> pg_backend_pid()" >/dev/null 2>&1
	reset_limit
	wait 2>/dev/null
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
stop() { check 1 "$1"; echo "$fails failed (stopped early)"; exit 1; }
is_num() { [[ ${1:-} =~ ^[0-9]+$ ]]; }
# plan_key KEY...: from EXPLAIN (FORMAT JSON) on stdin, the values of KEY... in
# the first plan node (depth first) that has the first KEY, joined by " | "
# ("-" for a missing one)
plan_key() {
	python3 -c '
import json, sys
def find(p, k):
    if k in p:
        return p
    for c in p.get("Plans", []):
        f = find(c, k)
        if f is not None:
            return f
try:
    n = find(json.load(sys.stdin)[0]["Plan"], sys.argv[1])
except Exception:
    n = None
if n is not None:
    print(" | ".join(str(n.get(k, "-")) for k in sys.argv[1:]))
' "$@"
}
alive() { local p n=0; for p in "$@"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo $n; }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q "CREATE EXTENSION gpuagg" >/dev/null
q "CREATE UNLOGGED TABLE t AS SELECT (hashint8(g) & 2147483647) % 1000 AS k, (g % 5 + 1)::int AS v
   FROM generate_series(1, 2000000) g" >/dev/null
q "VACUUM ANALYZE t" >/dev/null
QUERY="SELECT k, count(*), sum(v) FROM t GROUP BY k"
native=$(q "SET gpuagg.enabled = off; SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r")

# the estimate of one query, and a limit with room for exactly one
# (serial plans throughout, gpuagg.parallel = off: a cursor's plan is serial,
# and each parallel process would hold a reservation of its own)
est_kb=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; EXPLAIN (FORMAT JSON) $QUERY" |
	plan_key "Device Memory Estimate")
is_num "$est_kb" || stop "the plan's Device Memory Estimate (got '$est_kb')"
limit_mb=$(( est_kb / 1024 * 3 / 2 + 1 ))
echo "estimate ${est_kb} kB; limit ${limit_mb} MB"
psql -X -q -d postgres -c "ALTER SYSTEM SET gpuagg.device_memory_limit = '${limit_mb}MB'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5

# 1. A holds, B queues and times out onto the CPU device
coproc A { psql -X -q -At -d $DB 2>&1; }
[ -n "${A[1]:-}" ] && echo "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; BEGIN;
DECLARE c CURSOR FOR $QUERY; FETCH 1 FROM c; SELECT 'A holds';" >&"${A[1]}"
line=""
for _ in $(seq 1 100); do
	[ -n "${A[0]:-}" ] || break # A has exited
	read -r -t 1 line <&"${A[0]}" || true
	[ "$line" = "A holds" ] && break
done
held=$(q "SELECT running FROM gpuagg.ledger()")
check $([ "$held" = 1 ] && echo 0 || echo 1) "session A holds a reservation (running = $held)"
psql -X -q -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; SET gpuagg.admission_timeout = '3s';
	EXPLAIN (ANALYZE, FORMAT JSON) $QUERY" >/tmp/admission_b.json 2>/tmp/admission_b.err &
b_pid=$!
sleep 1
queued=$(q "SELECT queued FROM gpuagg.ledger()")
check $([ "$queued" = 1 ] && echo 0 || echo 1) "session B waits in the queue (queued = $queued)"
wait "$b_pid" # (not a bare wait: that would wait for A too)
fb=$(plan_key "Device" "Device Fallback" "Admission Wait" </tmp/admission_b.json)
echo "B: $fb"
check $(echo "$fb" | grep -q "gpuagg.admission_timeout" && echo 0 || echo 1) "session B ran on the CPU device after its timeout"
b_answer=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; SET gpuagg.admission_timeout = '1s'; SET client_min_messages = error;
	SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r")
check $([ "$b_answer" = "$native" ] && echo 0 || echo 1) "the timed-out query's answer is the native one"

# 2. B cancelled while queued
psql -X -q -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off; SET gpuagg.admission_timeout = '60s';
	SELECT pg_backend_pid(); $QUERY" >/tmp/admission_c.out 2>&1 &
c_pid=$!
sleep 1
q "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE query LIKE '%admission_timeout = ''60s''%' AND pid <> pg_backend_pid()" >/dev/null
wait "$c_pid"
check $(grep -q "canceling statement due to user request" /tmp/admission_c.out && echo 0 || echo 1) "a queued query is cancelled"
queued=$(q "SELECT queued FROM gpuagg.ledger()")
check $([ "$queued" = 0 ] && echo 0 || echo 1) "the queue is empty after the cancel (queued = $queued)"

# 3. A closes
[ -n "${A[1]:-}" ] && echo "CLOSE c; COMMIT; \\q" >&"${A[1]}"
[ -n "${A_PID:-}" ] && wait "$A_PID" 2>/dev/null
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
	plan_key "Device Memory Estimate")
is_num "$est_kb" || stop "the plan's Device Memory Estimate (got '$est_kb')"
limit_mb=$(( est_kb * 4 / 1024 + 1 ))
echo "estimate ${est_kb} kB; limit ${limit_mb} MB; $SESSIONS sessions"
psql -X -q -d postgres -c "ALTER SYSTEM SET gpuagg.device_memory_limit = '${limit_mb}MB'" -c "SELECT pg_reload_conf()" >/dev/null
sleep 0.5
rm -f /tmp/admission_s.*
pids=()
for i in $(seq 1 "$SESSIONS"); do
	psql -X -q -At -d $DB -c "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
		SET gpuagg.admission_timeout = '10min';
		SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r" >/tmp/admission_s.$i 2>&1 &
	pids+=($!)
done
max=0
while [ "$(alive "${pids[@]}")" -gt 0 ]; do
	r=$(q "SELECT reserved_mb FROM gpuagg.ledger()" 2>/dev/null)
	is_num "$r" && [ "$r" -gt "$max" ] && max=$r
	sleep 0.1
done
wait "${pids[@]}"
right=$(grep -lx "$native" /tmp/admission_s.* | wc -l)
errors=$(grep -l "ERROR" /tmp/admission_s.* | wc -l)
check $([ "$right" = "$SESSIONS" ] && echo 0 || echo 1) "$right of $SESSIONS concurrent sessions answered as native"
check $([ "$errors" = 0 ] && echo 0 || echo 1) "no session errors ($errors)"
check $([ "$max" -le "$limit_mb" ] && echo 0 || echo 1) "reservations peaked at $max MB, limit $limit_mb MB"
q "SELECT * FROM gpuagg.ledger()"

reset_limit # (the EXIT trap does it too)
echo "$fails failed"
[ "$fails" = 0 ]
