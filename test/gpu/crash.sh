#!/usr/bin/env bash
# test/gpu/crash.sh -- the process that runs CUDA dies under load, and no
# session does.  Against the running server (gpuagg preloaded; psql reaches
# it through PGHOST/PGPORT/PGUSER), in a fresh database crash_test:
#
#   SESSIONS (8) psql sessions, each one connection for the whole test, run
#   offloaded queries in a loop (gpuagg.device = cuda, force_offload; three
#   queries in turn: a few groups with a filter, 100k groups, a plain
#   aggregate over ROWS rows) and compare each answer with the native one
#   computed first.  Meanwhile, KILLS (3) times, SIGKILL to the CUDA process
#   (gpuagg.service().cuda_pid); then FAULTS (3) times a query with
#   gpuagg.debug_inject_fault (a kernel reads an illegal address: a sticky
#   error, the CUDA process ends by itself).  After each, the time until the
#   service is 'ready' with a new CUDA process and a query runs on the GPU
#   again is measured.
#
# PASS needs: 0 wrong answers, 0 errors, every session's backend the same
# from its first query to its last (no session lost), a new CUDA process
# and GPU queries back after each kill and fault within BACK_LIMIT seconds,
# no "terminating any other active server processes" and no PANIC in the
# server log (SERVER_LOG, default /tmp/pg.log), the service one process
# throughout.  Prints a line per event and a summary; last line
# "N passed, N failed".
#
# Environment: ROWS (10000000), SESSIONS (8), KILLS (3), FAULTS (3),
# GAP (seconds between events, 8), BACK_LIMIT (30), SERVER_LOG.
set -uo pipefail
ROWS=${ROWS:-10000000}
SESSIONS=${SESSIONS:-8}
KILLS=${KILLS:-3}
FAULTS=${FAULTS:-3}
GAP=${GAP:-8}
BACK_LIMIT=${BACK_LIMIT:-30}
SERVER_LOG=${SERVER_LOG:-/tmp/pg.log}
DB=crash_test
TMP=$(mktemp -d /tmp/crash_test.XXXXXX)
chmod 777 "$TMP"
passed=0
failed=0
check() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "PASS: $2"; else failed=$((failed + 1)); echo "FAIL: $2"; fi; }
q() { psql -X -q -At -d $DB -c "$1"; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
q "CREATE EXTENSION gpuagg"
q "CREATE TABLE t (k int4, g int4, v int8, f float8)"
# loaded by 8 sessions at once
for i in $(seq 0 7); do
	q "INSERT INTO t SELECT i % 10, i % 100000, i, i / 7.0
		 FROM generate_series($i * ($ROWS / 8) + 1, ($i + 1) * ($ROWS / 8)) i" &
done
wait
q "VACUUM ANALYZE t"
log_start=$(stat -c %s "$SERVER_LOG" 2>/dev/null || echo 0)

QUERIES=(
	"SELECT k, count(*), sum(v), avg(v), max(f) FROM t WHERE v % 3 = 0 GROUP BY k"
	"SELECT g, count(*), sum(v) FROM t GROUP BY g"
	"SELECT count(*), sum(v), min(f), max(f) FROM t"
)
# each answer as one md5 over its rows' texts (the queries sum no floats, so
# the answers are exact on every device)
md5q() { echo "SELECT md5(string_agg(x::text, ',' ORDER BY x::text)) FROM ($1) x"; }
native=()
for i in "${!QUERIES[@]}"; do
	native[$i]=$(q "SET gpuagg.enabled = off; $(md5q "${QUERIES[$i]}")")
	echo "native answer $i: ${native[$i]}"
done

# A session: one psql, one connection, a script of queries that stops when
# table stop has a row; each query prints "ok|pid|ms" or "WRONG|pid|ms"
q "CREATE TABLE stop (x int)"
script=$TMP/session.sql
{
	echo "SET gpuagg.device = cuda;"
	echo "SET gpuagg.force_offload = on;"
	echo "SET client_min_messages = error;"
	for n in $(seq 1 3000); do
		i=$((n % 3))
		echo "SELECT CASE WHEN ($(md5q "${QUERIES[$i]}")) = '${native[$i]}' THEN 'ok' ELSE 'WRONG' END
			|| '|' || pg_backend_pid() || '|' || round(extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000);"
		echo "SELECT EXISTS (SELECT FROM stop) AS stop \\gset"
		echo "\\if :stop"
		echo "\\q"
		echo "\\endif"
	done
} >"$script"
pids=()
for s in $(seq 1 "$SESSIONS"); do
	psql -X -q -At -d $DB -f "$script" >"$TMP/s$s.out" 2>"$TMP/s$s.err" &
	pids+=($!)
done
sleep "$GAP"

service_pid=$(q "SELECT pid FROM gpuagg.service()")
# wait until the service is ready with a CUDA process other than $1 and a
# query runs on the GPU; print the milliseconds it took since $2
wait_back() {
	local old=$1 t0=$2 st plan
	for _ in $(seq 1 $((BACK_LIMIT * 10))); do
		st=$(q "SELECT state || '|' || coalesce(cuda_pid, 0) FROM gpuagg.service()")
		if [ "${st%%|*}" = ready ] && [ "${st##*|}" != "$old" ] && [ "${st##*|}" != 0 ]; then
			plan=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on;
				EXPLAIN (ANALYZE, COSTS OFF, FORMAT JSON) ${QUERIES[2]}")
			if echo "$plan" | grep -q '"Device": "cuda"' && ! echo "$plan" | grep -q 'Device Fallback'; then
				echo $(($(now_ms) - t0))
				return 0
			fi
		fi
		sleep 0.1
	done
	echo -1
	return 1
}

for n in $(seq 1 "$KILLS"); do
	cpid=$(q "SELECT cuda_pid FROM gpuagg.service()")
	running=$(q "SELECT sessions FROM gpuagg.service()")
	t0=$(now_ms)
	kill -9 "$cpid"
	back=$(wait_back "$cpid" "$t0")
	echo "kill $n: SIGKILL to the CUDA process $cpid with $running queries on it; GPU queries back in $back ms"
	check $([ "$back" -ge 0 ] && echo 0 || echo 1) "kill $n: a new CUDA process serves GPU queries within $BACK_LIMIT s ($back ms)"
	sleep "$GAP"
done

for n in $(seq 1 "$FAULTS"); do
	cpid=$(q "SELECT cuda_pid FROM gpuagg.service()")
	t0=$(now_ms)
	out=$(q "SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;
		SET client_min_messages = error; SET gpuagg.debug_inject_fault = on; $(md5q "${QUERIES[0]}")" 2>&1)
	check $([ "$out" = "${native[0]}" ] && echo 0 || echo 1) "fault $n: the faulting query answers as natively"
	back=$(wait_back "$cpid" "$t0")
	echo "fault $n: the CUDA process $cpid ended on a sticky error; GPU queries back in $back ms"
	check $([ "$back" -ge 0 ] && echo 0 || echo 1) "fault $n: a new CUDA process serves GPU queries within $BACK_LIMIT s ($back ms)"
	sleep "$GAP"
done

q "INSERT INTO stop VALUES (1)"
lost=0
for p in "${pids[@]}"; do wait "$p" || lost=$((lost + 1)); done

total=0 wrong=0 errors=0 sessions_same=0
for s in $(seq 1 "$SESSIONS"); do
	n=$(grep -c '^ok|' "$TMP/s$s.out")
	w=$(grep -c '^WRONG|' "$TMP/s$s.out")
	e=$(grep -c 'ERROR\|FATAL\|connection' "$TMP/s$s.err")
	npids=$(cut -d'|' -f2 "$TMP/s$s.out" | sort -u | wc -l)
	p50=$(cut -d'|' -f3 "$TMP/s$s.out" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	echo "session $s: $n answers as natively, $w wrong, $e errors, backends $npids, median $p50 ms"
	[ -s "$TMP/s$s.err" ] && sed 's/^/    /' "$TMP/s$s.err" | head -5
	total=$((total + n))
	wrong=$((wrong + w))
	errors=$((errors + e))
	[ "$npids" = 1 ] && sessions_same=$((sessions_same + 1))
done
check $([ "$wrong" = 0 ] && [ "$total" -gt 0 ] && echo 0 || echo 1) "$total answers compared with native, $wrong wrong"
check $([ "$errors" = 0 ] && echo 0 || echo 1) "no session saw an error ($errors)"
check $([ "$sessions_same" = "$SESSIONS" ] && [ "$lost" = 0 ] && echo 0 || echo 1) \
	"every session kept its backend to the end ($sessions_same of $SESSIONS; psql exits with an error: $lost)"
check $([ "$(q "SELECT pid FROM gpuagg.service()")" = "$service_pid" ] && echo 0 || echo 1) \
	"the service is the same process ($service_pid)"
logpart=$(tail -c +$((log_start + 1)) "$SERVER_LOG" 2>/dev/null)
check $(echo "$logpart" | grep -q 'terminating any other active server processes' && echo 1 || echo 0) \
	"no crash-restart of the server in its log"
check $(echo "$logpart" | grep -q 'PANIC' && echo 1 || echo 0) "no PANIC in the server log"
echo "the service's log lines:"
echo "$logpart" | grep 'gpuagg service' | sed 's/^/    /'
q "SELECT * FROM gpuagg.service()"
psql -X -q -d postgres -c "DROP DATABASE $DB"
rm -rf "$TMP"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
