--
-- heap: GpuAgg reads heap pages in place (page at a time, deforming only
-- the attributes it needs); tuples of every shape must read as a native
-- scan reads them
--
SET gpuagg.force_offload = on;

-- NULLs in every position, varlena before and between fixed-width columns,
-- alignment padding (int2, int8, bool, float4 mixed), a wide row
CREATE TABLE hp (a int2, t text, b int8, c bool, d float4, e int4, f float8,
				 pad text, g int8, h int2);
INSERT INTO hp
SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 100)::int2 END,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('x', i % 40) END,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE i::int8 * 3 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i % 2 = 0 END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 50) / 2.0 END,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE i % 9 END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE i / 3.0 END,
	   CASE WHEN i % 23 = 0 THEN repeat('w', 3000) ELSE 'p' END,
	   i::int8, (i % 7)::int2
  FROM generate_series(1, 20000) i;
SELECT check_offload('SELECT e, count(*), count(a), sum(a), sum(b), count(c), bool_or(c), sum(d), sum(f), sum(g), max(h) FROM hp GROUP BY e');
SELECT check_offload('SELECT h, count(*), sum(g), count(t) FROM hp WHERE b IS NULL OR f > 100 GROUP BY h');
SELECT check_offload('SELECT a, sum(g) FROM hp GROUP BY a');
SELECT check_offload('SELECT count(*), sum(h), min(g), max(g) FROM hp');

-- dropped and added columns: an added column reads its default (or NULL)
-- for the rows written before it, from the catalog (atthasmissing)
ALTER TABLE hp DROP COLUMN b;
ALTER TABLE hp ADD COLUMN m int4 DEFAULT 42, ADD COLUMN n int8, ADD COLUMN o text DEFAULT 'old';
INSERT INTO hp (a, e, g, h, m, n, o) SELECT 1, i % 9, i, 1, i % 5, i, 'new' FROM generate_series(1, 500) i;
SELECT check_offload('SELECT e, count(*), sum(m), count(n), sum(n), sum(g) FROM hp GROUP BY e');
SELECT check_offload('SELECT o, m, count(*), sum(h) FROM hp GROUP BY o, m');
SELECT check_offload('SELECT count(*) FILTER (WHERE m = 42), count(*) FILTER (WHERE n IS NULL), count(DISTINCT o) FROM hp');

-- dead and updated row versions not yet vacuumed, in the same pages
UPDATE hp SET e = e + 100 WHERE g % 10 = 0;
DELETE FROM hp WHERE g % 10 = 1;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hp GROUP BY e');
-- and after VACUUM (all-visible pages)
VACUUM hp;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hp GROUP BY e');

-- the transaction's own uncommitted changes are visible to it, others'
-- deleted rows are not (page visibility is heapam's, under the snapshot)
BEGIN;
UPDATE hp SET m = m + 1000 WHERE g % 7 = 0;
DELETE FROM hp WHERE g % 7 = 3;
INSERT INTO hp (e, g, m) SELECT 5, i, 1 FROM generate_series(1, 100) i;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hp GROUP BY e');
ROLLBACK;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hp GROUP BY e');

-- The same shapes as page-form batches (gpuagg.page_batches): the tuples go
-- to the device where they lie in shared buffers, pinned until it is done,
-- and it deforms them with gpuagg_page.h, the GPU's deformer.  The CPU
-- device takes page-form batches; programs with strings and temporary
-- tables (local buffers) keep column batches.
SET gpuagg.page_batches = on;
SET gpuagg.device = cpu;
CREATE FUNCTION page_form(q text) RETURNS bool
LANGUAGE sql AS $$
	SELECT analyzed_plan(q)::text LIKE '%"Page Batches":%'
$$;
-- (pad: compressed inline values, and incompressible ones stored out of
-- line, whose TOAST pointers the deformer steps over)
CREATE TABLE hq (a int2, t text, b int8, c bool, d float4, e int4, f float8,
				 pad text, g int8, h int2) WITH (autovacuum_enabled = off);
INSERT INTO hq
SELECT CASE WHEN i % 3 = 0 THEN NULL ELSE (i % 100)::int2 END,
	   CASE WHEN i % 5 = 0 THEN NULL ELSE repeat('x', i % 40) END,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE i::int8 * 3 END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i % 2 = 0 END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (i % 50) / 2.0 END,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE i % 9 END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE i / 3.0 END,
	   CASE WHEN i % 23 = 0 THEN repeat('w', 3000)
			WHEN i % 29 = 0 THEN (SELECT string_agg(md5(i::text || '.' || j), '')
									FROM generate_series(1, 90) j)
			ELSE 'p' END,
	   i::int8, (i % 7)::int2
  FROM generate_series(1, 20000) i;
SELECT pg_relation_size(reltoastrelid) > 0 AS has_out_of_line_values
  FROM pg_class WHERE relname = 'hq';
SELECT page_form('SELECT e, count(*) FROM hq GROUP BY e') AS page_form,
	   page_form('SELECT t, count(*) FROM hq GROUP BY t') AS strings_page_form;
SELECT check_offload('SELECT e, count(*), count(a), sum(a), sum(b), count(c), bool_or(c), sum(d), sum(f), sum(g), max(h) FROM hq GROUP BY e');
SELECT check_offload('SELECT h, count(*), sum(g), count(t) FROM hq WHERE b IS NULL OR f > 100 GROUP BY h');
SELECT check_offload('SELECT a, sum(g) FROM hq GROUP BY a');
SELECT check_offload('SELECT count(*), sum(h), min(g), max(g) FROM hq');
ALTER TABLE hq DROP COLUMN b;
ALTER TABLE hq ADD COLUMN m int4 DEFAULT 42, ADD COLUMN n int8, ADD COLUMN o text DEFAULT 'old',
	ADD COLUMN p float8 DEFAULT -1.5, ADD COLUMN q bool DEFAULT true;
INSERT INTO hq (a, e, g, h, m, n, o, p, q) SELECT 1, i % 9, i, 1, i % 5, i, 'new', i, NULL FROM generate_series(1, 500) i;
SELECT page_form('SELECT e, sum(m) FROM hq GROUP BY e') AS page_form;
SELECT check_offload('SELECT e, count(*), sum(m), count(n), sum(n), sum(g), sum(p), count(q), bool_and(q) FROM hq GROUP BY e');
SELECT check_offload('SELECT m, count(*), sum(h), min(p) FROM hq GROUP BY m');
UPDATE hq SET e = e + 100 WHERE g % 10 = 0;
DELETE FROM hq WHERE g % 10 = 1;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
-- EXPLAIN ANALYZE: the pages sent, and those whose tuples the host checked
-- for visibility (all of them before VACUUM, none after)
CREATE FUNCTION page_counts(q text, OUT pages_sent bool, OUT all_checked bool,
							OUT none_checked bool)
LANGUAGE sql AS $$
	SELECT (p->>'Pages')::int > 0 AND (p->>'Page Bytes')::int = 8 * (p->>'Pages')::int,
		   (p->>'Pages Checked by Host')::int = (p->>'Pages')::int,
		   (p->>'Pages Checked by Host')::int = 0
	  FROM analyzed_plan(q) p
$$;
SELECT * FROM page_counts('SELECT e, sum(g) FROM hq GROUP BY e');
VACUUM hq;
SELECT * FROM page_counts('SELECT e, sum(g) FROM hq GROUP BY e');
-- a serializable transaction checks every tuple for conflicts: heapgetpage
-- reads every page, all-visible or not
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM page_counts('SELECT e, sum(g) FROM hq GROUP BY e');
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
COMMIT;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
BEGIN;
UPDATE hq SET m = m + 1000 WHERE g % 7 = 0;
DELETE FROM hq WHERE g % 7 = 3;
INSERT INTO hq (e, g, m) SELECT 5, i, 1 FROM generate_series(1, 100) i;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
ROLLBACK;
-- many batches, each pinning at most an eighth of shared_buffers
SET gpuagg.batch_size = '64kB';
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
RESET gpuagg.batch_size;
CREATE TEMP TABLE hq_temp AS SELECT * FROM hq;
SELECT page_form('SELECT e, sum(m) FROM hq_temp GROUP BY e') AS temp_page_form;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq_temp GROUP BY e');
RESET gpuagg.device;
RESET gpuagg.page_batches;
