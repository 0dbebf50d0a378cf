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
