--
-- setup: the extension and the helpers every topic uses
--
CREATE EXTENSION gpuagg;

-- The device every test runs on: GPUAGG_TEST_DEVICE (cpu when unset; the
-- GPU suite, test/gpu/run.sh, sets cuda).  Each test file is a new session.
\getenv test_device GPUAGG_TEST_DEVICE
\if :{?test_device}
\else
\set test_device cpu
\endif
SELECT set_config('gpuagg_test.device', :'test_device', false) AS test_device \gset
DO $$
BEGIN
	EXECUTE format('ALTER DATABASE %I SET gpuagg.device = %L', current_database(),
				   current_setting('gpuagg_test.device'));
END $$;
SELECT extname, extversion, nspname
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE extname = 'gpuagg';
SELECT gpuagg.library_version() = extversion AS library_matches_catalog
  FROM pg_extension WHERE extname = 'gpuagg';

-- Every number in t rounded to 6 significant digits: a GPU sums floats in
-- another order than a serial scan does (and 14300 may come back as
-- 14300.000000000002).
CREATE FUNCTION round_floats(t text) RETURNS text
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	m text[];
	n text;
	result text := '';
BEGIN
	LOOP
		-- a number is a whole field: after ( or , and before ) or , (so
		-- the digits inside a string such as 'pre81e728' stay as they are)
		m := regexp_match(t, '^(.*?(?:^|[(,]))(-?[0-9]+(?:\.[0-9]+)?(?:e[-+]?[0-9]+)?)((?:[),]).*|)$');
		EXIT WHEN m IS NULL;
		BEGIN
			n := trim(to_char(m[2]::float8, '9.99999EEEE'));
		EXCEPTION WHEN numeric_value_out_of_range THEN
			n := m[2];			-- a string of digits and an e, not a float
		END;
		result := result || m[1] || n;
		t := m[3];
	END LOOP;
	RETURN result || t;
END $$;

-- Run q offloaded and natively; say whether it was offloaded and whether
-- the two runs returned the same rows (as a multiset of row texts; on the
-- CUDA device with numbers rounded to 6 significant digits).  The rows are
-- query_row, a name no column of a test takes: a column named r would have
-- been compared alone, as r::text, not the whole row.
CREATE FUNCTION check_offload(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	is_offloaded bool := offloaded(q);
	gpu text[];
	native text[];
BEGIN
	EXECUTE 'SELECT array_agg(query_row::text ORDER BY query_row::text) FROM (' || q || ') query_row'
		INTO gpu;
	-- a serial native plan sums floats in the same order as the device
	PERFORM set_config('gpuagg.enabled', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	EXECUTE 'SELECT array_agg(query_row::text ORDER BY query_row::text) FROM (' || q || ') query_row'
		INTO native;
	PERFORM set_config('max_parallel_workers_per_gather',
					   current_setting('max_parallel_workers_per_gather'), true);
	PERFORM set_config('gpuagg.enabled', 'on', true);
	IF current_setting('gpuagg.device') = 'cuda' THEN
		gpu := ARRAY(SELECT round_floats(x) FROM unnest(gpu) x ORDER BY 1);
		native := ARRAY(SELECT round_floats(x) FROM unnest(native) x ORDER BY 1);
	END IF;
	IF NOT is_offloaded THEN
		RETURN 'NOT OFFLOADED';
	ELSIF gpu IS NOT DISTINCT FROM native THEN
		RETURN 'offloaded, same as native';
	ELSE
		RETURN format('DIFFERENT: gpuagg %s native %s', gpu, native);
	END IF;
END $$;

-- q's plan, as EXPLAIN (FORMAT JSON) text
CREATE FUNCTION plan_text(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
	RETURN plan::text;
END $$;

-- Is q planned with GpuAgg?
CREATE FUNCTION offloaded(q text) RETURNS bool
LANGUAGE sql AS $$
	SELECT plan_text(q) LIKE '%"Custom Plan Provider": "GpuAgg"%'
$$;

-- Is q planned as a parallel GpuAgg (the query's own, not one of its
-- InitPlans' or SubPlans'), and does it answer as natively?
CREATE FUNCTION check_parallel(q text) RETURNS text
LANGUAGE sql AS $$
	WITH RECURSIVE node(n) AS (
		SELECT plan_text(q)::json->0->'Plan'
		UNION ALL
		SELECT c FROM node, json_array_elements(node.n->'Plans') c
		 WHERE coalesce(c->>'Parent Relationship', '') NOT IN ('InitPlan', 'SubPlan'))
	SELECT CASE WHEN EXISTS (SELECT FROM node WHERE n->>'Custom Plan Provider' = 'GpuAgg' AND
												  (n->>'Parallel Aware')::bool)
				THEN 'parallel, ' ELSE 'serial, ' END
		|| check_offload(q)
$$;

-- Run q offloaded and natively and report the SQLSTATE each raised.
CREATE FUNCTION check_error(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
	gpu text := 'no error';
	native text := 'no error';
	msg text;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON, COSTS OFF) ' || q INTO plan;
	IF plan::text NOT LIKE '%"Custom Plan Provider": "GpuAgg"%' THEN
		RETURN 'NOT OFFLOADED';
	END IF;
	BEGIN
		EXECUTE 'SELECT array_agg(query_row::text) FROM (' || q || ') query_row';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS gpu = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		gpu := gpu || ' ' || msg;
	END;
	PERFORM set_config('gpuagg.enabled', 'off', true);
	BEGIN
		EXECUTE 'SELECT array_agg(query_row::text) FROM (' || q || ') query_row';
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS native = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
		native := native || ' ' || msg;
	END;
	PERFORM set_config('gpuagg.enabled', 'on', true);
	IF gpu = native THEN
		RETURN 'offloaded, same as native: ' || gpu;
	END IF;
	RETURN format('DIFFERENT: gpuagg %s, native %s', gpu, native);
END $$;

-- The top plan node of q run under EXPLAIN ANALYZE, as JSON.
CREATE FUNCTION analyzed_plan(q text) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, SUMMARY OFF) ' || q INTO plan;
	RETURN plan->0->'Plan';
END $$;

-- EXPLAIN output without the lines that vary between runs and machines.
CREATE FUNCTION explain_stable(q text, do_analyze bool DEFAULT false)
RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE format('EXPLAIN (COSTS OFF%s) %s',
							   CASE WHEN do_analyze THEN ', ANALYZE, TIMING OFF, SUMMARY OFF' ELSE '' END,
							   q)
	LOOP
		line := regexp_replace(line, 'Bytes To Device: \d+', 'Bytes To Device: N');
		line := regexp_replace(line, 'Memory Usage: \d+', 'Memory Usage: N');
		line := regexp_replace(line, 'Memory: \d+', 'Memory: N');
		line := regexp_replace(line, 'Batches: \d+  ', 'Batches: N  ');
		-- the estimate follows ANALYZE's random sample of the table
		line := regexp_replace(line, 'Device Memory Estimate: \d+', 'Device Memory Estimate: N');
		RETURN NEXT line;
	END LOOP;
END $$;

-- Run q offloaded and natively as check_offload does (without rounding),
-- and say also whether it read page batches where they are on, without
-- reading any table again in column form.
CREATE FUNCTION same_in_pages(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	plan text;
	gpu text[];
	native text[];
BEGIN
	EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, COSTS OFF, TIMING OFF) ' || q INTO plan;
	EXECUTE 'SELECT array_agg(query_row::text ORDER BY query_row::text) FROM (' || q || ') query_row' INTO gpu;
	PERFORM set_config('gpuagg.enabled', 'off', true);
	EXECUTE 'SELECT array_agg(query_row::text ORDER BY query_row::text) FROM (' || q || ') query_row' INTO native;
	PERFORM set_config('gpuagg.enabled', 'on', true);
	IF plan NOT LIKE '%"Custom Plan Provider": "GpuAgg"%' THEN
		RETURN 'NOT OFFLOADED';
	ELSIF current_setting('gpuagg.page_batches') = 'on' AND
		(plan NOT LIKE '%"Page Batches"%' OR plan LIKE '%Read Again in Column Form%') THEN
		RETURN 'not in page batches';
	ELSIF gpu IS NOT DISTINCT FROM native THEN
		RETURN 'offloaded, same as native';
	END IF;
	RETURN format('DIFFERENT: gpuagg %s native %s', gpu, native);
END $$;

-- q with a LIMIT (lim) and no ORDER BY, whose n groups may be any: each
-- a group of native's answer, with its values, and as many as natively
CREATE FUNCTION limited_groups(q text, lim text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	limited text := 'SELECT * FROM (' || q || ' ' || lim || ') s';
	gpu text[];
	native text[];
	n int;
BEGIN
	EXECUTE 'SELECT array_agg(r::text) FROM (' || limited || ') r' INTO gpu;
	PERFORM set_config('gpuagg.enabled', 'off', true);
	EXECUTE 'SELECT array_agg(r::text) FROM (' || q || ') r' INTO native;
	EXECUTE 'SELECT count(*) FROM (' || limited || ') r' INTO n;
	PERFORM set_config('gpuagg.enabled', 'on', true);
	RETURN CASE WHEN plan_text(limited) LIKE '%Device Limit%' THEN 'Device Limit: '
				ELSE 'no Device Limit: ' END ||
		CASE WHEN cardinality(gpu) = n AND gpu <@ native AND
				  n = (SELECT count(DISTINCT x) FROM unnest(gpu) x)
			 THEN format('%s groups of %s, each as native', n, cardinality(native))
			 ELSE format('DIFFERENT: gpuagg %s', gpu) END;
END $$;

-- The admission queue's length, once it is n (or after 10 s): for the
-- tests that queue sessions (admission, dying)
CREATE FUNCTION wait_queued(n int) RETURNS int LANGUAGE plpgsql AS $$
BEGIN
	FOR i IN 1..200 LOOP
		EXIT WHEN (SELECT queued FROM gpuagg.ledger()) = n;
		PERFORM pg_sleep(0.05);
	END LOOP;
	RETURN (SELECT queued FROM gpuagg.ledger());
END $$;
