--
-- ordered: percentile_cont, percentile_disc and mode() WITHIN GROUP.  The
-- device keeps each group's values with their rows (a counted set) and
-- selects the rows the final functions would read from the sorted values
--
SET gpuagg.force_offload = on;

CREATE TABLE osa (k int4, g int4, x float8, r float4, i int4, s int2,
				  b int8, n numeric(10,2), d date, ts timestamp,
				  tz timestamptz, ok bool, t text);
INSERT INTO osa
SELECT i % 7,
	   i % 1500,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE (i * 37 % 1009) / 7.0 - 50 END,
	   (i % 91) / 4.0,
	   CASE WHEN i % 11 = 0 THEN NULL ELSE i * 7919 % 503 - 200 END,
	   (i % 9)::int2,
	   i::int8 * 1000000007 % 99991 - 50000,
	   CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 31 % 5000) / 100.0 - 10 END,
	   date '2024-02-20' + i % 19,
	   timestamp '2024-02-28 23:00' + (i % 97) * interval '17 minutes',
	   timestamptz '2024-02-28 23:00+00' + (i % 89) * interval '1 hour',
	   CASE WHEN i % 23 = 0 THEN NULL ELSE i % 3 = 0 END,
	   'v' || i % 5
  FROM generate_series(1, 30000) i;
-- one group whose values are all NULL
INSERT INTO osa (k, g) SELECT 7, 9999 FROM generate_series(1, 5);
ANALYZE osa;

EXPLAIN (COSTS OFF)
SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM osa GROUP BY k;

-- percentile_cont interpolates between two rows, percentile_disc takes one
SELECT check_offload('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_cont(0.25) WITHIN GROUP (ORDER BY x), percentile_cont(0.9) WITHIN GROUP (ORDER BY r), percentile_cont(0.37) WITHIN GROUP (ORDER BY i) FROM osa GROUP BY k');
SELECT check_offload('SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.1) WITHIN GROUP (ORDER BY r), percentile_disc(0.75) WITHIN GROUP (ORDER BY i), percentile_disc(0.3) WITHIN GROUP (ORDER BY s), percentile_disc(0.99) WITHIN GROUP (ORDER BY b) FROM osa GROUP BY k');
-- numeric at its scale, dates and times, bool
SELECT check_offload('SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY n), percentile_disc(0.2) WITHIN GROUP (ORDER BY d), percentile_disc(0.6) WITHIN GROUP (ORDER BY ts), percentile_disc(0.4) WITHIN GROUP (ORDER BY tz), percentile_disc(0.5) WITHIN GROUP (ORDER BY ok) FROM osa GROUP BY k');
-- DESC, and the ends: 0, 1
SELECT check_offload('SELECT k, percentile_cont(0.3) WITHIN GROUP (ORDER BY x DESC), percentile_disc(0.3) WITHIN GROUP (ORDER BY i DESC), percentile_cont(0) WITHIN GROUP (ORDER BY x), percentile_cont(1) WITHIN GROUP (ORDER BY x), percentile_disc(0) WITHIN GROUP (ORDER BY n), percentile_disc(1) WITHIN GROUP (ORDER BY n DESC) FROM osa GROUP BY k');
-- mode: the most frequent value, the first in the order among ties
SELECT check_offload('SELECT k, mode() WITHIN GROUP (ORDER BY s), mode() WITHIN GROUP (ORDER BY s DESC), mode() WITHIN GROUP (ORDER BY d), mode() WITHIN GROUP (ORDER BY ok), mode() WITHIN GROUP (ORDER BY n), mode() WITHIN GROUP (ORDER BY r DESC) FROM osa GROUP BY k');
-- many groups; expressions; with other aggregates, FILTER and WHERE (a
-- native plan sorts the rows by group: sums of exact values only)
SELECT check_offload('SELECT g, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY i), mode() WITHIN GROUP (ORDER BY s), count(*), sum(i) FROM osa GROUP BY g');
SELECT check_offload('SELECT k % 3 AS k3, percentile_cont(0.8) WITHIN GROUP (ORDER BY x * 2 + i), percentile_disc(0.5) WITHIN GROUP (ORDER BY b) FILTER (WHERE ok), mode() WITHIN GROUP (ORDER BY d + 1) FILTER (WHERE x > 0), avg(r), count(DISTINCT s) FROM osa WHERE s <> 4 GROUP BY 1');
-- no GROUP BY; a group with only NULL values; a NULL fraction
SELECT check_offload('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), percentile_disc(0.5) WITHIN GROUP (ORDER BY n), mode() WITHIN GROUP (ORDER BY i) FROM osa');
SELECT check_offload('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY i), count(*) FROM osa WHERE k >= 6 GROUP BY k');
SELECT check_offload('SELECT k, percentile_cont(NULL) WITHIN GROUP (ORDER BY x), percentile_disc(NULL) WITHIN GROUP (ORDER BY i) FROM osa GROUP BY k');
-- no rows: no group with GROUP BY, one NULL row without
SELECT check_offload('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x), mode() WITHIN GROUP (ORDER BY i) FROM osa WHERE k < 0');
SELECT check_offload('SELECT k, percentile_cont(2) WITHIN GROUP (ORDER BY x) FROM osa WHERE k < 0 GROUP BY k');
-- ORDER BY ... USING the type's own > is DESC
SELECT check_offload('SELECT k, percentile_disc(0.2) WITHIN GROUP (ORDER BY i USING >), mode() WITHIN GROUP (ORDER BY s USING <) FROM osa GROUP BY k');
-- in HAVING and ORDER BY
SELECT check_offload('SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) AS m FROM osa GROUP BY k HAVING percentile_cont(0.5) WITHIN GROUP (ORDER BY x) > 20 ORDER BY m');

-- NaN sorts after every number, -Infinity and Infinity at the ends
CREATE TABLE osa_nan (k int4, f float8);
INSERT INTO osa_nan SELECT i % 3, CASE i % 6 WHEN 0 THEN 'NaN' WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' ELSE i / 7.0::float8 END
  FROM generate_series(1, 600) i;
ANALYZE osa_nan;
SELECT check_offload('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY f), percentile_cont(0.99) WITHIN GROUP (ORDER BY f), percentile_cont(0.01) WITHIN GROUP (ORDER BY f), percentile_disc(0.9) WITHIN GROUP (ORDER BY f), percentile_disc(0.9) WITHIN GROUP (ORDER BY f DESC), mode() WITHIN GROUP (ORDER BY f) FROM osa_nan GROUP BY k');

-- a fraction outside 0 .. 1: the same error as natively (22003)
SELECT check_error('SELECT k, percentile_cont(1.5) WITHIN GROUP (ORDER BY x) FROM osa GROUP BY k');
SELECT check_error('SELECT percentile_disc(-0.1) WITHIN GROUP (ORDER BY i) FROM osa');
SELECT check_error('SELECT percentile_disc(''NaN'') WITHIN GROUP (ORDER BY i) FROM osa');

-- strings: the device returns each group's strings with their rows, and
-- the host selects in the collation's order (the database's, "C", ICU),
-- a mode's ties going to the first string in that order
CREATE TABLE osa_s (k int4, t text, u text, v varchar(10), c char(4));
INSERT INTO osa_s
SELECT i % 4,
	   CASE WHEN i % 29 = 0 THEN NULL
			ELSE (ARRAY['apple', 'Apple', 'banana', 'Banana', 'éclair', 'eclair', 'Zebra',
						'zebra', '日本', '', 'a b'])[1 + (i * i + i / 7) % 11] END,
	   (ARRAY['apple', 'Apple', 'banana', 'Banana', 'éclair', 'eclair', 'Zebra', 'zebra',
			  '日本', '', 'a b'])[1 + (i / 4) % 11],
	   ('w' || (i * 7 % 37))::varchar,
	   'c' || i % 5
  FROM generate_series(0, 4399) i;
INSERT INTO osa_s (k) VALUES (9);
ANALYZE osa_s;
EXPLAIN (COSTS OFF) SELECT k, mode() WITHIN GROUP (ORDER BY t) FROM osa_s GROUP BY k;
SELECT check_offload('SELECT k, mode() WITHIN GROUP (ORDER BY t), percentile_disc(0.5) WITHIN GROUP (ORDER BY t), percentile_disc(0.1) WITHIN GROUP (ORDER BY t DESC) FROM osa_s GROUP BY k');
SELECT check_offload('SELECT k, mode() WITHIN GROUP (ORDER BY u), mode() WITHIN GROUP (ORDER BY u DESC), mode() WITHIN GROUP (ORDER BY u COLLATE "C"), mode() WITHIN GROUP (ORDER BY u COLLATE "en-x-icu") FROM osa_s GROUP BY k');
SELECT check_offload('SELECT k, percentile_disc(0) WITHIN GROUP (ORDER BY t COLLATE "C"), percentile_disc(1) WITHIN GROUP (ORDER BY t COLLATE "C"), percentile_disc(0.37) WITHIN GROUP (ORDER BY t COLLATE "und-x-icu"), percentile_disc(0.37) WITHIN GROUP (ORDER BY t COLLATE "und-x-icu" DESC) FROM osa_s GROUP BY k');
SELECT check_offload('SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY v), mode() WITHIN GROUP (ORDER BY v) FILTER (WHERE k > 1), percentile_disc(NULL::float8) WITHIN GROUP (ORDER BY t), mode() WITHIN GROUP (ORDER BY lower(t)) FROM osa_s');
SELECT check_offload('SELECT v, mode() WITHIN GROUP (ORDER BY t), percentile_disc(0.75) WITHIN GROUP (ORDER BY u), percentile_cont(0.5) WITHIN GROUP (ORDER BY k) FROM osa_s GROUP BY v');
SELECT check_offload('SELECT k, mode() WITHIN GROUP (ORDER BY t), percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM osa_s WHERE k < 0 GROUP BY k');
SELECT check_offload('SELECT mode() WITHIN GROUP (ORDER BY t), percentile_disc(0.5) WITHIN GROUP (ORDER BY t) FROM osa_s WHERE k < 0');
SELECT check_error('SELECT k, percentile_disc(2) WITHIN GROUP (ORDER BY t) FROM osa_s GROUP BY k');
-- a char(n): ordered and counted without trailing spaces, as bpcharcmp
-- and bpchareq (c, b and c<TAB> tie as a mode: 'c' goes first there,
-- 'c<TAB>' in the padded bytes' order), the value picked padded to n
INSERT INTO osa_s (k, c) VALUES (7, 'c'), (7, 'c'), (7, E'c\t'), (7, E'c\t'), (7, 'b');
SELECT check_offload('SELECT k, mode() WITHIN GROUP (ORDER BY c), percentile_disc(0.5) WITHIN GROUP (ORDER BY c DESC), percentile_disc(ARRAY[0, 0.4, 1]) WITHIN GROUP (ORDER BY c COLLATE "C"), mode() WITHIN GROUP (ORDER BY c COLLATE "C") FROM osa_s GROUP BY k');
SELECT k, mode() WITHIN GROUP (ORDER BY c) = 'c' AS mode_c, octet_length(percentile_disc(0) WITHIN GROUP (ORDER BY c)) AS padded_bytes
  FROM osa_s WHERE k = 7 GROUP BY k;
DELETE FROM osa_s WHERE k = 7;
SELECT k, mode() WITHIN GROUP (ORDER BY u DESC) AS mode_desc,
	   percentile_disc(0.3) WITHIN GROUP (ORDER BY u COLLATE "C") AS p30_c,
	   percentile_disc(0.3) WITHIN GROUP (ORDER BY u COLLATE "en-x-icu") AS p30_icu
  FROM osa_s GROUP BY k ORDER BY k;

-- an array of fractions: an array of the same shape, each fraction's value
-- (the host selects from the set), a NULL fraction's NULL; no rows, NULL
-- before any fraction is checked
SELECT check_offload('SELECT k, percentile_cont(ARRAY[0.5, 0.9, 0, 1, NULL]) WITHIN GROUP (ORDER BY x), percentile_disc(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY i) FROM osa GROUP BY k');
SELECT check_offload('SELECT k, percentile_disc(ARRAY[[0.1, 0.2], [0.9, 1]]) WITHIN GROUP (ORDER BY n DESC), percentile_disc(''{}''::float8[]) WITHIN GROUP (ORDER BY d), percentile_disc(NULL::float8[]) WITHIN GROUP (ORDER BY ts) FROM osa GROUP BY k');
SELECT check_offload('SELECT percentile_disc(ARRAY[0.3, 0.6]) WITHIN GROUP (ORDER BY t), percentile_cont(ARRAY[0.3, 0.31]) WITHIN GROUP (ORDER BY r), percentile_disc(''[2:3]={0.5,0.01}''::float8[]) WITHIN GROUP (ORDER BY b) FROM osa');
SELECT check_offload('SELECT k, percentile_cont(ARRAY[0.5]) WITHIN GROUP (ORDER BY x) FROM osa WHERE k < 0 GROUP BY k');
SELECT check_offload('SELECT percentile_cont(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY k), percentile_disc(ARRAY[0.5]) WITHIN GROUP (ORDER BY u COLLATE "C") FROM osa_s WHERE k < 0');
SELECT check_offload('SELECT k, percentile_disc(ARRAY[0.2, 0.8]) WITHIN GROUP (ORDER BY u COLLATE "en-x-icu" DESC) FROM osa_s GROUP BY k');
SELECT check_offload('SELECT k, percentile_cont(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY f), percentile_disc(ARRAY[0.9, 0.1]) WITHIN GROUP (ORDER BY f DESC) FROM osa_nan GROUP BY k');
SELECT check_error('SELECT k, percentile_cont(ARRAY[0.5, 2]) WITHIN GROUP (ORDER BY x) FROM osa GROUP BY k');
SELECT check_error('SELECT percentile_disc(ARRAY[0.5, ''NaN'']) WITHIN GROUP (ORDER BY i) FROM osa');
SELECT k, percentile_cont(ARRAY[0.25, 0.5, 0.75]) WITHIN GROUP (ORDER BY i) AS quartiles,
	   percentile_disc(ARRAY[[0, 1], [0.5, NULL]]) WITHIN GROUP (ORDER BY d) AS dates
  FROM osa GROUP BY k ORDER BY k;

-- array_agg and string_agg in their value's order (DISTINCT, or ORDER BY
-- the value): the same counted set, made into the array or string by the
-- host, each value once or as often as it came.  string_agg skips NULLs
-- as the set does; array_agg keeps them, so it offloads of a column
-- declared NOT NULL only
CREATE TABLE osa_l (k int4 NOT NULL, i int4 NOT NULL, x float8 NOT NULL,
					n numeric(8,2) NOT NULL, d date NOT NULL, t text NOT NULL,
					c char(3) NOT NULL, v varchar(8), m int4);
INSERT INTO osa_l
SELECT i % 5, i * 7 % 23 - 11,
	   CASE WHEN i % 50 = 0 THEN 'NaN' ELSE (i % 13) / 4.0 END,
	   (i % 17) * 1.25, date '2024-02-27' + i % 6,
	   (ARRAY['apple', 'Apple', 'banana', 'éclair', 'eclair', 'Zebra', '', 'a b'])[1 + i % 8],
	   'c' || i % 4,
	   CASE WHEN i % 9 = 0 THEN NULL ELSE 'v' || i % 6 END,
	   CASE WHEN i % 10 = 0 THEN NULL ELSE i % 4 END
  FROM generate_series(1, 3000) i;
ANALYZE osa_l;
EXPLAIN (COSTS OFF) SELECT k, array_agg(DISTINCT i), string_agg(DISTINCT t, ',') FROM osa_l GROUP BY k;
SELECT check_offload('SELECT k, array_agg(DISTINCT i), array_agg(DISTINCT n), array_agg(DISTINCT d ORDER BY d DESC), array_agg(DISTINCT t), array_agg(DISTINCT c) FROM osa_l GROUP BY k');
SELECT check_offload('SELECT k, string_agg(DISTINCT t, '', ''), string_agg(DISTINCT v, ''|'' ORDER BY v DESC), string_agg(DISTINCT t COLLATE "C", ''''), string_agg(DISTINCT t, NULL) FROM osa_l GROUP BY k');
-- ORDER BY the value: each value as often as it came
SELECT check_offload('SELECT k, array_agg(i ORDER BY i), array_agg(n ORDER BY n DESC), string_agg(v, '','' ORDER BY v), string_agg(t, ''/'' ORDER BY t COLLATE "en-x-icu" DESC) FROM osa_l WHERE i > 5 GROUP BY k');
SELECT check_offload('SELECT d, array_agg(k ORDER BY k USING >), string_agg(c::text, '''' ORDER BY c::text) FROM osa_l GROUP BY d');
-- with FILTER, WHERE and other aggregates; no GROUP BY; no rows (NULL)
SELECT check_offload('SELECT array_agg(DISTINCT k) FILTER (WHERE i > 0), string_agg(DISTINCT v, '';'') FILTER (WHERE k = 2), count(*), sum(i) FROM osa_l');
SELECT check_offload('SELECT array_agg(DISTINCT i), string_agg(t, '','' ORDER BY t) FROM osa_l WHERE k < 0');
SELECT check_offload('SELECT k, string_agg(DISTINCT v, '',''), count(*) FROM osa_l WHERE v IS NULL GROUP BY k');
-- a key the host maps (lower(t), to_char(d)): the groups it merges each
-- had a value, which DISTINCT lists once
SELECT check_offload('SELECT lower(t), string_agg(DISTINCT v, '',''), array_agg(DISTINCT k), string_agg(v, '','' ORDER BY v), array_agg(k ORDER BY k DESC) FROM osa_l GROUP BY 1');
SELECT check_offload('SELECT to_char(d, ''YYYY'') AS y, array_agg(DISTINCT k), string_agg(DISTINCT t, ''|'') FROM osa_l GROUP BY 1');
SELECT k, array_agg(DISTINCT c) AS cs, string_agg(DISTINCT v, ',' ORDER BY v DESC) AS vs,
	   array_agg(DISTINCT n ORDER BY n) FILTER (WHERE n < 3) AS ns
  FROM osa_l GROUP BY k ORDER BY k;

-- these keep their native plan, and say why
SET gpuagg.log_fallback = on;
CREATE COLLATION osa_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
EXPLAIN (COSTS OFF) SELECT k, mode() WITHIN GROUP (ORDER BY t COLLATE osa_ci) FROM osa_s GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, percentile_disc(0.5) WITHIN GROUP (ORDER BY c::bpchar) FROM osa_s GROUP BY k;
DROP COLLATION osa_ci;
EXPLAIN (COSTS OFF) SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY (ts - timestamp '2024-01-01') * 2) FROM osa GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, percentile_disc(k / 10.0::float8) WITHIN GROUP (ORDER BY i) FROM osa GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, s, percentile_disc(0.5) WITHIN GROUP (ORDER BY i) FROM osa GROUP BY ROLLUP (k, s);
-- array_agg of a column that may be NULL; in the input's order, or
-- another's; string_agg with a delimiter that is not a constant; under
-- grouping sets, as the ordered-set aggregates; of floats
EXPLAIN (COSTS OFF) SELECT k, array_agg(DISTINCT m) FROM osa_l GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, array_agg(i) FROM osa_l GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, array_agg(i ORDER BY x) FROM osa_l GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, string_agg(t, k::text ORDER BY t) FROM osa_l GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, array_agg(DISTINCT i) FROM osa_l GROUP BY ROLLUP (k);
-- floats: their set keeps -0 as 0, which a list would show
EXPLAIN (COSTS OFF) SELECT k, array_agg(DISTINCT x) FROM osa_l GROUP BY k;
RESET gpuagg.log_fallback;

DROP TABLE osa, osa_nan, osa_s, osa_l;
