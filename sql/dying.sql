--
-- dying: the ledger and the admission queue when the processes in them
-- die.  A queue entry or a reservation belongs to a live process and goes
-- with it, whatever way it ends: an ERROR (cancel, statement_timeout), a
-- FATAL (pg_terminate_backend; a parallel worker ended by its leader's
-- error), or a death without its exit callback (the next process to look
-- drops the slot).  Exercised through gpuagg.device = cuda, whose first step
-- is the ledger, with or without a GPU.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;
ALTER SYSTEM SET gpuagg.device_memory_limit = '300MB';
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
SHOW gpuagg.device_memory_limit;
SELECT format('dbname=%s port=%s host=%s', current_database(), current_setting('port'),
			  split_part(current_setting('unix_socket_directories'), ',', 1)) AS conn \gset
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- h holds 295 of the 300 MB, so every query below waits in the queue
SELECT dblink_connect('h', :'conn');
SELECT dblink_exec('h', 'BEGIN');
SELECT r FROM dblink('h', 'SELECT gpuagg.debug_reserve(295)') AS t(r text);
SELECT reserved_mb, running, queued FROM gpuagg.ledger();

-- 1. A queued backend terminated (FATAL while waiting): it leaves the queue
SELECT dblink_connect('w', :'conn');
SELECT pid AS w_pid FROM dblink('w', 'SELECT pg_backend_pid()') AS t(pid int) \gset
SELECT dblink_exec('w', 'SET gpuagg.admission_timeout = ''60s''');
SELECT dblink_send_query('w', 'SELECT gpuagg.debug_reserve(100)');
SELECT wait_queued(1);
SELECT pg_terminate_backend(:w_pid, 10000);
SELECT wait_queued(0);
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
SELECT dblink_disconnect('w');

-- 2. A parallel GpuAgg of an ordinary role whose processes wait in the
-- queue, ended by statement_timeout, 200 times: the leader leaves the queue
-- by its ERROR, the workers by the FATAL their leader's abort sends them
CREATE TABLE dying (k int4, i8 int8, f float8);
INSERT INTO dying SELECT i % 100, i, i / 3.0 FROM generate_series(1, 60000) i;
ANALYZE dying;
CREATE ROLE dying_user;
GRANT SELECT ON dying TO dying_user;
SELECT dblink_connect('p', :'conn');
SELECT dblink_exec('p', $$
	SET ROLE dying_user;
	SET gpuagg.device = cuda;
	SET gpuagg.force_offload = on;
	SET gpuagg.vram_budget = '4GB';
	SET parallel_setup_cost = 0;
	SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0;
	SET max_parallel_workers_per_gather = 2;
	SET gpuagg.tuple_cost = 10;
	SET gpuagg.fed_groups = 100000;
	SET client_min_messages = error$$);
-- planned in parallel, on the GPU device
SELECT bool_or(l LIKE '%Parallel Custom Scan (GpuAgg)%') AS parallel_gpuagg,
	   bool_or(l LIKE '%Device: cuda%') AS cuda
  FROM dblink('p', 'EXPLAIN (COSTS OFF, VERBOSE) SELECT k, count(*), sum(i8), avg(f) FROM dying GROUP BY k')
	   AS t(l text);
SELECT dblink_exec('p', 'SET statement_timeout = ''100ms''');
SELECT timeouts AS timeouts_before, admitted AS admitted_before, waited AS waited_before
  FROM gpuagg.ledger() \gset
DO $$
DECLARE
	cancelled int := 0;
	left_behind int := 0;
BEGIN
	FOR i IN 1..200 LOOP
		BEGIN
			PERFORM dblink_exec('p', 'SELECT k, count(*), sum(i8), avg(f) FROM dying GROUP BY k');
		EXCEPTION WHEN query_canceled THEN
			cancelled := cancelled + 1;
		END;
		-- the leader waited for its workers to exit: nothing of them is left
		IF (SELECT queued <> 0 OR reserved_mb <> 295 OR running <> 1 FROM gpuagg.ledger()) THEN
			left_behind := left_behind + 1;
		END IF;
	END LOOP;
	RAISE NOTICE 'cancelled % of 200, left something behind % times', cancelled, left_behind;
END $$;
-- more processes than queries queued: workers were in the queue when ended
SELECT reserved_mb, running, queued, timeouts = :timeouts_before AS no_admission_timeouts,
	   waited - :waited_before > 200 AS workers_queued
  FROM gpuagg.ledger();

-- h's transaction ends: nothing is held, and the next GPU query is admitted
-- at once (then it runs on the GPU, or without one on the CPU device), with
-- the native answer
SELECT dblink_exec('h', 'COMMIT');
SELECT reserved_mb, running, queued FROM gpuagg.ledger();
SELECT dblink_exec('p', 'SET statement_timeout = 0');
SELECT count(*) AS groups, sum(c) AS rows, sum(s) AS total
  FROM dblink('p', 'SELECT k, count(*), sum(i8) FROM dying GROUP BY k') AS t(k int, c bigint, s numeric);
SELECT count(*) AS groups, sum(c) AS rows, sum(s) AS total
  FROM (SELECT k, count(*) AS c, sum(i8) AS s FROM dying GROUP BY k) n;
SELECT admitted > :admitted_before AS admitted, timeouts = :timeouts_before AS no_admission_timeouts,
	   reserved_mb, running, queued
  FROM gpuagg.ledger();
-- the statistics stay sane
SELECT queries_cuda >= 0 AND queries_cpu >= 0 AND fallbacks_admission >= 0
	   AND admission_wait_ms >= 0 AND stats_reset <= now() AS stat_sane
  FROM gpuagg.stat;

SELECT dblink_disconnect('h'), dblink_disconnect('p');
ALTER SYSTEM RESET gpuagg.device_memory_limit;
SELECT pg_reload_conf();
SELECT pg_sleep(0.3);
DROP TABLE dying;
DROP ROLE dying_user;
