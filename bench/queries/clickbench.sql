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
