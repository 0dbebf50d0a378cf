--
-- partitions: a partitioned table (or an inheritance parent) read as one
-- scan of the partitions left after the planner's pruning, every query
-- compared with its native run
--
SET gpuagg.force_offload = on;

-- range partitions, one of them list-partitioned again with a default
CREATE TABLE pt (id int4, k int4, v int8, f float8, s text, d date, m numeric(12,2))
	PARTITION BY RANGE (id);
CREATE TABLE pt_lo PARTITION OF pt FOR VALUES FROM (MINVALUE) TO (1000);
CREATE TABLE pt_mid PARTITION OF pt FOR VALUES FROM (1000) TO (5000)
	PARTITION BY LIST (k);
CREATE TABLE pt_mid_a PARTITION OF pt_mid FOR VALUES IN (1, 2, 3);
CREATE TABLE pt_mid_def PARTITION OF pt_mid DEFAULT;
CREATE TABLE pt_hi PARTITION OF pt FOR VALUES FROM (5000) TO (20000);
CREATE TABLE pt_empty PARTITION OF pt FOR VALUES FROM (20000) TO (30000);
INSERT INTO pt
SELECT i, i % 7, CASE WHEN i % 11 = 0 THEN NULL ELSE i::int8 * 1000003 END,
	   i / 8.0, CASE WHEN i % 13 = 0 THEN NULL ELSE 's' || (i % 17) END,
	   date '2024-01-01' + i % 300, (i % 1000) / 4.0
  FROM generate_series(-50, 19999) i;
ANALYZE pt;

EXPLAIN (COSTS OFF) SELECT k, count(*), sum(v) FROM pt GROUP BY k;
SELECT check_offload('SELECT k, count(*), sum(v), avg(f), min(s COLLATE "C"), max(d), sum(m) FROM pt GROUP BY k');
SELECT check_offload('SELECT count(*), count(s), sum(m), avg(m) FROM pt');
SELECT check_offload('SELECT s, count(*), max(v) FROM pt WHERE f > 100 GROUP BY s');
SELECT check_offload('SELECT d, count(DISTINCT k) FROM pt GROUP BY d');
-- pruning at plan time: the partitions left are read, and EXPLAIN names them
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM pt WHERE id >= 1000 AND id < 3000 GROUP BY k;
SELECT check_offload('SELECT k, count(*) FROM pt WHERE id >= 1000 AND id < 3000 GROUP BY k');
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM pt WHERE id < 10;
SELECT check_offload('SELECT count(*), sum(v) FROM pt WHERE id < 10');
EXPLAIN (COSTS OFF) SELECT count(*) FROM pt WHERE id BETWEEN 1000 AND 4999 AND k = 2;
SELECT check_offload('SELECT count(*) FROM pt WHERE id BETWEEN 1000 AND 4999 AND k = 2');
-- only the default partition
SELECT check_offload('SELECT k, sum(v) FROM pt WHERE id BETWEEN 1000 AND 4999 AND k > 3 GROUP BY k');
-- every partition pruned: the planner proves the input empty, and the
-- native plan answers without a scan, as for a plain table's WHERE false
EXPLAIN (COSTS OFF) SELECT count(*), sum(v) FROM pt WHERE id > 100000;

-- the table a join scans: the partitions left after pruning, each row
-- matched against the other tables' hash tables (inner, left, semi and
-- anti joins)
CREATE TABLE ptk (k int4 PRIMARY KEY, name text NOT NULL, grp int4);
INSERT INTO ptk SELECT i, 'k' || i, i % 3 FROM generate_series(0, 5) i;
ANALYZE ptk;
EXPLAIN (COSTS OFF) SELECT name, count(*), sum(v) FROM pt JOIN ptk USING (k) WHERE id < 3000 GROUP BY name;
SELECT check_offload('SELECT name, count(*), sum(v), avg(f), max(d), min(s COLLATE "C") FROM pt JOIN ptk USING (k) GROUP BY name');
SELECT check_offload('SELECT grp, count(*), sum(m) FROM pt JOIN ptk USING (k) WHERE id >= 1000 AND id < 3000 GROUP BY grp');
SELECT check_offload('SELECT grp, count(*), count(name), sum(v) FROM pt LEFT JOIN ptk USING (k) GROUP BY grp');
SELECT check_offload('SELECT k, count(*) FROM pt WHERE k IN (SELECT k FROM ptk WHERE grp = 1) GROUP BY k');
SELECT check_offload('SELECT k, count(*) FROM pt WHERE NOT EXISTS (SELECT 1 FROM ptk WHERE ptk.k = pt.k AND grp = 1) GROUP BY k');
-- ... pruned at run time too (a generic plan's $1), compared with native
SET plan_cache_mode = force_generic_plan;
PREPARE pj(int) AS SELECT name, count(*), sum(v) FROM pt JOIN ptk USING (k) WHERE id < $1 GROUP BY name ORDER BY name;
EXPLAIN (COSTS OFF) EXECUTE pj(500);
EXECUTE pj(500);
SET gpuagg.enabled = off;
DEALLOCATE pj;
PREPARE pj(int) AS SELECT name, count(*), sum(v) FROM pt JOIN ptk USING (k) WHERE id < $1 GROUP BY name ORDER BY name;
EXECUTE pj(500);
RESET gpuagg.enabled;
DEALLOCATE pj;
RESET plan_cache_mode;

-- pruning at run time, as an Append does it: a generic plan's $1 at the
-- start (EXPLAIN counts the partitions removed), a LATERAL reference at
-- each rescan
SET plan_cache_mode = force_generic_plan;
PREPARE pq(int) AS SELECT k, count(*), sum(v) FROM pt WHERE id < $1 GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE pq(500);
EXECUTE pq(500);
-- native: prepared again without gpuagg (a cached plan outlives the setting)
SET gpuagg.enabled = off;
DEALLOCATE pq;
PREPARE pq(int) AS SELECT k, count(*), sum(v) FROM pt WHERE id < $1 GROUP BY k ORDER BY k;
SELECT offloaded('EXECUTE pq(500)');
EXECUTE pq(500);
RESET gpuagg.enabled;
DEALLOCATE pq;
-- every partition removed: no rows
PREPARE pq(int) AS SELECT count(*), sum(v) FROM pt WHERE id > $1;
EXPLAIN (COSTS OFF) EXECUTE pq(100000);
EXECUTE pq(100000);
EXECUTE pq(19990);
SET gpuagg.enabled = off;
DEALLOCATE pq;
PREPARE pq(int) AS SELECT count(*), sum(v) FROM pt WHERE id > $1;
SELECT offloaded('EXECUTE pq(100000)');
EXECUTE pq(100000);
EXECUTE pq(19990);
RESET gpuagg.enabled;
DEALLOCATE pq;
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT x, c FROM (VALUES (500), (4000), (100000)) l(x), LATERAL (SELECT count(*) AS c FROM pt WHERE id < x) s;
SELECT check_offload('SELECT x, c FROM (VALUES (500), (4000), (100000)) l(x), LATERAL (SELECT count(*) AS c FROM pt WHERE id < x) s');
SELECT check_offload('SELECT x, c FROM (VALUES (-100), (2), (3), (6)) l(x), LATERAL (SELECT count(*) AS c, sum(v) FROM pt WHERE k = x AND id BETWEEN 1000 AND 4999) s');
-- each of the two rescans read pt_lo only (1050 rows), not all 20050
SELECT (n->>'Rows In')::int AS rows_in
  FROM analyzed_plan('SELECT x, c FROM (VALUES (500), (600)) l(x), LATERAL (SELECT count(*) AS c FROM pt WHERE id < x) s') g,
	   json_array_elements(g->'Plans') n
 WHERE n->>'Custom Plan Provider' = 'GpuAgg';

-- in a subquery below a join: the plan's range table indexes move
SELECT check_offload('SELECT x.n, s.c FROM (VALUES (1, ''one''), (5, ''five'')) x(k, n) JOIN (SELECT k, count(*) AS c, sum(v) FROM pt GROUP BY k) s USING (k)');
WITH w AS MATERIALIZED (SELECT k, sum(v) AS sv FROM pt GROUP BY k)
SELECT count(*), sum(sv) = (SELECT sum(v) FROM pt) FROM w;
-- with enable_partitionwise_aggregate, GpuAgg reads all the partitions in
-- one session where PostgreSQL would aggregate each on its own
SET enable_partitionwise_aggregate = on;
EXPLAIN (COSTS OFF) SELECT id, count(*) FROM pt WHERE id < 2000 GROUP BY id;
SELECT check_offload('SELECT id % 100, count(*), sum(v) FROM pt GROUP BY 1');
SELECT check_offload('SELECT k, count(*), sum(v) FROM pt WHERE id > 900 GROUP BY k');
RESET enable_partitionwise_aggregate;

-- hash partitions
CREATE TABLE ph (id int4, g int4, v float8) PARTITION BY HASH (id);
CREATE TABLE ph0 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 0);
CREATE TABLE ph1 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 1);
CREATE TABLE ph2 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 2);
CREATE TABLE ph3 PARTITION OF ph FOR VALUES WITH (MODULUS 4, REMAINDER 3);
INSERT INTO ph SELECT i, i % 100, i / 3.0 FROM generate_series(1, 20000) i;
ANALYZE ph;
SELECT check_offload('SELECT g, count(*), sum(v), min(id) FROM ph GROUP BY g');
EXPLAIN (COSTS OFF) SELECT count(*) FROM ph WHERE id = 42;
SELECT check_offload('SELECT count(*), sum(v) FROM ph WHERE id = 42');

-- a column dropped from the parent, then a partition created without it:
-- the new partition's columns after it lie elsewhere.  A query that reads
-- only the columns before the dropped one reads the partitions as the
-- parent's; one that reads past it finds each partition's columns by name,
-- in column batches and serially, and EXPLAIN says so.
CREATE TABLE pd (a int4, b int4, gone int8, c int4) PARTITION BY LIST (a);
CREATE TABLE pd1 PARTITION OF pd FOR VALUES IN (1);
INSERT INTO pd SELECT 1, i % 5, i, i FROM generate_series(1, 1000) i;
ALTER TABLE pd DROP COLUMN gone;
CREATE TABLE pd2 PARTITION OF pd FOR VALUES IN (2);
INSERT INTO pd SELECT 2, i % 5, i * 10 FROM generate_series(1, 1000) i;
ANALYZE pd;
SELECT check_offload('SELECT b, count(*), sum(a) FROM pd GROUP BY b');
EXPLAIN (COSTS OFF) SELECT b, sum(c) FROM pd GROUP BY b;
SELECT check_offload('SELECT b, sum(c), count(*), max(a) FROM pd GROUP BY b');
-- its columns in another order, attached: the same
CREATE TABLE pd3 (c int4, b int4, a int4);
INSERT INTO pd3 SELECT i, i % 5, 3 FROM generate_series(1, 100) i;
ALTER TABLE pd ATTACH PARTITION pd3 FOR VALUES IN (3);
SELECT check_offload('SELECT b, count(*), sum(c), min(a) FROM pd GROUP BY b');
SELECT check_offload('SELECT a, sum(b) FROM pd WHERE c > 50 GROUP BY a');
-- ... but not beside a subquery condition the host evaluates (whose
-- filter read the rows in the parent's layout: a wrong answer before);
-- as a joined table its own plan reads it
CREATE TABLE pdn (v int4);
INSERT INTO pdn SELECT generate_series(1, 40);
ANALYZE pdn;
SELECT check_offload('SELECT b, count(*), sum(c) FROM pd WHERE c NOT IN (SELECT v FROM pdn) AND b > 0 GROUP BY b');
SELECT check_offload('SELECT v % 3, count(*), sum(c) FROM pd JOIN pdn ON c = v GROUP BY 1');
-- one that was another table's, with a column added with a default there
CREATE TABLE pd4 (c int4, a int4);
INSERT INTO pd4 SELECT i, 4 FROM generate_series(1, 50) i;
ALTER TABLE pd4 ADD COLUMN b int4 DEFAULT 3;
ALTER TABLE pd ATTACH PARTITION pd4 FOR VALUES IN (4);
SELECT check_offload('SELECT b, count(*), sum(c) FROM pd GROUP BY b');
-- no parallel plan then: a device failure runs the scan again on the CPU
-- device, which only page mode's record of the blocks taken allows
SET parallel_setup_cost = 0;
SET min_parallel_table_scan_size = 0;
SET gpuagg.debug_fail_batch = 1;
SET client_min_messages = error;	-- the fallback's WARNING
SELECT check_offload('SELECT b, count(*), sum(c) FROM pd GROUP BY b');
RESET client_min_messages;
RESET gpuagg.debug_fail_batch;
RESET min_parallel_table_scan_size;
RESET parallel_setup_cost;
-- pruned away, it does not matter
SELECT check_offload('SELECT b, count(*), sum(a) FROM pd WHERE a < 3 GROUP BY b');
-- a column added later with a default: rows older than it take it
ALTER TABLE ph ADD COLUMN w int4 DEFAULT 7;
INSERT INTO ph SELECT i, i % 100, 0, i % 3 FROM generate_series(20001, 20100) i;
SELECT check_offload('SELECT g, sum(w), count(*) FROM ph GROUP BY g');

-- inheritance: the parent's own rows and its children's
CREATE TABLE ih (a int4, b int4);
CREATE TABLE ihc (c int4) INHERITS (ih);
CREATE TABLE ihcc () INHERITS (ihc);
INSERT INTO ih SELECT i, i % 3 FROM generate_series(1, 1000) i;
INSERT INTO ihc SELECT i, i % 3, 5 FROM generate_series(1, 700) i;
INSERT INTO ihcc SELECT i, i % 4, 6 FROM generate_series(1, 300) i;
ANALYZE ih;
ANALYZE ihc;
ANALYZE ihcc;
EXPLAIN (COSTS OFF) SELECT b, count(*), sum(a) FROM ih GROUP BY b;
SELECT check_offload('SELECT b, count(*), sum(a) FROM ih GROUP BY b');
SELECT check_offload('SELECT b, count(*), sum(a) FROM ONLY ih GROUP BY b');
SELECT check_offload('SELECT b, count(*), sum(c) FROM ihc GROUP BY b');

-- parallel: each process reads its share of every partition, partial
-- states or fed; a device that fails midway reads again the blocks each
-- process had taken of each partition
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SET gpuagg.fed_groups = 100000;
SELECT check_parallel('SELECT k, count(*), sum(v), avg(f), min(d) FROM pt GROUP BY k');
SET gpuagg.page_batches = on;
SELECT check_parallel('SELECT k, count(*), sum(v), avg(f), min(d) FROM pt GROUP BY k');
SET gpuagg.fed_groups = 10;
SELECT regexp_replace(line, 'Device Memory Estimate: \d+', 'Device Memory Estimate: N') AS plan
  FROM explain_stable('SELECT id % 5000 AS g, count(*) FROM pt GROUP BY 1') line;
-- the workers pinned every page of every partition once, the leader's
-- device had every row once
SELECT (g->>'Workers Launched')::int > 0 AS workers,
	   (n->>'Pages')::bigint = (SELECT sum(pg_relation_size(c)) / 8192 FROM
			unnest('{pt_lo,pt_mid_a,pt_mid_def,pt_hi,pt_empty}'::regclass[]) c) AS every_page_once,
	   (n->>'Rows In')::bigint = (SELECT count(*) FROM pt) AS every_row_once
  FROM analyzed_plan('SELECT id % 5000 AS g, count(*) FROM pt GROUP BY 1') g,
	   json_array_elements(g->'Plans') n;
SELECT check_parallel('SELECT id % 5000 AS g, count(*), sum(v), count(DISTINCT k) FROM pt GROUP BY 1 HAVING sum(v) % 7 = 0');
SELECT check_parallel('SELECT k, sum(m), count(*) FROM pt GROUP BY k');
-- ... the table a join scans, fed and partial
SELECT check_parallel('SELECT id % 5000 AS g, name, count(*), sum(v) FROM pt JOIN ptk USING (k) GROUP BY 1, 2');
SET gpuagg.fed_groups = 100000;
SELECT check_parallel('SELECT grp, count(*), sum(v) FROM pt JOIN ptk USING (k) GROUP BY grp');
SET gpuagg.batch_size = '64kB';
SET gpuagg.debug_fail_batch = 3;
SET client_min_messages = error;	-- the fallbacks' WARNINGs
SELECT check_parallel('SELECT k, count(*), sum(v), max(f) FROM pt GROUP BY k');
SELECT check_parallel('SELECT grp, count(*), sum(v) FROM pt LEFT JOIN ptk USING (k) GROUP BY grp');
SET gpuagg.fed_groups = 10;
SELECT check_parallel('SELECT id % 5000 AS g, count(*), sum(v) FROM pt GROUP BY 1 HAVING sum(v) % 7 = 0');
RESET gpuagg.page_batches;
SET gpuagg.fed_groups = 100000;
SELECT check_parallel('SELECT k, count(*), sum(v), max(f) FROM pt GROUP BY k');
RESET client_min_messages;
RESET gpuagg.debug_fail_batch;
RESET gpuagg.batch_size;
-- a generic plan's $1 prunes the partitions as each process starts, the
-- same in each: parallel; an InitPlan's value on the partition key prunes
-- them only as the query runs, after each process laid out its scans:
-- serial (on another column, parallel)
SET plan_cache_mode = force_generic_plan;
PREPARE pp(int) AS SELECT k, count(*), sum(v) FROM pt WHERE id < $1 GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE pp(1500);
EXECUTE pp(1500);
SET gpuagg.enabled = off;
PREPARE ppn(int) AS SELECT k, count(*), sum(v) FROM pt WHERE id < $1 GROUP BY k ORDER BY k;
SELECT offloaded('EXECUTE ppn(1500)');
EXECUTE ppn(1500);
RESET gpuagg.enabled;
DEALLOCATE pp;
DEALLOCATE ppn;
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT k, count(*), sum(v) FROM pt WHERE id < (SELECT 1500) GROUP BY k;
SELECT check_parallel('SELECT k, count(*), sum(v) FROM pt WHERE id < (SELECT 1500) GROUP BY k');
SELECT check_parallel('SELECT k, count(*), sum(v) FROM pt WHERE v > (SELECT 1500) GROUP BY k');
RESET gpuagg.fed_groups;
RESET gpuagg.tuple_cost;
RESET max_parallel_workers_per_gather;
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;

-- a foreign partition: native, and the reason says so
CREATE EXTENSION postgres_fdw;
CREATE SERVER nowhere FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname 'nowhere');
CREATE FOREIGN TABLE ph_far PARTITION OF pd FOR VALUES IN (9) SERVER nowhere;
SET gpuagg.force_offload = off;
SET gpuagg.log_fallback = on;
SET client_min_messages = notice;
SELECT offloaded('SELECT b, count(*), sum(a) FROM pd WHERE a <> 3 GROUP BY b');
RESET client_min_messages;
RESET gpuagg.log_fallback;
-- pruned away, it does not matter
SET gpuagg.force_offload = on;
SELECT check_offload('SELECT b, count(*), sum(a) FROM pd WHERE a < 3 GROUP BY b');
DROP FOREIGN TABLE ph_far;
DROP SERVER nowhere;
DROP EXTENSION postgres_fdw;

DROP TABLE pt, ph, pd, ih, ptk CASCADE;
