--
-- service_restart: the GPU service stopped (pg_terminate_backend) comes back
-- (bgw_restart_time 1 s) as a new process, with a new CUDA process.  It
-- stops the server's GPU service, so make installcheck against a server of
-- yours does not run it: test/run.sh's throw-away cluster does.
--
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
