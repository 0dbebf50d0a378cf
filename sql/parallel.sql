--
-- parallel: GpuAgg in each parallel worker and the leader, partial states
-- combined by a native Finalize Aggregate; compared with the serial native
-- plan
--
SET gpuagg.force_offload = on;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
-- a dear scan makes splitting it worth it on a small table
SET gpuagg.tuple_cost = 10;
-- partial plans where groups are few on either device (the default feeds
-- every parallel page-form scan on CUDA: tested below)
SET gpuagg.fed_groups = 100000;

CREATE TABLE par (k int4, g int4, i2 int2, i8 int8, f4 float4, f8 float8, b bool, t text, c char(3), d date);
INSERT INTO par
SELECT i % 7, CASE WHEN i % 13 = 0 THEN NULL ELSE i % 101 END, (i % 1000)::int2,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i::int8 * 1000003 END,
	   (i % 77) / 4.0, CASE WHEN i % 17 = 0 THEN NULL ELSE i / 7.0 END,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE i % 3 = 0 END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE 'w' || (i % 23) END,
	   CASE WHEN i % 2 = 0 THEN 'a' ELSE 'ab' END, date '2024-01-01' + i % 500
  FROM generate_series(1, 30000) i;
ANALYZE par;

EXPLAIN (COSTS OFF) SELECT k, count(*), sum(i8), avg(f8) FROM par GROUP BY k;
SELECT check_parallel('SELECT k, count(*), count(g), sum(g), avg(g), sum(i8), avg(i8), min(f4), max(f8), sum(f4), avg(f8), stddev(g), variance(i8), var_pop(f8), bool_and(b), bool_or(b), min(d), max(d) FROM par GROUP BY k');
SELECT check_parallel('SELECT count(*), sum(i2), avg(i2), stddev_samp(i2), sum(i8), avg(i8), var_samp(i8), count(t), max(f4) FROM par');
SELECT check_parallel('SELECT g, t, c, count(*), sum(i2) FROM par WHERE t <> ''w3'' AND f8 > 10 GROUP BY g, t, c');
SELECT check_parallel('SELECT k, sum(g) / nullif(count(*), 0), max(f8) - min(f8) FROM par GROUP BY k HAVING count(*) > 4000 AND avg(i2) > 10');
SELECT check_parallel('SELECT k, count(*) FILTER (WHERE b), sum(i8) FILTER (WHERE t IN (''w1'', ''w2'')) FROM par GROUP BY k');
-- corr and regr_*: each process's six-value states, combined by
-- float8_regr_combine above
SELECT check_parallel('SELECT k, round(corr(f8, g)::numeric, 8), regr_count(f4, i8), round(regr_slope(i2, f8)::numeric, 8) FROM par GROUP BY k');
SELECT check_parallel('SELECT count(*), sum(g) FROM par WHERE k < 0');
SELECT check_parallel('SELECT k, count(*) FROM par WHERE k < 0 GROUP BY k');
-- errors: the same ERROR as the serial native plan
SELECT check_error('SELECT k, sum(i2 * 100::int2) FROM par GROUP BY k');
SELECT check_error('SELECT sum(g / (k - 3)) FROM par');

-- a device that fails in the middle of a parallel scan: each process runs
-- its share again on the CPU device, reading again the blocks it had taken
-- (no other process will) and then going on with the scan; in column and
-- in page form
SET gpuagg.batch_size = '64kB';
SET gpuagg.debug_fail_batch = 2;
SET client_min_messages = error;	-- the fallbacks' WARNINGs
SELECT check_parallel('SELECT k, count(*), sum(i8), min(f8), max(d) FROM par GROUP BY k');
SELECT check_parallel('SELECT count(*), sum(g), count(t) FROM par WHERE f8 > 100');
SET gpuagg.page_batches = on;
SELECT check_parallel('SELECT k, count(*), sum(i8), min(f8), max(d) FROM par GROUP BY k');
RESET gpuagg.page_batches;
-- the fallback is in EXPLAIN ANALYZE; the runs that counted read every
-- row once
SELECT n->>'Device Fallback' AS fallback, (n->>'Rows In')::bigint AS rows_in
  FROM json_array_elements(analyzed_plan('SELECT k, count(*) FROM par GROUP BY k')->'Plans') g,
	   json_array_elements(g->'Plans') n;
-- a table of over 8192 blocks: a parallel scan hands out chunks of several
-- blocks, and the run again goes on inside the chunk where the failed run
-- stopped (without that, some hundred rows went missing)
CREATE TABLE parbig (k int4, v int8) WITH (fillfactor = 10);
INSERT INTO parbig SELECT i % 97, i FROM generate_series(1, 200000) i;
VACUUM ANALYZE parbig;
SELECT pg_relation_size('parbig') / current_setting('block_size')::int > 8192 AS chunked;
SET gpuagg.batch_size = '256kB';
SET gpuagg.debug_fail_batch = 3;
SELECT check_parallel('SELECT k, count(*), sum(v) FROM parbig GROUP BY k');
SET gpuagg.page_batches = on;
SELECT check_parallel('SELECT k, count(*), sum(v) FROM parbig GROUP BY k');
RESET gpuagg.page_batches;
DROP TABLE parbig;
RESET client_min_messages;
RESET gpuagg.debug_fail_batch;
RESET gpuagg.batch_size;

-- Many groups in page form: the workers only pin pages, for the leader's
-- one device session, which holds every group once (no partial states, so
-- count(DISTINCT) too), and the groups come from the leader (HAVING keeps
-- the answers short to compare)
SET gpuagg.page_batches = on;
CREATE TABLE parfeed AS
SELECT (i::int8 * 7919 % 150000)::int4 AS k, 's' || (i % 200000) AS s, i AS v, i / 7.0::float8 AS f
  FROM generate_series(1, 600000) i;
ANALYZE parfeed;
SELECT regexp_replace(line, 'Device Memory Estimate: \d+', 'Device Memory Estimate: N') AS plan
  FROM explain_stable('SELECT k, sum(v), count(*) FROM parfeed GROUP BY k') line;
SELECT check_parallel('SELECT k, sum(v), count(*), max(f) FROM parfeed GROUP BY k HAVING sum(v) % 53 = 0');
SELECT check_parallel('SELECT s, count(*), max(v), count(DISTINCT k) FROM parfeed GROUP BY s HAVING max(v) % 53 = 0');
SELECT check_parallel('SELECT k, min(s COLLATE "C"), count(*) FROM parfeed GROUP BY k HAVING min(v) % 41 = 0');
-- a key the host maps per distinct string (GpuaggRekey): each process
-- maps its own groups' strings, so the plan is partial however many groups;
-- fed where it cannot be (count(DISTINCT)), the leader mapping them all
SELECT line FROM explain_stable('SELECT regexp_replace(s, ''[0-9]$'', '''') AS k, count(*) FROM parfeed GROUP BY 1') line
 WHERE line ~ 'Aggregation|Mapped';
SELECT check_parallel('SELECT regexp_replace(s, ''[0-9]$'', '''') AS k, count(*), sum(v), min(s COLLATE "C") FROM parfeed GROUP BY 1 HAVING sum(v) % 53 = 0');
-- the processes share the values they mapped (values NULL too): a string
-- mapped by one is not mapped again by another, never more often taken
-- from another than it was in the groups of more than one
SELECT check_parallel('SELECT nullif(rtrim(s, ''0123''), ''s4'') AS r, count(*), sum(v) FROM parfeed GROUP BY 1 HAVING sum(v) % 7 = 0');
SELECT (jsonb_path_query_first(p, '$.**."Groups Before Mapping"'))::int -
		coalesce(jsonb_path_query_first(p, '$.**."Strings Mapped by Another Process"')::int, 0)
		>= (SELECT count(DISTINCT s) FROM parfeed) AS each_mapped_at_least_once
  FROM CAST(analyzed_plan('SELECT regexp_replace(s, ''[0-9]$'', '''') AS k, count(*) FROM parfeed GROUP BY 1') AS jsonb) p;
-- a key that costs more to map than to look up is shared (result.c's
-- REKEY_SHARE_US): a regex of four captures, some 5 us a string
SELECT check_parallel('SELECT regexp_replace(s, ''(\d)(\d)?(\d)?(\d)?$'', ''\4\3\2\1'') AS r, count(*), sum(v) FROM parfeed WHERE v % 4 = 0 GROUP BY 1 HAVING sum(v) % 7 = 0');
SELECT (jsonb_path_query_first(p, '$.**."Groups Before Mapping"'))::int -
		coalesce(jsonb_path_query_first(p, '$.**."Strings Mapped by Another Process"')::int, 0)
		>= (SELECT count(DISTINCT s) FROM parfeed WHERE v % 4 = 0) AS each_mapped_at_least_once
  FROM CAST(analyzed_plan('SELECT regexp_replace(s, ''(\d)(\d)?(\d)?(\d)?$'', ''\4\3\2\1'') AS r, count(*) FROM parfeed WHERE v % 4 = 0 GROUP BY 1') AS jsonb) p;
-- past its memory (hash_mem for each process) a value is mapped, not kept
SET work_mem = '64kB';
SELECT check_parallel('SELECT regexp_replace(s, ''[0-9]$'', '''') AS k, count(*), sum(v) FROM parfeed GROUP BY 1 HAVING sum(v) % 53 = 0');
SELECT check_parallel('SELECT regexp_replace(s, ''(\d)(\d)?(\d)?(\d)?$'', ''\4\3\2\1'') AS r, count(*), sum(v) FROM parfeed WHERE v % 4 = 0 GROUP BY 1 HAVING sum(v) % 7 = 0');
-- ... which EXPLAIN ANALYZE counts (Strings Not Shared), with workers
SELECT coalesce(jsonb_path_query_first(p, '$.**."Strings Not Shared"')::int, 0) > 0 OR
	   jsonb_path_query_first(p, '$.**."Workers Launched"')::int = 0 AS unkept_counted
  FROM CAST(analyzed_plan('SELECT regexp_replace(s, ''(\d)(\d)?(\d)?(\d)?$'', ''\4\3\2\1'') AS r, count(*) FROM parfeed WHERE v % 4 = 0 GROUP BY 1') AS jsonb) p;
RESET work_mem;
SELECT line FROM explain_stable('SELECT rtrim(s, ''0123'') AS r, count(DISTINCT k) FROM parfeed GROUP BY 1') line
 WHERE line ~ 'Aggregation|Mapped';
SELECT check_parallel('SELECT rtrim(s, ''0123'') AS r, count(DISTINCT k), max(v) FROM parfeed GROUP BY 1 HAVING max(v) % 53 = 0');
-- the workers pinned every page once, the leader's device had every row
CREATE FUNCTION fed_counts(q text, OUT workers int, OUT every_page_once bool,
						   OUT every_row_once bool, OUT reread int)
LANGUAGE sql AS $$
	SELECT (g->>'Workers Launched')::int,
		   (n->>'Pages')::bigint = pg_relation_size('parfeed') / 8192,
		   (n->>'Rows In')::bigint = (SELECT count(*) FROM parfeed),
		   coalesce((n->>'Scans Read Again in Column Form')::int, 0)
	  FROM analyzed_plan(q) g, json_array_elements(g->'Plans') n
$$;
SELECT * FROM fed_counts('SELECT k, sum(v) FROM parfeed GROUP BY k');
-- a device that fails: the leader reads the whole table again by itself
SET gpuagg.batch_size = '64kB';
SET gpuagg.debug_fail_batch = 3;
SET client_min_messages = error;	-- the fallbacks' WARNINGs
SELECT check_parallel('SELECT k, sum(v), count(*), max(f) FROM parfeed GROUP BY k HAVING sum(v) % 53 = 0');
SELECT check_parallel('SELECT s, count(*), max(v), count(DISTINCT k) FROM parfeed GROUP BY s HAVING max(v) % 53 = 0');
RESET client_min_messages;
RESET gpuagg.debug_fail_batch;
RESET gpuagg.batch_size;
-- no worker launched: the leader scans alone
SET max_parallel_workers = 0;
SELECT check_parallel('SELECT k, sum(v), count(*), max(f) FROM parfeed GROUP BY k HAVING sum(v) % 53 = 0');
RESET max_parallel_workers;
-- a string no device reads (compressed): the leader reads the whole table
-- again in column form
INSERT INTO parfeed SELECT 7, repeat('c', 3000 + i), i, 1 FROM generate_series(1, 5) i;
SELECT check_parallel('SELECT s, count(*), max(v) FROM parfeed GROUP BY s HAVING max(v) % 53 = 0 OR length(s) > 100');
SELECT * FROM fed_counts('SELECT s, count(*) FROM parfeed GROUP BY s');
-- without the leader taking part the plan is partial (or serial)
SET parallel_leader_participation = off;
SELECT check_parallel('SELECT k, sum(v), count(*) FROM parfeed GROUP BY k HAVING sum(v) % 53 = 0') LIKE '%same as native' AS same;
RESET parallel_leader_participation;
-- a fed plan made with the leader taking part, run without it (a cached
-- plan): worker 0 reads the whole table and returns the groups
SET plan_cache_mode = force_generic_plan;
PREPARE fed AS
SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM (SELECT k, sum(v), count(*) FROM parfeed GROUP BY k) r;
SELECT regexp_replace(line, 'Device Memory Estimate: \d+', 'Device Memory Estimate: N') AS plan
  FROM explain_stable('EXECUTE fed') line;
EXECUTE fed \gset with_leader_
SET parallel_leader_participation = off;
EXECUTE fed \gset without_leader_
RESET parallel_leader_participation;
RESET plan_cache_mode;
SET gpuagg.enabled = off;
SELECT md5(string_agg(r::text, ',' ORDER BY r::text)) FROM (SELECT k, sum(v), count(*) FROM parfeed GROUP BY k) r \gset native_
RESET gpuagg.enabled;
SELECT :'with_leader_md5' = :'native_md5' AS with_leader, :'without_leader_md5' = :'native_md5' AS without_leader;
DEALLOCATE fed;
DROP TABLE parfeed;
RESET gpuagg.page_batches;

-- count(DISTINCT) cannot be combined from partial states: serial GpuAgg
-- in column form
SET gpuagg.page_batches = off;
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT g) FROM par GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT g), count(DISTINCT t) FROM par GROUP BY k');
-- in page form it is fed, however few the groups: no partial plan to prefer
SET gpuagg.page_batches = on;
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT g) FROM par GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT g), count(DISTINCT t) FROM par GROUP BY k');
SELECT check_parallel('SELECT count(DISTINCT i8), count(*) FROM par WHERE k <> 3');
-- ordered-set aggregates have no partial states either: fed
SELECT check_parallel('SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY g), mode() WITHIN GROUP (ORDER BY i8 % 7 DESC), count(*) FROM par GROUP BY k');
-- scan constants (current_date) are the same in the workers: still parallel
SELECT check_parallel('SELECT k, count(*), min(d) FROM par WHERE d < current_date GROUP BY k');
-- an InitPlan's value: the Gather computes it first and passes it to its
-- workers (Params Evaluated), partial, fed, and in a one-time filter
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(i8) FROM par WHERE g > (SELECT max(g) / 3 FROM par WHERE k = 3) GROUP BY k;
SELECT check_parallel('SELECT k, count(*), sum(i8), avg(f8) FROM par WHERE g > (SELECT max(g) / 3 FROM par WHERE k = 3) GROUP BY k');
SELECT check_parallel('SELECT k, count(*), sum(i8) FROM par WHERE (SELECT count(*) FROM par WHERE k = 9) = 0 GROUP BY k');
SELECT check_parallel('SELECT k, count(*), sum(i8) FROM par WHERE (SELECT count(*) FROM par WHERE k = 3) = 0 GROUP BY k');
-- a string one, coded into each process's dictionary; a NULL one
SELECT check_parallel('SELECT k, count(*), sum(i8) FROM par WHERE t = (SELECT max(t) FROM par WHERE k = 2) GROUP BY k');
SELECT check_parallel('SELECT k, count(*), sum(i8) FROM par WHERE g > (SELECT max(g) FROM par WHERE k = 99) GROUP BY k');
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT t) FROM par WHERE f8 < (SELECT max(f8) / 2 FROM par) GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT t), count(*) FROM par WHERE f8 < (SELECT max(f8) / 2 FROM par) GROUP BY k');
-- a subquery run again per outer row, its InitPlan's value changed each
-- time: the Gather starts its workers again with the new value
EXPLAIN (COSTS OFF) SELECT o.x, (SELECT count(*) FROM par WHERE g > (SELECT o.x * 10)) FROM (VALUES (1), (9), (NULL)) o(x);
SELECT check_offload('SELECT o.x, (SELECT count(*) FROM par WHERE g > (SELECT o.x * 10)) FROM (VALUES (1), (9), (NULL), (5)) o(x)');
-- an outer query's value itself: no parallel plan, as natively
EXPLAIN (COSTS OFF) SELECT o.x, (SELECT count(*) FROM par WHERE g > o.x) FROM (VALUES (10), (90)) o(x);
SELECT check_offload('SELECT o.x, (SELECT count(*) FROM par WHERE g > o.x) FROM (VALUES (10), (90)) o(x)');
-- a generic plan's $1: each worker has the leader's
SET plan_cache_mode = force_generic_plan;
PREPARE pq(int) AS SELECT k, count(*), sum(i8), max(f8) FROM par WHERE g > $1 GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE pq(50);
EXECUTE pq(50);
EXECUTE pq(95);
SET gpuagg.enabled = off;
PREPARE pqn(int) AS SELECT k, count(*), sum(i8), max(f8) FROM par WHERE g > $1 GROUP BY k ORDER BY k;
SELECT offloaded('EXECUTE pqn(50)');
EXECUTE pqn(50);
EXECUTE pqn(95);
RESET gpuagg.enabled;
DEALLOCATE pq;
DEALLOCATE pqn;
RESET plan_cache_mode;
-- a char(n) column is read where it lies (its two codes made by the
-- deformer): a fed plan
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT c) FROM par GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT c), count(*) FROM par GROUP BY k');
-- a LIKE the device matches keeps page form, and the fed plan; one with
-- `_' is the host's: no page form, so no fed plan (the planner and the
-- scan ask GpuaggPageFormMissing alike)
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT c) FROM par WHERE t LIKE 'w1%' GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT c), count(*) FROM par WHERE t LIKE ''w1%'' GROUP BY k');
EXPLAIN (COSTS OFF) SELECT k, count(DISTINCT c) FROM par WHERE t LIKE 'w_1%' GROUP BY k;
SELECT check_parallel('SELECT k, count(DISTINCT c), count(*) FROM par WHERE t LIKE ''w_1%'' GROUP BY k');
-- gpuagg.fed_groups = 0 feeds every parallel page-form scan
SET gpuagg.fed_groups = 0;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(i8), avg(f8) FROM par GROUP BY k;
SELECT check_parallel('SELECT k, count(*), sum(i8), min(f8), count(DISTINCT t) FROM par WHERE t <> ''w5'' GROUP BY k');
-- the default, -1: fed on CUDA, partial (these few groups) on the CPU device
RESET gpuagg.fed_groups;
SELECT current_setting('gpuagg.fed_groups') AS fed_groups,
	   (plan_text('SELECT k, count(*), sum(i8) FROM par GROUP BY k') LIKE '%Finalize%') =
	   (current_setting('gpuagg.device') = 'cpu') AS partial_on_cpu_only;
SELECT check_parallel('SELECT k, count(*), sum(i8), avg(f8) FROM par GROUP BY k');
-- without the leader there is no fed plan: partial on either device
SET parallel_leader_participation = off;
SELECT plan_text('SELECT k, count(*), sum(i8) FROM par GROUP BY k') LIKE '%Finalize%' AS partial_without_leader;
RESET parallel_leader_participation;
SET gpuagg.fed_groups = 100000;
RESET gpuagg.page_batches;
-- gpuagg.parallel = off: serial GpuAgg
SET gpuagg.parallel = off;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(i8), avg(f8) FROM par GROUP BY k;
