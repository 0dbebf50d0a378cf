--
-- rescan: LATERAL re-execution, cursors, cancel, and nothing left behind
--
SET gpuagg.force_offload = on;

CREATE TABLE rs (k int4, v int4);
INSERT INTO rs SELECT i % 10, i FROM generate_series(1, 5000) i;
ANALYZE rs;

-- an outer reference changes per outer row: each rescan recomputes
SELECT o.x, s.* FROM generate_series(1, 4) o(x),
	LATERAL (SELECT count(*), sum(v) FROM rs WHERE k = o.x) s ORDER BY o.x;
SELECT check_offload('SELECT o.x, s.* FROM generate_series(1, 4) o(x), LATERAL (SELECT count(*), sum(v), max(v) FROM rs WHERE k = o.x AND v > o.x * 100) s');
SELECT check_offload('SELECT o.x, s.* FROM generate_series(1, 3) o(x), LATERAL (SELECT k, sum(v + o.x) FILTER (WHERE v % o.x = 0) FROM rs GROUP BY k HAVING k < o.x) s');
-- no parameter changes: a rescan rewinds the groups
SELECT check_offload('SELECT o.x, s.* FROM generate_series(1, 3) o(x), LATERAL (SELECT k, count(*) FROM rs GROUP BY k) s');
-- a correlated scalar subquery
SELECT check_offload('SELECT x, (SELECT sum(v) FROM rs WHERE k = x) FROM generate_series(0, 11) x');

-- two GpuAgg nodes in one query, and one rescanned inside another's output
SELECT check_offload('SELECT * FROM (SELECT k, sum(v) AS s FROM rs GROUP BY k) a JOIN (SELECT k, max(v), avg(v) FROM rs WHERE v > 10 GROUP BY k) b USING (k)');
SELECT check_offload('SELECT a.k, a.c, (SELECT sum(v) FROM rs r2 WHERE r2.k = a.k AND r2.v > a.c) FROM (SELECT k, count(*) AS c FROM rs GROUP BY k) a');

-- cursors: forward fetches, and scroll cursors (GpuAgg itself only moves
-- forward; the planner puts a Material node on top for SCROLL)
BEGIN;
DECLARE c CURSOR FOR SELECT k, sum(v) FROM rs GROUP BY k ORDER BY k;
FETCH 3 FROM c;
FETCH 2 FROM c;
CLOSE c;
DECLARE sc SCROLL CURSOR FOR SELECT k, sum(v) FROM rs GROUP BY k HAVING k < 3 ORDER BY k;
FETCH 2 FROM sc;
FETCH BACKWARD 1 FROM sc;
FETCH LAST FROM sc;
CLOSE sc;
COMMIT;
EXPLAIN (COSTS OFF) DECLARE sc SCROLL CURSOR FOR SELECT k, sum(v) FROM rs GROUP BY k;

-- cancel: statement_timeout stops a scan mid-way, within a second (20 ms: the
-- GPU answers these 3M rows in under 100 ms)
CREATE TABLE rs_big (k int4, v int4, f float8);
INSERT INTO rs_big SELECT i % 1000, i, i FROM generate_series(1, 3000000) i;
ANALYZE rs_big;
SELECT clock_timestamp() AS t0 \gset
SET statement_timeout = '20ms';
SELECT k, sum(v), avg(f), variance(v) FROM rs_big GROUP BY k;
RESET statement_timeout;
SELECT clock_timestamp() - :'t0' < interval '1100 ms' AS cancelled_within_1s;

-- an ERROR or cancel mid-query leaves no GpuAgg memory behind
SELECT count(*) AS gpuagg_contexts FROM pg_backend_memory_contexts WHERE name = 'GpuAgg run';
SELECT sum(v / (k - 5)) FROM rs;
SELECT count(*) AS gpuagg_contexts FROM pg_backend_memory_contexts WHERE name = 'GpuAgg run';

DROP TABLE rs, rs_big;
