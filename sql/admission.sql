--
-- admission: the server-wide ledger of GPU memory (gpuagg.ledger), what a
-- query does when its estimate cannot fit gpuagg.device_memory_limit, and
-- the server-wide statistics (gpuagg.stat)
--
SET gpuagg.force_offload = on;
SELECT gpuagg.stat_reset();
CREATE TABLE adm AS SELECT i % 10 AS k, i AS v FROM generate_series(1, 20000) i;
ANALYZE adm;

-- at rest nothing is reserved or queued
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- EXPLAIN ANALYZE's word on device fallback and the admission wait
CREATE FUNCTION admission_plan(q text) RETURNS TABLE (fallback text, waited bool)
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, SUMMARY OFF) ' || q INTO plan;
	fallback := regexp_replace(plan->0->'Plan'->>'Device Fallback', '\(\d+ MB\)', '(N MB)');
	waited := (plan->0->'Plan'->>'Admission Wait')::float8 > 0;
	RETURN NEXT;
END $$;

-- a query whose estimate is larger than the limit never waits: it runs on
-- the CPU device at once, with the reason, and its answer is the native one
ALTER SYSTEM SET gpuagg.device_memory_limit = '1MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW gpuagg.device_memory_limit;
SELECT refused AS refused_before FROM gpuagg.ledger() \gset
SET gpuagg.device = cuda;
SET client_min_messages = error;	-- the fallback's WARNING
SELECT * FROM admission_plan('SELECT k, count(*), sum(v) FROM adm GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(v) FROM adm GROUP BY k');
RESET client_min_messages;
SELECT refused - :refused_before AS refused, reserved_mb, running, queued
  FROM gpuagg.ledger();
RESET gpuagg.device;
ALTER SYSTEM RESET gpuagg.device_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW gpuagg.device_memory_limit;

-- the CPU device reserves nothing
SET gpuagg.device = cpu;
SELECT * FROM admission_plan('SELECT k, count(*) FROM adm GROUP BY k');
RESET gpuagg.device;
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- gpuagg.stat: the queries above, by the device that answered, and the
-- refusals that sent them to the CPU device
SELECT queries_cuda, queries_cpu, fallbacks_device, fallbacks_admission,
	   rows_in > 0 AS rows_counted, scan_ms >= 0 AS timed, stats_reset <= now() AS reset_before
  FROM gpuagg.stat;
SELECT gpuagg.stat_reset();
SELECT queries_cuda + queries_cpu + fallbacks_device + fallbacks_admission + rows_in AS all_zero
  FROM gpuagg.stat;
-- anyone may look; resetting is kept from PUBLIC
CREATE ROLE adm_user;
SET ROLE adm_user;
SELECT count(*) FROM gpuagg.stat;
SELECT reserved_mb FROM gpuagg.ledger();
SELECT gpuagg.stat_reset();
RESET ROLE;
DROP ROLE adm_user;
