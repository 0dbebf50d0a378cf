/* gpuagg--0.1--0.2.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuagg UPDATE TO '0.2'" to load this file. \quit

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
