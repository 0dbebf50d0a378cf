--
-- grouping: GROUPING SETS, ROLLUP and CUBE, and GROUPING(): the device
-- groups by every key of every set, the node combines those groups' states
-- into each set's groups with the aggregates' combine rules
--
SET gpuagg.force_offload = on;

CREATE TABLE gs (a int4, b int4, c text, d date, x int8, f float8, r float4,
				 n numeric(12,2), ok bool);
INSERT INTO gs
SELECT CASE WHEN i % 41 = 0 THEN NULL ELSE i % 3 END,
	   CASE WHEN i % 43 = 0 THEN NULL ELSE i % 5 END,
	   CASE WHEN i % 47 = 0 THEN NULL ELSE 'c' || i % 4 END,
	   date '2024-02-27' + i % 4,
	   i::int8 * 1000003,
	   -- quarters: float sums are exact in any order
	   CASE WHEN i % 17 = 0 THEN NULL ELSE (i % 400) / 4.0 END,
	   (i % 60) / 8.0,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 37 % 10000) / 100.0 - 20 END,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE i % 3 <> 0 END
  FROM generate_series(1, 20000) i;
ANALYZE gs;

-- ROLLUP: every key of every set on the device, the sets on the host
EXPLAIN (COSTS OFF)
SELECT a, b, count(*), sum(x), grouping(a, b) FROM gs GROUP BY ROLLUP (a, b);
SELECT check_offload('SELECT a, b, count(*), count(f), sum(x), avg(x), sum(f), avg(f), min(r), max(f), sum(n), avg(n), min(n), max(n), grouping(a, b) FROM gs GROUP BY ROLLUP (a, b)');
-- CUBE, with text and date keys, min/max of text, bool aggregates
SELECT check_offload('SELECT c, d, count(*), min(c), max(c), bool_and(ok), bool_or(ok), sum(b), grouping(c), grouping(d, c) FROM gs GROUP BY CUBE (c, d)');
-- GROUPING SETS: a set twice, the empty set, a key in no set's output,
-- keys in several forms
SELECT check_offload('SELECT a, b, count(*), sum(r) FROM gs GROUP BY GROUPING SETS ((a), (b), (a), ())');
SELECT check_offload('SELECT a, count(*) FROM gs GROUP BY GROUPING SETS ((a, b), (a))');
SELECT check_offload('SELECT a, b, c, count(*) FROM gs GROUP BY a, ROLLUP (b, c)');
SELECT check_offload('SELECT a + 1 AS a1, d - 1 AS d1, count(*) FROM gs GROUP BY CUBE (a + 1, d - 1)');
SELECT check_offload('SELECT count(*), sum(x) FROM gs GROUP BY GROUPING SETS ((), ())');
-- variance and stddev: the combine of Youngs-Cramer states (rounded: the
-- combine adds in another order than one pass over the rows)
SELECT check_offload('SELECT a, round(stddev(f)::numeric, 8), round(var_pop(r)::numeric, 8), stddev(b), variance(x), stddev(n), round(corr(f, r)::numeric, 8), round(regr_slope(x, f)::numeric, 4), regr_count(f, b) FROM gs GROUP BY ROLLUP (a)');
-- FILTER, WHERE, expressions over the aggregates and keys
SELECT check_offload('SELECT a, b, count(*) FILTER (WHERE ok), sum(x) FILTER (WHERE c = ''c1''), sum(x) / count(*) + a FROM gs WHERE b <> 2 GROUP BY CUBE (a, b)');
-- DISTINCT aggregates, count included, are folded on the host from the
-- device's (group, value) pairs: a value of several of a set's finer
-- groups is taken once
SELECT check_offload('SELECT a, sum(DISTINCT b), avg(DISTINCT f), min(DISTINCT c), sum(DISTINCT n) FROM gs GROUP BY ROLLUP (a)');
SELECT check_offload('SELECT a, b, count(DISTINCT c), count(DISTINCT f), count(DISTINCT n), count(*) FROM gs GROUP BY CUBE (a, b)');
SELECT check_offload('SELECT count(DISTINCT b), count(DISTINCT c) FILTER (WHERE ok) FROM gs GROUP BY GROUPING SETS ((a), ())');

-- GROUPING() in HAVING and ORDER BY; a key NULL in the data and one NULL
-- for its set differ by GROUPING()
EXPLAIN (COSTS OFF)
SELECT a, b, count(*) FROM gs GROUP BY CUBE (a, b) HAVING grouping(a, b) IN (0, 3) ORDER BY grouping(a, b), a, b;
SELECT a, b, count(*), grouping(a, b) FROM gs GROUP BY CUBE (a, b) HAVING grouping(a, b) IN (1, 3) ORDER BY grouping(a, b), a, b;
SELECT check_offload('SELECT a, b, count(*), grouping(a, b) FROM gs GROUP BY CUBE (a, b) HAVING grouping(a, b) IN (0, 3) AND count(*) > 100');
-- grouping sets the planner reduces to one plain GROUP BY keep GROUPING(),
-- which is 0 there (an Agg node's expression: the node computes it)
EXPLAIN (COSTS OFF)
SELECT a, grouping(a) FROM gs GROUP BY GROUPING SETS (a) HAVING grouping(a) >= 0;
SELECT a, grouping(a), count(*) FROM gs GROUP BY GROUPING SETS (a) HAVING grouping(a) >= 0 ORDER BY a;
SELECT check_offload('SELECT a, grouping(a), count(*) FROM gs GROUP BY GROUPING SETS (a) HAVING grouping(a) >= 0');

-- no rows: only the empty set has a group, as natively
SELECT check_offload('SELECT a, count(*), sum(x), min(c) FROM gs WHERE x < 0 GROUP BY ROLLUP (a)');
SELECT check_offload('SELECT a, count(*) FROM gs WHERE x < 0 GROUP BY GROUPING SETS ((a), (), ())');
SELECT check_offload('SELECT a, count(*) FROM gs WHERE x < 0 GROUP BY GROUPING SETS ((a), (b))');

-- a parameter, and a rescan under changing outer values
PREPARE gsp(int) AS
SELECT a, count(*), sum(x), grouping(a) FROM gs WHERE b < $1 GROUP BY ROLLUP (a) ORDER BY a;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE gsp(3);
EXECUTE gsp(3);
-- (a twin prepared and planned natively: a cached plan outlives the setting)
SET gpuagg.enabled = off;
PREPARE gsn(int) AS
SELECT a, count(*), sum(x), grouping(a) FROM gs WHERE b < $1 GROUP BY ROLLUP (a) ORDER BY a;
SELECT offloaded('EXECUTE gsn(3)');
EXECUTE gsn(3);
RESET gpuagg.enabled;
RESET plan_cache_mode;
SELECT check_offload('SELECT o.v, s.* FROM (VALUES (1), (3)) o(v), LATERAL (SELECT a, count(*) AS n, sum(x) AS sx FROM gs WHERE b = o.v GROUP BY ROLLUP (a)) s');

-- in parallel: workers pin pages for the leader's one device session (a
-- fed plan; each process's partial states would need a Finalize of sets)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SELECT check_parallel('SELECT a, c, count(*), sum(x), min(c), grouping(a, c) FROM gs GROUP BY ROLLUP (a, c)');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuagg.tuple_cost;

-- errors are native's; a numeric the device cannot hold takes the exact
-- path, PostgreSQL's own plan of the grouping sets
SELECT check_error('SELECT a, sum(x / (b - 1)) FROM gs GROUP BY ROLLUP (a)');
SELECT check_error('SELECT a, sum(x * x * x) FROM gs GROUP BY ROLLUP (a)');
CREATE TABLE gsbig (g int4, v numeric(30,2));
INSERT INTO gsbig SELECT i % 3, i * 1.5 FROM generate_series(1, 1000) i;
INSERT INTO gsbig VALUES (1, 123456789012345678901.25);
ANALYZE gsbig;
SELECT check_offload('SELECT g, sum(v), max(v), grouping(g) FROM gsbig GROUP BY ROLLUP (g)');
SELECT line FROM explain_stable('SELECT g, sum(v), max(v), grouping(g) FROM gsbig GROUP BY ROLLUP (g)', true) AS line
 WHERE line ~ 'Exact Path Runs|Grouping Sets';

-- a constant group key: NULL where a set leaves it out, which the node's
-- tuple would not show (setrefs.c matches no Const with it): native,
-- saying so; a constant key without grouping sets offloads
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT 5 AS c, a, count(*) FROM gs GROUP BY ROLLUP (1, a);
SELECT 5 AS c, a, count(*) FROM gs GROUP BY GROUPING SETS ((1), (a)) ORDER BY a, 3;
RESET gpuagg.log_fallback;
SELECT check_offload('SELECT 5 AS c, a, count(*) FROM gs GROUP BY 1, 2');
