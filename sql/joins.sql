--
-- joins: aggregation over inner joins, the largest table scanned in
-- batches and each other table (a dimension) matched per row; every query
-- compared with its native run
--
SET gpuagg.force_offload = on;

-- (no autovacuum: EXPLAIN ANALYZE below shows pages the host checks for
-- visibility and estimates from the one ANALYZE, whenever the suite runs)
CREATE TABLE jf (id int4, ck int4, pk int8, sk int2, ok int4, tag text,
				 amt numeric(12, 2), qty int4, price float8, day date)
	WITH (autovacuum_enabled = off);
INSERT INTO jf
SELECT i,
	   CASE WHEN i % 101 = 0 THEN NULL ELSE i % 120 END,	-- some match no customer
	   (i * 7) % 50,
	   (i % 9)::int2,
	   i / 3,
	   CASE WHEN i % 13 = 0 THEN NULL ELSE 't' || (i % 6) END,
	   (i % 997) / 4.0,
	   i % 17,
	   (i % 31) * 1.25,
	   date '2024-01-01' + i % 400
  FROM generate_series(1, 30000) i;
-- customers: unique keys 0..99, their nations
CREATE TABLE jc (c_id int4 PRIMARY KEY, c_name text, c_nation int4, c_seg char(10), c_bal numeric(10, 2))
	WITH (autovacuum_enabled = off);
INSERT INTO jc SELECT i, 'cust' || i, i % 7, CASE i % 3 WHEN 0 THEN 'AUTO' WHEN 1 THEN 'BUILDING' ELSE NULL END,
					  i * 1.5 FROM generate_series(0, 99) i;
-- parts: int8 keys, matched from the fact table's int8
CREATE TABLE jp (p_id int8 PRIMARY KEY, p_type text, p_size int4)
	WITH (autovacuum_enabled = off);
INSERT INTO jp SELECT i, CASE WHEN i % 4 = 0 THEN 'PROMO ' || i ELSE 'STD ' || i END, i % 10
  FROM generate_series(0, 49) i;
-- suppliers: int4 keys matched from the fact table's int2 (a cross-type =)
CREATE TABLE js (s_id int4, s_nation int4, s_name text)
	WITH (autovacuum_enabled = off);
INSERT INTO js SELECT i, (i * 3) % 7, 'supp' || i FROM generate_series(0, 8) i;
-- nations and regions (a snowflake: fact -> customer -> nation -> region)
CREATE TABLE jn (n_id int4, n_name text, n_region int4)
	WITH (autovacuum_enabled = off);
INSERT INTO jn SELECT i, 'nation' || i, i % 3 FROM generate_series(0, 6) i;
CREATE TABLE jr (r_id int4, r_name text)
	WITH (autovacuum_enabled = off);
INSERT INTO jr VALUES (0, 'AMERICA'), (1, 'ASIA'), (2, 'EUROPE');
-- duplicate keys (each 0..19 three times), a NULL key, a key no row has
CREATE TABLE jdup (k int4, label text)
	WITH (autovacuum_enabled = off);
INSERT INTO jdup SELECT i % 20, 'l' || i FROM generate_series(0, 59) i;
INSERT INTO jdup VALUES (NULL, 'null'), (1000, 'none');
CREATE TABLE jempty (k int4, label text)
	WITH (autovacuum_enabled = off);
-- text keys
CREATE TABLE jtag (tk text, label text)
	WITH (autovacuum_enabled = off);
INSERT INTO jtag SELECT 't' || (i % 8), 'label' || i FROM generate_series(0, 11) i;
-- two-column keys
CREATE TABLE jps (ps_p int8, ps_s int2, ps_cost numeric(8, 2))
	WITH (autovacuum_enabled = off);
INSERT INTO jps SELECT p, s, p * 10 + s FROM generate_series(0, 49) p, generate_series(0, 8) s;
ANALYZE jf, jc, jp, js, jn, jr, jdup, jempty, jps, jtag;

-- one dimension: its columns as group keys, in filters and aggregates
SELECT check_offload('SELECT c_nation, count(*), sum(amt), avg(qty) FROM jf JOIN jc ON ck = c_id GROUP BY c_nation');
SELECT check_offload('SELECT c_seg, count(*), min(c_name), max(price) FROM jf JOIN jc ON jf.ck = jc.c_id GROUP BY c_seg');
SELECT check_offload('SELECT count(*), sum(c_bal * qty), count(DISTINCT c_name) FROM jf, jc WHERE ck = c_id AND c_bal > 20');
SELECT check_offload('SELECT tag, count(*) FROM jf JOIN jc ON ck = c_id WHERE c_name LIKE ''cust1%'' GROUP BY tag');
SELECT check_offload('SELECT upper(c_name), count(*) FROM jf JOIN jc ON ck = c_id WHERE qty > 10 GROUP BY 1');
-- the dimension's own WHERE runs in its plan
SELECT check_offload('SELECT c_nation, count(*) FROM jf JOIN jc ON ck = c_id WHERE c_nation < 3 AND c_seg = ''AUTO'' GROUP BY c_nation');
-- no group keys, only a join
SELECT check_offload('SELECT count(*) FROM jf JOIN jc ON ck = c_id');
-- several dimensions; an int8 key; an int2 = int4 key
SELECT check_offload('SELECT c_nation, p_size, s_name, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id JOIN jp ON pk = p_id JOIN js ON sk = s_id GROUP BY 1, 2, 3');
-- a snowflake: nation reached through customer, region through nation
SELECT check_offload('SELECT r_name, n_name, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id JOIN jn ON c_nation = n_id JOIN jr ON n_region = r_id GROUP BY r_name, n_name');
-- TPC-H Q5's shape: customer and supplier of the same nation (a residual condition)
SELECT check_offload('SELECT n_name, count(*), sum(amt) FROM jf, jc, js, jn WHERE ck = c_id AND sk = s_id AND c_nation = s_nation AND s_nation = n_id GROUP BY n_name');
-- an equality every arm of an OR holds (TPC-H Q19): the key, the OR after
SELECT check_offload('SELECT count(*), sum(amt) FROM jf, jp WHERE (p_id = pk AND p_size < 3 AND qty > 5) OR (p_id = pk AND p_type LIKE ''PROMO%'' AND qty < 9) OR (pk = p_id AND tag = ''t1'')');
-- two-column keys
SELECT check_offload('SELECT ps_s, count(*), sum(ps_cost) FROM jf JOIN jps ON pk = ps_p AND sk = ps_s GROUP BY ps_s');
-- a non-equality between the tables: the device filters after the match
SELECT check_offload('SELECT c_nation, count(*) FROM jf JOIN jc ON ck = c_id AND jf.amt > jc.c_bal GROUP BY c_nation');
SELECT check_offload('SELECT count(*) FROM jf JOIN jc ON ck = c_id WHERE qty < c_nation OR tag IS NULL');
-- text keys
SELECT check_offload('SELECT label, count(*), count(DISTINCT tk) FROM jf JOIN jtag ON tag = tk GROUP BY label');

-- duplicate keys multiply rows as natively; NULL keys match nothing
SELECT check_offload('SELECT label, count(*), sum(qty) FROM jf JOIN jdup ON qty = k GROUP BY label');
SELECT check_offload('SELECT count(*), count(label), sum(amt) FROM jf JOIN jdup ON ck = k');
SELECT check_offload('SELECT c_nation, count(*) FROM jf JOIN jdup ON qty = k JOIN jc ON ck = c_id GROUP BY c_nation');
-- an empty dimension: no rows, one group of count 0
SELECT check_offload('SELECT count(*), sum(qty) FROM jf JOIN jempty ON qty = k');
SELECT check_offload('SELECT label, count(*) FROM jf JOIN jempty ON qty = k GROUP BY label');
-- the same table on both sides
SELECT check_offload('SELECT b.qty, count(*) FROM jf a JOIN jf b ON a.ok = b.id GROUP BY b.qty');

-- dimensions that are not tables: an aggregate subquery, VALUES, a function
SELECT check_offload('SELECT n, count(*) FROM jf JOIN (SELECT c_nation, count(*) AS n FROM jc GROUP BY c_nation) cn ON ck % 7 = cn.c_nation GROUP BY n');
SELECT check_offload('SELECT v.name, count(*) FROM jf JOIN (VALUES (1, ''one''), (2, ''two''), (2, ''deux'')) v(k, name) ON qty = v.k GROUP BY v.name');
SELECT check_offload('SELECT g % 3, count(*) FROM jf JOIN generate_series(1, 5) g ON qty = g GROUP BY 1');
-- a dimension that is itself a join (kept together by OFFSET 0)
SELECT check_offload('SELECT r_name, count(*) FROM jf JOIN (SELECT n_id, r_name FROM jn JOIN jr ON n_region = r_id OFFSET 0) nr ON sk = nr.n_id GROUP BY r_name');

-- grouping sets, HAVING, ORDER BY count LIMIT over a join
SELECT check_offload('SELECT c_nation, c_seg, count(*) FROM jf JOIN jc ON ck = c_id GROUP BY ROLLUP (c_nation, c_seg)');
SELECT check_offload('SELECT c_name, sum(qty) FROM jf JOIN jc ON ck = c_id GROUP BY c_name HAVING count(*) > 300');
SELECT c_name, count(*) FROM jf JOIN jc ON ck = c_id GROUP BY c_name ORDER BY count(*) DESC, c_name LIMIT 3;

-- numerics past the device's int64 take the exact path: PostgreSQL's join
CREATE TABLE jbig (k int4, big numeric);
INSERT INTO jbig VALUES (1, 1e30), (2, 2);
ANALYZE jbig;
SELECT check_offload('SELECT count(*), sum(big * qty) FROM jf JOIN jbig ON qty = k');

-- errors: the same as natively
SELECT check_error('SELECT sum(qty / (c_nation - c_nation)) FROM jf JOIN jc ON ck = c_id');
-- ... the table's own quals run on every row before the join, as at a
-- native scan: rows the join drops (ck 110, id 7) still raise their errors
SELECT check_error('SELECT count(*) FROM jf JOIN jc ON ck = c_id WHERE 100 / (ck - 110) > -1000');
SELECT check_error('SELECT count(*) FROM jf JOIN jc ON amt = c_bal WHERE 100 / (id - 7) > -1000');
SELECT check_error('SELECT count(*) FROM jf WHERE EXISTS (SELECT FROM jc WHERE c_id = ck) AND 100 / (ck - 110) > -1000');
SELECT check_error('SELECT count(*) FROM jf WHERE NOT EXISTS (SELECT FROM jc WHERE c_id = ck) AND 100 / (ck - 5) > -1000');
-- ... but an inner or semi join with a table of no rows reads none of the
-- table, as a native Hash Join with nothing to hash reads no row past its
-- first: the host where it finds the joined table empty, a device where
-- it scanned the joined table itself and kept no row
SELECT check_error('SELECT count(*), sum(qty) FROM jf JOIN jempty ON ck = k WHERE 100 / (ck - 110) > -1000');
SELECT check_error('SELECT tag, count(*) FROM jf WHERE ck IN (SELECT k FROM jempty) AND 100 / (ck - 110) > -1000 GROUP BY tag');
SELECT check_error('SELECT c_nation, count(*), sum(qty) FROM jf JOIN jc ON ck = c_id WHERE c_nation > 100 AND 100 / (ck - 110) > -1000 GROUP BY 1');
SELECT check_error('SELECT count(*) FROM jf WHERE EXISTS (SELECT FROM jc WHERE c_id = ck AND c_nation > 100) AND 100 / (ck - 110) > -1000');
SELECT check_error('SELECT count(*), sum(qty) FROM jf JOIN jc ON ck = c_id WHERE c_nation > 5 AND 100 / (ck - 110) > -1000');
-- ... also where the host matches the join
SET gpuagg.device_joins = off;
SELECT check_error('SELECT count(*), sum(qty) FROM jf JOIN jempty ON ck = k WHERE 100 / (ck - 110) > -1000');
SELECT check_error('SELECT count(*) FROM jf WHERE EXISTS (SELECT FROM jc WHERE c_id = ck AND c_nation > 100) AND 100 / (ck - 110) > -1000');
RESET gpuagg.device_joins;
-- ... but x IN (a subquery of no rows) is a filter of the native scan: the
-- quals before it in its order run on every row
CREATE TABLE jbigv (a int4);
INSERT INTO jbigv VALUES (1), (100000);
ANALYZE jbigv;
SELECT check_error('SELECT count(*) FROM jbigv WHERE a::int2 IS NOT NULL AND NOT (a NOT IN (SELECT k FROM jempty))');
DROP TABLE jbigv;
-- ... in the native order around a subquery condition's lookup: qty 3 is
-- among the nations, so NOT IN drops it before the division
SELECT check_error('SELECT count(*) FROM jf WHERE qty NOT IN (SELECT c_nation FROM jc) AND 100 / (qty - 3) > -1000');
-- ... which beside a join (whose dimensions the subquery's follow) stays native
SELECT check_offload('SELECT count(*) FROM jf JOIN jp ON pk = p_id WHERE qty NOT IN (SELECT c_nation FROM jc) AND 100 / (qty - 3) > -1000');
SELECT check_offload('SELECT count(*) FROM jf JOIN jp ON pk = p_id WHERE qty NOT IN (SELECT c_nation FROM jc) AND qty > 3');
-- ... as do join conditions that may fail; those that cannot are offloaded
SELECT check_offload('SELECT count(c_nation) FROM jf LEFT JOIN jc ON ck = c_id AND c_nation < qty WHERE qty NOT IN (SELECT c_nation FROM jc WHERE c_nation > 4)');
SELECT check_offload('SELECT count(*) FROM jf WHERE EXISTS (SELECT FROM jc WHERE c_id = ck AND c_nation < qty) AND qty NOT IN (SELECT c_nation FROM jc WHERE c_nation > 4)');
SELECT check_error('SELECT count(c_nation) FROM jf LEFT JOIN jc ON ck = c_id AND 10 / c_nation < qty WHERE qty NOT IN (SELECT c_nation FROM jc WHERE c_nation > 4)');
-- ... and a row they drop meets no join condition
SELECT check_offload('SELECT count(*) FROM jf JOIN jc ON ck = c_id WHERE qty <> 5 AND 100 / (qty - 5 + 0 * c_nation) > -1000');
SELECT check_offload('SELECT count(*), sum(amt) FROM jf JOIN jc ON amt = c_bal WHERE id <> 7 AND 100 / (id - 7 + 0 * c_nation) > -1000');
-- ... EXPLAIN ANALYZE counts the rows the Host Filter drops
SELECT p->>'Host Filter' AS host_filter, (p->>'Table Rows Read')::int AS rows_read,
	   (p->>'Rows Removed by Host Filter')::int = (SELECT count(*) FROM jf WHERE id % 3 = 0) AS removed_right
  FROM analyzed_plan('SELECT count(*), sum(amt) FROM jf JOIN jc ON amt = c_bal WHERE id % 3 <> 0') p;
SELECT check_offload('SELECT c_nation, count(*), sum(qty) FROM jf LEFT JOIN jc ON ck = c_id WHERE qty > 3 AND (c_nation IS NULL OR c_nation < 4) GROUP BY 1');

-- parameters, in the table's and in a dimension's WHERE (generic plans)
SET plan_cache_mode = force_generic_plan;
PREPARE jq(int, text) AS
	SELECT c_nation, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id
	 WHERE qty > $1 AND c_seg = $2 GROUP BY c_nation ORDER BY 1;
EXECUTE jq(5, 'AUTO');
EXECUTE jq(12, 'BUILDING');
SET gpuagg.enabled = off;
EXECUTE jq(12, 'BUILDING');
RESET gpuagg.enabled;
DEALLOCATE jq;
RESET plan_cache_mode;

-- rescans: a correlated subquery runs the join again per outer row, its
-- dimension with a new parameter
SELECT check_offload('SELECT o.g, (SELECT count(*) FROM jf JOIN jc ON ck = c_id WHERE c_nation = o.g) FROM generate_series(0, 7) o(g)');
SELECT check_offload('SELECT o.g, (SELECT sum(qty) FROM jf JOIN jc ON ck = c_id WHERE qty = o.g) FROM generate_series(0, 3) o(g)');

-- a dimension larger than its statistics say: the rows are all matched
INSERT INTO jc SELECT i, 'late' || i, i % 7, 'AUTO', 0 FROM generate_series(100, 119) i;
SELECT check_offload('SELECT c_nation, count(*), count(DISTINCT c_name) FROM jf JOIN jc ON ck = c_id GROUP BY c_nation');

-- parallel: each process scans its share and runs the dimensions' plans
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT check_parallel('SELECT c_nation, count(*), sum(qty), max(p_type) FROM jf JOIN jc ON ck = c_id JOIN jp ON pk = p_id GROUP BY c_nation');
-- numerics: one session, fed by the workers, whose exact path is a serial
-- plan of the join (PostgreSQL's own may all read a Gather); a value past
-- int64 takes it
CREATE TABLE jhuge (hk int4, huge numeric(38, 2));
INSERT INTO jhuge SELECT i, CASE WHEN i = 3 THEN 1e30 ELSE i * 1.5 END FROM generate_series(0, 19) i;
ANALYZE jhuge;
SET gpuagg.fed_groups = 0;
SELECT check_parallel('SELECT c_nation, count(*), sum(amt), sum(c_bal) FROM jf JOIN jc ON ck = c_id GROUP BY c_nation');
SELECT check_parallel('SELECT c_nation, count(*), sum(amt), sum(huge) FROM jf JOIN jc ON ck = c_id JOIN jhuge ON qty = hk GROUP BY c_nation');
CREATE FUNCTION pg_temp.analyzed(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	j json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO j;
	RETURN j::text;
END
$$;
SELECT t LIKE '%in the leader%' AS fed, t LIKE '%"Exact Path Runs": 1%' AS exact_path_ran
  FROM pg_temp.analyzed('SELECT c_nation, sum(huge) FROM jf JOIN jc ON ck = c_id JOIN jhuge ON qty = hk GROUP BY c_nation') t;
-- ... the pages of a joined table the device scans are the workers' to
-- pin too, before the table's
SELECT check_parallel('SELECT b.qty, count(*), sum(a.amt), count(DISTINCT b.tag) FROM jf a JOIN jf b ON a.ok = b.id WHERE b.qty < 12 GROUP BY b.qty');
SELECT check_parallel('SELECT tag, count(*) FROM jf a WHERE EXISTS (SELECT 1 FROM jf b WHERE b.id = a.ok AND b.sk < 4) AND NOT EXISTS (SELECT 1 FROM jdup WHERE k = a.qty) GROUP BY tag');
SELECT t LIKE '%in the leader%' AS fed, t LIKE '%"Joined Tables Scanned by Device": 1,%' AS scanned,
	   (regexp_match(t, '"Joined Table Batches From Workers": (\d+)'))[1]::int > 0 AS workers_pinned
  FROM pg_temp.analyzed('SELECT b.qty, count(*), sum(a.amt) FROM jf a JOIN jf b ON a.ok = b.id GROUP BY b.qty') t;
-- ... and with an InitPlan's value in the WHERE (TPC-H Q22's shape), which
-- the Gather computes first and passes to its workers
SELECT check_parallel('SELECT tag, count(*), sum(amt) FROM jf a WHERE amt > (SELECT avg(amt) FROM jf WHERE qty < 5) AND NOT EXISTS (SELECT 1 FROM jf b WHERE b.id = a.ok AND b.sk < 4) GROUP BY tag');
SELECT t LIKE '%in the leader%' AS fed, t LIKE '%"Params Evaluated": ["$1"]%' AS passed,
	   (regexp_match(t, '"Joined Table Batches From Workers": (\d+)'))[1]::int > 0 AS workers_pinned
  FROM pg_temp.analyzed('SELECT tag, count(*), sum(amt) FROM jf a WHERE amt > (SELECT avg(amt) FROM jf WHERE qty < 5) AND NOT EXISTS (SELECT 1 FROM jf b WHERE b.id = a.ok) GROUP BY tag') t;
-- ... and the device failing at its first batch of them: the workers stop,
-- the leader reads both tables again on the CPU device
SET gpuagg.debug_fail_batch = 1;
SET client_min_messages = error;	-- the fallback's WARNING
SELECT check_parallel('SELECT b.qty, count(*), sum(a.amt) FROM jf a JOIN jf b ON a.ok = b.id GROUP BY b.qty');
RESET client_min_messages;
RESET gpuagg.debug_fail_batch;
RESET gpuagg.fed_groups;
DROP TABLE jhuge;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

-- semi joins (EXISTS, IN over values that repeat): a row once if any
-- matches; anti joins (NOT EXISTS): once if none does, a NULL key never
-- matching; left joins: each match, or one row of NULLs
SELECT check_offload('SELECT tag, count(*), sum(qty) FROM jf WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE qty IN (SELECT k FROM jdup WHERE label > ''l3'') GROUP BY tag');
SELECT check_offload('SELECT tag, count(*), sum(amt) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jdup WHERE k = qty) GROUP BY tag');
SELECT check_offload('SELECT count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jc WHERE c_id = ck)');
SELECT check_offload('SELECT count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jempty WHERE k = qty)');
SELECT check_offload('SELECT c_nation, count(*), count(c_id), sum(c_bal) FROM jf LEFT JOIN jc ON ck = c_id GROUP BY c_nation');
SELECT check_offload('SELECT label, count(*), count(k) FROM jf LEFT JOIN jdup ON qty = k GROUP BY label');
SELECT check_offload('SELECT count(*), count(label) FROM jf LEFT JOIN jempty ON qty = k');
-- a left join's ON condition on its inner side runs in that side's plan;
-- a WHERE above it reads its NULLs
SELECT check_offload('SELECT c_seg, count(*) FROM jf LEFT JOIN jc ON ck = c_id AND c_nation = 2 GROUP BY c_seg');
SELECT check_offload('SELECT count(*) FROM jf LEFT JOIN jc ON ck = c_id WHERE c_id IS NULL OR c_nation = 3');
-- an inner side of several relations: their join's plan is the dimension
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jc JOIN jn ON c_nation = n_id WHERE c_id = ck AND n_name = ''nation3'') GROUP BY tag');
SELECT check_offload('SELECT n_name, count(*), count(c_id) FROM jf LEFT JOIN (jc JOIN jn ON c_nation = n_id) ON ck = c_id GROUP BY n_name');
SELECT check_offload('SELECT count(*) FROM jf WHERE EXISTS (SELECT 1 FROM jc WHERE c_id = ck AND NOT EXISTS (SELECT 1 FROM jn WHERE n_id = c_nation AND n_region = 1))');
-- their other conditions decide each match (TPC-H Q21's l2.l_suppkey <>
-- l1.l_suppkey): on the device where they compile, else on the host
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty AND label < tag) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jdup WHERE k = qty AND label <> tag AND id > k) GROUP BY tag');
SELECT check_offload('SELECT c_seg, count(*), count(c_name) FROM jf LEFT JOIN jc ON ck = c_id AND qty > 3 AND tag < c_name GROUP BY c_seg');
-- a WHERE above an anti join (a left join PostgreSQL made one) reads its
-- NULLs; a WHERE without columns gates the scan
SELECT check_offload('SELECT tag, count(*) FROM jf LEFT JOIN jdup ON qty = k WHERE k IS NULL AND coalesce(label, ''x'') = ''y'' GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf LEFT JOIN jdup ON qty = k WHERE k IS NULL AND coalesce(k, qty) > 10 GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jdup WHERE k = qty) AND current_setting(''gpuagg.force_offload'') = ''off'' GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty) AND current_setting(''gpuagg.force_offload'') = ''on'' GROUP BY tag');
-- columns a group key determines (jc's primary key) are returned too
SELECT check_offload('SELECT c_id, c_name, c_seg, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id GROUP BY c_id');
-- ... fetched by that key from its index for each group returned (few: a
-- Top-N's n, or few estimated), not grouped by on the device (TPC-H Q10)
SELECT check_offload('SELECT c_id, c_name, c_seg, c_bal, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id GROUP BY c_id, c_name ORDER BY sum(amt) DESC, c_id LIMIT 5');
SELECT l FROM explain_stable('SELECT c_id, c_name, c_seg, sum(amt) FROM jf JOIN jc ON ck = c_id GROUP BY c_id ORDER BY sum(amt) DESC, c_id LIMIT 5', true) l
 WHERE l ~ 'Group Key|Fetched|Top-N|Groups';
SELECT check_offload('SELECT c_name, c_seg, tag, count(*) FROM jf JOIN jc ON ck = c_id WHERE qty > 3 GROUP BY c_id, tag HAVING count(*) > 2');
-- ... an outer join's unmatched rows: a NULL key, NULL columns
SELECT check_offload('SELECT c_id, c_name, c_bal, count(*) FROM jf LEFT JOIN jc ON ck = c_id GROUP BY c_id');
-- ... a key of two columns, in another order than the index's; of text
CREATE TABLE jkey2 (a int4, b int2, name text, note varchar(20), PRIMARY KEY (b, a));
INSERT INTO jkey2 SELECT i % 17, (i % 9)::int2, 'name' || i, CASE WHEN i % 5 = 0 THEN NULL ELSE 'note' || i END
  FROM generate_series(0, 152) i;
CREATE TABLE jkeyt (code varchar(8) PRIMARY KEY, descr text, rank int4);
INSERT INTO jkeyt SELECT 't' || i, 'tag number ' || i, 10 - i FROM generate_series(0, 5) i;
ANALYZE jkey2, jkeyt;
SELECT check_offload('SELECT a, b, name, note, count(*), sum(amt) FROM jf JOIN jkey2 ON qty = a AND sk = b GROUP BY a, b');
SELECT check_offload('SELECT code, descr, rank, count(*) FROM jf LEFT JOIN jkeyt ON tag = code GROUP BY code ORDER BY count(*) DESC, rank LIMIT 3');
SELECT l FROM explain_stable('SELECT a, b, name, count(*) FROM jf JOIN jkey2 ON qty = a AND sk = b GROUP BY a, b', true) l
 WHERE l ~ 'Group Key|Fetched';
-- ... a long string stored out of line
UPDATE jkeyt SET descr = (SELECT string_agg(md5(i::text), '') FROM generate_series(1, 400) i) WHERE code = 't2';
SELECT check_offload('SELECT code, md5(descr), length(descr), count(*) FROM jf JOIN jkeyt ON tag = code GROUP BY code');
-- ... per rescan (a LATERAL subquery's parameter)
SELECT g, s.* FROM generate_series(3, 4) g,
  LATERAL (SELECT c_id, c_name, count(*) FROM jf JOIN jc ON ck = c_id WHERE qty > g GROUP BY c_id ORDER BY count(*) DESC, c_id LIMIT 2) s;
SELECT check_offload('SELECT g, s.* FROM generate_series(3, 4) g, LATERAL (SELECT c_id, c_name, count(*) FROM jf JOIN jc ON ck = c_id WHERE qty > g GROUP BY c_id ORDER BY count(*) DESC, c_id LIMIT 2) s');
-- ... also where the device could not group by the column (a jsonb)
CREATE TABLE jjson (j_id int4 PRIMARY KEY, doc jsonb);
INSERT INTO jjson SELECT i, jsonb_build_object('id', i, 'tags', ARRAY['a', 'b' || i]) FROM generate_series(0, 119) i;
ANALYZE jjson;
SELECT check_offload('SELECT j_id, doc, count(*), sum(amt) FROM jf JOIN jjson ON ck = j_id GROUP BY j_id');
SELECT check_offload('SELECT j_id, doc->>''tags'' AS tags, count(*) FROM jf LEFT JOIN jjson ON ck = j_id GROUP BY j_id ORDER BY count(*) DESC, j_id LIMIT 4');
SELECT l FROM explain_stable('SELECT j_id, doc, count(*) FROM jf JOIN jjson ON ck = j_id GROUP BY j_id') l
 WHERE l ~ 'Group Key|Fetched';
DROP TABLE jjson;
-- ... not where many groups are expected, nor under row-level security:
-- group keys on the device
CREATE TABLE jmany (m_id int4 PRIMARY KEY, m_name text);
INSERT INTO jmany SELECT i, 'm' || i FROM generate_series(1, 30000) i;
ANALYZE jmany;
SELECT check_offload('SELECT m_id, m_name, sum(qty) FROM jf JOIN jmany ON id = m_id GROUP BY m_id');
SELECT l FROM explain_stable('SELECT m_id, m_name, sum(qty) FROM jf JOIN jmany ON id = m_id GROUP BY m_id') l
 WHERE l ~ 'Group Key|Fetched';
ALTER TABLE jkeyt ENABLE ROW LEVEL SECURITY;
SELECT l FROM explain_stable('SELECT code, descr, count(*) FROM jf JOIN jkeyt ON tag = code GROUP BY code') l
 WHERE l ~ 'Group Key|Fetched';
DROP TABLE jkey2, jkeyt, jmany;
-- with inner joins, and several at once (TPC-H Q4, Q13, Q22 shapes)
SELECT check_offload('SELECT r_name, count(*) FROM jf JOIN jc ON ck = c_id JOIN jn ON c_nation = n_id JOIN jr ON n_region = r_id WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty) AND NOT EXISTS (SELECT 1 FROM jp WHERE p_id = pk AND p_size > 5) GROUP BY r_name');
SELECT check_offload('SELECT c_name, count(*), count(p_id) FROM jf JOIN jc ON ck = c_id LEFT JOIN jp ON pk = p_id AND p_type LIKE ''PROMO%'' GROUP BY c_name');
SELECT check_offload('SELECT c_id, count(id) FROM jc LEFT JOIN jf ON ck = c_id GROUP BY c_id');

-- EXPLAIN: the dimensions' plans below the node, their keys in probe order
SET max_parallel_workers_per_gather = 0;
EXPLAIN (COSTS OFF)
SELECT r_name, count(*) FROM jf JOIN jc ON ck = c_id JOIN jn ON c_nation = n_id
  JOIN jr ON n_region = r_id WHERE qty > 3 AND amt > c_bal GROUP BY r_name;
-- (its batches as many as the device's pages a batch allow)
SELECT regexp_replace(l, '^(\s+(Page )?Batches): \d+$', '\1: N') AS explain_stable
  FROM explain_stable('SELECT c_nation, count(*) FROM jf JOIN jc ON ck = c_id JOIN jdup ON qty = k GROUP BY c_nation', true) l;
EXPLAIN (COSTS OFF)
SELECT c_nation, count(*) FROM jf LEFT JOIN jc ON ck = c_id
 WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty) AND NOT EXISTS (SELECT 1 FROM jp WHERE p_id = pk)
 GROUP BY c_nation;
RESET max_parallel_workers_per_gather;

-- x [NOT] IN (a hashed subquery), TPC-H Q16's form: the subquery's rows are
-- one more dimension, a semi or anti join with NOT IN's NULL rules (a NULL
-- among them: no row; a NULL x: not where there are rows; none: every row)
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE qty NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE qty NOT IN (SELECT k FROM jdup) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jempty) GROUP BY tag');
SELECT check_offload('SELECT c_nation, count(*) FROM jf JOIN jc ON ck = c_id WHERE pk NOT IN (SELECT p_id FROM jp WHERE p_size > 5) AND qty > 2 GROUP BY c_nation');
SELECT check_offload('SELECT count(*), sum(big) FROM jbig WHERE k NOT IN (SELECT qty FROM jf WHERE qty > 1)');
EXPLAIN (COSTS OFF) SELECT tag, count(*) FROM jf WHERE qty NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) GROUP BY tag;
-- strings (NULL tags), across integer widths, two of them, beside a join's
SELECT check_offload('SELECT qty, count(*) FROM jf WHERE tag NOT IN (SELECT label FROM jdup WHERE k < 3) GROUP BY qty');
SELECT check_offload('SELECT qty, count(*) FROM jf WHERE tag NOT IN (SELECT CASE WHEN k = 3 THEN NULL ELSE ''t'' || k END FROM jdup) GROUP BY qty');
SELECT check_offload('SELECT qty, count(*) FROM jf WHERE tag NOT IN (SELECT ''t'' || k FROM jdup WHERE k < 4) GROUP BY qty');
SELECT check_offload('SELECT tag, count(*), sum(qty) FROM jf WHERE pk NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) AND sk NOT IN (SELECT k FROM jdup WHERE k < 5) GROUP BY tag');
SELECT check_offload('SELECT c_nation, count(*) FROM jf JOIN jc ON ck = c_id WHERE ck NOT IN (SELECT k FROM jdup WHERE k > 10) AND tag NOT IN (SELECT p_type FROM jp) GROUP BY c_nation');
-- ... matched on the host
SET gpuagg.device_joins = off;
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jempty) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE qty NOT IN (SELECT k FROM jdup) GROUP BY tag');
SELECT check_offload('SELECT qty, count(*) FROM jf WHERE tag NOT IN (SELECT label FROM jdup WHERE k < 3) GROUP BY qty');
EXPLAIN (COSTS OFF) SELECT count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jempty);
RESET gpuagg.device_joins;
-- rescanned with a parameter of its own: the subquery runs once
SELECT check_offload('SELECT x, (SELECT count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jdup WHERE k IS NOT NULL) AND qty = x) FROM generate_series(1, 4) x');
SELECT check_offload('SELECT x, (SELECT count(*) FROM jf WHERE ck NOT IN (SELECT k FROM jdup WHERE k = x)) FROM generate_series(1, 4) x');
-- ... whose plan reads the outer one: the node's parameter too (a rescan
-- below a Sort reaches it)
SELECT check_offload('SELECT x, (SELECT c FROM (SELECT sum(qty) c FROM jf WHERE qty NOT IN (SELECT k FROM jdup WHERE k = x) ORDER BY 1 LIMIT 1) s) FROM generate_series(1, 4) x');
SET gpuagg.device_joins = off;
SELECT check_offload('SELECT x, (SELECT c FROM (SELECT sum(qty) c FROM jf WHERE qty NOT IN (SELECT k FROM jdup WHERE k = x) ORDER BY 1 LIMIT 1) s) FROM generate_series(1, 4) x');
RESET gpuagg.device_joins;
-- ... a subquery of DISTINCT values (its plan an aggregation, rescanned
-- before each read: every SubPlan of it shares its state)
SELECT check_offload('SELECT x, (SELECT sum(qty) FROM jf WHERE qty NOT IN (SELECT DISTINCT k FROM jdup WHERE k <> x)) FROM generate_series(1, 4) x');
SELECT check_offload('SELECT x, (SELECT sum(qty) FROM jf WHERE qty NOT IN (SELECT DISTINCT k FROM jdup WHERE k IS NOT NULL) AND ck = x) FROM generate_series(1, 4) x');
-- ... and a partitioned table's, which the host evaluates per row
CREATE TABLE jpart (k int4, v int4) PARTITION BY RANGE (k);
CREATE TABLE jpart1 PARTITION OF jpart FOR VALUES FROM (0) TO (10);
CREATE TABLE jpart2 PARTITION OF jpart FOR VALUES FROM (10) TO (20);
INSERT INTO jpart SELECT i % 20, i FROM generate_series(1, 10000) i;
ANALYZE jpart;
SELECT check_offload('SELECT x, (SELECT c FROM (SELECT sum(v) c FROM jpart WHERE k NOT IN (SELECT k FROM jdup WHERE k = x) ORDER BY 1 LIMIT 1) s) FROM generate_series(1, 4) x');
DROP TABLE jpart;
-- in parallel, each process runs the subquery (a parallel-safe plan of it:
-- not a Gather); fed, the leader
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT check_parallel('SELECT tag, count(*), sum(qty) FROM jf WHERE ck NOT IN (SELECT x FROM unnest(ARRAY[1, 2, 30]) x) GROUP BY tag');
SELECT check_parallel('SELECT tag, count(*), sum(qty) FROM jf WHERE qty NOT IN (SELECT x FROM unnest(ARRAY[1, NULL]) x) GROUP BY tag');
SET gpuagg.fed_groups = 0;
SELECT check_parallel('SELECT tag, count(*), sum(qty) FROM jf WHERE ck NOT IN (SELECT x FROM unnest(ARRAY[1, 2, 30]) x) GROUP BY tag');
EXPLAIN (COSTS OFF) SELECT tag, count(*), sum(qty) FROM jf WHERE ck NOT IN (SELECT x FROM unnest(ARRAY[1, 2, 30]) x) GROUP BY tag;
RESET gpuagg.fed_groups;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET max_parallel_workers_per_gather;

-- the device's join (unique integer keys): a NULL key on either side
-- matches nothing, an anti join keeps the table's NULL keys, a left join's
-- unmatched rows read NULLs; a dimension reached through another's column
CREATE TABLE jnull (k int4, label text, nk int4);
INSERT INTO jnull SELECT i, 'n' || i, CASE WHEN i % 4 = 0 THEN NULL ELSE i % 7 END FROM generate_series(0, 9) i;
INSERT INTO jnull VALUES (NULL, 'null', 1);
ANALYZE jnull;
SELECT check_offload('SELECT label, count(*), sum(amt) FROM jf JOIN jnull ON qty = k GROUP BY label');
SELECT check_offload('SELECT label, count(*) FROM jf LEFT JOIN jnull ON ck = k GROUP BY label');
-- a key the host maps, of a joined table's string (NULL where unmatched)
SELECT check_offload('SELECT regexp_replace(label, ''[0-4]$'', ''-''), count(*), sum(amt) FROM jf LEFT JOIN jnull ON ck = k GROUP BY 1');
SELECT check_offload('SELECT count(*), sum(qty) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jnull WHERE k = ck)');
SELECT check_offload('SELECT n_name, count(*) FROM jf JOIN jnull ON qty = k JOIN jn ON nk = n_id WHERE EXISTS (SELECT 1 FROM jdup WHERE jdup.k = jf.sk) GROUP BY n_name');
-- ... repeated keys and other conditions of a semi, anti or left join:
-- each candidate (a row of the key the conditions hold for), depth first
-- over the dimensions, as natively; a condition NULL is no candidate
CREATE TABLE jm (k int4, v int4, w text);
INSERT INTO jm SELECT i % 12, CASE WHEN i % 5 = 0 THEN NULL ELSE i % 9 END, 'w' || (i % 4)
  FROM generate_series(0, 59) i;
INSERT INTO jm VALUES (NULL, 1, 'null'), (3, NULL, NULL), (40, 2, 'w40');
ANALYZE jm;
SELECT check_offload('SELECT a.w, b.w, count(*), sum(qty), count(b.v), sum(a.v * b.v) FROM jf JOIN jm a ON qty = a.k JOIN jm b ON sk = b.k GROUP BY 1, 2');
SELECT check_offload('SELECT a.w, count(*), count(b.v), sum(b.v), count(b.w) FROM jf JOIN jm a ON qty = a.k LEFT JOIN jm b ON sk = b.k AND b.v > jf.qty GROUP BY 1');
SELECT check_offload('SELECT b.w, count(*), sum(amt) FROM jf LEFT JOIN jm b ON qty = b.k AND b.v < jf.sk GROUP BY 1');
SELECT check_offload('SELECT tag, count(*), sum(qty) FROM jf WHERE EXISTS (SELECT 1 FROM jm WHERE k = qty AND v <> jf.sk) GROUP BY tag');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jm WHERE k = qty AND v > jf.qty) AND EXISTS (SELECT 1 FROM jm WHERE k = jf.sk AND v <> jf.qty) GROUP BY tag');
SELECT l FROM explain_stable('SELECT tag, count(*) FROM jf JOIN jm a ON qty = a.k WHERE EXISTS (SELECT 1 FROM jm WHERE k = qty AND v <> jf.sk) GROUP BY tag', true) l
 WHERE l ~ 'Matched By|Rows In|Rows Out';
-- ... text keys (text, varchar, under a deterministic collation): the
-- device compares the strings' codes in the run's dictionary
CREATE TABLE jt (tk varchar(8), label text, sub text);
INSERT INTO jt SELECT 't' || (i % 9), 'lab' || (i % 4), 'nation' || (i % 8) FROM generate_series(0, 26) i;
INSERT INTO jt VALUES (NULL, 'null', 'nation1'), ('t1', NULL, NULL);
ANALYZE jt;
SELECT check_offload('SELECT label, count(*), sum(qty) FROM jf JOIN jt ON tag = tk GROUP BY label');
SELECT check_offload('SELECT n_region, count(*), count(label) FROM jf JOIN jt ON tag = tk JOIN jn ON sub = n_name GROUP BY n_region');
SELECT check_offload('SELECT count(*), sum(amt) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jt WHERE tk = tag)');
SELECT check_offload('SELECT label, count(*) FROM jf LEFT JOIN jt ON tag = tk COLLATE "C" GROUP BY label');
SELECT check_offload('SELECT label, count(*) FROM jf JOIN (SELECT DISTINCT tk, label FROM jt) d ON tag = tk GROUP BY label');
SELECT l FROM explain_stable('SELECT label, count(*) FROM jf JOIN jt ON tag = tk GROUP BY label', true) l
 WHERE l ~ 'Matched By|Rows Out';
-- ... a date key, its table read by the device itself
CREATE TABLE jday (dday date, quarter int4);
INSERT INTO jday SELECT date '2024-01-01' + i, i / 91 FROM generate_series(0, 399) i;
ANALYZE jday;
SELECT check_offload('SELECT quarter, count(*), sum(qty) FROM jf JOIN jday ON day = dday GROUP BY quarter');
SELECT l FROM explain_stable('SELECT quarter, count(*) FROM jf JOIN jday ON day = dday GROUP BY quarter', true) l
 WHERE l ~ 'Matched By|Scanned by Device';
-- ... and a LIKE or a length of a joined table's string, as TPC-H Q14's
-- CASE WHEN p_type LIKE 'PROMO%': the device answers it reading the
-- table's pages too (a LIKE with `_' is the host's: the host reads it)
SELECT check_offload('SELECT sum(CASE WHEN p_type LIKE ''PROMO%'' THEN qty ELSE 0 END), count(*) FILTER (WHERE p_type NOT LIKE ''%1%''), sum(length(p_type)), sum(octet_length(p_type)) FROM jf JOIN jp ON pk = p_id');
SELECT check_offload('SELECT p_type LIKE ''PROMO%'' AS promo, length(p_type) AS l, count(*), sum(qty) FROM jf JOIN jp ON pk = p_id WHERE p_type NOT LIKE ''STD 4%'' GROUP BY 1, 2');
SELECT l FROM explain_stable('SELECT sum(CASE WHEN p_type LIKE ''PROMO%'' THEN qty ELSE 0 END), sum(length(p_type)) FROM jf JOIN jp ON pk = p_id', true) l
 WHERE l ~ 'Matched By|Scanned by Device';
SELECT l FROM explain_stable('SELECT sum(CASE WHEN p_type LIKE ''PROMO_%'' THEN qty ELSE 0 END) FROM jf JOIN jp ON pk = p_id', true) l
 WHERE l ~ 'Matched By|Scanned by Device';
SELECT check_offload('SELECT sum(CASE WHEN p_type LIKE ''PROMO_%'' THEN qty ELSE 0 END), count(*) FILTER (WHERE upper(p_type) COLLATE "C" < ''Q'') FROM jf JOIN jp ON pk = p_id');
-- ... a joined table's WHERE on group keys the device cannot check in its
-- pages (a range of strings under the database's collation, SSB Q2.2's
-- p_brand1 BETWEEN): each group is kept or not whole, so the node checks
-- it per group and the device reads the table unfiltered
SELECT check_offload('SELECT quarter, p_type, count(*), sum(qty) FROM jf JOIN jp ON pk = p_id JOIN jday ON day = dday WHERE p_type BETWEEN ''PROMO 1'' AND ''STD 3'' GROUP BY quarter, p_type');
SELECT l FROM explain_stable('SELECT p_type, count(*) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY p_type', true) l
 WHERE l ~ 'Filter|Scanned by Device|Seq Scan|Groups';
SELECT check_offload('SELECT p_type, count(*) FROM jf JOIN jp ON pk = p_id WHERE (p_type < ''STD 2'' OR p_type IN (''STD 9'', ''STD 45'')) AND p_size > 2 GROUP BY p_type HAVING count(*) > 600');
SELECT check_offload('SELECT p_type, sum(qty) FROM jf JOIN jp ON pk = p_id WHERE p_type > ''PROMO 3'' GROUP BY p_type ORDER BY 2 DESC, 1 LIMIT 3');
-- (char(n) with NULLs; text under "C")
SELECT check_offload('SELECT c_seg, count(*) FROM jf JOIN jc ON ck = c_id WHERE c_seg >= ''B'' GROUP BY c_seg');
SELECT check_offload('SELECT c_name, count(*) FROM jf JOIN jc ON ck = c_id WHERE c_name COLLATE "C" < ''cust3'' GROUP BY c_name');
-- ... not where the WHERE reads another column, for a semi join, nor with
-- grouping sets (their coarser groups hold rows of several keys)
SELECT check_offload('SELECT p_size, count(*) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY p_size');
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE EXISTS (SELECT 1 FROM jp WHERE p_id = pk AND p_type >= ''STD'') GROUP BY tag');
SELECT check_offload('SELECT p_type, count(*) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY ROLLUP (p_type)');
SELECT l FROM explain_stable('SELECT p_size, count(*) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY p_size') l
 WHERE l ~ 'Filter';
-- ... nor where something the node computes could fail on the rows the
-- filter drops (natively never computed: the PROMO parts' p_id % 4 is 0),
-- nor for a key that is a COLLATE of the column, nor where the device
-- could read the table with the filter (an integer equality), nor for a
-- row security policy
SELECT check_offload('SELECT p_type, sum(100 / (p_id % 4)) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY p_type');
SELECT check_offload('SELECT p_type COLLATE "C", count(*) FROM jf JOIN jp ON pk = p_id WHERE p_type > ''PROMO 3'' GROUP BY 1');
SELECT l FROM explain_stable('SELECT p_type, sum(100 / (p_id % 4)) FROM jf JOIN jp ON pk = p_id WHERE p_type >= ''STD'' GROUP BY p_type') l
 WHERE l ~ 'Filter';
SELECT l FROM explain_stable('SELECT p_size, count(*) FROM jf JOIN jp ON pk = p_id WHERE p_size = 3 GROUP BY p_size') l
 WHERE l ~ 'Filter';
CREATE ROLE jk_user;
GRANT SELECT ON jf, jp TO jk_user;
ALTER TABLE jp ENABLE ROW LEVEL SECURITY;
CREATE POLICY jk_std ON jp TO jk_user USING (p_type >= 'STD');
SET ROLE jk_user;
SELECT l FROM explain_stable('SELECT p_type, count(*) FROM jf JOIN jp ON pk = p_id GROUP BY p_type') l
 WHERE l ~ 'Filter|Custom';
SELECT p_type, count(*) FROM jf JOIN jp ON pk = p_id GROUP BY p_type ORDER BY 1 LIMIT 3;
RESET ROLE;
DROP POLICY jk_std ON jp;
ALTER TABLE jp DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON jf, jp FROM jk_user;
DROP ROLE jk_user;
-- ... the scanned table's char(n) range (which the device does not compare)
-- beside a joined table's filter, each checked per group
CREATE TABLE jfc AS SELECT id, ck, pk, ('c' || (id % 20))::char(4) AS c, qty FROM jf;
ANALYZE jfc;
SELECT check_offload('SELECT c, count(*), sum(qty) FROM jfc JOIN jc ON ck = c_id WHERE c BETWEEN ''c1'' AND ''c15'' GROUP BY c');
SELECT check_offload('SELECT c, p_type, count(*) FROM jfc JOIN jp ON pk = p_id WHERE c BETWEEN ''c1'' AND ''c15'' AND p_type >= ''STD'' GROUP BY c, p_type');
SELECT l FROM explain_stable('SELECT c, p_type, count(*) FROM jfc JOIN jp ON pk = p_id WHERE c BETWEEN ''c1'' AND ''c15'' AND p_type >= ''STD'' GROUP BY c, p_type') l
 WHERE l ~ 'Filter';
DROP TABLE jfc;
-- ... in parallel: each process's groups (the Finalize Aggregate checks
-- them) and the leader's, its workers pinning pages
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.fed_groups = 1000000;
SELECT check_parallel('SELECT quarter, p_type, count(*), sum(qty) FROM jf JOIN jp ON pk = p_id JOIN jday ON day = dday WHERE p_type BETWEEN ''PROMO 1'' AND ''STD 3'' GROUP BY quarter, p_type');
SET gpuagg.fed_groups = 0;
SELECT check_parallel('SELECT quarter, p_type, count(*), sum(amt) FROM jf JOIN jp ON pk = p_id JOIN jday ON day = dday WHERE p_type BETWEEN ''PROMO 1'' AND ''STD 3'' GROUP BY quarter, p_type');
SELECT l FROM explain_stable('SELECT quarter, p_type, count(*), sum(amt) FROM jf JOIN jp ON pk = p_id JOIN jday ON day = dday WHERE p_type BETWEEN ''PROMO 1'' AND ''STD 3'' GROUP BY quarter, p_type') l
 WHERE l ~ 'Filter|Aggregat';
SET gpuagg.fed_groups = 1000000;
SELECT l FROM explain_stable('SELECT quarter, p_type, count(*), sum(qty) FROM jf JOIN jp ON pk = p_id JOIN jday ON day = dday WHERE p_type BETWEEN ''PROMO 1'' AND ''STD 3'' GROUP BY quarter, p_type') l
 WHERE l ~ 'Filter|Aggregat';
RESET gpuagg.fed_groups;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
-- ... an index probe: where a joined table whose plan the host runs has
-- few keys that are, through the join's keys, a column a btree index of
-- the table leads with (TPC-H Q18's IN (SELECT l_orderkey ... HAVING ...)),
-- the table's rows are those the index finds for them, not all its pages
-- (duplicate keys read the rows once, the join multiplies them; a NULL
-- key of the table matches nothing; a WHERE on the table that cannot
-- raise an error, v > 100, is evaluated on the rows found); not with a
-- WHERE that could (a native scan evaluates it on every row), nor a
-- string of it, nor many keys
CREATE TABLE jpf (id int4, k int4, v int4);
INSERT INTO jpf SELECT i, i % 5000, (i * 7919) % 1009 FROM generate_series(1, 100000) i;
INSERT INTO jpf VALUES (0, NULL, 5);
CREATE INDEX jpf_k ON jpf (k);
CREATE TABLE jpd (k int8 PRIMARY KEY, name text);
INSERT INTO jpd SELECT i, 'n' || (i % 50) FROM generate_series(0, 4999) i;
ANALYZE jpf, jpd;
SET max_parallel_workers_per_gather = 0;
SELECT q, analyzed_plan(q)::text LIKE '%Index Probe%' AS probed, check_offload(q)
  FROM (VALUES ('SELECT jpd.name, count(*), sum(jpf.v) FROM jpf JOIN jpd ON jpf.k = jpd.k WHERE jpd.k IN (SELECT k FROM jpd WHERE name = ''n7'' AND k < 150 GROUP BY k) GROUP BY 1'),
			   ('SELECT d.k, count(*), min(jpf.v) FROM jpf JOIN (SELECT k FROM jpd WHERE k < 150 AND name = ''n7'' GROUP BY k) d ON jpf.k = d.k GROUP BY 1'),
			   ('SELECT count(*), sum(v) FROM jpf JOIN (SELECT k FROM jpd WHERE k IN (7, 57) UNION ALL SELECT 7) d ON jpf.k = d.k'),
			   ('SELECT count(*), sum(v) FROM jpf WHERE k IN (SELECT k FROM jpd WHERE k IN (3, 4) GROUP BY k)'),
			   ('SELECT count(*), sum(v) FROM jpf JOIN (SELECT k FROM jpd WHERE k < 150 AND name = ''n7'' GROUP BY k) d ON jpf.k = d.k WHERE jpf.v > 100'),
			   ('SELECT count(*), sum(v) FROM jpf JOIN (SELECT k FROM jpd WHERE k < 150 AND name = ''n7'' GROUP BY k) d ON jpf.k = d.k WHERE 5000 / (jpf.v + 1) > 4'),
			   ('SELECT jpf.v % 3, count(*) FROM jpf JOIN (SELECT k FROM jpd WHERE name = ''n7'' GROUP BY k) d ON jpf.k = d.k GROUP BY 1')) t(q);
SELECT l FROM explain_stable('SELECT jpd.name, count(*), sum(jpf.v) FROM jpf JOIN jpd ON jpf.k = jpd.k WHERE jpd.k IN (SELECT k FROM jpd WHERE name = ''n7'' AND k < 150 GROUP BY k) GROUP BY 1', true) l
 WHERE l ~ 'Index Probe|Rows In|Table Rows Read|Scanned by Device';
RESET max_parallel_workers_per_gather;
DROP TABLE jpf, jpd;
-- ... and the joined tables the device scans: where their rows that can
-- match are those whose key is one of another joined table's few keys
-- (TPC-H Q18's orders, by its IN subquery's order keys), or one of the
-- values a column has in the rows found of a table probed before (its
-- customers, by those orders' o_custkey), and a btree index leads with
-- the key, the device reads only the rows the index finds (a NULL key
-- matches nothing; a row updated in place, HOT, is found at its new place;
-- a deleted row is not; the transaction's own rows are; a WHERE on the
-- table that cannot raise an error, o.d > date '2020-03-01', is evaluated
-- on the rows found); not with a WHERE that could, nor with a left join's
CREATE TABLE jqc (id int4 PRIMARY KEY, name text, seg text);
CREATE TABLE jqo (ok int8 PRIMARY KEY, cust int4, d date, note text) WITH (fillfactor = 70);
CREATE TABLE jqf (k int8, v int4, w numeric(10,2));
INSERT INTO jqc SELECT i, 'cust' || i, 'seg' || (i % 5) FROM generate_series(1, 20000) i;
INSERT INTO jqo SELECT i, CASE WHEN i = 777 THEN NULL ELSE (i * 37) % 20000 + 1 END,
       date '2020-01-01' + (i % 700), 'o' || i FROM generate_series(1, 50000) i;
INSERT INTO jqf SELECT i % 50000 + 1, CASE WHEN i % 50000 + 1 IN (5, 777, 1234, 4321, 49999) THEN 100 ELSE 1 END,
       i % 97 FROM generate_series(1, 400000) i;
CREATE INDEX jqf_k ON jqf (k);
CREATE TABLE jqdup (id int4, tag text);
INSERT INTO jqdup SELECT i % 10000, 't' || i FROM generate_series(1, 20000) i;
CREATE INDEX jqdup_id ON jqdup (id);
ANALYZE jqc, jqo, jqf, jqdup;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP VIEW jq_queries AS
SELECT * FROM (VALUES
  ('SELECT c.name, c.id, o.ok, o.d, sum(f.v), count(*), sum(f.w) FROM jqc c, jqo o, jqf f WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) AND c.id = o.cust AND o.ok = f.k GROUP BY 1, 2, 3, 4'),
  ('SELECT c.seg, o.note, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) GROUP BY 1, 2'),
  ('SELECT o.d, count(*), sum(f.v) FROM jqf f JOIN jqo o ON o.ok = f.k WHERE EXISTS (SELECT 1 FROM jqc c WHERE c.id = o.cust) AND o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) GROUP BY 1'),
  ('SELECT d.tag, count(*), sum(f.v) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqdup d ON d.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) GROUP BY 1'),
  ('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) AND o.d > date ''2020-03-01'' GROUP BY 1'),
  ('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) AND 100000 / o.cust > 4 GROUP BY 1'),
  ('SELECT c.name, count(*), sum(f.w) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) AND f.w > 50.5 GROUP BY 1'),
  ('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT x FROM unnest(ARRAY[5000000000, 6000000000]::int8[]) x) GROUP BY 1'),
  ('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k LEFT JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) GROUP BY 1'),
  ('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 1) GROUP BY 1')
) t(q);
SELECT q, coalesce(analyzed_plan(q)->>'Index Probe Keys', '0') AS keys,
       coalesce(analyzed_plan(q)->>'Joined Tables Probed by Index', '0') AS probed,
       check_offload(q)
  FROM jq_queries;
SELECT l FROM explain_stable((SELECT q FROM jq_queries LIMIT 1), true) l
 WHERE l ~ '^  (Table Rows Read|Index Probe|Rows Found|Joined Tables (Scanned|Probed)|Their Rows|Rows In)';
-- a WHERE that fails on a row the index does not find fails as natively
SELECT check_error('SELECT c.name, count(*) FROM jqf f JOIN jqo o ON o.ok = f.k JOIN jqc c ON c.id = o.cust WHERE o.ok IN (SELECT k FROM jqf GROUP BY k HAVING sum(v) > 500) AND 100000 / (o.cust - 3) > 4 GROUP BY 1');
-- a row updated in place (HOT) and one whose key moved, a deleted one,
-- and rows of the transaction's own
BEGIN;
UPDATE jqo SET note = 'hot' WHERE ok = 5;
UPDATE jqo SET d = d + 1, cust = 42 WHERE ok = 4321;
DELETE FROM jqo WHERE ok = 1234;
INSERT INTO jqo VALUES (50001, 7, date '2021-01-01', 'new');
INSERT INTO jqf SELECT 50001, 600, 1 FROM generate_series(1, 3);
SELECT q, coalesce(analyzed_plan(q)->>'Joined Tables Probed by Index', '0') AS probed,
       check_offload(q)
  FROM jq_queries LIMIT 4;
ROLLBACK;
RESET max_parallel_workers_per_gather;
DROP VIEW jq_queries;
-- ... a joined table whose cheapest plan is an index-only scan (TPC-H
-- Q22's NOT EXISTS over orders' o_custkey): where the device runs the join
-- it scans the table itself, for less than the host's plan and hashing;
-- the host's join keeps the index-only scan
CREATE TABLE jqw (k int4, pad text);
INSERT INTO jqw SELECT i % 15000, repeat('x', 150) FROM generate_series(1, 100000) i;
CREATE INDEX jqw_k ON jqw (k);
VACUUM ANALYZE jqw;
EXPLAIN (COSTS OFF) SELECT c.seg, count(*) FROM jqc c WHERE NOT EXISTS (SELECT 1 FROM jqw w WHERE w.k = c.id) GROUP BY 1;
SELECT check_offload('SELECT c.seg, count(*), sum(c.id) FROM jqc c WHERE NOT EXISTS (SELECT 1 FROM jqw w WHERE w.k = c.id) GROUP BY 1');
SELECT check_offload('SELECT c.seg, count(*) FROM jqc c WHERE c.id IN (SELECT w.k FROM jqw w) GROUP BY 1');
SET gpuagg.device_joins = off;
EXPLAIN (COSTS OFF) SELECT c.seg, count(*) FROM jqc c WHERE NOT EXISTS (SELECT 1 FROM jqw w WHERE w.k = c.id) GROUP BY 1;
SELECT check_offload('SELECT c.seg, count(*), sum(c.id) FROM jqc c WHERE NOT EXISTS (SELECT 1 FROM jqw w WHERE w.k = c.id) GROUP BY 1');
RESET gpuagg.device_joins;
-- ... but not an inheritance parent's (a sequential scan reads its own
-- rows alone), nor a TABLESAMPLE's, nor where the table's WHERE could
-- raise an error on a row the index's plan never reads (its z = 0 rows)
CREATE TABLE jqwc () INHERITS (jqw);
INSERT INTO jqwc SELECT i % 15000 + 5000, repeat('x', 150) FROM generate_series(1, 100000) i;
CREATE INDEX jqwc_k ON jqwc (k);
CREATE TABLE jqz (k int4, z int4, pad text);
INSERT INTO jqz SELECT i % 30, CASE WHEN i % 30 >= 20 THEN 0 ELSE 1 END, repeat('x', 150)
  FROM generate_series(1, 100000) i;
CREATE INDEX jqz_k ON jqz (k);
VACUUM ANALYZE jqw, jqwc, jqz;
SELECT check_offload('SELECT c.seg, count(*) FROM jqc c WHERE NOT EXISTS (SELECT 1 FROM jqw w WHERE w.k = c.id) GROUP BY 1');
SELECT check_offload('SELECT c.seg, count(*) FROM jqc c JOIN jqw w ON w.k = c.id GROUP BY 1');
SELECT check_offload('SELECT c.seg, count(*) FROM jqc c WHERE EXISTS (SELECT 1 FROM jqw w TABLESAMPLE BERNOULLI (0) WHERE w.k = c.id) GROUP BY 1');
SELECT check_error('SELECT c.seg, count(*) FROM jqc c WHERE EXISTS (SELECT 1 FROM jqz e WHERE e.k = c.id AND e.k IN (1, 2, 3, 4, 5, 6, 7, 8) AND 100 / e.z > 0) GROUP BY 1');
DROP TABLE jqw CASCADE;
DROP TABLE jqc, jqo, jqf, jqdup, jqz;
-- ... and the host's matching (gpuagg.device_joins off) the same
SET gpuagg.device_joins = off;
SELECT check_offload('SELECT r_name, n_name, count(*), sum(amt) FROM jf JOIN jc ON ck = c_id JOIN jn ON c_nation = n_id JOIN jr ON n_region = r_id GROUP BY r_name, n_name');
SELECT check_offload('SELECT label, count(*) FROM jf LEFT JOIN jnull ON ck = k GROUP BY label');
EXPLAIN (COSTS OFF) SELECT label, count(*) FROM jf JOIN jnull ON qty = k GROUP BY label;
SELECT check_offload('SELECT tag, count(*) FROM jf WHERE NOT EXISTS (SELECT 1 FROM jm WHERE k = qty AND v > jf.qty) AND EXISTS (SELECT 1 FROM jm WHERE k = jf.sk AND v <> jf.qty) GROUP BY tag');
RESET gpuagg.device_joins;
DROP TABLE jnull, jm, jt, jday;

-- not offloaded, and why
RESET gpuagg.force_offload;
SET gpuagg.log_fallback = on;
SELECT count(*) FROM jf FULL JOIN jdup ON qty = k;
SELECT count(*) FROM jf WHERE EXISTS (SELECT 1 FROM jdup WHERE k = qty AND label < tag || (SELECT max(tk) FROM jtag));
SELECT count(*) FROM jf LEFT JOIN jc ON ck = c_id LEFT JOIN jn ON c_nation = n_id;
-- a match condition that may fail runs natively only for the rows the
-- table's WHERE keeps
SELECT count(*) FROM jf WHERE qty <> 5 AND EXISTS (SELECT 1 FROM jdup WHERE k = qty AND 100 / (k + qty - 10) > 0);
-- an inheritance parent's primary key holds for its own rows only
CREATE TABLE jpar (id int4 PRIMARY KEY, name text);
CREATE TABLE jchild () INHERITS (jpar);
INSERT INTO jpar VALUES (1, 'a'), (2, 'b');
INSERT INTO jchild VALUES (1, 'c');
SELECT id, name, count(*) FROM jpar GROUP BY id ORDER BY 1, 2;
DROP TABLE jpar CASCADE;
SELECT count(*) FROM jf, jr;
SELECT count(*) FROM jf JOIN jc ON ck < c_id;
SELECT count(*) FROM jf JOIN jdup ON qty + 1 = k;
SELECT count(*) FROM jf, LATERAL (SELECT c_name FROM jc WHERE c_id = ck LIMIT 1) l;
RESET gpuagg.log_fallback;

DROP TABLE jf, jc, jp, js, jn, jr, jdup, jempty, jps, jtag, jbig;
