-- Checks for the tpch suite: psql -d bench -f bench/gen/check/tpch.sql
\pset footer off
\echo '== lineitem: rows, orders, ranges (TPC-H SF1: 6,001,215 lines, 1,500,000 orders, max orderkey 6,000,000)'
SELECT count(*) AS lines, count(DISTINCT l_orderkey) AS orders, min(l_orderkey), max(l_orderkey),
       round(count(*)::numeric / count(DISTINCT l_orderkey), 3) AS lines_per_order,
       min(l_linenumber) AS min_ln, max(l_linenumber) AS max_ln,
       min(l_partkey) AS min_pk, max(l_partkey) AS max_pk, count(DISTINCT l_partkey) AS d_pk,
       min(l_suppkey) AS min_sk, max(l_suppkey) AS max_sk, count(DISTINCT l_suppkey) AS d_sk
FROM lineitem;
SELECT min(l_quantity) AS min_q, max(l_quantity) AS max_q, round(avg(l_quantity), 3) AS avg_q,
       min(l_discount) AS min_d, max(l_discount) AS max_d, min(l_tax) AS min_t, max(l_tax) AS max_t,
       min(l_extendedprice) AS min_ep, max(l_extendedprice) AS max_ep,
       min(l_shipdate) AS min_ship, max(l_shipdate) AS max_ship,
       min(l_commitdate) AS min_commit, max(l_commitdate) AS max_commit,
       min(l_receiptdate) AS min_rcpt, max(l_receiptdate) AS max_rcpt
FROM lineitem;
\echo '== per-order invariants (0 violations expected): ship-order 1..121, commit-order 30..90, receipt-ship 1..30'
SELECT count(*) FILTER (WHERE l_receiptdate - l_shipdate NOT BETWEEN 1 AND 30) AS bad_receipt,
       count(*) FILTER (WHERE l_returnflag <> CASE WHEN l_receiptdate <= date '1995-06-17' THEN l_returnflag ELSE 'N' END
                           OR (l_receiptdate <= date '1995-06-17' AND l_returnflag NOT IN ('R', 'A'))) AS bad_returnflag,
       count(*) FILTER (WHERE l_linestatus <> CASE WHEN l_shipdate > date '1995-06-17' THEN 'O' ELSE 'F' END) AS bad_linestatus,
       count(*) FILTER (WHERE l_extendedprice <> l_quantity *
             (90000 + ((l_partkey / 10) % 20001) + 100 * (l_partkey % 1000)) / 100.0) AS bad_price
FROM lineitem;
SELECT count(*) FILTER (WHERE sd_span > 120 OR cd_span > 60) AS orders_with_bad_spans,
       max(sd_span) AS max_ship_span, max(cd_span) AS max_commit_span
FROM (SELECT l_orderkey, max(l_shipdate) - min(l_shipdate) AS sd_span,
             max(l_commitdate) - min(l_commitdate) AS cd_span
      FROM lineitem GROUP BY l_orderkey) o;
\echo '== TPC-H Q1 on lineitem (SF1 answer: A|F 37734107 1478493, N|F 991417 38854, N|O 74476040 2920374, R|F 37719753 1478870)'
SELECT l_returnflag, l_linestatus, sum(l_quantity) AS sum_qty, sum(l_extendedprice) AS sum_base_price,
       sum(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
       sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
       round(avg(l_quantity), 2) AS avg_qty, round(avg(l_extendedprice), 2) AS avg_price,
       round(avg(l_discount), 2) AS avg_disc, count(*) AS count_order
FROM lineitem
WHERE l_shipdate <= date '1998-12-01' - interval '90' day
GROUP BY l_returnflag, l_linestatus ORDER BY l_returnflag, l_linestatus;
\echo '== the same Q1 on lineitem_cents, scaled back (0 rows expected: identical sums)'
WITH a AS (
  SELECT l_returnflag, l_linestatus, sum(l_quantity) AS q, sum(l_extendedprice) AS p,
         sum(l_extendedprice * (1 - l_discount)) AS dp, sum(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS ch,
         count(*) AS n
  FROM lineitem WHERE l_shipdate <= date '1998-12-01' - 90 GROUP BY 1, 2),
b AS (
  SELECT chr(l_returnflag)::char(1) AS l_returnflag, chr(l_linestatus)::char(1) AS l_linestatus,
         sum(l_quantity) / 100.0 AS q, sum(l_extendedprice) / 100.0 AS p,
         sum(l_extendedprice * (100 - l_discount)) / 10000.0 AS dp,
         sum(l_extendedprice * (100 - l_discount) * (100 + l_tax)) / 1000000.0 AS ch, count(*) AS n
  FROM lineitem_cents WHERE l_shipdate <= date '1998-12-01' - 90 GROUP BY 1, 2)
SELECT * FROM a FULL JOIN b USING (l_returnflag, l_linestatus)
WHERE a.q IS DISTINCT FROM b.q OR a.p IS DISTINCT FROM b.p OR a.dp IS DISTINCT FROM b.dp
   OR a.ch IS DISTINCT FROM b.ch OR a.n IS DISTINCT FROM b.n;
\echo '== lineitem_cents flag codes'
SELECT l_returnflag, chr(l_returnflag) AS rf, l_linestatus, chr(l_linestatus) AS ls, count(*)
FROM lineitem_cents GROUP BY 1, 3 ORDER BY 1, 3;

\echo '== the other tables (TPC-H: orders 1.5M*SF, o_orderstatus F ~48.8%, O ~48.8%, P ~2.4%; no order of a customer whose key is a multiple of 3; SF*5 suppliers with Customer..Complaints)'
SELECT (SELECT count(*) FROM orders) AS orders,
       (SELECT round(avg((o_orderstatus = 'F')::int), 3) FROM orders) AS status_f,
       (SELECT round(avg((o_orderstatus = 'P')::int), 3) FROM orders) AS status_p,
       (SELECT count(*) FROM orders WHERE o_custkey % 3 = 0) AS cust_mod3,
       (SELECT count(*) FROM orders o WHERE o_totalprice <> (SELECT round(sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)), 2) FROM lineitem WHERE l_orderkey = o.o_orderkey) AND o_orderkey < 1000) AS bad_totalprice,
       (SELECT count(*) FROM supplier WHERE s_comment LIKE '%Customer%Complaints%') AS complaints,
       (SELECT count(*) FROM part WHERE p_name LIKE '%green%') AS green_parts,
       (SELECT count(*) FROM partsupp) AS partsupp,
       (SELECT count(*) FROM nation) AS nations, (SELECT count(*) FROM region) AS regions;
