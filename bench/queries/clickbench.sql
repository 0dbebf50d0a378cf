-- ClickBench-style queries over hits (synthetic data from bench/gen).  The
-- names are ClickBench's query numbers (Q2 is the second line of its
-- queries.sql).  Where ClickBench orders by a count and LIMITs, a
-- tie-breaker on the group key is appended so that every engine returns the
-- same rows (synthetic data has many ties); that is the only change, apart
-- from dates adapted to the generator's range.  bench/gen/load.sh creates
-- hits with quoted CamelCase column names ("UserID"), so they are quoted here
-- (ClickBench's own PostgreSQL schema folds them to lower case).
-- Each block: a "-- name:" line, optional "-- note:" lines, one statement.

-- name: Q2
SELECT COUNT(*) FROM hits WHERE "AdvEngineID" <> 0;

-- name: Q3
SELECT SUM("AdvEngineID"), COUNT(*), AVG("ResolutionWidth") FROM hits;

-- name: Q5
-- note: exact COUNT(DISTINCT) over int8
SELECT COUNT(DISTINCT "UserID") FROM hits;

-- name: Q6
-- note: COUNT(DISTINCT) over text
SELECT COUNT(DISTINCT "SearchPhrase") FROM hits;

-- name: Q8
SELECT "AdvEngineID", COUNT(*) FROM hits WHERE "AdvEngineID" <> 0 GROUP BY "AdvEngineID" ORDER BY COUNT(*) DESC;

-- name: Q9
-- note: tie-breaker RegionID added
SELECT "RegionID", COUNT(DISTINCT "UserID") AS u FROM hits GROUP BY "RegionID" ORDER BY u DESC, "RegionID" LIMIT 10;

-- name: Q13
-- note: text key; tie-breaker SearchPhrase added
SELECT "SearchPhrase", COUNT(*) AS c FROM hits WHERE "SearchPhrase" <> '' GROUP BY "SearchPhrase" ORDER BY c DESC, "SearchPhrase" LIMIT 10;

-- name: Q16
-- note: tie-breaker UserID added
SELECT "UserID", COUNT(*) FROM hits GROUP BY "UserID" ORDER BY COUNT(*) DESC, "UserID" LIMIT 10;

-- name: Q17
-- note: text key; tie-breaker UserID, SearchPhrase added
SELECT "UserID", "SearchPhrase", COUNT(*) FROM hits GROUP BY "UserID", "SearchPhrase" ORDER BY COUNT(*) DESC, "UserID", "SearchPhrase" LIMIT 10;

-- name: Q19
-- note: extract(minute) key; tie-breaker UserID, m, SearchPhrase added
SELECT "UserID", extract(minute FROM "EventTime") AS m, "SearchPhrase", COUNT(*) FROM hits GROUP BY "UserID", m, "SearchPhrase" ORDER BY COUNT(*) DESC, "UserID", m, "SearchPhrase" LIMIT 10;

-- name: Q21
-- note: LIKE of a pattern without `_': the device matches it on the pages
SELECT COUNT(*) FROM hits WHERE "URL" LIKE '%google%';

-- name: Q22
-- note: LIKE matched by the device on the pages, URL coded only in the rows the WHERE keeps; min of a string under the database's collation (the host picks it from the device's distinct sets); tie-breaker SearchPhrase added
SELECT "SearchPhrase", MIN("URL"), COUNT(*) AS c FROM hits WHERE "URL" LIKE '%google%' AND "SearchPhrase" <> '' GROUP BY "SearchPhrase" ORDER BY c DESC, "SearchPhrase" LIMIT 10;

-- name: Q31
-- note: text filter; tie-breaker SearchEngineID, ClientIP added
SELECT "SearchEngineID", "ClientIP", COUNT(*) AS c, SUM("IsRefresh"), AVG("ResolutionWidth") FROM hits WHERE "SearchPhrase" <> '' GROUP BY "SearchEngineID", "ClientIP" ORDER BY c DESC, "SearchEngineID", "ClientIP" LIMIT 10;

-- name: Q33
-- note: about one group per row; tie-breaker WatchID, ClientIP added
SELECT "WatchID", "ClientIP", COUNT(*) AS c, SUM("IsRefresh"), AVG("ResolutionWidth") FROM hits GROUP BY "WatchID", "ClientIP" ORDER BY c DESC, "WatchID", "ClientIP" LIMIT 10;

-- name: Q43
-- note: date_trunc key
SELECT DATE_TRUNC('minute', "EventTime") AS M, COUNT(*) AS PageViews FROM hits WHERE "CounterID" = 62 AND "EventDate" >= '2013-07-14' AND "EventDate" <= '2013-07-15' AND "IsRefresh" = 0 GROUP BY DATE_TRUNC('minute', "EventTime") ORDER BY DATE_TRUNC('minute', "EventTime") LIMIT 10 OFFSET 1000;

-- name: Q30
-- note: 90 aggregates (ClickBench's Q29 numbered from 0); aliases added (bench/run stores the answer in a table)
SELECT SUM("ResolutionWidth") AS s0, SUM("ResolutionWidth" + 1) AS s1, SUM("ResolutionWidth" + 2) AS s2, SUM("ResolutionWidth" + 3) AS s3, SUM("ResolutionWidth" + 4) AS s4, SUM("ResolutionWidth" + 5) AS s5, SUM("ResolutionWidth" + 6) AS s6, SUM("ResolutionWidth" + 7) AS s7, SUM("ResolutionWidth" + 8) AS s8, SUM("ResolutionWidth" + 9) AS s9, SUM("ResolutionWidth" + 10) AS s10, SUM("ResolutionWidth" + 11) AS s11, SUM("ResolutionWidth" + 12) AS s12, SUM("ResolutionWidth" + 13) AS s13, SUM("ResolutionWidth" + 14) AS s14, SUM("ResolutionWidth" + 15) AS s15, SUM("ResolutionWidth" + 16) AS s16, SUM("ResolutionWidth" + 17) AS s17, SUM("ResolutionWidth" + 18) AS s18, SUM("ResolutionWidth" + 19) AS s19, SUM("ResolutionWidth" + 20) AS s20, SUM("ResolutionWidth" + 21) AS s21, SUM("ResolutionWidth" + 22) AS s22, SUM("ResolutionWidth" + 23) AS s23, SUM("ResolutionWidth" + 24) AS s24, SUM("ResolutionWidth" + 25) AS s25, SUM("ResolutionWidth" + 26) AS s26, SUM("ResolutionWidth" + 27) AS s27, SUM("ResolutionWidth" + 28) AS s28, SUM("ResolutionWidth" + 29) AS s29, SUM("ResolutionWidth" + 30) AS s30, SUM("ResolutionWidth" + 31) AS s31, SUM("ResolutionWidth" + 32) AS s32, SUM("ResolutionWidth" + 33) AS s33, SUM("ResolutionWidth" + 34) AS s34, SUM("ResolutionWidth" + 35) AS s35, SUM("ResolutionWidth" + 36) AS s36, SUM("ResolutionWidth" + 37) AS s37, SUM("ResolutionWidth" + 38) AS s38, SUM("ResolutionWidth" + 39) AS s39, SUM("ResolutionWidth" + 40) AS s40, SUM("ResolutionWidth" + 41) AS s41, SUM("ResolutionWidth" + 42) AS s42, SUM("ResolutionWidth" + 43) AS s43, SUM("ResolutionWidth" + 44) AS s44, SUM("ResolutionWidth" + 45) AS s45, SUM("ResolutionWidth" + 46) AS s46, SUM("ResolutionWidth" + 47) AS s47, SUM("ResolutionWidth" + 48) AS s48, SUM("ResolutionWidth" + 49) AS s49, SUM("ResolutionWidth" + 50) AS s50, SUM("ResolutionWidth" + 51) AS s51, SUM("ResolutionWidth" + 52) AS s52, SUM("ResolutionWidth" + 53) AS s53, SUM("ResolutionWidth" + 54) AS s54, SUM("ResolutionWidth" + 55) AS s55, SUM("ResolutionWidth" + 56) AS s56, SUM("ResolutionWidth" + 57) AS s57, SUM("ResolutionWidth" + 58) AS s58, SUM("ResolutionWidth" + 59) AS s59, SUM("ResolutionWidth" + 60) AS s60, SUM("ResolutionWidth" + 61) AS s61, SUM("ResolutionWidth" + 62) AS s62, SUM("ResolutionWidth" + 63) AS s63, SUM("ResolutionWidth" + 64) AS s64, SUM("ResolutionWidth" + 65) AS s65, SUM("ResolutionWidth" + 66) AS s66, SUM("ResolutionWidth" + 67) AS s67, SUM("ResolutionWidth" + 68) AS s68, SUM("ResolutionWidth" + 69) AS s69, SUM("ResolutionWidth" + 70) AS s70, SUM("ResolutionWidth" + 71) AS s71, SUM("ResolutionWidth" + 72) AS s72, SUM("ResolutionWidth" + 73) AS s73, SUM("ResolutionWidth" + 74) AS s74, SUM("ResolutionWidth" + 75) AS s75, SUM("ResolutionWidth" + 76) AS s76, SUM("ResolutionWidth" + 77) AS s77, SUM("ResolutionWidth" + 78) AS s78, SUM("ResolutionWidth" + 79) AS s79, SUM("ResolutionWidth" + 80) AS s80, SUM("ResolutionWidth" + 81) AS s81, SUM("ResolutionWidth" + 82) AS s82, SUM("ResolutionWidth" + 83) AS s83, SUM("ResolutionWidth" + 84) AS s84, SUM("ResolutionWidth" + 85) AS s85, SUM("ResolutionWidth" + 86) AS s86, SUM("ResolutionWidth" + 87) AS s87, SUM("ResolutionWidth" + 88) AS s88, SUM("ResolutionWidth" + 89) AS s89 FROM hits;

-- name: Q29
-- note: ClickBench's Q28 numbered from 0: regexp_replace of a string column as the key (the host computes it once per distinct string; column batches); hits here has no Referer, so URL stands in for it; tie-breaker k added
SELECT REGEXP_REPLACE("URL", '^https?://(?:www\.)?([^/]+)/.*$', '\1') AS k, AVG(length("URL")) AS l, COUNT(*) AS c, MIN("URL") AS m FROM hits WHERE "URL" <> '' GROUP BY k HAVING COUNT(*) > 100000 ORDER BY l DESC, k LIMIT 25;

-- name: tz_hour
-- note: not a ClickBench query: date_trunc of a timestamptz (EventTime::timestamptz) in the session's time zone, which has one UTC offset (UTC): the offset is a scan constant
SELECT date_trunc('hour', "EventTime"::timestamptz) AS h, count(*) AS c, avg("ResolutionWidth") AS w FROM hits GROUP BY 1;

-- name: tz_dow
-- note: not a ClickBench query: extract of a timestamptz's local day of the week and hour, and its date
SELECT extract(dow FROM "EventTime"::timestamptz) AS dow, extract(hour FROM "EventTime"::timestamptz) AS hr, max("EventTime"::timestamptz::date) AS last_day, count(*) AS c FROM hits GROUP BY 1, 2;
