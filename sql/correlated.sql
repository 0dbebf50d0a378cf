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
-- (keys 280-319: some without a group in cf, a NULL key)
INSERT INTO cd SELECT i, i, 'k' || i, (i % 13) * 2, 'n' || (i % 5) FROM generate_series(280, 319) i;
INSERT INTO cd VALUES (NULL, NULL, NULL, 1, 'n0');
INSERT INTO cd SELECT i, i, 'k' || i, (i % 13) * 2, 'n' || (i % 5) FROM generate_series(0, 279, 3) i;
ANALYZE cf;
ANALYZE cd;

-- TPC-H Q17's shape: the groups of cf by k, joined where the correlation held
SELECT check_offload('SELECT sum(v), count(*) FROM cf, cd WHERE cd.k = cf.k AND cd.name = ''n1'' AND cf.v < (SELECT 0.2 * avg(v) FROM cf c2 WHERE c2.k = cd.k)');
SELECT explain_stable('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)');
SELECT plan_text('SELECT sum(v), count(*) FROM cf, cd WHERE cd.k = cf.k AND cd.name = ''n1'' AND cf.v < (SELECT 0.2 * avg(v) FROM cf c2 WHERE c2.k = cd.k)') LIKE '%SubPlan%' AS subplan_left;
-- rows of cd without a group (and its NULL key) fail the comparison, as natively
SELECT check_offload('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)');
SELECT check_offload('SELECT name, count(*) FROM cd WHERE q <= (SELECT max(v) FROM cf WHERE cf.k = cd.k AND cf.d < date ''2024-03-01'' + interval ''1 month'') GROUP BY name');
-- two correlations, an int8 against an int4, and inside an IN subquery (TPC-H Q20)
SELECT check_offload('SELECT name FROM cd WHERE k IN (SELECT k FROM cd c3 WHERE c3.q * 100 > (SELECT sum(v) FROM cf WHERE cf.k = c3.k8 AND cf.k2 = c3.k % 7 AND cf.d >= date ''2024-02-01''))');
-- a text correlation under a deterministic collation, the subquery a join
SELECT check_offload('SELECT t, q FROM cd WHERE q < (SELECT avg(cf.v) FROM cf, cd c4 WHERE cf.t = cd.t AND c4.k = cf.k AND c4.name <> ''n2'')');
-- in the select list as well as WHERE: the WHERE's is rewritten
SELECT check_offload('SELECT k, (SELECT count(*) FROM cf WHERE cf.k = cd.k) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)');

-- kept as written: count over no rows is 0, not NULL
SELECT explain_stable('SELECT k FROM cd WHERE q > (SELECT count(*) FROM cf WHERE cf.k = cd.k)');
SELECT check_offload('SELECT count(*) FROM cd WHERE q > (SELECT count(*) FROM cf WHERE cf.k = cd.k) / 100');
SELECT plan_text('SELECT count(*) FROM cd WHERE q > (SELECT count(*) FROM cf WHERE cf.k = cd.k) / 100') LIKE '%SubPlan%' AS subplan_left;
-- a conjunct true where the value is NULL; an OR of it
SELECT plan_text('SELECT count(*) FROM cd WHERE coalesce((SELECT avg(v) FROM cf WHERE cf.k = cd.k), 0) < q') LIKE '%SubPlan%' AS subplan_left;
SELECT check_offload('SELECT count(*) FROM cd WHERE coalesce((SELECT avg(v) FROM cf WHERE cf.k = cd.k), 0) < q');
SELECT plan_text('SELECT count(*) FROM cd WHERE (SELECT avg(v) FROM cf WHERE cf.k = cd.k) IS NULL') LIKE '%SubPlan%' AS subplan_left;
SELECT check_offload('SELECT count(*) FROM cd WHERE (SELECT avg(v) FROM cf WHERE cf.k = cd.k) IS NULL');
SELECT plan_text('SELECT count(*) FROM cd WHERE q < 3 OR q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k)') LIKE '%SubPlan%' AS subplan_left;
-- what could fail for a row natively never reached: a division (by zero
-- where cf.k is 1, a key cd does not hold), a float sum
SELECT plan_text('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k AND 100 / (cf.k - 1) > 0)') LIKE '%SubPlan%' AS subplan_left;
SELECT check_offload('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k = cd.k AND 100 / (cf.k - 1) > 0)');
SELECT plan_text('SELECT count(*) FROM cd WHERE q > (SELECT sum(f) FROM cf WHERE cf.k = cd.k)') LIKE '%SubPlan%' AS subplan_left;
-- a correlation other than an equality, or under a nondeterministic collation
SELECT plan_text('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.k < cd.k)') LIKE '%SubPlan%' AS subplan_left;
CREATE COLLATION co_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
SELECT plan_text('SELECT count(*) FROM cd WHERE q > (SELECT avg(v) FROM cf WHERE cf.t = cd.t COLLATE co_ci)') LIKE '%SubPlan%' AS subplan_left;
DROP COLLATION co_ci;
-- a subquery that reads a level further out
SELECT check_offload('SELECT name, (SELECT count(*) FROM cd c5 WHERE c5.q > (SELECT avg(v) FROM cf WHERE cf.k = c5.k AND cf.k2 = cd.k % 7)) FROM cd WHERE k < 20');
-- off
SET gpuagg.decorrelate = off;
SELECT plan_text('SELECT cd.k, cd.q FROM cd WHERE cd.q > (SELECT min(v) FROM cf WHERE cf.k = cd.k)') LIKE '%SubPlan%' AS subplan_left;
RESET gpuagg.decorrelate;

DROP TABLE cf, cd;
