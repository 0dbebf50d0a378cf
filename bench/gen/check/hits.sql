-- Checks for the hits suite: psql -d bench -f bench/gen/check/hits.sql
-- (ClickBench reference numbers per 1e8 rows in the comments; ours scale with N)
\pset footer off
\echo '== distinct counts per 1e8 rows (ClickBench: UserID 17.6M, SearchPhrase 6.0M)'
SELECT count(*) AS rows, count(DISTINCT WatchID) = count(*) AS watchid_unique,
       count(DISTINCT UserID) AS d_user, round(count(DISTINCT UserID) * 1e8 / count(*)) AS d_user_per_1e8,
       count(DISTINCT SearchPhrase) AS d_phrase, round(count(DISTINCT SearchPhrase) * 1e8 / count(*)) AS d_phrase_per_1e8,
       count(DISTINCT URL) AS d_url, round(count(DISTINCT URL) * 1e8 / count(*)) AS d_url_per_1e8,
       count(DISTINCT RegionID) AS d_region, count(DISTINCT CounterID) AS d_counter,
       count(DISTINCT MobilePhoneModel) AS d_model, count(DISTINCT ResolutionWidth) AS d_width,
       count(DISTINCT ClientIP) AS d_ip
FROM hits;
\echo '== fractions (ClickBench: AdvEngineID <> 0 0.63%, SearchPhrase <> '''' ~13%)'
SELECT round(avg((AdvEngineID <> 0)::int), 5) AS adv_nonzero, round(avg((SearchPhrase <> '')::int), 4) AS phrase_nonempty,
       round(avg((SearchEngineID <> 0)::int), 4) AS se_nonzero, round(avg((MobilePhoneModel <> '')::int), 4) AS model_nonempty,
       round(avg(IsRefresh), 4) AS refresh, round(avg((URL LIKE '%google%')::int), 5) AS url_google,
       round(avg(length(URL)), 1) AS avg_url_len, round(avg(length(SearchPhrase)) FILTER (WHERE SearchPhrase <> ''), 1) AS avg_phrase_len
FROM hits;
\echo '== ranges'
SELECT min(EventDate), max(EventDate), count(DISTINCT EventDate) AS days, min(EventTime), max(EventTime),
       count(*) FILTER (WHERE EventTime::date <> EventDate) AS bad_date,
       min(ResolutionWidth) AS min_w, max(ResolutionWidth) AS max_w, min(RegionID) AS min_r, max(RegionID) AS max_r
FROM hits;
\echo '== skew: top-5 shares (ClickBench top UserID ~29k per 1e8 = 0.03%)'
SELECT 'UserID' AS col, string_agg(round(c * 100.0 / n, 3)::text, ' ' ORDER BY c DESC) AS top5_pct FROM
  (SELECT count(*) c, sum(count(*)) OVER () n FROM hits GROUP BY UserID ORDER BY 1 DESC LIMIT 5) t
UNION ALL
SELECT 'RegionID', string_agg(round(c * 100.0 / n, 3)::text || '(' || k || ')', ' ' ORDER BY c DESC) FROM
  (SELECT RegionID k, count(*) c, sum(count(*)) OVER () n FROM hits GROUP BY 1 ORDER BY 2 DESC LIMIT 5) t
UNION ALL
SELECT 'CounterID', string_agg(round(c * 100.0 / n, 3)::text || '(' || k || ')', ' ' ORDER BY c DESC) FROM
  (SELECT CounterID k, count(*) c, sum(count(*)) OVER () n FROM hits GROUP BY 1 ORDER BY 2 DESC LIMIT 5) t
UNION ALL
SELECT 'SearchPhrase', string_agg(round(c * 100.0 / n, 3)::text, ' ' ORDER BY c DESC) FROM
  (SELECT count(*) c, sum(count(*)) OVER () n FROM hits WHERE SearchPhrase <> '' GROUP BY SearchPhrase ORDER BY 1 DESC LIMIT 5) t
UNION ALL
SELECT 'URL', string_agg(round(c * 100.0 / n, 3)::text, ' ' ORDER BY c DESC) FROM
  (SELECT count(*) c, sum(count(*)) OVER () n FROM hits GROUP BY URL ORDER BY 1 DESC LIMIT 5) t
UNION ALL
SELECT 'AdvEngineID', string_agg(c::text || '(' || k || ')', ' ' ORDER BY c DESC) FROM
  (SELECT AdvEngineID k, count(*) c FROM hits GROUP BY 1 ORDER BY 2 DESC LIMIT 5) t
UNION ALL
SELECT 'MobilePhoneModel', string_agg(c::text || '(' || k || ')', ' ' ORDER BY c DESC) FROM
  (SELECT MobilePhoneModel k, count(*) c FROM hits GROUP BY 1 ORDER BY 2 DESC LIMIT 5) t
UNION ALL
SELECT 'ResolutionWidth', string_agg(round(c * 100.0 / n, 2)::text || '(' || k || ')', ' ' ORDER BY c DESC) FROM
  (SELECT ResolutionWidth k, count(*) c, sum(count(*)) OVER () n FROM hits GROUP BY 1 ORDER BY 2 DESC LIMIT 5) t;
\echo '== a few ClickBench queries'
SELECT SearchPhrase, count(*) AS c FROM hits WHERE SearchPhrase <> '' GROUP BY 1 ORDER BY c DESC LIMIT 3;
SELECT RegionID, count(DISTINCT UserID) AS u FROM hits GROUP BY 1 ORDER BY u DESC LIMIT 3;
SELECT URL, count(*) AS c FROM hits GROUP BY 1 ORDER BY c DESC LIMIT 3;
