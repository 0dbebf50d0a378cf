--
-- params: $n under generic plans, evaluated once per execution
--
SET gpuagg.force_offload = on;

CREATE TABLE pa (k int4, v int4, x int8, f float8, d date, b bool);
INSERT INTO pa SELECT i % 6, i, i * 10, i / 8.0, date '2024-03-01' + i % 40, i % 2 = 0
  FROM generate_series(1, 3000) i;
ANALYZE pa;

SET plan_cache_mode = force_generic_plan;
PREPARE q1(int4, float8, date) AS
	SELECT k, count(*), sum(v), avg(f) FROM pa WHERE v > $1 AND f < $2 AND d >= $3 GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE q1(100, 200.0, '2024-03-10');
EXECUTE q1(100, 200.0, '2024-03-10');
EXECUTE q1(2900, 1e9, '2024-01-01');
EXECUTE q1(NULL, 1, '2024-01-01');
SET gpuagg.enabled = off;
EXECUTE q1(100, 200.0, '2024-03-10');
EXECUTE q1(2900, 1e9, '2024-01-01');
RESET gpuagg.enabled;

-- parameters in keys, arguments, FILTER and IN lists
PREPARE q2(int4, int8, bool) AS
	SELECT k + $1 AS kk, sum(x * $2) FILTER (WHERE b = $3), max(v - $1) FROM pa
	 WHERE k IN (1, 2, $1) GROUP BY k + $1 ORDER BY 1;
EXPLAIN (COSTS OFF) EXECUTE q2(3, 2, true);
EXECUTE q2(3, 2, true);
EXECUTE q2(5, -1, false);
SET gpuagg.enabled = off;
EXECUTE q2(3, 2, true);
EXECUTE q2(5, -1, false);
RESET gpuagg.enabled;

-- a parameter that makes the argument overflow raises the native error
PREPARE q3(int4) AS SELECT sum(v * $1) FROM pa;
EXECUTE q3(1000);
EXECUTE q3(1000000);

DEALLOCATE ALL;
RESET plan_cache_mode;
DROP TABLE pa;
