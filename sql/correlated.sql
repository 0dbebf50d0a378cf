--
-- correlated: a correlated scalar aggregate subquery in WHERE planned as a
-- join with its groups (decorrelate.c), and where it is not
--
SET gpuagg.force_offload = on;

CREATE TABLE cf (k int4, k2 int4, t text, v numeric(10, 2), f float8, d date);
INSERT INTO cf SELECT CASE WHEN i % 101 = 0 THEN NULL ELSE i % 300 END, i % 7, 'k' || (i % 300),
	   (i % 97) * 0.5, i * 0.25, date '2024-01-01' + i % 365
  FROM generate_series(1, 30000) i;
CREATE TABLE cd (k int4, k8 int8, t text, q numeric(10, 2), name text);
-- (keys 280-319: some without a group in cf, a NULL key; no key 1)
INSERT INTO cd SELECT i, i, 'k' || i, (i % 13) * 2, 'n' || (i % 5) FROM generate_series(280, 319) i;
INSERT INTO cd VALUES (NULL, NULL, NULL, 1, 'n0');
INSERT INTO cd SELECT i, i, 'k' || i, (i % 13) * 2, 'n' || (i % 5) FROM generate_series(0, 279, 3) i;
ANALYZE cf;
ANALYZE cd;

-- Was q planned as a join with the groups (its plan not the one
-- gpuagg.decorrelate = off gives: the groups' Subquery Scan may be
-- elided), and does it answer as natively (check_offload's own statement
-- is rewritten alike)?
CREATE FUNCTION rewritten(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	joined text := plan_text(q);
	written text;
BEGIN
	PERFORM set_config('gpuagg.decorrelate', 'off', true);
	written := plan_text(q);
	PERFORM set_config('gpuagg.decorrelate', 'on', true);
	RETURN CASE WHEN joined <> written THEN 'rewritten, ' ELSE 'as written, ' END || check_offload(q);
END $$;

SELECT explain_stable('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)');
-- TPC-H Q17's shape
SELECT rewritten('SELECT sum(v), count(*) FROM cf, cd WHERE cd.k = cf.k AND cd.name = ''n1'' AND cf.v < (SELECT 0.2 * avg(v) FROM cf c2 WHERE c2.k = cd.k)');
-- rows of cd without a group (and its NULL key) fail the comparison, as natively
SELECT rewritten('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)');
SELECT rewritten('SELECT name, count(*) FROM cd WHERE q <= (SELECT max(v) FROM cf WHERE cf.k = cd.k AND cf.d < date ''2024-03-01'' + interval ''1 month'') GROUP BY name');
-- two correlations, an int8 against an int4, inside IN (TPC-H Q20)
SELECT rewritten('SELECT name FROM cd WHERE k IN (SELECT k FROM cd c3 WHERE c3.q > (SELECT 0.01 * sum(v) FROM cf WHERE cf.k = c3.k8 AND c3.t = cf.t AND cf.d >= date ''2024-02-01''))');
-- (an outer side that could fail, c3.k % 7, is not moved into a join)
SELECT rewritten('SELECT name FROM cd WHERE k IN (SELECT k FROM cd c3 WHERE c3.q > (SELECT 0.01 * sum(v) FROM cf WHERE cf.k = c3.k8 AND c3.k % 7 = cf.k2))');
-- a text correlation under a deterministic collation, the subquery a join (TPC-H Q2)
SELECT rewritten('SELECT t, q FROM cd WHERE q < (SELECT avg(cf.v) FROM cf, cd c4 WHERE cf.t = cd.t AND c4.k = cf.k AND c4.name <> ''n2'')');
-- in WHERE and in the select list: the WHERE's
SELECT rewritten('SELECT k, (SELECT count(*) FROM cf WHERE cf.k = cd.k) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)');
-- a generic plan's parameter on the outer side
PREPARE cq(int) AS SELECT count(*) FROM cd WHERE q + $1 > (SELECT avg(v) FROM cf WHERE cf.k = cd.k);
SET plan_cache_mode = force_generic_plan;
EXECUTE cq(3);
SET gpuagg.enabled = off;
EXECUTE cq(3);
RESET gpuagg.enabled;
RESET plan_cache_mode;
DEALLOCATE cq;

-- only the groups an outer row can ask for: the keys of the rows of its
-- table that pass the WHERE's conjuncts reading that table alone (here
-- cd.name = 'n1'), a semi join under the groups' GpuAgg
SELECT line FROM explain_stable('SELECT sum(v), count(*) FROM cf, cd WHERE cd.k = cf.k AND cd.name = ''n1'' AND cf.v < (SELECT 0.2 * avg(v) FROM cf c2 WHERE c2.k = cd.k)') line
 WHERE line ~ 'Semi|Group Key|cd';
-- two correlations with one table, restricted by an IN subquery and a
-- comparison (TPC-H Q20), the outer side an int8; a key without a group,
-- the NULL key
SELECT rewritten('SELECT name FROM cd WHERE k IN (SELECT k FROM cd c3 WHERE c3.k IN (SELECT k FROM cf WHERE k2 = 3) AND c3.name <> ''n2'' AND c3.q > (SELECT 0.01 * sum(v) FROM cf WHERE cf.k = c3.k8 AND c3.t = cf.t))');
SELECT rewritten('SELECT count(*), sum(q) FROM cd WHERE (k IS NULL OR k > 250) AND q >= (SELECT min(v) FROM cf WHERE cf.k = cd.k)');
-- correlations with two tables, each restricted by its own conjuncts; a
-- conjunct of both tables or one that could fail restricts nothing
SELECT rewritten('SELECT count(*) FROM cd, cd c6 WHERE cd.name = ''n3'' AND c6.k < 200 AND cd.q <= c6.q AND 100 / (c6.k - 151) <> 0 AND cd.q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k AND cf.t = c6.t)');
-- the outer table under row security: its policy reads it in the keys'
-- subquery as in the query (the table not first in FROM)
CREATE ROLE co_user;
GRANT SELECT ON cf, cd TO co_user;
ALTER TABLE cd ENABLE ROW LEVEL SECURITY;
CREATE POLICY co_few ON cd TO co_user USING (k < 150 OR k IS NULL);
SET ROLE co_user;
SELECT rewritten('SELECT sum(v), count(*) FROM cf, cd WHERE cd.k = cf.k AND cd.name <> ''n1'' AND cf.v < (SELECT 0.5 * avg(v) FROM cf c2 WHERE c2.k = cd.k)');
RESET ROLE;
DROP POLICY co_few ON cd;
ALTER TABLE cd DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON cf, cd FROM co_user;
DROP ROLE co_user;

-- kept as written: count over no rows is 0, not NULL
SELECT explain_stable('SELECT k FROM cd WHERE q > (SELECT count(*) FROM cf WHERE cf.k = cd.k)');
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT count(*) FROM cf WHERE cf.k = cd.k) / 100');
-- a conjunct true where the value is NULL; an OR of it
SELECT rewritten('SELECT count(*) FROM cd WHERE coalesce((SELECT avg(v) FROM cf WHERE cf.k = cd.k), 0) < q');
SELECT rewritten('SELECT count(*) FROM cd WHERE (SELECT avg(v) FROM cf WHERE cf.k = cd.k) IS NULL');
SELECT rewritten('SELECT count(*) FROM cd WHERE q < 3 OR q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)');
-- what could fail for a row natively never reached: a division by zero
-- where cf.k is 1 (a key cd does not hold), in WHERE, in a subquery in
-- FROM, in the value; a float sum; in the outer conjunct, which the join
-- evaluates only for rows with a group
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k AND 100 / (cf.k - 1) > 0)');
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT avg(x) FROM (SELECT k, 100 / (k - 1) AS x FROM cf) s WHERE s.k = cd.k)');
SELECT rewritten('SELECT count(*) FROM cd WHERE k < 280 AND q > (SELECT 1 / coalesce(max(k2), 0) FROM cf WHERE cf.k = cd.k)');
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT sum(f) FROM cf WHERE cf.k = cd.k)');
SELECT check_error('SELECT count(*) FROM cd WHERE 1 / (k - 300) < (SELECT max(v) FROM cf WHERE cf.k = cd.k)');
-- a correlation other than an equality, or under a nondeterministic collation
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k < cd.k)');
CREATE COLLATION co_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT rewritten('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.t = cd.t COLLATE co_ci)');
DROP COLLATION co_ci;
-- a subquery that reads a level further out
SELECT rewritten('SELECT name, (SELECT count(*) FROM cd c5 WHERE c5.q > (SELECT avg(v) FROM cf WHERE cf.k = c5.k AND cf.k2 = cd.k % 7)) FROM cd WHERE k < 20');
-- FOR UPDATE, a cursor (WHERE CURRENT OF needs the scan of cd)
SELECT rewritten('SELECT k FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k) FOR UPDATE');
BEGIN;
DECLARE cc CURSOR FOR SELECT k, name FROM cd WHERE q > (SELECT min(v) FROM cf WHERE cf.k = cd.k);
FETCH cc;
UPDATE cd SET name = 'updated' WHERE CURRENT OF cc;
SELECT k, name FROM cd WHERE name = 'updated';
ROLLBACK;
-- off
SET gpuagg.decorrelate = off;
SELECT plan_text('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)') LIKE '%SubPlan%' AS subplan;
RESET gpuagg.decorrelate;

-- unforced (TPC-H Q17): the groups aggregated natively cost less than in
-- a GpuAgg (a startup cost of 3000 here), but the statement as written,
-- a scan of cf for each row of cd, costs more than the rewrite with its
-- groups in a GpuAgg: that one runs.  Where the statement as written
-- costs less (a startup cost past it), it runs as written.
SET gpuagg.force_offload = off;
SET gpuagg.startup_cost = 3000;
SELECT rewritten('SELECT count(*), sum(q) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)');
-- (the groups in a GpuAgg, the outer count over a Hash Join native: the
-- NOTICE says the groups were forced; costs do not depend on the device)
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT count(*), sum(q) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k);
SET gpuagg.startup_cost = 1e7;
EXPLAIN (COSTS OFF) SELECT count(*), sum(q) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k);
RESET gpuagg.log_fallback;
SELECT rewritten('SELECT count(*), sum(q) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)');
RESET gpuagg.startup_cost;
SET gpuagg.force_offload = on;

DROP FUNCTION rewritten(text);
DROP TABLE cf, cd;
