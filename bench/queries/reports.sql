-- Report queries as analysts write them, over the tables of
-- bench/gen/load.sh tpch (run with --suite reports --db <the TPC-H database>):
-- dates and their truncations, the statement's time, CASE, string keys,
-- FILTER, percentiles, windows over the groups, a join.  Not a standard
-- benchmark: a sweep of the constructs, each query one or two of them.
-- Those gpuagg keeps native say so in their note.
-- Each block: a "-- name:" line, "-- note:" lines, one statement.

-- name: r01
-- note: a month as to_char of a date: a group key
SELECT to_char(o_orderdate, 'YYYY-MM') AS m, count(*), sum(o_totalprice) FROM orders GROUP BY 1 ORDER BY 1;

-- name: r02
-- note: date_trunc of a date (a timestamptz in the session's zone)
SELECT date_trunc('month', o_orderdate) AS m, count(*) FROM orders GROUP BY 1;

-- name: r03
-- note: date - date (integer days) averaged
SELECT l_shipmode, avg(l_receiptdate - l_shipdate) FROM lineitem GROUP BY 1;

-- name: r04
-- note: min and max of date differences
SELECT l_shipmode, max(l_receiptdate - l_shipdate), min(l_commitdate - l_shipdate) FROM lineitem GROUP BY 1;

-- name: r05
-- note: avg of timestamp differences (an interval): days and time summed apart
SELECT l_shipmode, avg(l_receiptdate::timestamp - l_shipdate::timestamp) FROM lineitem GROUP BY 1;

-- name: r06
-- note: max of timestamp differences (an interval): by its microseconds
SELECT l_shipmode, max(l_receiptdate::timestamp - l_shipdate::timestamp) FROM lineitem GROUP BY 1;

-- name: r07
-- note: a ratio of two numeric sums, above the aggregates
SELECT l_shipmode, sum(l_extendedprice) / sum(l_quantity) FROM lineitem GROUP BY 1;

-- name: r08
-- note: round of a numeric average
SELECT l_shipmode, round(avg(l_extendedprice), 2) FROM lineitem GROUP BY 1;

-- name: r09
-- note: FILTER clauses
SELECT l_returnflag, sum(l_extendedprice) FILTER (WHERE l_discount > 0.05), count(*) FILTER (WHERE l_tax = 0) FROM lineitem GROUP BY 1;

-- name: r10
-- note: percentile_cont per year and priority
SELECT extract(year FROM o_orderdate) y, o_orderpriority, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY o_totalprice) FROM orders GROUP BY 1, 2;

-- name: r11
-- note: count(DISTINCT) per group
SELECT o_orderpriority, count(DISTINCT o_custkey) FROM orders GROUP BY 1;

-- name: r12
-- note: searched CASE as the key
SELECT CASE WHEN o_totalprice > 200000 THEN 'big' WHEN o_totalprice > 50000 THEN 'mid' ELSE 'small' END b, count(*) FROM orders GROUP BY 1;

-- name: r13
-- note: substr of a text column as the key
SELECT substr(c_phone, 1, 2) cc, count(*), avg(c_acctbal) FROM customer GROUP BY 1;

-- name: r14
-- note: upper of a char(n) key under a LIKE
SELECT upper(c_mktsegment), count(*) FROM customer WHERE c_name LIKE '%99%' GROUP BY 1;

-- name: r15
-- note: string_agg(DISTINCT): the device keeps the set, the host builds the string
SELECT c_mktsegment, string_agg(DISTINCT c_mktsegment, ',') FROM customer GROUP BY 1;

-- name: r16
-- note: bool_and, bool_or
SELECT o_orderstatus, bool_and(o_totalprice > 1000), bool_or(o_shippriority > 0) FROM orders GROUP BY 1;

-- name: r17
-- note: a window function over the groups
SELECT o_orderstatus, count(*), rank() OVER (ORDER BY count(*) DESC) FROM orders GROUP BY 1;

-- name: r18
-- note: date_part of a date and current_date - interval
SELECT date_part('dow', o_orderdate) d, count(*) FROM orders WHERE o_orderdate >= current_date - interval '40 years' GROUP BY 1;

-- name: r19
-- note: ROLLUP with a cast average and stddev
SELECT o_orderpriority, avg(o_totalprice)::numeric(12,2), stddev(o_totalprice) FROM orders GROUP BY ROLLUP (o_orderpriority);

-- name: r20
-- note: products and a scaled average over a date range
SELECT l_linestatus, sum(l_quantity * l_extendedprice), avg(l_discount * 100) FROM lineitem WHERE l_shipdate BETWEEN '1995-01-01' AND '1995-12-31' GROUP BY 1;

-- name: r21
-- note: IN and NOT LIKE
SELECT l_shipmode, count(*) FROM lineitem WHERE l_shipinstruct IN ('NONE', 'TAKE BACK RETURN') AND l_comment NOT LIKE '%special%' GROUP BY 1;

-- name: r22
-- note: width_bucket of a numeric: a CASE of the scaled integers on the device
SELECT width_bucket(o_totalprice, 0, 500000, 10) b, count(*) FROM orders GROUP BY 1;

-- name: r23
-- note: a date cast to text as the key, Top-N
SELECT o_orderdate::text, count(*) FROM orders GROUP BY 1 ORDER BY 2 DESC LIMIT 5;

-- name: r24
-- note: a numeric sum cast to float8 over a count
SELECT l_shipmode, sum(l_extendedprice * (1 - l_discount))::float8 / count(*) FROM lineitem GROUP BY 1;

-- name: r25
-- note: NOT EXISTS (an anti join)
SELECT c_nationkey, count(*) FROM customer c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.o_custkey = c.c_custkey) GROUP BY 1;

-- name: r26
-- note: a three-table join, grouped by a dimension's column
SELECT n_name, sum(o_totalprice) FROM orders JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey WHERE o_orderdate >= '1996-01-01' GROUP BY n_name ORDER BY 2 DESC;

-- name: r27
-- note: each group's share of the total (a window over the sums)
SELECT o_orderpriority, sum(o_totalprice) * 100.0 / sum(sum(o_totalprice)) OVER () FROM orders GROUP BY 1;

-- name: r28
-- note: mode() of a char(n): ordered and counted without trailing spaces, the value padded again
SELECT l_returnflag, avg(l_quantity), mode() WITHIN GROUP (ORDER BY l_shipmode) FROM lineitem GROUP BY 1;

-- name: r29
-- note: now() - interval in WHERE
SELECT count(*) FROM lineitem WHERE l_shipdate > now() - interval '30 years';

-- name: r30
-- note: extract(epoch) of the difference of two aggregates
SELECT EXTRACT(EPOCH FROM max(l_receiptdate::timestamp) - min(l_shipdate::timestamp)) FROM lineitem;

-- name: r31
-- note: min and max of text
SELECT o_orderpriority, max(o_comment), min(o_clerk) FROM orders GROUP BY 1;

-- name: r32
-- note: a CASE count as a share
SELECT l_shipmode, sum(CASE WHEN l_returnflag = 'R' THEN 1 ELSE 0 END)::float / count(*) FROM lineitem GROUP BY 1;

-- name: r33
-- note: date_trunc('year', now()) - interval in WHERE
SELECT o_orderpriority, count(*) FROM orders WHERE o_orderdate >= date_trunc('year', now()) - interval '30 years' GROUP BY 1;

-- name: r34
-- note: COALESCE of a char(n) key
SELECT coalesce(c_mktsegment, 'none'), count(*) FROM customer GROUP BY 1;

-- name: r35
-- note: length of a text column, bucketed
SELECT length(o_comment) / 10 AS lb, count(*) FROM orders GROUP BY 1;

-- name: r36
-- note: an integer modulus as the key
SELECT o_custkey % 10, sum(o_totalprice) FROM orders GROUP BY 1;

-- name: r37
-- note: HAVING and ORDER BY an aggregate
SELECT l_shipmode, sum(l_extendedprice) FROM lineitem GROUP BY 1 HAVING sum(l_extendedprice) > 1000 ORDER BY 2 DESC;

-- name: r38
-- note: date_trunc('week') of a timestamp
SELECT date_trunc('week', l_shipdate::timestamp), count(*) FROM lineitem GROUP BY 1;

-- name: r39
-- note: array_agg(DISTINCT) of a NOT NULL column: the device keeps the set, the host builds the array
SELECT o_orderpriority, array_agg(DISTINCT o_orderstatus) FROM orders GROUP BY 1;

-- name: r40
-- note: sum and avg cast to int
SELECT l_shipmode, sum(l_quantity)::int, avg(l_quantity)::int FROM lineitem GROUP BY 1;

-- name: r41
-- note: a date cast to timestamptz compared
SELECT l_shipmode, count(*) FROM lineitem WHERE l_shipdate::timestamptz > '1995-01-01'::timestamptz GROUP BY 1;

-- name: r42
-- note: numeric / a constant of 2s and 5s in sum: exact quotients, each row's display scale kept
SELECT o_orderpriority, sum(o_totalprice / 100) FROM orders GROUP BY 1;

-- name: r43
-- note: numeric % in an aggregate argument: at the larger scale, the dividend's sign
SELECT o_orderpriority, avg(o_totalprice % 1000) FROM orders GROUP BY 1;

-- name: r44
-- note: trunc of an exact numeric quotient as the key
SELECT trunc(o_totalprice / 10000) * 10000 AS b, count(*) FROM orders GROUP BY 1;

-- name: r45
-- note: current_date - integer
SELECT count(*) FROM orders WHERE o_orderdate > current_date - 30;

-- name: r46
-- note: now()::date - integer
SELECT count(*) FROM orders WHERE o_orderdate > now()::date - 10000;

-- name: r47
-- note: date_trunc('month', now()) - interval
SELECT count(*) FROM orders WHERE o_orderdate > date_trunc('month', now()) - interval '30 years';

-- name: r48
-- note: date_trunc('month', current_date) - interval
SELECT count(*) FROM orders WHERE o_orderdate > date_trunc('month', current_date) - interval '30 years';

-- name: r49
-- note: date_trunc('month', now())::date - integer
SELECT count(*) FROM orders WHERE o_orderdate > date_trunc('month', now())::date - 10000;

-- name: r50
-- note: date_trunc of current_date - interval
SELECT count(*) FROM orders WHERE o_orderdate >= date_trunc('year', current_date - interval '30 years');

-- name: r51
-- note: (now() - interval)::date
SELECT count(*) FROM orders WHERE o_orderdate > (now() - interval '30 years')::date;

-- name: r52
-- note: two interval offsets of current_date
SELECT count(*) FROM orders WHERE o_orderdate > current_date - interval '30 years' - interval '1 month';

-- name: r53
-- note: extract(year) of a date against that of now()
SELECT count(*) FROM orders WHERE extract(year FROM o_orderdate) = extract(year FROM now()) - 30;

-- name: r54
-- note: BETWEEN two current_date offsets
SELECT count(*) FROM orders WHERE o_orderdate BETWEEN current_date - 11000 AND current_date;

-- name: r55
-- note: make_date of constants (folded by the planner)
SELECT count(*) FROM orders WHERE o_orderdate > make_date(1995, 1, 1);

-- name: r56
-- note: to_date of constants: a scan constant evaluated in a subtransaction (it can fail)
SELECT count(*) FROM orders WHERE o_orderdate > to_date('1995-01-01', 'YYYY-MM-DD');

-- name: r57
-- note: date + integer of constants
SELECT count(*) FROM orders WHERE o_orderdate > '1995-01-01'::date + 30;

-- name: r58
-- note: date::timestamp against localtimestamp - interval
SELECT count(*) FROM orders WHERE o_orderdate::timestamp > localtimestamp - interval '30 years';

-- name: r59
-- note: current_date - '30 years'::interval
SELECT count(*) FROM orders WHERE o_orderdate > current_date - '30 years'::interval;

-- name: r60
-- note: date_trunc('month') of a date cast to date
SELECT date_trunc('month', o_orderdate)::date, count(*) FROM orders GROUP BY 1;

-- name: r61
-- note: age() compared with an interval (months and days through the calendar, in the session's zone)
SELECT count(*) FROM orders WHERE age(o_orderdate) > interval '25 years';

-- name: r62
-- note: an uncorrelated scalar subquery (an InitPlan) in WHERE
SELECT count(*) FROM orders WHERE o_orderdate > (SELECT max(o_orderdate) FROM orders) - 30;

-- name: r63
-- note: a difference of timestamps compared with an interval, and its epoch summed
SELECT l_shipmode, count(*), sum(extract(epoch FROM l_receiptdate::timestamp - l_commitdate::timestamp)) FROM lineitem WHERE l_receiptdate::timestamp - l_shipdate::timestamp > interval '20 days' GROUP BY 1;

-- name: r64
-- note: the median duration: percentile_cont of a difference of timestamps (interval_lerp on the host)
SELECT l_shipmode, percentile_cont(0.5) WITHIN GROUP (ORDER BY l_receiptdate::timestamp - l_shipdate::timestamp) FROM lineitem GROUP BY 1;

-- name: r65
-- note: customers' orders by age in years at their date: extract(year FROM age(...)) as a key
SELECT extract(year FROM age(date '2000-01-01', o_orderdate)) AS years, o_orderpriority, count(*), sum(o_totalprice) FROM orders GROUP BY 1, 2;

-- name: r66
-- note: LIKE ANY of constant patterns, and abs() of a date difference
SELECT l_shipmode, count(*) FILTER (WHERE l_comment LIKE ANY (ARRAY['%fluff%', '%regular%'])), avg(abs(l_receiptdate - l_commitdate)) FROM lineitem GROUP BY 1;

-- name: r67
-- note: an integer divided by a numeric constant, truncated: size bands
SELECT trunc(p_size / 10.0) * 10 AS size_band, count(*), avg(p_retailprice) FROM part GROUP BY 1;

-- name: r68
-- note: a char(n) range on the group key: checked per group, the table read in pages
SELECT l_shipmode, count(*), sum(l_quantity), avg(l_extendedprice) FROM lineitem WHERE l_shipmode BETWEEN 'AIR' AND 'RAIL' GROUP BY l_shipmode;

-- name: r69
-- note: a text range on a joined table's group key (SSB Q2.2's shape): the joined table read by the device
SELECT n_name, count(*), sum(o_totalprice) FROM orders JOIN customer ON o_custkey = c_custkey JOIN nation ON c_nationkey = n_nationkey WHERE n_name >= 'G' AND n_name < 'K' GROUP BY n_name;
