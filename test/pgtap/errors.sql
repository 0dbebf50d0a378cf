-- errors: offloaded queries raise the errors native execution raises (same
-- SQLSTATE and message), and do not raise where native execution does not.
BEGIN;
SELECT plan(128);

\ir common.psql
-- serial plans without sorts: native rows are evaluated in scan order, as
-- GpuAgg evaluates them
SET LOCAL max_parallel_workers_per_gather = 0;
SET LOCAL enable_sort = off;

-- Four tests: the query is offloaded; run natively (gpuagg.enabled = off)
-- it raises the expected SQLSTATE; offloaded it raises that SQLSTATE;
-- offloaded it raises the native run's SQLSTATE and message.
CREATE FUNCTION pg_temp.same_error(query text, code text, what text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	native_code text;
	native_msg text;
BEGIN
	RETURN NEXT ok(pg_temp.offloaded(query), what || ': offloaded');
	PERFORM set_config('gpuagg.enabled', 'off', true);
	BEGIN
		EXECUTE query;
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS native_code = RETURNED_SQLSTATE, native_msg = MESSAGE_TEXT;
	END;
	PERFORM set_config('gpuagg.enabled', 'on', true);
	RETURN NEXT is(native_code, code, what || ': native run raises ' || code);
	RETURN NEXT throws_ok(query, code::char(5), NULL, what || ': GpuAgg raises ' || code);
	RETURN NEXT throws_ok(query, native_code::char(5), native_msg,
		what || ': GpuAgg raises the native error ' || coalesce(native_code || ' ' || native_msg, '(none)'));
END
$$;

-- Four tests: offloaded; no error offloaded; no error natively; the same
-- rows both ways.
CREATE FUNCTION pg_temp.same_result(query text, what text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
	on_rows text;
	off_rows text;
BEGIN
	RETURN NEXT ok(pg_temp.offloaded(query), what || ': offloaded');
	RETURN NEXT lives_ok(query, what || ': GpuAgg raises no error');
	PERFORM set_config('gpuagg.enabled', 'off', true);
	RETURN NEXT lives_ok(query, what || ': native run raises no error');
	EXECUTE 'SELECT string_agg(q::text, '';'' ORDER BY q::text) FROM (' || query || ') q' INTO off_rows;
	PERFORM set_config('gpuagg.enabled', 'on', true);
	EXECUTE 'SELECT string_agg(q::text, '';'' ORDER BY q::text) FROM (' || query || ') q' INTO on_rows;
	RETURN NEXT is(on_rows, off_rows, what || ': same rows as the native run');
END
$$;

CREATE TABLE er_t (
	id int4,
	k  int4,
	x  int4,
	i4 int4,
	i2 int2,
	i8 int8,
	f  float8,
	f4 float4,
	d  date
);
INSERT INTO er_t VALUES
	(1,  1, 1,  10,          10,    10,                  1,         1,   '2020-01-01'),
	(2,  2, 0,  10,          10,    10,                  0,         0,   '2020-01-02'),
	(3,  1, 1,  1000000,     10,    10,                  1,         1,   '2020-01-03'),
	(4,  2, -1, -2147483648, 10,    10,                  1,         1,   '2020-01-04'),
	(5,  1, 1,  10,          30000, 10,                  1,         1,   '2020-01-05'),
	(6,  2, 1,  10,          10,    10,                  10,        1,   '2020-01-06'),
	(7,  1, 1,  10,          10,    10,                  1,         1,   '5874897-12-31'),
	(8,  2, 1,  10,          10,    4611686018427387904, 1,         1,   '2020-01-08'),
	(9,  1, 1,  10,          10,    10,                  1e-300,    1,   '2020-01-09'),
	(10, 2, 1,  10,          10,    10,                  1,         1,   'infinity'),
	(11, 1, 1,  10,          -32768, 10,                 1e10,      1e30, '2020-01-11'),
	(12, 2, 1,  10,          10,    10,                  1.5e308,   3e38, '2020-01-12'),
	(13, 1, 1,  10,          10,    10,                  1.5e308,   3e38, '2020-01-13'),
	(14, 2, 0,  1000000,     10,    10,                  1,         1,   '2020-01-14'),
	(15, 1, NULL, NULL,      NULL,  NULL,                NULL,      NULL, NULL);
ANALYZE er_t;

-- errors in aggregate arguments
SELECT pg_temp.same_error('SELECT k, sum(i4 / x) FROM er_t WHERE id IN (1, 2) GROUP BY k',
	'22012', 'integer division by zero');
SELECT pg_temp.same_error('SELECT sum(i4 % x) FROM er_t WHERE id IN (1, 2)',
	'22012', 'integer modulo by zero');
SELECT pg_temp.same_error('SELECT sum(i4 * 100000) FROM er_t WHERE id IN (1, 3)',
	'22003', 'int4 overflow in sum(i4 * 100000)');
SELECT pg_temp.same_error('SELECT k, sum(i4 / x) FROM er_t WHERE id IN (1, 4) GROUP BY k',
	'22003', 'INT_MIN / -1');
SELECT pg_temp.same_error('SELECT max(-i4) FROM er_t WHERE id IN (1, 4)',
	'22003', 'int4 negation of INT_MIN');
SELECT pg_temp.same_error('SELECT max(i2 * 2::int2) FROM er_t WHERE id IN (1, 5)',
	'22003', 'int2 overflow');
SELECT pg_temp.same_error('SELECT max(i2 / -1::int2) FROM er_t WHERE id IN (1, 11)',
	'22003', 'int2 -32768 / -1');
SELECT pg_temp.same_error('SELECT sum(i8 * 2) FROM er_t WHERE id IN (1, 8)',
	'22003', 'int8 overflow');
SELECT pg_temp.same_error('SELECT sum(f * 1e308) FROM er_t WHERE id IN (1, 6)',
	'22003', 'float8 overflow in sum(f * 1e308)');
SELECT pg_temp.same_error('SELECT sum(f * 1e-300) FROM er_t WHERE id IN (1, 9)',
	'22003', 'float8 underflow');
SELECT pg_temp.same_error('SELECT sum(1 / f) FROM er_t WHERE id IN (1, 2)',
	'22012', 'float8 division by zero');
SELECT pg_temp.same_error('SELECT sum(f4 / f4) FROM er_t WHERE id IN (1, 2)',
	'22012', 'float4 division by zero');
SELECT pg_temp.same_error('SELECT max(f4 * f4) FROM er_t WHERE id IN (1, 11)',
	'22003', 'float4 overflow');
SELECT pg_temp.same_error('SELECT sum(f::int4) FROM er_t WHERE id IN (1, 11)',
	'22003', 'float8 to int4 cast out of range');
SELECT pg_temp.same_error('SELECT max(f::float4) FROM er_t WHERE id IN (1, 12)',
	'22003', 'float8 to float4 cast overflow');
SELECT pg_temp.same_error('SELECT max(d + 1) FROM er_t WHERE id IN (1, 7)',
	'22008', 'date + int out of range');
SELECT pg_temp.same_error('SELECT sum(d - date ''2000-01-01'') FROM er_t WHERE id IN (1, 10)',
	'22008', 'subtracting an infinite date');

-- errors in the transition function, not the argument
SELECT pg_temp.same_error('SELECT sum(f) FROM er_t WHERE id IN (12, 13)',
	'22003', 'float8 sum overflows');
SELECT pg_temp.same_error('SELECT avg(f) FROM er_t WHERE id IN (12, 13)',
	'22003', 'float8 avg accumulation overflows');
SELECT pg_temp.same_error('SELECT sum(f4) FROM er_t WHERE id IN (12, 13)',
	'22003', 'float4 sum overflows');

-- errors in WHERE, group keys and FILTER
SELECT pg_temp.same_error('SELECT count(*) FROM er_t WHERE i4 / x > 0',
	'22012', 'division by zero in WHERE');
SELECT pg_temp.same_error('SELECT i4 * 100000, count(*) FROM er_t WHERE id IN (1, 3) GROUP BY 1',
	'22003', 'overflow in a group key');
SELECT pg_temp.same_error('SELECT count(*) FILTER (WHERE i4 / x > 0) FROM er_t WHERE id IN (1, 2)',
	'22012', 'division by zero in FILTER');

-- which error comes first: natively, group keys are computed in select-list
-- order (the scan's projection), so row 14 fails on i4 / x (22012) before
-- i4 * 100000 (22003) although GROUP BY lists them the other way round
SELECT pg_temp.same_error('SELECT i4 / x AS a, i4 * 100000 AS b, count(*) FROM er_t WHERE id IN (1, 14) GROUP BY b, a',
	'22012', 'first error among group keys');

-- a qual without columns is a one-time filter natively: evaluated once,
-- even over an empty table
CREATE TABLE er_empty (v int4);
SELECT pg_temp.same_error('SELECT g, (SELECT count(*) FROM er_empty WHERE 1 / g > 0) FROM (VALUES (1), (0)) v(g)',
	'22012', 'one-time filter over an empty table');

-- guarded expressions raise nothing, as natively
SELECT pg_temp.same_result('SELECT sum(1 / x) FILTER (WHERE x <> 0) FROM er_t',
	'sum(1/x) FILTER (WHERE x <> 0) over rows with x = 0');
SELECT pg_temp.same_result('SELECT sum(1 / x) FROM er_t WHERE x <> 0 AND 1 / x > 0',
	'WHERE x <> 0 AND 1/x > 0');
SELECT pg_temp.same_result('SELECT k, count(*) FROM er_t WHERE x = 0 OR 10 / x > 1 GROUP BY k',
	'WHERE x = 0 OR 10/x > 1');
SELECT pg_temp.same_result('SELECT k, count(*) FILTER (WHERE x <> 0 AND 10 / x > 1) FROM er_t GROUP BY k',
	'FILTER (WHERE x <> 0 AND 10/x > 1)');
SELECT pg_temp.same_result('SELECT sum(i8 * 2) FROM er_t WHERE id <> 8',
	'overflowing row filtered out by WHERE');
SELECT pg_temp.same_result('SELECT sum(f4 * f4) FILTER (WHERE f4 < 1e10) FROM er_t',
	'overflowing float4 rows filtered out by FILTER');
SELECT pg_temp.same_result('SELECT sum(i4::int8 * 100000), max(i2::int4 * 2), sum(d - date ''2000-01-01'') FILTER (WHERE d < ''infinity'') FROM er_t WHERE id <> 7',
	'widened arithmetic does not overflow');

SELECT * FROM finish();
ROLLBACK;
