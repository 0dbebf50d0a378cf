--
-- fallback: what is not eligible keeps its native plan, with the reason
--
SET gpuagg.force_offload = on;
SET gpuagg.log_fallback = on;

CREATE TABLE fb (k int4, v int4, t text, n numeric);
INSERT INTO fb SELECT i % 4, i, 'x' || i % 3, i / 3.0 FROM generate_series(1, 100) i;
CREATE TABLE fb2 (k int4, w int4);
INSERT INTO fb2 SELECT i, i FROM generate_series(1, 4) i;
ANALYZE fb, fb2;

-- each of these is planned natively and says why
EXPLAIN (COSTS OFF) SELECT t, max(t::char(3)) FROM fb GROUP BY t;
EXPLAIN (COSTS OFF) SELECT k, sum(n) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(v ORDER BY t) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, string_agg(t, ',') FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(v ORDER BY v) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY interval '1 day' * k) FROM fb;
EXPLAIN (COSTS OFF) SELECT rank(5) WITHIN GROUP (ORDER BY v) FROM fb;
EXPLAIN (COSTS OFF) SELECT fb.k, sum(w) FROM fb FULL JOIN fb2 ON fb.k = fb2.k GROUP BY fb.k;
EXPLAIN (COSTS OFF) SELECT a.k, count(*) FROM fb a JOIN fb b ON a.k < b.v JOIN fb2 ON b.k = fb2.w GROUP BY a.k;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM fb WHERE random() < 2 GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(gcd(v, 6)) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(*) FROM fb WHERE t > k::text GROUP BY k;
EXPLAIN (COSTS OFF) SELECT count(*), generate_series(1, 2) FROM fb;
-- reasons in SQL words, with the type where the type is the reason
EXPLAIN (COSTS OFF) SELECT CASE WHEN v > 50 THEN n ELSE 0 END AS b, count(*) FROM fb GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT k, count(COALESCE(n, 0)) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(*) FILTER (WHERE current_time < t::timetz) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(*) FILTER (WHERE v::bool) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, count(GREATEST(t, 'x2')) FROM fb GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, string_agg(t, ',') FROM fb GROUP BY k;

-- a table under row-level security (partitioned tables: sql/partitions.sql)
ALTER TABLE fb2 ENABLE ROW LEVEL SECURITY;
EXPLAIN (COSTS OFF) SELECT k, sum(w) FROM fb2 GROUP BY k;
ALTER TABLE fb2 DISABLE ROW LEVEL SECURITY;
EXPLAIN (COSTS OFF) SELECT k, sum(w) FROM fb2 GROUP BY k;

-- the device: auto offloads exactly when a GPU is usable (gpuagg.devices()
-- lists none without one); cuda and cpu offload, and a query whose GPU fails
-- at run time finishes on the CPU device
SET gpuagg.log_fallback = off;
SET gpuagg.device = auto;
SELECT offloaded('SELECT k, sum(v) FROM fb GROUP BY k') =
	   ((SELECT count(*) FROM gpuagg.devices()) > 0) AS auto_offloads_iff_gpu;
SET gpuagg.device = cuda;
SELECT offloaded('SELECT k, sum(v) FROM fb GROUP BY k') AS cuda_offloads;
SET gpuagg.device = cpu;
SELECT offloaded('SELECT k, sum(v) FROM fb GROUP BY k') AS cpu_offloads;
RESET gpuagg.device;
SET gpuagg.log_fallback = on;

-- a device that fails at run time hands the query to the CPU device: here
-- the plan is made for CUDA, then the budget is cut below what the device
-- needs (without a GPU, CUDA itself fails to start)
SET gpuagg.device = cuda;
SET plan_cache_mode = force_generic_plan;
PREPARE fq AS SELECT k, sum(v), count(*) FROM fb GROUP BY k ORDER BY k;
EXPLAIN (COSTS OFF) EXECUTE fq;
SET gpuagg.vram_budget = '1MB';
-- (its WARNING names the cause, which differs: no GPU here, the budget on a
-- GPU host)
SET client_min_messages = error;
EXECUTE fq;
RESET client_min_messages;
SELECT device_fallbacks > 0 AS fell_back FROM gpuagg.backend_stats();
DEALLOCATE fq;
RESET plan_cache_mode;
RESET gpuagg.vram_budget;
RESET gpuagg.device;

-- the VRAM budget: an estimate over it keeps the native plan
CREATE TABLE fbw (k int8, v int4);
INSERT INTO fbw SELECT i, i FROM generate_series(1, 50000) i;
ANALYZE fbw;
SET gpuagg.vram_budget = '4MB';
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fbw GROUP BY k;
SET gpuagg.vram_budget = '64MB';
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fbw GROUP BY k;
RESET gpuagg.vram_budget;

-- a misestimate grows the table instead of failing: the planner thinks
-- there are few groups, the data has 50000
CREATE TABLE fbm (k int8, v int4);
INSERT INTO fbm SELECT 1, 1;
ANALYZE fbm;
INSERT INTO fbm SELECT i, i FROM generate_series(2, 50000) i;
SELECT check_offload('SELECT k, sum(v) FROM fbm GROUP BY k');
SELECT count(*), sum(s) FROM (SELECT k, sum(v) AS s FROM fbm GROUP BY k) q;
-- float and min/max states, which the CUDA engine's blocks merge into merge
-- tables: with 10 groups estimated and 190,000 more in the data, the blocks'
-- tables and the merge tables overflow (into the global table)
CREATE TABLE fbf (k int8, v int4);
INSERT INTO fbf SELECT i % 10, i FROM generate_series(1, 10000) i;
ANALYZE fbf;
INSERT INTO fbf SELECT i, i FROM generate_series(10001, 200000) i;
SELECT check_offload('SELECT k, avg(v::float8), min(v), max(v::float8) FROM fbf GROUP BY k');
SELECT check_offload('SELECT k % 7, count(*), avg(v::float8), var_samp(v::float8), min(v), max(-v) FROM fbf GROUP BY 1');

-- a budget that holds the planner's estimate (the groups and a batch's
-- room) but not the room for two batches the CUDA engine grows its table
-- to: it grows for one batch only, and nothing falls back
CREATE TABLE fbb (g int4, v int8);
INSERT INTO fbb SELECT i % 10, i FROM generate_series(1, 100000) i;
ANALYZE fbb;
SET max_parallel_workers_per_gather = 0;
SET gpuagg.batch_size = '64kB';
SET gpuagg.vram_budget = '2MB';
SELECT device_fallbacks AS fallbacks_before FROM gpuagg.backend_stats() \gset
SELECT check_offload('SELECT g, sum(v), count(*) FROM fbb GROUP BY g');
SELECT device_fallbacks = :fallbacks_before AS no_fallback FROM gpuagg.backend_stats();
RESET gpuagg.vram_budget;
RESET gpuagg.batch_size;
RESET max_parallel_workers_per_gather;

-- gpuagg.enabled is the kill switch
SET gpuagg.enabled = off;
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fb GROUP BY k;
RESET gpuagg.enabled;

-- offload happens only where the extension is installed
DROP EXTENSION gpuagg CASCADE;
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fb GROUP BY k;
CREATE EXTENSION gpuagg;
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fb GROUP BY k;

-- without force_offload the cost model keeps small tables native, and says
-- so with both costs
RESET gpuagg.force_offload;
EXPLAIN (COSTS OFF) SELECT k, sum(v) FROM fb GROUP BY k;

-- a string function only the host computes (column batches, no page
-- form): it runs once per distinct string, so over a column of 50 strings
-- the plan offloads, and over one with a string a row it stays native on
-- cost (TPC-H Q22's SUBSTRING(c_phone ...), 12x slower offloaded)
CREATE TABLE fbs (few text, own text, v int4);
INSERT INTO fbs SELECT 'k' || (i % 50), md5(i::text), i % 100 FROM generate_series(1, 400000) i;
ANALYZE fbs;
SET max_parallel_workers_per_gather = 2;
SET client_min_messages = warning;
SELECT check_offload($$SELECT count(*), sum(v) FROM fbs WHERE substring(few FROM 2 FOR 1) IN ('1', '2')$$);
SELECT check_offload('SELECT count(*), sum(v) FROM fbs WHERE length(few) > 2');
SELECT offloaded($$SELECT count(*), sum(v) FROM fbs WHERE substring(own FROM 2 FOR 2) IN ('ab', 'cd')$$);
SELECT offloaded($$SELECT count(*), sum(v) FROM fbs WHERE upper(own) < 'AB'$$);
-- (a plain column of the same strings the device codes itself, in pages,
-- its length, which the device counts there, and a prefix it codes)
SELECT check_offload($$SELECT count(*), sum(v) FROM fbs WHERE own LIKE 'ab%'$$);
SELECT check_offload('SELECT count(*), sum(v) FROM fbs WHERE length(own) > 31');
SELECT check_offload($$SELECT count(*), sum(v) FROM fbs WHERE substring(own FROM 1 FOR 2) IN ('ab', 'cd')$$);
RESET client_min_messages;
RESET max_parallel_workers_per_gather;

DROP TABLE fb, fb2, fbw, fbm, fbf, fbs;
