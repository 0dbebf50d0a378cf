-- db-benchmark (h2oai / duckdblabs) groupby q1-q10, as the suite's SQL
-- solutions define them, over x (id1..id3 text, like the suite's data) and,
-- where the query touches id1..id3, the same over x_int (id1..id3 as int4),
-- which shows what the text keys cost next to integer keys.  Each block: a "-- name:" line,
-- optional "-- note:" lines, one statement.  bench/run times each as
-- CREATE TEMP TABLE ans AS <statement>.

-- name: q1
-- note: sum v1 by id1 (100 groups at the default K=100)
SELECT id1, sum(v1) AS v1 FROM x GROUP BY id1;

-- name: q2
-- note: sum v1 by id1:id2 (10,000 groups)
SELECT id1, id2, sum(v1) AS v1 FROM x GROUP BY id1, id2;

-- name: q3
-- note: sum v1 mean v3 by id3 (N/K groups)
SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x GROUP BY id3;

-- name: q4
-- note: mean v1:v3 by id4 (100 groups); id4 is int in x too
SELECT id4, avg(v1) AS v1, avg(v2) AS v2, avg(v3) AS v3 FROM x GROUP BY id4;

-- name: q5
-- note: sum v1:v3 by id6 (N/K groups); id6 is int in x too
SELECT id6, sum(v1) AS v1, sum(v2) AS v2, sum(v3) AS v3 FROM x GROUP BY id6;

-- name: q6
-- note: median v3 sd v3 by id4 id5 (10,000 groups); the suite's median is percentile_cont(0.5) in PostgreSQL
SELECT id4, id5, percentile_cont(0.5) WITHIN GROUP (ORDER BY v3) AS median_v3, stddev(v3) AS sd_v3 FROM x GROUP BY id4, id5;

-- name: q7
-- note: max v1 - min v2 by id3 (N/K groups)
SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x GROUP BY id3;

-- name: q8
-- note: largest two v3 by id6 (window function, no aggregate)
SELECT id6, largest2_v3 FROM (SELECT id6, v3 AS largest2_v3, row_number() OVER (PARTITION BY id6 ORDER BY v3 DESC) AS order_v3 FROM x WHERE v3 IS NOT NULL) sub_query WHERE order_v3 <= 2;

-- name: q9
-- note: regression v1 v2 by id2 id4 (10,000 groups)
SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x GROUP BY id2, id4;

-- name: q10
-- note: sum v3 count by id1:id6 (about N groups)
SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x GROUP BY id1, id2, id3, id4, id5, id6;

-- name: q1i
-- note: q1 over x_int
SELECT id1, sum(v1) AS v1 FROM x_int GROUP BY id1;

-- name: q2i
-- note: q2 over x_int
SELECT id1, id2, sum(v1) AS v1 FROM x_int GROUP BY id1, id2;

-- name: q3i
-- note: q3 over x_int
SELECT id3, sum(v1) AS v1, avg(v3) AS v3 FROM x_int GROUP BY id3;

-- name: q7i
-- note: q7 over x_int
SELECT id3, max(v1) - min(v2) AS range_v1_v2 FROM x_int GROUP BY id3;

-- name: q9i
-- note: q9 over x_int
SELECT id2, id4, pow(corr(v1, v2), 2) AS r2 FROM x_int GROUP BY id2, id4;

-- name: q10i
-- note: q10 over x_int
SELECT id1, id2, id3, id4, id5, id6, sum(v3) AS v3, count(*) AS count FROM x_int GROUP BY id1, id2, id3, id4, id5, id6;

-- name: sum_distinct
-- note: not a db-benchmark query: sums and averages of DISTINCT values by id1 (the device de-duplicates the (group, value) pairs, the host folds each group's in sorted order)
SELECT id1, sum(DISTINCT id4) AS sd, avg(DISTINCT v2) AS ad, stddev(DISTINCT v1) AS vd, count(*) AS n FROM x_int GROUP BY id1;

-- name: rollup
-- note: sum v1, mean v3, count by ROLLUP (id1, id2) over x_int: 10,101 groups in three sets (PostgreSQL plans grouping sets serially)
SELECT id1, id2, sum(v1) AS v1, avg(v3) AS v3, count(*) AS n FROM x_int GROUP BY ROLLUP (id1, id2);

-- name: cube
-- note: CUBE (id4, id5) with GROUPING(): 10,201 groups in four sets
SELECT id4, id5, grouping(id4, id5) AS g, sum(v2) AS v2, max(v3) AS v3, count(*) AS n FROM x_int GROUP BY CUBE (id4, id5);

-- name: q6i
-- note: q6 over x_int
SELECT id4, id5, percentile_cont(0.5) WITHIN GROUP (ORDER BY v3) AS median_v3, stddev(v3) AS sd_v3 FROM x_int GROUP BY id4, id5;

-- name: mode_p90
-- note: not a db-benchmark query: mode() and percentile_disc(0.9) of small integers by id6 (N/K groups, few values each: the counted sets are small)
SELECT id6, mode() WITHIN GROUP (ORDER BY v1) AS m, percentile_disc(0.9) WITHIN GROUP (ORDER BY v2 DESC) AS p90, count(*) AS n FROM x_int GROUP BY id6;
