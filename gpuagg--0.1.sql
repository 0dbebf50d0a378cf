/* gpuagg--0.1.sql */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "CREATE EXTENSION gpuagg" to load this file. \quit

-- The version of the loaded shared library, to compare with the catalog's.
CREATE FUNCTION gpuagg.library_version()
RETURNS text
AS 'MODULE_PATHNAME', 'gpuagg_library_version'
LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION gpuagg.library_version() IS
'version of the gpuagg shared library that is loaded';
