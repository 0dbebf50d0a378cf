--
-- admission: the server-wide ledger of GPU memory (gpuagg.ledger) and what
-- a query does when its estimate cannot fit gpuagg.device_memory_limit
--
SET gpuagg.force_offload = on;
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
SELECT * FROM admission_plan('SELECT k, count(*) FROM adm GROUP BY k');
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
