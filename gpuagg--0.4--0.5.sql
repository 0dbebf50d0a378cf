/* gpuagg--0.4--0.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuagg UPDATE TO '0.5'" to load this file. \quit

-- The library of 0.5 runs CUDA in a process of the GPU service's own
-- (its death costs no session), so gpuagg.service() shows that process.
-- Also in 0.5, without SQL changes: the ledger keeps a slot per process (a
-- queue entry or reservation never outlives its process);
-- gpuagg.vram_budget's auto value is -1; gpuagg.admission_timeout is for
-- superusers.  The install script refuses a schema "gpuagg" that another
-- role owns or that holds objects already.
DROP FUNCTION gpuagg.service();
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

-- gpuagg.stat gains exact_runs (runs of the exact path: numerics the device
-- cannot hold) and column_reruns (page-form scans read again in column
-- form: a compressed or TOASTed string).
DROP VIEW gpuagg.stat;
DROP FUNCTION gpuagg.stat();
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

GRANT SELECT ON gpuagg.stat TO PUBLIC;
