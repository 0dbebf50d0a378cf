-- eligibility: which queries become a Custom Scan (GpuAgg), and which keep
-- their native plan.
BEGIN;
SELECT plan(114);

\ir common.psql
SET LOCAL gpuagg.log_fallback = off;

-- The plan as JSON, and as text.
CREATE FUNCTION pg_temp.explain_json(query text) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || query INTO plan;
	RETURN plan;
END
$$;

CREATE FUNCTION pg_temp.explain_text(query text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
	result text := '';
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		result := result || line || E'\n';
	END LOOP;
	RETURN result;
END
$$;

CREATE TABLE el_t (
	k  int4,
	i2 int2,
	i4 int4,
	i8 int8,
	f4 float4,
	f8 float8,
	d  date,
	ts timestamp,
	tz timestamptz,
	b  bool,
	t  text,
	n  numeric
);
INSERT INTO el_t
SELECT g % 7, (g % 100)::int2, g, g * 1000000000::int8, g / 4.0, g / 3.0,
	date '2020-01-01' + g, timestamp '2020-01-01' + g * interval '1 hour',
	timestamptz '2020-01-01 00:00+00' + g * interval '1 minute', g % 3 = 0,
	'x' || (g % 5), g / 7.0
FROM generate_series(1, 1000) g;
INSERT INTO el_t VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
ANALYZE el_t;

-- each supported type as a group key
SELECT ok(pg_temp.offloaded('SELECT b, count(*) FROM el_t GROUP BY b'), 'bool key');
SELECT ok(pg_temp.offloaded('SELECT i2, count(*) FROM el_t GROUP BY i2'), 'int2 key');
SELECT ok(pg_temp.offloaded('SELECT i4, count(*) FROM el_t GROUP BY i4'), 'int4 key');
SELECT ok(pg_temp.offloaded('SELECT i8, count(*) FROM el_t GROUP BY i8'), 'int8 key');
SELECT ok(pg_temp.offloaded('SELECT f4, count(*) FROM el_t GROUP BY f4'), 'float4 key');
SELECT ok(pg_temp.offloaded('SELECT f8, count(*) FROM el_t GROUP BY f8'), 'float8 key');
SELECT ok(pg_temp.offloaded('SELECT d, count(*) FROM el_t GROUP BY d'), 'date key');
SELECT ok(pg_temp.offloaded('SELECT ts, count(*) FROM el_t GROUP BY ts'), 'timestamp key');
SELECT ok(pg_temp.offloaded('SELECT tz, count(*) FROM el_t GROUP BY tz'), 'timestamptz key');
SELECT ok(pg_temp.offloaded('SELECT k, b, i2, i8, f4, f8, d, ts, count(*) FROM el_t GROUP BY k, b, i2, i8, f4, f8, d, ts'),
	'eight group keys');

-- each supported type as an aggregate argument
SELECT ok(pg_temp.offloaded('SELECT k, sum(i2), avg(i2), min(i2), max(i2), stddev(i2), variance(i2) FROM el_t GROUP BY k'),
	'int2 arguments');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4), avg(i4), min(i4), max(i4), stddev_samp(i4), var_samp(i4) FROM el_t GROUP BY k'),
	'int4 arguments');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i8), avg(i8), min(i8), max(i8), stddev_pop(i8), var_pop(i8) FROM el_t GROUP BY k'),
	'int8 arguments');
SELECT ok(pg_temp.offloaded('SELECT k, sum(f4), avg(f4), min(f4), max(f4), stddev(f4), variance(f4) FROM el_t GROUP BY k'),
	'float4 arguments');
SELECT ok(pg_temp.offloaded('SELECT k, sum(f8), avg(f8), min(f8), max(f8), stddev(f8), var_pop(f8) FROM el_t GROUP BY k'),
	'float8 arguments');
SELECT ok(pg_temp.offloaded('SELECT k, min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM el_t GROUP BY k'),
	'date, timestamp, timestamptz arguments of min/max');
SELECT ok(pg_temp.offloaded('SELECT k, bool_and(b), bool_or(b), every(b) FROM el_t GROUP BY k'),
	'bool arguments of bool_and/bool_or/every');
SELECT ok(pg_temp.offloaded('SELECT k, count(*), count(i4), count(t), count(n) FROM el_t GROUP BY k'),
	'count(*) and count(x) of any column type, text and numeric included');

-- expressions in keys, arguments and WHERE
SELECT ok(pg_temp.offloaded('SELECT i4 % 7, i2 + 1, i8 / 1000, -k, count(*) FROM el_t GROUP BY i4 % 7, i2 + 1, i8 / 1000, -k'),
	'integer expressions as keys');
SELECT ok(pg_temp.offloaded('SELECT sum(i4 * 2 - k), sum(i2 * i2), sum(i8 % 10), avg(i4 / 3) FROM el_t'),
	'integer + - * / % in arguments');
SELECT ok(pg_temp.offloaded('SELECT sum(f8 + 1), sum(f8 * 2 - f4), avg(f4 / 2), max(-f8) FROM el_t'),
	'float + - * / and unary minus in arguments');
SELECT ok(pg_temp.offloaded('SELECT max(d + 1), min(d - 30), min(k + d), sum(d - date ''2020-01-01'') FROM el_t'),
	'date + int, int + date, date - int, date - date');
SELECT ok(pg_temp.offloaded('SELECT sum(i2::int8), sum(i4::float8), sum(f4::float8), sum(f8::int4), sum(i8::float4), max(f8::float4), sum(i4::int2) FROM el_t'),
	'casts among int2/int4/int8/float4/float8');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE i2 < i4 AND i8 >= i4 AND f4 < f8 AND d > date ''2020-06-01'' AND ts <= timestamp ''2020-02-01'' AND tz <> timestamptz ''2020-01-01 10:00+00'''),
	'comparisons: same type, int widths mixed, float widths mixed, date, timestamp, timestamptz');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE (k = 1 OR NOT b) AND (i4 IS NULL OR f8 IS NOT NULL)'),
	'AND/OR/NOT, IS [NOT] NULL');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE b IS TRUE OR b IS NOT FALSE OR (k > 3) IS UNKNOWN OR b IS NOT UNKNOWN OR b IS FALSE OR b IS NOT TRUE'),
	'IS [NOT] TRUE/FALSE/UNKNOWN');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE i4 BETWEEN 10 AND 20 OR f8 NOT BETWEEN 1 AND 2 OR d BETWEEN SYMMETRIC date ''2021-01-01'' AND date ''2020-01-01'''),
	'BETWEEN, NOT BETWEEN, BETWEEN SYMMETRIC');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE k IN (1, 2, NULL) OR i8 NOT IN (5, 6) OR f8 IN (1.5, ''NaN'') OR d IN (date ''2020-01-05'', ''infinity'')'),
	'IN / NOT IN constant lists, NULL elements included');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE b'), 'bare boolean column as WHERE');
SELECT ok(pg_temp.offloaded('SELECT sum(i4) FROM el_t WHERE i4 > 10 GROUP BY k'),
	'GROUP BY key not in the select list');

-- HAVING, FILTER, target-list expressions over aggregates
SELECT ok(pg_temp.offloaded('SELECT k, count(*) FROM el_t GROUP BY k HAVING sum(i4) > 100 AND count(*) > 1'),
	'HAVING over aggregates');
SELECT ok(pg_temp.offloaded('SELECT k, count(*) FROM el_t GROUP BY k HAVING max(f8) > 2'),
	'HAVING with an aggregate not in the select list');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FILTER (WHERE b), count(*) FILTER (WHERE f8 > 10 AND NOT b) FROM el_t GROUP BY k'),
	'FILTER (WHERE ...)');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) / count(*), count(*) + 10, 42, ''label'', sum(f8) / nullif(count(*), 0), k * 100 FROM el_t GROUP BY k'),
	'target expressions over keys and aggregates, constants, functions above the aggregation');
SELECT ok(pg_temp.offloaded('SELECT count(*), sum(i8), avg(f8) FROM el_t'),
	'plain aggregate without GROUP BY');
SELECT ok(pg_temp.offloaded('SELECT k FROM el_t GROUP BY k'), 'GROUP BY without aggregates');
SELECT ok(pg_temp.offloaded('SELECT k, count(*) FROM el_t GROUP BY k ORDER BY 2 DESC LIMIT 3'),
	'ORDER BY / LIMIT above the aggregation');
SELECT ok(pg_temp.offloaded('SELECT * FROM (SELECT k, sum(i4) s FROM el_t GROUP BY k) q WHERE s > 10'),
	'aggregation in a subquery');
SELECT ok(pg_temp.offloaded('WITH w AS MATERIALIZED (SELECT k, sum(i4) s FROM el_t GROUP BY k) SELECT * FROM w'),
	'aggregation in a CTE');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4), rank() OVER (ORDER BY sum(i4)) FROM el_t GROUP BY k'),
	'window function over the aggregated rows');

-- $n parameters under a generic plan
SET LOCAL plan_cache_mode = force_generic_plan;
PREPARE el_p1(int4, float8) AS
	SELECT k, sum(i4) FILTER (WHERE i4 > $1), max(f8 * $2) FROM el_t WHERE i4 < $1 * 100 GROUP BY k ORDER BY k;
SELECT ok(pg_temp.offloaded('EXECUTE el_p1(5, 2.0)'), 'PREPAREd statement with $1, $2 under a generic plan');
SELECT matches(pg_temp.explain_text('EXECUTE el_p1(5, 2.0)'),
	'Device Filter: \(i4 < \(\$1 \* 100\)\)', 'the generic plan evaluates $1 in the GPU filter');
RESET plan_cache_mode;

-- a LATERAL subquery with an outer reference
SELECT ok(pg_temp.offloaded('SELECT g, s.* FROM generate_series(1, 3) g, LATERAL (SELECT sum(i4) si, count(*) c FROM el_t WHERE k = g) s'),
	'LATERAL subquery with an outer reference');
SELECT ok(pg_temp.offloaded('SELECT g, (SELECT count(*) FROM el_t WHERE i4 < g) FROM generate_series(1, 3) g'),
	'correlated scalar subquery');

-- not eligible: each of these keeps its native plan
CREATE TABLE el_u (k int4, w int4);
INSERT INTO el_u SELECT g, g FROM generate_series(0, 6) g;
SELECT ok(pg_temp.offloaded('SELECT el_u.w, count(*), sum(i4) FROM el_t JOIN el_u ON el_t.k = el_u.k GROUP BY el_u.w'),
	'inner join on an equality: the other table matched per row');
SELECT ok(pg_temp.offloaded('SELECT el_u.w, count(*) FROM el_t LEFT JOIN el_u ON el_t.k = el_u.k GROUP BY el_u.w'), 'left join');
SELECT ok(NOT pg_temp.offloaded('SELECT el_u.w, count(*) FROM el_t FULL JOIN el_u ON el_t.k = el_u.k GROUP BY el_u.w'), 'full join');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM el_t, el_u'), 'cross join');
SELECT ok(pg_temp.offloaded('SELECT k, count(DISTINCT i4) FROM el_t GROUP BY k'), 'count(DISTINCT)');
SELECT ok(pg_temp.offloaded('SELECT k, sum(DISTINCT i4), avg(DISTINCT f8) FROM el_t GROUP BY k'), 'sum(DISTINCT), avg(DISTINCT)');
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(i4 ORDER BY i4) FROM el_t GROUP BY k'), 'ORDER BY inside an aggregate');
SELECT ok(pg_temp.offloaded('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY f8), percentile_disc(0.9) WITHIN GROUP (ORDER BY i4 DESC), mode() WITHIN GROUP (ORDER BY b) FROM el_t GROUP BY k'),
	'ordered-set aggregates percentile_cont, percentile_disc, mode');
SELECT ok(pg_temp.offloaded('SELECT k, percentile_cont(ARRAY[0.5, 0.9]) WITHIN GROUP (ORDER BY f8), mode() WITHIN GROUP (ORDER BY t) FROM el_t GROUP BY k'),
	'percentile_cont of an array of fractions, mode of strings');
SELECT ok(pg_temp.offloaded('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY tz - timestamptz ''2024-01-01 00:00+00'') FROM el_t GROUP BY k'),
	'percentile_cont of a difference of timestamps');
SELECT ok(NOT pg_temp.offloaded('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY (tz - timestamptz ''2024-01-01 00:00+00'') / 2) FROM el_t GROUP BY k'),
	'percentile_cont of other intervals');
SET TimeZone = 'UTC';
SELECT ok(pg_temp.offloaded('SELECT date_trunc(''day'', tz), extract(hour FROM tz), tz::date, count(*) FROM el_t GROUP BY 1, 2, 3'),
	'date_trunc, extract and ::date of timestamptz in UTC');
SET TimeZone = 'America/New_York';
SELECT ok(pg_temp.offloaded('SELECT date_trunc(''day'', tz), count(*) FROM el_t GROUP BY 1'),
	'date_trunc of timestamptz in a zone with daylight saving (its transitions go to the device)');
RESET TimeZone;
SELECT ok(pg_temp.offloaded('SELECT lower(t), length(t), count(*) FROM el_t WHERE starts_with(t, ''a'') GROUP BY 1, 2'),
	'functions of one string column: lower, length, starts_with');
SELECT ok(pg_temp.offloaded('SELECT k, b, count(*) FROM el_t GROUP BY GROUPING SETS ((k), (b))'), 'GROUPING SETS');
SELECT ok(pg_temp.offloaded('SELECT k, b, count(*), grouping(k, b) FROM el_t GROUP BY ROLLUP (k, b)'), 'ROLLUP');
SELECT ok(pg_temp.offloaded('SELECT k, b, count(*) FROM el_t GROUP BY CUBE (k, b)'), 'CUBE');
SELECT ok(pg_temp.offloaded('SELECT k, count(DISTINCT b) FROM el_t GROUP BY ROLLUP (k)'),
	'count(DISTINCT) with grouping sets');
SELECT ok(pg_temp.offloaded('SELECT t, count(*), count(DISTINCT t) FROM el_t GROUP BY t'), 'text key, count(DISTINCT text)');
SELECT ok(pg_temp.offloaded('SELECT k, max(t COLLATE "und-x-icu") FROM el_t GROUP BY k'), 'max(text) under an ICU collation');
SELECT ok(pg_temp.offloaded('SELECT k, max(t COLLATE "C"), min(t COLLATE "C") FROM el_t GROUP BY k'), 'min/max(text) under "C"');
SELECT ok(pg_temp.offloaded('SELECT k, count(*) FROM el_t WHERE t LIKE ''x%'' OR t NOT ILIKE ''%Y'' GROUP BY k'), 'LIKE and ILIKE with a constant pattern');
SELECT ok(NOT pg_temp.offloaded('SELECT k, count(*) FROM el_t WHERE t LIKE ''x\'' GROUP BY k'), 'LIKE with a pattern ending in an escape');
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(n) FROM el_t GROUP BY k'), 'numeric argument');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_t WHERE t = ''x1'' OR t IN (''x2'', ''x3'') GROUP BY k'), 'text equality and IN in WHERE');
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_t WHERE t < ''x1'' GROUP BY k'), 'text ordering against a constant in WHERE');
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(i4) FROM el_t WHERE t < t || ''a'' GROUP BY k'), 'text ordering against an expression');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM el_t WHERE random() < 0.5'), 'random() in WHERE');
SELECT ok(NOT pg_temp.offloaded('SELECT sum(gcd(i4, 6)) FROM el_t'), 'gcd() in an aggregate argument');
SELECT ok(NOT pg_temp.offloaded('SELECT gcd(i4, 6), count(*) FROM el_t GROUP BY gcd(i4, 6)'), 'function in a group key');
SELECT ok(pg_temp.offloaded('SELECT abs(i4), sum(abs(i4)) FROM el_t GROUP BY abs(i4)'), 'abs() of an integer in a group key and an aggregate argument');
SELECT ok(pg_temp.offloaded('SELECT sum(coalesce(i4, 0)) FROM el_t'), 'COALESCE in an aggregate argument');
SELECT ok(pg_temp.offloaded('SELECT sum(CASE WHEN b THEN i4 END) FROM el_t'), 'CASE in an aggregate argument');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE d < ts'), 'date compared with timestamp (date_cmp_timestamp)');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE ts < tz'), 'timestamp compared with timestamptz (timestamp_cmp_timestamptz)');
SELECT ok(pg_temp.offloaded('SELECT max(ts + interval ''1 day'') FROM el_t'), 'timestamp + a constant interval');
SELECT ok(NOT pg_temp.offloaded('SELECT max(ts + interval ''1 day'' * i4) FROM el_t'), 'timestamp + an interval that is not a constant');
SELECT ok(pg_temp.offloaded('SELECT extract(year FROM ts), count(*) FROM el_t GROUP BY 1'), 'extract of a timestamp');
SELECT ok(pg_temp.offloaded('SELECT count(extract(timezone FROM tz)) FROM el_t'), 'extract(timezone) of a timestamptz (its UTC offset)');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE i4 IN (SELECT w FROM el_u)'), 'IN (subquery): a semi join');
SELECT ok(pg_temp.offloaded('SELECT count(*) FROM el_t WHERE i4 NOT IN (SELECT w FROM el_u)'), 'NOT IN (subquery): a hashed subplan the host evaluates');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM el_t WHERE i4 > ALL (SELECT w FROM el_u WHERE el_u.k = el_t.k)'), 'a correlated subplan in WHERE');
SELECT ok(NOT pg_temp.offloaded('SELECT string_agg(t, '','') FROM el_t'), 'unsupported aggregate string_agg');
SELECT ok(NOT pg_temp.offloaded('SELECT array_agg(i4) FROM el_t'), 'unsupported aggregate array_agg');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM el_t TABLESAMPLE SYSTEM (50) REPEATABLE (1)'), 'TABLESAMPLE');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM (SELECT k FROM el_t UNION ALL SELECT w FROM el_u) s'),
	'aggregation over a UNION ALL');
SELECT ok(NOT pg_temp.offloaded('SELECT count(*) FROM generate_series(1, 10) g'), 'function scan');

-- tables that are not a plain heap table
CREATE TABLE el_rls (k int4, v int4);
INSERT INTO el_rls VALUES (1, 1), (2, 2);
ALTER TABLE el_rls ENABLE ROW LEVEL SECURITY;
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(v) FROM el_rls GROUP BY k'), 'table with row-level security enabled');

CREATE TABLE el_part (k int4, v int4) PARTITION BY RANGE (k);
CREATE TABLE el_part_1 PARTITION OF el_part FOR VALUES FROM (0) TO (100);
CREATE TABLE el_part_2 PARTITION OF el_part FOR VALUES FROM (100) TO (200);
INSERT INTO el_part SELECT g, g FROM generate_series(0, 199) g;
SELECT ok(pg_temp.offloaded('SELECT k % 10, sum(v) FROM el_part GROUP BY k % 10'), 'partitioned table');
SELECT ok(pg_temp.offloaded('SELECT k % 10, sum(v) FROM el_part_1 GROUP BY k % 10'),
	'a leaf partition scanned directly is a plain table');

CREATE TABLE el_parent (k int4, v int4);
CREATE TABLE el_child () INHERITS (el_parent);
INSERT INTO el_parent VALUES (1, 1);
INSERT INTO el_child VALUES (2, 2);
SELECT ok(pg_temp.offloaded('SELECT k, sum(v) FROM el_parent GROUP BY k'), 'inheritance parent');
SELECT ok(pg_temp.offloaded('SELECT k, sum(v) FROM ONLY el_parent GROUP BY k'), 'ONLY inheritance parent');

CREATE VIEW el_v AS SELECT k, i4 FROM el_t WHERE b;
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_v GROUP BY k'), 'simple view over one table');

CREATE MATERIALIZED VIEW el_mv AS SELECT k, i4 FROM el_t;
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_mv GROUP BY k'), 'materialized view');

-- settings that turn offload off
SET LOCAL gpuagg.enabled = off;
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(i4) FROM el_t GROUP BY k'), 'gpuagg.enabled = off');
SET LOCAL gpuagg.enabled = on;
SELECT current_setting('gpuagg.device') AS el_test_device \gset
SET LOCAL gpuagg.device = auto;
SELECT is(pg_temp.offloaded('SELECT k, sum(i4) FROM el_t GROUP BY k'),
	(SELECT count(*) FROM gpuagg.devices()) > 0,
	'gpuagg.device = auto offloads exactly when a GPU is visible (none: native plan)');
SET LOCAL gpuagg.device = cuda;
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_t GROUP BY k'),
	'gpuagg.device = cuda is planned for the GPU even where none was probed');
SELECT is(pg_temp.explain_json('SELECT k, sum(i4) FROM el_t GROUP BY k')->0->'Plan'->>'Device',
	'cuda', 'EXPLAIN shows Device: cuda');
-- run on a GPU, or moved to the CPU device with a WARNING where the GPU fails
DECLARE el_on7 CURSOR FOR SELECT k, sum(i4), avg(f8), count(*) FROM el_t GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off7 CURSOR FOR SELECT k, sum(i4), avg(f8), count(*) FROM el_t GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = on;
SET LOCAL client_min_messages = error;
SELECT results_eq('el_on7'::refcursor, 'el_off7'::refcursor,
	'gpuagg.device = cuda returns the native answer');
RESET client_min_messages;
SET LOCAL gpuagg.device = cpu;
SELECT is(pg_temp.explain_json('SELECT k, sum(i4) FROM el_t GROUP BY k')->0->'Plan'->>'Device',
	'cpu', 'gpuagg.device = cpu: EXPLAIN shows Device: cpu');
SET LOCAL gpuagg.device = :'el_test_device';
SET LOCAL gpuagg.force_offload = off;
SET LOCAL gpuagg.startup_cost = 1e9;
SELECT ok(NOT pg_temp.offloaded('SELECT k, sum(i4) FROM el_t GROUP BY k'),
	'without force_offload a costlier GpuAgg path loses to the native plan');
SET LOCAL gpuagg.startup_cost = 0;
SET LOCAL gpuagg.tuple_cost = 0;
SET LOCAL gpuagg.batch_cost = 0;
SELECT ok(pg_temp.offloaded('SELECT k, sum(i4) FROM el_t GROUP BY k'),
	'without force_offload a cheap GpuAgg path wins');
RESET gpuagg.startup_cost;
RESET gpuagg.tuple_cost;
RESET gpuagg.batch_cost;
SET LOCAL gpuagg.force_offload = on;

-- EXPLAIN shows the node's properties
SELECT is((pg_temp.explain_json('SELECT k, sum(i4), count(*) FROM el_t WHERE i4 > 5 GROUP BY k')->0->'Plan')
		- ARRAY['Startup Cost', 'Total Cost', 'Plan Rows', 'Plan Width', 'Device Memory Estimate'],
	jsonb_build_object('Node Type', 'Custom Scan', 'Custom Plan Provider', 'GpuAgg',
		'Parallel Aware', false, 'Async Capable', false, 'Relation Name', 'el_t', 'Alias', 'el_t',
		'Device', current_setting('gpuagg.device'), 'Device Filter', '(i4 > 5)', 'Device Group Key', jsonb_build_array('k'),
		'Device Aggregates', jsonb_build_array('sum(i4)', 'count(*)')),
	'EXPLAIN (FORMAT JSON) shows Device, Device Filter, Device Group Key, Device Aggregates');
SELECT ok((pg_temp.explain_json('SELECT k, sum(i4) FROM el_t GROUP BY k')->0->'Plan'->>'Device Memory Estimate')::int8 > 0,
	'EXPLAIN shows a Device Memory Estimate');

-- results of offloaded queries equal the native ones
SET LOCAL gpuagg.enabled = on;
DECLARE el_on1 CURSOR FOR
	SELECT k, count(*), sum(i4), avg(i2), min(f8), max(d), stddev(i8), bool_and(b), sum(f4) FILTER (WHERE i4 % 2 = 0)
	FROM el_t WHERE i4 IS NULL OR i4 % 5 <> 0 GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off1 CURSOR FOR
	SELECT k, count(*), sum(i4), avg(i2), min(f8), max(d), stddev(i8), bool_and(b), sum(f4) FILTER (WHERE i4 % 2 = 0)
	FROM el_t WHERE i4 IS NULL OR i4 % 5 <> 0 GROUP BY k ORDER BY k;
SELECT results_eq('el_on1'::refcursor, 'el_off1'::refcursor, 'grouped aggregates equal the native run');

SET LOCAL gpuagg.enabled = on;
DECLARE el_on2 CURSOR FOR
	SELECT i4 % 3, b, sum(i4) / count(*), count(*) + 10, variance(f8), max(ts), min(tz)
	FROM el_t GROUP BY i4 % 3, b HAVING count(*) > 1 ORDER BY 1, 2;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off2 CURSOR FOR
	SELECT i4 % 3, b, sum(i4) / count(*), count(*) + 10, variance(f8), max(ts), min(tz)
	FROM el_t GROUP BY i4 % 3, b HAVING count(*) > 1 ORDER BY 1, 2;
SELECT results_eq('el_on2'::refcursor, 'el_off2'::refcursor, 'expressions, HAVING and NULL keys equal the native run');

SET LOCAL gpuagg.enabled = on;
DECLARE el_on3 CURSOR FOR
	SELECT count(*), sum(i8), avg(i8), var_samp(i4), every(b), count(t) FROM el_t WHERE f8 > 100;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off3 CURSOR FOR
	SELECT count(*), sum(i8), avg(i8), var_samp(i4), every(b), count(t) FROM el_t WHERE f8 > 100;
SELECT results_eq('el_on3'::refcursor, 'el_off3'::refcursor, 'plain aggregate equals the native run');

SET LOCAL gpuagg.enabled = on;
DECLARE el_on4 CURSOR FOR
	SELECT g, s.* FROM generate_series(0, 7) g, LATERAL (SELECT sum(i4) si, count(*) c FROM el_t WHERE k = g) s ORDER BY g;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off4 CURSOR FOR
	SELECT g, s.* FROM generate_series(0, 7) g, LATERAL (SELECT sum(i4) si, count(*) c FROM el_t WHERE k = g) s ORDER BY g;
SELECT results_eq('el_on4'::refcursor, 'el_off4'::refcursor, 'LATERAL rescans with new outer values equal the native run');
SET LOCAL gpuagg.enabled = on;

SET LOCAL gpuagg.enabled = off;
DECLARE el_off5 CURSOR FOR
	SELECT k, sum(i4) FILTER (WHERE i4 > 500), max(f8 * 2.0) FROM el_t WHERE i4 < 500 * 100 GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('EXECUTE el_p1(500, 2.0)', 'el_off5'::refcursor,
	'generic plan with parameters equals the native run');

-- A user-defined aggregate built from a supported transition function but
-- with its own initial condition must still give the native answer
-- (offloaded or not).
CREATE AGGREGATE pg_temp.el_sum1000(int4) (sfunc = int4_sum, stype = int8, initcond = '1000');
CREATE AGGREGATE pg_temp.el_max100(int4) (sfunc = int4larger, stype = int4, initcond = '100');
SET LOCAL gpuagg.enabled = on;
DECLARE el_on6 CURSOR FOR
	SELECT k, pg_temp.el_sum1000(i2), pg_temp.el_max100(i2) FROM el_t GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = off;
DECLARE el_off6 CURSOR FOR
	SELECT k, pg_temp.el_sum1000(i2), pg_temp.el_max100(i2) FROM el_t GROUP BY k ORDER BY k;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('el_on6'::refcursor, 'el_off6'::refcursor,
	'user-defined aggregates with an initcond equal the native run');

DEALLOCATE el_p1;
SELECT * FROM finish();
ROLLBACK;
