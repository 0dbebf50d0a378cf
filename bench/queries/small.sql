-- Small-table queries: bench/run creates small_t (10,000 rows) itself.
-- With gpuagg loaded and its default settings (engine gpuagg_auto) these
-- must be no slower than natively: the planner should keep the native plan.
-- small_t(id int4, k int4 -- 10 values, g int4 -- 100 values, v int4, f float8, d date)

-- name: s1
-- note: 10 groups, three aggregates
SELECT k, count(*), sum(v), avg(f) FROM small_t GROUP BY k;

-- name: s2
-- note: filtered plain aggregate
SELECT count(*), sum(v) FROM small_t WHERE f > 50;

-- name: s3
-- note: 100 groups, filter, ordered top 10
SELECT g, min(d), max(d), avg(v) FROM small_t WHERE k < 5 GROUP BY g ORDER BY g LIMIT 10;
