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

-- HAVING aggregate op constant: groups failing it are skipped before
-- their tuples are made (result.c's checks), and the device sends them
-- not back (GaProgram.having: Groups From Device), the rest still pass the qual;
-- each kind of value, each operator, the constant on either side, NULL
-- aggregates, numerics at their scale and a constant between its steps
CREATE TABLE hn (k int4, i2 int2, i8 int8, n numeric(12,2), m numeric);
INSERT INTO hn SELECT i % 97, (i % 50) - 25, CASE WHEN i % 97 = 5 THEN NULL ELSE i::int8 * 100000003 END,
	   CASE WHEN i % 97 = 7 THEN NULL ELSE (i % 1000) / 100.0 - 3 END, (i % 13) * 0.125
  FROM generate_series(1, 20000) i;
ANALYZE hn;
SELECT check_offload('SELECT k, count(*) FROM hn GROUP BY k HAVING count(*) > 206');
SELECT check_offload('SELECT k, count(n) FROM hn GROUP BY k HAVING count(n) = 206 AND 100 <= count(*)');
SELECT check_offload('SELECT k, sum(i2) FROM hn GROUP BY k HAVING sum(i2) >= -10 OR sum(i2) < -200');
SELECT check_offload('SELECT k, sum(i2) FROM hn GROUP BY k HAVING -50 < sum(i2) AND sum(i2) <= -20::int2');
SELECT check_offload('SELECT k, sum(i8) FROM hn GROUP BY k HAVING sum(i8) > 206000000000000');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > 410.005');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) >= 405.005 AND sum(n) < 415.001');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING 415.009 >= sum(n) AND 400.5 < sum(n)');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) = 422.47');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) = 422.475');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) < ''NaN''');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > ''-Infinity''');
-- half a step from sums and minima there are (422.47, 420.41, -3.00, 6.99):
-- a bound rounded the wrong way would drop their groups
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > 422.465');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) < 420.415');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING 420.415 > sum(n)');
SELECT check_offload('SELECT k, min(n) FROM hn GROUP BY k HAVING min(n) > -3.005');
SELECT check_offload('SELECT k, max(n) FROM hn GROUP BY k HAVING max(n) < 6.995 AND -3.005 < min(n)');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) < 1e30');
SELECT check_offload('SELECT k, sum(m) FROM hn GROUP BY k HAVING sum(m) > 155.1');
SELECT check_offload('SELECT k, min(n), max(i2) FROM hn GROUP BY k HAVING min(n) > -3 AND max(i2) = 24');
SELECT check_offload('SELECT k, max(n) FROM hn GROUP BY k HAVING max(n) <= 6.989');
SELECT check_offload('SELECT k FROM hn GROUP BY k HAVING sum(n) IS NULL OR sum(i8) IS NULL');
SELECT line FROM explain_stable('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > 410.005 AND count(*) > 0', true) line
 WHERE line ~ 'GpuAgg|Filter|Groups';
-- a bound that is a Param's value (TPC-H Q11's InitPlan, a generic plan's
-- $1), read when the first group is checked: NULL keeps none, NaN no check
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > (SELECT max(n) * 60 FROM hn)');
SELECT check_offload('SELECT k, count(*) FROM hn GROUP BY k HAVING count(*) >= (SELECT count(*) / 97 FROM hn)');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) > (SELECT NULL::numeric)');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) < (SELECT ''NaN''::numeric)');
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) = (SELECT 422.47)');
SELECT check_error('SELECT k, sum(n) FROM hn WHERE k > 90 GROUP BY k HAVING sum(n) > (SELECT 1 / (count(*) - 20000) FROM hn)');
SELECT check_error('SELECT k, sum(n) FROM hn WHERE k > 200 GROUP BY k HAVING sum(n) > (SELECT 1 / (count(*) - 20000) FROM hn)');
SET plan_cache_mode = force_generic_plan;
PREPARE hnp(numeric, int8) AS SELECT count(*), sum(s), sum(c) FROM (SELECT k, sum(n) AS s, count(*) AS c FROM hn GROUP BY k HAVING sum(n) > $1 AND count(*) > $2) x;
SELECT plan_text('EXECUTE hnp(410.005, 0)') LIKE '%$1%' AS generic;
EXECUTE hnp(410.005, 0);
EXECUTE hnp(NULL, 0);
EXECUTE hnp('NaN', 206);
SET gpuagg.enabled = off;
EXECUTE hnp(410.005, 0);
EXECUTE hnp(NULL, 0);
EXECUTE hnp('NaN', 206);
RESET gpuagg.enabled;
DEALLOCATE hnp;
RESET plan_cache_mode;
-- (a plain aggregate's one group is the node's, whatever HAVING says: the
-- host may add the count, and then it checks)
SELECT check_offload('SELECT count(*) FROM hn HAVING count(*) > 5');
SELECT check_offload('SELECT count(*) FROM hn HAVING count(*) < 5');
SELECT check_offload('SELECT count(*), sum(i2) FROM hn WHERE k > 3 HAVING count(*) < 5');
SELECT check_offload('SELECT count(*) FROM hn WHERE k < 0 HAVING count(*) >= 0');
-- no group is skipped whose finishing raises an error natively (every
-- aggregate is finished before HAVING), nor past a conjunct that may fail
SELECT check_error('SELECT k, percentile_disc(1.5) WITHIN GROUP (ORDER BY i2) FROM hn GROUP BY k HAVING count(*) > 100000');
SELECT check_error('SELECT k, count(*) FROM hn GROUP BY k HAVING 1 / (sum(i2) + 212) > 0 AND count(*) > 100000');
SELECT check_error('SELECT k, count(*) FROM hn GROUP BY k HAVING count(*) > 100000 AND 1 / (sum(i2) + 212) > 0');
-- grouping sets keep HAVING as written, as PostgreSQL does
SELECT check_error('SELECT k, count(*) FROM hn GROUP BY ROLLUP (k) HAVING 1 / (sum(i2) + 212) > 0 AND count(*) > 100000');
-- a constant past what numeric can scale: no error
SELECT check_offload('SELECT k, sum(n) FROM hn GROUP BY k HAVING sum(n) < ''9e131071''::numeric');
DROP TABLE hn;

DROP TABLE hv;

-- ORDER BY a count LIMIT n straight above: the node returns only the
-- groups whose count reaches the n-th (ties kept), the Sort and Limit
-- above pick exactly as from all of them
CREATE TABLE tn (k int4, s text, v int4);
INSERT INTO tn SELECT (i % 1000) * (i % 7) % 2000, 'w' || (i % 613),
	   CASE WHEN i % 9 = 0 THEN NULL ELSE i END
  FROM generate_series(1, 60000) i;
ANALYZE tn;
SET gpuagg.page_batches = off;
SELECT explain_stable('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5');
SELECT explain_stable('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5', true);
RESET gpuagg.page_batches;
SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5;
SELECT check_offload('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5');
-- ascending, count(x) skipping NULLs, an alias
SELECT check_offload('SELECT s, count(v) AS c FROM tn GROUP BY s ORDER BY c, s LIMIT 7');
-- OFFSET, ties at the n-th, more than there are groups, the count only in ORDER BY
SELECT check_offload('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 4 OFFSET 3');
SELECT check_offload('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC FETCH FIRST 3 ROWS WITH TIES');
SELECT check_offload('SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 100000');
SELECT check_offload('SELECT k FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5');
SELECT check_offload('SELECT s, k % 3, count(*), sum(v) FROM tn WHERE v > 100 GROUP BY 1, 2 ORDER BY 3 DESC, 1, 2 LIMIT 10');
-- group keys after the count break its ties (by value only: a text key
-- ends them); a group a row, so every count ties (ClickBench Q33)
CREATE TABLE tt (id int8, g int4, f float8, s text);
INSERT INTO tt SELECT i * 7919 % 100003, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 5 END,
  CASE i % 9 WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN '-0'::float8 ELSE i % 4 END, 'x' || i % 3
  FROM generate_series(1, 20000) i;
INSERT INTO tt SELECT NULL, i % 3, NULL, NULL FROM generate_series(1, 4) i;
ANALYZE tt;
SET gpuagg.page_batches = off;
SELECT explain_stable('SELECT id, g, count(*) FROM tt GROUP BY id, g ORDER BY count(*) DESC, id DESC, g LIMIT 5', true);
SELECT explain_stable('SELECT s, g, count(*) FROM tt GROUP BY s, g, f ORDER BY count(*), g NULLS FIRST, s, f LIMIT 5');
RESET gpuagg.page_batches;
SELECT q, check_offload(q)
  FROM (VALUES ('SELECT id, g, count(*) FROM tt GROUP BY id, g ORDER BY count(*) DESC, id DESC, g LIMIT 5'),
			   ('SELECT id, count(*) FROM tt GROUP BY id ORDER BY count(*) DESC, id NULLS FIRST LIMIT 3'),
			   ('SELECT id, count(*) FROM tt GROUP BY id ORDER BY count(*) DESC, id DESC NULLS LAST LIMIT 3 OFFSET 2'),
			   ('SELECT g, f, count(*) FROM tt GROUP BY g, f ORDER BY count(*), g, f DESC LIMIT 6'),
			   ('SELECT g, s, count(*) FROM tt GROUP BY g, s ORDER BY count(*) DESC, g NULLS FIRST, s LIMIT 4'),
			   ('SELECT id, g, count(*) FROM tt GROUP BY id, g ORDER BY count(*) DESC, g, id LIMIT 4 OFFSET 9998')) t(q);
-- a Top-N node's counters (under its Limit and Sort): fewer groups than
-- bound came from the device, and how many the node returned
CREATE FUNCTION topn_counts(q text, bound int, OUT narrowed bool, OUT returned text)
LANGUAGE sql AS $$
	SELECT (n->>'Groups From Device')::int < bound, n->>'Groups Returned'
	  FROM (SELECT analyzed_plan(q)->'Plans'->0->'Plans'->0 AS n) p
$$;
-- the count and its tie keys the whole ORDER BY: of groups tied in all of
-- them any will do, so the device returns n of them, not every tied group
-- (ClickBench Q33 as written: a group a row, ORDER BY the count alone);
-- which ones is the engine's choice, as natively, so the counts compare
SELECT explain_stable('SELECT id, count(*) AS c FROM tt GROUP BY id ORDER BY c DESC LIMIT 10');
-- (which groups the device sends depends on where they lie: at most a few
-- thousand of the 20001; the node returns 10)
SELECT * FROM topn_counts('SELECT id, count(*) AS c FROM tt GROUP BY id ORDER BY c DESC LIMIT 10', 5000);
SELECT check_offload('SELECT c FROM (SELECT id, count(*) AS c FROM tt GROUP BY id ORDER BY c DESC LIMIT 10) s');
SELECT check_offload('SELECT g, c FROM (SELECT id, g, count(*) AS c FROM tt GROUP BY id, g ORDER BY c DESC, g LIMIT 10) s');
-- ... but FETCH ... WITH TIES returns every tied group
SELECT check_offload('SELECT count(*) FROM (SELECT id, count(*) AS c FROM tt GROUP BY id ORDER BY c DESC FETCH FIRST 2 ROWS WITH TIES) s');
DROP TABLE tt;
-- thousands of groups tied in the count and a key whose NULL shares its
-- word with the key's extreme value: the NULLs' side still ranks them
CREATE TABLE tw (id int4, k int8);
INSERT INTO tw SELECT i, CASE (i - 1) / 6000 WHEN 0 THEN -9223372036854775808 WHEN 1 THEN NULL
	ELSE 9223372036854775807 END FROM generate_series(1, 18000) i;
ANALYZE tw;
SELECT q, check_offload(q)
  FROM (VALUES ('SELECT k, c FROM (SELECT id, k, count(*) AS c FROM tw GROUP BY id, k ORDER BY c DESC, k NULLS FIRST LIMIT 3) s'),
			   ('SELECT k, c FROM (SELECT id, k, count(*) AS c FROM tw WHERE k IS NULL OR k > 0 GROUP BY id, k ORDER BY c DESC, k LIMIT 3) s'),
			   ('SELECT k, c FROM (SELECT id, k, count(*) AS c FROM tw GROUP BY id, k ORDER BY c DESC, k DESC LIMIT 3) s'),
			   ('SELECT k, c FROM (SELECT id, k, count(*) AS c FROM tw WHERE k IS NULL OR k < 0 GROUP BY id, k ORDER BY c DESC, k DESC NULLS LAST LIMIT 3) s')) t(q);
DROP TABLE tw;
-- ... and with a key after it, that key's word must not decide between a
-- NULL and the extreme value it shares a word with (the device's tie keys
-- end at such a key)
CREATE TABLE tc (id int4, k int8, j int4);
INSERT INTO tc SELECT i, NULL, 1000 + i FROM generate_series(1, 6000) i;
INSERT INTO tc SELECT 6000 + i, -9223372036854775808, i FROM generate_series(1, 6000) i;
ANALYZE tc;
SELECT check_offload('SELECT k, j, c FROM (SELECT id, k, j, count(*) AS c FROM tc GROUP BY id, k, j ORDER BY c DESC, k NULLS FIRST, j LIMIT 3) s');
SELECT check_offload('SELECT k, j, c FROM (SELECT id, k, j, count(*) AS c FROM tc GROUP BY id, k, j ORDER BY c DESC, k DESC NULLS LAST, j DESC LIMIT 3) s');
DROP TABLE tc;
-- the device chooses the groups it sends back by a radix select over the
-- count and the tie keys (gpuagg_topn.h): every type it orders by, with
-- NULLs, NaN, -0, infinities and each type's extremes, ascending and
-- descending; counts of 3 or 4 a group, so thousands tie and the select
-- goes on into the keys' words
CREATE TABLE tk AS
  SELECT x,
    CASE WHEN x % 97 = 0 THEN NULL WHEN x = 1 THEN -32768 WHEN x = 2 THEN 32767
	  ELSE x - 6000 END::int2 AS i2,
    CASE WHEN x % 89 = 0 THEN NULL WHEN x = 1 THEN -2147483648 WHEN x = 2 THEN 2147483647
	  ELSE (x - 6000) * 350000 END::int4 AS i4,
    CASE WHEN x % 83 = 0 THEN NULL WHEN x = 1 THEN -9223372036854775808
	  WHEN x = 2 THEN 9223372036854775807 ELSE (x - 6000) * 1500000000000000 END::int8 AS i8,
    CASE WHEN x % 79 = 0 THEN NULL WHEN x IN (3, 7) THEN 'NaN' WHEN x = 4 THEN '-0'
	  WHEN x = 5 THEN 'Infinity' WHEN x = 6 THEN '-Infinity' ELSE (x - 6000) / 7.0 END::float4 AS f4,
    CASE WHEN x % 73 = 0 THEN NULL WHEN x IN (3, 7) THEN 'NaN' WHEN x = 4 THEN '-0'
	  WHEN x = 5 THEN 'Infinity' WHEN x = 6 THEN '-Infinity' ELSE (x - 6000) / 3.0 END::float8 AS f8,
    CASE WHEN x % 71 = 0 THEN NULL WHEN x = 5 THEN 'infinity' WHEN x = 6 THEN '-infinity'
	  ELSE date '2000-01-01' + (x - 6000) END::date AS d,
    CASE WHEN x % 67 = 0 THEN NULL WHEN x = 5 THEN 'infinity' WHEN x = 6 THEN '-infinity'
	  ELSE timestamp '2000-01-01' + (x - 6000) * interval '1 hour 1 second' END::timestamp AS ts,
    CASE WHEN x % 61 = 0 THEN NULL WHEN x = 5 THEN 'infinity' WHEN x = 6 THEN '-infinity'
	  ELSE timestamptz '2000-01-01 UTC' + (x - 6000) * interval '1 minute' END::timestamptz AS tz,
    CASE WHEN x % 59 = 0 THEN NULL ELSE x % 2 = 0 END AS b,
    'y' || x % 4 AS s
  FROM (SELECT i * 7919 % 12007 AS x FROM generate_series(1, 40000) i) r;
SET default_statistics_target = 200;	-- every row sampled: a stable estimate
ANALYZE tk;
RESET default_statistics_target;
SET gpuagg.page_batches = off;
SELECT explain_stable('SELECT i4, count(*) FROM tk GROUP BY i4 ORDER BY count(*), i4 DESC LIMIT 5', true);
RESET gpuagg.page_batches;
SELECT q, check_offload(q)
  FROM (VALUES ('SELECT i2, count(*) FROM tk GROUP BY i2 ORDER BY count(*), i2 LIMIT 5'),
			   ('SELECT i2, count(*) FROM tk GROUP BY i2 ORDER BY count(*) DESC, i2 DESC LIMIT 5'),
			   ('SELECT i4, count(*) FROM tk GROUP BY i4 ORDER BY count(*) DESC, i4 DESC NULLS LAST LIMIT 5 OFFSET 100'),
			   ('SELECT i4, count(*) FROM tk GROUP BY i4 ORDER BY count(*), i4 LIMIT 5'),
			   ('SELECT i8, count(*) FROM tk GROUP BY i8 ORDER BY count(*), i8 NULLS FIRST LIMIT 5'),
			   ('SELECT i8, count(*) FROM tk GROUP BY i8 ORDER BY count(*), i8 DESC LIMIT 5'),
			   ('SELECT f4, count(*) FROM tk GROUP BY f4 ORDER BY count(*), f4 DESC LIMIT 5'),
			   ('SELECT f4, count(*) FROM tk GROUP BY f4 ORDER BY count(*), f4 LIMIT 6 OFFSET 8020'),
			   ('SELECT f8, count(*) FROM tk GROUP BY f8 ORDER BY count(*), f8 LIMIT 8 OFFSET 8020'),
			   ('SELECT f8, count(*) FROM tk GROUP BY f8 ORDER BY count(*), f8 DESC NULLS LAST LIMIT 5'),
			   ('SELECT d, count(*) FROM tk GROUP BY d ORDER BY count(*) DESC, d NULLS FIRST LIMIT 4'),
			   ('SELECT d, count(*) FROM tk GROUP BY d ORDER BY count(*), d DESC LIMIT 4'),
			   ('SELECT ts, count(*) FROM tk GROUP BY ts ORDER BY count(*), ts DESC LIMIT 5'),
			   ('SELECT tz, count(*) FROM tk GROUP BY tz ORDER BY count(*), tz LIMIT 5'),
			   ('SELECT b, i4, count(*) FROM tk GROUP BY b, i4 ORDER BY count(*), b DESC, i4 LIMIT 5'),
			   ('SELECT b, f8, i2, count(x) FROM tk GROUP BY b, f8, i2 ORDER BY count(x), b NULLS FIRST, f8 DESC, i2 LIMIT 7'),
			   ('SELECT s, i4, count(*) FROM tk GROUP BY s, i4 ORDER BY count(*), s, i4 LIMIT 5'),
			   ('SELECT i4, count(*), sum(i8), avg(f8) FROM tk GROUP BY i4 ORDER BY count(*), i4 LIMIT 3'),
			   -- one key under ten names: more sort keys than a program has
			   -- keys (GA_MAX_KEYS); the device orders by each key once
			   ('SELECT b, i4 a1, i4 a2, i4 a3, i4 a4, i4 a5, i4 a6, i4 a7, i4 a8, i4 a9, i4 a10, count(*) FROM tk GROUP BY b, a1 ORDER BY 12 DESC, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1 LIMIT 5'),
			   ('SELECT b, i4 a1, i4 a2, i4 a3, i4 a4, i4 a5, i4 a6, i4 a7, i4 a8, i4 a9, i4 a10, count(*) FROM tk GROUP BY b, a1 ORDER BY 12, 2 DESC, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1 LIMIT 5')) t(q);
DROP TABLE tk;
-- ORDER BY a sum LIMIT n: of int2 or int4 (an int8), of int8 or numeric
-- (a numeric; int128 on the device, past int64 here); a sum of no rows is
-- NULL, first or last as the ORDER BY says; not avg, whose state is a sum's
CREATE TABLE ts AS
  SELECT i % 6000 AS k,
    CASE WHEN i % 6000 % 50 = 0 THEN NULL ELSE (i * 7919 % 2001) - 1000 END::int4 AS v,
    CASE WHEN i % 6000 % 70 = 0 THEN NULL ELSE (i::int8 * 104729 % 2001 - 1000) * 9000000000000000 END AS b,
    CASE WHEN i % 6000 % 90 = 0 THEN NULL ELSE (i * 31 % 100001) / 100.0 - 500 END::numeric(12,2) AS n
  FROM generate_series(1, 30000) i;
ANALYZE ts;
SELECT explain_stable('SELECT k, sum(v) FROM ts GROUP BY k ORDER BY sum(v) DESC NULLS LAST, k LIMIT 5');
SELECT explain_stable('SELECT k, avg(v) FROM ts GROUP BY k ORDER BY avg(v) DESC, k LIMIT 5');
SELECT * FROM topn_counts('SELECT k, sum(b) FROM ts GROUP BY k ORDER BY sum(b) DESC NULLS LAST, k LIMIT 5', 6000);
SELECT q, plan_text(q) LIKE '%Top-N%' AS top_n, check_offload(q)
  FROM (VALUES ('SELECT k, sum(v) FROM ts GROUP BY k ORDER BY sum(v) DESC, k LIMIT 5'),
			   ('SELECT k, sum(v) FILTER (WHERE v > 900) FROM ts GROUP BY k ORDER BY 2 DESC NULLS LAST, k LIMIT 5'),
			   ('SELECT k, sum(v) FILTER (WHERE v > 990) FROM ts GROUP BY k ORDER BY 2 NULLS FIRST, k LIMIT 5'),
			   ('SELECT k, sum(v) FROM ts GROUP BY k ORDER BY sum(v) DESC NULLS LAST, k LIMIT 5'),
			   ('SELECT k, sum(v) FROM ts GROUP BY k ORDER BY sum(v), k DESC LIMIT 5 OFFSET 2'),
			   ('SELECT k, sum(v) FROM ts GROUP BY k ORDER BY sum(v) NULLS FIRST, k LIMIT 130'),
			   ('SELECT k, sum(v::int2) FROM ts WHERE v BETWEEN -300 AND 300 GROUP BY k ORDER BY 2 DESC, k LIMIT 4'),
			   ('SELECT k, sum(b) FROM ts GROUP BY k ORDER BY sum(b) DESC, k LIMIT 5'),
			   ('SELECT k, sum(b) FROM ts GROUP BY k ORDER BY sum(b), k LIMIT 6'),
			   ('SELECT k, sum(b) FROM ts GROUP BY k ORDER BY sum(b) DESC NULLS LAST, k LIMIT 5'),
			   ('SELECT k, sum(n) AS s FROM ts GROUP BY k ORDER BY s DESC, k LIMIT 7 OFFSET 3'),
			   ('SELECT k, sum(n) FROM ts GROUP BY k ORDER BY sum(n) NULLS FIRST, k LIMIT 70'),
			   ('SELECT k % 7, sum(n) FROM ts GROUP BY 1 ORDER BY 2 DESC LIMIT 3'),
			   ('SELECT sum(n) FROM (SELECT k, sum(n) AS n FROM ts GROUP BY k ORDER BY n DESC LIMIT 10) s')) t(q);
DROP TABLE ts;
-- a group a row: the select reads past the sum's first word, into an
-- int128's low word (the high word the same for all), into the tie key
-- after a sum, and into the place
CREATE TABLE tu AS
  SELECT i AS id, i::int8 * 1000003 AS w, -(i::int8 * 1000003) AS neg, 7 AS x
  FROM generate_series(1, 20000) i;
-- (ids over 10000 two rows of 4.7e18: sums past 2^63, the low word's top
-- bit set under a high word of 0, as below it)
INSERT INTO tu SELECT i, 4700000000000000000 + i, 0, 0 FROM generate_series(10001, 20000) i;
UPDATE tu SET w = 4700000000000000000 + id WHERE id > 10000;
ANALYZE tu;
SELECT * FROM topn_counts('SELECT id, sum(w) FROM tu GROUP BY id ORDER BY sum(w) DESC LIMIT 5', 5000);
SELECT q, plan_text(q) LIKE '%Top-N%' AS top_n, check_offload(q)
  FROM (VALUES ('SELECT id, sum(w) FROM tu GROUP BY id ORDER BY sum(w) DESC LIMIT 5'),
			   ('SELECT id, sum(neg) FROM tu GROUP BY id ORDER BY sum(neg) LIMIT 5'),
			   ('SELECT id, sum(w) FROM tu GROUP BY id ORDER BY sum(w) LIMIT 5 OFFSET 9998'),
			   ('SELECT id, sum(x) FROM tu GROUP BY id ORDER BY sum(x) DESC, id DESC LIMIT 5'),
			   ('SELECT sum(x) FROM (SELECT id, sum(x) AS x FROM tu GROUP BY id ORDER BY x DESC LIMIT 5) s')) t(q);
DROP TABLE tu;
-- count(DISTINCT), which the device counts once its pairs are: every
-- group comes back, the node returns the n (ClickBench Q14)
SELECT returned FROM topn_counts('SELECT k, count(DISTINCT s) FROM tn GROUP BY k ORDER BY count(DISTINCT s) DESC, k LIMIT 5', 0);
SELECT q, plan_text(q) LIKE '%Top-N%' AS top_n, check_offload(q)
  FROM (VALUES ('SELECT k, count(DISTINCT s) FROM tn GROUP BY k ORDER BY count(DISTINCT s) DESC, k LIMIT 5'),
			   ('SELECT s, count(DISTINCT v) AS u FROM tn WHERE v > 100 GROUP BY s ORDER BY u DESC, s LIMIT 10'),
			   ('SELECT k, count(DISTINCT s), count(*) FROM tn GROUP BY k ORDER BY 2, k DESC LIMIT 3 OFFSET 2')) t(q);
DROP FUNCTION topn_counts;
-- no top-N where something between filters or reorders the groups, or the
-- first key is not a count or a sum of integers or numerics
SELECT q, plan_text(q) LIKE '%Top-N%' AS top_n, check_offload(q)
  FROM (VALUES ('SELECT k, count(*) FROM tn GROUP BY k HAVING sum(v) > 1000 ORDER BY count(*) DESC, k LIMIT 5'),
			   ('SELECT k, count(*), rank() OVER (ORDER BY k) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5'),
			   ('SELECT DISTINCT count(*) FROM tn GROUP BY k ORDER BY count(*) DESC LIMIT 5'),
			   ('SELECT k, sum(v::float8) FROM tn GROUP BY k ORDER BY 2 DESC, k LIMIT 5'),
			   ('SELECT k, avg(v) FROM tn GROUP BY k ORDER BY avg(v) DESC, k LIMIT 5'),
			   ('SELECT k, avg(v::int8) FROM tn GROUP BY k ORDER BY 2 DESC, k LIMIT 5'),
			   ('SELECT k, avg(v::numeric) FROM tn GROUP BY k ORDER BY 2, k LIMIT 5'),
			   ('SELECT k, sum(DISTINCT v) FROM tn GROUP BY k ORDER BY 2 DESC, k LIMIT 5'),
			   ('SELECT k, sum(v) FROM tn GROUP BY k ORDER BY -sum(v), k LIMIT 5'),
			   ('SELECT k, count(*) FROM tn GROUP BY k ORDER BY k LIMIT 5')) t(q);
-- an error a left-out group would raise is still raised: no top-N with an
-- expression over the aggregates (a native plan computes it for every
-- group below its Sort), and every group out when one's float sum overflowed
INSERT INTO tn VALUES (-1, 'zero', 0);
SELECT plan_text('SELECT k, count(*), 100 / min(v) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5') LIKE '%Top-N%' AS top_n;
SELECT check_error('SELECT k, count(*), 100 / min(v) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5');
SELECT check_error('SELECT k, count(*), sum(v)::int2 FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT 5');
CREATE TABLE tnf (k int4, f float8);
INSERT INTO tnf SELECT 1, 1.0 FROM generate_series(1, 100);
INSERT INTO tnf VALUES (2, 1e308), (2, 1e308);
ANALYZE tnf;
SELECT plan_text('SELECT k, count(*), sum(f) FROM tnf GROUP BY k ORDER BY count(*) DESC, k LIMIT 1') LIKE '%Top-N%' AS top_n;
SELECT check_error('SELECT k, count(*), sum(f) FROM tnf GROUP BY k ORDER BY count(*) DESC, k LIMIT 1');
SELECT check_error('SELECT k, count(*), avg(f) FROM tnf GROUP BY k ORDER BY count(*) DESC, k LIMIT 1');
-- LIMIT n without ORDER BY right above: any n groups will do, so the node
-- returns n (Device Limit), each a group native has, with its values
-- (which n is the engine's choice, as natively: setup.sql's
-- limited_groups); not where a group left out could raise an error native
-- raises as rows come (a float sum's overflow), nor a HAVING, nor a LIMIT
-- known only at execution, nor where the host folds values of every group
-- (min of strings under the collation)
SET gpuagg.page_batches = off;
SELECT explain_stable('SELECT k, count(*), sum(v) FROM tn GROUP BY k LIMIT 5', true);
RESET gpuagg.page_batches;
SELECT q, lim, limited_groups(q, lim)
  FROM (VALUES ('SELECT k, count(*), sum(v), min(v) FROM tn GROUP BY k', 'LIMIT 5'),
			   ('SELECT s, k % 5, count(v), max(v) FROM tn WHERE v > 100 GROUP BY 1, 2', 'LIMIT 4 OFFSET 3'),
			   ('SELECT k % 3, count(*) FROM tn GROUP BY 1', 'LIMIT 10'),
			   ('SELECT s, count(DISTINCT k), avg(v) FROM tn GROUP BY s', 'LIMIT 3'),
			   ('SELECT k, count(*) FROM tn GROUP BY k HAVING count(*) > 2', 'LIMIT 5'),
			   ('SELECT k, min(s) FROM tn GROUP BY k', 'LIMIT 5')) t(q, lim);
SELECT q, plan_text(q) LIKE '%Device Limit%' AS device_limit, check_error(q)
  FROM (VALUES ('SELECT k, count(*), sum(f) FROM tnf GROUP BY k LIMIT 1'),
			   ('SELECT k, avg(f) FROM tnf GROUP BY k LIMIT 1')) t(q);
SET plan_cache_mode = force_generic_plan;
PREPARE tnl(int) AS SELECT k, count(*) FROM tn GROUP BY k LIMIT $1;
SELECT plan_text('EXECUTE tnl(5)') LIKE '%Device Limit%' AS device_limit;
DEALLOCATE tnl;
RESET plan_cache_mode;
DROP TABLE tnf;
-- a LIMIT only known at execution: no top-N
SET plan_cache_mode = force_generic_plan;
PREPARE tnp(int) AS SELECT k, count(*) FROM tn GROUP BY k ORDER BY count(*) DESC, k LIMIT $1;
SELECT plan_text('EXECUTE tnp(5)') LIKE '%Top-N%' AS top_n;
EXECUTE tnp(3);
DEALLOCATE tnp;
RESET plan_cache_mode;
-- in the leader of a fed parallel GpuAgg
SET gpuagg.page_batches = on;
SET gpuagg.fed_groups = 0;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SELECT plan_text(q) LIKE '%Top-N%' AND plan_text(q) LIKE '%Gather%' AS fed_top_n, check_offload(q)
  FROM (VALUES ('SELECT s, count(*) FROM tn GROUP BY s ORDER BY count(*) DESC, s LIMIT 6')) t(q);
SELECT plan_text(q || ' LIMIT 6') LIKE '%Gather%' AS fed, limited_groups(q, 'LIMIT 6')
  FROM (VALUES ('SELECT s, count(*), max(k) FROM tn GROUP BY s')) t(q);
RESET gpuagg.tuple_cost;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
RESET gpuagg.fed_groups;
RESET gpuagg.page_batches;
DROP TABLE tn;
