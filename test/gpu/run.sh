#!/usr/bin/env bash
# test/gpu/run.sh -- gpuagg's proof on a host with a GPU.
#
# Runs, against the running server (PGHOST/PGPORT/PGUSER, gpuagg installed
# and in shared_preload_libraries):
#   1. the GPU and what gpuagg.devices() sees;
#   2. the whole pg_regress suite, the randomized differential test included,
#      with gpuagg.device = cuda (expected files as in CI, with the EXPLAIN
#      line "Device: cpu" read as "Device: cuda");
#   3. compute-sanitizer memcheck and initcheck over a representative set of
#      offloaded queries (test/gpu/sanitize.sql), in a single-user backend of
#      a second, throw-away cluster.
# TESTS="setup ..." runs only those pg_regress tests; SANITIZE=0 skips 3.
# The last line is "N passed, N failed"; the exit status is non-zero on any
# failure.
set -uo pipefail
cd "$(dirname "$0")/../.."
REPO=$(pwd)
PG_CONFIG=${PG_CONFIG:-pg_config}
BINDIR=$("$PG_CONFIG" --bindir)
PGXS=$("$PG_CONFIG" --pgxs)
PG_REGRESS=$(dirname "$PGXS")/../test/regress/pg_regress
passed=0
failed=0
result() { if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "PASS: $2"; else failed=$((failed + 1)); echo "FAIL: $2"; fi; }

echo "==== GPU"
nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv,noheader
psql -X -q -d postgres -c "CREATE EXTENSION IF NOT EXISTS gpuagg"
psql -X -d postgres -c "SELECT * FROM gpuagg.devices()"

echo "==== pg_regress with gpuagg.device = cuda"
work=$(mktemp -d /tmp/gpuagg-gpu.XXXXXX)
cp -r sql expected "$work/"
sed -i 's/Device: cpu$/Device: cuda/' "$work"/expected/*.out
chmod -R a+rwX "$work"
# TESTS: a part of the suite (setup first), when a call has no time for all
tests=${TESTS:-$(make -s --no-print-directory PG_CONFIG="$PG_CONFIG" print-regress)}
GPUAGG_TEST_DEVICE=cuda "$PG_REGRESS" --inputdir="$work" --outputdir="$work" \
	--bindir="$BINDIR" --dbname=gpuagg_regress --encoding=UTF8 $tests
status=$?
if [ $status != 0 ] && [ -f "$work/regression.diffs" ]; then
	echo "---- regression.diffs"
	cat "$work/regression.diffs"
fi
result $status "pg_regress ($tests) with gpuagg.device = cuda"

echo "==== compute-sanitizer"
if [ "${SANITIZE:-1}" = 0 ]; then
	echo "skipped (SANITIZE=0)"
elif command -v compute-sanitizer >/dev/null; then
	sdata=/tmp/gpuagg-sanitize
	# Stopped (a caller's timeout), leave no sanitized backend behind: su
	# starts it in a session of its own, where the caller's signal never
	# reaches, and it would hold the GPU for every later query.  (Hence
	# the wait below, during which bash runs the trap at once.)
	trap 'pkill -KILL -f -- "--single -D $sdata/data"; exit 143' TERM INT HUP
	pkill -KILL -f -- "--single -D $sdata/data"
	rm -rf "$sdata"
	mkdir -p "$sdata" && chown postgres "$sdata"
	su postgres -s /bin/bash -c "PATH=$PATH LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} initdb -D $sdata/data -A trust >/dev/null" &&
		echo "shared_preload_libraries = 'gpuagg'" >>"$sdata/data/postgresql.conf"
	# memcheck and initcheck with column batches, memcheck again with page
	# batches (the GPU deforming tuples from the mapped shared buffers)
	for run in memcheck:off initcheck:off memcheck:on; do
		tool=${run%:*}
		pb=${run#*:}
		# a single-user backend is one process: the sanitizer sees every kernel
		su postgres -s /bin/bash -c "PATH=$PATH LD_LIBRARY_PATH=${LD_LIBRARY_PATH:-} \
			compute-sanitizer --tool $tool --error-exitcode 99 --print-limit 20 \
			postgres --single -D $sdata/data -c gpuagg.device=cuda -c gpuagg.page_batches=$pb postgres" \
			<test/gpu/sanitize.sql >"$sdata/$tool-$pb.log" 2>&1 &
		wait $!
		status=$?
		grep -E "=========|ERROR|WARNING|Page Batches|Pages" "$sdata/$tool-$pb.log" | grep -v "^\s*$" | head -40
		[ "$pb" = on ] && ! grep -q "Page Batches" "$sdata/$tool-$pb.log" && status=98
		result $status "compute-sanitizer --tool $tool, page_batches $pb (exit $status)"
	done
else
	result 1 "compute-sanitizer not found"
fi

echo
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
