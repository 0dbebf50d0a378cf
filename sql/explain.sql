--
-- explain: what GpuAgg shows, in text and JSON, with and without ANALYZE
--
SET gpuagg.force_offload = on;
-- column batches, whatever the server's setting (heap.sql shows page form's)
SET gpuagg.page_batches = off;

CREATE TABLE ex (k int4, g int2, v int4, f float8, d date);
INSERT INTO ex SELECT i % 5, (i % 3)::int2, i, i / 2.0, date '2024-01-01' + i % 9
  FROM generate_series(1, 10000) i;
ANALYZE ex;

EXPLAIN (COSTS OFF)
SELECT k, g, count(*), sum(v) FILTER (WHERE f > 10), avg(f) FROM ex
 WHERE v > 100 AND d <> '2024-01-03' GROUP BY k, g HAVING count(*) > 1 ORDER BY k, g;
EXPLAIN (COSTS OFF, VERBOSE)
SELECT k, sum(v) / count(*), max(d) FROM ex WHERE v BETWEEN 10 AND 20 OR f IN (1.5, 2.5) GROUP BY k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM ex;

-- ANALYZE adds what the run did
SELECT * FROM explain_stable('SELECT k, count(*), sum(v) FROM ex WHERE v > 5000 GROUP BY k', true);
SELECT * FROM explain_stable('SELECT count(*) FROM ex WHERE v < 0', true);

-- FORMAT JSON carries the same fields as JSON values
CREATE FUNCTION explain_json(q text) RETURNS json LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF, ANALYZE, TIMING OFF, SUMMARY OFF) ' || q INTO j;
	RETURN j -> 0 -> 'Plan';
END $$;
SELECT p ->> 'Node Type' AS node, p ->> 'Custom Plan Provider' AS name, p ->> 'Relation Name' AS rel,
       p ->> 'Device' = current_setting('gpuagg.device') AS device, p ->> 'Device Filter' AS filter, p -> 'Device Group Key' AS keys,
       p -> 'Device Aggregates' AS aggs, (p ->> 'Device Memory Estimate')::int > 0 AS vram,
       p ->> 'Batches' AS batches, p ->> 'Rows In' AS rows_in,
       p ->> 'Rows Removed by Device Filter' AS filtered, p ->> 'Groups' AS groups,
       (p ->> 'Bytes To Device')::int > 0 AS bytes, p ->> 'Actual Rows' AS actual_rows
  FROM explain_json('SELECT k, g, sum(v) FROM ex WHERE v > 9000 GROUP BY k, g') p;
DROP FUNCTION explain_json(text);

-- EXPLAIN without ANALYZE runs nothing
SELECT * FROM explain_stable('SELECT k, sum(v / 0) FROM ex GROUP BY k');

DROP TABLE ex;
