-- budget: gpuagg.vram_budget against the planner's device-memory estimate,
-- which grows with the estimated number of groups.
BEGIN;
SELECT plan(18);

\ir common.psql

-- Device Memory Estimate (kB) of the GpuAgg node, NULL when not offloaded.
CREATE FUNCTION pg_temp.vram_kb(query text) RETURNS int8
LANGUAGE plpgsql AS $$
DECLARE
	plan jsonb;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
	RETURN (jsonb_path_query_first(plan,
		'strict $.** ? (@."Custom Plan Provider" == "GpuAgg")."Device Memory Estimate"'))::text::int8;
END
$$;

-- g has 200k distinct values, s has 10
CREATE TABLE bu_t (g int4, s int4, v int8, f float8);
INSERT INTO bu_t SELECT g, g % 10, g * 7, g / 3.0 FROM generate_series(1, 200000) g;
ANALYZE bu_t;

SELECT cmp_ok((SELECT n_distinct FROM pg_stats WHERE tablename = 'bu_t' AND attname = 'g')::float8,
	'<', 0::float8, 'g is known to be unique (n_distinct < 0), so GROUP BY g estimates 200k groups');

-- default budget (8GB): offloaded, with an estimate well above 1MB
SELECT ok(pg_temp.offloaded('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'),
	'200k groups are offloaded under the default budget');
SELECT cmp_ok(pg_temp.vram_kb('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'), '>', 1024::int8,
	'the estimate for 200k groups exceeds 1MB');
SELECT cmp_ok(pg_temp.vram_kb('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'), '>',
	pg_temp.vram_kb('SELECT s, sum(v), avg(f) FROM bu_t GROUP BY s'),
	'more groups, a larger estimate');

DECLARE bu_on1 CURSOR FOR SELECT g, sum(v), avg(f), count(*) FROM bu_t GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = off;
DECLARE bu_off1 CURSOR FOR SELECT g, sum(v), avg(f), count(*) FROM bu_t GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('bu_on1'::refcursor, 'bu_off1'::refcursor,
	'200k groups offloaded equal the native run');

-- a 1MB budget: not offloaded, same answer
SET LOCAL gpuagg.vram_budget = '1MB';
SELECT ok(NOT pg_temp.offloaded('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'),
	'200k groups are not offloaded under a 1MB budget');
SELECT is(pg_temp.vram_kb('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'), NULL,
	'no GpuAgg node, no Device Memory Estimate');
DECLARE bu_on2 CURSOR FOR SELECT g, sum(v), avg(f), count(*) FROM bu_t GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = off;
DECLARE bu_off2 CURSOR FOR SELECT g, sum(v), avg(f), count(*) FROM bu_t GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('bu_on2'::refcursor, 'bu_off2'::refcursor,
	'over budget (native plan) equals the native run');

-- a budget under 1 MB is 0 MB, and honoured: nothing fits it
SET LOCAL gpuagg.vram_budget = '100kB';
SELECT ok(NOT pg_temp.offloaded('SELECT sum(v) FROM bu_t'),
	'a 100kB budget keeps even a plain aggregate native');
SET LOCAL gpuagg.vram_budget = '1MB';

-- force_offload does not override the budget
SET LOCAL gpuagg.force_offload = off;
SELECT ok(NOT pg_temp.offloaded('SELECT g, sum(v) FROM bu_t GROUP BY g'),
	'not offloaded under a 1MB budget without force_offload either');
SET LOCAL gpuagg.force_offload = on;

-- with small batches the staging buffers fit, and the group count decides
SET LOCAL gpuagg.batch_size = '64kB';
SELECT ok(pg_temp.offloaded('SELECT s, sum(v), avg(f) FROM bu_t GROUP BY s'),
	'10 groups with 64kB batches fit a 1MB budget');
SELECT cmp_ok(pg_temp.vram_kb('SELECT s, sum(v), avg(f) FROM bu_t GROUP BY s'), '<=', 1024::int8,
	'and their estimate is at most 1MB');
SELECT ok(pg_temp.offloaded('SELECT sum(v), avg(f) FROM bu_t'),
	'a plain aggregate with 64kB batches fits a 1MB budget');
SELECT ok(NOT pg_temp.offloaded('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'),
	'200k groups with 64kB batches still exceed a 1MB budget');
SET LOCAL gpuagg.vram_budget = '256MB';
SELECT ok(pg_temp.offloaded('SELECT g, sum(v), avg(f) FROM bu_t GROUP BY g'),
	'200k groups with 64kB batches fit a 256MB budget');

DECLARE bu_on3 CURSOR FOR SELECT s, sum(v), avg(f), count(*), max(g) FROM bu_t GROUP BY s ORDER BY s;
SET LOCAL gpuagg.enabled = off;
DECLARE bu_off3 CURSOR FOR SELECT s, sum(v), avg(f), count(*), max(g) FROM bu_t GROUP BY s ORDER BY s;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('bu_on3'::refcursor, 'bu_off3'::refcursor,
	'64kB batches (many batches per scan) equal the native run');

-- a low group estimate is only an estimate: the groups are still all found
CREATE TABLE bu_skew (g int4, v int4);
INSERT INTO bu_skew SELECT 1, 1 FROM generate_series(1, 1000);
ANALYZE bu_skew;
INSERT INTO bu_skew SELECT g, g FROM generate_series(1, 50000) g;
SELECT ok(pg_temp.offloaded('SELECT g, sum(v) FROM bu_skew GROUP BY g'),
	'stale statistics (one group estimated): offloaded');
DECLARE bu_on4 CURSOR FOR SELECT g, sum(v), count(*) FROM bu_skew GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = off;
DECLARE bu_off4 CURSOR FOR SELECT g, sum(v), count(*) FROM bu_skew GROUP BY g ORDER BY g;
SET LOCAL gpuagg.enabled = on;
SELECT results_eq('bu_on4'::refcursor, 'bu_off4'::refcursor,
	'50k groups where few were estimated equal the native run');

SELECT * FROM finish();
ROLLBACK;
