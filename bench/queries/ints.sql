-- The five queries of a PG-Strom comparison on an H200 host, over
-- t_ints (bench/gen/load.sh ints): id1 int4 (100 values), id3 int4 (N/100
-- values), v1 int4 1..5, v3 float8 0..100.  Measured there at N=1e8 on the
-- H200 host: native PostgreSQL 15 with 8 workers 2.5 / 3.0 / 15.6 / 30 /
-- 1.2 s, PG-Strom 6.1 0.86 / 0.78 / 3.8 / 30 (not offloaded) / 0.88 s.
-- Each block: a "-- name:" line, optional "-- note:" lines, one statement.

-- name: i1
-- note: 100 groups, one sum
SELECT id1, sum(v1) FROM t_ints GROUP BY id1;

-- name: i2
-- note: 100 groups, filter, count/sum/avg
SELECT id1, count(*), sum(v1), avg(v3) FROM t_ints WHERE v3 > 10 GROUP BY id1;

-- name: i3
-- note: 1M groups (N=1e8), sum and avg
SELECT id3, sum(v1), avg(v3) FROM t_ints GROUP BY id3;

-- name: i4
-- note: exact count(DISTINCT) of 1M values (N=1e8); never parallel natively
SELECT count(DISTINCT id3) FROM t_ints;

-- name: i5
-- note: filtered count
SELECT count(*) FROM t_ints WHERE v3 > 10;
