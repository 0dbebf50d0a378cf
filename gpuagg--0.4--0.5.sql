/* gpuagg--0.4--0.5.sql */

-- complain if script is sourced in psql, rather than via ALTER EXTENSION
\echo Use "ALTER EXTENSION gpuagg UPDATE TO '0.5'" to load this file. \quit

-- 0.5 changes no SQL object.  Its library: the ledger keeps a slot per
-- process (a queue entry or reservation never outlives its process);
-- gpuagg.vram_budget's auto value is -1; gpuagg.admission_timeout is for
-- superusers.  Its install script refuses a schema "gpuagg" that another
-- role owns or that holds objects already.
