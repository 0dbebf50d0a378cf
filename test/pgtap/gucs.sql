-- gucs: every gpuagg setting exists with its default, and bad values are
-- rejected with the right SQLSTATE.
BEGIN;
SELECT plan(53);

-- the settings exist, with their compiled-in defaults
SELECT is((SELECT count(*)::int FROM pg_settings WHERE name LIKE 'gpuagg.%'), 18,
	'eighteen gpuagg.* settings');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.enabled'), 'on',
	'gpuagg.enabled defaults to on');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.device'), 'auto',
	'gpuagg.device defaults to auto');
SELECT is((SELECT boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpuagg.vram_budget'),
	'-1 MB', 'gpuagg.vram_budget defaults to -1 (auto: what one GPU admits)');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.force_offload'), 'off',
	'gpuagg.force_offload defaults to off');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.log_fallback'), 'off',
	'gpuagg.log_fallback defaults to off');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.parallel'), 'on',
	'gpuagg.parallel defaults to on');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.fed_groups'), '-1',
	'gpuagg.fed_groups defaults to -1 (by device)');
SELECT is((SELECT boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpuagg.device_memory_limit'),
	'0 MB', 'gpuagg.device_memory_limit defaults to 0 (three quarters of the GPU)');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpuagg.device_memory_limit'),
	'sighup', 'gpuagg.device_memory_limit is server-wide (sighup)');
SELECT is((SELECT boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpuagg.admission_timeout'),
	'10000 ms', 'gpuagg.admission_timeout defaults to 10 s');
SELECT is((SELECT boot_val || ' ' || unit FROM pg_settings WHERE name = 'gpuagg.batch_size'),
	'16384 kB', 'gpuagg.batch_size defaults to 16384 kB');
SELECT is((SELECT enumvals FROM pg_settings WHERE name = 'gpuagg.device'),
	ARRAY['auto', 'cuda', 'cpu'], 'gpuagg.device accepts auto, cuda, cpu');
SELECT is((SELECT count(*)::int FROM pg_settings
			WHERE name LIKE 'gpuagg.%'
			  AND name NOT IN ('gpuagg.device_memory_limit', 'gpuagg.admission_timeout',
							   'gpuagg.debug_inject_fault', 'gpuagg.debug_fail_batch')
			  AND context <> 'user'),
	0, 'every other gpuagg setting can be changed by any user (context user)');
SELECT is((SELECT context FROM pg_settings WHERE name = 'gpuagg.admission_timeout'),
	'superuser', 'gpuagg.admission_timeout (how long a waiter may hold others back) is for superusers');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.page_batches'), 'on',
	'gpuagg.page_batches defaults to on');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.device_joins'), 'on',
	'gpuagg.device_joins defaults to on');
SELECT is((SELECT boot_val FROM pg_settings WHERE name = 'gpuagg.decorrelate'), 'on',
	'gpuagg.decorrelate defaults to on');
SELECT is((SELECT boot_val || ' ' || context FROM pg_settings WHERE name = 'gpuagg.debug_inject_fault'),
	'off superuser', 'gpuagg.debug_inject_fault (a test hook) is off and for superusers only');
SELECT is((SELECT boot_val || ' ' || context FROM pg_settings WHERE name = 'gpuagg.debug_fail_batch'),
	'0 superuser', 'gpuagg.debug_fail_batch (a test hook) is 0 and for superusers only');

-- what SHOW prints for the defaults: each set to its compiled-in default
-- (boot_val; RESET would give the session's reset value, which a database
-- or PGOPTIONS setting may change)
CREATE FUNCTION pg_temp.show_default(guc text) RETURNS text
LANGUAGE sql AS $$
	SELECT set_config(name, boot_val, true) FROM pg_settings WHERE name = guc
$$;
SELECT is(pg_temp.show_default('gpuagg.enabled'), 'on', 'SHOW gpuagg.enabled prints on');
SELECT is(pg_temp.show_default('gpuagg.device'), 'auto', 'SHOW gpuagg.device prints auto');
SELECT is(pg_temp.show_default('gpuagg.vram_budget'), '-1', 'SHOW gpuagg.vram_budget prints -1');
SELECT is(pg_temp.show_default('gpuagg.force_offload'), 'off', 'SHOW gpuagg.force_offload prints off');
SELECT is(pg_temp.show_default('gpuagg.log_fallback'), 'off', 'SHOW gpuagg.log_fallback prints off');
SELECT is(pg_temp.show_default('gpuagg.parallel'), 'on', 'SHOW gpuagg.parallel prints on');
SELECT is(pg_temp.show_default('gpuagg.admission_timeout'), '10s', 'SHOW gpuagg.admission_timeout prints 10s');
SELECT throws_ok('SET gpuagg.admission_timeout = -1', '22023', NULL,
	'a negative gpuagg.admission_timeout is rejected');
SELECT throws_ok('SET gpuagg.device_memory_limit = ''1GB''', '55P02', NULL,
	'gpuagg.device_memory_limit cannot be SET in a session');
SELECT is(pg_temp.show_default('gpuagg.batch_size'), '16MB', 'SHOW gpuagg.batch_size prints 16MB');

-- valid values are accepted and shown in their canonical form
SET LOCAL gpuagg.device = cpu;
SELECT is(current_setting('gpuagg.device'), 'cpu', 'gpuagg.device can be set to cpu');
SET LOCAL gpuagg.device = 'CUDA';
SELECT is(current_setting('gpuagg.device'), 'cuda', 'enum values are case-insensitive');
SET LOCAL gpuagg.vram_budget = '512MB';
SELECT is(current_setting('gpuagg.vram_budget'), '512MB', 'gpuagg.vram_budget takes memory units');
SET LOCAL gpuagg.vram_budget = -1;
SELECT is(current_setting('gpuagg.vram_budget'), '-1', 'gpuagg.vram_budget = -1 (auto) is accepted');
SET LOCAL gpuagg.vram_budget = '100kB';
SELECT is(current_setting('gpuagg.vram_budget'), '0',
	'gpuagg.vram_budget below 1 MB is 0 (no device memory), never auto');
SET LOCAL gpuagg.vram_budget = 1;
SELECT is(current_setting('gpuagg.vram_budget'), '1MB', 'gpuagg.vram_budget without unit is MB');
SET LOCAL gpuagg.batch_size = '64kB';
SELECT is(current_setting('gpuagg.batch_size'), '64kB', 'gpuagg.batch_size minimum is 64kB');
SET LOCAL gpuagg.enabled = off;
SELECT is(current_setting('gpuagg.enabled'), 'off', 'gpuagg.enabled can be turned off');

-- invalid values: 22023 (invalid_parameter_value)
SELECT throws_ok('SET gpuagg.device = ''foo''', '22023', NULL,
	'unknown gpuagg.device value is rejected');
SELECT throws_ok('SET gpuagg.vram_budget = -2', '22023', NULL,
	'gpuagg.vram_budget below -1 is rejected');
SELECT throws_ok('SET gpuagg.vram_budget = ''lots''', '22023', NULL,
	'non-numeric gpuagg.vram_budget is rejected');
SELECT throws_ok('SET gpuagg.batch_size = ''32kB''', '22023', NULL,
	'gpuagg.batch_size below 64kB is rejected');
SELECT throws_ok('SET gpuagg.batch_size = ''2GB''', '22023', NULL,
	'gpuagg.batch_size above 1GB is rejected');
SELECT throws_ok('SET gpuagg.enabled = ''maybe''', '22023', NULL,
	'non-boolean gpuagg.enabled is rejected');
SELECT throws_ok('SET gpuagg.force_offload = 2', '22023', NULL,
	'non-boolean gpuagg.force_offload is rejected');
SELECT throws_ok('SET gpuagg.fed_groups = -2', '22023', NULL,
	'gpuagg.fed_groups below -1 is rejected');
SELECT throws_ok('SET gpuagg.startup_cost = -1', '22023', NULL,
	'negative gpuagg.startup_cost is rejected');
SELECT throws_ok('SET gpuagg.tuple_cost = -0.5', '22023', NULL,
	'negative gpuagg.tuple_cost is rejected');

-- a rejected SET leaves the value alone
SELECT is(current_setting('gpuagg.vram_budget'), '1MB',
	'failed SETs left gpuagg.vram_budget unchanged');

-- gpuagg is a reserved prefix: unknown names are errors (42602,
-- invalid_name), not placeholders
SELECT throws_ok('SET gpuagg.nonexistent = 1', '42602', NULL,
	'unknown gpuagg.* name is rejected by SET');
SELECT throws_ok('SELECT set_config(''gpuagg.nonexistent'', ''1'', false)', '42602', NULL,
	'unknown gpuagg.* name is rejected by set_config');
SELECT throws_ok('SELECT current_setting(''gpuagg.nonexistent'')', '42704', NULL,
	'reading an unknown gpuagg.* name is an unrecognized parameter');
SELECT is(current_setting('gpuagg.nonexistent', true), NULL,
	'current_setting(missing_ok) of an unknown gpuagg.* name is NULL');

SELECT * FROM finish();
ROLLBACK;
