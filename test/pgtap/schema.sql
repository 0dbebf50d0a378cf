-- schema: the extension's schema is its own.  CREATE EXTENSION refuses a
-- schema "gpuagg" that another role owns, or that holds objects already
-- (look-alike functions), and uses an empty one of the installing role.
BEGIN;
SELECT plan(5);

-- DROP EXTENSION leaves the schema (CREATE EXTENSION made it, but it is
-- not a member)
DROP EXTENSION gpuagg;
DROP SCHEMA gpuagg;
CREATE ROLE gpuagg_squatter;
CREATE SCHEMA gpuagg AUTHORIZATION gpuagg_squatter;
SELECT throws_ok('CREATE EXTENSION gpuagg', '42P06',
	'schema "gpuagg" already exists and is owned by role "gpuagg_squatter"',
	'a schema gpuagg of another role is refused');
DROP SCHEMA gpuagg;

CREATE SCHEMA gpuagg;
CREATE FUNCTION gpuagg.ledger() RETURNS int LANGUAGE sql AS 'SELECT 1';
SELECT throws_ok('CREATE EXTENSION gpuagg', '42P06',
	'schema "gpuagg" already exists and is not empty',
	'a schema gpuagg that holds objects is refused');
DROP FUNCTION gpuagg.ledger();

SELECT lives_ok('CREATE EXTENSION gpuagg', 'an empty schema gpuagg of the installing role is used');
DROP EXTENSION gpuagg;
DROP SCHEMA gpuagg;
SELECT lives_ok('CREATE EXTENSION gpuagg', 'without a schema gpuagg, CREATE EXTENSION makes it');
SELECT is((SELECT r.rolname::text FROM pg_namespace n JOIN pg_roles r ON r.oid = n.nspowner
			WHERE n.nspname = 'gpuagg'), current_user::text,
	'the schema it made belongs to the installing role');

SELECT * FROM finish();
ROLLBACK;
