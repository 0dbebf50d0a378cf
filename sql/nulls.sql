--
-- nulls: NULL keys form one group, aggregates skip NULLs, NaN/Infinity/-0
--
SET gpuagg.force_offload = on;

CREATE TABLE nu (k int4, g int4, v int4, f float8, b bool);
INSERT INTO nu VALUES
	(1, NULL, 1, 1.5, true), (1, NULL, NULL, NULL, NULL), (1, 2, 3, NULL, false),
	(2, NULL, NULL, NULL, NULL), (NULL, NULL, 5, 2.5, true), (NULL, 1, NULL, 'NaN', NULL),
	(3, 1, NULL, NULL, NULL);
SELECT k, g, count(*), count(v), sum(v), avg(v), min(f), max(f), bool_and(b), bool_or(b)
  FROM nu GROUP BY k, g ORDER BY k, g;
SELECT check_offload('SELECT k, g, count(*), count(v), sum(v), avg(v), min(f), max(f), bool_and(b), bool_or(b), stddev(v), variance(f) FROM nu GROUP BY k, g');
-- all-NULL input: count 0, everything else NULL
SELECT count(v), sum(v), avg(v), min(v), stddev(v), bool_and(b) FROM nu WHERE k = 2;
SELECT check_offload('SELECT count(v), sum(v), avg(v), min(v), stddev(v), bool_and(b), sum(f), avg(f) FROM nu WHERE k = 2');

-- NaN equals NaN and sorts last; -0 equals 0; infinities are ordinary keys
CREATE TABLE fl (f float8, f4 float4, v int4);
INSERT INTO fl VALUES ('NaN', 'NaN', 1), ('NaN', 'NaN', 2), ('Infinity', 'Infinity', 3),
	('-Infinity', '-Infinity', 4), (0, 0, 5), (0, 0, 6), (1.5, 1.5, 7), (NULL, NULL, 8);
SELECT f, count(*), sum(v) FROM fl GROUP BY f ORDER BY f;
SELECT check_offload('SELECT f, count(*), sum(v) FROM fl GROUP BY f');
SELECT check_offload('SELECT f4, count(*), sum(v) FROM fl GROUP BY f4');
INSERT INTO fl VALUES ('-0', '-0', 9);
-- -0 joins the 0 group (which value is shown depends on arrival order)
SELECT f = 0 AS zero, count(*), sum(v) FROM fl WHERE f = 0 GROUP BY f;
SELECT check_offload('SELECT f + 0 AS f0, count(*), sum(v) FROM fl GROUP BY f');
SELECT min(f), max(f), min(f4), max(f4), sum(f), avg(f) FROM fl;
SELECT check_offload('SELECT min(f), max(f), min(f4), max(f4), sum(f), avg(f), variance(f) FROM fl WHERE f <> ''NaN''');
SELECT check_offload('SELECT v % 2, min(f), max(f), sum(f) FROM fl GROUP BY v % 2');
-- comparisons: NaN = NaN and NaN > everything, as PostgreSQL orders floats
SELECT check_offload('SELECT count(*) FILTER (WHERE f = ''NaN''), count(*) FILTER (WHERE f > 1e308), count(*) FILTER (WHERE f < ''NaN''), count(*) FILTER (WHERE f4 >= ''NaN'') FROM fl');

-- three-valued logic
SELECT check_offload('SELECT count(*) FROM nu WHERE b OR v > 2');
SELECT check_offload('SELECT count(*) FROM nu WHERE NOT (b AND v > 2)');
SELECT check_offload('SELECT count(*) FROM nu WHERE b IS NOT TRUE');
SELECT check_offload('SELECT count(*) FROM nu WHERE b IS UNKNOWN');
SELECT check_offload('SELECT count(*) FROM nu WHERE v IN (1, NULL)');
SELECT check_offload('SELECT count(*) FROM nu WHERE v NOT IN (1, NULL)');
SELECT check_offload('SELECT count(*) FROM nu WHERE v NOT IN (1, 3)');
SELECT check_offload('SELECT count(*) FROM nu WHERE (v > 2) IS NULL');

-- IS [NOT] NULL of a column of a type the devices do not read (jsonb,
-- inet, an array): its NULL bit alone, page batches or rows
CREATE TABLE nx AS SELECT i % 4 AS k,
	   CASE WHEN i % 3 = 0 THEN NULL ELSE jsonb_build_object('n', i) END AS j,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE ('10.0.0.' || i % 250)::inet END AS ip,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE ARRAY[i, i + 1] END AS a
  FROM generate_series(1, 2000) i;
SELECT check_offload('SELECT k, count(*) FILTER (WHERE j IS NULL), count(*) FILTER (WHERE ip IS NOT NULL), count(*) FILTER (WHERE a IS NULL AND j IS NOT NULL) FROM nx WHERE ip IS NOT NULL OR k = 0 GROUP BY k');
DROP TABLE nx;

DROP TABLE nu, fl;
