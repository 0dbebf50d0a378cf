-- Distribution checks for the groupby suite: psql -d bench -f bench/gen/check/groupby.sql
\pset footer off
\echo '== x: row count, distinct counts, ranges'
SELECT count(*) AS rows,
       count(DISTINCT id1) AS d_id1, count(DISTINCT id2) AS d_id2, count(DISTINCT id3) AS d_id3,
       count(DISTINCT id4) AS d_id4, count(DISTINCT id5) AS d_id5, count(DISTINCT id6) AS d_id6,
       min(id1) AS min_id1, max(id1) AS max_id1, min(id3) AS min_id3, max(id3) AS max_id3
FROM x;
SELECT min(id4) AS min_id4, max(id4) AS max_id4, min(id6) AS min_id6, max(id6) AS max_id6,
       min(v1) AS min_v1, max(v1) AS max_v1, round(avg(v1), 4) AS avg_v1,
       min(v2) AS min_v2, max(v2) AS max_v2, round(avg(v2), 4) AS avg_v2,
       min(v3) AS min_v3, max(v3) AS max_v3, round(avg(v3)::numeric, 4) AS avg_v3,
       count(DISTINCT v3) AS d_v3
FROM x;
\echo '== x: NULL fractions (NA percent)'
SELECT round(avg((id1 IS NULL)::int), 4) AS na_id1, round(avg((id2 IS NULL)::int), 4) AS na_id2,
       round(avg((id3 IS NULL)::int), 4) AS na_id3, round(avg((id4 IS NULL)::int), 4) AS na_id4,
       round(avg((id5 IS NULL)::int), 4) AS na_id5, round(avg((id6 IS NULL)::int), 4) AS na_id6,
       round(avg((v1 IS NULL)::int), 4) AS na_v1, round(avg((v2 IS NULL)::int), 4) AS na_v2,
       round(avg((v3 IS NULL)::int), 4) AS na_v3,
       round(avg((v1 IS NULL AND v2 IS NULL)::int), 5) AS na_v1_and_v2
FROM x;
\echo '== x: group sizes of id1 (uniform: min/max near N/K)'
SELECT count(*) AS groups, min(c), max(c), round(stddev(c), 1) AS sd FROM (SELECT id1, count(*) c FROM x GROUP BY id1) g;
\echo '== x_int matches x (same multiset of rows; 0 rows expected)'
SELECT count(*) AS mismatches FROM (
  (SELECT substr(id1, 3)::int, substr(id2, 3)::int, substr(id3, 3)::int, id4, id5, id6, v1, v2, v3 FROM x
   EXCEPT ALL SELECT * FROM x_int)
  UNION ALL
  (SELECT * FROM x_int EXCEPT ALL
   SELECT substr(id1, 3)::int, substr(id2, 3)::int, substr(id3, 3)::int, id4, id5, id6, v1, v2, v3 FROM x)) d;
\echo '== physical order: rows out of (id1..id6) order in x_int (0 when SORTED=1)'
SELECT count(*) FILTER (WHERE (id1, id2, id3, id4, id5, id6) < (p1, p2, p3, p4, p5, p6)) AS out_of_order_nonnull
FROM (SELECT *, lag(id1) OVER w p1, lag(id2) OVER w p2, lag(id3) OVER w p3, lag(id4) OVER w p4,
             lag(id5) OVER w p5, lag(id6) OVER w p6
      FROM (SELECT ctid, * FROM x_int) t WINDOW w AS (ORDER BY ctid)) s;
\echo '== fingerprint (same for every JOBS)'
SELECT md5(string_agg(h::text, ',' ORDER BY h)) AS fingerprint FROM
  (SELECT hashtext(concat_ws('|', id1, id2, id3, id4, id5, id6, v1, v2, v3)) h FROM x) t;
