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
-- native: a twin prepared and planned without gpuagg (a cached plan
-- outlives the setting, so q1 itself would run its GpuAgg again)
SET gpuagg.enabled = off;
PREPARE q1n(int4, float8, date) AS
	SELECT k, count(*), sum(v), avg(f) FROM pa WHERE v > $1 AND f < $2 AND d >= $3 GROUP BY k ORDER BY k;
SELECT offloaded('EXECUTE q1n(100, 200.0, ''2024-03-10'')');
EXECUTE q1n(100, 200.0, '2024-03-10');
EXECUTE q1n(2900, 1e9, '2024-01-01');
RESET gpuagg.enabled;

-- parameters in keys, arguments, FILTER and IN lists
PREPARE q2(int4, int8, bool) AS
	SELECT k + $1 AS kk, sum(x * $2) FILTER (WHERE b = $3), max(v - $1) FROM pa
	 WHERE k IN (1, 2, $1) GROUP BY k + $1 ORDER BY 1;
EXPLAIN (COSTS OFF) EXECUTE q2(3, 2, true);
EXECUTE q2(3, 2, true);
EXECUTE q2(5, -1, false);
SET gpuagg.enabled = off;
DEALLOCATE q2;
PREPARE q2(int4, int8, bool) AS
	SELECT k + $1 AS kk, sum(x * $2) FILTER (WHERE b = $3), max(v - $1) FROM pa
	 WHERE k IN (1, 2, $1) GROUP BY k + $1 ORDER BY 1;
SELECT offloaded('EXECUTE q2(3, 2, true)');
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

-- scan constants: current_date, current_timestamp, localtimestamp, now(),
-- transaction_timestamp() and statement_timestamp() are evaluated once a
-- scan, as parameters are (compared with native in one statement, so both
-- see the same time)
CREATE TABLE sc (k int4, d date, ts timestamp, tz timestamptz);
INSERT INTO sc SELECT i % 5, current_date - i % 90, localtimestamp - i * interval '7 minutes',
	   now() + (i - 1000) * interval '1 minute'
  FROM generate_series(1, 3000) i;
ANALYZE sc;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sc WHERE d > current_date - 30 GROUP BY k;
SELECT check_offload('SELECT k, count(*) FROM sc WHERE d > current_date - 30 GROUP BY k');
SELECT check_offload('SELECT d >= current_date - 7 AS this_week, count(*), max(current_date - d) FROM sc GROUP BY 1');
SELECT check_offload('SELECT k, count(*) FILTER (WHERE tz < now()), count(*) FILTER (WHERE tz < current_timestamp(0)),
	   min(tz) FILTER (WHERE tz >= transaction_timestamp()), max(tz) FILTER (WHERE tz < statement_timestamp()) FROM sc GROUP BY k');
SELECT check_offload('SELECT ts < localtimestamp(1) AS past, count(*) FROM sc GROUP BY 1');
SELECT check_offload('SELECT ts < localtimestamp AS past, count(*), min(ts) FROM sc WHERE ts >= localtimestamp(0) OR k = 1 GROUP BY 1');
-- offset by a constant interval (under a thousand years: it cannot fail)
SELECT check_offload('SELECT k, count(*) FROM sc WHERE tz > now() - interval ''10 hours'' AND tz < current_timestamp + interval ''1 mon -29 days -6 hours'' GROUP BY k');
SELECT check_offload('SELECT ts >= localtimestamp - interval ''2 days 3 hours'' AS recent, count(*), count(*) FILTER (WHERE d >= current_date - interval ''30 days'') FROM sc GROUP BY 1');
SELECT check_offload('SELECT k, max(tz) FILTER (WHERE tz < statement_timestamp() - interval ''90 minutes'') FROM sc GROUP BY k');
-- ... truncated by date_trunc with a unit it knows, or cast among date,
-- timestamp and timestamptz, and offset again: three offsets at most
SELECT check_offload('SELECT k, count(*) FROM sc WHERE tz >= date_trunc(''month'', now()) - interval ''1 month'' GROUP BY k');
SELECT check_offload('SELECT count(*) FILTER (WHERE d >= date_trunc(''week'', current_date) - interval ''7 days''),
	   count(*) FILTER (WHERE ts < date_trunc(''day'', localtimestamp)::date + interval ''1 day'') FROM sc');
SELECT check_offload('SELECT k, count(*) FROM sc WHERE d > (now() - interval ''1 year'')::date - interval ''2 mons'' + interval ''3 days'' GROUP BY k');
SELECT check_offload('SELECT k, count(*) FROM sc WHERE tz >= date_trunc(''year'', now()::timestamp)::timestamptz - interval ''1 year'' GROUP BY k');
-- a group key without columns (the report's date beside its groups): the
-- scan constant and the key are one expression, which setrefs.c makes a
-- reference to the group's tuple in the node's parameters (exec.c's
-- unmatch_keys); also where a WHERE, a one-time filter and ROLLUP hold it
-- (a setting as a key: below)
SELECT check_offload('SELECT current_date AS day, k, count(*) FROM sc GROUP BY 1, 2');
SELECT check_offload('SELECT count(*), max(tz) FROM sc GROUP BY now()');
SELECT check_offload('SELECT k, now() - interval ''1 day'' AS since, count(*) FILTER (WHERE tz > now() - interval ''1 day'') FROM sc WHERE now() > ''2020-01-01'' AND tz < now() GROUP BY ROLLUP(k, now() - interval ''1 day'')');
-- past those bounds, or more offsets: guarded scan constants (below), with
-- an exact path
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sc WHERE tz > now() - interval '5000 years' GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sc WHERE tz > now() - interval '1 mon' - interval '1 mon' - interval '1 mon' - interval '1 mon' GROUP BY k;
-- (an interval's months, days and time bound it together: an offset of
-- about 3000 years, three times, would leave the timestamp range, raising
-- an error natively only where a row reaches it, here none)
SELECT check_error('SELECT count(*) FILTER (WHERE tz > now() - interval ''1000 years 366000 days 8784000 hours'' - interval ''1000 years 366000 days 8784000 hours'' - interval ''1000 years 366000 days 8784000 hours'') FROM sc WHERE k < -1');
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sc WHERE tz > tz - interval '1 day' GROUP BY k;
RESET gpuagg.log_fallback;
-- any other stable expression without columns is a scan constant too
-- (to_date of constants, a setting): evaluated once a scan, in a
-- subtransaction; where it fails, PostgreSQL's own plan (the exact path)
-- runs instead, and raises the error where a row reaches it, as natively
SET sc.lim = '3';
SELECT check_offload('SELECT current_setting(''sc.lim'') AS lim, count(*) FROM sc WHERE k < current_setting(''sc.lim'')::int GROUP BY 1');
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM sc WHERE d > to_date('2020-01-01', 'YYYY-MM-DD') GROUP BY k;
SELECT check_offload('SELECT k, count(*) FROM sc WHERE d > to_date(''2020-01-01'', ''YYYY-MM-DD'') GROUP BY k');
SELECT check_offload('SELECT k, count(*) FILTER (WHERE ts < to_timestamp(''2099-12-31'', ''YYYY-MM-DD'')), count(*) FILTER (WHERE k < current_setting(''sc.lim'')::int), count(*) FILTER (WHERE current_setting(''sc.lim'') = ''3'') FROM sc GROUP BY k');
SELECT check_offload('SELECT k, count(*) FROM sc WHERE tz > now() - interval ''5000 years'' GROUP BY k');
-- (a WHERE condition's fails when planned: PostgreSQL's estimates
-- evaluate it; an aggregate's FILTER does not)
SELECT check_error('SELECT k, count(*) FILTER (WHERE d > to_date(''2020-13-01'', ''YYYY-MM-DD'')) FROM sc GROUP BY k');
SELECT check_error('SELECT k, count(*) FILTER (WHERE d > to_date(''2020-13-01'', ''YYYY-MM-DD'')) FROM sc WHERE k < 0 GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(CASE WHEN k > 10 THEN to_date(''2020-13-01'', ''YYYY-MM-DD'') - d END) FROM sc GROUP BY k');
-- (the run that failed took the exact path)
SELECT (p->>'Exact Path Runs')::int AS exact_runs, (p->>'Rows In')::int AS device_rows
  FROM analyzed_plan('SELECT count(*) FILTER (WHERE d > to_date(''2020-13-01'', ''YYYY-MM-DD'')) FROM sc WHERE k < 0') p;
SELECT (p->>'Exact Path Runs')::int AS exact_runs, (p->>'Rows In')::int > 0 AS device_rows
  FROM analyzed_plan('SELECT count(*) FROM sc WHERE d > to_date(''2020-01-01'', ''YYYY-MM-DD'')') p;
-- one value a run, evaluated when the node starts: before a statement
-- whose plan is parallel somewhere (here the exact path's) enters
-- parallel mode, where no subtransaction starts
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT plan_text('SELECT k, count(*) FROM sc WHERE d > to_date(''2020-01-01'', ''YYYY-MM-DD'') GROUP BY k') LIKE '%Gather%' AS statement_parallel,
	   (p->>'Exact Path Runs')::int AS exact_runs, (p->>'Rows In')::int > 0 AS device_rows
  FROM analyzed_plan('SELECT k, count(*) FROM sc WHERE d > to_date(''2020-01-01'', ''YYYY-MM-DD'') GROUP BY k') p;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
-- ... evaluated at the run's first scan, as natively: a setting changed
-- after a cursor's DECLARE counts
BEGIN;
SET LOCAL sc.lim = '3';
DECLARE gc CURSOR FOR SELECT count(*) FILTER (WHERE k < current_setting('sc.lim')::int) AS below FROM sc;
SET LOCAL sc.lim = '1';
FETCH gc;
SET LOCAL gpuagg.enabled = off;
SET LOCAL sc.lim = '3';
DECLARE gn CURSOR FOR SELECT count(*) FILTER (WHERE k < current_setting('sc.lim')::int) AS below FROM sc;
SET LOCAL sc.lim = '1';
FETCH gn;
COMMIT;
-- ... and on each rescan the same value
SELECT check_offload('SELECT x, (SELECT count(*) FROM sc WHERE k = x AND d > to_date(''2020-01-01'', ''YYYY-MM-DD'')) FROM generate_series(0, 4) x');
SELECT check_offload('SELECT x, (SELECT count(*) FILTER (WHERE d > to_date(''2020-13-01'', ''YYYY-MM-DD'')) FROM sc WHERE k = x) FROM generate_series(5, 7) x');
-- ... of a generic plan's $1
SET plan_cache_mode = force_generic_plan;
PREPARE g1(text) AS SELECT k, count(*) FROM sc WHERE d > to_date($1, 'YYYY-MM-DD') GROUP BY k ORDER BY k;
SELECT offloaded('EXECUTE g1(''2020-01-01'')');
EXECUTE g1('2020-01-01');
SET gpuagg.enabled = off;
DEALLOCATE g1;
PREPARE g1(text) AS SELECT k, count(*) FROM sc WHERE d > to_date($1, 'YYYY-MM-DD') GROUP BY k ORDER BY k;
EXECUTE g1('2020-01-01');
RESET gpuagg.enabled;
DEALLOCATE g1;
RESET plan_cache_mode;
RESET sc.lim;
-- under a generic plan, with a parameter beside them
PREPARE q4(int4) AS SELECT k, count(*) FROM sc WHERE d >= current_date - $1 GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE q4(10);
SELECT check_offload('SELECT k, count(*) FROM sc WHERE d >= current_date - 10 GROUP BY k') AS q4_text;
DEALLOCATE q4;
DROP TABLE sc;
