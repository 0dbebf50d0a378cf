-- TPC-H Q1 (pricing summary report, DELTA = 90) and Q6 (forecasting revenue
-- change) over lineitem (money as numeric(15,2), flags as char(1)) and over
-- lineitem_cents (the same rows from bench/gen/load.sh: money x100 as int8
-- cents, l_returnflag and l_linestatus as int2 ASCII codes, which sort like
-- the letters).  q1_free and q6_free read lineitem_free, which
-- bench/gen/load.sh makes with FREE=1.
-- Each block: a "-- name:" line, optional "-- note:" lines, one statement.

-- name: q1
-- note: TPC-H Q1 as specified: numeric money, char(1) group keys
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
  FROM lineitem
 WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY l_returnflag, l_linestatus
 ORDER BY l_returnflag, l_linestatus;

-- name: q1_free
-- note: Q1 over lineitem_free (bench/gen/load.sh tpch FREE=1): money in numeric columns without a typmod, read at the display scale their statistics show, checked per value
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
  FROM lineitem_free
 WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY l_returnflag, l_linestatus
 ORDER BY l_returnflag, l_linestatus;

-- name: q1_cast
-- note: not a TPC-H query: Q1's discounted prices cast to numeric(15,2) before summing (a cast to a typmod: round half away from zero, precision checked)
SELECT l_returnflag, l_linestatus,
       sum((l_extendedprice * (1 - l_discount))::numeric(15,2)) AS sum_disc_price,
       sum((l_extendedprice * (1 - l_discount) * (1 + l_tax))::numeric(15,2)) AS sum_charge,
       count(*) AS count_order
  FROM lineitem
 WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY l_returnflag, l_linestatus
 ORDER BY l_returnflag, l_linestatus;

-- name: q1_cents
-- note: Q1 over lineitem_cents: int8 cents, int2 flag codes; 1 - l_discount becomes 100 - l_discount (sums in 1e-4 / 1e-6 dollars); the cutoff written date - 90 (a date) instead of date - interval (a timestamp)
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (100 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (100 - l_discount) * (100 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
  FROM lineitem_cents
 WHERE l_shipdate <= date '1998-12-01' - 90
 GROUP BY l_returnflag, l_linestatus
 ORDER BY l_returnflag, l_linestatus;

-- name: q1_cents_interval
-- note: q1_cents with the specification's cutoff date '1998-12-01' - interval '90' day (a date <= timestamp comparison)
SELECT l_returnflag, l_linestatus,
       sum(l_quantity) AS sum_qty,
       sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (100 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (100 - l_discount) * (100 + l_tax)) AS sum_charge,
       avg(l_quantity) AS avg_qty,
       avg(l_extendedprice) AS avg_price,
       avg(l_discount) AS avg_disc,
       count(*) AS count_order
  FROM lineitem_cents
 WHERE l_shipdate <= date '1998-12-01' - interval '90' day
 GROUP BY l_returnflag, l_linestatus
 ORDER BY l_returnflag, l_linestatus;

-- name: q6
-- note: TPC-H Q6 as specified (DATE = 1994-01-01, DISCOUNT = 0.06, QUANTITY = 24): numeric money
SELECT sum(l_extendedprice * l_discount) AS revenue
  FROM lineitem
 WHERE l_shipdate >= date '1994-01-01'
   AND l_shipdate < date '1994-01-01' + interval '1' year
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
   AND l_quantity < 24;

-- name: q6_free
-- note: Q6 over lineitem_free (FREE=1): numeric columns without a typmod
SELECT sum(l_extendedprice * l_discount) AS revenue
  FROM lineitem_free
 WHERE l_shipdate >= date '1994-01-01'
   AND l_shipdate < date '1994-01-01' + interval '1' year
   AND l_discount BETWEEN 0.06 - 0.01 AND 0.06 + 0.01
   AND l_quantity < 24;

-- name: q6_cents
-- note: Q6 over lineitem_cents: revenue in 1e-4 dollars, discount and quantity x100
SELECT sum(l_extendedprice * l_discount) AS revenue
  FROM lineitem_cents
 WHERE l_shipdate >= date '1994-01-01'
   AND l_shipdate < date '1994-01-01' + interval '1' year
   AND l_discount BETWEEN 6 - 1 AND 6 + 1
   AND l_quantity < 2400;

-- name: year_late
-- note: a report, not a TPC-H query: revenue by ship year (extract of a date, a numeric key) and return flag, of lines received over a week after their commit date (date + interval, a timestamp)
SELECT extract(year FROM l_shipdate) AS l_year, l_returnflag,
       sum(l_extendedprice * (1 - l_discount)) AS revenue,
       count(*) AS lines
  FROM lineitem
 WHERE l_receiptdate > l_commitdate + interval '1 week'
 GROUP BY extract(year FROM l_shipdate), l_returnflag
 ORDER BY l_year, l_returnflag;
