--
-- types: every supported key and argument type, every aggregate
--
SET gpuagg.force_offload = on;

CREATE TABLE ty (
	k int4, b bool, i2 int2, i4 int4, i8 int8, f4 float4, f8 float8,
	d date, ts timestamp, tz timestamptz);
INSERT INTO ty
SELECT i % 5, i % 3 = 0, (i * 7 % 300 - 150)::int2, i * 1000 - 500000,
       i::int8 * 123456789012, (i / 3.0)::float4, i / 7.0,
       date '2024-02-27' + (i % 5), timestamp '2024-02-28 23:00' + i * interval '17 min',
       timestamptz '2024-01-01 00:00+00' + i * interval '1 hour'
  FROM generate_series(1, 1000) i;
ANALYZE ty;

-- each type as the group key
SELECT check_offload('SELECT b, count(*) FROM ty GROUP BY b');
SELECT check_offload('SELECT i2, count(*) FROM ty GROUP BY i2');
SELECT check_offload('SELECT i4 % 17, count(*) FROM ty GROUP BY i4 % 17');
SELECT check_offload('SELECT i8 / 1000000000000, count(*) FROM ty GROUP BY 1');
SELECT check_offload('SELECT f4, count(*) FROM ty GROUP BY f4');
SELECT check_offload('SELECT f8, count(*) FROM ty GROUP BY f8');
-- round (half to even, rint), trunc, floor, ceil and sign of a float8, NaN
-- and the infinities included, -0 grouped with 0 as natively
SELECT check_offload('SELECT round(f8 / 10), trunc(-f8 / 10), floor(f4 / 4), ceil(f8 / 3), ceiling(-f4), sign(f8), count(*) FROM ty GROUP BY 1, 2, 3, 4, 5, 6');
SELECT check_offload('SELECT round(x), trunc(x), floor(x), ceil(x), sign(x), count(*) FROM (SELECT CASE WHEN i4 % 7 = 0 THEN ''NaN''::float8 WHEN i4 % 7 = 1 THEN ''-Infinity'' WHEN i4 % 7 = 2 THEN -0.5 WHEN i4 % 7 = 3 THEN 2.5 ELSE f8 END AS x FROM ty) s GROUP BY 1, 2, 3, 4, 5');
SELECT check_offload('SELECT d, count(*) FROM ty GROUP BY d');
SELECT check_offload('SELECT ts, count(*) FROM ty GROUP BY ts');
SELECT check_offload('SELECT tz, count(*) FROM ty GROUP BY tz');
SELECT check_offload('SELECT k, b, d, count(*) FROM ty GROUP BY k, b, d');

-- each aggregate over each argument type it accepts
SELECT k, count(*), count(i2), sum(i2), sum(i4), sum(i8), avg(i2), avg(i4), avg(i8)
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, count(*), count(i2), sum(i2), sum(i4), sum(i8), avg(i2), avg(i4), avg(i8) FROM ty GROUP BY k');
SELECT k, round(sum(f4)::numeric, 1) AS sum_f4, round(sum(f8)::numeric, 6) AS sum_f8,
       round(avg(f4)::numeric, 6) AS avg_f4, round(avg(f8)::numeric, 6) AS avg_f8
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, sum(f4), sum(f8), avg(f4), avg(f8) FROM ty GROUP BY k');
SELECT k, min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), min(f4), max(f4),
       min(f8), max(f8), min(d), max(d), min(ts), max(ts)
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, min(i2), max(i2), min(i4), max(i4), min(i8), max(i8), min(f4), max(f4), min(f8), max(f8), min(d), max(d), min(ts), max(ts), min(tz), max(tz) FROM ty GROUP BY k');
SELECT k, bool_and(b), bool_or(b), every(b) FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, bool_and(b), bool_or(b), every(b) FROM ty GROUP BY k');
SELECT k, stddev(i2), variance(i4), stddev_pop(i8), var_samp(i8), var_pop(i4), stddev_samp(i4)
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, stddev(i2), variance(i4), stddev_pop(i8), var_samp(i8), var_pop(i4), stddev_samp(i4), variance(i2), var_pop(i2) FROM ty GROUP BY k');
SELECT k, round(stddev(f4)::numeric, 6), round(variance(f8)::numeric, 6),
       round(stddev_pop(f8)::numeric, 6), round(var_pop(f4)::numeric, 4)
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, round(stddev(f4)::numeric, 6), round(variance(f8)::numeric, 6), round(stddev_pop(f8)::numeric, 6), round(var_pop(f4)::numeric, 4), round(stddev_samp(f8)::numeric, 6), round(var_samp(f4)::numeric, 4) FROM ty GROUP BY k');

-- corr, covar_* and regr_* of (Y, X): PostgreSQL's six-value state; a row
-- where either argument is NULL is skipped; NaN and infinities as natively
SELECT k, round(corr(f8, i2)::numeric, 10), regr_count(f8, i2), round(regr_slope(i2, f8)::numeric, 6)
  FROM ty GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, corr(f8, i4), covar_pop(i2, f4), covar_samp(f8, f8), regr_slope(i4, f8), regr_intercept(i4, f8), regr_r2(f8, i2), regr_count(f4, i8), regr_avgx(f8, i2), regr_avgy(f8, i2), regr_sxx(i2, f8), regr_syy(i2, f8), regr_sxy(i2, f8) FROM ty GROUP BY k');
SELECT check_offload('SELECT b, corr(CASE WHEN i4 % 3 = 0 THEN NULL ELSE f8 END, CASE WHEN i2 % 5 = 0 THEN NULL ELSE i2 END), regr_count(CASE WHEN k = 1 THEN NULL ELSE f4 END, i8), corr(f8, f8 * 2) FILTER (WHERE k > 1) FROM ty GROUP BY b');
SELECT check_offload('SELECT k, corr(f8, CASE WHEN i2 > 100 THEN ''Infinity''::float8 ELSE f4 END), covar_pop(CASE WHEN i2 < -100 THEN ''NaN''::float8 ELSE f8 END, f4), regr_sxx(1, f8) FROM ty GROUP BY k');
SELECT check_offload('SELECT corr(f8, i4), regr_r2(i8, f8), covar_samp(f4, f4) FROM ty WHERE k > 100');
SELECT check_offload('SELECT corr(f8, i4), regr_r2(i8, f8), covar_samp(f4, f4), regr_count(f4, f4) FROM ty');
-- finite values whose squares overflow: PostgreSQL's error
SELECT check_error('SELECT k, covar_pop(f8 * 1e300, f8) FROM ty GROUP BY k');

-- many aggregates: ClickBench's 90 sums, 120 of mixed kinds by key; past
-- 128, native
SELECT check_offload((SELECT 'SELECT ' || string_agg(format('sum(i2 + %s)', g), ', ') || ' FROM ty'
						FROM generate_series(0, 89) g));
SELECT check_offload((SELECT 'SELECT k, ' || string_agg(format('%s(i4 + %s)', (ARRAY['sum', 'count', 'min', 'max'])[g % 4 + 1], g), ', ')
							 || ' FROM ty GROUP BY k' FROM generate_series(1, 120) g));
SELECT 'SELECT ' || string_agg(format('count(i2 + %s)', g), ', ') || ' FROM ty' AS q129
  FROM generate_series(1, 129) g \gset
SET gpuagg.log_fallback = on;
SELECT offloaded(:'q129');
RESET gpuagg.log_fallback;

-- result types are PostgreSQL's: sum(int4) is int8, sum(int8) and avg of
-- integers are numeric, variance of integers is numeric
SELECT pg_typeof(sum(i2)), pg_typeof(sum(i4)), pg_typeof(sum(i8)), pg_typeof(avg(i4)),
       pg_typeof(sum(f4)), pg_typeof(avg(f4)), pg_typeof(variance(i8)), pg_typeof(min(d))
  FROM ty;

-- exact 128-bit sums: beyond int8 in sum(int8), beyond int128 in sum(x^2)
CREATE TABLE big (k int4, v int8);
INSERT INTO big SELECT i % 2, 9223372036854775807 - i FROM generate_series(1, 100) i;
INSERT INTO big SELECT 2, -9223372036854775807 - 1 FROM generate_series(1, 100) i;
SELECT k, sum(v), avg(v), variance(v), stddev_pop(v) FROM big GROUP BY k ORDER BY k;
SELECT check_offload('SELECT k, sum(v), avg(v), variance(v), stddev_pop(v), var_pop(v), stddev(v) FROM big GROUP BY k');

-- a plain aggregate: exactly one row, also over no rows
SELECT count(*), sum(i4), avg(f8) IS NULL AS avg_null, max(d) FROM ty WHERE k > 100;
SELECT check_offload('SELECT count(*), sum(i4), avg(f8), max(d), bool_and(b) FROM ty WHERE k > 100');
SELECT check_offload('SELECT count(*), sum(i4), max(d), bool_or(b) FROM ty');
-- GROUP BY over no rows: no rows
SELECT check_offload('SELECT k, count(*) FROM ty WHERE k > 100 GROUP BY k');

-- count(x) of a type the device does not otherwise read
CREATE TABLE other (k int4, t text, n numeric);
INSERT INTO other VALUES (1, 'a', 1.5), (1, NULL, NULL), (2, 'b', 2), (2, 'c', NULL);
SELECT check_offload('SELECT k, count(t), count(n), count(*) FROM other GROUP BY k');

-- columns of domain types: read as their base types (a domain's checks
-- are the host's, where a value is cast to it)
CREATE DOMAIN ty_pos AS int4 CHECK (VALUE >= 0);
CREATE DOMAIN ty_name AS text;
CREATE DOMAIN ty_money AS numeric(12, 2);
CREATE DOMAIN ty_day AS date;
CREATE TABLE tyd AS
SELECT (i % 37)::ty_pos AS p, ('n' || i % 11)::ty_name AS s, (i * 0.25)::ty_money AS m,
	   (date '2024-01-01' + i % 90)::ty_day AS d, CASE WHEN i % 9 = 0 THEN NULL ELSE i END AS i
  FROM generate_series(1, 20000) i;
ANALYZE tyd;
EXPLAIN (COSTS OFF) SELECT p, s, count(*), sum(m) FROM tyd GROUP BY p, s;
SELECT same_in_pages('SELECT p, s, count(*), sum(m), avg(m), max(d), min(s) FROM tyd GROUP BY p, s');
SELECT same_in_pages('SELECT d, count(DISTINCT p), sum(p) FROM tyd WHERE s LIKE ''n1%'' AND p > 3 GROUP BY d');
SELECT same_in_pages('SELECT to_char(d, ''YYYY-MM'') AS mon, p::text AS t, lower(s) AS l, count(*) FROM tyd GROUP BY 1, 2, 3');
SELECT same_in_pages('SELECT sum(m), count(i) FROM tyd WHERE m > 100::ty_money');
-- (a cast to a domain checks every value: the host's)
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT sum((p - 10)::ty_pos) FROM tyd;
RESET gpuagg.log_fallback;
-- join keys of domain types: matched by the device as their base types
CREATE TABLE tydim AS
SELECT i::ty_pos AS p, ('n' || i)::ty_name AS s, 'g' || i % 4 AS g
  FROM generate_series(0, 30) i;
ANALYZE tydim;
EXPLAIN (COSTS OFF)
SELECT tydim.g, count(*) FROM tyd JOIN tydim ON tyd.p = tydim.p GROUP BY tydim.g;
SELECT same_in_pages('SELECT tydim.g, count(*), sum(m) FROM tyd JOIN tydim ON tyd.p = tydim.p GROUP BY tydim.g');
SELECT same_in_pages('SELECT tydim.g, count(*), max(d) FROM tyd JOIN tydim ON tyd.s = tydim.s AND tyd.p > tydim.p GROUP BY tydim.g');
DROP TABLE tyd, tydim;
DROP DOMAIN ty_pos, ty_name, ty_money, ty_day;

DROP TABLE ty, big, other;
