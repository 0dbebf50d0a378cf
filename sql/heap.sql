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
-- device takes page-form batches; programs with string predicates only
-- the host answers (ILIKE, a `_' in LIKE, < of strings) and temporary
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
SELECT check_offload('SELECT t, count(*), sum(g) FROM hq GROUP BY t');

-- Strings from the pages: the device codes text and varchar values itself,
-- in a dictionary that continues the query's (its constants first), and
-- gives its strings back at the end.  A value it cannot read -- compressed
-- inline, or TOASTed -- sends the scan back to the host, which reads it
-- again in column form.
CREATE FUNCTION string_counts(q text, OUT page_form bool, OUT device_coded bool,
							  OUT read_again int)
LANGUAGE sql AS $$
	SELECT p->>'Page Batches' IS NOT NULL, coalesce((p->>'Strings Coded by Device')::int, 0) > 0,
		   coalesce((p->>'Scans Read Again in Column Form')::int, 0)
	  FROM analyzed_plan(q) p
$$;
CREATE TABLE hs (k text, v varchar(20), n int4, s text) WITH (autovacuum_enabled = off);
INSERT INTO hs
SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE 'k' || (i % 50) END,
	   CASE WHEN i % 11 = 0 THEN NULL WHEN i % 3 = 0 THEN '' ELSE 'v' || (i % 13) END,
	   i,
	   repeat(chr(97 + i % 26), i % 300)	-- 1-byte and 4-byte headers
  FROM generate_series(1, 20000) i;
SELECT * FROM string_counts('SELECT k, count(*) FROM hs GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(n) FROM hs GROUP BY k');
SELECT check_offload('SELECT v, k, count(*), min(n) FROM hs GROUP BY v, k');
SELECT check_offload('SELECT s, count(*), max(n) FROM hs GROUP BY s');
SELECT check_offload('SELECT k, count(*) FROM hs WHERE k = ''k7'' OR k IN (''k8'', ''absent'') GROUP BY k');
SELECT check_offload('SELECT count(*) FILTER (WHERE v = ''v3''), count(*) FILTER (WHERE k <> ''k1'') FROM hs');
SELECT check_offload('SELECT n % 10, count(DISTINCT k), count(DISTINCT s), min(k COLLATE "C"), max(v COLLATE "C") FROM hs GROUP BY 1');
SELECT check_offload('SELECT k, max(s COLLATE "C"), min(s COLLATE "C") FROM hs GROUP BY k');
-- many distinct strings in small batches: the device's dictionary grows
CREATE TABLE hu AS SELECT 'u' || (i * 7919 % 30011) AS u, i % 3 AS n FROM generate_series(1, 30000) i;
SET gpuagg.batch_size = '64kB';
SELECT check_offload('SELECT u, count(*), sum(n) FROM hu GROUP BY u');
SELECT check_offload('SELECT n, count(DISTINCT u), min(u COLLATE "C") FROM hu GROUP BY n');
RESET gpuagg.batch_size;
-- LIKE and NOT LIKE of a pattern without `_' the devices match themselves,
-- byte for byte (gpuagg_page.h's ga_like); the strings the WHERE does not
-- read are coded only in the rows it keeps: 111 here, of 30011 distinct.
-- A `_', ILIKE, or a value compressed inline needs the host's function:
-- column form.
SELECT * FROM string_counts('SELECT count(*) FROM hs WHERE k LIKE ''k1%''');
SELECT check_offload('SELECT k, count(*) FROM hs WHERE k LIKE ''k1%'' GROUP BY k');
SELECT p, check_offload(format('SELECT k, count(*), count(s), min(v COLLATE "C") FROM hs WHERE s LIKE %L GROUP BY k', p)) AS "like",
	   check_offload(format('SELECT n %% 3, count(*) FILTER (WHERE k NOT LIKE %L), max(k COLLATE "C") FROM hs GROUP BY 1', p)) AS not_like
  FROM (VALUES (''), ('%'), ('%%'), ('a%'), ('%b'), ('%cc%c%'), ('k1%'), ('%1'),
			   ('k%1%'), ('k\%%'), ('\k%'), ('%a%a%a%a%a%'), ('aaa')) v(p);
SELECT * FROM string_counts('SELECT u, count(*) FROM hu WHERE n = 1 AND u LIKE ''%77%'' GROUP BY u');
SELECT (analyzed_plan('SELECT min(u COLLATE "C"), count(*) FROM hu WHERE u LIKE ''u12%7''')->>'Strings Coded by Device')::int AS coded,
	   (SELECT count(DISTINCT u) FROM hu WHERE u LIKE 'u12%7') AS distinct_kept;
SELECT check_offload('SELECT min(u COLLATE "C"), max(u COLLATE "C"), count(*) FROM hu WHERE u LIKE ''u12%7''');
-- quals that read no string column first: the strings the later ones
-- read are coded only in the rows those keep (a third of them here).
-- Where no qual can raise an error the planner puts them first itself
-- (an equality with a constant, which PostgreSQL rebuilds, comes last
-- otherwise); a division that can fail keeps the order written
SELECT (analyzed_plan('SELECT u, count(*) FROM hu WHERE u <> ''u3'' AND 100 / (n + 1) > 40 GROUP BY u')->>'Strings Coded by Device')::int AS coded_in_order,
	   (analyzed_plan('SELECT u, count(*) FROM hu WHERE u <> ''u3'' AND n = 1 GROUP BY u')->>'Strings Coded by Device')::int AS coded_reordered,
	   (analyzed_plan('SELECT u, count(*) FROM hu WHERE n > 0 AND n < 2 AND u <> ''u3'' GROUP BY u')->>'Strings Coded by Device')::int AS coded_kept;
SELECT plan_text('SELECT u, count(*) FROM hu WHERE u <> ''u3'' AND n = 1 GROUP BY u')
	   LIKE '%"Device Filter": "((n = 1) AND (u <> %' AS string_qual_last;
SELECT check_offload('SELECT u, count(*) FROM hu WHERE u <> ''u3'' AND n = 1 GROUP BY u');
SELECT check_offload('SELECT u, count(*) FROM hu WHERE u <> ''u3'' AND 100 / (n + 1) > 40 GROUP BY u');
SELECT check_offload('SELECT v, min(s COLLATE "C"), count(*) FROM hs WHERE s LIKE ''%b%'' AND v <> ''v1'' AND k IN (''k1'', ''k2'', ''k3'') GROUP BY v');
SELECT * FROM string_counts('SELECT count(*) FROM hs WHERE k LIKE ''k_''');
SELECT * FROM string_counts('SELECT count(*) FROM hs WHERE k ILIKE ''K1%''');
-- keys compressed inline (long, repetitive) and TOASTed (long, random)
CREATE TABLE hz (k text, n int4) WITH (autovacuum_enabled = off);
INSERT INTO hz SELECT 'z' || (i % 20), i FROM generate_series(1, 5000) i;
INSERT INTO hz SELECT repeat('c', 3000 + i % 3), i FROM generate_series(1, 30) i;
SELECT * FROM string_counts('SELECT k, count(*) FROM hz GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(n) FROM hz GROUP BY k');
SELECT * FROM string_counts('SELECT count(*) FROM hz WHERE k LIKE ''%cc%''');
-- gpuagg.stat counts such scans, server-wide
SELECT column_reruns AS reruns_before FROM gpuagg.stat \gset
SELECT count(*) FROM hz WHERE k LIKE '%cc%';
SELECT column_reruns - :reruns_before AS column_reruns_counted FROM gpuagg.stat;
SELECT check_offload('SELECT n % 4, count(*) FROM hz WHERE k LIKE ''%cc%'' OR k NOT LIKE ''z1%'' GROUP BY 1');
TRUNCATE hz;
INSERT INTO hz SELECT 'z' || (i % 20), i FROM generate_series(1, 5000) i;
INSERT INTO hz SELECT (SELECT string_agg(md5(i::text || '.' || j), '')
						 FROM generate_series(1, 90) j), i FROM generate_series(1, 10) i;
SELECT * FROM string_counts('SELECT k, count(*) FROM hz GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(n) FROM hz GROUP BY k');
-- without them, page form again
DELETE FROM hz WHERE length(k) > 100;
VACUUM hz;
SELECT * FROM string_counts('SELECT k, count(*) FROM hz GROUP BY k');
SELECT check_offload('SELECT k, count(*), sum(n) FROM hz GROUP BY k');
-- length(), char_length() and octet_length() of a string column itself:
-- the devices count them where the value lies in the page, UTF-8
-- characters of 1 to 4 bytes and bytes, under 1- and 4-byte headers, as
-- keys, arguments and in WHERE and FILTER (ClickBench Q28's form last)
CREATE TABLE hl (t text, v varchar(40), n int4) WITH (autovacuum_enabled = off);
INSERT INTO hl
SELECT CASE WHEN i % 9 = 0 THEN NULL WHEN i % 10 = 0 THEN ''
			ELSE repeat((ARRAY['a', 'é', '日', '😀', 'z'])[1 + i % 5], i % 200) END,
	   CASE WHEN i % 7 = 0 THEN NULL ELSE 'v' || repeat('ü', i % 5) END, i
  FROM generate_series(1, 20000) i;
SELECT * FROM string_counts('SELECT n % 5, sum(length(t)), max(octet_length(v)) FROM hl GROUP BY 1');
SELECT check_offload('SELECT n % 5, sum(length(t)), max(char_length(v)), sum(octet_length(t)), avg(length(v)), sum(character_length(t)) FROM hl GROUP BY 1');
SELECT check_offload('SELECT length(t) AS l, octet_length(v) AS o, count(*) FROM hl WHERE length(t) > 150 OR octet_length(v) = 9 GROUP BY 1, 2');
SELECT check_offload('SELECT n % 3, count(*) FILTER (WHERE char_length(t) BETWEEN 10 AND 20), avg(length(t)) FILTER (WHERE t <> '''') FROM hl GROUP BY 1');
SELECT check_offload('SELECT n % 50 AS k, avg(length(t)) AS l, count(*) AS c FROM hl WHERE t <> '''' GROUP BY 1 HAVING count(*) > 100 ORDER BY l DESC LIMIT 5');
-- (a string coded only in the rows the WHERE keeps, its length in each)
SELECT check_offload('SELECT t, length(t), count(*) FROM hl WHERE n % 7 = 0 GROUP BY t');
-- (another function of the string is the host's: column form)
SELECT * FROM string_counts('SELECT n % 5, sum(length(lower(t))) FROM hl GROUP BY 1');
-- a value compressed inline or TOASTed: its bytes from its header, in the
-- pages; its characters are the host's, the scan read again in column form
INSERT INTO hl VALUES (repeat('é', 3000), 'x', 1),
	((SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i), 'y', 2),
	((SELECT repeat(string_agg(md5(i::text), ''), 40) FROM generate_series(1, 100) i), 'z', 3);
SELECT octet_length(t), pg_column_size(t) < octet_length(t) AS compressed
  FROM hl WHERE octet_length(t) > 2000 ORDER BY 1;
SELECT * FROM string_counts('SELECT n % 5, sum(octet_length(t)) FROM hl GROUP BY 1');
SELECT check_offload('SELECT n % 5, sum(octet_length(t)), max(octet_length(t)), count(*) FILTER (WHERE octet_length(t) > 1000) FROM hl GROUP BY 1');
SELECT * FROM string_counts('SELECT n % 5, sum(length(t)) FROM hl GROUP BY 1');
SELECT check_offload('SELECT n % 5, sum(length(t)), max(char_length(t)), sum(octet_length(t)) FROM hl GROUP BY 1');
DROP TABLE hl;
-- (compressed with lz4: the header keeps the size the same way)
CREATE TABLE hl4 (t text COMPRESSION lz4, n int4) WITH (autovacuum_enabled = off);
INSERT INTO hl4 SELECT repeat('é' || i, 1000 + i), i FROM generate_series(1, 30) i;
SELECT count(*) FILTER (WHERE pg_column_compression(t) = 'lz4') AS lz4 FROM hl4;
SELECT * FROM string_counts('SELECT n % 3, sum(octet_length(t)) FROM hl4 GROUP BY 1');
SELECT check_offload('SELECT n % 3, sum(octet_length(t)), max(octet_length(t)), count(*) FROM hl4 GROUP BY 1');
DROP TABLE hl4;
-- substring(s FROM 1 FOR n), substr(s, 1, n) and left(s, n) of a string
-- column (or of a bpchar's text, its trailing spaces gone, as TPC-H Q22's
-- substring(c_phone FROM 1 FOR 2)): the devices code the first n
-- characters' bytes themselves, in the pages
CREATE TABLE hpre (t text, v varchar(20), b char(8), n int4) WITH (autovacuum_enabled = off);
INSERT INTO hpre
SELECT CASE WHEN i % 13 = 0 THEN NULL WHEN i % 17 = 0 THEN ''
			ELSE (ARRAY['ab', 'é日x', '😀😀z', 'a', 'xyz'])[1 + i % 5] || (i % 7) END,
	   'v' || (i % 9) || repeat('ü', i % 3),
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (ARRAY['a b', ' ab', 'ab  ', '', 'é ü'])[1 + i % 5] END,
	   i
  FROM generate_series(1, 20000) i;
SELECT * FROM string_counts('SELECT substring(t FROM 1 FOR 2), count(*) FROM hpre GROUP BY 1');
SELECT check_offload('SELECT substring(t FROM 1 FOR 2) AS p, left(v, 3) AS l, substr(b, 1, 2) AS s, count(*) FROM hpre GROUP BY 1, 2, 3');
SELECT check_offload('SELECT left(t, 0) AS z, left(t, 1) AS o, substring(b FROM 1 FOR 5) AS f, count(*), min(n) FROM hpre GROUP BY 1, 2, 3');
SELECT check_offload('SELECT substring(b FROM 1 FOR 2) AS k, count(*), sum(n) FROM hpre WHERE substring(b FROM 1 FOR 2) IN (''a'', ''ab'', '' a'', ''é'', '''') GROUP BY 1');
SELECT check_offload('SELECT count(*) FILTER (WHERE left(t, 1) = ''é''), count(DISTINCT left(t, 2)), min(substr(v, 1, 2) COLLATE "C") FROM hpre WHERE n % 3 = 0');
-- (coded only in the rows the WHERE keeps)
SELECT check_offload('SELECT left(t, 2), count(*) FROM hpre WHERE n % 5 = 0 GROUP BY 1');
-- (a compressed value's prefix is the host's: read again in column form)
INSERT INTO hpre VALUES (repeat('日', 3000), 'x', 'x', 1);
SELECT * FROM string_counts('SELECT left(t, 2), count(*) FROM hpre GROUP BY 1');
SELECT check_offload('SELECT left(t, 2), count(*) FROM hpre GROUP BY 1');
DROP TABLE hpre;
-- bpchar and numeric from the pages: the deformer makes a bpchar's two
-- codes (its bytes with and without trailing spaces) and a numeric's
-- scaled value (its base-10000 digits), also of columns added with a
-- default; a NaN it reads sends the query to its exact path
CREATE TABLE hn (c char(3), bp bpchar, m numeric(12,2), r numeric(8,4), n int4)
	WITH (autovacuum_enabled = off);
INSERT INTO hn
SELECT CASE WHEN i % 7 = 0 THEN NULL ELSE (ARRAY['a', 'a  ', 'b', '', 'é'])[1 + i % 5] END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE (ARRAY['x', 'x  ', 'yy ', ' z'])[1 + i % 4] END,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 7919 % 100000) / 100.0 - 400 END,
	   (i % 1000) / 7.0, i
  FROM generate_series(1, 20000) i;
SELECT * FROM string_counts('SELECT c, count(*) FROM hn GROUP BY c');
SELECT page_form('SELECT n % 10, sum(m) FROM hn GROUP BY 1') AS numeric_page_form;
SELECT check_offload('SELECT c, octet_length(c), count(*), sum(m), avg(r) FROM hn GROUP BY c');
-- (which of 'x' and 'x  ' a group shows is the first row's on the CPU
-- device; a native sort-based plan may show either: compared as text)
SELECT check_offload('SELECT bp::text, count(*), min(m), max(r) FROM hn WHERE c = ''a'' GROUP BY bp');
SELECT check_offload('SELECT count(DISTINCT bp), count(DISTINCT c), count(*) FILTER (WHERE bp = ''x  '') FROM hn');
SELECT check_offload('SELECT n % 10, sum(m * r), count(DISTINCT m), variance(r) FROM hn WHERE m > 0 GROUP BY 1');
ALTER TABLE hn ADD COLUMN d numeric(10,3) DEFAULT 12.5, ADD COLUMN e char(2) DEFAULT 'q';
INSERT INTO hn (c, m, d, e, n) SELECT 'b', i, i / 8.0, 'w ', i FROM generate_series(1, 300) i;
SELECT page_form('SELECT e, sum(d) FROM hn GROUP BY e') AS default_page_form;
SELECT check_offload('SELECT e, octet_length(e), sum(d), count(*) FROM hn GROUP BY e');
UPDATE hn SET r = 'NaN' WHERE n = 77;
SELECT check_offload('SELECT n % 10, sum(r), max(r) FROM hn GROUP BY 1');
SELECT analyzed_plan('SELECT n % 10, sum(r), max(r) FROM hn GROUP BY 1')->>'Exact Path Runs'
	AS exact_path_runs;
DROP TABLE hn;
ALTER TABLE hq DROP COLUMN b;
ALTER TABLE hq ADD COLUMN m int4 DEFAULT 42, ADD COLUMN n int8, ADD COLUMN o text DEFAULT 'old',
	ADD COLUMN p float8 DEFAULT -1.5, ADD COLUMN q bool DEFAULT true;
INSERT INTO hq (a, e, g, h, m, n, o, p, q) SELECT 1, i % 9, i, 1, i % 5, i, 'new', i, NULL FROM generate_series(1, 500) i;
SELECT page_form('SELECT e, sum(m) FROM hq GROUP BY e') AS page_form;
SELECT check_offload('SELECT e, count(*), sum(m), count(n), sum(n), sum(g), sum(p), count(q), bool_and(q) FROM hq GROUP BY e');
-- (a string added with a default: its code, given before the scan)
SELECT * FROM string_counts('SELECT o, count(*) FROM hq GROUP BY o');
SELECT check_offload('SELECT o, m, count(*), sum(h) FROM hq GROUP BY o, m');
SELECT check_offload('SELECT count(*) FILTER (WHERE o = ''old''), count(DISTINCT o) FROM hq');
-- (its LIKE's match and its length are not its code: the host deforms)
SELECT * FROM string_counts('SELECT count(*) FILTER (WHERE o LIKE ''ol%''), sum(length(o)) FROM hq');
SELECT check_offload('SELECT o, length(o), count(*) FILTER (WHERE o LIKE ''ol%''), sum(octet_length(o)) FROM hq GROUP BY o');
SELECT check_offload('SELECT count(*) FILTER (WHERE o LIKE ''ol%''), count(*) FILTER (WHERE o NOT LIKE ''%w'') FROM hq');
SELECT check_offload('SELECT m, count(*), sum(h), min(p) FROM hq GROUP BY m');
UPDATE hq SET e = e + 100 WHERE g % 10 = 0;
DELETE FROM hq WHERE g % 10 = 1;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
-- count(*) alone (no WHERE, no key): the host counts each batch's rows, the
-- tuples it found visible, and sends no page to a device that would read
-- no column of them (EXPLAIN ANALYZE: Rows Counted by Host, no bytes)
CREATE FUNCTION host_counted(q text, OUT rows_counted bigint, OUT no_bytes_sent bool)
LANGUAGE sql AS $$
	SELECT (n->>'Rows Counted by Host')::bigint, (n->>'Bytes To Device')::bigint = 0
	  FROM analyzed_plan(q) p, LATERAL (SELECT p UNION ALL SELECT json_array_elements(p->'Plans')) x(n)
	 WHERE n->>'Custom Plan Provider' = 'GpuAgg'
$$;
SELECT rows_counted = (SELECT count(*) FROM hq) AS counted_every_row, no_bytes_sent
  FROM host_counted('SELECT count(*) FROM hq');
SELECT check_offload('SELECT count(*) FROM hq');
SELECT check_offload('SELECT count(*), count(*) + 1 FROM hq HAVING count(*) > 10');
-- (anything else read of the rows: the device)
SELECT * FROM host_counted('SELECT count(*) FROM hq WHERE e > 3');
SELECT * FROM host_counted('SELECT count(*), count(e) FROM hq');
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
-- VACUUM marks a page all-visible only when its tuples are older than every
-- snapshot in the database: first wait out other backends' (an autovacuum
-- ANALYZE of an earlier test's table holds one)
DO $$
BEGIN
	FOR i IN 1..600 LOOP
		EXIT WHEN NOT EXISTS (SELECT 1 FROM pg_stat_activity
							   WHERE datname = current_database()
								 AND pid <> pg_backend_pid()
								 AND backend_xmin IS NOT NULL);
		PERFORM pg_sleep(0.1);
		COMMIT;
	END LOOP;
END
$$;
VACUUM hq;
SELECT * FROM page_counts('SELECT e, sum(g) FROM hq GROUP BY e');
SELECT check_offload('SELECT count(*) FROM hq');
-- a serializable transaction checks every tuple for conflicts: heapgetpage
-- reads every page, all-visible or not
BEGIN ISOLATION LEVEL SERIALIZABLE;
SELECT * FROM page_counts('SELECT e, sum(g) FROM hq GROUP BY e');
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
SELECT check_offload('SELECT count(*) FROM hq');
COMMIT;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
BEGIN;
UPDATE hq SET m = m + 1000 WHERE g % 7 = 0;
DELETE FROM hq WHERE g % 7 = 3;
INSERT INTO hq (e, g, m) SELECT 5, i, 1 FROM generate_series(1, 100) i;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
SELECT check_offload('SELECT count(*) FROM hq');
SELECT rows_counted = (SELECT count(*) FROM hq) AS counted_every_row, no_bytes_sent
  FROM host_counted('SELECT count(*) FROM hq');
ROLLBACK;
-- many batches, each pinning at most an eighth of shared_buffers
SET gpuagg.batch_size = '64kB';
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq GROUP BY e');
SELECT check_offload('SELECT count(*) FROM hq');
RESET gpuagg.batch_size;
CREATE TEMP TABLE hq_temp AS SELECT * FROM hq;
SELECT page_form('SELECT e, sum(m) FROM hq_temp GROUP BY e') AS temp_page_form;
SELECT check_offload('SELECT e, count(*), sum(g), sum(m) FROM hq_temp GROUP BY e');
RESET gpuagg.device;
RESET gpuagg.page_batches;
