-- upgrade: a database on an older version of the extension updates to the
-- current one, and gets the same functions as a fresh install.
BEGIN;
SELECT plan(12);

CREATE TEMP TABLE fresh AS
	SELECT p.proname, pg_get_function_arguments(p.oid) AS args, pg_get_function_result(p.oid) AS result
	  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'gpuagg';

DROP EXTENSION gpuagg;
CREATE EXTENSION gpuagg VERSION '0.1';
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'gpuagg'), '0.1', 'installed as 0.1');
SELECT hasnt_function('gpuagg', 'ledger', '0.1 has no gpuagg.ledger()');
ALTER EXTENSION gpuagg UPDATE;
SELECT is((SELECT extversion FROM pg_extension WHERE extname = 'gpuagg'),
	(SELECT default_version FROM pg_available_extensions WHERE name = 'gpuagg'),
	'ALTER EXTENSION UPDATE reaches the default version');
SELECT set_eq(
	$$SELECT p.proname, pg_get_function_arguments(p.oid), pg_get_function_result(p.oid)
	    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'gpuagg'$$,
	'SELECT * FROM fresh',
	'the updated extension has the functions of a fresh install');

SELECT has_view('gpuagg', 'stat', 'the updated extension has the view gpuagg.stat');

-- a library newer than the catalog's objects (make install done, ALTER
-- EXTENSION UPDATE not yet): a clear error, never a row of garbage
DROP EXTENSION gpuagg;
CREATE EXTENSION gpuagg VERSION '0.2';
SELECT throws_ok('SELECT * FROM gpuagg.stat', '55000',
	'gpuagg.stat() is declared with 11 columns, but the gpuagg library (version '
	|| (SELECT default_version FROM pg_available_extensions WHERE name = 'gpuagg') || ') returns 14',
	'0.2''s gpuagg.stat under a newer library: an error naming the columns');
ALTER EXTENSION gpuagg UPDATE TO '0.4';
SELECT throws_ok('SELECT * FROM gpuagg.service()', '55000', NULL,
	'0.4''s gpuagg.service() under a newer library: an error');
SELECT throws_ok('SELECT * FROM gpuagg.stat', '55000', NULL,
	'0.4''s gpuagg.stat (without exact_runs, column_reruns) under a newer library: an error');
ALTER EXTENSION gpuagg UPDATE;
SELECT lives_ok('SELECT exact_runs, column_reruns FROM gpuagg.stat',
	'after ALTER EXTENSION gpuagg UPDATE gpuagg.stat answers, with its new columns');
SELECT lives_ok('SELECT * FROM gpuagg.service()', 'after ALTER EXTENSION gpuagg UPDATE gpuagg.service() answers');
SELECT isnt((SELECT cuda_pid FROM gpuagg.service()), -1, 'and has its cuda_pid column');
SELECT ok(has_schema_privilege('public', 'gpuagg', 'USAGE'), 'PUBLIC may use schema gpuagg');

SELECT * FROM finish();
ROLLBACK;
