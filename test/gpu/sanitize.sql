CREATE EXTENSION IF NOT EXISTS gpuagg;
DROP TABLE IF EXISTS san;
CREATE TABLE san AS SELECT i % 97 AS k, (i % 13)::int2 AS s, i AS v, i::int8 * 1000003 AS x, i / 7.0 AS f, (i % 1000)::float4 AS r, CASE WHEN i % 11 = 0 THEN NULL ELSE i % 5 = 0 END AS b, date '2024-01-01' + i % 400 AS d FROM generate_series(1, 200000) i;
VACUUM san;
SET gpuagg.device = cuda;
SET gpuagg.force_offload = on;
-- with gpuagg.page_batches on (run.sh's third run): all-visible pages
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT s, count(*), sum(x), max(d), min(r) FROM san WHERE v > 5 GROUP BY s;
SELECT k, count(*), sum(v), avg(v), sum(x), avg(x), min(f), max(r), stddev(v), variance(x), bool_and(b), bool_or(b), avg(f), sum(r), min(d) FROM san WHERE v > 10 GROUP BY k ORDER BY k LIMIT 3;
SELECT v % 50000 AS g, count(*), sum(f), max(d) FROM san GROUP BY v % 50000 ORDER BY g LIMIT 3;
SELECT count(*), sum(v) FILTER (WHERE b), avg(f) FILTER (WHERE s > 3), var_pop(s) FROM san WHERE d BETWEEN '2024-02-01' AND '2024-06-01' OR v IN (1, 2, 3);
SELECT s, b, count(*), min(v), max(x) FROM san GROUP BY s, b ORDER BY s, b LIMIT 3;
SELECT sum(v / (k - 5)) FROM san;
SELECT x / 1000003 AS g, sum(v) FROM san GROUP BY 1 ORDER BY 1 DESC LIMIT 2;
ALTER TABLE san ADD COLUMN t text, ADD COLUMN c char(3), ADD COLUMN u text;
UPDATE san SET t = CASE WHEN v % 17 = 0 THEN NULL ELSE 'id' || (v % 1000) END, c = CASE WHEN v % 3 = 0 THEN 'a' ELSE 'ab' END, u = 'u' || v;
-- pages with dead tuples, checked by the host
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) SELECT s, count(*), sum(x), max(d), min(r) FROM san WHERE v > 5 GROUP BY s;
SELECT t, c, count(*), sum(v), count(DISTINCT k), count(DISTINCT f) FROM san WHERE t <> 'id5' AND c IN ('a', 'ab ') GROUP BY t, c ORDER BY t, c LIMIT 3;
SELECT count(DISTINCT t), count(DISTINCT v % 70000) FILTER (WHERE b), count(DISTINCT r) FROM san;
-- strings the device codes from the pages (page form), its dictionary grown
-- in small batches
SELECT t, count(*), sum(v) FROM san WHERE t <> 'id5' GROUP BY t ORDER BY t LIMIT 3;
SET gpuagg.batch_size = '64kB';
SELECT u, count(*) FROM san GROUP BY u ORDER BY u LIMIT 2;
SELECT count(DISTINCT t), min(t COLLATE "C") FROM san;
RESET gpuagg.batch_size;
SELECT k, count(DISTINCT v) FROM san GROUP BY k ORDER BY k LIMIT 2;
SELECT k, min(t COLLATE "C"), max(t COLLATE "C"), count(DISTINCT t) FROM san WHERE t LIKE 'id1%' GROUP BY k ORDER BY k LIMIT 3;
SELECT min(t COLLATE "C"), max(t COLLATE "C") FILTER (WHERE b) FROM san;
-- numeric(12,2) (page form: the device decodes its digits), timestamps:
-- extract, date_part and +/- interval
ALTER TABLE san ADD COLUMN m numeric(12,2), ADD COLUMN ts timestamp;
UPDATE san SET m = CASE WHEN v % 19 = 0 THEN NULL ELSE (v % 100000) / 100.0 - 20 END, ts = timestamp '2020-01-01' + v * interval '17 minutes 3.25 seconds';
VACUUM san;
SELECT k, sum(m), avg(m), min(m), max(round(m, -1)), count(DISTINCT m), var_samp(m) FROM san WHERE m IN (1.50, 2, -3.25) OR m > 100 GROUP BY k ORDER BY k LIMIT 3;
SELECT extract(year FROM ts) AS y, extract(week FROM ts) AS w, count(*), sum(extract(epoch FROM ts)), max(date_part('second', ts)), min(ts - interval '1 month 2 days'), max(d + interval '1 year') FROM san GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 3;
SELECT count(*) FROM san WHERE ts + interval '-13 months' > timestamp '2020-02-01' AND extract(dow FROM ts) IN (0, 6);
-- numeric without a typmod of several display scales: each value read at
-- the largest, and (a float8 column of them) its own display scale
ALTER TABLE san ADD COLUMN mf numeric;
UPDATE san SET mf = CASE v % 3 WHEN 0 THEN (v % 1000)::numeric WHEN 1 THEN round(v / 10.0, 1) ELSE m END;
VACUUM ANALYZE san;
SELECT k, sum(mf), avg(mf * 2), sum(mf * m), sum(CASE WHEN b THEN mf END), count(*) FILTER (WHERE mf > 10) FROM san GROUP BY k ORDER BY k LIMIT 3;
-- differences of timestamps: sums of days and time apart, compared
SELECT k, sum(ts - d::timestamp), avg(ts - timestamp '2020-01-01'), max(ts - d::timestamp), count(DISTINCT ts - d::timestamp), sum(extract(epoch FROM ts - d::timestamp)) FROM san WHERE ts - d::timestamp > interval '-300 days' GROUP BY k ORDER BY k LIMIT 3;
-- an interval column: its time, days and months (page form), summed
-- apart; compared; its epoch
ALTER TABLE san ADD COLUMN iv interval;
UPDATE san SET iv = CASE WHEN v % 23 = 0 THEN NULL ELSE make_interval(0, v % 7 - 2, 0, v % 40, 0, v % 90, (v % 1000) / 8.0) END;
VACUUM san;
SELECT k, sum(iv), avg(iv), count(iv), count(*) FILTER (WHERE iv > interval '1 mon'), sum(extract(epoch FROM iv)) FROM san WHERE iv <> interval '2 days' GROUP BY k ORDER BY k LIMIT 3;
-- abs() of integers and floats; LIKE ANY, a column the host computes
SELECT k % 5 AS g, sum(abs(v - 100000)), max(abs(s - 6)), min(abs(f - 1000)), max(abs(x)) FROM san GROUP BY 1 ORDER BY 1 LIMIT 3;
SELECT k, count(*) FILTER (WHERE t LIKE ANY (ARRAY['id1%', '%7'])), count(*) FILTER (WHERE t !~ ALL ('{^id2,9$}')) FROM san GROUP BY k ORDER BY k LIMIT 3;
-- age(): compared, and its fields (of timestamptz in the session's zone)
SELECT extract(year FROM age(ts, timestamp '2000-02-29')) AS y, extract(month FROM age(ts::timestamptz, d::timestamptz)) AS m, count(*), sum(date_part('day', age(d::timestamp, ts))), count(*) FILTER (WHERE age(ts, d::timestamp) > interval '1 mon 2 days') FROM san GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 3;
-- a partitioned table: one session reads the partitions left after
-- pruning, page batches crossing from one partition to the next
DROP TABLE IF EXISTS sanp;
CREATE TABLE sanp (k int4, v int8, f float8, t text) PARTITION BY RANGE (v);
CREATE TABLE sanp1 PARTITION OF sanp FOR VALUES FROM (MINVALUE) TO (50000);
CREATE TABLE sanp2 PARTITION OF sanp FOR VALUES FROM (50000) TO (120000);
CREATE TABLE sanp3 PARTITION OF sanp DEFAULT;
INSERT INTO sanp SELECT k, v, f, t FROM san;
VACUUM ANALYZE sanp;
SELECT k, count(*), sum(v), max(f), count(DISTINCT t) FROM sanp GROUP BY k ORDER BY k LIMIT 3;
SELECT t, count(*), min(v) FROM sanp WHERE v >= 40000 GROUP BY t ORDER BY t COLLATE "C" LIMIT 3;
-- ordered-set aggregates: counted sets, the radix select and the mode
SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY f), percentile_disc(0.9) WITHIN GROUP (ORDER BY v DESC), mode() WITHIN GROUP (ORDER BY m) FROM san GROUP BY k ORDER BY k LIMIT 3;
SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY f), mode() WITHIN GROUP (ORDER BY d) FROM san;
-- timestamptz in a time zone of one offset: the offset a scan constant
SET TimeZone = '<+0530>-05:30';
SELECT date_trunc('day', ts::timestamptz) AS d, extract(hour FROM ts::timestamptz) AS h, count(*), max(ts::timestamptz::date) FROM san GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 3;
RESET TimeZone;
-- joins the device runs: dimension tables as hash tables probed per row
-- (inner through an earlier dimension, left with NULLs, semi with
-- duplicates, anti), their strings, numerics and NULLs gathered
DROP TABLE IF EXISTS sand, sane, sanx;
CREATE TABLE sand AS SELECT i AS dk, 'dim' || (i % 37) AS dn, ((i % 500) / 4.0)::numeric(10,2) AS dm, CASE WHEN i % 7 = 0 THEN NULL ELSE i % 11 END AS de FROM generate_series(0, 96) i;
CREATE TABLE sane AS SELECT i AS ek, (i % 3)::int2 AS eg FROM generate_series(0, 10) i;
CREATE TABLE sanx AS SELECT i % 5 AS xk FROM generate_series(1, 40) i;
ANALYZE sand, sane, sanx;
SELECT dn, eg, count(*), sum(v), sum(dm), max(m) FROM san JOIN sand ON k = dk JOIN sane ON de = ek GROUP BY dn, eg ORDER BY dn, eg LIMIT 3;
SELECT dn IS NULL AS unmatched, count(*), sum(dm) FROM san LEFT JOIN sand ON s = dk AND dk < 5 GROUP BY 1 ORDER BY 1;
SELECT count(*), sum(v) FROM san WHERE EXISTS (SELECT 1 FROM sanx WHERE xk = s) AND NOT EXISTS (SELECT 1 FROM sane WHERE ek = k);
