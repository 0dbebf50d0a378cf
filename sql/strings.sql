--
-- strings: text, varchar and bpchar group keys, = / <> / IN on strings,
-- count(DISTINCT) of strings; every query compared with its native run
--
SET gpuagg.force_offload = on;

-- random strings with shared prefixes, the empty string, NULL, multibyte
-- UTF-8, and values long enough to be compressed or stored out of line
CREATE TABLE st (id int4, t text, v varchar(12), b char(6), bp bpchar, n int4, f float8);
SELECT setseed(0.5);
INSERT INTO st
SELECT i,
	   CASE WHEN i % 17 = 0 THEN NULL WHEN i % 13 = 0 THEN ''
			ELSE 'pre' || substr(md5((i % 97)::text), 1, 1 + i % 5) END,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE 'v' || (i % 7) END,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE 'b' || (i % 5) END,
	   CASE i % 4 WHEN 0 THEN 'x' WHEN 1 THEN 'x  ' WHEN 2 THEN 'y ' ELSE NULL END,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE (i * 7919) % 101 END,
	   CASE WHEN i % 29 = 0 THEN NULL ELSE (i % 9) / 4.0 END
  FROM generate_series(1, 5000) i;
INSERT INTO st VALUES
	(5001, 'Grüße', 'ünï', 'ä', 'ö', 1, 1), (5002, '日本語', '日本', '語', '本 ', 2, 2),
	(5003, 'Grüße', 'ünï', 'ä  ', 'ö  ', 3, 3), (5004, 'e' || repeat('é', 3000), 'x', 'x', 'x', 4, 4),
	(5005, repeat(md5('a'), 200), 'x', 'x', 'x', 5, 5),
	(5006, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i), 'x', 'x', 'x', 6, 6),
	(5007, (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i), 'x', 'x', 'x', 7, 7);
ANALYZE st;
-- the long values really are TOASTed: compressed, and out of line
SELECT count(*) FILTER (WHERE pg_column_size(t) < octet_length(t)) AS compressed,
	   count(*) FILTER (WHERE octet_length(t) > 8000) AS long
  FROM st WHERE id > 5003;

-- group keys of each string type
SELECT check_offload('SELECT t, count(*), sum(n) FROM st GROUP BY t');
SELECT check_offload('SELECT v, count(*), sum(n), avg(f) FROM st GROUP BY v');
SELECT check_offload('SELECT b, count(*), min(n) FROM st GROUP BY b');
SELECT check_offload('SELECT t, v, b, count(*) FROM st GROUP BY t, v, b');
SELECT check_offload('SELECT n % 3, t, count(*) FROM st GROUP BY n % 3, t');
SELECT check_offload('SELECT md5(t), length(t), count(*) FROM st GROUP BY t');
-- NULL and the empty string are two groups
SELECT t IS NULL AS is_null, t = '' AS is_empty, count(*) FROM st
 WHERE t IS NULL OR t = '' GROUP BY t ORDER BY 1;
SELECT check_offload('SELECT t IS NULL, t = '''', count(*) FROM st WHERE t IS NULL OR t = '''' GROUP BY t');
-- bpchar ignores trailing spaces: 'x' and 'x  ' are one group.  The CPU
-- device shows the group's first value (with its spaces), as a native hash
-- aggregate does; on the GPU rows arrive in no order, so a group shows one
-- of its values (as with -0 and 0), compared there without the spaces.
SELECT check_offload(CASE current_setting('gpuagg.device') WHEN 'cuda'
	THEN 'SELECT bp::text, count(*) FROM st GROUP BY bp'
	ELSE 'SELECT bp, octet_length(bp), count(*) FROM st GROUP BY bp' END);
SELECT check_offload(CASE current_setting('gpuagg.device') WHEN 'cuda'
	THEN 'SELECT bp::text, b, count(*) FROM st GROUP BY bp, b'
	ELSE 'SELECT bp, octet_length(bp), b, count(*) FROM st GROUP BY bp, b' END);
SELECT check_offload('SELECT b, octet_length(b), count(*) FROM st GROUP BY b');

-- WHERE and FILTER on strings: =, <>, IN, NOT IN, IS NULL, column = column
SELECT check_offload('SELECT v, count(*) FROM st WHERE t = ''pre5'' GROUP BY v');
SELECT check_offload('SELECT v, count(*) FROM st WHERE t <> '''' GROUP BY v');
SELECT check_offload('SELECT v, count(*) FROM st WHERE v IN (''v1'', ''v3'', ''nope'') GROUP BY v');
SELECT check_offload('SELECT v, count(*) FROM st WHERE v NOT IN (''v1'', ''v3'') GROUP BY v');
SELECT check_offload('SELECT v, count(*) FROM st WHERE v NOT IN (''v1'', NULL) GROUP BY v');
SELECT check_offload('SELECT count(*) FROM st WHERE t IS NULL');
SELECT check_offload('SELECT count(*) FROM st WHERE t = v OR v = ''x''');
SELECT check_offload('SELECT count(*) FROM st WHERE t = ''Grüße'' AND b = ''ä''');
SELECT check_offload('SELECT count(*) FROM st WHERE bp = ''x'' OR bp = ''y    ''');
SELECT check_offload('SELECT count(*) FROM st WHERE b IN (''b1  '', ''b2'')');
SELECT check_offload('SELECT v, count(*) FILTER (WHERE t = ''pre6''), count(*) FILTER (WHERE b <> ''b1'') FROM st GROUP BY v');
SELECT check_offload('SELECT count(*) FROM st WHERE t = ''e'' || repeat(''é'', 3000)');

-- count(text) and count(DISTINCT): strings, numbers, with FILTER, several
-- in one query, next to ordinary aggregates, with and without GROUP BY
SELECT count(t), count(DISTINCT t), count(DISTINCT v), count(DISTINCT bp) FROM st;
SELECT check_offload('SELECT count(t), count(DISTINCT t), count(DISTINCT v), count(DISTINCT bp), count(DISTINCT b) FROM st');
SELECT check_offload('SELECT v, count(DISTINCT t), count(*), sum(n) FROM st GROUP BY v');
SELECT check_offload('SELECT b, count(DISTINCT n), count(DISTINCT f), count(DISTINCT t) FILTER (WHERE n > 50), avg(f) FROM st GROUP BY b');
SELECT check_offload('SELECT count(DISTINCT n % 7), count(DISTINCT f * 0), count(DISTINCT n > 50) FROM st WHERE t <> ''''');
SELECT check_offload('SELECT v, b, count(DISTINCT id % 3) FROM st GROUP BY v, b HAVING count(DISTINCT t) > 2');
SELECT check_offload('SELECT count(DISTINCT t) FROM st WHERE id < 0');
SELECT check_offload('SELECT v, count(DISTINCT t) FROM st WHERE id < 0 GROUP BY v');

-- sum, avg, variance and stddev of DISTINCT values: the device keeps the
-- distinct (group, value) pairs, the host folds each group's values in
-- sorted order as nodeAgg does (float sums to the last bit)
SELECT check_offload('SELECT v, sum(DISTINCT n), avg(DISTINCT n), stddev(DISTINCT n), count(DISTINCT n), sum(n) FROM st GROUP BY v');
SELECT check_offload('SELECT b, sum(DISTINCT f), avg(DISTINCT f), var_pop(DISTINCT f) FILTER (WHERE id > 100) FROM st GROUP BY b');
SELECT check_offload('SELECT sum(DISTINCT id::float8 / 7), avg(DISTINCT (id % 50)::float4 / 3), sum(DISTINCT id::int8 * 1000000000000), variance(DISTINCT id % 13), sum(DISTINCT (id % 3)::int2) FROM st');
SELECT check_offload('SELECT t, sum(DISTINCT id % 5), avg(DISTINCT f) FROM st WHERE id < 0 GROUP BY t');

-- LIKE, NOT LIKE, ILIKE, NOT ILIKE with a constant pattern: the host calls
-- PostgreSQL's function once per distinct string, the device filters on the
-- answers
SELECT check_offload('SELECT v, count(*) FROM st WHERE t LIKE ''pre%'' GROUP BY v');
SELECT check_offload('SELECT v, count(*) FROM st WHERE t NOT LIKE ''%a%'' AND v LIKE ''v_'' GROUP BY v');
SELECT check_offload('SELECT count(*) FILTER (WHERE t ILIKE ''PRE%A%''), count(*) FILTER (WHERE t NOT ILIKE ''%B''), count(*) FILTER (WHERE t LIKE ''''), count(*) FILTER (WHERE t LIKE ''%'') FROM st');
SELECT check_offload('SELECT b, count(*) FROM st WHERE t LIKE ''Gr_%e'' OR t LIKE ''日本%'' OR t LIKE ''e%é'' GROUP BY b');
SELECT check_offload('SELECT count(*) FROM st WHERE t LIKE ''pre\%%'' OR t LIKE ''%\_%''');
SELECT check_offload('SELECT count(t LIKE ''%1%''), count(DISTINCT t) FILTER (WHERE t LIKE ''pre1%'') FROM st');
-- ... of char(n) and bpchar too, which match the value as stored, its
-- trailing spaces included (bpcharlike is textlike); a LIKE the device
-- matches in the pages
SELECT check_offload('SELECT b, count(*) FILTER (WHERE b LIKE ''b1''), count(*) FILTER (WHERE b LIKE ''b1%''), count(*) FILTER (WHERE b NOT LIKE ''%1 %'') FROM st GROUP BY b');
SELECT check_offload('SELECT bp, count(*) FILTER (WHERE bp LIKE ''x''), count(*) FILTER (WHERE bp LIKE ''x %''), count(*) FILTER (WHERE bp ILIKE ''Y%''), count(*) FILTER (WHERE bp NOT ILIKE ''X'') FROM st GROUP BY bp');
SELECT same_in_pages('SELECT n % 3, count(*) FROM st WHERE b LIKE ''%2 %'' GROUP BY 1');

-- regular expressions (~, ~*, !~, !~*, SIMILAR TO) with a constant pattern
-- that compiles: as LIKE, once per distinct string
SELECT check_offload('SELECT v, count(*) FROM st WHERE t ~ ''^pre[0-9a]'' GROUP BY v');
SELECT check_offload('SELECT count(*) FILTER (WHERE t ~* ''^PRE.*F$''), count(*) FILTER (WHERE t !~ ''[a-c]''), count(*) FILTER (WHERE v !~* ''V[12]''), count(*) FILTER (WHERE t SIMILAR TO ''pre(1|2)%'') FROM st');
SELECT check_offload('SELECT b, count(*) FILTER (WHERE b ~ ''1$''), count(*) FILTER (WHERE b ~ ''1 *$''), count(*) FILTER (WHERE bp ~ ''^y $''), count(*) FILTER (WHERE b::text ~ ''1$'') FROM st GROUP BY b');
-- against each of a constant array's patterns (LIKE ANY, ~ ALL, ...), and
-- regexp_like, regexp_count: the whole test once per distinct string
SELECT check_offload('SELECT v, count(*) FROM st WHERE t LIKE ANY (ARRAY[''pre1%'', ''%f'', ''Gr_%'']) GROUP BY v');
SELECT check_offload('SELECT count(*) FILTER (WHERE t NOT LIKE ALL (''{%a%,%b%}'')), count(*) FILTER (WHERE v ILIKE ANY (''{V1%}'')), count(*) FILTER (WHERE t ~ ANY (''{^pre[0-3],é$}'')), count(*) FILTER (WHERE t !~* ALL (''{A,B}'')) FROM st');
SELECT check_offload('SELECT regexp_count(t, ''[0-9]'') AS digits, regexp_like(v, ''^V[12]'') AS vl, count(*) FROM st GROUP BY 1, 2');
SELECT check_offload('SELECT CASE WHEN t LIKE ANY (ARRAY[''pre1%'', ''pre2%'']) THEN ''a'' WHEN t ~ ANY (ARRAY[''9$'']) THEN ''b'' END AS k, count(*) FROM st GROUP BY 1');
-- functions of a string that are NULL for some strings: substring(s FROM
-- pattern) and regexp_substr where the pattern does not match, a NULL
-- pattern in LIKE ANY where none other matches; as keys, in aggregates,
-- WHERE and FILTER, and of a joined table's column
SELECT check_offload('SELECT substring(t FROM ''^pre([0-3])'') AS k, count(*), count(substring(v FROM ''[12]$'')), min(regexp_substr(t, ''[a-f]+'')) FROM st GROUP BY 1');
SELECT check_offload('SELECT n % 3 AS g, count(*) FILTER (WHERE substring(t FROM ''[0-9]+'') = ''1''), sum(length(substring(t FROM ''e.*''))), max(lower(regexp_substr(v, ''V.''))) FROM st WHERE substring(t FROM ''^(Gr|pre)'') IS NOT NULL GROUP BY 1');
SELECT check_offload('SELECT count(*) FILTER (WHERE t LIKE ANY (ARRAY[''pre1%'', NULL])), count(*) FILTER (WHERE (t LIKE ANY (ARRAY[''pre1%'', NULL])) IS NULL), count(*) FILTER (WHERE t NOT LIKE ALL (ARRAY[''%a%'', NULL])) FROM st');
CREATE TABLE st_dim2 AS SELECT k, CASE WHEN k % 7 = 0 THEN NULL ELSE 'n' || k || CASE WHEN k % 3 = 0 THEN 'x' ELSE '' END END AS name
  FROM generate_series(0, 100) k;
ANALYZE st_dim2;
SELECT check_offload('SELECT substring(st_dim2.name FROM ''[0-9]x'') AS k, count(*) FROM st JOIN st_dim2 ON st.n = st_dim2.k GROUP BY 1');
SELECT check_offload('SELECT st.n % 4 AS g, count(substring(st_dim2.name FROM ''1.x'')), count(*) FILTER (WHERE substring(st_dim2.name FROM ''x$'') IS NULL) FROM st JOIN st_dim2 ON st.n = st_dim2.k GROUP BY 1');
DROP TABLE st_dim2;
-- a few LIKE patterns without _ (\_ is one) of the column itself: the OR
-- (AND) of its LIKEs, which the device matches in page form; with a _ the
-- host's column
SELECT same_in_pages('SELECT n % 3 AS g, count(*) FILTER (WHERE v LIKE ANY (ARRAY[''v1%'', ''%3'', NULL, ''v\_%''])), count(*) FILTER (WHERE v NOT LIKE ALL (ARRAY[''%5%'', ''%ï''])), count(*) FILTER (WHERE (v NOT LIKE ALL (ARRAY[''%2'', NULL])) IS NULL) FROM st GROUP BY 1');
SELECT check_offload('SELECT count(*) FILTER (WHERE t LIKE ANY (ARRAY[''pre_1%'', ''%f''])), count(*) FILTER (WHERE v LIKE ALL (ARRAY[''V%'', ''%1'', ''%2%'', ''%3%'', ''%4%'', ''%5%'', ''%6%'', ''%7%'', ''%8%''])) FROM st');
SET gpuagg.log_fallback = on;
-- a pattern ending in an escape (an error natively, for the rows it
-- reaches), a column's patterns, no pattern: native
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE ANY (ARRAY['pre1%', 'x\']);
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE ANY (ARRAY[v, 'a%']);
-- (an empty array answers even a NULL string: ALL true, ANY false)
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE ALL ('{}');
RESET gpuagg.log_fallback;

-- < <= > >= and BETWEEN of a text or varchar column and a constant, under
-- the expression's collation ("C", the database's, ICU): the host asks
-- PostgreSQL's text_lt and friends once per distinct string, as for LIKE
SELECT check_offload('SELECT v, count(*) FROM st WHERE t < ''pre5'' GROUP BY v');
-- ... nor where something the node computes could fail on the rows the
-- WHERE drops (the empty strings' length), nor for a key that is a cast or
-- COLLATE of the column
SELECT check_offload('SELECT t, sum(100 / length(t)) FROM st WHERE id <= 5000 AND t >= ''pre'' GROUP BY t');
SELECT check_offload('SELECT t COLLATE "C", count(*) FROM st WHERE id <= 5000 AND t > ''pre5'' GROUP BY 1');
SELECT check_offload('SELECT v::text, count(*) FROM st WHERE v < ''v3'' GROUP BY 1');
SELECT check_offload('SELECT count(*) FILTER (WHERE t >= ''pre2''), count(*) FILTER (WHERE ''pre7'' > t), count(*) FILTER (WHERE v <= ''v3''), count(*) FILTER (WHERE t BETWEEN ''Gr'' AND ''pre'') FROM st');
SELECT check_offload('SELECT t < ''b'' COLLATE "en-x-icu" AS lt, t > ''日'' COLLATE "C" AS gt, count(*) FROM st GROUP BY 1, 2');
SELECT check_offload('SELECT b, count(*) FROM st WHERE t COLLATE "und-x-icu" > ''E'' AND t <= ''zz'' GROUP BY b');

-- min/max of strings under "C": the device keeps each group's distinct
-- values, the host picks by bytes.
SELECT check_offload('SELECT v, min(t COLLATE "C"), max(t COLLATE "C"), count(*) FROM st GROUP BY v');
SELECT check_offload('SELECT min(t COLLATE "C"), max(v COLLATE "C"), max(t COLLATE "C") FILTER (WHERE n > 50), count(DISTINCT t) FROM st');
SELECT check_offload('SELECT b, min(t COLLATE "C") FROM st WHERE t <> '''' GROUP BY b');
SELECT check_offload('SELECT max(t COLLATE "C") FROM st WHERE id < 0');
SELECT check_offload('SELECT b, min(DISTINCT t COLLATE "C"), max(DISTINCT v COLLATE "C") FROM st GROUP BY b');
SELECT check_offload('SELECT n % 3, min(v COLLATE "C"), max(t COLLATE "C") FROM st WHERE id > 4990 GROUP BY n % 3');
-- ... and under any other deterministic collation, the host comparing as
-- text_smaller and text_larger do (the database's default, ICU, libc)
SELECT check_offload('SELECT v, min(t), max(t), count(*) FROM st GROUP BY v');
SELECT check_offload('SELECT b, min(t COLLATE "und-x-icu"), max(t COLLATE "en-x-icu"), max(v COLLATE "C") FROM st GROUP BY b');
SELECT check_offload('SELECT min(t COLLATE "und-x-icu"), max(t COLLATE "und-x-icu") FILTER (WHERE n > 50), min(DISTINCT v) FROM st');
SELECT check_offload('SELECT n % 3, max(t COLLATE "POSIX"), min(t COLLATE "en-x-icu") FROM st WHERE id > 4990 GROUP BY n % 3');
-- case and accents order otherwise than the bytes there
CREATE TABLE stx AS
SELECT i % 5 AS g, (ARRAY['b', 'B', 'a', 'Z', 'é', 'e', 'Ä', 'ä'])[1 + i % 8] || (i % 3) AS t
  FROM generate_series(1, 200) i;
SELECT check_offload('SELECT g, min(t COLLATE "en-x-icu"), max(t COLLATE "en-x-icu"), min(t COLLATE "C"), max(t COLLATE "C") FROM stx GROUP BY g');
SELECT min(t COLLATE "en-x-icu") AS min_icu, max(t COLLATE "en-x-icu") AS max_icu,
	   min(t COLLATE "C") AS min_c, max(t COLLATE "C") AS max_c
  FROM stx;
DROP TABLE stx;

-- functions of one string column (lower, upper, initcap, length, substring,
-- left, right, ||, starts_with, strpos, trims, replace, reverse,
-- split_part, regexp_replace, and LIKE or comparisons over them): the host
-- computes each once per distinct string into a column of codes, integers
-- or bools, so they work as keys, arguments and in WHERE and FILTER
EXPLAIN (COSTS OFF) SELECT lower(t), count(*) FROM st GROUP BY lower(t);
SELECT check_offload('SELECT lower(t) AS l, upper(v) AS u, count(*), sum(n) FROM st GROUP BY 1, 2');
SELECT check_offload('SELECT length(t) AS len, char_length(v) AS cl, octet_length(t) AS ol, count(*) FROM st GROUP BY 1, 2, 3');
SELECT check_offload('SELECT substring(t, 1, 4) AS p, substr(t, 3) AS q, left(t, 2) AS l, right(v, 1) AS r, count(*) FROM st GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT t || ''-x'' AS c, ''<'' || v || ''>'' AS d, count(*) FROM st GROUP BY 1, 2');
SELECT check_offload('SELECT count(*), sum(n) FILTER (WHERE starts_with(t, ''pre1'')), max(strpos(t, ''a'')), min(reverse(v)), count(DISTINCT lower(t)) FROM st WHERE length(t) > 4');
SELECT check_offload('SELECT rtrim(t, ''0123456789'') AS r, replace(t, ''pre'', ''P'') AS p, reverse(v) AS rv, btrim(''  '' || v) AS bt, count(*) FROM st GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT regexp_replace(t, ''^pre([0-9a-f]).*$'', ''\1'') AS k, split_part(t, ''e'', 2) AS s2, count(*), avg(length(t)), min(t) FROM st WHERE t <> '''' GROUP BY 1, 2');
SELECT check_offload('SELECT regexp_replace(v, ''V'', ''w'', ''gi'') AS k, count(*) FROM st GROUP BY 1');
SELECT check_offload('SELECT initcap(v) AS i, count(*) FROM st WHERE lower(t) LIKE ''%a%'' OR upper(t) >= ''PRE5'' GROUP BY 1');
-- multibyte and TOASTed strings: length counts characters, octet_length bytes
SELECT check_offload('SELECT id, max(length(t)), max(octet_length(t)), min(upper(t)), min(left(t, 2)), max(right(t, 3)) FROM st WHERE id > 5000 GROUP BY id');

-- = '' and <> '' of a text or varchar column are its length, which the
-- devices count in the pages: nothing else reads t here, so no string of
-- it is coded (ClickBench Q28); NULLs stay NULL, a bpchar of spaces
-- equals '' and is compared as before
SELECT same_in_pages('SELECT n % 5 AS g, count(*), avg(length(v)) FROM st WHERE id <= 5000 AND t <> '''' GROUP BY 1');
SELECT jsonb_path_query_first(p, '$.**."Strings Coded by Device"') IS NULL AS no_codes
  FROM CAST(analyzed_plan('SELECT n % 5 AS g, count(*), avg(length(v)) FROM st WHERE id <= 5000 AND '''' <> t GROUP BY 1') AS jsonb) p;
SELECT same_in_pages('SELECT t = '''' AS empty, v::text = '''' AS v_empty, count(*), sum(n) FILTER (WHERE t = '''') FROM st WHERE id <= 5000 GROUP BY 1, 2');
SELECT same_in_pages('SELECT count(*) FILTER (WHERE bp = ''''), count(*) FILTER (WHERE b <> '''') FROM st WHERE id <= 5000');
-- ... of a joined table's column too, in its filter and as a group key
CREATE TABLE st_dim AS SELECT k, CASE WHEN k % 5 = 0 THEN '' WHEN k % 7 = 0 THEN NULL ELSE 'n' || k END AS name
  FROM generate_series(0, 100) k;
ANALYZE st_dim;
SELECT check_offload('SELECT st.n % 3 AS g, count(*), sum(id) FROM st JOIN st_dim ON st.n = st_dim.k WHERE st_dim.name <> '''' GROUP BY 1');
SELECT check_offload('SELECT st_dim.name = '''' AS e, t = '''' AS te, count(*) FROM st JOIN st_dim ON st.n = st_dim.k GROUP BY 1, 2');
DROP TABLE st_dim;

-- a group key that is such a function yielding text (not a prefix the
-- devices code): the devices group by the string itself, in the pages, and
-- the host maps each distinct string of the groups and merges the groups
-- that then agree, combining their states as grouping sets do (ClickBench
-- Q29's regexp_replace of Referer)
EXPLAIN (COSTS OFF) SELECT regexp_replace(t, '^pre([0-9a-f]).*$', '\1') AS k, count(*) FROM st GROUP BY 1;
SELECT same_in_pages('SELECT regexp_replace(t, ''^pre([0-9a-f]).*$'', ''\1'') AS k, avg(length(v)), count(*), min(t), max(v) FROM st WHERE id <= 5000 AND t <> '''' GROUP BY k HAVING count(*) > 100');
SELECT same_in_pages('SELECT right(t, 2), n % 3, count(*), sum(n), min(f), max(v), min(t) FROM st WHERE id <= 5000 GROUP BY 1, 2');
SELECT same_in_pages('SELECT right(t, 1) AS r, count(DISTINCT n), count(*) FROM st WHERE id <= 5000 GROUP BY 1');
SELECT same_in_pages('SELECT upper(v) AS u, right(t, 1) AS r, count(DISTINCT n), sum(DISTINCT n), avg(DISTINCT f), count(DISTINCT t) FROM st WHERE id <= 5000 GROUP BY 1, 2');
SELECT same_in_pages('SELECT regexp_replace(t, ''.*'', ''one'') AS k, count(*), count(t), sum(n) FROM st WHERE id <= 5000 GROUP BY 1');
-- (a HAVING on the key alone is a WHERE: the function per row then)
SELECT check_offload('SELECT t || ''!'' AS k, count(*) FROM st GROUP BY 1 HAVING t || ''!'' > ''pre8'' OR t || ''!'' IS NULL');
SELECT same_in_pages('SELECT right(t, 1) AS r, count(*) FROM st WHERE id <= 5000 GROUP BY 1 ORDER BY 2 DESC LIMIT 3');
-- a Top-N's few groups of many strings: the device returns only the strings
-- their keys show (ClickBench Q34's 10 of 18 million URLs), of a bpchar key
-- both its codes; not where an aggregate reads strings, nor of few strings
-- (a GPU's three round trips a string must cost less than the bulk's: the
-- strings here are 10 MB)
CREATE TABLE stmany AS
SELECT i, CASE WHEN i % 500 = 0 THEN NULL WHEN i % 7 = 0 THEN 'hot' || (i % 5) ELSE 'url/' || repeat(md5(i::text), 12) END AS u,
	   CASE WHEN i % 3 = 0 THEN 'c' || (i % 4) ELSE 'c' || (i % 4) || '  ' END::char(4) AS c, i % 11 AS n
  FROM generate_series(1, 30000) i;
ANALYZE stmany;
SELECT same_in_pages('SELECT u, count(*), sum(n) FROM stmany GROUP BY u ORDER BY 2 DESC, 3 LIMIT 3');
SELECT same_in_pages('SELECT c, u, count(*) FROM stmany WHERE u <> ''hot1'' GROUP BY c, u ORDER BY 3 DESC, 2 LIMIT 4');
SELECT same_in_pages('SELECT u, count(*), max(c) FROM stmany GROUP BY u ORDER BY 2 DESC, 1 LIMIT 3');
SELECT same_in_pages('SELECT u, count(*) FROM stmany GROUP BY u HAVING count(*) > 100');
-- (few groups without a Top-N: a WHERE after the strings were coded)
SELECT same_in_pages('SELECT u, count(*) FROM stmany WHERE u <> ''zzz'' AND i % 997 = 0 GROUP BY u');
-- a WHERE on group keys alone that only the host compares (a range of
-- strings under the collation) keeps a group whole or not: checked per
-- group, so the table goes in page form; not a WHERE on another column
-- (and a char(n) range, which the device does not compare at all)
SELECT same_in_pages('SELECT t, count(*), sum(n) FROM st WHERE id <= 5000 AND t BETWEEN ''pre2'' AND ''pre6'' GROUP BY t');
SELECT same_in_pages('SELECT v, n, count(*), max(t) FROM st WHERE id <= 5000 AND (v < ''v3'' OR v >= ''v8'') AND n > 2 GROUP BY 1, 2');
SELECT same_in_pages('SELECT b, count(*) FROM st WHERE id <= 5000 AND b > ''b1'' GROUP BY b ORDER BY 2 DESC, 1 LIMIT 2');
SELECT check_offload('SELECT b, count(*), min(t) FROM st WHERE b <= ''b3'' OR b IS NULL GROUP BY b');
SELECT check_offload('SELECT v, count(*) FROM st WHERE t < ''pre5'' GROUP BY v');
-- (a LIMIT without ORDER BY: any 4 groups, and only their strings)
SELECT limited_groups('SELECT u, c, count(*), sum(n) FROM stmany GROUP BY u, c', 'LIMIT 4');
-- (in page form, where the device codes strings, whatever the run's setting)
SET gpuagg.page_batches = on;
SELECT left(q, 40) AS q, jsonb_path_query_first(p, '$.**."Strings Coded by Device"')::int > 25000 AS coded_all,
	   jsonb_path_query_first(p, '$.**."Strings Returned by Device"')::int < 100 AS few_returned
  FROM (VALUES ('SELECT u, count(*), sum(n) FROM stmany GROUP BY u ORDER BY 2 DESC, 3 LIMIT 3'),
			   ('SELECT c, u, count(*) FROM stmany WHERE u <> ''hot1'' GROUP BY c, u ORDER BY 3 DESC, 2 LIMIT 4'),
			   ('SELECT u, count(*), max(c) FROM stmany GROUP BY u ORDER BY 2 DESC, 1 LIMIT 3'),
			   ('SELECT u, count(*) FROM stmany GROUP BY u HAVING count(*) > 100'),
			   ('SELECT u, count(*) FROM stmany WHERE u <> ''zzz'' AND i % 997 = 0 GROUP BY u'),
			   ('SELECT u, c, count(*), sum(n) FROM stmany GROUP BY u, c LIMIT 4')) AS x(q),
	   CAST(analyzed_plan(q) AS jsonb) p;
RESET gpuagg.page_batches;
DROP TABLE stmany;
SELECT same_in_pages('SELECT lower(t) AS l, n % 2 AS m, count(*), sum(f), grouping(lower(t), n % 2) FROM st WHERE id <= 5000 GROUP BY ROLLUP (1, 2)');
SELECT same_in_pages('SELECT replace(t, ''e'', ''E''), count(*), sum(n) FROM st WHERE id <= 5000 AND (id % 17 = 0 OR id % 13 = 0) GROUP BY 1');
-- to_char(e, format) and e::text of a value of another type: the devices
-- group by e, the host formats each distinct value (in the session's
-- settings, as natively); not of a float, whose text tells -0 from 0
CREATE TABLE stk AS
SELECT i, date '2024-01-01' + i % 400 AS d, timestamp '2024-01-01' + (i % 1000) * interval '7 hours' AS ts,
	   timestamptz '2024-03-01 00:00+00' + (i % 900) * interval '5 hours' AS tz,
	   ((i % 97) * 1.25)::numeric(10, 2) AS m, i % 13 AS n, i % 3 = 0 AS b,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE i % 7 END AS nn, (i % 5 - 2) * 0.0::float8 AS z,
	   timestamptz '2024-11-03 04:00+00' + (i % 240) * interval '1 minute' AS fall,
	   (i % 40)::int8 * 25 AS c
  FROM generate_series(1, 20000) i;
ANALYZE stk;
EXPLAIN (COSTS OFF) SELECT to_char(ts, 'YYYY-MM') AS mon, count(*) FROM stk GROUP BY 1;
-- (to_char of a date is of the date as a timestamptz: the devices group by
-- the date, the host casts it, so no zone table and no exact path)
EXPLAIN (COSTS OFF) SELECT to_char(d, 'YYYY-MM') AS mon, count(*) FROM stk GROUP BY 1;
SELECT same_in_pages('SELECT to_char(d, ''YYYY-MM'') AS mon, count(*), sum(m) FROM stk GROUP BY 1');
SELECT same_in_pages('SELECT to_char(ts, ''YYYY "Q"Q Dy'') AS q, count(*), avg(n), max(ts) FROM stk GROUP BY 1');
SET timezone = 'America/New_York';
SELECT same_in_pages('SELECT to_char(tz, ''YYYY-MM-DD HH24'') AS h, tz::text AS t, count(*) FROM stk GROUP BY 1, 2');
-- New York's 01:00 to 01:59 twice on 3 November 2024 (EDT, then EST): one hour
SELECT same_in_pages('SELECT to_char(fall, ''HH24'') AS h, to_char(d, ''Mon'') AS mon, count(*) FROM stk GROUP BY 1, 2');
RESET timezone;
SELECT same_in_pages('SELECT to_char(c, ''FM9G999'') AS thousands, to_char(m, ''FM9'') AS units, count(*), sum(n) FROM stk GROUP BY 1, 2');
SELECT same_in_pages('SELECT to_char(date_trunc(''month'', ts), ''Mon YYYY'') AS mon, n::text AS t, count(*) FROM stk GROUP BY 1, 2');
SELECT same_in_pages('SELECT to_char(m, ''FM999.0'') AS f, m::text AS t, count(*) FROM stk GROUP BY 1, 2');
SELECT same_in_pages('SELECT b::text AS bt, nn::text AS nt, to_char(nn * 3, ''FM00'') AS n3, count(*), sum(n) FROM stk GROUP BY 1, 2, 3');
SELECT same_in_pages('SELECT to_char(d, ''YYYY'') AS y, count(DISTINCT n), min(ts) FROM stk GROUP BY ROLLUP (1)');
-- a value the host maps to NULL (to_char of +-infinity) joins the NULL group;
-- the session's DateStyle formats the keys, as natively
CREATE TABLE stinf AS
SELECT CASE WHEN i % 5 = 0 THEN NULL WHEN i % 7 = 0 THEN 'infinity'::date
			WHEN i % 11 = 0 THEN '-infinity'::date ELSE date '2024-01-01' + i % 40 END AS d, i
  FROM generate_series(1, 5000) i;
SELECT same_in_pages('SELECT to_char(d, ''YYYY-MM'') AS mon, count(*), sum(i) FROM stinf GROUP BY 1');
SET DateStyle = 'SQL, DMY';
SELECT same_in_pages('SELECT d::text AS t, to_char(d, ''YYYY'') AS y, count(*) FROM stinf GROUP BY 1, 2');
RESET DateStyle;
DROP TABLE stinf;
-- any functions, operators and casts of one such value (floats between)
SELECT same_in_pages('SELECT lpad(n::text, 3, ''0'') AS p, upper(to_char(d, ''Mon'')) AS mon, count(*) FROM stk GROUP BY 1, 2');
SELECT same_in_pages('SELECT concat(''Q'', extract(quarter FROM d)) AS q, to_char(n::float8, ''FM0.0'') AS f, count(*) FROM stk GROUP BY 1, 2');
-- what could fail for some value stays native (native raises it first)
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT split_part('a,b', ',', n), count(*) FROM stk GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT md5(n::text), count(*) FROM stk GROUP BY 1;
RESET gpuagg.log_fallback;
EXPLAIN (COSTS OFF) SELECT concat('Q', extract(quarter FROM d)) AS q, count(*) FROM stk GROUP BY 1;
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT z::text, count(*) FROM stk GROUP BY 1;
-- under a nondeterministic collation '-1' and '1' may be one group
CREATE COLLATION stk_ci (provider = icu, locale = 'und-u-ka-shifted', deterministic = false);
EXPLAIN (COSTS OFF) SELECT (n - 6)::text COLLATE stk_ci, count(*) FROM stk GROUP BY 1;
DROP COLLATION stk_ci;
RESET gpuagg.log_fallback;
SELECT z::text, count(*) FROM stk GROUP BY 1 ORDER BY 1;
DROP TABLE stk;
-- no Top-N where the host maps a key (the device's groups are not the query's)
SELECT plan_text('SELECT right(t, 1), count(*) FROM st GROUP BY 1 ORDER BY 2 DESC LIMIT 3') LIKE '%Top-N%' AS topn;
-- the counters: the device's groups by the strings, and the groups
SELECT p->'Groups Before Mapping' AS before_mapping, p->'Groups' AS groups
  FROM analyzed_plan('SELECT regexp_replace(t, ''^pre([0-9a-f]).*$'', ''\1''), count(*) FROM st WHERE id <= 5000 GROUP BY 1') p;
-- beside an ordered-set aggregate, the host still computes the key per row
SELECT check_offload('SELECT lower(t), percentile_disc(0.5) WITHIN GROUP (ORDER BY n) FROM st GROUP BY 1');
-- TOASTed and compressed strings, read again in column form, are mapped too
SELECT check_offload('SELECT lower(t) AS l, count(*), max(octet_length(t)) FROM st WHERE id > 5000 GROUP BY 1');

-- parameters of string type
PREPARE stp(text, varchar) AS SELECT v, count(*), count(DISTINCT t) FROM st WHERE t = $1 OR v = $2 GROUP BY v ORDER BY v;
SELECT offloaded('EXECUTE stp(''pre5'', ''v2'')');
EXECUTE stp('pre5', 'v2');
SET gpuagg.enabled = off;
EXECUTE stp('pre5', 'v2');
RESET gpuagg.enabled;

-- min/max of a char(n): compared without trailing spaces, as bpcharcmp
-- does (under the column's collation, or another), shown padded to n
SELECT check_offload('SELECT v, min(b), max(b), count(*) FROM st GROUP BY v');
SELECT check_offload('SELECT n % 3, max(b COLLATE "C"), min(b COLLATE "en-x-icu"), max(b COLLATE "en-x-icu") FROM st GROUP BY 1');
SELECT same_in_pages('SELECT right(t, 1), min(b), max(b) FROM st WHERE id <= 5000 GROUP BY 1');
-- (min over b0-b4 alone: 'ä' sorts before them under en_US, after under C)
SELECT min(b) FILTER (WHERE b LIKE 'b%') AS min_b, max(b) AS max_b, octet_length(max(b)) AS padded FROM st;
SET gpuagg.log_fallback = on;
-- what stays native, and why: ordering comparisons of two columns, LIKE
-- with an escape clause or ending in an escape, a regular expression that
-- is not a constant, min/max of a bpchar without a length (its values may
-- differ in their trailing spaces alone)
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t < v;
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE 'pre%' ESCAPE '#';
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t LIKE 'pre\';
EXPLAIN (COSTS OFF) SELECT count(*) FROM st WHERE t ~ ('pre' || v);
EXPLAIN (COSTS OFF) SELECT v, max(bp) FROM st GROUP BY v;
-- functions that could fail for a string native never reaches (a
-- negative length, a bad pattern, a field 0, md5 under FIPS, a substring
-- search under a nondeterministic collation), or of two columns
EXPLAIN (COSTS OFF) SELECT substring(t, 2, -1), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT regexp_replace(t, 'pre(', 'x'), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT split_part(t, 'e', 0), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT md5(t), count(*) FROM st GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT t || v, count(*) FROM st GROUP BY 1;
-- a bpchar through its cast to text (trailing spaces gone), as TPC-H
-- Q22's substring(c_phone FROM 1 FOR 2): computed per distinct string too
SELECT check_offload('SELECT lower(b), count(*) FROM st GROUP BY 1');
SELECT check_offload('SELECT substring(bp FROM 1 FOR 2), length(bp::text), b::text || ''|'', count(*) FROM st WHERE substring(b FROM 2) IN (''1'', ''2'') GROUP BY 1, 2, 3');

-- a nondeterministic collation makes unequal bytes equal: stays native
CREATE COLLATION st_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE stc (t text COLLATE st_ci, n int4);
INSERT INTO stc VALUES ('a', 1), ('A', 2), ('b', 3);
EXPLAIN (COSTS OFF) SELECT t, count(*) FROM stc GROUP BY t;
EXPLAIN (COSTS OFF) SELECT count(*) FROM stc WHERE t = 'a';
EXPLAIN (COSTS OFF) SELECT count(DISTINCT t) FROM stc;
EXPLAIN (COSTS OFF) SELECT count(*) FROM stc WHERE t LIKE 'a%';
EXPLAIN (COSTS OFF) SELECT n, min(t) FROM stc GROUP BY n;
SELECT check_offload('SELECT n, count(*) FROM stc WHERE t COLLATE "C" = ''a'' GROUP BY n');

-- uuid columns: string codes of their 16 bytes, which the host gives
-- (column form), as group keys, counted, compared with = and <> (IN
-- lists, IS DISTINCT FROM, another uuid column), serial and parallel
RESET gpuagg.log_fallback;
CREATE TABLE su (id int4, u uuid, v uuid, amount int4, kind text);
INSERT INTO su
SELECT i, CASE WHEN i % 97 = 0 THEN NULL ELSE md5((i % 300)::text)::uuid END,
	   md5((i % 40)::text)::uuid, i % 1000, (ARRAY['a', 'b', 'c'])[i % 3 + 1]
  FROM generate_series(1, 20000) i;
ANALYZE su;
EXPLAIN (COSTS OFF) SELECT u, count(*) FROM su WHERE v <> 'c4ca4238-a0b9-2382-0dcc-509a6f75849b' GROUP BY u;
SELECT check_offload('SELECT u, count(*), sum(amount) FROM su GROUP BY u');
SELECT check_offload('SELECT kind, count(DISTINCT u), count(u), count(DISTINCT v), count(*) FROM su GROUP BY kind');
SELECT check_offload('SELECT kind, count(*) FROM su WHERE u = ''c4ca4238-a0b9-2382-0dcc-509a6f75849b'' OR u IN (''c81e728d-9d4c-2f63-6f06-7f89cc14862c'', NULL) GROUP BY kind');
SELECT check_offload('SELECT count(*) FILTER (WHERE u IS NULL), count(*) FILTER (WHERE u = v), count(*) FILTER (WHERE u IS DISTINCT FROM v), count(*) FILTER (WHERE u <> ALL (''{c4ca4238-a0b9-2382-0dcc-509a6f75849b}''::uuid[])), count(*) FILTER (WHERE v IN (u, ''eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3'')) FROM su');
SELECT check_offload('SELECT u, kind, count(*) FROM su WHERE amount > 900 GROUP BY ROLLUP(u, kind)');
SELECT check_offload('SELECT DISTINCT v FROM su');
-- a domain over uuid: its base type's bytes, compared through its cast
CREATE DOMAIN su_id AS uuid;
CREATE TABLE sud AS SELECT u::su_id AS u, v, kind FROM su;
ANALYZE sud;
SELECT check_offload('SELECT u, count(*) FILTER (WHERE u = v), count(*) FILTER (WHERE u IN (''c4ca4238-a0b9-2382-0dcc-509a6f75849b'', ''eccbc87e-4b5c-e2fe-2830-8fd9f2a7baf3'')) FROM sud GROUP BY u');
-- its text as a key: the devices group by the uuid, the host maps each
SELECT check_offload('SELECT u::text AS t, upper(v::text) AS w, count(*) FROM su GROUP BY 1, 2');
SET parallel_setup_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT check_parallel('SELECT v, count(*), max(amount) FROM su GROUP BY v');
RESET parallel_setup_cost;
RESET min_parallel_table_scan_size;
-- what stays native, and why: ordered, or aggregated other than counted
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM su WHERE u < 'c4ca4238-a0b9-2382-0dcc-509a6f75849b';
EXPLAIN (COSTS OFF) SELECT mode() WITHIN GROUP (ORDER BY u) FROM su;

-- A database of a single-byte encoding (LATIN1): length() counts bytes
-- there, as text_length does, and LIKE matches bytes, both answered by the
-- devices in the pages (with page batches on)
\set regress_db :DBNAME
SELECT current_setting('gpuagg.device') AS regress_device \gset
SELECT pg_get_functiondef('same_in_pages'::regproc) AS same_in_pages_def \gset
CREATE DATABASE gpuagg_regress_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C'
	TEMPLATE template0;
\c gpuagg_regress_latin1
SET client_min_messages = warning;
CREATE EXTENSION gpuagg;
RESET client_min_messages;
SET gpuagg.device = :'regress_device';
SET gpuagg.force_offload = on;
:same_in_pages_def;
CREATE TABLE l1 (t text, v varchar(30), n int4);
INSERT INTO l1
SELECT CASE WHEN i % 11 = 0 THEN NULL ELSE repeat(chr(224 + i % 20), i % 40) || 'x' END,
	   chr(192 + i % 7) || i, i
  FROM generate_series(1, 5000) i;
SELECT same_in_pages('SELECT n % 5, sum(length(t)), sum(char_length(v)), sum(octet_length(t)), max(length(t)) FROM l1 GROUP BY 1');
SELECT same_in_pages('SELECT length(t) AS l, count(*), count(*) FILTER (WHERE t LIKE ''%x'') FROM l1 WHERE v LIKE chr(193) || ''%'' GROUP BY 1');
SELECT same_in_pages('SELECT left(t, 3) AS l, substring(v FROM 1 FOR 1) AS s, count(*) FROM l1 GROUP BY 1, 2');
SELECT sum(length(t)) = sum(octet_length(t)) AS length_is_bytes FROM l1;
\c :regress_db
DROP DATABASE gpuagg_regress_latin1;
