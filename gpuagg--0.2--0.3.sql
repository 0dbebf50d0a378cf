/* gpuagg--0.2--0.3.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuagg UPDATE TO '0.3'" to load this file. \quit

-- gpuagg.devices() now reads what the GPU service keeps in shared memory
COMMENT ON FUNCTION gpuagg.devices() IS
'the GPU the gpuagg service uses: name, memory, compute capability, driver, memory limit, reservations, running queries and admission queue';

-- The GPU service, the background worker that owns the GPU: its process
-- (NULL when not running), state (starting, ready, no_gpu, recovering,
-- stopped) and why, since when, how often it started since the server did,
-- how often a CUDA error made it start anew (a new context), and the queries
-- it serves now.
CREATE FUNCTION gpuagg.service(
	OUT pid int,
	OUT state text,
	OUT detail text,
	OUT started timestamptz,
	OUT starts bigint,
	OUT context_resets bigint,
	OUT sessions int)
RETURNS record
AS 'MODULE_PATHNAME', 'gpuagg_service'
LANGUAGE C STRICT VOLATILE PARALLEL RESTRICTED;

COMMENT ON FUNCTION gpuagg.service() IS
'the gpuagg GPU service: process, state, starts, CUDA context resets, queries served';

-- gpuagg.stat gains fallbacks_service: runs moved to the CPU device because
-- the GPU service was not there
DROP VIEW gpuagg.stat;
DROP FUNCTION gpuagg.stat();
CREATE FUNCTION gpuagg.stat(
	OUT queries_cuda bigint,
	OUT queries_cpu bigint,
	OUT fallbacks_device bigint,
	OUT fallbacks_admission bigint,
	OUT fallbacks_service bigint,
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
