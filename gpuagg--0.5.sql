/* gpuagg--0.5.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION gpuagg" to load this file. \quit

-- The schema gpuagg is the extension's own.  CREATE EXTENSION makes it
-- when it is missing; one that was there before is used only if the role
-- installing the extension owns it and it is empty, so that nobody else can
-- have put look-alike objects in it or change it later.
DO $$
DECLARE
	s oid := 'gpuagg'::regnamespace;
	owner name := (SELECT r.rolname FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner
					WHERE n.oid = s);
BEGIN
	IF owner <> current_user THEN
		RAISE EXCEPTION 'schema "gpuagg" already exists and is owned by role "%"', owner
			USING ERRCODE = 'duplicate_schema',
				  DETAIL = 'gpuagg installs into a schema of its own, owned by the role that installs it.',
				  HINT = 'Drop or rename the schema "gpuagg", then run CREATE EXTENSION gpuagg again.';
	END IF;
	IF EXISTS (SELECT FROM pg_class WHERE relnamespace = s)
	   OR EXISTS (SELECT FROM pg_proc WHERE pronamespace = s)
	   OR EXISTS (SELECT FROM pg_type WHERE typnamespace = s)
	   OR EXISTS (SELECT FROM pg_operator WHERE oprnamespace = s)
	   OR EXISTS (SELECT FROM pg_collation WHERE collnamespace = s)
	   OR EXISTS (SELECT FROM pg_conversion WHERE connamespace = s)
	   OR EXISTS (SELECT FROM pg_opfamily WHERE opfnamespace = s)
	   OR EXISTS (SELECT FROM pg_ts_config WHERE cfgnamespace = s)
	   OR EXISTS (SELECT FROM pg_ts_dict WHERE dictnamespace = s)
	   OR EXISTS (SELECT FROM pg_statistic_ext WHERE stxnamespace = s) THEN
		RAISE EXCEPTION 'schema "gpuagg" already exists and is not empty'
			USING ERRCODE = 'duplicate_schema',
				  DETAIL = 'gpuagg installs into a schema of its own.',
				  HINT = 'Drop or rename the schema "gpuagg", then run CREATE EXTENSION gpuagg again.';
	END IF;
END
$$;

-- The version of the loaded shared library, to compare with the catalog's.
CREATE FUNCTION gpuagg.library_version()
RETURNS text
AS 'MODULE_PATHNAME', 'gpuagg_library_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuagg.library_version() IS
'version of the gpuagg shared library that is loaded';

-- The GPUs the GPU service uses, a row each (none without a GPU or the
-- service), and the ledger's limit, reservations and running queries on
-- each, and the server-wide admission queue.  The service keeps these
-- numbers in shared memory: calling it touches no CUDA.
CREATE FUNCTION gpuagg.devices(
	OUT device int,
	OUT name text,
	OUT memory_total_mb bigint,
	OUT memory_free_mb bigint,
	OUT compute_capability text,
	OUT multiprocessors int,
	OUT driver_version text,
	OUT memory_limit_mb bigint,
	OUT memory_reserved_mb bigint,
	OUT queries_running int,
	OUT queue_length int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuagg_devices'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.devices() IS
'the GPUs the gpuagg service uses, one row each: name, memory, compute capability, driver, memory limit, reservations, running queries and admission queue';

-- What this backend's offloaded queries ran on.
CREATE FUNCTION gpuagg.backend_stats(
	OUT queries_cuda bigint,
	OUT queries_cpu bigint,
	OUT device_fallbacks bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuagg_backend_stats'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.backend_stats() IS
'offloaded queries of this backend by the device that answered them, and device failures';

-- The server-wide ledger of GPU memory and the admission queue: the limit
-- (NULL: none known yet), the GPU's memory (NULL: no backend has seen it),
-- what running queries reserve, the queue, and since the server started:
-- reservations granted, waits, timeouts (ran on the CPU device), refusals
-- (larger than the limit), total wait.
CREATE FUNCTION gpuagg.ledger(
	OUT limit_mb bigint,
	OUT device_mb bigint,
	OUT reserved_mb bigint,
	OUT running int,
	OUT queued int,
	OUT admitted bigint,
	OUT waited bigint,
	OUT timeouts bigint,
	OUT refused bigint,
	OUT wait_ms float8)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuagg_ledger'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.ledger() IS
'GPU memory reserved by running offloaded queries, the admission queue, and admission counters';

-- The GPU service, the background worker that supervises the process that
-- runs CUDA: its process (NULL when not running), state (starting, ready,
-- no_gpu, recovering, stopped) and why, since when, how often it started
-- since the server did, how often its CUDA process started again (after a
-- CUDA error left the context unusable, or the process died: each time a
-- new context), the queries it serves now, and its CUDA process (NULL when
-- there is none).
CREATE FUNCTION gpuagg.service(
	OUT pid int,
	OUT state text,
	OUT detail text,
	OUT started timestamptz,
	OUT starts bigint,
	OUT context_resets bigint,
	OUT sessions int,
	OUT cuda_pid int)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuagg_service'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.service() IS
'the gpuagg GPU service: process, state, starts, CUDA contexts made anew, queries served, CUDA process';

-- Server-wide statistics since the last reset, in the manner of
-- pg_stat_statements: offloaded queries by the device that answered, runs
-- moved to the CPU device (the GPU failed; no GPU memory; no GPU service),
-- runs of the exact path (numerics the device cannot hold) and page-form
-- scans read again in column form (a compressed or TOASTed string), rows
-- and bytes
-- sent, and milliseconds queued for GPU memory, building batches, copying
-- to the GPU and computing on the device (summed over processes).
CREATE FUNCTION gpuagg.stat(
	OUT queries_cuda bigint,
	OUT queries_cpu bigint,
	OUT fallbacks_device bigint,
	OUT fallbacks_admission bigint,
	OUT fallbacks_service bigint,
	OUT exact_runs bigint,
	OUT column_reruns bigint,
	OUT rows_in bigint,
	OUT bytes_to_device bigint,
	OUT admission_wait_ms float8,
	OUT scan_ms float8,
	OUT transfer_ms float8,
	OUT device_ms float8,
	OUT stats_reset timestamptz)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuagg_stat'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

CREATE VIEW gpuagg.stat AS SELECT * FROM gpuagg.stat();

COMMENT ON VIEW gpuagg.stat IS
'server-wide gpuagg statistics since the last gpuagg.stat_reset()';

CREATE FUNCTION gpuagg.stat_reset()
RETURNS void
AS 'MODULE_PATHNAME', 'gpuagg_stat_reset'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.stat_reset() IS
'sets gpuagg.stat to zero (superusers, and roles granted EXECUTE)';

REVOKE ALL ON FUNCTION gpuagg.stat_reset() FROM PUBLIC;

-- A test of the ledger without a GPU (superusers): reserve mb MB as an
-- offloaded query does (refused over the limit, else queued for at most
-- gpuagg.admission_timeout, cancellable) and hold it to the end of the
-- transaction; 'admitted', 'timed out' or 'refused'.
CREATE FUNCTION gpuagg.debug_reserve(mb int)
RETURNS text
AS 'MODULE_PATHNAME', 'gpuagg_debug_reserve'
LANGUAGE C STRICT VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuagg.debug_reserve(int) IS
'test only: reserve GPU memory in the ledger until the end of the transaction';

REVOKE ALL ON FUNCTION gpuagg.debug_reserve(int) FROM PUBLIC;

-- A test of the ledger's GPUs without them (superusers): with an array of
-- memory sizes in MB, the ledger counts that many GPUs of those sizes in
-- place of the GPU service's (an empty array puts the service's back);
-- then, or with NULL, the ledger per GPU.
CREATE FUNCTION gpuagg.debug_gpus(
	mb int[] DEFAULT NULL,
	OUT gpu int,
	OUT memory_mb bigint,
	OUT limit_mb bigint,
	OUT reserved_mb bigint,
	OUT running int)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'gpuagg_debug_gpus'
LANGUAGE C VOLATILE PARALLEL UNSAFE;

COMMENT ON FUNCTION gpuagg.debug_gpus(int[]) IS
'test only: make the ledger count GPUs of the given sizes, and show the ledger per GPU';

REVOKE ALL ON FUNCTION gpuagg.debug_gpus(int[]) FROM PUBLIC;

-- Everyone may call the functions above (gpuagg.stat_reset() and the
-- debug functions excepted).
GRANT USAGE ON SCHEMA gpuagg TO PUBLIC;
GRANT SELECT ON gpuagg.stat TO PUBLIC;
