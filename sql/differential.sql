--
-- differential: seeded random eligible queries, each run offloaded (on the
-- test device, cpu unless set; force_offload) and natively
-- (gpuagg.enabled = off);
-- results must be equal as multisets, and errors must carry the same
-- SQLSTATE.  The generator and the data are deterministic (setseed), so the
-- summary row at the end is stable.  A mismatch is reported as a NOTICE
-- carrying the query and both outcomes.
--
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS gpuagg;
RESET client_min_messages;
-- The device: the session's (a GPU suite may set gpuagg.device = cuda),
-- or the CPU device where it is auto (no offload without a GPU).
DO $$
BEGIN
	IF current_setting('gpuagg.device') = 'auto' THEN
		PERFORM set_config('gpuagg.device', 'cpu', false);
	END IF;
END
$$;
SET gpuagg.force_offload = on;

--
-- Data: about 10% NULLs per column, and extreme values mixed in.
--
CREATE TABLE diff_t (
	i2 int2,
	i4 int4,
	i8 int8,
	f4 float4,
	f8 float8,
	d  date,
	ts timestamp,
	tz timestamptz,
	b  bool,
	k  int4,
	s  text,
	v  varchar(8),
	c  char(4)
);

DO $$
DECLARE
	v_i2 int2; v_i4 int4; v_i8 int8; v_f4 float4; v_f8 float8;
	v_d date; v_ts timestamp; v_tz timestamptz; v_b bool; v_k int4;
	v_s text; v_v varchar(8); v_c char(4);
	secs float8;
BEGIN
	PERFORM setseed(0.2718);
	FOR n IN 1..3300 LOOP
		v_i2 := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY[-32768, 32767, 0, -1, 1, -32767])[1 + floor(random() * 6)::int]
			ELSE (floor(random() * 2001) - 1000)::int2 END;
		v_i4 := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY[-2147483648, 2147483647, 0, -1, 1, -2147483647])[1 + floor(random() * 6)::int]
			ELSE (floor(random() * 200001) - 100000)::int4 END;
		v_i8 := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY[-9223372036854775808, 9223372036854775807, 0, -1, 1, -9223372036854775807])[1 + floor(random() * 6)::int]
			ELSE (floor(random() * 2000000000001) - 1000000000000)::int8 END;
		v_f4 := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '1e30', '-1e30', '1e-30']::float4[])[1 + floor(random() * 8)::int]
			ELSE (random() * 2000 - 1000)::float4 END;
		v_f8 := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY['NaN', 'Infinity', '-Infinity', '-0', '0', '1e300', '-1e300', '1e-300', '-1e-300', '4.9e-324']::float8[])[1 + floor(random() * 10)::int]
			ELSE (random() - 0.5) * 1e6 END;
		v_d := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY['infinity', '-infinity', '4714-11-24 BC', '5874897-12-31', '1970-01-01', '2000-01-01', '4714-11-25 BC', '5874897-12-30']::date[])[1 + floor(random() * 8)::int]
			ELSE date '2000-01-01' + floor(random() * 20000)::int END;
		secs := 946684800 + random() * 1.7e9;
		v_ts := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY['infinity', '-infinity', '4714-11-24 00:00:00 BC', '294276-12-31 23:59:59.999999', '1970-01-01 00:00:00', '2000-01-01 00:00:00']::timestamp[])[1 + floor(random() * 6)::int]
			ELSE to_timestamp(secs) AT TIME ZONE 'UTC' END;
		secs := 946684800 + random() * 1.7e9;
		v_tz := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.015 THEN (ARRAY['infinity', '-infinity', '4714-11-24 00:00:00+00 BC', '294276-12-31 23:59:59.999999+00', '1970-01-01 00:00:00+00', '2000-01-01 00:00:00+00']::timestamptz[])[1 + floor(random() * 6)::int]
			ELSE to_timestamp(secs) END;
		v_b := CASE WHEN random() < 0.1 THEN NULL ELSE random() < 0.5 END;
		v_k := CASE WHEN random() < 0.1 THEN NULL ELSE floor(random() * 10)::int4 END;
		-- strings: shared prefixes, empty, NULL, multibyte, a few long ones
		v_s := CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.05 THEN ''
			WHEN random() < 0.05 THEN (ARRAY['Ä', 'äö', '日本', '日本語', 'ü '])[1 + floor(random() * 5)::int]
			WHEN random() < 0.01 THEN repeat(md5(floor(random() * 3)::text), 100)
			ELSE 'p' || substr(md5(floor(random() * 40)::text), 1, 1 + floor(random() * 4)::int) END;
		v_v := CASE WHEN random() < 0.1 THEN NULL ELSE 'v' || floor(random() * 12)::int END;
		v_c := CASE WHEN random() < 0.1 THEN NULL
			ELSE (ARRAY['a', 'a ', 'ab', 'b  ', '', 'é'])[1 + floor(random() * 6)::int] END;
		INSERT INTO diff_t VALUES (v_i2, v_i4, v_i8, v_f4, v_f8, v_d, v_ts, v_tz, v_b, v_k,
								   v_s, v_v, v_c);
	END LOOP;
END
$$;
-- dead and moved row versions: GpuAgg must see exactly the visible rows
DELETE FROM diff_t WHERE i4 % 11 = 3;
UPDATE diff_t SET b = NOT b WHERE i2 % 13 = 5;
-- numeric columns, for a run of their own (diff.numeric), with their own
-- seed: money at numeric(15,2) up to its largest value, numeric(12,4),
-- numeric(18,0) up to 18 digits, whose products and sums pass int64, and
-- a numeric without a typmod whose values have display scale 3 (the
-- statistics give it), and one whose values have display scales 0 to 2
-- (nm, for diff.mixed; no random() of its own, so the others' values
-- stay what they were)
ALTER TABLE diff_t ADD COLUMN n2 numeric(15,2), ADD COLUMN n4 numeric(12,4),
	ADD COLUMN n0 numeric(18,0), ADD COLUMN nf numeric, ADD COLUMN nm numeric;
DO $$
BEGIN
	PERFORM setseed(0.3141);
	UPDATE diff_t SET
		n2 = CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.002 THEN (ARRAY[9999999999999.99, -9999999999999.99, 0, 0.01, -0.01])[1 + floor(random() * 5)::int]
			ELSE round((random() * 2e6 - 1e6)::numeric, 2) END,
		n4 = CASE WHEN random() < 0.1 THEN NULL
			ELSE round((random() * 2e4 - 1e4)::numeric, floor(random() * 5)::int) END,
		n0 = CASE WHEN random() < 0.1 THEN NULL
			WHEN random() < 0.002 THEN (ARRAY[999999999999999999, -999999999999999999, 0])[1 + floor(random() * 3)::int]
			ELSE floor(random() * 2e9 - 1e9)::numeric END,
		nf = CASE WHEN random() < 0.1 THEN NULL
			ELSE round((random() * 2e5 - 1e5)::numeric, 3) END,
		nm = CASE WHEN i4 % 10 = 3 THEN NULL
			ELSE trim_scale((i4 % 200000 - 100000)::numeric / 100) END;
END
$$;
ANALYZE diff_t;

--
-- Normalization of one output value: floats to 12 significant digits
-- (extra_float_digits = -3 is set while comparing; 6 on the CUDA device,
-- which sums in a different order) with -0 as 0 (in arrays of floats too:
-- the device tells -0 from 0 nowhere), NaN and infinities as text;
-- everything else as text; NULL as 'NULL'.
--
CREATE FUNCTION diff_norm(v anyelement) RETURNS text
LANGUAGE plpgsql PARALLEL SAFE AS $$
BEGIN
	IF v IS NULL THEN
		RETURN 'NULL';
	END IF;
	IF pg_typeof(v) IN ('real'::regtype, 'double precision'::regtype) THEN
		IF v::float8 = 0 THEN
			RETURN '0';
		END IF;
		-- the GPU adds in another order: 6 significant digits there
		IF current_setting('gpuagg.device') = 'cuda' AND
		   v::float8 NOT IN ('NaN', 'Infinity', '-Infinity') THEN
			RETURN trim(to_char(v::float8, '9.99999EEEE'));
		END IF;
		-- an integral float with a fraction, so that diff_float_order
		-- tells it from an integer
		RETURN regexp_replace(v::float8::text, '^(-?[0-9]+)$', '\1.0');
	END IF;
	-- (an array of floats, percentile_*(float8[]): its -0s as 0 too)
	IF pg_typeof(v) IN ('real[]'::regtype, 'double precision[]'::regtype) THEN
		RETURN regexp_replace(v::text, '([{,])-0(?=[,}])', '\10', 'g');
	END IF;
	RETURN v::text;
END
$$;

--
-- Random pieces of queries.  random() is only called here, in PL/pgSQL;
-- the generated queries contain none.
--
CREATE FUNCTION diff_pick(a text[]) RETURNS text
LANGUAGE sql AS $$ SELECT a[1 + floor(random() * array_length(a, 1))::int] $$;

CREATE FUNCTION diff_int(lo int8, hi int8) RETURNS int8
LANGUAGE sql AS $$ SELECT lo + floor(random() * (hi - lo + 1))::int8 $$;

-- The numeric type for the generator, where diff.numeric is on.
CREATE FUNCTION diff_numeric_types() RETURNS text[]
LANGUAGE sql AS $$
	SELECT CASE WHEN current_setting('diff.numeric', true) = 'on'
		THEN '{numeric,numeric}'::text[] ELSE '{}'::text[] END
$$;

-- A numeric expression: + - * % at mixed scales, integers as numerics,
-- round and trunc (negative places too, and of exact quotients), abs,
-- GREATEST, LEAST and NULLIF,
-- extract of a timestamp or a date, now and then one whose product passes
-- int64 (the exact path).
CREATE FUNCTION diff_numeric_expr() RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	IF current_setting('diff.mixed', true) = 'on' THEN
		IF random() < 0.4 THEN
			RETURN diff_pick(ARRAY['nm', 'nm', '(nm * k)', '(nm + n2)', '(nm * nm)', '(-nm)',
				'(abs(nm))', '(round(nm, 1))', '(nm * 2.5)', '(nm::numeric(12,2))', '(nm - nf)',
				'(trunc(nm))', '(nm * i2 - 0.125)']);
		END IF;
	END IF;
	IF random() < 0.5 THEN
		RETURN diff_pick('{n2,n2,n4,n0,nf}');
	END IF;
	RETURN diff_pick(ARRAY['(n2 + n4)', '(n2 * 2)', '(n4 - n2)', '(-n2)', '(n2 * n4)',
		'(i4::numeric + n2)', '(k * n2)', '(n2 * 1.5)', '(n4 * (1 - n4))', '(n0 + k)',
		'(n0 * 1000)', '(n2 - 0.005)', '(i2 * n4)', '(n0 * n0)', '(round(n4, 2))',
		'(trunc(n2))', '(abs(n4 - n2))', '(round(n2 * n4, 5))', '(round(n2, -2))',
		'(trunc(n4, -1))', '(GREATEST(n2, -n2, 0.00))', '(LEAST(n4, n4 * 1, NULL))',
		'(NULLIF(n0, 5))', '(extract(second FROM ts))', '(extract(epoch FROM ts))',
		'(extract(isoyear FROM d))', '(extract(dow FROM ts) + n0)', '(nf * n2)',
		'(nf - n4)', '(nf::numeric(12,1))', '(n4::numeric(10,2))', '(n2::numeric(13,-1))',
		'(floor(n2))', '(ceil(n4 - n2))', '(sign(n2 - n4))', '(n2 % 7)', '(n4 % -0.3)',
		'(mod(n0, 1000))', '(trunc(n2 / 100))', '(round(n4 / 8, 3))', '(floor(n2 / -4))',
		'(sign(n4 / 0.5))', '(extract(epoch FROM d))']);
END
$$;

-- An expression of the given type: a plain column half of the time, else
-- an expression that cannot fail on the data, and now and then one that
-- fails on the extreme values (overflow, division by zero, underflow, dates
-- out of range).
CREATE FUNCTION diff_expr(t text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r float8;
BEGIN
	IF t = 'numeric' THEN
		RETURN diff_numeric_expr();
	END IF;
	r := random();
	IF r < 0.5 THEN
		RETURN CASE t WHEN 'int2' THEN 'i2' WHEN 'int4' THEN diff_pick('{i4,k}')
			WHEN 'int8' THEN 'i8' WHEN 'float4' THEN 'f4' WHEN 'float8' THEN 'f8'
			WHEN 'date' THEN 'd' WHEN 'ts' THEN 'ts' WHEN 'tz' THEN 'tz'
			WHEN 'text' THEN diff_pick('{s,s,v}') WHEN 'bpchar' THEN 'c'
			ELSE 'b' END;
	END IF;
	-- (diff.conditionals: a tenth of them conditionals, diff_cond)
	IF r < 0.6 AND current_setting('diff.conditionals', true) = 'on' THEN
		RETURN diff_cond(t);
	END IF;
	-- (diff.strings: functions of one string column, the host's)
	IF t IN ('text', 'int4', 'bool') AND r < 0.8 AND current_setting('diff.strings', true) = 'on' THEN
		RETURN CASE t
			WHEN 'text' THEN diff_pick(ARRAY['lower(s)', 'upper(v)', 'substr(s, 2, 3)',
				'(s || ''-'')', 'left(s, 2)', 'right(v, 1)', 'btrim(s)', 'replace(s, ''p'', ''q'')',
				'regexp_replace(s, ''^p(.).*$'', ''\1'')', 'split_part(s, ''a'', 2)',
				'initcap(s)', 'reverse(s)', 'substring(s FROM ''^p(.)'')', 'regexp_substr(v, ''[0-4]'')'])
			WHEN 'int4' THEN diff_pick(ARRAY['length(s)', 'octet_length(s)', 'strpos(s, ''a'')',
				'char_length(v)'])
			ELSE diff_pick(ARRAY['starts_with(s, ''p'')', '(lower(s) LIKE ''%a%'')',
				'(upper(v) < ''V5'')', '(length(s) > 3)',
				'(s LIKE ANY (ARRAY[''p%'', ''%a%'']))', '(v !~ ALL (''{^V1,3$}''))'])
			END;
	END IF;
	-- (diff.zones: timestamptz in the session's time zone, and back)
	IF t IN ('tz', 'ts', 'date', 'float8', 'bool') AND r < 0.85 AND current_setting('diff.zones', true) = 'on' THEN
		RETURN CASE t
			WHEN 'tz' THEN diff_pick(ARRAY['date_trunc(''day'', tz)', 'date_trunc(''hour'', tz)',
				'date_trunc(''month'', tz)', 'date_trunc(''week'', tz)', '(ts::timestamptz)',
				'(d::timestamptz)', 'date_trunc(''year'', ts::timestamptz)'])
			WHEN 'ts' THEN diff_pick(ARRAY['(tz::timestamp)', '(date_trunc(''day'', tz)::timestamp)',
				'(d::timestamp)', '(tz AT TIME ZONE ''Asia/Kolkata'')'])
			WHEN 'date' THEN diff_pick(ARRAY['(tz::date)', '(ts::timestamptz::date)'])
			WHEN 'float8' THEN diff_pick(ARRAY['date_part(''hour'', tz)', 'date_part(''dow'', tz)',
				'date_part(''day'', tz)', 'date_part(''epoch'', ts::timestamptz)'])
			ELSE diff_pick(ARRAY['(tz >= d)', '(ts < tz)', '(tz <= date ''2010-01-01'')',
				'(d::timestamptz = tz)', '(tz > ts)'])
			END;
	END IF;
	IF t IN ('text', 'bpchar') THEN
		RETURN CASE t WHEN 'text' THEN diff_pick('{s,s,v}') ELSE 'c' END;
	END IF;
	IF r < 0.95 THEN
		RETURN CASE t
			WHEN 'int2' THEN diff_pick(ARRAY['(i2 / 3::int2)', '((i4 % 100)::int2)',
				'(i2 % 7::int2)', '(k::int2)', '(i2 % -1::int2)', '(abs(i2))'])
			WHEN 'int4' THEN diff_pick(ARRAY['(i4 / 7)', '(i4 % 1000)', '(i2::int4 * i2)',
				'(k * i2)', '(i4 / (k + 1))', '((i8 % 1000000)::int4)', '(i2 + k)',
				'(i2::int4)', '(k - 5)', '(i2 + 1)', '(i4 % -1)', '(i4 / 100000 * 3)', '(abs(i4))'])
			WHEN 'int8' THEN diff_pick(ARRAY['(i4::int8 * 1000)', '(i8 / 1000)', '(i2::int8)',
				'(i8 % 997)', '(i4::int8 * i4)', '(k::int8 * 1000000000000)',
				'(i8 / 1000000 + i4)', '(i4::int8 - i2)', '(abs(i8))'])
			WHEN 'float4' THEN diff_pick(ARRAY['(f4 + 1::float4)', '(-f4)', '(i4::float4)',
				'(i8::float4)', '(f4 - k::float4)', '(i2::float4 / 2::float4)',
				'(f4 * 2::float4)', '(f4 / 3::float4)'])
			WHEN 'float8' THEN diff_pick(ARRAY['(f8 + 1)', '(f8 * 2)', '(f4::float8)',
				'(i4::float8)', '(i8::float8 / 1000)', '(f8 - f4)', '(-f8)',
				'(i2::float8 * 0.5)', '(f8 + i4::float8)', '(f4::float8 / 1000)',
				'(round(f8 / 7))', '(trunc(f8))', '(floor(f4::float8 / 3))', '(ceil(f8))',
				'(sign(f8))', '(abs(f8 - 1))', '(abs(f4)::float8)'])
			WHEN 'date' THEN diff_pick(ARRAY['(d + 0)', '(d - 0)', '(0 + d)'])
			WHEN 'ts' THEN 'ts'
			WHEN 'tz' THEN 'tz'
			ELSE diff_pick(ARRAY['(i4 > 0)', '(k IS NULL)', '(f8 < 0 OR b)', '(NOT b)',
				'(b IS TRUE)', '(i2 BETWEEN -10 AND 10)', '(k IN (1, 2, 3))',
				'(d > date ''2010-01-01'')', '(b AND k > 4)', '(f4 IS NOT NULL)'])
			END;
	END IF;
	RETURN CASE t
		WHEN 'int2' THEN diff_pick(ARRAY['(i2 * 2::int2)', '(-i2)', '(i8::int2)',
			'(f4::int2)', '(i2 - 1::int2)', '(i2 / i2)'])
		WHEN 'int4' THEN diff_pick(ARRAY['(i4 * 2)', '(i4 + 1)', '(i4 - 1)', '(-i4)',
			'(i4 / i2)', '(d - date ''2000-01-01'')', '(f8::int4)', '(i4 % k)',
			'(i4 / k)'])
		WHEN 'int8' THEN diff_pick(ARRAY['(i8 * 2)', '(i8 + i4)', '(-i8)', '(f4::int8)',
			'(i8 - k)', '(i8 / i4)', '(i8 * i8)'])
		WHEN 'float4' THEN diff_pick(ARRAY['(f4 * f4)', '(f8::float4)', '(f4 / f4)'])
		WHEN 'float8' THEN diff_pick(ARRAY['(f8 / 7)', '(f8 * f8)', '(f8 * 1e10)',
			'(f8 / f4)', '(f4 * f8)', '(f8 / 1e300)'])
		WHEN 'date' THEN diff_pick(ARRAY['(d + 1)', '(d - 30)', '(d + k)', '(d + i2)',
			'(k + d)', '(d - i2)'])
		WHEN 'ts' THEN diff_pick(ARRAY['ts', '(ts + interval ''1 month'')',
			'(ts - interval ''1 year 2 days 03:04:05.5'')', '(interval ''-13 months 5 days'' + ts)',
			'(d + interval ''1 week'')', '(d - interval ''1 month 12:00'')'])
		WHEN 'tz' THEN diff_pick(ARRAY['tz', 'tz', '(tz + interval ''90 minutes'')',
			'(tz - interval ''-36:00:00.5'')'])
		ELSE diff_pick(ARRAY['(i4 / k > 0)', '(f8 / f4 > 1)', '(i2 * 2::int2 < 100)'])
		END;
END
$$;

-- A constant of the given type.
CREATE FUNCTION diff_const(t text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	IF t = 'numeric' THEN
		RETURN CASE WHEN random() < 0.2 THEN diff_int(-10, 10)::text
			WHEN random() < 0.1 THEN diff_pick('{0.001,-99999999999.5,1e15,0.00}')
			ELSE round((random() * 2e6 - 1e6)::numeric, floor(random() * 4)::int)::text END;
	END IF;
	IF t IN ('int2', 'int4', 'int8') AND random() < 0.4 THEN
		RETURN diff_int(-10, 10)::text;
	END IF;
	RETURN CASE t
		WHEN 'int2' THEN CASE WHEN random() < 0.1 THEN diff_pick('{-32768,32767,0}')
			ELSE diff_int(-1200, 1200)::text END
		WHEN 'int4' THEN CASE WHEN random() < 0.1 THEN diff_pick('{-2147483648,2147483647,0}')
			ELSE diff_int(-120000, 120000)::text END
		WHEN 'int8' THEN CASE WHEN random() < 0.1 THEN diff_pick('{-9223372036854775808,9223372036854775807,0}')
			ELSE diff_int(-1200000000000, 1200000000000)::text END
		WHEN 'float4' THEN CASE WHEN random() < 0.15
			THEN diff_pick(ARRAY['''NaN''', '''Infinity''', '''-Infinity''', '0', '1e30', '-0.0'])
			ELSE round((random() * 2400 - 1200)::numeric, 2)::text END
		WHEN 'float8' THEN CASE WHEN random() < 0.15
			THEN diff_pick(ARRAY['''NaN''', '''Infinity''', '''-Infinity''', '0', '1e300', '-1e-300'])
			ELSE round(((random() - 0.5) * 1.2e6)::numeric, 3)::text END
		WHEN 'date' THEN CASE WHEN random() < 0.1
			THEN diff_pick(ARRAY['date ''infinity''', 'date ''-infinity'''])
			ELSE 'date ''' || to_char(date '2000-01-01' + diff_int(-200, 20200)::int, 'YYYY-MM-DD') || '''' END
		WHEN 'ts' THEN CASE WHEN random() < 0.1
			THEN diff_pick(ARRAY['timestamp ''infinity''', 'timestamp ''-infinity'''])
			ELSE 'timestamp ''' || to_char(to_timestamp(946684800 + random() * 1.7e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || '''' END
		WHEN 'tz' THEN CASE WHEN random() < 0.1
			THEN diff_pick(ARRAY['timestamptz ''infinity''', 'timestamptz ''-infinity'''])
			ELSE 'timestamptz ''' || to_char(to_timestamp(946684800 + random() * 1.7e9) AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS') || '+00''' END
		WHEN 'text' THEN diff_pick(ARRAY['''''', '''Ä''', '''日本''', '''ü ''',
			'''v' || floor(random() * 12)::int || '''',
			'''p' || substr(md5(floor(random() * 40)::text), 1, 1 + floor(random() * 4)::int) || ''''])
		WHEN 'bpchar' THEN diff_pick(ARRAY['''a''', '''a   ''', '''ab''', '''b''', '''''', '''é '''])
		ELSE diff_pick('{true,false}')
		END;
END
$$;

-- x [NOT] IN (2 to 4 constants of type t, now and then NULL).
CREATE FUNCTION diff_in_list(x text, t text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	items text[] := '{}';
BEGIN
	FOR i IN 1..diff_int(2, 4)::int LOOP
		IF random() < 0.15 THEN
			items := items || 'NULL'::text;
		ELSE
			items := items || diff_const(t);
		END IF;
	END LOOP;
	RETURN '(' || x || diff_pick(ARRAY[' IN (', ' NOT IN (']) || array_to_string(items, ', ') || '))';
END
$$;

-- A predicate: comparisons, IS [NOT] NULL, BETWEEN, IN lists, boolean
-- tests, combined with AND/OR/NOT up to the given depth.
CREATE FUNCTION diff_pred(depth int) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r float8 := random();
	t text;
	x text;
BEGIN
	IF depth > 0 AND r < 0.35 THEN
		r := random();
		IF r < 0.4 THEN
			RETURN '(' || diff_pred(depth - 1) || ' AND ' || diff_pred(depth - 1) || ')';
		ELSIF r < 0.8 THEN
			RETURN '(' || diff_pred(depth - 1) || ' OR ' || diff_pred(depth - 1) || ')';
		ELSIF r < 0.9 THEN
			RETURN '(NOT ' || diff_pred(depth - 1) || ')';
		ELSE
			RETURN '(' || diff_pred(depth - 1) || diff_pick(ARRAY[' IS TRUE', ' IS NOT TRUE',
				' IS FALSE', ' IS NOT FALSE', ' IS UNKNOWN', ' IS NOT UNKNOWN']) || ')';
		END IF;
	END IF;

	t := diff_pick('{int2,int4,int4,int8,float4,float8,float8,date,ts,tz,bool,text,text,bpchar}'::text[]
				   || diff_numeric_types());
	x := diff_expr(t);
	r := random();
	IF t = 'numeric' AND r >= 0.45 AND r < 0.55 THEN
		RETURN '(' || diff_pick(ARRAY['n2 < n4', 'n4 >= n0', 'n0 <> n2', 'n2 = n2 * 1']) || ')';
	END IF;
	IF t IN ('text', 'bpchar') THEN
		-- strings: =, <>, < and >= (a text column), IN lists, IS NULL, column
		-- against column
		IF r < 0.5 THEN
			RETURN '(' || x || diff_pick(CASE WHEN x IN ('s', 'v')
				THEN ARRAY[' = ', ' <> ', ' < ', ' >= '] ELSE ARRAY[' = ', ' <> '] END)
				|| diff_const(t) || ')';
		ELSIF r < 0.6 THEN
			RETURN '(' || x || diff_pick(ARRAY[' IS NULL', ' IS NOT NULL']) || ')';
		ELSIF r < 0.7 THEN
			RETURN '(' || diff_pick(ARRAY['s = v', 's <> v', 'c = c', 'v = s']) || ')';
		ELSIF r < 0.8 THEN
			-- (of a char(4), the value padded, as stored)
			RETURN '(' || x || diff_pick(ARRAY[' LIKE ', ' NOT LIKE ', ' ILIKE ', ' NOT ILIKE '])
				|| diff_pick(ARRAY['''p%''', '''%a%''', '''P_%''', '''%''', '''''', '''v1_''',
								   '''%\_%''', '''日%''', '''_''', '''a %''']) || ')';
		ELSIF r < 0.85 THEN
			RETURN '(' || x || diff_pick(ARRAY[' ~ ', ' !~ ', ' ~* ', ' !~* '])
				|| diff_pick(ARRAY['''^p''', '''a''', '''^P.''', '''1$''', '''''', ''' $''',
								   '''^.$''', '''日''', '''^(a|b) *$''']) || ')';
		END IF;
		RETURN diff_in_list(x, t);
	END IF;
	IF t = 'bool' THEN
		IF r < 0.5 THEN
			RETURN x;
		ELSIF r < 0.8 THEN
			RETURN '(' || x || diff_pick(ARRAY[' IS TRUE', ' IS NOT TRUE', ' IS FALSE',
				' IS NOT FALSE', ' IS UNKNOWN', ' IS NOT UNKNOWN', ' IS NULL']) || ')';
		ELSE
			RETURN '(' || x || diff_pick(ARRAY[' = ', ' <> ']) || diff_const(t) || ')';
		END IF;
	END IF;
	IF r < 0.45 THEN
		RETURN '(' || x || ' ' || diff_pick('{<,<=,>,>=,=,<>}') || ' ' || diff_const(t) || ')';
	ELSIF r < 0.55 THEN
		-- column against column of a comparable type
		RETURN '(' || diff_pick(ARRAY['i2 < i4', 'i4 >= i8', 'i8 <> i2', 'f4 < f8',
			'f8 >= f4', 'i4 = k', 'i2 > k', 'd < d + k', 'ts <> ts', 'f8 = f8',
			'f4 <= f4']) || ')';
	ELSIF r < 0.6 THEN
		RETURN '(' || x || diff_pick(ARRAY[' IS NULL', ' IS NOT NULL']) || ')';
	ELSIF r < 0.65 THEN
		RETURN '(' || x || diff_pick(ARRAY[' IS DISTINCT FROM ', ' IS NOT DISTINCT FROM '])
			|| CASE WHEN random() < 0.5 THEN diff_const(t) ELSE diff_expr(t) END || ')';
	ELSIF r < 0.8 THEN
		RETURN '(' || x || diff_pick(ARRAY[' BETWEEN ', ' NOT BETWEEN ', ' BETWEEN SYMMETRIC '])
			|| diff_const(t) || ' AND ' || diff_const(t) || ')';
	ELSE
		RETURN diff_in_list(x, t);
	END IF;
END
$$;

-- A conditional of type t over diff_expr's expressions and diff_pred's
-- predicates: CASE (searched, with or without ELSE, and simple),
-- COALESCE, NULLIF, GREATEST and LEAST; for a timestamp, half the time
-- date_trunc instead.
CREATE FUNCTION diff_cond(t text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	r float8 := random();
BEGIN
	IF t = 'ts' AND random() < 0.5 THEN
		RETURN '(date_trunc(' || diff_pick(ARRAY['''milliseconds''', '''second''', '''minute''',
			'''hour''', '''day''', '''week''', '''month''', '''quarter''', '''year''']) || ', '
			|| diff_expr(t) || '))';
	END IF;
	IF r < 0.3 THEN
		RETURN '(CASE WHEN ' || diff_pred(0) || ' THEN ' || diff_expr(t)
			|| CASE WHEN random() < 0.7 THEN ' ELSE ' || diff_expr(t) ELSE '' END || ' END)';
	ELSIF r < 0.4 THEN
		RETURN '(CASE ' || diff_expr(t) || ' WHEN ' || diff_const(t) || ' THEN ' || diff_expr(t)
			|| ' WHEN ' || diff_const(t) || ' THEN ' || diff_expr(t) || ' ELSE ' || diff_expr(t) || ' END)';
	ELSIF r < 0.65 THEN
		RETURN '(COALESCE(' || diff_expr(t) || ', ' || diff_expr(t)
			|| CASE WHEN random() < 0.5 THEN ', ' || diff_const(t) ELSE '' END || '))';
	ELSIF r < 0.8 OR t IN ('text', 'bpchar') THEN
		RETURN '(NULLIF(' || diff_expr(t) || ', ' || diff_const(t) || '))';
	END IF;
	RETURN '(' || diff_pick('{GREATEST,LEAST}') || '(' || diff_expr(t) || ', ' || diff_expr(t)
		|| CASE WHEN random() < 0.3 THEN ', ' || diff_const(t) ELSE '' END || '))';
END
$$;

-- An aggregate call, with an optional FILTER.
CREATE FUNCTION diff_agg() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	f text := diff_pick(ARRAY['count(*)', 'count', 'sum', 'sum', 'avg', 'avg', 'min', 'max',
		'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop',
		'bool_and', 'bool_or', 'every', 'count(DISTINCT', 'count(DISTINCT', 'other(DISTINCT']);
	t text;
	a text;
	pair bool := false;
	ordered bool := false;
	list bool := false;
	span bool := false;
	ivcol bool := false;
BEGIN
	-- (random() drawn only under the setting: the other runs keep their queries)
	IF current_setting('diff.regr', true) = 'on' THEN
		pair := random() < 0.15;
	END IF;
	IF current_setting('diff.ordered', true) IN ('on', 'all') THEN
		ordered := random() < 0.35;
	END IF;
	IF current_setting('diff.lists', true) = 'on' THEN
		list := random() < 0.35;
	END IF;
	IF current_setting('diff.spans', true) = 'on' THEN
		span := random() < 0.4;
	END IF;
	IF span THEN
		-- aggregates of a difference of two timestamps (an interval), or
		-- age() of two timestamps compared with a constant or read as a
		-- field
		t := diff_pick('{ts,ts,tz}');
		a := diff_expr(t);
		f := diff_expr(t);
		-- (or, with diff.intervals, the interval column iv: summed,
		-- counted, compared, its epoch)
		IF current_setting('diff.intervals', true) = 'on' THEN
			ivcol := random() < 0.6;
		END IF;
		IF ivcol THEN
			t := '(' || a || ' - ' || f || ')';
			a := diff_pick(ARRAY['sum(iv)', 'sum(iv)', 'avg(iv)', 'avg(iv)', 'count(iv)',
				'count(DISTINCT iv)', 'sum(extract(epoch FROM iv))', 'min(extract(epoch FROM iv))',
				'bool_or(iv > interval ''' || diff_pick('{"3 days","-1 mon 2 days","12:00","1 year"}') || ''')',
				'bool_and(iv <= ' || t || ')', 'count(iv = ' || t || ')',
				'bool_or(iv IS NULL)', 'count(DISTINCT iv)']);
		ELSIF random() < 0.3 THEN
			t := 'age(' || a || ', ' || f || ')';
			a := diff_pick('{"sum(extract(year FROM ","sum(extract(month FROM ","max(extract(day FROM ","sum(date_part(''hour'', ","sum(extract(second FROM ","min(date_part(''microseconds'', ","count(DISTINCT extract(quarter FROM ","bool_or(","bool_and("}');
			a := a || t || CASE WHEN a ~ '^bool'
				THEN diff_pick('{" > "," <= "," = "}') || 'interval '''
					|| diff_pick('{"1 year 2 mons","-3 days 04:00","30 days","1 mon"}') || ''')'
				ELSE '))' END;
		ELSE
			t := '(' || a || ' - ' || f || ')';
			a := diff_pick('{sum,sum,avg,avg,min,max,count,"count(DISTINCT ","sum(extract(epoch FROM ","percentile_cont(0.5) WITHIN GROUP (ORDER BY ","percentile_disc(0.3) WITHIN GROUP (ORDER BY ","mode() WITHIN GROUP (ORDER BY "}');
			a := a || CASE WHEN a ~ ' $' THEN '' ELSE '(' END || t
				|| CASE WHEN a ~ 'extract' THEN '))' ELSE ')' END;
		END IF;
	ELSIF list THEN
		-- string_agg in its value's order, each once or as often as it
		-- came, ASC or DESC, with a delimiter (or none)
		t := diff_expr('text');
		a := 'string_agg(' || diff_pick('{"", "DISTINCT "}') || t || ', '
			|| diff_pick(ARRAY['''''', ''', ''', '''|''', 'NULL']) || ' ORDER BY ' || t
			|| diff_pick('{"", " DESC"}') || ')';
	ELSIF ordered THEN
		-- ordered-set aggregates, ASC or DESC, of a constant fraction (NULL,
		-- or outside 0 .. 1 now and then: the final functions' error); with
		-- 'all', of strings and of arrays of fractions too
		t := diff_pick('{int2,int4,int8,float4,float8,float8,date,ts,tz,bool}'::text[]
					   || diff_numeric_types()
					   || CASE WHEN current_setting('diff.ordered', true) = 'all'
							   THEN '{text,text,text}'::text[] ELSE '{}'::text[] END);
		f := diff_pick('{percentile_cont,percentile_disc,percentile_disc,mode}');
		IF f = 'percentile_cont' THEN
			t := diff_pick('{int2,int4,int8,float4,float8,float8}'::text[] || diff_numeric_types());
		END IF;
		a := f || CASE WHEN f = 'mode' THEN '()'
			ELSE '(' || diff_pick(ARRAY['0', '0.1', '0.25', '0.5', '0.5', '0.9', '1',
				round(random()::numeric, 3)::text, 'NULL::float8', '1.5']
				|| CASE WHEN current_setting('diff.ordered', true) = 'all'
						THEN ARRAY['ARRAY[0.25, 0.5, 0.75]', 'ARRAY[0.9, NULL, 0, 1]',
								   'ARRAY[[0.1], [' || round(random()::numeric, 3)::text || ']]',
								   '''{}''::float8[]', 'ARRAY[0.5, 1.5]']
						ELSE '{}'::text[] END) || ')' END
			|| ' WITHIN GROUP (ORDER BY ' || diff_expr(t)
			|| CASE WHEN f = 'percentile_cont' THEN '::float8' ELSE '' END
			|| diff_pick('{"", "", " DESC"}') || ')';
	ELSIF pair THEN
		-- two-argument aggregates of (Y, X)
		a := diff_pick('{corr,covar_pop,covar_samp,regr_slope,regr_intercept,regr_r2,regr_count,regr_avgx,regr_avgy,regr_sxx,regr_syy,regr_sxy}')
			|| '(' || diff_expr(diff_pick('{int2,int4,int8,float4,float8,float8}'::text[] || diff_numeric_types()))
			|| ', ' || diff_expr(diff_pick('{int4,int8,float4,float8,float8}'::text[] || diff_numeric_types())) || ')';
	ELSIF f = 'count(*)' THEN
		a := f;
	ELSIF f = 'count(DISTINCT' THEN
		t := diff_pick('{int2,int4,int8,float4,float8,date,ts,tz,bool,text,text,bpchar}'::text[]
					   || diff_numeric_types());
		a := f || ' ' || diff_expr(t) || ')';
	ELSIF f = 'other(DISTINCT' THEN
		t := diff_pick('{int2,int4,int8,float4,float8}'::text[] || diff_numeric_types());
		a := diff_pick('{sum,avg,stddev}') || '(DISTINCT ' || diff_expr(t) || ')';
	ELSE
		IF f IN ('bool_and', 'bool_or', 'every') THEN
			t := 'bool';
		ELSIF f IN ('min', 'max', 'count') THEN
			t := diff_pick('{int2,int4,int8,float4,float8,date,ts,tz,bool,text}'::text[]
						   || diff_numeric_types());
			IF t = 'bool' AND f <> 'count' THEN
				t := 'int4';
			END IF;
		ELSE
			t := diff_pick('{int2,int4,int4,int8,float4,float8,float8}'::text[]
						   || diff_numeric_types());
		END IF;
		a := f || '(' || diff_expr(t) || ')';
		-- (a numeric run's own draw) min/max/count of an exact quotient,
		-- min and max shown at its row's display scale
		IF t = 'numeric' AND f IN ('min', 'max', 'count') AND random() < 0.5 THEN
			a := f || diff_pick('{"(n2 / 100)","(n4 / 8)","(n2 / -0.25)","(n4 / 1000)"}');
		END IF;
		-- (a numeric run's own draw) sum/avg of a COALESCE whose arguments
		-- may differ in scale
		IF t = 'numeric' AND f IN ('sum', 'avg') AND random() < 0.3 THEN
			a := f || '(COALESCE(' || diff_expr(t) || ', '
				|| diff_pick('{0,0.5,n0,"NULL, 1",n4}') || '))';
			-- ... or of a quotient numeric_div gives exactly, at each
			-- row's display scale
			IF random() < 0.4 THEN
				a := f || diff_pick('{"(n2 / 100)","(n4 / 8)","(n2 / -0.25)","(n4 / 1000)"}');
			END IF;
		END IF;
	END IF;
	IF random() < 0.3 THEN
		a := a || ' FILTER (WHERE ' || diff_pred(1) || ')';
	END IF;
	RETURN a;
END
$$;

-- A target-list expression over aggregates (projected natively above).
CREATE FUNCTION diff_agg_expr() RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t text := diff_pick('{int2,int4,int8,float4,float8}');
BEGIN
	RETURN diff_pick(ARRAY[
		'sum(' || diff_expr(t) || ') / nullif(count(*), 0)',
		'count(*) + 10',
		'max(' || diff_expr(t) || ') - min(' || diff_expr(t) || ')',
		'coalesce(sum(' || diff_expr(t) || '), 0)',
		'count(*) > 5',
		'42',
		'avg(' || diff_expr(t) || ') IS NULL']);
END
$$;

-- A HAVING condition over aggregates.
-- With exact_only, over integers alone: where the rows are aggregated in
-- another order than the scan's, a float sum near the constant may fall on
-- either side of it.
CREATE FUNCTION diff_having(exact_only bool) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	t text := diff_pick(CASE WHEN exact_only THEN '{int2,int4,int8}'::text[]
							 ELSE '{int2,int4,int8,float4,float8}'::text[] END);
	h text;
BEGIN
	h := diff_pick(ARRAY[
		'count(*) > ' || diff_int(0, 300),
		'sum(' || diff_expr(t) || ') > ' || diff_const(t),
		'min(' || diff_expr(t) || ') IS NOT NULL',
		'bool_or(' || diff_expr('bool') || ')',
		'NOT bool_and(' || diff_expr('bool') || ')',
		'max(d) > ' || diff_const('date'),
		'count(' || diff_expr(t) || ') < ' || diff_int(0, 300),
		'avg(' || diff_expr(t) || ') < ' || diff_const(t)]);
	IF random() < 0.2 THEN
		h := h || diff_pick(ARRAY[' AND ', ' OR ']) || 'count(*) >= ' || diff_int(0, 50);
	END IF;
	RETURN h;
END
$$;

-- One query; its output columns are named c1 .. c<ncols>.  Keys are listed
-- in GROUP BY in a shuffled order, and some are left out of the select list.
CREATE FUNCTION diff_query(parallel bool, OUT q text, OUT ncols int)
LANGUAGE plpgsql AS $$
DECLARE
	keypool text[] := ARRAY['k', 'b', 'd', 'i2', 'i4 % 7', 'i2 + 1', '(i8 / 1000000000)',
		'f4', 'f8', 'k * 2', 'ts', 'tz', 'i4 / 10000', 'k IS NULL', 'f8 > 0', '-k',
		'i2::int8 % 5', 'f4::float8 / 1000', 'i4::float8 / 3', 'k + d', 'b IS NOT FALSE',
		'i2 * 2::int2', 'f4 * 2::float4', 's', 's', 'v', 'c'] ||
		CASE WHEN current_setting('diff.numeric', true) = 'on'
			THEN '{n4,n2,n2 * 2,n0,n4 + 1,nf,n2 / 100,n4 / -8}'::text[] ELSE '{}'::text[] END;
	keys text[] := '{}';
	sel text[] := '{}';
	grp text[];
	key text;
	nk int := diff_int(0, 3)::int;
	na int := diff_int(1, 5)::int;
	gform text := '';			-- diff.grouping_sets: ROLLUP, CUBE, ...
BEGIN
	WHILE coalesce(array_length(keys, 1), 0) < nk LOOP
		key := diff_pick(keypool);
		IF NOT key = ANY (keys) THEN
			keys := keys || key;
		END IF;
	END LOOP;
	FOREACH key IN ARRAY keys LOOP
		IF random() < 0.85 THEN
			sel := sel || key;
		END IF;
	END LOOP;
	FOR i IN 1..na LOOP
		sel := sel || diff_agg();
	END LOOP;
	IF random() < 0.15 THEN
		sel := sel || diff_agg_expr();
	END IF;
	IF nk > 0 AND random() < 0.1 THEN
		sel := sel || ('(' || diff_pick(keys) || ') IS NULL');
	END IF;
	IF nk > 0 AND current_setting('diff.grouping_sets', true) = 'on' THEN
		gform := diff_pick(ARRAY['ROLLUP', 'CUBE', 'GROUPING SETS', '']);
		IF random() < 0.4 THEN
			sel := sel || ('GROUPING(' || array_to_string(keys, ', ') || ')');
		END IF;
	END IF;
	ncols := array_length(sel, 1);
	FOR i IN 1..ncols LOOP
		sel[i] := sel[i] || ' AS c' || i;
	END LOOP;
	q := 'SELECT ' || array_to_string(sel, ', ') || ' FROM ' ||
		CASE current_setting('diff.joins', true)
			WHEN 'on' THEN 'diff_jf JOIN diff_jd USING (id)'
			WHEN 'left' THEN 'diff_jf LEFT JOIN diff_jd USING (id)'
			WHEN 'once' THEN 'diff_jf JOIN diff_ju USING (id)'
			WHEN 'once_left' THEN 'diff_jf LEFT JOIN diff_ju USING (id)'
			WHEN 'text' THEN 'diff_jtf JOIN diff_jtd USING (tid)'
			ELSE 'diff_t' END;
	IF current_setting('diff.joins', true) = 'notin' THEN
		q := q || ' WHERE ' || diff_pick(ARRAY['i4 NOT IN (SELECT i4 FROM diff_ni)',
											   'i2 NOT IN (SELECT i4 FROM diff_ni)',
											   'i8 NOT IN (SELECT i4 FROM diff_ni WHERE i4 > 0)',
											   's NOT IN (SELECT s FROM diff_ni)',
											   's NOT IN (SELECT s FROM diff_ni WHERE i4 < -1000000000)']) ||
			CASE WHEN random() < 0.6 THEN ' AND (' || diff_pred(2) || ')' ELSE '' END;
	ELSIF current_setting('diff.joins', true) = 'correlated' THEN
		q := q || ' WHERE ' || diff_pick(ARRAY['i2', 'i4', 'i8', 'f8', 'i4 + 1']) || ' ' ||
			diff_pick(ARRAY['<', '>', '<=', '>=', '=', '<>']) || ' (SELECT ' ||
			diff_pick(ARRAY['avg(cr.i2)', 'sum(cr.i4)', 'min(cr.i8)', 'max(cr.f8)', 'count(*)',
							'sum(cr.i8)', 'avg(cr.i4) * 2', 'max(cr.i2) + 1']) ||
			' FROM diff_cr cr WHERE ' ||
			diff_pick(ARRAY['cr.k = diff_t.k', 'cr.k = diff_t.k AND cr.b = diff_t.b',
							'cr.i2 = diff_t.i2', 'cr.s = diff_t.s', 'diff_t.k = cr.k']) ||
			CASE WHEN random() < 0.3 THEN ' AND cr.i4 > ' || diff_const('int4')
				 WHEN random() < 0.2 THEN ' AND 1000 / cr.i2 > 1' ELSE '' END || ')' ||
			CASE WHEN random() < 0.4 THEN ' AND (' || diff_pred(2) || ')' ELSE '' END ||
			-- conjuncts of diff_t alone: the groups only of its keys that pass
			-- those that cannot fail (decorrelate.c's magic_keys)
			CASE WHEN random() < 0.5 THEN ' AND ' ||
				diff_pick(ARRAY['k < 20', 's LIKE ''1%''', 'b', 'i2 IS NOT NULL', 'k BETWEEN 3 AND 40',
								'k IN (SELECT k FROM diff_cr WHERE i4 > 0)', 'i4 > 0 AND s <> ''x''',
								'k NOT IN (SELECT k FROM diff_cr WHERE i2 > 0)', '100 / i2 > 0'])
				 ELSE '' END;
	ELSIF current_setting('diff.joins', true) = 'initplan' THEN
		q := q || ' WHERE ' || diff_pick(ARRAY['i2', 'i4', 'i8', 'f8', 'i4 + 1', 'k']) || ' ' ||
			diff_pick(ARRAY['<', '>', '<=', '>=', '=', '<>']) || ' (SELECT ' ||
			diff_pick(ARRAY['avg(cr.i2)', 'sum(cr.i4) / 1000', 'min(cr.i8)', 'max(cr.f8) / 2',
							'count(*)', 'max(cr.i2) + 1', 'min(cr.k) + 3']) ||
			' FROM diff_cr cr' ||
			CASE WHEN random() < 0.3 THEN ' WHERE cr.i4 > ' || diff_const('int4')
				 WHEN random() < 0.2 THEN ' WHERE cr.k > 1000' ELSE '' END || ')' ||
			CASE WHEN random() < 0.4 THEN ' AND (' || diff_pred(2) || ')' ELSE '' END;
	ELSIF random() < 0.6 THEN
		q := q || ' WHERE ' || diff_pred(2);
	END IF;
	IF nk > 0 THEN
		grp := keys;
		IF nk > 1 AND random() < 0.5 THEN
			-- shuffle
			FOR i IN REVERSE nk..2 LOOP
				DECLARE
					j int := diff_int(1, i)::int;
					tmp text := grp[i];
				BEGIN
					grp[i] := grp[j];
					grp[j] := tmp;
				END;
			END LOOP;
		END IF;
		q := q || ' GROUP BY ' || CASE gform
			WHEN '' THEN array_to_string(grp, ', ')
			WHEN 'GROUPING SETS' THEN 'GROUPING SETS ((' || grp[1] || '), ('
				|| array_to_string(grp, ', ') || '), (), (' || grp[nk] || '))'
			ELSE gform || ' (' || array_to_string(grp, ', ') || ')' END;
	END IF;
	IF random() < 0.25 THEN
		q := q || ' HAVING ' || diff_having(parallel OR (q LIKE '%DISTINCT%' AND nk > 0));
	END IF;
END
$$;

--
-- On the CUDA device floats are added in another order than a serial scan
-- adds them; and natively, count(DISTINCT) with GROUP BY sorts the rows by
-- the keys first (GroupAggregate), so there on any device the other
-- aggregates see the rows in another order than the scan's, and two
-- errors may be raised by different rows.  Over this table's extremes (1e300, 1e30 in float4, infinities)
-- that changes more than the last digits -- cancellation -- and whether a
-- finite overflow comes before an infinite input (an ERROR natively, an
-- infinity on the GPU).  diff_float_order tells such a difference: the rows
-- line up and differ only in float values, or one side overflowed and the
-- other holds an infinity or NaN.  These are logged, not counted; on the
-- CPU device nothing is excused.
--
CREATE FUNCTION diff_float_order(a text[], b text[], st_a text, msg_a text,
								 st_b text, msg_b text, unordered bool) RETURNS bool
LANGUAGE plpgsql AS $$
DECLARE
	flt_field text := '(-?[0-9]\.[0-9]+e[-+][0-9]+|NaN|-?Infinity|NULL|0)';
BEGIN
	IF current_setting('gpuagg.device') <> 'cuda' AND NOT unordered THEN
		RETURN false;
	END IF;
	-- two errors: which row fails first depends on the order
	IF unordered AND st_a IS NOT NULL AND st_b IS NOT NULL THEN
		RETURN msg_a <> msg_b;
	END IF;
	-- floats are shown in full there: any number with a fraction
	IF unordered AND current_setting('gpuagg.device') <> 'cuda' THEN
		flt_field := '(-?[0-9]+\.[0-9]+(e[-+][0-9]+)?|NaN|-?Infinity|NULL|0)';
	END IF;
	IF st_a IS NOT NULL AND st_b IS NOT NULL AND msg_a = msg_b THEN
		RETURN false;			-- the same error: compared as such
	END IF;
	IF st_a IS NOT NULL OR st_b IS NOT NULL THEN
		-- a float overflow depends on the order of the additions (Youngs-
		-- Cramer's Sxx above all), and the GPU raises it after the scan, so
		-- an error another row raised may come first: an overflow on one
		-- side is order, whatever the other side did
		RETURN msg_a = 'value out of range: overflow' OR
			   msg_b = 'value out of range: overflow';
	END IF;
	-- the same rows once every float value is masked (rows sorted on a
	-- float column may come in another order, so compare as multisets)
	RETURN ARRAY(SELECT regexp_replace('|' || r || '|', '\|' || flt_field || '(?=\|)', '|F', 'g')
				   FROM unnest(a) r ORDER BY 1) =
		   ARRAY(SELECT regexp_replace('|' || r || '|', '\|' || flt_field || '(?=\|)', '|F', 'g')
				   FROM unnest(b) r ORDER BY 1);
END
$$;

--
-- Run n generated queries and compare.  Both runs are serial and without
-- sorts so that the native plan (HashAgg or plain Agg over a Seq Scan)
-- evaluates rows in the order GpuAgg does, which makes the first error
-- deterministic.
--
CREATE FUNCTION diff_run(n int, seed float8, parallel bool,
	OUT queries int, OUT offloaded int, OUT errors_both int, OUT mismatches int)
LANGUAGE plpgsql AS $$
DECLARE
	g record;
	cols text;
	wrapped text;
	plan json;
	res_on text[];
	res_off text[];
	st_on text;
	st_off text;
	msg_on text;
	msg_off text;
BEGIN
	queries := 0;
	offloaded := 0;
	errors_both := 0;
	mismatches := 0;
	PERFORM setseed(seed);
	PERFORM set_config('enable_sort', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	PERFORM set_config('extra_float_digits', '-3', true);
	IF parallel THEN
		-- parallel GpuAgg wherever it can be: two workers and the leader
		PERFORM set_config('parallel_setup_cost', '0', true);
		PERFORM set_config('parallel_tuple_cost', '0', true);
		PERFORM set_config('min_parallel_table_scan_size', '0', true);
		-- and a dear scan, so that splitting it wins on this small table
		PERFORM set_config('gpuagg.tuple_cost', '10', true);
	END IF;
	FOR i IN 1..n LOOP
		g := diff_query(parallel);
		queries := queries + 1;
		SELECT string_agg('diff_norm(q.c' || j || ')', ', ' ORDER BY j)
			INTO cols FROM generate_series(1, g.ncols) j;
		wrapped := 'SELECT coalesce(array_agg(r ORDER BY r), ''{}'') FROM (SELECT concat_ws(''|'', '
			|| cols || ') AS r FROM (' || g.q || ') q) s';

		-- offloaded run
		PERFORM set_config('gpuagg.enabled', 'on', true);
		IF parallel THEN
			PERFORM set_config('max_parallel_workers_per_gather', '2', true);
			-- every other query in page form; every third fails over after
			-- its first batch (each process reads its blocks again)
			PERFORM set_config('gpuagg.page_batches', CASE WHEN i % 2 = 0 THEN 'on' ELSE 'off' END, true);
			-- of those, every other one fed (the workers pinning pages for
			-- the leader's session), the rest partial where groups are few,
			-- on either device (the default feeds all on CUDA)
			PERFORM set_config('gpuagg.fed_groups', CASE WHEN i % 4 = 0 THEN '0' ELSE '100000' END, true);
			PERFORM set_config('gpuagg.debug_fail_batch', CASE WHEN i % 3 = 0 THEN '1' ELSE '0' END, true);
		END IF;
		BEGIN
			EXECUTE 'EXPLAIN (FORMAT JSON) ' || wrapped INTO plan;
			IF plan::text LIKE '%"Custom Plan Provider": "GpuAgg"%' AND
			   (NOT parallel OR plan::text LIKE '%"Parallel Aware": true%' OR
				g.q LIKE '%DISTINCT%') THEN
				offloaded := offloaded + 1;
			ELSE
				RAISE NOTICE 'not offloaded: %', g.q;
			END IF;
		EXCEPTION WHEN OTHERS THEN
			RAISE NOTICE 'EXPLAIN failed (%): %', SQLERRM, g.q;
		END;
		res_on := NULL;
		st_on := NULL;
		msg_on := NULL;
		IF parallel AND i % 3 = 0 THEN
			-- the fail-overs' WARNINGs
			PERFORM set_config('client_min_messages', 'error', true);
		END IF;
		BEGIN
			EXECUTE wrapped INTO res_on;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st_on = RETURNED_SQLSTATE, msg_on = MESSAGE_TEXT;
		END;

		-- native run, serial
		PERFORM set_config('gpuagg.debug_fail_batch', '0', true);
		PERFORM set_config('client_min_messages', 'notice', true);
		PERFORM set_config('gpuagg.enabled', 'off', true);
		PERFORM set_config('max_parallel_workers_per_gather', '0', true);
		res_off := NULL;
		st_off := NULL;
		msg_off := NULL;
		BEGIN
			EXECUTE wrapped INTO res_off;
		EXCEPTION WHEN OTHERS THEN
			GET STACKED DIAGNOSTICS st_off = RETURNED_SQLSTATE, msg_off = MESSAGE_TEXT;
		END;

		IF (st_on IS NOT NULL OR st_off IS NOT NULL OR res_on IS DISTINCT FROM res_off)
		   AND diff_float_order(res_on, res_off, st_on, msg_on, st_off, msg_off,
								parallel OR g.q LIKE '%DISTINCT%GROUP BY%' OR
								g.q LIKE '%WITHIN GROUP%' OR g.q LIKE '% JOIN %' OR
								g.q LIKE '%string_agg(%' OR
								g.q ~ 'GROUP BY (ROLLUP|CUBE|GROUPING SETS)') THEN
			RAISE LOG E'gpuagg differential: row order: %\n  gpuagg: %\n  native: %', g.q,
				coalesce('ERROR ' || st_on || ' ' || msg_on, left(res_on::text, 2000)),
				coalesce('ERROR ' || st_off || ' ' || msg_off, left(res_off::text, 2000));
			-- (two errors another row raised first: compared too, the CUDA
			-- device raising its own after the scan)
			IF st_on IS NOT NULL AND st_off IS NOT NULL THEN
				errors_both := errors_both + 1;
			END IF;
		ELSIF st_on IS NOT NULL AND st_off IS NOT NULL THEN
			IF st_on = st_off THEN
				errors_both := errors_both + 1;
			ELSE
				mismatches := mismatches + 1;
				RAISE NOTICE E'mismatch: %\n  gpuagg: ERROR % %\n  native: ERROR % %',
					g.q, st_on, msg_on, st_off, msg_off;
			END IF;
		ELSIF st_on IS NOT NULL OR st_off IS NOT NULL THEN
			mismatches := mismatches + 1;
			RAISE NOTICE E'mismatch: %\n  gpuagg: %\n  native: %', g.q,
				coalesce('ERROR ' || st_on || ' ' || msg_on, res_on::text),
				coalesce('ERROR ' || st_off || ' ' || msg_off, res_off::text);
		ELSIF res_on IS DISTINCT FROM res_off THEN
			mismatches := mismatches + 1;
			RAISE NOTICE E'mismatch: %\n  gpuagg: %\n  native: %', g.q,
				left(res_on::text, 2000), left(res_off::text, 2000);
		END IF;
	END LOOP;
	PERFORM set_config('gpuagg.enabled', 'on', true);
END
$$;

SELECT queries, offloaded, errors_both >= 80 AS many_errors_compared, mismatches
  FROM diff_run(400, 0.42, false);

-- Parallel GpuAgg: each process aggregates its blocks, Finalize Aggregate
-- combines the partial states (count(DISTINCT) queries stay serial); half
-- of the queries in page form, half of those fed, a third failing over
-- mid-scan.  The
-- partial sums of floats add in another order and which process meets an
-- error first varies, so there float values are compared masked and two
-- errors need not be the same one; everything else exactly.
SELECT queries, offloaded, errors_both >= 40 AS many_errors_compared, mismatches
  FROM diff_run(200, 0.4242, true);

-- Conditionals (CASE, COALESCE, NULLIF, GREATEST, LEAST) and date_trunc
-- in keys, arguments, WHERE and FILTER, serial: a branch not taken must
-- raise nothing, a branch taken the native error.
SET diff.conditionals = on;
SELECT queries, offloaded, errors_both >= 50 AS many_errors_compared, mismatches
  FROM diff_run(250, 0.4343, false);
RESET diff.conditionals;

-- GROUPING SETS, ROLLUP and CUBE, and GROUPING(), serial: each set's
-- groups combined on the host from the device's finest ones (float sums
-- added in another order: compared masked, the rest exactly); with them
-- corr, covar_* and regr_* of (Y, X).
SET diff.grouping_sets = on;
SET diff.regr = on;
SELECT queries, offloaded, errors_both >= 50 AS many_errors_compared, mismatches
  FROM diff_run(200, 0.4545, false);
RESET diff.regr;
RESET diff.grouping_sets;

-- functions of one string column (lower, length, substr, ||,
-- regexp_replace, starts_with, ...) in keys, arguments, WHERE and FILTER,
-- serial: computed by the host per distinct string, column batches
SET diff.strings = on;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(150, 0.4848, false);
RESET diff.strings;

-- percentile_cont, percentile_disc and mode() WITHIN GROUP beside the
-- other aggregates, serial (the native plan sorts the rows by group, so
-- float sums add in another order: compared masked, the rest exactly)
SET diff.ordered = on;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(150, 0.4747, false);
-- ... of strings (the host selecting by the collation) and of arrays of
-- fractions too
SET diff.ordered = 'all';
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4646, false);
RESET diff.ordered;

-- string_agg in its value's order (DISTINCT or ORDER BY it) beside the
-- other aggregates, serial: the device keeps mode()'s set, the host sorts
-- it by the collation and builds the string
SET diff.lists = on;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4545, false);
RESET diff.lists;

-- aggregates of intervals that are differences of timestamps beside the
-- others, serial: the device sums their days and time apart
SET diff.spans = on;
SELECT queries, offloaded, errors_both >= 5 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4343, false);
RESET diff.spans;

-- numeric(15,2), (12,4) and (18,0) columns beside the others, serial:
-- a value or an intermediate past int64 takes the exact path, the rest
-- is the device's, display scales included.
SET diff.numeric = on;
SELECT queries, offloaded, errors_both >= 35 AS many_errors_compared, mismatches
  FROM diff_run(200, 0.4444, false);
RESET diff.numeric;

-- ... and nm, of display scales 0 to 2: offloaded where only its values
-- count or where sum and avg carry each row's display scale, native where
-- a value shows (a key, min, max)
-- (errors compared: 21 on the CPU device; fewer on CUDA, where an
-- overflow one side raises and the other holds as an infinity is excused,
-- not counted)
SET diff.numeric = on;
SET diff.mixed = on;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4141, false);
RESET diff.mixed;
RESET diff.numeric;

-- a join: diff_t's columns split between two tables matched on id, the
-- smaller one (its rows for some ids missing, for others twice) hashed by
-- the device, its repeated ids chained, and probed per row of the larger
-- (each candidate a row of the join), serial.  A native hash join
-- may return the rows in the other table's order, so floats are compared
-- masked and two different errors are order (as in parallel runs).
CREATE TABLE diff_jf AS
	SELECT row_number() OVER (ORDER BY ctid) AS id, i2, i4, i8, f4, f8, d, b, k FROM diff_t;
CREATE TABLE diff_jd AS
	SELECT id, ts, tz, s, v, c
	  FROM (SELECT row_number() OVER (ORDER BY ctid) AS id, * FROM diff_t) t, generate_series(1, 2) g
	 WHERE id % 10 <> 3 AND (g = 1 OR id % 17 = 0);
ANALYZE diff_jf, diff_jd;
SET diff.joins = on;
SELECT queries, offloaded, errors_both >= 20 AS many_errors_compared, mismatches
  FROM diff_run(150, 0.4343, false);
-- ... and a left join: the missing ids' rows with NULLs for diff_jd's columns
SET diff.joins = left;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4242, false);
-- ... and with each id once on both sides, the device probes the other
-- table's hash table (gpuagg_join.h): inner and left
CREATE TABLE diff_ju AS SELECT DISTINCT ON (id) * FROM diff_jd;
ANALYZE diff_ju;
EXPLAIN (COSTS OFF) SELECT d, count(*), max(s) FROM diff_jf LEFT JOIN diff_ju USING (id) GROUP BY d;
SET diff.joins = once;
SELECT queries, offloaded, errors_both >= 20 AS many_errors_compared, mismatches
  FROM diff_run(150, 0.4141, false);
SET diff.joins = once_left;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.4040, false);
-- ... and on text keys (the ids as text, some twice on the other side):
-- the device compares the strings' codes
CREATE TABLE diff_jtf AS SELECT id::text AS tid, i2, i4, i8, f4, f8, d, b, k FROM diff_jf;
CREATE TABLE diff_jtd AS SELECT id::text AS tid, ts, tz, s, v, c FROM diff_jd;
ANALYZE diff_jtf, diff_jtd;
EXPLAIN (COSTS OFF) SELECT d, count(*), max(s) FROM diff_jtf JOIN diff_jtd USING (tid) GROUP BY d;
SET diff.joins = text;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.3939, false);
-- ... and x NOT IN (a subquery) of diff_t: the join's last dimension, an
-- anti join with NOT IN's NULL rules (rows, none NULL: a NULL x passes
-- not; or no rows: every row passes)
CREATE TABLE diff_ni AS
	SELECT DISTINCT i4, s FROM diff_t WHERE i4 IS NOT NULL AND s IS NOT NULL AND i4 % 3 = 0;
ANALYZE diff_ni;
SET diff.joins = notin;
SELECT queries, offloaded, errors_both >= 10 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.3838, false);
DROP TABLE diff_ni;
-- ... and a correlated scalar aggregate of another table in WHERE, planned
-- as a join with its groups where decorrelate.c may (not count, a float
-- sum, int2 arithmetic, a division that can fail, ...)
CREATE TABLE diff_cr AS SELECT k, b, i2, i4, i8, f8, s FROM diff_t WHERE i4 % 5 = 0 OR i4 IS NULL;
ANALYZE diff_cr;
SET diff.joins = correlated;
SELECT queries, offloaded, errors_both >= 5 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.3737, false);
-- ... and an uncorrelated one, an InitPlan, whose value the Gather
-- computes and passes to its workers: in parallel (none of them fails:
-- a serial GpuAgg evaluates it as its scan starts, as a native parallel
-- plan's Gather does, where a native serial scan may never reach it)
SET diff.joins = initplan;
SELECT queries, offloaded, errors_both >= 5 AS many_errors_compared, mismatches
  FROM diff_run(60, 0.3636, true);
DROP TABLE diff_cr;
RESET diff.joins;
DROP TABLE diff_jf, diff_jd, diff_ju, diff_jtf, diff_jtd;

-- timestamptz in a zone with daylight saving (New York): date_trunc,
-- date_part, casts from and to timestamptz, comparisons with date and
-- timestamp, AT TIME ZONE in keys, arguments, WHERE and FILTER, serial.
-- The timestamps at the ends of the range go first, so that the device
-- answers (with them every such query takes the exact path): 294276 is
-- past the zone's table, and a local time within a day of 4714-11-24 BC
-- has no transition before it to find; the dates past the timestamp range
-- stay, and raise their errors.
DELETE FROM diff_t
 WHERE tz < '4714-11-26 00:00:00+00 BC' OR (tz > '2100-01-01' AND tz < 'infinity')
    OR ts < '4714-11-26 00:00:00 BC' OR (ts > '2100-01-01' AND ts < 'infinity');
SET TimeZone = 'America/New_York';
SET diff.zones = on;
SELECT queries, offloaded, errors_both >= 5 AS many_errors_compared, mismatches
  FROM diff_run(150, 0.4646, false);
RESET diff.zones;
RESET TimeZone;

-- an interval column (months, days and time of mixed signs, NULLs, '1
-- day' beside '24 hours' and a month beside '30 days') beside the others,
-- serial: its time, days and months summed apart, compared by
-- interval_cmp's value (with differences of timestamps too), its epoch,
-- count(DISTINCT) by interval_eq; iv holds no random() of its own
ALTER TABLE diff_t ADD COLUMN iv interval;
UPDATE diff_t SET iv = CASE
	WHEN i4 % 9 = 0 THEN interval '1 day' WHEN i4 % 9 = 1 THEN interval '24 hours'
	WHEN i4 % 9 = 2 THEN interval '1 mon' WHEN i4 % 9 = 3 THEN interval '30 days'
	ELSE make_interval(0, i2 % 25, 0, i4 % 61, 0, 0, (i8 % 100000000000) / 1000000.0) END;
ANALYZE diff_t;
SET diff.spans = on;
SET diff.intervals = on;
SELECT queries, offloaded, errors_both >= 5 AS many_errors_compared, mismatches
  FROM diff_run(100, 0.3535, false);
RESET diff.intervals;
RESET diff.spans;

DROP FUNCTION diff_run(int, float8, bool);
DROP FUNCTION diff_float_order(text[], text[], text, text, text, text, bool);
DROP FUNCTION diff_query(bool);
DROP FUNCTION diff_having(bool);
DROP FUNCTION diff_agg_expr();
DROP FUNCTION diff_agg();
DROP FUNCTION diff_cond(text);
DROP FUNCTION diff_pred(int);
DROP FUNCTION diff_in_list(text, text);
DROP FUNCTION diff_const(text);
DROP FUNCTION diff_expr(text);
DROP FUNCTION diff_numeric_expr();
DROP FUNCTION diff_numeric_types();
DROP FUNCTION diff_int(int8, int8);
DROP FUNCTION diff_pick(text[]);
DROP FUNCTION diff_norm(anyelement);
DROP TABLE diff_t;
