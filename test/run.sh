#!/usr/bin/env bash
# test/run.sh: the gpuagg test command (bash test/run.sh, as root or a user
# who may sudo; .ci/run calls it).
#
# 1. test/install-deps.sh (skipped with GPUAGG_SKIP_DEPS=1, which checks
#    versions only)
# 2. make clean; make WERROR=1; make install   (the build fails on any
#    warning)
# 3. in a throw-away cluster from pg_virtualenv with
#    shared_preload_libraries=gpuagg:
#      a. pg_regress      make installcheck (sql/*.sql against expected/*.out,
#                         and the isolation specs/*.spec)
#                         (with gpuagg.page_batches on, its default: tuples
#                         deformed by the device with cuda/gpuagg_page.h)
#         columns         the tests of types, NULLs, heap shapes, parallel
#                         scans and the differential test again, with
#                         gpuagg.page_batches = off (columns deformed by the
#                         backend)
#      b. pgTAP           pg_prove -d gpuagg_tap test/pgtap/*.sql
#      c. version check   prove test/version.t
#      d. crash           prove test/crash.t: the CUDA process killed three
#                         times under four sessions, none lost
# 4. A summary; its last line is "N passed, N failed" (one count for each
#    suite). The exit status is non-zero if anything failed.
#
# Environment:
#   PG_CONFIG          pg_config to build with (default
#                      /usr/lib/postgresql/15/bin/pg_config)
#   GPUAGG_SKIP_DEPS=1 no apt step (for hosts without apt, such as the GPU host)
#   GPUAGG_REGRESS     run only these pg_regress tests, e.g. "setup types"
#                      (default: the REGRESS list in the Makefile)
#
# Run it as root. PostgreSQL will not run as root, so pg_virtualenv starts the
# cluster as user postgres, on a free port, in a temporary directory (-t). It
# does not touch other clusters, such as "15 main" on port 5432.
set -euo pipefail

# apt-get, make install and the cluster's user need root: as another user,
# ask sudo once for the whole run
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null ||
		{ echo "test/run.sh: needs root (apt-get, make install); run it as root" >&2; exit 1; }
	exec sudo --preserve-env=PG_CONFIG,GPUAGG_SKIP_DEPS,GPUAGG_REGRESS,CI bash "$0" "$@"
fi

cd "$(dirname "$0")/.."
REPO=$(pwd)
export PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
SUITES=(pg_regress columns pgTAP version crash)

# ---------------------------------------------------------------------------
# Part 2: inside the pg_virtualenv cluster (called as "test/run.sh --inside
# STATUS_FILE"). Writes "suite PASS|FAIL|SKIP [note]" lines to STATUS_FILE.
# ---------------------------------------------------------------------------
inside() {
	local status_file=$1 failed=0 log
	log=$(pg_lsclusters -h 2>/dev/null | awk -v port="$PGPORT" '$3 == port { print $7 }')
	record() { echo "$*" >>"$status_file"; }
	header() { printf '\n==== %s ====\n' "$*"; }

	echo "pg_virtualenv: cluster at $PGHOST:$PGPORT as $PGUSER"
	psql -XAtc "SELECT 'server: ' || version()"
	psql -XAtc "SELECT 'shared_preload_libraries = ' || current_setting('shared_preload_libraries')"

	# a. pg_regress
	header "pg_regress (make installcheck)"
	# the whole list: make installcheck's, and the tests for this cluster only
	local regress_args=("REGRESS=$(make -s --no-print-directory PG_CONFIG="$PG_CONFIG" print-regress)")
	if [ -n "${GPUAGG_REGRESS:-}" ]; then
		regress_args=("REGRESS=$GPUAGG_REGRESS")
		echo "only these tests (GPUAGG_REGRESS): $GPUAGG_REGRESS"
	fi
	rm -f regression.diffs regression.out output_iso/regression.diffs
	if make --no-print-directory installcheck PG_CONFIG="$PG_CONFIG" "${regress_args[@]}"; then
		record "pg_regress PASS"
	else
		failed=1
		# pg_regress's diffs, and pg_isolation_regress's (specs/)
		shown=0
		for diffs in regression.diffs output_iso/regression.diffs; do
			if [ -s "$diffs" ]; then
				header "$diffs"
				cat "$diffs"
				header "end of $diffs"
				shown=1
			fi
		done
		[ $shown = 1 ] ||
			echo "(no regression.diffs: pg_regress stopped before comparing; see its messages above)"
		record "pg_regress FAIL"
	fi

	header "pg_regress with column batches (gpuagg.page_batches = off)"
	if [ -n "${GPUAGG_REGRESS:-}" ]; then
		record "columns SKIP (GPUAGG_REGRESS)"
	elif PGOPTIONS="-c gpuagg.page_batches=off" make --no-print-directory installcheck \
		PG_CONFIG="$PG_CONFIG" ISOLATION= \
		REGRESS="setup types nulls filters having errors params rescan heap strings numeric parallel differential"; then
		record "columns PASS"
	else
		failed=1
		[ -s regression.diffs ] && cat regression.diffs
		record "columns FAIL"
	fi

	# b. pgTAP. The database is also what test/version.t asks for
	# gpuagg.library_version(), so it is made even when there are no tests.
	header "pgTAP (pg_prove)"
	local tap_ok=1
	psql -XqAt -v ON_ERROR_STOP=1 -d postgres -c 'SET client_min_messages = warning' \
		-c 'DROP DATABASE IF EXISTS gpuagg_tap' -c 'CREATE DATABASE gpuagg_tap' &&
		psql -XqAt -v ON_ERROR_STOP=1 -d gpuagg_tap \
			-c 'CREATE EXTENSION pgtap' -c 'CREATE EXTENSION gpuagg' ||
		tap_ok=0
	local tap_files=()
	shopt -s nullglob
	tap_files=(test/pgtap/*.sql)
	shopt -u nullglob
	if [ "$tap_ok" = 0 ]; then
		echo "could not create database gpuagg_tap with extensions pgtap and gpuagg"
		failed=1
		record "pgTAP FAIL (database gpuagg_tap could not be set up)"
	elif [ "${#tap_files[@]}" -eq 0 ]; then
		echo "no test/pgtap/*.sql files yet: skipping pgTAP"
		record "pgTAP SKIP (no test/pgtap/*.sql files yet)"
	elif pg_prove --failures --nocolor -d gpuagg_tap "${tap_files[@]}"; then
		record "pgTAP PASS"
	else
		failed=1
		record "pgTAP FAIL"
	fi

	# c. version check
	header "version check (prove test/version.t)"
	if GPUAGG_REQUIRE_SERVER=1 prove --nocolor -v test/version.t; then
		record "version PASS"
	else
		failed=1
		record "version FAIL"
	fi

	# d. the CUDA process killed under four sessions
	header "crash (prove test/crash.t)"
	if GPUAGG_SERVER_LOG="$log" prove --nocolor -v test/crash.t; then
		record "crash PASS"
	else
		failed=1
		record "crash FAIL"
	fi

	if [ "$failed" = 1 ]; then
		if [ -n "$log" ] && [ -r "$log" ]; then
			header "last 40 lines of the server log ($log)"
			tail -n 40 "$log"
		fi
	fi
	# The outcome goes through STATUS_FILE; exit 0 so that pg_virtualenv does
	# not add its own dump of the logs.
	return 0
}

if [ "${1:-}" = "--inside" ]; then
	inside "$2"
	exit 0
fi

# ---------------------------------------------------------------------------
# Part 1: dependencies, build, then the suites inside pg_virtualenv.
# ---------------------------------------------------------------------------
start=$SECONDS
banner() { printf '\n######## %s\n' "$*"; }

banner "dependencies"
deps_args=()
if [ "${GPUAGG_SKIP_DEPS:-0}" = 1 ]; then
	echo "GPUAGG_SKIP_DEPS=1: not installing packages, checking versions only"
	deps_args=(--verify-only)
fi
if ! bash test/install-deps.sh "${deps_args[@]}"; then
	echo "run.sh: test/install-deps.sh FAILED" >&2
	echo "0 passed, ${#SUITES[@]} failed"
	exit 1
fi

banner "build ($PG_CONFIG)"
make --no-print-directory clean PG_CONFIG="$PG_CONFIG" >/dev/null
if ! make --no-print-directory PG_CONFIG="$PG_CONFIG" WERROR=1; then
	echo "run.sh: BUILD FAILED" >&2
	echo "0 passed, ${#SUITES[@]} failed"
	exit 1
fi
if ! make --no-print-directory install PG_CONFIG="$PG_CONFIG"; then
	echo "run.sh: make install FAILED" >&2
	echo "0 passed, ${#SUITES[@]} failed"
	exit 1
fi

# shellcheck source=test/lib.sh
. "$REPO/test/lib.sh"

PG_MAJOR=$("$PG_CONFIG" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/')
status_file=$(mktemp -t gpuagg-test-status.XXXXXX)
trap 'rm -f "$status_file"' EXIT

banner "tests (pg_virtualenv -t -v $PG_MAJOR -o shared_preload_libraries=gpuagg)"
venv_rc=0
port=$(free_port) || port=""
PGPORT=$port pg_virtualenv -t -v "$PG_MAJOR" -o shared_preload_libraries=gpuagg -- \
	bash "$REPO/test/run.sh" --inside "$status_file" || venv_rc=$?

# ---- summary ----------------------------------------------------------------
banner "summary"
passed=0
failed=0
for suite in "${SUITES[@]}"; do
	line=$(grep -m 1 "^$suite " "$status_file" || true)
	result=$(printf '%s\n' "$line" | awk '{ print $2 }')
	note=$(printf '%s\n' "$line" | cut -s -d ' ' -f 3-)
	case "$result" in
		PASS) passed=$((passed + 1)) ;;
		SKIP) ;;
		FAIL) failed=$((failed + 1)) ;;
		*)
			result=FAIL
			note="(did not run: pg_virtualenv exited with status $venv_rc)"
			failed=$((failed + 1))
			;;
	esac
	printf '  %-11s %-4s %s\n' "$suite" "$result" "$note"
done
if [ "$venv_rc" -ne 0 ]; then
	echo "  note: pg_virtualenv exited with status $venv_rc"
fi
echo "  time: $((SECONDS - start)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
