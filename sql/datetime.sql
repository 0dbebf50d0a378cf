--
-- datetime: date_trunc on timestamp (without time zone) in keys,
-- arguments, WHERE and FILTER, every unit the devices compute, over values
-- before 2000, BC, at the ends of the range and infinite; compared with
-- native
--
SET gpuagg.force_offload = on;

CREATE TABLE dt (k int4, ts timestamp, tz timestamptz);
INSERT INTO dt
SELECT i % 7,
	   CASE WHEN i % 97 = 0 THEN NULL
			ELSE timestamp '1999-12-31 23:59:59.999999' + (i - 1500) * interval '3 days 7 hours 13 minutes 17.123457 seconds' END,
	   timestamptz '2024-03-01 00:00:00+00' + i * interval '1 hour'
  FROM generate_series(1, 3000) i;
INSERT INTO dt VALUES
	(1, 'infinity', NULL), (2, '-infinity', NULL),
	(3, '0044-03-15 12:00:00 BC', NULL), (3, '0001-01-01 00:00:00 BC', NULL),
	(4, '0001-12-31 23:59:59.5 BC', NULL), (4, '0001-01-01 00:00:00', NULL),
	(5, '1900-02-28 23:59:59.999999', NULL), (5, '2000-02-29 12:34:56.789', NULL),
	(6, '294276-12-31 23:59:59.999999', NULL), (6, '4713-01-15 12:00:00 BC', NULL),
	(0, '1970-01-01 00:00:00', NULL), (0, '1969-12-31 23:59:59.999999', NULL);
ANALYZE dt;

EXPLAIN (COSTS OFF) SELECT date_trunc('month', ts) AS m, count(*) FROM dt GROUP BY 1;
SELECT check_offload('SELECT date_trunc(''microseconds'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''milliseconds'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''second'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''minute'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''hour'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''day'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''week'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''month'', ts) AS t, count(*), min(ts) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''quarter'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_offload('SELECT date_trunc(''year'', ts) AS t, count(*), max(ts) FROM dt GROUP BY 1');
-- the unit as timestamp_trunc reads it: any case, abbreviations
SELECT check_offload('SELECT date_trunc(''MON'', ts) AS t, date_trunc(''Qtr'', ts) AS q, count(*) FROM dt GROUP BY 1, 2');
SELECT check_offload('SELECT date_trunc(''w'', ts) AS t, date_trunc(''hours'', ts) AS h, count(*) FROM dt GROUP BY 1, 2');
-- in arguments, WHERE and FILTER
SELECT check_offload('SELECT k, min(date_trunc(''day'', ts)), max(date_trunc(''week'', ts)), count(*) FILTER (WHERE date_trunc(''year'', ts) = timestamp ''2001-01-01'') FROM dt GROUP BY k');
SELECT check_offload('SELECT k, count(*) FROM dt WHERE date_trunc(''month'', ts) >= timestamp ''2000-03-01'' AND date_trunc(''month'', ts) < timestamp ''2001-03-01'' GROUP BY k');
-- the first days of the range: day and week are, month, quarter and year
-- before it are out of range, as natively
INSERT INTO dt VALUES (3, '4714-11-25 12:00:00 BC', NULL), (3, '4714-12-31 12:00:00 BC', NULL);
SELECT check_offload('SELECT date_trunc(''day'', ts) AS t, date_trunc(''week'', ts) AS w, count(*) FROM dt GROUP BY 1, 2');
SELECT check_error('SELECT date_trunc(''month'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_error('SELECT date_trunc(''quarter'', ts) AS t, count(*) FROM dt WHERE ts < timestamp ''4714-12-01 BC'' GROUP BY 1');
SELECT check_error('SELECT k, count(*) FROM dt WHERE date_trunc(''year'', ts) < timestamp ''1000-01-01'' GROUP BY k');

-- what stays native says so
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT date_trunc('decade', ts) AS t, count(*) FROM dt GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT date_trunc('day', tz) AS t, count(*) FROM dt GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT date_trunc('fortnight', ts) AS t, count(*) FROM dt GROUP BY 1;
RESET gpuagg.log_fallback;

DROP TABLE dt;
