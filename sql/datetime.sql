--
-- datetime: date_trunc, extract, date_part and +/- interval on timestamp
-- (without time zone) and on timestamptz in the session's time zone,
-- extract and +/- interval on date, in keys,
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
-- decades, centuries and millennia as timestamp_trunc counts them (2001,
-- 1901; the 1st century BC from 100 BC); the century and the millennium
-- of 4713 BC are before the range
SELECT check_offload('SELECT date_trunc(''decade'', ts) AS t, date_trunc(''century'', ts) AS c, date_trunc(''millennium'', ts) AS m, count(*) FROM dt WHERE ts > ''4000-01-01 BC'' GROUP BY 1, 2, 3');
SELECT check_error('SELECT date_trunc(''century'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_error('SELECT date_trunc(''millennium'', ts) AS t, count(*) FROM dt GROUP BY 1');
-- the unit as timestamp_trunc reads it: any case, abbreviations
SELECT check_offload('SELECT date_trunc(''MON'', ts) AS t, date_trunc(''Qtr'', ts) AS q, count(*) FROM dt GROUP BY 1, 2');
SELECT check_offload('SELECT date_trunc(''w'', ts) AS t, date_trunc(''hours'', ts) AS h, count(*) FROM dt GROUP BY 1, 2');
-- in arguments, WHERE and FILTER
SELECT check_offload('SELECT k, min(date_trunc(''day'', ts)), max(date_trunc(''week'', ts)), count(*) FILTER (WHERE date_trunc(''year'', ts) = timestamp ''2001-01-01'') FROM dt GROUP BY k');
SELECT check_offload('SELECT k, count(*) FROM dt WHERE date_trunc(''month'', ts) >= timestamp ''2000-03-01'' AND date_trunc(''month'', ts) < timestamp ''2001-03-01'' GROUP BY k');
-- extract (numeric, at its display scales) and date_part (float8) of a
-- timestamp, and extract of a date: every field the devices compute, in
-- keys, arguments, WHERE and FILTER; an infinity's field is NULL, or
-- +-Infinity for the growing ones (numeric infinity: the exact path)
EXPLAIN (COSTS OFF) SELECT extract(year FROM ts) AS y, count(*) FROM dt GROUP BY 1;
-- (a field an infinity has not is a small integer: no exact path)
EXPLAIN (COSTS OFF) SELECT extract(month FROM ts) AS m, sum(extract(dow FROM ts)) FROM dt GROUP BY 1;
SELECT check_offload('SELECT extract(year FROM ts) AS y, extract(quarter FROM ts) AS q, count(*), sum(extract(second FROM ts)), max(extract(milliseconds FROM ts)), sum(extract(microseconds FROM ts)), sum(extract(minute FROM ts)), max(extract(hour FROM ts)) FROM dt WHERE ts > ''-infinity'' AND ts < ''infinity'' GROUP BY 1, 2');
SELECT check_offload('SELECT k, sum(extract(epoch FROM ts)), min(extract(day FROM ts)), sum(extract(month FROM ts)), min(extract(decade FROM ts)), max(extract(century FROM ts)), min(extract(millennium FROM ts)) FROM dt WHERE ts < ''294276-01-01'' AND ts > ''-infinity'' GROUP BY k');
SELECT check_offload('SELECT extract(week FROM ts) AS w, extract(isoyear FROM ts) AS iy, extract(dow FROM ts) AS dw, extract(isodow FROM ts) AS idw, count(*), sum(extract(doy FROM ts)) FROM dt WHERE extract(month FROM ts) IN (1, 12) GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT k, max(date_part(''year'', ts)), min(date_part(''epoch'', ts)), sum(date_part(''second'', ts)), max(date_part(''milliseconds'', ts)), count(date_part(''hour'', ts)), min(date_part(''isoyear'', ts)), count(*) FILTER (WHERE date_part(''dow'', ts) = 0) FROM dt GROUP BY k');
SELECT check_offload('SELECT k, count(extract(month FROM ts)), max(extract(year FROM ts)) FROM dt WHERE ts = ''infinity'' OR ts = ''-infinity'' GROUP BY k');
SELECT check_offload('SELECT k, max(extract(epoch FROM ts)) FROM dt GROUP BY k');
CREATE TABLE dd AS SELECT k, ts::date AS d FROM dt WHERE ts > '-infinity' AND ts < 'infinity';
INSERT INTO dd VALUES (1, 'infinity'), (2, '-infinity'), (3, '5874897-12-31'), (3, '4714-11-24 BC');
ANALYZE dd;
SELECT check_offload('SELECT extract(isoyear FROM d) AS iy, extract(week FROM d) AS w, count(*), sum(extract(julian FROM d)), sum(extract(epoch FROM d)), min(extract(doy FROM d)), max(extract(dow FROM d)), sum(extract(isodow FROM d)) FROM dd GROUP BY 1, 2');
SELECT check_offload('SELECT k, min(extract(year FROM d)), max(extract(decade FROM d)), min(extract(century FROM d)), max(extract(millennium FROM d)), sum(extract(day FROM d) + extract(month FROM d) + extract(quarter FROM d)) FROM dd WHERE d > ''-infinity'' AND d < ''infinity'' GROUP BY k');
SELECT check_offload('SELECT k, count(extract(doy FROM d)), count(*) FROM dd GROUP BY k');
-- a date's epoch counts from 1970 (finite dates: no exact path), in a key,
-- an argument and WHERE
SELECT check_offload('SELECT extract(epoch FROM d) AS e, count(*), max(extract(epoch FROM d) + 1) FROM dd WHERE d BETWEEN ''1969-12-30'' AND ''1970-01-03'' OR d > ''5874897-12-30'' OR d < ''4714-11-25 BC'' GROUP BY 1');
SELECT check_offload('SELECT k, min(extract(epoch FROM d)), sum(extract(epoch FROM d)), count(*) FILTER (WHERE extract(epoch FROM d) > 1000000000) FROM dd WHERE d > ''-infinity'' AND d < ''infinity'' AND extract(epoch FROM d) <> 0 GROUP BY k');

-- timestamp +/- interval and date +/- interval with a constant interval:
-- months first (the day kept or the month's last), then days, then the
-- time; infinities stay; past the range the native error
SELECT check_offload('SELECT k, min(ts + interval ''1 month''), max(ts - interval ''1 year 2 months 3 days 04:05:06.789''), count(*) FILTER (WHERE ts + interval ''-31 days'' > timestamp ''2000-01-01'') FROM dt WHERE ts < ''294276-01-01'' AND ts > ''4713-12-31 BC'' OR ts IN (''infinity'', ''-infinity'') GROUP BY k');
SELECT check_offload('SELECT date_trunc(''month'', ts - interval ''1 day'') AS m, ts + interval ''-2 months 30 days'' AS t2, count(*) FROM dt WHERE ts BETWEEN ''0044-01-01 BC'' AND ''2100-01-01'' GROUP BY 1, 2');
SELECT check_offload('SELECT k, max(d + interval ''1 month 1 day''), min(d - interval ''13 months''), max(interval ''2 hours'' + d), count(*) FILTER (WHERE d + interval ''1 week'' > ''2001-01-01'') FROM dd WHERE d < ''294276-01-01'' AND d > ''4713-12-31 BC'' OR d IN (''infinity'', ''-infinity'') GROUP BY k');
SELECT check_error('SELECT max(ts + interval ''1 year'') FROM dt');
SELECT check_error('SELECT k, min(ts - interval ''1 year'') FROM dt GROUP BY k');
SELECT check_error('SELECT max(d + interval ''1 day'') FROM dd');

-- the first days of the range: day and week are, month, quarter and year
-- before it are out of range, as natively
INSERT INTO dt VALUES (3, '4714-11-25 12:00:00 BC', NULL), (3, '4714-12-31 12:00:00 BC', NULL);
SELECT check_offload('SELECT date_trunc(''day'', ts) AS t, date_trunc(''week'', ts) AS w, count(*) FROM dt GROUP BY 1, 2');
SELECT check_error('SELECT date_trunc(''month'', ts) AS t, count(*) FROM dt GROUP BY 1');
SELECT check_error('SELECT date_trunc(''quarter'', ts) AS t, count(*) FROM dt WHERE ts < timestamp ''4714-12-01 BC'' GROUP BY 1');
SELECT check_error('SELECT k, count(*) FROM dt WHERE date_trunc(''year'', ts) < timestamp ''1000-01-01'' GROUP BY k');

-- timestamp::date: the day, infinities infinite
SELECT check_offload('SELECT ts::date AS d, count(*), max(ts::date) FROM dt GROUP BY 1');

-- timestamptz in a time zone of one UTC offset: date_trunc, extract,
-- date_part and the casts to date and timestamp in its local time; UTC, a
-- zone east of it with minutes, one west
CREATE TABLE dtz (k int4, tz timestamptz);
INSERT INTO dtz
SELECT i % 5,
	   CASE WHEN i % 89 = 0 THEN NULL
			ELSE timestamptz '1999-12-31 23:59:59.999999+00' + (i - 1500) * interval '3 days 7 hours 13 minutes 17.123457 seconds' END
  FROM generate_series(1, 3000) i;
INSERT INTO dtz VALUES (1, 'infinity'), (2, '-infinity'), (3, '0044-03-15 12:00:00+00 BC'),
	(0, '1970-01-01 00:00:00+00'), (0, '2024-02-29 23:30:00+00'), (4, '2000-01-01 03:00:00+00');
ANALYZE dtz;
-- timestamptz +/- an interval of hours, minutes and seconds: the same
-- microseconds in any zone (days and months are added in local time:
-- native); past the range the native error
SET TimeZone = 'America/New_York';
SELECT check_offload('SELECT k, max(tz + interval ''90 minutes''), min(tz - interval ''-36:00:00.5''), count(*) FILTER (WHERE tz + interval ''1 hour'' > timestamptz ''2000-01-01 00:30:00+00'') FROM dtz GROUP BY k');
SELECT check_offload('SELECT date_trunc(''day'', tz - interval ''5 hours'') AS d, count(*) FROM dtz WHERE tz - interval ''5 hours'' >= timestamptz ''1999-12-01 00:00:00-05'' GROUP BY 1');
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT k, max(tz + interval '1 day') FROM dtz GROUP BY k;
-- date_trunc of an interval: native, saying so
EXPLAIN (COSTS OFF) SELECT k, max(date_trunc('day', tz - timestamptz '2000-01-01 00:00:00+00')) FROM dtz GROUP BY k;
RESET gpuagg.log_fallback;
INSERT INTO dtz VALUES (5, '294276-12-31 23:00:00+00');
SELECT check_error('SELECT k, max(tz + interval ''1 hour'') FROM dtz GROUP BY k');
DELETE FROM dtz WHERE k = 5;
SET TimeZone = 'UTC';
EXPLAIN (COSTS OFF) SELECT date_trunc('day', tz) AS d, count(*) FROM dtz GROUP BY 1;
SELECT check_offload('SELECT date_trunc(''hour'', tz) AS h, date_trunc(''day'', tz) AS d, count(*) FROM dtz GROUP BY 1, 2');
SELECT check_offload('SELECT tz::date AS d, extract(hour FROM tz) AS h, count(*) FROM dtz GROUP BY 1, 2');
SET TimeZone = '<+0530>-05:30';
SELECT check_offload('SELECT date_trunc(''minute'', tz) AS t, date_trunc(''day'', tz) AS d, date_trunc(''week'', tz) AS w, count(*) FROM dtz GROUP BY 1, 2, 3');
SELECT check_offload('SELECT date_trunc(''month'', tz) AS m, date_trunc(''quarter'', tz) AS q, date_trunc(''year'', tz) AS y, count(*), min(tz), max(tz) FROM dtz GROUP BY 1, 2, 3');
SELECT check_offload('SELECT date_trunc(''decade'', tz) AS d, date_trunc(''century'', tz) AS c, date_trunc(''millennium'', tz) AS m, count(*) FROM dtz GROUP BY 1, 2, 3');
SELECT check_offload('SELECT extract(year FROM tz) AS y, extract(month FROM tz) AS m, extract(dow FROM tz) AS w, count(*) FROM dtz GROUP BY 1, 2, 3');
SELECT check_offload('SELECT k, sum(extract(day FROM tz)), sum(extract(hour FROM tz)), sum(extract(minute FROM tz)), sum(extract(second FROM tz)), sum(extract(doy FROM tz)), sum(extract(week FROM tz)), sum(extract(isoyear FROM tz)), sum(extract(epoch FROM tz)), sum(extract(century FROM tz)) FROM dtz WHERE tz BETWEEN ''-infinity'' AND ''infinity'' GROUP BY k');
SELECT check_offload('SELECT k, max(date_part(''hour'', tz)), min(date_part(''isodow'', tz)), sum(date_part(''epoch'', tz)), count(*) FILTER (WHERE date_part(''quarter'', tz) = 1) FROM dtz GROUP BY k');
SELECT check_offload('SELECT tz::date AS d, count(*), min(tz::timestamp), max(tz::timestamp) FROM dtz GROUP BY 1');
-- infinite values: fields that grow are infinite, the others NULL; the
-- casts keep them infinite
SELECT check_offload('SELECT k, date_trunc(''day'', tz) AS d, extract(year FROM tz) AS y, extract(hour FROM tz) AS h, tz::date AS dd, tz::timestamp AS ts, count(*) FROM dtz WHERE k IN (1, 2) AND tz IN (''infinity'', ''-infinity'') GROUP BY 1, 2, 3, 4, 5, 6');
-- timestamp::timestamptz: the zone's local time taken as an instant
SELECT check_offload('SELECT date_trunc(''hour'', ts::timestamptz) AS h, count(*), min(ts::timestamptz) FROM dt GROUP BY 1');
SET TimeZone = 'Etc/GMT+7';
SELECT check_offload('SELECT date_trunc(''day'', tz) AS d, extract(hour FROM tz) AS h, tz::date AS dd, count(*) FROM dtz GROUP BY 1, 2, 3');
-- (the last timestamp, 7 hours west, is past the range)
SELECT check_error('SELECT extract(year FROM ts::timestamptz) AS y, count(*) FROM dt GROUP BY 1');
-- out of range as natively: the start of the earliest day, west of UTC;
-- the local time of the last instant, east of it
INSERT INTO dtz VALUES (3, '4714-11-24 00:00:00+00 BC');
SELECT check_error('SELECT date_trunc(''day'', tz) AS d, count(*) FROM dtz GROUP BY 1');
DELETE FROM dtz WHERE tz < '4714-11-25 00:00:00+00 BC';
INSERT INTO dtz VALUES (4, '294276-12-31 23:59:59.999999+00');
SET TimeZone = '<+0530>-05:30';
SELECT check_error('SELECT k, max(tz::timestamp) FROM dtz GROUP BY k');
SELECT check_offload('SELECT k, max(tz::date), max(date_trunc(''year'', tz)) FROM dtz GROUP BY k');
-- a cached plan made in UTC runs in a zone with daylight saving, whose
-- table of transitions ends in the 22nd century: the row of 294276 takes the
-- exact path (PostgreSQL's plan), which answers as its native twin does
SET TimeZone = 'UTC';
SET plan_cache_mode = force_generic_plan;
-- (the session's temporary schema first: it changes the search path,
-- which would make PostgreSQL plan again)
CREATE TEMP TABLE ptz_e ();
PREPARE ptz AS SELECT date_trunc('day', tz) AS d, extract(hour FROM tz) AS h, count(*) FROM dtz GROUP BY 1, 2;
CREATE TEMP TABLE ptz_c AS EXECUTE ptz;
SET gpuagg.enabled = off;
PREPARE ptz_native AS SELECT date_trunc('day', tz) AS d, extract(hour FROM tz) AS h, count(*) FROM dtz GROUP BY 1, 2;
CREATE TEMP TABLE ptz_d AS EXECUTE ptz_native;
SET gpuagg.enabled = on;
SET TimeZone = 'Europe/Berlin';
SELECT line FROM explain_stable('EXECUTE ptz', true) line
 WHERE line ~ 'GpuAgg|Exact Path';
SELECT plan_text('EXECUTE ptz_native') LIKE '%GpuAgg%' AS twin_offloaded;
CREATE TEMP TABLE ptz_a AS EXECUTE ptz;
CREATE TEMP TABLE ptz_b AS EXECUTE ptz_native;
SELECT (SELECT count(*) FROM ptz_a) AS n,
	   NOT EXISTS (SELECT * FROM ptz_a EXCEPT ALL SELECT * FROM ptz_b) AND
	   NOT EXISTS (SELECT * FROM ptz_b EXCEPT ALL SELECT * FROM ptz_a) AS same,
	   NOT EXISTS (SELECT * FROM ptz_a EXCEPT ALL SELECT * FROM ptz_c) AS same_as_utc;
DEALLOCATE ptz;
DEALLOCATE ptz_native;
RESET plan_cache_mode;
RESET TimeZone;
DROP TABLE ptz_a, ptz_b, ptz_c, ptz_d, ptz_e;

-- daylight saving: the zone's transitions go to the device with the scan
-- constants, from the start of the range (0001-01-01 and 1000-06-15 are
-- the device's too).  Local times that a spring-forward skips or a fall-back
-- repeats (ts::timestamptz, date_trunc to a day or more) take the offset
-- DetermineTimeZoneOffset gives them; New York, London, Lord Howe (a
-- half-hour shift), and Kolkata (a history, then one offset for good)
CREATE TABLE dst (k int4, tz timestamptz, ts timestamp);
INSERT INTO dst
SELECT i % 7, timestamptz '2020-12-31 22:00:00+00' + i * interval '17 minutes 31.25 seconds',
	   timestamp '2021-01-01 00:00' + i * interval '14 minutes 59.5 seconds'
  FROM generate_series(0, 40000) i;
INSERT INTO dst VALUES (0, 'infinity', 'infinity'), (1, '-infinity', '-infinity'), (2, NULL, NULL),
	(3, '2021-03-14 06:59:59.999999+00', '2021-03-14 02:30'), (4, '2021-11-07 05:30+00', '2021-11-07 01:30'),
	(5, '2021-03-28 01:00+00', '2021-03-28 01:30'), (6, '2021-10-31 01:00+00', '2021-10-31 01:30'),
	(0, '2021-04-04 03:00+00', '2021-04-04 02:15'), (1, '2021-10-02 15:00+00', '2021-10-03 02:15'),
	(2, '1901-06-01 12:00+00', '1901-06-01 12:00'), (3, '2099-06-01 12:00+00', '2099-06-01 12:00'),
	(4, '0001-01-01 00:00+00', '0001-01-01 00:00'), (5, '1000-06-15 12:00+00', '1000-06-15 12:00');
ANALYZE dst;
-- (the device answered, not the exact path: it ran 0 times)
CREATE FUNCTION exact_runs() RETURNS text LANGUAGE sql AS $$
	SELECT current_setting('TimeZone') || ': ' || trim(line)
	  FROM explain_stable('SELECT date_trunc(''day'', tz) AS d, count(*) FROM dst GROUP BY 1', true) line
	 WHERE line ~ 'Exact Path Runs'
$$;
SET TimeZone = 'America/New_York';
SELECT line FROM explain_stable('SELECT date_trunc(''day'', tz) AS d, count(*) FROM dst GROUP BY 1', true) line
 WHERE line ~ 'GpuAgg|Exact Path';
SELECT check_offload('SELECT date_trunc(''day'', tz) AS d, date_trunc(''hour'', tz) AS h, count(*), min(tz) FROM dst GROUP BY 1, 2');
SELECT check_offload('SELECT date_trunc(''week'', tz) AS w, date_trunc(''month'', tz) AS m, extract(hour FROM tz) AS hr, extract(dow FROM tz) AS dw, count(*) FROM dst GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT ts::timestamptz AS i, tz::timestamp AS l, tz::date AS d, count(*) FROM dst WHERE k IN (3, 4, 5) GROUP BY 1, 2, 3');
SELECT check_offload('SELECT k, max(ts::timestamptz), min(date_trunc(''year'', ts::timestamptz)), sum(extract(epoch FROM ts::timestamptz)), count(DISTINCT tz::timestamp) FROM dst GROUP BY k');
SET TimeZone = 'Europe/London';
SELECT exact_runs();
SELECT check_offload('SELECT date_trunc(''day'', tz) AS d, extract(hour FROM tz) AS h, tz::date AS dd, count(*) FROM dst GROUP BY 1, 2, 3');
SELECT check_offload('SELECT k, max(ts::timestamptz), sum(extract(epoch FROM ts::timestamptz)), max(date_trunc(''month'', ts::timestamptz)) FROM dst GROUP BY k');
SET TimeZone = 'Australia/Lord_Howe';
SELECT exact_runs();
SELECT check_offload('SELECT date_trunc(''day'', tz) AS d, date_trunc(''hour'', tz) AS h, extract(minute FROM tz) AS mi, count(*) FROM dst GROUP BY 1, 2, 3');
SELECT check_offload('SELECT k, max(ts::timestamptz), sum(extract(epoch FROM ts::timestamptz)), count(DISTINCT date_trunc(''day'', ts::timestamptz)) FROM dst GROUP BY k');
SET TimeZone = 'Asia/Kolkata';
SELECT exact_runs();
SELECT check_offload('SELECT date_trunc(''day'', tz) AS d, extract(hour FROM tz) AS h, count(*), sum(extract(epoch FROM ts::timestamptz)) FROM dst GROUP BY 1, 2');
-- the UTC offset itself: timezone, timezone_hour, timezone_minute (a
-- negative half hour in St. John's, a positive one in Kolkata), NULL for
-- an infinity
SELECT check_offload('SELECT extract(timezone FROM tz) AS z, extract(timezone_hour FROM tz) AS h, extract(timezone_minute FROM tz) AS m, count(*) FROM dst GROUP BY 1, 2, 3');
SET TimeZone = 'America/St_Johns';
SELECT check_offload('SELECT extract(timezone FROM tz) AS z, date_part(''timezone_hour'', tz) AS h, date_part(''timezone_minute'', tz) AS m, count(*), sum(extract(timezone FROM tz)) FROM dst GROUP BY 1, 2, 3');
SET TimeZone = 'Asia/Kolkata';
-- past the table's window (New York's ends in about 2120; Kolkata's has
-- no end): the exact path
INSERT INTO dst VALUES (4, '2200-07-01 12:00+00', '2200-07-01 12:00');
SELECT exact_runs();
SELECT check_offload('SELECT date_trunc(''month'', tz) AS m, count(*), max(ts::timestamptz) FROM dst GROUP BY 1');
SET TimeZone = 'America/New_York';
SELECT exact_runs();
SELECT check_offload('SELECT date_trunc(''month'', tz) AS m, count(*), max(ts::timestamptz) FROM dst GROUP BY 1');
-- date::timestamptz: the instant of the date's local midnight (a
-- spring-forward at midnight: Santiago, Havana); date::timestamp
SET TimeZone = 'America/Santiago';
SELECT check_offload('SELECT k, max(ts::date::timestamptz), min((tz::date)::timestamptz), count(DISTINCT ts::date::timestamptz), max(ts::date::timestamp) FROM dst GROUP BY k');
SET TimeZone = 'America/Havana';
SELECT check_offload('SELECT ts::date::timestamptz AS m, count(*) FROM dst GROUP BY 1');
SELECT check_error('SELECT max(d::timestamptz) FROM dd');
SELECT check_error('SELECT max(d::timestamp) FROM dd');
-- (date_part of a date: of the date as a timestamp)
SELECT check_error('SELECT max(date_part(''year'', d)) FROM dd');
SELECT check_offload('SELECT k, max(date_part(''year'', d)), sum(date_part(''doy'', d)) FROM dd WHERE d < ''5874897-01-01'' GROUP BY k');
-- date and timestamp compared with timestamptz: as a timestamptz in the
-- session's zone (skipped and repeated local times included), past whose
-- range a date or timestamp sorts above every finite value and below
-- infinity
SET TimeZone = 'America/New_York';
SELECT check_offload('SELECT k, count(*) FILTER (WHERE tz >= ts), count(*) FILTER (WHERE tz < ts::date), count(*) FILTER (WHERE ts::date <= tz), count(*) FILTER (WHERE tz = ts), count(*) FILTER (WHERE ts <> tz) FROM dst GROUP BY k');
SELECT check_offload('SELECT count(*), min(tz) FROM dst WHERE tz >= current_date - 3650 OR tz < date ''2021-03-14'' OR tz BETWEEN timestamp ''2021-11-07 01:30'' AND date ''2021-11-08''');
SET TimeZone = 'UTC';
SELECT check_offload('SELECT k, count(*) FILTER (WHERE d < timestamptz ''infinity''), count(*) FILTER (WHERE d > timestamptz ''294276-12-31 23:00:00+00''), count(*) FILTER (WHERE d >= timestamptz ''-infinity''), count(*) FILTER (WHERE d <= timestamptz ''4714-11-24 01:00:00+00 BC'') FROM dd GROUP BY k');
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dst WHERE tz AT TIME ZONE 'Asia/Tokyo' > tz::date;
RESET gpuagg.log_fallback;
-- AT TIME ZONE a constant zone: a name (its transitions go to the device
-- as the session's would), an abbreviation of one offset
DELETE FROM dst WHERE tz > '2150-01-01' AND tz < 'infinity';
SET TimeZone = 'UTC';
SELECT check_offload('SELECT date_trunc(''day'', tz AT TIME ZONE ''America/New_York'') AS d, count(*), min(tz AT TIME ZONE ''America/New_York'') FROM dst GROUP BY 1');
SELECT check_offload('SELECT k, max(ts AT TIME ZONE ''America/New_York''), min(ts AT TIME ZONE ''America/New_York''), sum(extract(epoch FROM ts AT TIME ZONE ''America/New_York'')) FROM dst GROUP BY k');
SELECT check_offload('SELECT extract(hour FROM tz AT TIME ZONE ''EST'') AS h, count(*), max(ts AT TIME ZONE ''est'') FROM dst GROUP BY 1');
SET TimeZone = 'Europe/London';
SELECT check_offload('SELECT k, max(ts AT TIME ZONE ''Australia/Lord_Howe''), sum(extract(epoch FROM ts AT TIME ZONE ''Australia/Lord_Howe'')) FROM dst GROUP BY k');
SELECT line FROM explain_stable('SELECT date_trunc(''day'', tz AT TIME ZONE ''Asia/Tokyo'') AS d, count(*) FROM dst GROUP BY 1', true) line
 WHERE line ~ 'Exact Path Runs';
-- out of range as natively
SELECT check_error('SELECT k, max(tz AT TIME ZONE ''JST'') FROM dtz GROUP BY k');
-- two zones in one query, a zone not a constant, no such zone: native
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT date_trunc('day', tz) AS d, max(tz AT TIME ZONE 'Asia/Tokyo') FROM dst GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT k, max(tz AT TIME ZONE (CASE WHEN k = 1 THEN 'UTC' ELSE 'EST' END)) FROM dst GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, max(tz AT TIME ZONE 'Mars/Olympus') FROM dst GROUP BY k;
RESET gpuagg.log_fallback;
RESET TimeZone;
DROP FUNCTION exact_runs();
DROP TABLE dst;

-- intervals that are differences of timestamps (days and time of day,
-- never months): min, max, sum, avg, count and count(DISTINCT) of them,
-- extract(epoch FROM them), in arguments, FILTER and HAVING
CREATE TABLE dspan AS
SELECT k, ts, ts + (k * 37 - 100) * interval '5 hours 3.25 seconds' + (i % 13) * interval '1 day' AS te,
	   tz, tz - (k * 31 + i % 5) * interval '7 hours' AS tz0
  FROM (SELECT row_number() OVER () AS i, * FROM dt WHERE ts > '-infinity' AND ts < 'infinity' AND tz IS NOT NULL) s;
INSERT INTO dspan VALUES (1, '2000-01-01', NULL, NULL, '2000-01-01'), (2, NULL, '2000-01-01', '2000-01-01', NULL);
ANALYZE dspan;
EXPLAIN (COSTS OFF) SELECT k, avg(te - ts), sum(te - ts) FROM dspan GROUP BY k;
SELECT check_offload('SELECT k, min(te - ts), max(te - ts), sum(te - ts), avg(te - ts), count(te - ts), count(DISTINCT te - ts) FROM dspan GROUP BY k');
SELECT check_offload('SELECT k, sum(tz - tz0) FILTER (WHERE k > 2), avg(tz0 - tz), max(extract(epoch FROM te - ts)), sum(extract(epoch FROM tz - tz0)) FROM dspan GROUP BY k');
SELECT check_offload('SELECT k, max(timestamp ''2030-01-01'' - ts), avg(now() - tz) > interval ''1 day'' FROM dspan GROUP BY k HAVING max(timestamp ''2030-01-01'' - ts) > interval ''10000 days''');
SELECT check_offload('SELECT avg(te - ts), sum(te - ts), max(te - ts), count(te - ts) FROM dspan WHERE k > 100');
-- ordered-set aggregates of them: the median duration (interval_lerp
-- between two rows, as percentile_cont_interval_final), percentile_disc,
-- mode, arrays of fractions, DESC
SELECT check_offload('SELECT k, percentile_cont(0.5) WITHIN GROUP (ORDER BY te - ts), percentile_cont(0.9) WITHIN GROUP (ORDER BY tz - tz0 DESC), percentile_disc(0.25) WITHIN GROUP (ORDER BY te - ts), mode() WITHIN GROUP (ORDER BY tz - tz0) FROM dspan GROUP BY k');
SELECT check_offload('SELECT k, percentile_cont(ARRAY[0, 0.33, NULL, 1]) WITHIN GROUP (ORDER BY te - ts), percentile_disc(ARRAY[0.5, 0.75]) WITHIN GROUP (ORDER BY tz0 - tz) FROM dspan GROUP BY k');
SELECT check_offload('SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY te - ts) FROM dspan WHERE k > 100');
SELECT check_offload('SELECT k, sum(te - ts), avg(te - ts) FILTER (WHERE k % 2 = 0) FROM dspan GROUP BY ROLLUP (k)');
-- compared with each other or with a constant interval (by interval_cmp's
-- value: a month as 30 days)
SELECT check_offload('SELECT k, count(*), avg(te - ts) FROM dspan WHERE te - ts > interval ''3 days 12:00'' GROUP BY k');
SELECT check_offload('SELECT k, count(*) FILTER (WHERE interval ''1 mon'' <= tz - tz0), count(*) FILTER (WHERE te - ts = tz - tz0), count(*) FILTER (WHERE te - ts <> interval ''-4 days -04:00:06.5''), count(*) FILTER (WHERE tz - tz0 < NULL::interval) FROM dspan GROUP BY k');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SELECT check_parallel('SELECT k, sum(te - ts), avg(tz - tz0), min(te - ts) FROM dspan GROUP BY k');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpuagg.tuple_cost;
-- an infinity: timestamp_mi's error, as natively
SELECT check_error('SELECT k, sum(ts - timestamp ''2000-01-01'') FROM dt GROUP BY k');
SELECT check_error('SELECT k, max(extract(epoch FROM timestamp ''2000-01-01'' - ts)) FROM dt GROUP BY k');
-- the ends of the range: a difference past int64 wraps as natively (in
-- PostgreSQL 15); a sum past the interval's days raises interval_pl's
-- error; where a sum's absolute values would pass them, its running sum
-- natively may, in some order of the rows: the exact path answers
CREATE TABLE dwide (k int, a timestamp, b timestamp);
INSERT INTO dwide SELECT 0, '294276-12-31 23:59:59', '4713-01-01 00:00:00 BC' FROM generate_series(1, 3);
INSERT INTO dwide SELECT 1, '200000-01-01', '0001-01-01' FROM generate_series(1, 30);
INSERT INTO dwide SELECT 2, CASE WHEN i % 2 = 0 THEN '200000-01-01'::timestamp ELSE '0001-01-01' END,
	   CASE WHEN i % 2 = 0 THEN '0001-01-01'::timestamp ELSE '200000-01-01' END FROM generate_series(1, 61) i;
INSERT INTO dwide SELECT 3, CASE WHEN i <= 30 THEN '200000-01-01'::timestamp ELSE '0001-01-01' END,
	   CASE WHEN i <= 30 THEN '0001-01-01'::timestamp ELSE '200000-01-01' END FROM generate_series(1, 61) i;
ANALYZE dwide;
SELECT check_offload('SELECT k, max(a - b), min(a - b), count(DISTINCT a - b), percentile_cont(0.3) WITHIN GROUP (ORDER BY a - b) FROM dwide GROUP BY k');
SELECT check_offload('SELECT sum(a - b), avg(a - b) FROM dwide WHERE k = 0');
SELECT check_error('SELECT k, sum(a - b) FROM dwide GROUP BY k');
SELECT check_offload('SELECT sum(a - b), avg(a - b) FROM dwide WHERE k = 2');
SELECT line FROM explain_stable('SELECT sum(a - b), avg(a - b) FROM dwide WHERE k = 2', true) line
 WHERE line ~ 'Exact Path';
SELECT check_error('SELECT sum(a - b) FROM dwide WHERE k = 3');
-- ... and where a row raises another error after the sum passed the
-- range: natively the sum's, which the exact path raises
INSERT INTO dwide VALUES (3, 'infinity', '2000-01-01');
SELECT check_error('SELECT sum(a - b) FROM dwide WHERE k = 3');
DELETE FROM dwide WHERE a = 'infinity';
-- not a device Top-N, which would leave out a group whose sum passes it
INSERT INTO dwide SELECT 10 + i, '2000-01-02', '2000-01-01' FROM generate_series(1, 5000) i;
SELECT check_error('SELECT k, count(*), sum(a - b) FROM dwide GROUP BY k ORDER BY count(*), k LIMIT 1');
-- an epoch cast to a float: past 2^53 microseconds (285 years), the
-- exact path, as for a numeric column
SELECT check_offload('SELECT k, sum(extract(epoch FROM a - b)::float8), max(extract(epoch FROM a - b)::real) FROM dwide WHERE k < 10 GROUP BY k');
-- age(): years, months and days through the calendar (timestamp_age,
-- timestamptz_age in the session's zone), compared with a constant (by
-- interval_cmp's value) or read as extract's and date_part's fields
SELECT check_offload('SELECT k, count(*) FILTER (WHERE age(te, ts) > interval ''1 mon 3 days''), count(*) FILTER (WHERE age(tz0, tz) <= interval ''-10 days 5 hours''), count(*) FILTER (WHERE interval ''1 year'' < age(ts, te)), count(*) FILTER (WHERE age(te, ts) = interval ''30 days'') FROM dspan GROUP BY k');
SELECT check_offload('SELECT extract(year FROM age(timestamp ''2030-01-31'', ts)) AS y, extract(month FROM age(timestamp ''2030-01-31'', ts)) AS m, extract(day FROM age(ts, timestamp ''2030-03-31 12:00'')) AS d, count(*) FROM dt WHERE ts > ''-infinity'' GROUP BY 1, 2, 3');
SELECT check_offload('SELECT k, sum(extract(hour FROM age(te, ts))), sum(extract(minute FROM age(ts, te))), sum(extract(second FROM age(te, ts))), sum(extract(milliseconds FROM age(ts, te))), sum(extract(microseconds FROM age(te, ts))), max(date_part(''second'', age(te, ts))), min(date_part(''millisecond'', age(ts, te))) FROM dspan GROUP BY k');
SELECT check_offload('SELECT date_part(''quarter'', age(ts, timestamp ''1999-05-31'')) AS q, extract(decade FROM age(ts, timestamp ''2000-01-01'')) AS de, extract(century FROM age(timestamp ''2000-01-01'', ts)) AS c, date_part(''millennium'', age(ts, timestamp ''0001-01-01'')) AS mi, count(*) FROM dt WHERE ts > ''-infinity'' GROUP BY 1, 2, 3, 4');
-- timestamptz in a zone with summer time, whose offsets age() ignores;
-- age(t) is age(current_date, t)
SET TimeZone = 'America/Santiago';
SELECT check_offload('SELECT extract(year FROM age(tz, tz0)) AS y, extract(month FROM age(tz, tz0)) AS m, extract(day FROM age(tz0, tz)) AS d, extract(hour FROM age(tz, tz0)) AS h, count(*), count(*) FILTER (WHERE age(tz0) > interval ''20 years'') FROM dspan GROUP BY 1, 2, 3, 4');
RESET TimeZone;
-- +infinity has fields (in the year 294277) where -infinity raises
-- timestamp_age's error; the ends of the range; an age past int64's
-- microseconds compared
SELECT check_offload('SELECT k, count(*) FILTER (WHERE age(ts, timestamp ''2000-01-01'') > interval ''290000 years''), max(extract(year FROM age(ts, timestamp ''2000-01-01''))), min(extract(day FROM age(timestamp ''2000-01-01'', ts))) FROM dt WHERE ts > ''-infinity'' GROUP BY k');
SELECT check_error('SELECT k, count(*) FILTER (WHERE age(ts, timestamp ''2000-01-01'') > interval ''1 day'') FROM dt GROUP BY k');
SELECT check_offload('SELECT k, count(*) FILTER (WHERE age(a, b) > interval ''290000 years''), count(*) FILTER (WHERE age(b, a) < interval ''-290000 years''), max(extract(year FROM age(a, b))) FROM dwide GROUP BY k');
-- compared with another interval, its epoch, age() aggregated: native
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dspan WHERE age(te, ts) > age(tz, tz0);
EXPLAIN (COSTS OFF) SELECT sum(extract(epoch FROM age(te, ts))) FROM dspan;
EXPLAIN (COSTS OFF) SELECT max(age(te, ts)) FROM dspan;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dspan WHERE age(te, ts) < interval '106751991 days 04:00:54.775807';
RESET gpuagg.log_fallback;
-- (a difference of timestamps is compared with that constant, its value exact)
SELECT check_offload('SELECT count(*) FROM dspan WHERE te - ts < interval ''106751991 days 04:00:54.775807''');
SET gpuagg.log_fallback = on;
RESET gpuagg.log_fallback;
DROP TABLE dspan, dwide;

-- interval columns: their time, days and months read where they lie
-- (page batches) or from the row: sum and avg (interval_pl's parts each
-- summed apart), count, compared with constants and each other (by
-- interval_cmp's value: a month as 30 days), extract(epoch FROM ...) (a
-- year of months 365.25 days), in arguments, WHERE, FILTER and HAVING;
-- '1 day' and '24 hours' compare equal and sum apart
CREATE DOMAIN duration AS interval;
CREATE TABLE div (k int, d interval, e duration);
INSERT INTO div
SELECT i % 5,
	   CASE WHEN i % 53 = 0 THEN NULL
			ELSE make_interval(0, i % 15 - 4, 0, i % 40 - 9, i % 30, i % 60, (i % 997) * 0.001001) END,
	   make_interval(0, 0, 0, i % 3, i % 50 - 20)
  FROM generate_series(1, 4000) i;
INSERT INTO div VALUES (0, '1 day', '24 hours'), (1, '1 mon', '30 days'), (2, '-1 mon 1 day', '-29 days'),
	(3, NULL, NULL), (4, '1 year -1 mon', '330 days');
ANALYZE div;
EXPLAIN (COSTS OFF) SELECT k, sum(d), avg(e) FROM div GROUP BY k;
SELECT check_offload('SELECT k, sum(d), avg(d), count(d), sum(e), avg(e) FROM div GROUP BY k');
SELECT line FROM explain_stable('SELECT k, sum(d), avg(d), count(d), sum(e), avg(e) FROM div GROUP BY k', true) line
 WHERE line ~ 'Exact Path Runs|Page Batches';
SELECT check_offload('SELECT k, sum(d) FILTER (WHERE d > interval ''10 days''), count(*) FILTER (WHERE d = e), count(*) FILTER (WHERE d <= e), sum(extract(epoch FROM d)), max(extract(epoch FROM e)) FROM div GROUP BY k');
SELECT check_offload('SELECT k, count(*), avg(d) FROM div WHERE d BETWEEN interval ''-2 mons'' AND interval ''1 mon 5 days'' AND e <> interval ''1 day'' GROUP BY k HAVING sum(e) > interval ''1 hour''');
SELECT check_offload('SELECT extract(epoch FROM d) AS s, count(*) FROM div WHERE k = 4 GROUP BY 1');
SELECT check_offload('SELECT k, count(*) FILTER (WHERE d > te - ts), sum(d) FILTER (WHERE d < NULL::interval) FROM div, (SELECT timestamp ''2000-01-01'' AS ts, timestamp ''2000-01-11'' AS te) c GROUP BY k');
-- count(DISTINCT ...) by interval_eq: '1 day' and '24 hours' once
SELECT check_offload('SELECT k, count(DISTINCT d), count(DISTINCT e), count(DISTINCT d) FILTER (WHERE d > e) FROM div GROUP BY k');
SELECT check_offload('SELECT count(DISTINCT d), count(DISTINCT e) FROM div WHERE k < 3 AND (d = interval ''1 day'' OR e = interval ''1 day'')');
SELECT check_offload('SELECT sum(d), avg(e) FROM div WHERE k > 100');
SELECT check_offload('SELECT sum(d), avg(e), count(*) FROM div');
CREATE TABLE divw (k int, d interval);
INSERT INTO divw SELECT 0, interval '2000000000 mons' FROM generate_series(1, 2);
INSERT INTO divw SELECT 1, CASE WHEN i % 2 = 0 THEN interval '-2000000000 mons 2000000000 days' ELSE interval '2000000000 mons -2000000000 days' END FROM generate_series(1, 3) i;
INSERT INTO divw VALUES (2, '178000000 years'), (2, '-178000000 years 1 day'), (2, '1 day');
INSERT INTO divw VALUES (3, interval '-2562047788 hours' - interval '54.775808 sec'), (3, '1 hour');
ANALYZE divw;
-- a default in rows written before the column (the host reads them)
ALTER TABLE div ADD COLUMN f interval DEFAULT '1 day 02:00';
INSERT INTO div VALUES (1, '1 hour', '1 hour', '3 mons');
SELECT check_offload('SELECT k, sum(f), count(*) FILTER (WHERE f > interval ''1 day'') FROM div GROUP BY k');
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.tuple_cost = 10;
SELECT check_parallel('SELECT k, sum(d), avg(e), count(*) FILTER (WHERE d > e) FROM div GROUP BY k');
RESET max_parallel_workers_per_gather;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET gpuagg.tuple_cost;
-- IS NULL of it (of any type: its NULL bit alone)
SELECT check_offload('SELECT k, count(*) FILTER (WHERE d IS NULL), count(*) FILTER (WHERE e IS NOT NULL) FROM div WHERE d IS NOT NULL OR k = 3 GROUP BY k');
-- native, saying why: a key, min/max, DISTINCT, a joined table's column,
-- an expression of intervals
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT k, sum(-d) FROM div GROUP BY k;
EXPLAIN (COSTS OFF) SELECT d, count(*) FROM div GROUP BY d;
EXPLAIN (COSTS OFF) SELECT k, max(d) FROM div GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(DISTINCT d) FROM div GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(divw.d) FROM div JOIN divw USING (k) GROUP BY k;
RESET gpuagg.log_fallback;
-- the ends of the range: a sum of months past int32 raises interval_pl's
-- error; where the absolute values' sums pass the range, or a value's
-- span or epoch passes int64 (past 292000 years: 178000000 years), the
-- exact path answers
SELECT check_error('SELECT sum(d) FROM divw WHERE k = 0');
SELECT check_offload('SELECT sum(d), avg(d) FROM divw WHERE k = 1');
SELECT check_offload('SELECT sum(d), avg(d) FROM divw WHERE k = 3');
SELECT line FROM explain_stable('SELECT sum(d), avg(d) FROM divw WHERE k = 1', true) line
 WHERE line ~ 'Exact Path';
SELECT check_offload('SELECT k, count(*) FILTER (WHERE d > interval ''1 year''), sum(extract(epoch FROM d)) FROM divw WHERE k > 0 GROUP BY k');
SELECT line FROM explain_stable('SELECT k, count(*) FILTER (WHERE d > interval ''1 year'') FROM divw WHERE k > 0 GROUP BY k', true) line
 WHERE line ~ 'Exact Path';
DROP TABLE div, divw;
DROP DOMAIN duration;

-- what stays native says so
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT date_trunc('fortnight', ts) AS t, count(*) FROM dt GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT k, sum(ts - ts + interval '1 day') FROM dt GROUP BY k;
EXPLAIN (COSTS OFF) SELECT k, sum(DISTINCT ts - timestamp '2000-01-01') FROM dt GROUP BY k;
EXPLAIN (COSTS OFF) SELECT count(*) FROM dt WHERE ts - timestamp '2000-01-01' < interval '300000 years';
SELECT sum(extract(julian FROM ts)) FROM dt WHERE ts < 'infinity';
SELECT count(*) FROM dd WHERE extract(hour FROM d) = 0;
SELECT count(extract(timezone FROM ts)) FROM dt;
RESET gpuagg.log_fallback;
DROP TABLE dd;

DROP TABLE dt, dtz;
