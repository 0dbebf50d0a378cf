--
-- service: the GPU service is a background worker of its own, shown in
-- pg_stat_activity, restarted by the postmaster when it stops, and a query
-- planned for the GPU falls back to the CPU device (counted) when there is
-- no GPU behind it.  Without a GPU (CI) its state is no_gpu; with one, ready.
--
SELECT pid IS NOT NULL AS running, state IN ('ready', 'no_gpu') AS known_state,
       starts >= 1 AS started, sessions, cuda_pid IS NOT NULL AS cuda_process
  FROM gpuagg.service();
SELECT count(*) AS service_processes,
       bool_and(a.pid = s.pid) AS same_pid
  FROM pg_stat_activity a, gpuagg.service() s
 WHERE a.backend_type = 'gpuagg service';

-- stopped, it comes back (bgw_restart_time 1 s) as a new process
CREATE TEMP TABLE before AS SELECT pid, starts, cuda_pid FROM gpuagg.service();
SELECT pg_terminate_backend(pid) FROM gpuagg.service();
DO $$
BEGIN
	FOR i IN 1..300 LOOP
		EXIT WHEN (SELECT s.pid IS NOT NULL AND s.pid <> b.pid AND s.state <> 'starting'
						  AND s.cuda_pid IS NOT NULL
					 FROM gpuagg.service() s, before b);
		PERFORM pg_sleep(0.1);
	END LOOP;
END
$$;
SELECT s.pid <> b.pid AS new_process, s.starts = b.starts + 1 AS counted,
       s.cuda_pid <> b.cuda_pid AS new_cuda_process,
       s.state IN ('ready', 'no_gpu') AS known_state
  FROM gpuagg.service() s, before b;

-- a query cancel (pg_cancel_backend) is not for the service: it stays
CREATE TEMP TABLE cancelled AS SELECT pid, starts FROM gpuagg.service();
SELECT pg_cancel_backend(pid) FROM gpuagg.service();
SELECT pg_sleep(0.5);
SELECT s.pid = c.pid AS same_process, s.starts = c.starts AS not_restarted
  FROM gpuagg.service() s, cancelled c;

-- a query planned for the GPU: answered by it, or by the CPU device with the
-- service's reason counted in gpuagg.stat
CREATE TABLE svc AS SELECT i % 7 AS k, i AS v FROM generate_series(1, 1000) i;
ANALYZE svc;
CREATE TEMP TABLE stat_before AS SELECT * FROM gpuagg.stat;
SET gpuagg.force_offload = on;
SET gpuagg.device = cuda;
SET client_min_messages = error;
SELECT check_offload('SELECT k, count(*), sum(v) FROM svc GROUP BY k');
RESET client_min_messages;
SELECT CASE (SELECT state FROM gpuagg.service())
         WHEN 'no_gpu' THEN s.fallbacks_service - b.fallbacks_service
         ELSE s.queries_cuda - b.queries_cuda END AS counted_once
  FROM gpuagg.stat s, stat_before b;
RESET gpuagg.device;
RESET gpuagg.force_offload;
DROP TABLE svc;
