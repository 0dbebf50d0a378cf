--
-- filters: WHERE and FILTER expressions, keys and arguments as expressions
--
SET gpuagg.force_offload = on;

CREATE TABLE fi (a int4, b int4, s int2, x int8, f float8, r float4, d date, ok bool);
INSERT INTO fi
SELECT i % 13 - 6, i % 7, (i % 100)::int2, i::int8 * 3, i / 4.0, (i % 50) / 8.0,
       date '2023-12-25' + i % 20, i % 4 <> 0
  FROM generate_series(1, 2000) i;
INSERT INTO fi VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
ANALYZE fi;

-- comparisons, AND/OR/NOT, BETWEEN, IN lists, IS NULL
SELECT check_offload('SELECT count(*), sum(b) FROM fi WHERE a > 0');
SELECT check_offload('SELECT count(*) FROM fi WHERE a >= 0 AND b < 3 OR NOT ok');
SELECT check_offload('SELECT count(*) FROM fi WHERE a BETWEEN -2 AND 2');
SELECT check_offload('SELECT count(*) FROM fi WHERE a NOT BETWEEN -2 AND 2');
SELECT check_offload('SELECT count(*) FROM fi WHERE b IN (1, 3, 5)');
SELECT check_offload('SELECT count(*) FROM fi WHERE s NOT IN (1, 3, 5)');
SELECT check_offload('SELECT count(*) FROM fi WHERE f IN (0.25, 1.5, 2)');
SELECT check_offload('SELECT count(*) FROM fi WHERE d IN (''2024-01-01'', ''2024-01-02'')');
SELECT check_offload('SELECT count(*) FROM fi WHERE a IS NULL OR x IS NOT NULL AND ok');
SELECT check_offload('SELECT count(*) FROM fi WHERE ok = (a > 0)');
SELECT check_offload('SELECT count(*) FROM fi WHERE ok');
SELECT check_offload('SELECT count(*) FROM fi WHERE NOT ok');
-- abs of integers and floats (int2abs, int4abs, int8abs, fabs)
SELECT check_offload('SELECT abs(a) AS k, count(*), sum(abs(x - 3000)), max(abs(s - 50)), min(abs(f - 100.5)), max(abs(r - 3)) FROM fi GROUP BY 1');
SELECT check_offload('SELECT count(*) FROM fi WHERE abs(a) > 3 AND abs(f * -1) < 200');
SELECT check_offload('SELECT min(abs(f * -0.0))::text AS z, max(abs(r * -0.0))::text AS zr, min(f * -0.0)::text AS nz FROM fi');
-- mixed widths and casts
SELECT check_offload('SELECT count(*) FROM fi WHERE s < x AND s::int4 > a AND r < f');
SELECT check_offload('SELECT count(*) FROM fi WHERE a::float8 / 3 > 0.5 AND f::int4 % 2 = 0');
SELECT check_offload('SELECT count(*) FROM fi WHERE r::float8 = f::float4');
SELECT check_offload('SELECT count(*) FROM fi WHERE x::int2 > 100 AND a < 5');
-- dates against timestamps (TPC-H Q1 writes date '1998-12-01' - interval '90 days')
SELECT check_offload('SELECT count(*) FROM fi WHERE d <= date ''2024-01-10'' - interval ''3 days''');
SELECT check_offload('SELECT count(*) FROM fi WHERE timestamp ''2024-01-03 12:00'' < d AND d <> timestamp ''2024-01-05''');
CREATE TABLE fdt (d date);
INSERT INTO fdt VALUES ('infinity'), ('-infinity'), ('5874897-12-31'), ('294276-12-31'), ('2024-01-01'), (NULL);
SELECT check_offload('SELECT count(*) FILTER (WHERE d < timestamp ''infinity''), count(*) FILTER (WHERE d > timestamp ''294276-12-31 23:59:59''), count(*) FILTER (WHERE d = timestamp ''2024-01-01''), count(*) FILTER (WHERE d >= timestamp ''-infinity''), count(*) FILTER (WHERE d > timestamp ''infinity'') FROM fdt');
SELECT count(*) FILTER (WHERE d < timestamp 'infinity') AS lt_inf, count(*) FILTER (WHERE d > timestamp '294276-12-31 23:59:59') AS past_ts_range FROM fdt;
DROP TABLE fdt;
-- date arithmetic
SELECT check_offload('SELECT count(*) FROM fi WHERE d + 7 > date ''2024-01-05'' AND d - 1 < ''2024-01-10''');
SELECT check_offload('SELECT d - date ''2023-12-25'', count(*) FROM fi GROUP BY d - date ''2023-12-25''');
SELECT check_offload('SELECT 3 + d, count(*) FROM fi GROUP BY 3 + d');

-- keys and aggregate arguments as expressions
SELECT check_offload('SELECT a + 1, count(*) FROM fi GROUP BY a + 1');
SELECT check_offload('SELECT a * b, b - a, sum(x * 2), avg(f + 1), max(-a) FROM fi GROUP BY a * b, b - a');
SELECT check_offload('SELECT a % 3, sum(a * b), avg(r * 2), sum(s + s), min(x / 7) FROM fi GROUP BY a % 3');
SELECT check_offload('SELECT (a > 0), (f > 100), count(*), sum(f * r) FROM fi GROUP BY (a > 0), (f > 100)');
SELECT check_offload('SELECT +a, -f, count(*) FROM fi GROUP BY +a, -f');

-- FILTER, including one that keeps its argument from raising an error
SELECT a, count(*) FILTER (WHERE ok), sum(b) FILTER (WHERE b > 3),
       avg(x) FILTER (WHERE f < 100), sum(100 / b) FILTER (WHERE b <> 0)
  FROM fi WHERE a >= 4 GROUP BY a ORDER BY a;
SELECT check_offload('SELECT a, count(*) FILTER (WHERE ok), sum(b) FILTER (WHERE b > 3), avg(x) FILTER (WHERE f < 100), sum(100 / b) FILTER (WHERE b <> 0) FROM fi GROUP BY a');
SELECT check_offload('SELECT sum(1 / b) FILTER (WHERE b <> 0 AND b IS NOT NULL), bool_or(ok) FILTER (WHERE a IS NULL) FROM fi');
-- WHERE quals short-circuit like ExecQual: the cheap test guards the division
SELECT check_offload('SELECT count(*) FROM fi WHERE b <> 0 AND 10 / b > 2');
SELECT check_offload('SELECT count(*) FROM fi WHERE b = 0 OR 10 / b > 2');

-- constants and parameters of every width
SELECT check_offload('SELECT count(*) FROM fi WHERE x > 2147483648::int8 - 2147480000');
SELECT check_offload('SELECT count(*) FROM fi WHERE s > 50::int2 AND r > 1.5::float4');

-- DISTINCT changes nothing in min, max, bool_and and bool_or: offloaded
-- as without it (sum(DISTINCT) stays native: fallback.sql)
SELECT check_offload('SELECT b, min(DISTINCT a), max(DISTINCT f), max(DISTINCT d), bool_and(DISTINCT ok), bool_or(DISTINCT ok) FILTER (WHERE a > 0) FROM fi GROUP BY b');
SELECT check_offload('SELECT min(DISTINCT r), max(DISTINCT x), count(DISTINCT a) FROM fi');

DROP TABLE fi;
