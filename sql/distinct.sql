--
-- distinct: SELECT DISTINCT planned as the GROUP BY it equals (distinct.c),
-- and where it is not
--
SET gpuagg.force_offload = on;

CREATE TABLE dt (a int4, b int8, t text, c char(4), p bpchar, d date, f float8, n numeric(8, 2));
INSERT INTO dt
SELECT CASE WHEN i % 53 = 0 THEN NULL ELSE i % 17 END, i % 5, 'w' || (i % 11),
	   CASE i % 3 WHEN 0 THEN 'x' WHEN 1 THEN 'x  ' ELSE NULL END,
	   CASE i % 4 WHEN 0 THEN 'y' WHEN 1 THEN 'y  ' WHEN 2 THEN 'z ' ELSE NULL END,
	   date '2024-01-01' + i % 40, (i % 9) * 0.5, (i % 23) * 1.25
  FROM generate_series(1, 20000) i;
ANALYZE dt;

EXPLAIN (COSTS OFF) SELECT DISTINCT a, t FROM dt;
SELECT check_offload('SELECT DISTINCT a FROM dt');
-- NULLs one row; a bpchar's values that differ in trailing spaces alone
-- one row, as natively ('y' and 'y  ')
SELECT check_offload('SELECT DISTINCT a, b, t, c FROM dt');
SELECT check_offload('SELECT DISTINCT p, length(p::text) FROM dt');
SELECT count(*) FROM (SELECT DISTINCT p FROM dt) s;
-- a constant key over no rows, a sublink in the select list: as natively
-- (a volatile key stays native, in either form)
SELECT check_offload('SELECT DISTINCT 1 AS one, a FROM dt WHERE a > 100');
SELECT check_offload('SELECT DISTINCT random() < 2 AS r, b FROM dt');
SELECT check_offload('SELECT DISTINCT a, (SELECT max(b) FROM dt d2 WHERE d2.a = dt.a) FROM dt');
SELECT check_offload('SELECT DISTINCT d, n, b * 2 AS b2, upper(t) FROM dt WHERE a > 3');
SELECT check_offload('SELECT DISTINCT t COLLATE "en-x-icu" FROM dt');
-- ORDER BY and LIMIT over it
SELECT offloaded('SELECT DISTINCT a, b FROM dt WHERE a < 4 ORDER BY a DESC NULLS LAST, b LIMIT 7');
SELECT DISTINCT a, b FROM dt WHERE a < 4 ORDER BY a DESC NULLS LAST, b LIMIT 7;
SET gpuagg.enabled = off;
SELECT DISTINCT a, b FROM dt WHERE a < 4 ORDER BY a DESC NULLS LAST, b LIMIT 7;
RESET gpuagg.enabled;
-- at every level: in FROM, in a CTE, in IN
SELECT check_offload('SELECT count(*), count(a) FROM (SELECT DISTINCT a, t FROM dt) s');
SELECT check_offload('WITH u AS (SELECT DISTINCT b, d FROM dt WHERE f > 1) SELECT b, count(*) FROM u GROUP BY b');
SELECT check_offload('SELECT DISTINCT a FROM dt WHERE b IN (SELECT DISTINCT a FROM dt WHERE t = ''w3'')');
-- (both levels: two GpuAggs)
SELECT count(*) AS gpuaggs
  FROM regexp_matches(plan_text('SELECT DISTINCT a FROM dt WHERE b IN (SELECT DISTINCT a FROM dt WHERE t = ''w3'')'), '"Custom Plan Provider": "GpuAgg"', 'g');
-- each leaf of a UNION ALL; a table's primary key (PostgreSQL groups by
-- it alone)
SELECT check_offload('SELECT DISTINCT a FROM dt UNION ALL SELECT DISTINCT b FROM dt');
CREATE TABLE dk (id int4 PRIMARY KEY, g int4, s text);
INSERT INTO dk SELECT i, i % 7, 's' || (i % 3) FROM generate_series(1, 5000) i;
ANALYZE dk;
SELECT check_offload('SELECT DISTINCT id, g, s FROM dk WHERE g < 2');
-- keys that only sort (a tsvector) stay as written
EXPLAIN (COSTS OFF) SELECT DISTINCT to_tsvector('simple', t) FROM dt;

-- the form kept said with gpuagg.log_fallback
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT DISTINCT b FROM dt;
-- (unforced, the cheaper form: here the one as written)
SET gpuagg.force_offload = off;
EXPLAIN (COSTS OFF) SELECT DISTINCT b FROM dt;
SET gpuagg.force_offload = on;
RESET gpuagg.log_fallback;

-- kept as written: DISTINCT ON, DISTINCT over groups or window functions,
-- a set-returning function in the select list (DISTINCT applies to its
-- rows), a cursor
EXPLAIN (COSTS OFF) SELECT DISTINCT ON (a) a, t FROM dt ORDER BY a, t;
EXPLAIN (COSTS OFF) SELECT DISTINCT count(*) FROM dt GROUP BY a;
EXPLAIN (COSTS OFF) SELECT DISTINCT a, rank() OVER (ORDER BY a) FROM dt;
EXPLAIN (COSTS OFF) SELECT DISTINCT generate_series(1, b::int4) FROM dt;
SELECT array_agg(g ORDER BY g) FROM (SELECT DISTINCT generate_series(1, b::int4) AS g FROM dt) s;
BEGIN;
DECLARE dc CURSOR FOR SELECT DISTINCT b FROM dt ORDER BY b;
FETCH ALL FROM dc;
EXPLAIN (COSTS OFF) DECLARE dc2 CURSOR FOR SELECT DISTINCT b FROM dt ORDER BY b;
COMMIT;

DROP TABLE dt, dk;
