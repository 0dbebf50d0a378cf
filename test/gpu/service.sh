#!/usr/bin/env bash
# test/gpu/service.sh -- the GPU service (issue 6) on a GPU host.  Against the
# running server (gpuagg in shared_preload_libraries; psql reaches it through
# PGHOST/PGPORT/PGUSER), in a fresh database service_test:
#   1. the GPU service, a background worker that owns the CUDA context
#      (backend_type 'gpuagg service'), is ready within 60 s:
#      gpuagg.service() says state = 'ready'; prints it and gpuagg.devices();
#   2. first-query latency: 5 new connections each run one small offloaded
#      query (gpuagg.device = cuda, force_offload) and 5 the native plan; every
#      offloaded run says "Device: cuda", and the median wall time of a cuda
#      connection is within 150 ms of a native one (CUDA start-up, ~250 ms,
#      is paid once by the service, not by each connection);
#   3. SESSIONS concurrent sessions each run a ROWS-row GROUP BY (1M groups,
#      serial GpuAgg) with gpuagg.device_memory_limit leaving room for about
#      4 of them: every answer equals the native one, no session errors, and
#      the sampled reservations (gpuagg.devices(), gpuagg.ledger()) never
#      pass the limit;
#   4. the same, with the service terminated (pg_terminate_backend) about 3 s
#      in: every answer still equals the native one (sessions whose GPU run
#      broke fall back to the CPU device with a WARNING), no session errors,
#      the postmaster restarts the service (state 'ready', a new pid, starts
#      counted up) within 30 s of the kill, and a query after it runs on cuda.
# Prints PASS/FAIL lines, a timing line per step, and last "N failed"; exits
# non-zero on any FAIL.  An EXIT trap (also on ^C, SIGTERM, a failure midway)
# ends the sessions it started, resets gpuagg.device_memory_limit (ALTER
# SYSTEM RESET, pg_reload_conf()) and drops the database (KEEP_DB=1 keeps it).
#
# Environment: ROWS (default 100000000), SESSIONS (default 32), LOADERS
# (parallel psql sessions loading the table, default 16), SESSION_TIMEOUT
# (seconds for one session's query, default 300).  About 300-350 s at the
# defaults on a 16-core H200 host.
set -uo pipefail
ROWS=${ROWS:-100000000}
SESSIONS=${SESSIONS:-32}
LOADERS=${LOADERS:-16}
SESSION_TIMEOUT=${SESSION_TIMEOUT:-300}
DB=service_test
TMP=/tmp/service_test
QUERY="SELECT k, count(*), sum(v) FROM t GROUP BY k"
MD5Q="SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM ($QUERY) r"
CUDA="SET gpuagg.device = cuda; SET gpuagg.force_offload = on; SET gpuagg.parallel = off;"

fails=0
check() { if [ "$1" = 0 ]; then echo "PASS: $2"; else echo "FAIL: $2"; fails=$((fails + 1)); fi; }
# -q: no command tags ("SET") ahead of the output that is parsed.
# timeout --foreground: psql stays in our process group, so that a ^C or an
# outer timeout's SIGTERM reaches it too.
q() { timeout --foreground 600 psql -X -q -At -d $DB -c "$1"; } # long statements
qs() { timeout --foreground 30 psql -X -q -At -d $DB -c "$1"; } # short ones
is_num() { [[ ${1:-} =~ ^[0-9]+$ ]]; }
alive() { local p n=0; for p in "$@"; do kill -0 "$p" 2>/dev/null && n=$((n + 1)); done; echo $n; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { if (NR) print (NR % 2 ? a[(NR + 1) / 2] : int((a[NR / 2] + a[NR / 2 + 1]) / 2)) }'; }
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
T0=$(date +%s)
step_t=""
step() {
	local now=$(date +%s)
	[ -n "$step_t" ] && echo "   (step took $((now - step_t)) s)"
	step_t=$now
	echo "== $1 (at $((now - T0)) s)"
}
# plan_key KEY...: from EXPLAIN (FORMAT JSON) on stdin, the values of KEY...
# in the first object (the top one, then its plan nodes depth first) that
# has the first KEY, joined by " | " ("-" for a missing one); nothing if none
# has the first KEY.
plan_key() {
	python3 -c '
import json, sys
def find(p, k):
    if k in p:
        return p
    for c in ([p["Plan"]] if "Plan" in p else []) + p.get("Plans", []):
        f = find(c, k)
        if f is not None:
            return f
try:
    n = find(json.load(sys.stdin)[0], sys.argv[1])
except Exception:
    n = None
if n is not None:
    print(" | ".join(str(n.get(k, "-")) for k in sys.argv[1:]))
' "$@"
}

set_limit() {
	timeout --foreground 30 psql -X -q -d postgres -c "ALTER SYSTEM SET gpuagg.device_memory_limit = '$1'" \
		-c "SELECT pg_reload_conf()" >/dev/null
	sleep 1 # the postmaster, then the service and new backends, reload
}
reset_limit() {
	timeout --foreground 30 psql -X -q -d postgres -c "ALTER SYSTEM RESET gpuagg.device_memory_limit" \
		-c "SELECT pg_reload_conf()" >/dev/null
}
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	# a killed psql leaves its backend running until it next writes to it
	timeout --foreground 30 psql -X -q -At -d postgres -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE datname = '$DB' AND pid <> pg_backend_pid()" >/dev/null 2>&1
	reset_limit
	wait 2>/dev/null
	[ "${KEEP_DB:-0}" = 1 ] ||
		timeout --foreground 60 psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
stop() { check 1 "$1"; echo "$fails failed (stopped early)"; exit 1; }

rm -rf "$TMP"
mkdir -p "$TMP"
timeout --foreground 120 psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" -c "CREATE DATABASE $DB" ||
	stop "database $DB created"
qs "CREATE EXTENSION gpuagg" || stop "CREATE EXTENSION gpuagg"

# ---------------------------------------------------------------------------
step "1. the GPU service"
state="" no_gpu=0
for _ in $(seq 1 120); do
	state=$(qs "SELECT state FROM gpuagg.service()" 2>&1 | head -1)
	[ "$state" = ready ] && break
	# no_gpu for 10 s on end: no use waiting longer
	if [ "$state" = no_gpu ]; then no_gpu=$((no_gpu + 1)); [ $no_gpu -ge 20 ] && break; else no_gpu=0; fi
	sleep 0.5
done
check $([ "$state" = ready ] && echo 0 || echo 1) "the GPU service is ready (state = $state)"
svc_pid=$(qs "SELECT pid FROM gpuagg.service()")
act_pid=$(qs "SELECT string_agg(pid::text, ',') FROM pg_stat_activity WHERE backend_type = 'gpuagg service'")
check $([ -n "$svc_pid" ] && [ "$svc_pid" = "$act_pid" ] && echo 0 || echo 1) \
	"pg_stat_activity shows it as backend_type 'gpuagg service' (pid $act_pid; gpuagg.service() says ${svc_pid:-NULL})"
timeout --foreground 30 psql -X -d $DB -c "SELECT * FROM gpuagg.service()" -c "SELECT * FROM gpuagg.devices()"

# ---------------------------------------------------------------------------
step "2. first-query latency (a new connection each)"
qs "CREATE TABLE tiny AS SELECT g AS i FROM generate_series(1, 1000) g" >/dev/null
qs "ANALYZE tiny" >/dev/null
cuda_ms=() native_ms=() not_cuda=0
for i in 1 2 3 4 5; do
	line="connection $i:"
	for dev in cuda native; do
		set_dev="SET gpuagg.device = cuda; SET gpuagg.force_offload = on;"
		[ $dev = native ] && set_dev="SET gpuagg.enabled = off;"
		t0=$(date +%s%N)
		timeout --foreground 60 psql -X -q -At -d $DB -c "$set_dev EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*), sum(i) FROM tiny" \
			>"$TMP/first_$dev.$i.json" 2>"$TMP/first_$dev.$i.err"
		wall=$(ms_since "$t0")
		exec_ms=$(plan_key "Execution Time" <"$TMP/first_$dev.$i.json")
		if [ $dev = cuda ]; then
			device=$(plan_key "Device" "Device Fallback" <"$TMP/first_$dev.$i.json")
			[ "$device" = "cuda | -" ] || not_cuda=$((not_cuda + 1))
			cuda_ms+=("$wall")
			line="$line cuda ${wall} ms (execution ${exec_ms:-?} ms, Device: ${device:-none})"
		else
			native_ms+=("$wall")
			line="$line | native ${wall} ms (execution ${exec_ms:-?} ms)"
		fi
	done
	echo "$line"
done
check $([ "$not_cuda" = 0 ] && echo 0 || echo 1) "every offloaded first query ran on cuda ($not_cuda did not; see $TMP/first_cuda.*)"
cuda_med=$(median "${cuda_ms[@]}")
native_med=$(median "${native_ms[@]}")
echo "median connection wall time: cuda $cuda_med ms, native $native_med ms"
check $([ "$cuda_med" -le $((native_med + 150)) ] && echo 0 || echo 1) \
	"a new connection's first offloaded query costs at most 150 ms more than native (median $cuda_med vs $native_med ms)"

# ---------------------------------------------------------------------------
step "3. $SESSIONS concurrent sessions over $ROWS rows"
qs "CREATE UNLOGGED TABLE t (k int8, v int4)" >/dev/null
per=$(( (ROWS + LOADERS - 1) / LOADERS ))
loaders=()
for i in $(seq 0 $((LOADERS - 1))); do
	lo=$((i * per + 1)); hi=$(( (i + 1) * per < ROWS ? (i + 1) * per : ROWS ))
	[ "$lo" -le "$hi" ] || continue
	q "INSERT INTO t SELECT (hashint8(g) & 2147483647) % 1000000, (g % 5 + 1)::int
	   FROM generate_series($lo::int8, $hi::int8) g" >"$TMP/load.$i" 2>&1 &
	loaders+=($!)
done
wait "${loaders[@]}"
q "VACUUM ANALYZE t" >/dev/null
loaded=$(q "SET gpuagg.enabled = off; SELECT count(*) FROM t")
echo "loaded ${loaded:-?} rows in $(( $(date +%s) - step_t )) s; heap $(qs "SELECT pg_size_pretty(pg_table_size('t'))")"
[ "$loaded" = "$ROWS" ] || stop "table t has $ROWS rows (it has '${loaded:-?}'; see $TMP/load.*)"
t0=$(date +%s)
native=$(q "SET gpuagg.enabled = off; SET max_parallel_workers_per_gather = 8; $MD5Q")
echo "native answer $native in $(( $(date +%s) - t0 )) s"
[[ $native =~ ^[0-9a-f]{32}$ ]] || stop "the native answer (got '$native')"
est_kb=$(qs "$CUDA EXPLAIN (FORMAT JSON) $QUERY" | plan_key "Device Memory Estimate")
is_num "$est_kb" || stop "the plan's Device Memory Estimate (got '$est_kb')"
limit_mb=$(( est_kb * 4 / 1024 + 1 ))
echo "estimate ${est_kb} kB; limit ${limit_mb} MB (room for about 4)"
set_limit "${limit_mb}MB"
qs "SELECT memory_limit_mb, memory_reserved_mb FROM gpuagg.devices() WHERE device = 0" | sed 's/^/devices(): limit, reserved: /'

# run_sessions TAG: SESSIONS sessions of the md5 query into $TMP/TAG.N, their
# pids in spids; sample() tracks the largest reservation seen
run_sessions() {
	local i
	spids=()
	for i in $(seq 1 "$SESSIONS"); do
		timeout --foreground "$SESSION_TIMEOUT" psql -X -q -At -d $DB \
			-c "$CUDA SET gpuagg.admission_timeout = '10min'; $MD5Q" >"$TMP/$1.$i" 2>&1 &
		spids+=($!)
	done
}
max_dev=0 max_led=0 dev_limit=""
sample() {
	local r
	r=$(qs "SELECT memory_reserved_mb || ' ' || memory_limit_mb FROM gpuagg.devices() WHERE device = 0" 2>/dev/null)
	set -- $r
	is_num "${1:-}" && [ "$1" -gt "$max_dev" ] && max_dev=$1
	is_num "${2:-}" && dev_limit=$2
	r=$(qs "SELECT reserved_mb FROM gpuagg.ledger()" 2>/dev/null)
	is_num "$r" && [ "$r" -gt "$max_led" ] && max_led=$r
}
# sessions_report TAG: the checks on the answers in $TMP/TAG.*
sessions_report() {
	local right errors warned
	right=$(grep -lx "$native" "$TMP/$1".* | wc -l)
	errors=$(grep -lE "ERROR|FATAL|PANIC|psql: error" "$TMP/$1".* | wc -l)
	warned=$(grep -l "WARNING" "$TMP/$1".* | wc -l)
	check $([ "$right" = "$SESSIONS" ] && echo 0 || echo 1) "$right of $SESSIONS concurrent sessions answered as native"
	check $([ "$errors" = 0 ] && echo 0 || echo 1) "no session errors ($errors; see $TMP/$1.*)"
	echo "sessions that ran on cuda (no WARNING): $((SESSIONS - warned)) of $SESSIONS; fell back (WARNING): $warned"
	grep -h -A1 --no-group-separator "WARNING" "$TMP/$1".* | sort | uniq -c | sort -rn | head -6
}

t0=$(date +%s)
run_sessions conc
while [ "$(alive "${spids[@]}")" -gt 0 ]; do
	sample
	sleep 0.1
done
wait "${spids[@]}"
echo "$SESSIONS sessions done in $(( $(date +%s) - t0 )) s"
sessions_report conc
echo "reservations peaked at $max_dev MB (gpuagg.devices()), $max_led MB (gpuagg.ledger()); limit $limit_mb MB (gpuagg.devices(): ${dev_limit:-?} MB)"
check $([ "$max_dev" -gt 0 ] || [ "$max_led" -gt 0 ] && echo 0 || echo 1) "reservations were seen while the sessions ran"
check $([ "$max_dev" -le "$limit_mb" ] && [ "$max_led" -le "$limit_mb" ] && echo 0 || echo 1) \
	"reservations never passed the limit (peak $max_dev / $max_led MB, limit $limit_mb MB)"
warned3=$(grep -l "WARNING" "$TMP"/conc.* | wc -l)
check $([ "$warned3" -lt "$SESSIONS" ] && echo 0 || echo 1) "sessions ran on cuda ($((SESSIONS - warned3)) of $SESSIONS)"
qs "SELECT * FROM gpuagg.ledger()"

# ---------------------------------------------------------------------------
step "4. the service terminated under load"
starts_before=$(qs "SELECT starts FROM gpuagg.service()")
max_dev=0 max_led=0
t0=$(date +%s)
run_sessions kill
sleep 3
# a moment more, if need be, until the service is serving a query
for _ in $(seq 1 50); do
	serving=$(qs "SELECT sessions FROM gpuagg.service()")
	is_num "$serving" && [ "$serving" -gt 0 ] && break
	sleep 0.2
done
running_at_kill=$(alive "${spids[@]}")
echo "before the kill: $(qs "SELECT pid, state, starts, sessions FROM gpuagg.service()") (pid|state|starts|sessions); sessions running $running_at_kill"
# (pg_terminate_backend in the target list, never in WHERE: there the planner
# could call it before the backend_type test, on every backend)
killed=$(qs "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'gpuagg service'")
echo "pg_terminate_backend: ${killed:-no gpuagg service in pg_stat_activity}"
killed=${killed%%|*}
kill_ns=$(date +%s%N)
echo "terminated the service, pid ${killed:-none}, $(( $(date +%s) - t0 )) s in"
check $(is_num "$killed" && [ "$running_at_kill" -gt 0 ] && echo 0 || echo 1) \
	"the service was terminated while the sessions ran (pid ${killed:-none}; $running_at_kill sessions running)"
back_ms="" new_pid=""
poll_back() {
	local r
	[ -n "$back_ms" ] && return
	r=$(qs "SELECT state || ' ' || coalesce(pid::text, '-') FROM gpuagg.service()" 2>/dev/null)
	set -- $r
	if [ "${1:-}" = ready ] && is_num "${2:-}" && [ "$2" != "$killed" ]; then
		back_ms=$(ms_since "$kill_ns")
		new_pid=$2
	fi
}
while [ "$(alive "${spids[@]}")" -gt 0 ]; do
	sample
	poll_back
	sleep 0.1
done
wait "${spids[@]}"
echo "$SESSIONS sessions done in $(( $(date +%s) - t0 )) s"
while [ -z "$back_ms" ] && [ "$(ms_since "$kill_ns")" -lt 30000 ]; do
	poll_back
	sleep 0.2
done
sessions_report kill
echo "reservations peaked at $max_dev MB (gpuagg.devices()), $max_led MB (gpuagg.ledger()); limit $limit_mb MB"
check $([ -n "$back_ms" ] && [ "$back_ms" -le 30000 ] && echo 0 || echo 1) \
	"the service was back (ready, pid ${new_pid:-?} after ${killed:-?}) ${back_ms:-never} ms after the kill"
starts_after=$(qs "SELECT starts FROM gpuagg.service()")
check $(is_num "$starts_before" && is_num "$starts_after" && [ "$starts_after" -gt "$starts_before" ] && echo 0 || echo 1) \
	"gpuagg.service() counted the restart (starts $starts_before, then $starts_after)"
timeout --foreground 30 psql -X -d $DB -c "SELECT * FROM gpuagg.service()"
after=$(timeout --foreground "$SESSION_TIMEOUT" psql -X -q -At -d $DB -c "$CUDA EXPLAIN (ANALYZE, FORMAT JSON) $QUERY" \
	2>"$TMP/after.err" | plan_key "Device" "Device Fallback")
check $([ "$after" = "cuda | -" ] && echo 0 || echo 1) "a query after the restart ran on cuda (Device | Fallback: ${after:-?})"
qs "SELECT * FROM gpuagg.ledger()"

# ---------------------------------------------------------------------------
step "done"
echo "total $(( $(date +%s) - T0 )) s"
reset_limit # (the EXIT trap does it too)
echo "$fails failed"
[ "$fails" = 0 ]
