--
-- having: HAVING and any target-list expression over keys and aggregates
--
SET gpuagg.force_offload = on;

CREATE TABLE hv (k int4, g int4, v int4, f float8);
INSERT INTO hv SELECT i % 10, i % 3, i, i / 3.0 FROM generate_series(1, 3000) i;
ANALYZE hv;

SELECT k, sum(v) / count(*) AS mean, count(*) + 10 AS c10, 'x' AS const, k * 2 AS k2
  FROM hv GROUP BY k HAVING count(*) > 5 AND sum(v) > 450000 ORDER BY k;
SELECT check_offload('SELECT k, sum(v) / count(*) AS mean, count(*) + 10 AS c10, ''x'' AS const, k * 2 AS k2 FROM hv GROUP BY k HAVING count(*) > 5 AND sum(v) > 450000');
-- HAVING on an aggregate not in the target list
SELECT k FROM hv GROUP BY k HAVING max(v) < 2995 ORDER BY k;
SELECT check_offload('SELECT k FROM hv GROUP BY k HAVING max(v) < 2995');
-- HAVING on a key, and on functions PostgreSQL evaluates above the node
SELECT check_offload('SELECT k, g, count(*) FROM hv GROUP BY k, g HAVING k > 5 AND g <> 1');
SELECT check_offload('SELECT k, round(avg(f)::numeric, 3), abs(min(v) - max(v)), coalesce(sum(v), 0) FROM hv GROUP BY k HAVING round(stddev(v)) > 0');
-- the same aggregate twice is computed once; keys not in the output
SELECT check_offload('SELECT sum(v), sum(v) + 1, count(*) FROM hv GROUP BY k, g');
-- ORDER BY, LIMIT, DISTINCT and window functions above the node
SELECT k, sum(v) FROM hv GROUP BY k ORDER BY sum(v) DESC LIMIT 3;
SELECT check_offload('SELECT DISTINCT count(*) FROM hv GROUP BY k');
SELECT k, sum(v), rank() OVER (ORDER BY sum(v) DESC) FROM hv GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, sum(v), rank() OVER (ORDER BY sum(v) DESC) FROM hv GROUP BY k');
-- a subquery and a CTE around the aggregation
SELECT check_offload('SELECT * FROM (SELECT g, count(*) AS c FROM hv GROUP BY g) s WHERE c > 0');
SELECT check_offload('WITH agg AS (SELECT k, sum(v) AS s FROM hv GROUP BY k) SELECT max(s) - min(s) FROM agg');
-- GROUP BY with a constant and with an ordinal
SELECT check_offload('SELECT 1 AS one, k, count(*) FROM hv GROUP BY 1, 2');

DROP TABLE hv;
