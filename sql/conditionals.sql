--
-- conditionals: CASE (searched and simple), COALESCE, NULLIF, GREATEST and
-- LEAST in keys, arguments, WHERE and FILTER; a branch PostgreSQL does not
-- evaluate raises nothing
--
SET gpuagg.force_offload = on;

CREATE TABLE co (a int4, b int4, x int8, f float8, r float4, d date,
				 t text, ok bool);
INSERT INTO co
SELECT CASE WHEN i % 17 = 0 THEN NULL ELSE i % 13 - 6 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i % 7 END,
	   i::int8 * 3,
	   CASE WHEN i % 23 = 0 THEN NULL WHEN i % 29 = 0 THEN 'NaN' ELSE i / 4.0 END,
	   (i % 50) / 8.0,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE date '2023-12-25' + i % 20 END,
	   CASE WHEN i % 31 = 0 THEN NULL ELSE 'w' || i % 5 END,
	   CASE WHEN i % 37 = 0 THEN NULL ELSE i % 4 <> 0 END
  FROM generate_series(1, 3000) i;
ANALYZE co;

-- searched CASE as a key, with and without ELSE
EXPLAIN (COSTS OFF)
SELECT CASE WHEN a < 0 THEN 'neg' WHEN a > 0 THEN 'pos' ELSE 'zero' END AS sign, count(*)
  FROM co GROUP BY 1;
SELECT check_offload('SELECT CASE WHEN a < 0 THEN ''neg'' WHEN a > 0 THEN ''pos'' ELSE ''zero'' END AS sign, count(*), sum(x) FROM co GROUP BY 1');
SELECT check_offload('SELECT CASE WHEN a < 0 THEN -1 WHEN a > 0 THEN 1 END AS s, count(*), min(b) FROM co GROUP BY 1');
-- simple CASE, and CASE in an argument and in WHERE and FILTER
SELECT check_offload('SELECT CASE b WHEN 1 THEN 10 WHEN 2 THEN 20 ELSE b END AS k, count(*) FROM co GROUP BY 1');
SELECT check_offload('SELECT b, sum(CASE WHEN ok THEN x ELSE 0 END), avg(CASE WHEN f > 100 THEN f END), count(CASE WHEN d > date ''2024-01-05'' THEN 1 END) FROM co GROUP BY b');
SELECT check_offload('SELECT b, count(*) FROM co WHERE CASE WHEN a IS NULL THEN ok ELSE a > 0 END GROUP BY b');
SELECT check_offload('SELECT b, sum(x) FILTER (WHERE CASE t WHEN ''w1'' THEN true WHEN ''w2'' THEN NULL ELSE false END) FROM co GROUP BY b');
-- nested, and a CASE operand that is itself an expression
SELECT check_offload('SELECT CASE a % 3 WHEN 0 THEN CASE WHEN b > 3 THEN 1 ELSE 2 END WHEN 1 THEN 3 END AS k, count(*), sum(a) FROM co GROUP BY 1');
-- a branch not taken is not evaluated: no division by zero
SELECT check_offload('SELECT b, sum(CASE WHEN a <> 0 THEN 60 / a ELSE 0 END) FROM co GROUP BY b');
SELECT check_offload('SELECT b, count(*) FROM co WHERE CASE WHEN a = 0 THEN false ELSE 60 / a > 5 END GROUP BY b');
-- but a branch taken raises the native error
SELECT b, sum(CASE WHEN a >= 0 THEN 60 / a ELSE 0 END) FROM co GROUP BY b;
SET gpuagg.enabled = off;
SELECT b, sum(CASE WHEN a >= 0 THEN 60 / a ELSE 0 END) FROM co GROUP BY b;
RESET gpuagg.enabled;

-- COALESCE: the first not NULL; later arguments not evaluated
SELECT check_offload('SELECT COALESCE(a, b, -100) AS k, count(*), sum(COALESCE(x, 0)) FROM co GROUP BY 1');
SELECT check_offload('SELECT COALESCE(t, ''none'') AS k, count(*), max(COALESCE(d, date ''2000-01-01'')) FROM co GROUP BY 1');
SELECT check_offload('SELECT b, sum(COALESCE(f, r)), count(*) FILTER (WHERE COALESCE(ok, false)) FROM co GROUP BY b');
SELECT check_offload('SELECT b, sum(COALESCE(a, 60 / (b - b))) FROM co WHERE a IS NOT NULL GROUP BY b');
-- NULLIF: with the operator's own equality
SELECT check_offload('SELECT NULLIF(a, 0) AS k, count(*), avg(NULLIF(f, ''NaN'')) FROM co GROUP BY 1');
SELECT check_offload('SELECT NULLIF(t, ''w3'') AS k, count(*) FROM co GROUP BY 1');
SELECT check_offload('SELECT b, sum(60 / NULLIF(a, 0)) FROM co GROUP BY b');
-- GREATEST and LEAST: NULLs skipped, NaN above every number
SELECT check_offload('SELECT GREATEST(a, b) AS k, count(*), sum(LEAST(a, b, 2)) FROM co GROUP BY 1');
SELECT check_offload('SELECT b, max(GREATEST(f, r)), min(LEAST(f, r)), sum(GREATEST(f, 1e3)) FROM co GROUP BY b');
SELECT check_offload('SELECT b, min(GREATEST(d, date ''2024-01-01'')), count(*) FILTER (WHERE LEAST(a, b) > 0) FROM co GROUP BY b');
SELECT check_offload('SELECT GREATEST(NULL::int4, a) AS k, count(*) FROM co GROUP BY 1');
-- IS [NOT] DISTINCT FROM: NULLs equal, with the operator's own equality
-- (NaN not distinct from NaN, an int4 against an int8, a date against a
-- timestamp, strings)
EXPLAIN (COSTS OFF) SELECT b, count(*) FROM co WHERE a IS DISTINCT FROM b GROUP BY b;
SELECT check_offload('SELECT a IS DISTINCT FROM b AS k, a IS NOT DISTINCT FROM b AS nk, count(*) FROM co GROUP BY 1, 2');
SELECT check_offload('SELECT b, count(*) FILTER (WHERE f IS DISTINCT FROM ''NaN''), count(*) FILTER (WHERE f IS NOT DISTINCT FROM r), count(*) FILTER (WHERE x IS DISTINCT FROM a) FROM co GROUP BY b');
SELECT check_offload('SELECT count(*) FILTER (WHERE t IS DISTINCT FROM ''w1''), count(*) FILTER (WHERE t IS NOT DISTINCT FROM NULLIF(t, ''w2'')), count(*) FILTER (WHERE d IS DISTINCT FROM timestamp ''2024-01-01 00:00'') FROM co');
SELECT check_offload('SELECT b, sum(x) FROM co WHERE ok IS DISTINCT FROM (a > 0) AND (a, b) IS DISTINCT FROM (b, a) GROUP BY b');
-- (in a branch not taken, its division raises nothing)
SELECT check_offload('SELECT count(*) FILTER (WHERE CASE WHEN a <> 0 THEN 60 / a IS DISTINCT FROM b END) FROM co');

-- what stays native says so
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT GREATEST(t, 'w2') AS k, count(*) FROM co GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT CASE WHEN a > 0 THEN t::varchar(1) ELSE t END AS k, count(*) FROM co GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT count(*) FROM co WHERE a IS DISTINCT FROM (random() * 10)::int4;
RESET gpuagg.log_fallback;

DROP TABLE co;
