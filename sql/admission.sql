--
-- admission: the server-wide ledger of GPU memory (gpuagg.ledger), what a
-- query does when its estimate cannot fit gpuagg.device_memory_limit, and
-- the server-wide statistics (gpuagg.stat)
--
SET gpuagg.force_offload = on;
-- a budget of its own: the ledger's limits below decide, not the planner
-- (0, auto, would follow them; tested at the end)
SET gpuagg.vram_budget = '8GB';
SELECT gpuagg.stat_reset();
CREATE TABLE adm AS SELECT i % 10 AS k, i AS v FROM generate_series(1, 20000) i;
ANALYZE adm;

-- at rest nothing is reserved or queued
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- EXPLAIN ANALYZE's word on device fallback and the admission wait
CREATE FUNCTION admission_plan(q text) RETURNS TABLE (fallback text, waited bool)
LANGUAGE sql AS $$
	SELECT regexp_replace(p->>'Device Fallback', '\(\d+ MB\)', '(N MB)'),
		   (p->>'Admission Wait')::float8 > 0
	  FROM analyzed_plan(q) p
$$;

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
-- in parallel every process is refused, and the query says so once: the
-- leader's WARNING (the workers' go to DEBUG1)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SET gpuagg.fed_groups = 100000;
SELECT plan_text('SELECT k, count(*) FROM adm GROUP BY k') LIKE '%"Parallel Aware": true%'
	AS parallel_gpuagg;
\set VERBOSITY terse
SELECT k, count(*) FROM adm GROUP BY k ORDER BY k LIMIT 2;
\set VERBOSITY default
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuagg.tuple_cost;
RESET gpuagg.fed_groups;
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

-- an open cursor holds no GPU memory once its groups are on the host: the
-- device session and its reservation go before the first row is returned
-- (on a GPU host; without a GPU the query runs on the CPU device)
SET gpuagg.device = cuda;
SET gpuagg.parallel = off;
SET client_min_messages = error;
BEGIN;
DECLARE held CURSOR FOR SELECT k, count(*), sum(v) FROM adm GROUP BY k ORDER BY k;
FETCH 2 FROM held;
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
FETCH ALL FROM held;
COMMIT;
RESET client_min_messages;
RESET gpuagg.parallel;
RESET gpuagg.device;

-- Queueing, timeout and cancel without a GPU: gpuagg.debug_reserve() takes
-- a reservation as an offloaded query does and holds it to the end of its
-- transaction; other sessions (dblink) wait in the FIFO queue.
CREATE EXTENSION IF NOT EXISTS dblink;
ALTER SYSTEM SET gpuagg.device_memory_limit = '100MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT format('dbname=%s port=%s host=%s', current_database(), current_setting('port'),
			  split_part(current_setting('unix_socket_directories'), ',', 1)) AS conn \gset
SELECT dblink_connect('a', :'conn'), dblink_connect('b', :'conn'), dblink_connect('c', :'conn');
-- a holds 60 of the 100 MB
SELECT dblink_exec('a', 'BEGIN');
SELECT r FROM dblink('a', 'SELECT gpuagg.debug_reserve(60)') AS t(r text);
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
-- b's 60 do not fit: b waits in the queue
SELECT dblink_exec('b', 'SET gpuagg.admission_timeout = ''60s''');
SELECT dblink_send_query('b', 'SELECT gpuagg.debug_reserve(60)');
SELECT wait_queued(1);
-- 10 MB fit, and b has waited less than a second: this session goes ahead
-- of it (and gives the 10 MB back at the end of its statement)
SELECT gpuagg.debug_reserve(10);
-- once b has waited a second it is served first: 10 MB wait behind it,
-- here until this session's gpuagg.admission_timeout (then a query runs on
-- the CPU device)
SELECT pg_sleep(1.1);
SET gpuagg.admission_timeout = '200ms';
SELECT gpuagg.debug_reserve(10);
RESET gpuagg.admission_timeout;
-- over the limit on its own: refused at once
SELECT gpuagg.debug_reserve(101);
-- c queues behind b and is cancelled while queued: it leaves the queue
SELECT dblink_exec('c', 'SET gpuagg.admission_timeout = ''60s''');
SELECT dblink_send_query('c', 'SELECT gpuagg.debug_reserve(10)');
SELECT wait_queued(2);
SELECT dblink_cancel_query('c');
SELECT dblink_get_result('c', false);
SELECT wait_queued(1);
-- a's transaction ends: its 60 MB go back, and b, first in line, gets its own
SELECT dblink_exec('a', 'COMMIT');
SELECT r FROM dblink_get_result('b') AS t(r text);
SELECT wait_queued(0);
-- b's statement was its whole transaction: nothing is held any more
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
SELECT dblink_disconnect('a'), dblink_disconnect('b'), dblink_disconnect('c');

-- a reservation taken in a subtransaction goes back when it rolls back,
-- and passes to the parent when it is released
BEGIN;
SELECT gpuagg.debug_reserve(30);
SAVEPOINT s1;
SELECT gpuagg.debug_reserve(20);
SELECT reserved_mb, running FROM gpuagg.ledger();
ROLLBACK TO SAVEPOINT s1;
SELECT reserved_mb, running FROM gpuagg.ledger();
SAVEPOINT s2;
SELECT gpuagg.debug_reserve(5);
RELEASE SAVEPOINT s2;
SAVEPOINT s3;
SELECT reserved_mb, running FROM gpuagg.ledger();
ROLLBACK TO SAVEPOINT s3;
SELECT reserved_mb, running FROM gpuagg.ledger();
COMMIT;
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- Several GPUs (two counted by the ledger in place of this host's, test
-- only): each reservation goes to the GPU with the most room left under its
-- own 100 MB limit, so the second lands on the other GPU; one that fits
-- neither GPU's room waits, though the two together have room for it.
SELECT gpu, memory_mb, limit_mb, reserved_mb, running FROM gpuagg.debug_gpus('{1000,2000}');
BEGIN;
SELECT gpuagg.debug_reserve(60) AS first, gpuagg.debug_reserve(50) AS second;
SELECT gpu, reserved_mb, running FROM gpuagg.debug_gpus();
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
SET LOCAL gpuagg.admission_timeout = '100ms';
SELECT gpuagg.debug_reserve(60) AS fits_neither;
SELECT gpuagg.debug_reserve(45) AS fits_gpu1;
SELECT gpu, reserved_mb FROM gpuagg.debug_gpus();
COMMIT;
SELECT gpu, reserved_mb, running FROM gpuagg.debug_gpus();
-- over 100 MB is refused at once: the limit is per GPU
SELECT gpuagg.debug_reserve(101);
-- without gpuagg.device_memory_limit each GPU's limit is 75 % of its memory
ALTER SYSTEM RESET gpuagg.device_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SELECT gpu, memory_mb, limit_mb FROM gpuagg.debug_gpus();
SELECT limit_mb, device_mb FROM gpuagg.ledger();
-- gpuagg.vram_budget -1 (auto, the default) is what one GPU admits: the
-- largest limit, 6 MB of GPUs of 4 and 8 MB here (8GB where no GPU is known)
RESET gpuagg.vram_budget;
SELECT gpu, limit_mb FROM gpuagg.debug_gpus('{4,8}');
CREATE TABLE vb AS SELECT i AS k, i AS v FROM generate_series(1, 50000) i;
ANALYZE vb;
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM vb GROUP BY k;
SELECT gpu, limit_mb FROM gpuagg.debug_gpus('{40}');
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM vb GROUP BY k;
SET gpuagg.vram_budget = '8GB';
RESET gpuagg.log_fallback;
DROP TABLE vb;
-- an empty array puts the service's GPUs back (none here, one on a GPU host)
SELECT count(*) = (SELECT count(*) FROM gpuagg.devices()) AS service_gpus_back
  FROM gpuagg.debug_gpus('{}');
SELECT gpuagg.debug_gpus('{0}');
SELECT gpuagg.debug_gpus('{{1,2},{3,4}}');
-- test only: not for PUBLIC
SELECT has_function_privilege('public', 'gpuagg.debug_reserve(int)', 'EXECUTE') AS public_may_reserve,
	   has_function_privilege('public', 'gpuagg.debug_gpus(int[])', 'EXECUTE') AS public_may_pretend;
