--
-- sharded: a partitioned table whose partitions are postgres_fdw foreign
-- tables on other servers -- here two other databases of this cluster, each
-- with gpuagg.  With enable_partitionwise_aggregate, postgres_fdw sends
-- each server its GROUP BY, and gpuagg there offloads it.  Then the shapes
-- of query a Citus worker receives for its shards, offloaded on one server.
-- (A throw-away cluster's test: it creates databases.)
--
SELECT current_database() AS here \gset
CREATE DATABASE gpuagg_shard1;
CREATE DATABASE gpuagg_shard2;
\c gpuagg_shard1
CREATE EXTENSION gpuagg;
CREATE TABLE sh (k int4, v int8, f float8);
INSERT INTO sh SELECT i % 10, i, i / 4.0 FROM generate_series(1, 20000) i WHERE i % 10 < 5;
ANALYZE sh;
\c gpuagg_shard2
CREATE EXTENSION gpuagg;
CREATE TABLE sh (k int4, v int8, f float8);
INSERT INTO sh SELECT i % 10, i, i / 4.0 FROM generate_series(1, 20000) i WHERE i % 10 >= 5;
ANALYZE sh;
\c :here

-- the "remote" servers; their sessions offload on the test's device
CREATE EXTENSION postgres_fdw;
DO $$
BEGIN
	FOR i IN 1..2 LOOP
		EXECUTE format('CREATE SERVER shard%s FOREIGN DATA WRAPPER postgres_fdw OPTIONS (dbname %L, port %L, options %L)',
					   i, 'gpuagg_shard' || i, current_setting('port'),
					   '-c gpuagg.force_offload=on -c gpuagg.device=' || current_setting('gpuagg.device'));
		EXECUTE format('CREATE USER MAPPING FOR CURRENT_USER SERVER shard%s', i);
	END LOOP;
END $$;
CREATE TABLE shp (k int4, v int8, f float8) PARTITION BY LIST (k);
CREATE FOREIGN TABLE shp1 PARTITION OF shp FOR VALUES IN (0, 1, 2, 3, 4)
	SERVER shard1 OPTIONS (table_name 'sh');
CREATE FOREIGN TABLE shp2 PARTITION OF shp FOR VALUES IN (5, 6, 7, 8, 9)
	SERVER shard2 OPTIONS (table_name 'sh');
-- the same rows in one local table, aggregated natively
CREATE TABLE shl AS SELECT i % 10 AS k, i::int8 AS v, i / 4.0::float8 AS f
  FROM generate_series(1, 20000) i;
ANALYZE shl;

-- groups in table t, and how many differ from a native aggregation of shl
CREATE FUNCTION groups_differing(t text, OUT groups bigint, OUT differing bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('gpuagg.enabled', 'off', true);
	EXECUTE format('SELECT (SELECT count(*) FROM %1$I), count(*)
					  FROM ((SELECT * FROM %1$I
							 EXCEPT ALL SELECT k, count(*), sum(v), avg(v), max(f) FROM shl GROUP BY k)
							UNION ALL
							(SELECT k, count(*), sum(v), avg(v), max(f) FROM shl GROUP BY k
							 EXCEPT ALL SELECT * FROM %1$I)) d', t)
		INTO groups, differing;
	PERFORM set_config('gpuagg.enabled', 'on', true);
END $$;

SET enable_partitionwise_aggregate = on;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*), sum(v), avg(v), max(f) FROM shp GROUP BY k;
-- every shard's GROUP BY offloaded there: gpuagg.stat counts server-wide
CREATE TEMP TABLE offloaded_before AS
	SELECT queries_cuda + queries_cpu AS n FROM gpuagg.stat;
CREATE TEMP TABLE sharded AS
	SELECT k, count(*), sum(v), avg(v), max(f) FROM shp GROUP BY k;
SELECT queries_cuda + queries_cpu - n AS queries_offloaded_by_the_shards
  FROM gpuagg.stat, offloaded_before;
SELECT * FROM groups_differing('sharded');
-- a WHERE goes along to the shards; pruning leaves one
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*) FROM shp WHERE k < 3 AND v > 100 GROUP BY k;
-- a local partition beside the foreign ones: the table's one GpuAgg cannot
-- read a foreign partition, so each partition's grouping is planned on its
-- own -- the foreign ones on their servers, the local one in a GpuAgg here
CREATE TABLE shp3 PARTITION OF shp FOR VALUES IN (10, 11);
INSERT INTO shp3 SELECT 10 + i % 2, i, i / 4.0 FROM generate_series(1, 3000) i;
INSERT INTO shl SELECT * FROM shp3;
ANALYZE shp3, shl;
-- (GpuAgg made cheap: a small table's would lose on cost, and
-- gpuagg.force_offload cannot bring back the partitionwise plan once a
-- cheaper one has pruned it)
SET gpuagg.force_offload = on;
SET gpuagg.startup_cost = 0;
SET gpuagg.tuple_cost = 0;
SET gpuagg.batch_cost = 0;
EXPLAIN (VERBOSE, COSTS OFF) SELECT k, count(*), sum(v), avg(v), max(f) FROM shp GROUP BY k;
TRUNCATE offloaded_before;
INSERT INTO offloaded_before SELECT queries_cuda + queries_cpu FROM gpuagg.stat;
CREATE TEMP TABLE mixed AS
	SELECT k, count(*), sum(v), avg(v), max(f) FROM shp GROUP BY k;
SELECT queries_cuda + queries_cpu - n AS queries_offloaded_here_and_by_the_shards
  FROM gpuagg.stat, offloaded_before;
SELECT * FROM groups_differing('mixed');
RESET gpuagg.batch_cost;
RESET gpuagg.tuple_cost;
RESET gpuagg.startup_cost;
RESET gpuagg.force_offload;
RESET enable_partitionwise_aggregate;

-- What a Citus worker runs on a shard (a plain table named like
-- sh_102008): the coordinator sends each shard a plain GROUP BY, avg as sum
-- and count, and GROUP BY k, v for count(DISTINCT v) on another column than
-- the distribution column.  Each offloads.
SET gpuagg.force_offload = on;
SELECT check_offload('SELECT k, count(*), sum(v), max(f) FROM shl GROUP BY k');
SELECT check_offload('SELECT k, sum(v) AS avg_sum, count(v) AS avg_count FROM shl GROUP BY k');
SELECT check_offload('SELECT k, v % 7 AS w FROM shl GROUP BY k, v % 7');
SELECT check_offload('SELECT sum(v), count(v), count(*) FROM shl WHERE f > 100');

DROP TABLE shp, shl;
DROP FUNCTION groups_differing;
SELECT postgres_fdw_disconnect_all();
SET client_min_messages = warning;	-- (the user mapping's user name)
DROP EXTENSION postgres_fdw CASCADE;
RESET client_min_messages;
DROP DATABASE gpuagg_shard1;
DROP DATABASE gpuagg_shard2;
