--
-- service: the GPU service is a background worker of its own, shown in
-- pg_stat_activity, with its CUDA process, and a query planned for the GPU
-- falls back to the CPU device (counted) when there is no GPU behind it.
-- Without a GPU (CI) its state is no_gpu; with one, ready.  (Its restart
-- is service_restart, which only test/run.sh's own cluster runs.)
--
SELECT pid IS NOT NULL AS running, state IN ('ready', 'no_gpu') AS known_state,
       starts >= 1 AS started, sessions, cuda_pid IS NOT NULL AS cuda_process
  FROM gpuagg.service();
SELECT count(*) AS service_processes,
       bool_and(a.pid = s.pid) AS same_pid
  FROM pg_stat_activity a, gpuagg.service() s
 WHERE a.backend_type = 'gpuagg service';

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
