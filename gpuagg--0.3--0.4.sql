/* gpuagg--0.3--0.4.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuagg UPDATE TO '0.4'" to load this file. \quit

-- gpuagg.devices() has a row for each GPU the service uses
COMMENT ON FUNCTION gpuagg.devices() IS
'the GPUs the gpuagg service uses, one row each: name, memory, compute capability, driver, memory limit, reservations, running queries and admission queue';

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
