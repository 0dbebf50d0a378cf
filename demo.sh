#!/usr/bin/env bash
# demo.sh: build gpuagg, load a sample table into a throw-away cluster, and
# run a GROUP BY query through Custom Scan (GpuAgg), then natively.
#
#   bash demo.sh        (as root, or as a user who may sudo)
#
# Environment:
#   DEMO_ROWS=N        rows in the sample table (default 2000000)
#   PG_CONFIG          pg_config to build with (default
#                      /usr/lib/postgresql/15/bin/pg_config)
#   GPUAGG_SKIP_DEPS=1 no apt step (for hosts without apt)
#
# The cluster comes from pg_virtualenv (user postgres, free port, temporary
# directory). It is dropped at the end; other clusters are not touched.
set -euo pipefail

# apt-get, make install and the cluster's user need root: as another user,
# ask sudo once for the whole run
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "demo.sh: needs root (apt-get, make install); run it as root" >&2; exit 1; }
	exec sudo --preserve-env=PG_CONFIG,DEMO_ROWS,GPUAGG_SKIP_DEPS bash "$0" "$@"
fi

cd "$(dirname "$0")"
REPO=$(pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
export DEMO_ROWS=${DEMO_ROWS:-2000000}

QUERY="SELECT region, count(*), sum(qty), avg(price), max(sold)
FROM sales
WHERE price > 10
GROUP BY region
ORDER BY region
LIMIT 10"

# ---------------------------------------------------------------------------
# Inside the pg_virtualenv cluster
# ---------------------------------------------------------------------------
inside() {
	local settings plan offload native t_offload t_native

	banner "sample data: $DEMO_ROWS rows in table sales"
	psql -X -q -v ON_ERROR_STOP=1 -d postgres -c 'CREATE DATABASE demo'
	export PGDATABASE=demo
	# Deterministic pseudo-random columns: i times a constant, modulo a prime,
	# so the columns do not move in step with each other.
	psql -X -q -v ON_ERROR_STOP=1 -v rows="$DEMO_ROWS" <<'SQL'
CREATE EXTENSION gpuagg;
CREATE TABLE sales (
	id       int8,
	region   int4,
	store    int4,
	qty      int4,
	price    float8,
	sold     date,
	returned bool
);
\echo CREATE EXTENSION gpuagg; CREATE TABLE sales (id int8, region int4, store int4, qty int4, price float8, sold date, returned bool);
\echo INSERT INTO sales SELECT ... FROM generate_series(1, :rows) i;
\timing on
INSERT INTO sales
SELECT i,
       (i * 7919) % 100,
       (i * 104729 % 1000003) % 1000,
       1 + (i * 2654435761 % 1000003) % 20,
       (i * 48271 % 2147483647) % 10000 / 100.0,
       date '2024-01-01' + ((i * 69621 % 2147483647) % 365)::int4,
       (i * 40692 % 2147483399) % 17 = 0
  FROM generate_series(1::int8, :rows) AS i;
\echo ANALYZE sales;
ANALYZE sales;
\timing off
SELECT count(*) AS rows, pg_size_pretty(pg_table_size('sales')) AS size FROM sales;
SQL

	banner "GpuAgg"
	if [ "$(psql -XAt -c 'SELECT count(*) FROM gpuagg.devices()')" -gt 0 ]; then
		echo "A GPU is usable, so GpuAgg runs on the CUDA device:"
		psql -X -c 'SELECT name, memory_total_mb, compute_capability FROM gpuagg.devices()'
		settings="SET gpuagg.device = cuda;"
	else
		echo "There is no usable GPU here, so GpuAgg runs on its CPU device"
		echo "(the same plan and program, with the work done on the host):"
		settings="SET gpuagg.device = cpu;"
	fi
	plan=$(psql -X -q -v ON_ERROR_STOP=1 -c "$settings" -c "EXPLAIN (COSTS OFF) $QUERY")
	if ! grep -q 'Custom Scan (GpuAgg)' <<<"$plan"; then
		echo "NOTE: the planner did not choose Custom Scan (GpuAgg) on cost; its reason:"
		psql -X -q -c "$settings" -c "SET gpuagg.log_fallback = on" \
			-c "EXPLAIN (COSTS OFF) $QUERY" 2>&1 | grep -i 'notice' || true
		echo "NOTE: so this demo sets gpuagg.force_offload = on (a developer setting)"
		settings="$settings SET gpuagg.force_offload = on;"
	fi

	offload=$(run_query "$settings")
	printf '%s\n' "$offload"
	grep -q 'Custom Scan (GpuAgg)' <<<"$offload" ||
		echo "NOTE: the plan above does not use Custom Scan (GpuAgg)"

	banner "native PostgreSQL"
	native=$(run_query "SET gpuagg.enabled = off;")
	printf '%s\n' "$native"

	banner "comparison (informative only: one run each, on whatever this machine is)"
	t_offload=$(query_time <<<"$offload")
	t_native=$(query_time <<<"$native")
	echo "GpuAgg (${settings%%;*}): ${t_offload:-?} ms"
	echo "native PostgreSQL:        ${t_native:-?} ms"
	if [ "$(result_rows <<<"$offload")" = "$(result_rows <<<"$native")" ]; then
		echo "results: identical"
	elif [ "$(result_rows <<<"$offload" | round_avg)" = "$(result_rows <<<"$native" | round_avg)" ]; then
		echo "results: identical but for the last digits of avg(price), a float8 sum"
		echo "         that the two plans add up in a different order"
	else
		echo "results: DIFFERENT:"
		diff <(result_rows <<<"$offload") <(result_rows <<<"$native") || true
	fi
}

# SETTINGS, then EXPLAIN (ANALYZE, VERBOSE) and the query with \timing
run_query() {
	local query_line=${QUERY//$'\n'/ }
	psql -X -q -v ON_ERROR_STOP=1 <<SQL
\\echo $1
$1
\\echo
\\echo EXPLAIN (ANALYZE, VERBOSE) $query_line;
EXPLAIN (ANALYZE, VERBOSE) $QUERY;
\\echo
\\echo $query_line;
\\timing on
$QUERY;
\\timing off
SQL
}

# The "Time: 123.456 ms" of \timing: the query's
query_time() { sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | tail -n 1; }

# The query's result rows, without header and footer
result_rows() {
	awk '/^ region \| count/ { on = 1; next } on && /^\(/ { exit } on' | sed '/^-/d'
}

# The rows with avg (the 4th column) rounded to 10 significant digits
round_avg() { awk -F '|' '{ printf "%s|%s|%s|%.10g|%s\n", $1, $2, $3, $4, $5 }'; }

banner() { printf '\n######## %s\n' "$*"; }

if [ "${1:-}" = "--inside" ]; then
	inside
	exit 0
fi

# ---------------------------------------------------------------------------
# Dependencies, build, then the demo inside pg_virtualenv
# ---------------------------------------------------------------------------
case "$DEMO_ROWS" in
	'' | *[!0-9]*) echo "demo.sh: DEMO_ROWS must be a number, got '$DEMO_ROWS'" >&2; exit 1 ;;
esac
start=$SECONDS

banner "dependencies"
if [ "${GPUAGG_SKIP_DEPS:-0}" = 1 ]; then
	bash test/install-deps.sh --verify-only
else
	bash test/install-deps.sh
fi

banner "build ($PG_CONFIG)"
make --no-print-directory clean PG_CONFIG="$PG_CONFIG" >/dev/null
make --no-print-directory PG_CONFIG="$PG_CONFIG"
make --no-print-directory install PG_CONFIG="$PG_CONFIG"

# shellcheck source=test/lib.sh
. "$REPO/test/lib.sh"

PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
banner "throw-away cluster (pg_virtualenv -t -v $PG_MAJOR -o shared_preload_libraries=gpuagg)"
PGPORT=$(free_port) || PGPORT=""
export PGPORT
pg_virtualenv -t -v "$PG_MAJOR" -o shared_preload_libraries=gpuagg -- \
	bash "$REPO/demo.sh" --inside
echo
echo "demo.sh: done in $((SECONDS - start)) s"
