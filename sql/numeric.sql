--
-- numeric: columns with a scale, as scaled int64s on the device; keys,
-- WHERE, FILTER, + - * and comparisons, sum/avg/min/max/count/variance and
-- count(DISTINCT), digit for digit and display scale as native; a value the
-- device cannot hold (NaN, past 18 digits) runs the exact path below the
-- node, PostgreSQL's own plan
--
SET gpuagg.force_offload = on;

-- how often the exact path ran for q (EXPLAIN ANALYZE's Exact Path Runs)
CREATE FUNCTION exact_runs(q text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || q
	LOOP
		IF line ~ 'Exact Path Runs:' THEN
			RETURN trim(line);
		END IF;
	END LOOP;
	RETURN 'no exact path';
END $$;

CREATE TABLE nm (g int4, price numeric(15,2), disc numeric(15,2),
				 qty numeric(12,0), rate numeric(10,4), k numeric(6,1),
				 flag char(1), big numeric(30,2), free numeric);
INSERT INTO nm
SELECT i % 7,
	   CASE WHEN i % 19 = 0 THEN NULL ELSE (i * 37 % 100000) / 100.0 - 300 END,
	   (i % 11) / 100.0,
	   i % 50 + 1,
	   CASE WHEN i % 23 = 0 THEN NULL ELSE (i % 997) / 3.0 END,
	   (i % 40) / 2.0 - 5,
	   CASE WHEN i % 3 = 0 THEN 'A' WHEN i % 3 = 1 THEN 'N' ELSE 'R' END,
	   i * 1.25,
	   i / 7.0
  FROM generate_series(1, 5000) i;
ANALYZE nm;

-- TPC-H Q1 and Q6 shapes (char(1) keys, numeric(15,2) money)
EXPLAIN (COSTS OFF)
SELECT flag, sum(price), sum(price * (1 - disc)), avg(qty), count(*)
  FROM nm WHERE disc BETWEEN 0.03 AND 0.07 GROUP BY flag;
SELECT check_offload('SELECT flag, sum(qty), sum(price), sum(price * (1 - disc)), sum(price * (1 - disc) * (1 + disc)), avg(qty), avg(price), avg(disc), count(*) FROM nm WHERE price <= 800 GROUP BY flag');
SELECT exact_runs('SELECT flag, sum(price * (1 - disc)) FROM nm GROUP BY flag');
SELECT check_offload('SELECT sum(price * disc) FROM nm WHERE disc BETWEEN 0.06 - 0.01 AND 0.06 + 0.01 AND qty < 24');
-- numeric keys, min and max, count(DISTINCT), variance
SELECT check_offload('SELECT k, count(*), min(price), max(price), min(rate), max(rate) FROM nm GROUP BY k');
SELECT check_offload('SELECT g, count(DISTINCT k), count(DISTINCT price), count(rate) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, var_samp(price), stddev_pop(rate), variance(k), stddev(qty) FROM nm GROUP BY g');
SELECT check_offload('SELECT k * 2 AS kk, sum(rate) FROM nm GROUP BY 1');
-- mixed scales: + and - at the larger, * at their sum; comparisons
SELECT check_offload('SELECT g, sum(price + rate), sum(rate - k), sum(k * rate), avg(-price) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, count(*) FROM nm WHERE rate > price AND k <> 2.5 GROUP BY g');
SELECT check_offload('SELECT g, count(*) FILTER (WHERE price < 0), sum(price) FILTER (WHERE rate >= 100.5) FROM nm GROUP BY g');
-- constants keep their own display scale; keys of a computed scale
SELECT check_offload('SELECT g, sum(price * 1.50), sum(qty * 0.5), max(k + 0.000), min(price - 1) FROM nm GROUP BY g');
SELECT check_offload('SELECT k + 0.00 AS kk, count(*), sum(qty) FROM nm GROUP BY 1');
SELECT check_offload('SELECT -k AS kk, avg(price) FROM nm WHERE k >= -2.5 GROUP BY 1');
-- integers as numerics: casts and constants
SELECT check_offload('SELECT g, sum(g::numeric * price), sum(qty + g), avg(g::numeric) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, count(*) FROM nm WHERE price > 100 AND qty = 7 GROUP BY g');
-- CASE and COALESCE whose numeric branches share a scale (NULL aside)
SELECT check_offload('SELECT g, sum(CASE WHEN flag = ''A'' THEN price END), sum(CASE WHEN g > 3 THEN price ELSE 0.00 END), max(COALESCE(rate, 0.0000)) FROM nm GROUP BY g');
SELECT check_offload('SELECT CASE k WHEN 1.5 THEN 100.0 WHEN -2.5 THEN -100.0 ELSE k END AS kk, count(*), sum(CASE WHEN disc > 0.05 THEN price * disc END) FROM nm GROUP BY 1');
SELECT check_offload('SELECT flag, count(*) FILTER (WHERE COALESCE(price, disc, 0.00) > 100) FROM nm GROUP BY flag');
-- sum and avg of a CASE whose branches differ in scale (TPC-H Q8, Q14):
-- each value at the largest scale, the sum shown at the largest display
-- scale of the values summed (0 where every row took ELSE 0), as natively
SELECT check_offload('SELECT g, sum(CASE WHEN flag = ''A'' THEN price ELSE 0 END), avg(CASE WHEN g = 3 THEN rate WHEN g = 4 THEN k ELSE 0 END) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, flag, sum(CASE WHEN g > 4 THEN price * disc ELSE 0 END) AS s, sum(CASE WHEN g > 4 THEN price * disc ELSE 0 END) / nullif(sum(price), 0) FROM nm GROUP BY g, flag');
SELECT check_offload('SELECT 100.00 * sum(CASE WHEN flag = ''R'' THEN price * (1 - disc) ELSE 0 END) / sum(price * (1 - disc)) FROM nm');
SELECT check_offload('SELECT g, sum(CASE WHEN g = 1 THEN qty WHEN g = 2 THEN k WHEN g = 3 THEN NULL ELSE rate END) FROM nm GROUP BY ROLLUP (g)');
SELECT check_offload('SELECT g, sum(CASE flag WHEN ''A'' THEN 1.5 WHEN ''N'' THEN 2 ELSE NULL END) FILTER (WHERE g < 5) FROM nm GROUP BY g');
-- and of a COALESCE (sum(COALESCE(amount, 0))): a group whose values are
-- all NULL sums to 0, not 0.00
SELECT check_offload('SELECT g, sum(COALESCE(price, 0)), avg(COALESCE(rate, k, 0)), sum(COALESCE(price, disc)), sum(COALESCE(price, 0.00)) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, sum(COALESCE(price, 0)), avg(COALESCE(price, 1)), sum(COALESCE(price, NULL, 2.5)) FROM nm WHERE price IS NULL OR g = 2 GROUP BY ROLLUP (g)');
-- GREATEST, LEAST and NULLIF over one scale; IN lists at any scales
SELECT check_offload('SELECT g, max(GREATEST(price, disc)), min(LEAST(k, 0.0, NULL)), sum(NULLIF(k, 1)), sum(NULLIF(price, 1.25)), count(NULLIF(k, 2.50)) FROM nm GROUP BY g');
SELECT check_offload('SELECT LEAST(k, 2.0) AS kk, count(*) FROM nm GROUP BY 1');
SELECT check_offload('SELECT count(*), sum(price) FROM nm WHERE k IN (1, 2.5, 3.50, NULL) OR price IN (100.00, 2.5) OR disc NOT IN (0.01, 0.1)');
SELECT check_offload('SELECT g, count(*) FILTER (WHERE rate IN (1, 100.3333, 2.5)) FROM nm GROUP BY g');
-- round and trunc to constant places, abs, casts to integers and floats
-- (integers rounded half away from zero, floats as float8in reads the text)
SELECT check_offload('SELECT round(rate, 2) AS r2, count(*), sum(round(price)), sum(trunc(rate, 1)), max(round(k, 3)) FROM nm GROUP BY 1');
-- negative places: tens, hundreds, ... at display scale 0
SELECT check_offload('SELECT round(price, -2) AS r, count(*), sum(round(price, -1)), sum(trunc(price, -2)), max(round(k, -1)), min(trunc(rate, -3)) FROM nm GROUP BY 1');
SELECT check_offload('SELECT g, sum(abs(price)), min(abs(k)), sum(trunc(price * disc, 3)), avg(round(-rate, 1)) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, sum(price::int4), sum(rate::int8), min(k::int2), max(price::float8), max(rate::float4), min(qty::float4) FROM nm GROUP BY g');
SELECT check_offload('SELECT k, k::int4, round(k), trunc(k), round(-k), count(*) FROM nm GROUP BY k');
-- floor, ceil and sign: at scale 0, as natively
SELECT check_offload('SELECT floor(rate) AS f, ceil(rate), ceiling(-rate), sign(rate), count(*), sum(floor(price * disc)), sum(ceil(-price)), sum(sign(k - 2)) FROM nm GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT count(*) FROM nm WHERE price::float8 > 100.5 AND k::int4 = 2');
-- % and mod(): at the larger scale, the sign of the dividend; a zero
-- divisor raises 22012, not where a CASE or the WHERE keeps it from a row
SELECT check_offload('SELECT price % 100 AS b, count(*), sum(price % k), min(mod(rate, 0.3)), max(-price % -0.07), avg(qty % 7) FROM nm WHERE k <> 0 GROUP BY 1');
SELECT check_offload('SELECT g, sum(CASE WHEN k = 0 THEN 0 ELSE price % k END), count(*) FILTER (WHERE qty % 2 = 0) FROM nm GROUP BY g');
SELECT check_error('SELECT g, sum(price % k) FROM nm GROUP BY g');
SELECT check_error('SELECT sum(mod(rate, qty - qty)) FROM nm');
-- width_bucket of a numeric of a declared scale, constant bounds and
-- count: a CASE of the scaled integers, the bucket's floor exact (below,
-- in and past the range, reversed bounds, bounds at other scales, NULLs)
EXPLAIN (COSTS OFF) SELECT width_bucket(price, 0, 500, 10) AS b, count(*) FROM nm GROUP BY 1;
SELECT check_offload('SELECT width_bucket(price, 0, 500, 10) AS b, count(*), sum(price) FROM nm GROUP BY 1');
SELECT check_offload('SELECT width_bucket(price, -300, 700, 7) AS b, width_bucket(rate, 332.5, 0.0001, 13) AS r, count(*) FROM nm GROUP BY 1, 2');
SELECT check_offload('SELECT width_bucket(k, -5, 14.5, 39) AS b, count(*) FILTER (WHERE width_bucket(qty, 1, 51, 3) = 2), max(width_bucket(price, 100.005, 100.007, 2)) FROM nm GROUP BY 1');
SELECT check_offload('SELECT count(*) FROM nm WHERE width_bucket(price, 0, 1000, 4) BETWEEN 2 AND 3');
-- these keep the native plan, and say why: a count of 10000 or more, a
-- range too fine for 64-bit integers, bounds that are not constants, a
-- numeric without a declared scale; equal bounds and a count under 1
-- raise their errors natively
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT width_bucket(price, 0, 500, 10000), count(*) FROM nm GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT width_bucket(price, 0, 10000000000000, 10), count(*) FROM nm GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT width_bucket(price, 0, k, 10), count(*) FROM nm GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT width_bucket(free, 0, 1000, 10), count(*) FROM nm GROUP BY 1;
RESET gpuagg.log_fallback;
SELECT check_error('SELECT width_bucket(price, 5, 5, 10), count(*) FROM nm GROUP BY 1');
SELECT check_error('SELECT width_bucket(price, 0, 5, 0), count(*) FROM nm GROUP BY 1');
-- a numeric column of a declared precision divided by a constant whose
-- digits are 2s and 5s alone (100, 8, 2.5, -0.5): every quotient exact
-- where numeric_div's display scale for the row holds it, as it does for
-- the column's largest values; the device computes x * F at that scale.
-- Inside round, trunc, floor, ceil, sign and casts, compared, and in sum
-- and avg, which keep each row's display scale (the largest is theirs)
EXPLAIN (COSTS OFF) SELECT g, sum(price / 100) FROM nm GROUP BY g;
SELECT check_offload('SELECT g, sum(price / 100), avg(price / 100), sum(rate / 8), avg(k / -0.5), sum(qty / 1000) FROM nm GROUP BY g');
SELECT check_offload('SELECT trunc(price / 1000) * 1000 AS b, count(*), sum(price / 2.5) FROM nm GROUP BY 1');
SELECT check_offload('SELECT round(price / 40, 1) AS r, floor(k / 4) AS f, ceil(qty / 16) AS c, sign(price / 5) AS s, count(*) FROM nm GROUP BY 1, 2, 3, 4');
SELECT check_offload('SELECT g, count(*) FILTER (WHERE price / 100 > 2.5), sum(price) FILTER (WHERE 0.125 <= rate / 1000), sum(price / 20)::float8 FROM nm WHERE qty / 25 <> 1 GROUP BY g');
SELECT check_offload('SELECT g, sum((price / 4)::float8), max((k / 2)::int), sum(price / 100) FILTER (WHERE g > 3), round(price / 0.25) AS q FROM nm GROUP BY ROLLUP (g, q)');
SELECT check_offload('SELECT sum(price / 100), avg(rate / 5) FROM nm WHERE g > 100');
SELECT check_offload('SELECT g, sum(price / 100) FROM nm GROUP BY g HAVING sum(price / 100) > 10 AND avg(k / 4) < 5');
SELECT check_offload('SELECT g, sum(big / 100), avg(big / 0.02) FROM nm GROUP BY g');
-- as a group key, in min and max (each shown at the display scale of the
-- x it came from, which the host finds from the value: x = quotient / F)
-- and in count and count(DISTINCT), which do not show it
EXPLAIN (COSTS OFF) SELECT price / 100 AS q, count(*), min(rate / 8) FROM nm GROUP BY 1;
SELECT check_offload('SELECT price / 100 AS q, count(*), min(rate / 8), max(k / -0.5) FROM nm GROUP BY 1');
SELECT check_offload('SELECT g, min(price / 100), max(price / 100), min(price / -4), max(qty / 1000), min(k / 0.25), count(price / 5), count(DISTINCT qty / 16) FROM nm GROUP BY g');
SELECT check_offload('SELECT qty / 16 AS q, k / 2.5 AS r, max(price / 20) FILTER (WHERE g > 2), min(DISTINCT rate / 2) FROM nm GROUP BY ROLLUP (1, 2)');
SELECT check_offload('SELECT g, min(price / 100) FROM nm GROUP BY g HAVING min(price / 100) > -2.995 AND max(qty / 4) >= 12.5');
SELECT check_offload('SELECT min(price / 100), max(rate / 1000) FROM nm WHERE g > 100');
SELECT check_offload('SELECT g, max(big / 100), min(big / 0.02) FROM nm GROUP BY g');
-- a 0 where every value is below 1 has a smaller display scale than the
-- others (select_div_scale's first digit 0): numeric(1,15) / 0.8
CREATE TABLE nz (b numeric(1,15), g int);
INSERT INTO nz VALUES (0, 1), (0.000000000000001, 1), (-0.000000000000009, 2), (0, 2), (NULL, 2);
SELECT check_offload('SELECT b / 0.8 AS q, count(*), max(b / 0.8), min(b / 0.0000256) FROM nz GROUP BY 1');
SELECT check_offload('SELECT g, max(b / 0.8), min(b / -0.8) FROM nz WHERE b >= 0 GROUP BY g');
DROP TABLE nz;
-- ... in a parallel plan where there is one (fed, in page form: a
-- numeric the device may not hold needs one session's exact path, so no
-- partial plan)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT check_offload('SELECT price / 4 AS q, count(*), max(rate / 5), min(k / 4) FROM nm GROUP BY 1');
RESET min_parallel_table_scan_size;
RESET parallel_tuple_cost;
RESET parallel_setup_cost;
-- an integer (a column, an expression) divided so: its type's digits bound
-- it (the ends of each type included: past int64 at the quotient's scale,
-- the exact path)
CREATE TABLE ni (g int4, a int2, b int4, c int8);
INSERT INTO ni SELECT i % 5, (i * 7 % 65535 - 32767)::int2, i * 104729 % 2000000000 - 1000000000,
	   i::int8 * 982451653 * (CASE WHEN i % 2 = 0 THEN -1 ELSE 1 END) FROM generate_series(1, 3000) i;
INSERT INTO ni VALUES (0, -32768, -2147483648, -9223372036854775808), (1, 32767, 2147483647, 9223372036854775807),
	(2, 0, 0, 0), (3, NULL, NULL, NULL);
ANALYZE ni;
SELECT check_offload('SELECT g, sum(a / 100.0), avg(b / 8.0), sum(b / 0.25), avg(a / -0.5) FROM ni GROUP BY g');
SELECT check_offload('SELECT trunc(a / 100.0) * 100 AS w, count(*), sum(b / 100.0) FILTER (WHERE a / 1000.0 > 0), max(round(b / 1000.0)) FROM ni GROUP BY 1');
SELECT check_offload('SELECT g, sum((g * 12345) / 100.0), sum(c / 1000.0) FROM ni WHERE c > -9223372036854775808 GROUP BY g');
SELECT check_offload('SELECT g, sum(c / 1000.0) FROM ni GROUP BY g');
SELECT check_offload('SELECT b / 1000.0 AS q, min(a / 100.0), max(c / 1000.0), count(DISTINCT a / 0.5) FROM ni WHERE g IN (1, 2) GROUP BY 1');
SELECT exact_runs('SELECT g, max(c / 1000.0), min(a / 4.0) FROM ni GROUP BY g');
SELECT check_offload('SELECT g, max(c / 1000.0), min(a / 4.0) FROM ni GROUP BY g');
DROP TABLE ni;
-- these keep the native plan, and say why: a divisor with other prime
-- factors, a column without a declared precision, quotients numeric_div
-- rounds for the column's largest values (as a key and in max too), a
-- quotient inside other arithmetic (its display scale would show) or in
-- an ordered set
SET gpuagg.log_fallback = on;
EXPLAIN (COSTS OFF) SELECT g, sum(price / 3) FROM nm GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, sum(free / 100) FROM nm GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, sum(big / 1000), sum(price / 8) FROM nm GROUP BY g;
EXPLAIN (COSTS OFF) SELECT price / 3 AS q, count(*) FROM nm GROUP BY 1;
EXPLAIN (COSTS OFF) SELECT g, max(price / 8) FROM nm GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, sum(price / 100 + 1) FROM nm GROUP BY g;
EXPLAIN (COSTS OFF) SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY price / 100) FROM nm GROUP BY g;
RESET gpuagg.log_fallback;
-- the divisor at the larger scale (numeric(6,1) % numeric(10,4), money
-- % thousandths); a rescale past int64 runs the exact path
SELECT check_offload('SELECT g, sum(k % rate), max(price % 0.007), min(-k % 0.0003) FROM nm WHERE rate <> 0 GROUP BY g');
SELECT check_offload('SELECT g, sum(qty % 0.000000000000000003) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(qty % 0.000000000000000003) FROM nm GROUP BY g');
-- past int2: the native error
SELECT g, sum((price * 100)::int2) FROM nm GROUP BY g;
SET gpuagg.enabled = off;
SELECT g, sum((price * 100)::int2) FROM nm GROUP BY g;
RESET gpuagg.enabled;
-- empty input, NULLs only
SELECT check_offload('SELECT sum(price), avg(price), min(price), var_pop(price) FROM nm WHERE g > 100');
SELECT check_offload('SELECT g, sum(price), avg(rate) FROM nm WHERE price IS NULL GROUP BY g');
SELECT exact_runs('SELECT g, sum(price), avg(rate) FROM nm GROUP BY g');

-- DISTINCT values of numerics, folded on the host in sorted order
SELECT check_offload('SELECT g, sum(DISTINCT price), avg(DISTINCT k), stddev(DISTINCT rate), var_pop(DISTINCT qty) FROM nm GROUP BY g');

-- casts to a typmod: rounded as round(x, s), then the precision checked
-- (a value past it runs the exact path, which raises PostgreSQL's error)
SELECT check_offload('SELECT g, sum(rate::numeric(10,2)), sum((price * disc)::numeric(12,3)), max(k::numeric(4,0)), sum(price::numeric(15,-1)), avg(g::numeric(5,2)) FROM nm GROUP BY g');
SELECT check_offload('SELECT rate::numeric(8,1) AS r, count(*) FROM nm WHERE qty::numeric(4,2) > 10.5 GROUP BY 1');
SELECT check_error('SELECT g, sum(price::numeric(4,2)) FROM nm GROUP BY g');
SELECT check_error('SELECT g, sum((price * 100)::numeric(2,-2)) FROM nm GROUP BY g');

-- numeric parameters, compared with a column or an expression: at its
-- scale; a value with digits below it rounded where the comparison allows
-- (<, <=, >, >=), not for = and <>; NaN or infinite runs the exact path
SET plan_cache_mode = force_generic_plan;
SET gpuagg.enabled = off;
PREPARE pn(numeric, numeric) AS
SELECT g, count(*), sum(price) FROM nm WHERE price > $1 AND rate * 2 <= $2 GROUP BY g ORDER BY g;
EXECUTE pn(100, 500);
SET gpuagg.enabled = on;
PREPARE pg(numeric, numeric) AS
SELECT g, count(*), sum(price) FROM nm WHERE price > $1 AND rate * 2 <= $2 GROUP BY g ORDER BY g;
EXPLAIN (COSTS OFF) EXECUTE pg(100, 500);
\set same 'SELECT (SELECT array_agg(x::text ORDER BY x::text) FROM rn x) IS NOT DISTINCT FROM (SELECT array_agg(x::text ORDER BY x::text) FROM rg x) AS same_as_native, (SELECT count(*) FROM rg) AS groups; DROP TABLE rn, rg;'
CREATE TEMP TABLE rn AS EXECUTE pn(100, 500);
CREATE TEMP TABLE rg AS EXECUTE pg(100, 500);
:same
SELECT exact_runs('EXECUTE pg(100, 500)');
CREATE TEMP TABLE rn AS EXECUTE pn(99.995, 300.0001);
CREATE TEMP TABLE rg AS EXECUTE pg(99.995, 300.0001);
:same
SELECT exact_runs('EXECUTE pg(99.995, 300.0001)');
CREATE TEMP TABLE rn AS EXECUTE pn('-Infinity', 'NaN');
CREATE TEMP TABLE rg AS EXECUTE pg('-Infinity', 'NaN');
:same
CREATE TEMP TABLE rn AS EXECUTE pn(NULL, 1);
CREATE TEMP TABLE rg AS EXECUTE pg(NULL, 1);
:same
DEALLOCATE pn;
DEALLOCATE pg;
-- an exact quotient compared with a parameter (at the quotient's scale)
SET gpuagg.enabled = off;
PREPARE pn(numeric) AS SELECT g, count(*) FROM nm WHERE price / 100 > $1 GROUP BY g;
SET gpuagg.enabled = on;
PREPARE pg(numeric) AS SELECT g, count(*) FROM nm WHERE price / 100 > $1 GROUP BY g;
SELECT offloaded('EXECUTE pg(2.505)');
CREATE TEMP TABLE rn AS EXECUTE pn(2.505);
CREATE TEMP TABLE rg AS EXECUTE pg(2.505);
:same
CREATE TEMP TABLE rn AS EXECUTE pn(2.50005);
CREATE TEMP TABLE rg AS EXECUTE pg(2.50005);
:same
DEALLOCATE pn;
DEALLOCATE pg;
-- each operator, the parameter on either side, values between a column's
-- steps (negative too), half a step from prices there are (12.39, -12.40:
-- a bound rounded the wrong way drops or keeps them), on one, past int64
SET gpuagg.enabled = off;
PREPARE pn(numeric) AS
SELECT g, count(*) FILTER (WHERE price < $1) AS lt, count(*) FILTER (WHERE price <= $1) AS le,
	   count(*) FILTER (WHERE price > $1) AS gt, count(*) FILTER (WHERE price >= $1) AS ge,
	   count(*) FILTER (WHERE $1 < rate * 2) AS plt, count(*) FILTER (WHERE $1 <= rate * 2) AS ple,
	   sum(k) FILTER (WHERE $1 > k) AS pgt, sum(k) FILTER (WHERE $1 >= k) AS pge
  FROM nm GROUP BY g ORDER BY g;
EXECUTE pn(12.345);
SET gpuagg.enabled = on;
PREPARE pg(numeric) AS
SELECT g, count(*) FILTER (WHERE price < $1) AS lt, count(*) FILTER (WHERE price <= $1) AS le,
	   count(*) FILTER (WHERE price > $1) AS gt, count(*) FILTER (WHERE price >= $1) AS ge,
	   count(*) FILTER (WHERE $1 < rate * 2) AS plt, count(*) FILTER (WHERE $1 <= rate * 2) AS ple,
	   sum(k) FILTER (WHERE $1 > k) AS pgt, sum(k) FILTER (WHERE $1 >= k) AS pge
  FROM nm GROUP BY g ORDER BY g;
CREATE TEMP TABLE rn AS EXECUTE pn(12.385);
CREATE TEMP TABLE rg AS EXECUTE pg(12.385);
:same
SELECT exact_runs('EXECUTE pg(12.385)');
CREATE TEMP TABLE rn AS EXECUTE pn(12.395);
CREATE TEMP TABLE rg AS EXECUTE pg(12.395);
:same
SELECT exact_runs('EXECUTE pg(12.395)');
CREATE TEMP TABLE rn AS EXECUTE pn(-12.395);
CREATE TEMP TABLE rg AS EXECUTE pg(-12.395);
:same
SELECT exact_runs('EXECUTE pg(-12.395)');
CREATE TEMP TABLE rn AS EXECUTE pn(-12.405);
CREATE TEMP TABLE rg AS EXECUTE pg(-12.405);
:same
SELECT exact_runs('EXECUTE pg(-12.405)');
CREATE TEMP TABLE rn AS EXECUTE pn(-0.00001);
CREATE TEMP TABLE rg AS EXECUTE pg(-0.00001);
:same
CREATE TEMP TABLE rn AS EXECUTE pn(2.5);
CREATE TEMP TABLE rg AS EXECUTE pg(2.5);
:same
CREATE TEMP TABLE rn AS EXECUTE pn(1e30);
CREATE TEMP TABLE rg AS EXECUTE pg(1e30);
:same
SELECT exact_runs('EXECUTE pg(1e30)');
DEALLOCATE pn;
DEALLOCATE pg;
-- = and <> with such a value: the exact path
SET gpuagg.enabled = off;
PREPARE pn(numeric) AS SELECT g, count(*) FILTER (WHERE price = $1) AS eq, count(*) FILTER (WHERE price <> $1) AS ne FROM nm GROUP BY g ORDER BY g;
EXECUTE pn(2.5);
SET gpuagg.enabled = on;
PREPARE pg(numeric) AS SELECT g, count(*) FILTER (WHERE price = $1) AS eq, count(*) FILTER (WHERE price <> $1) AS ne FROM nm GROUP BY g ORDER BY g;
CREATE TEMP TABLE rn AS EXECUTE pn(2.505);
CREATE TEMP TABLE rg AS EXECUTE pg(2.505);
:same
SELECT exact_runs('EXECUTE pg(2.505)');
DEALLOCATE pn;
DEALLOCATE pg;
RESET plan_cache_mode;
-- TPC-H Q22's form: a column against an InitPlan's avg (many digits)
SELECT check_offload('SELECT g, count(*), sum(price) FROM nm WHERE price > (SELECT avg(price) FROM nm WHERE price > 0) GROUP BY g');
SELECT exact_runs('SELECT g, count(*), sum(price) FROM nm WHERE price > (SELECT avg(price) FROM nm WHERE price > 0) GROUP BY g');

-- values the device cannot hold: the exact path, same answers
SELECT check_offload('SELECT g, sum(big), max(big) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(big), max(big) FROM nm GROUP BY g');
UPDATE nm SET big = 123456789012345678901234.5 WHERE g = 3 AND price > 0 AND price < 10;
SELECT check_offload('SELECT g, sum(big), count(*) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(big), count(*) FROM nm GROUP BY g');
-- gpuagg.stat counts the runs of the exact path, server-wide
SELECT exact_runs AS exact_before FROM gpuagg.stat \gset
SELECT g, sum(big) FROM nm WHERE g = 3 GROUP BY g;
SELECT exact_runs - :exact_before AS exact_runs_counted FROM gpuagg.stat;
SELECT check_offload('SELECT g, sum(big::float8), min(big::int8) FROM nm WHERE g <> 3 GROUP BY g');
UPDATE nm SET rate = 'NaN' WHERE g = 2 AND k = 0;
SELECT check_offload('SELECT g, sum(rate), avg(rate), min(rate), max(rate) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(rate), avg(rate), min(rate), max(rate) FROM nm GROUP BY g');
-- ... and only where a value is read: NaN filtered out still needs it
SELECT check_offload('SELECT g, sum(rate) FROM nm WHERE g <> 2 GROUP BY g');
-- NaN % 0 is NaN natively, no error: the exact path's, not the device's 22012
SELECT check_offload('SELECT g, sum(mod(rate, k)), count(*) FROM nm WHERE g = 2 AND k = 0 GROUP BY g');
-- an intermediate past int64: 15 digits times 15
UPDATE nm SET price = 9999999999999.99, disc = 9999999999999.99 WHERE g = 1 AND k = 1;
SELECT check_offload('SELECT g, sum(price * disc) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(price * disc) FROM nm GROUP BY g');
-- HAVING and ORDER BY over the exact path
SELECT g, sum(price * disc) AS s FROM nm GROUP BY g HAVING count(*) > 700 ORDER BY g;
SET gpuagg.enabled = off;
SELECT g, sum(price * disc) AS s FROM nm GROUP BY g HAVING count(*) > 700 ORDER BY g;
RESET gpuagg.enabled;
-- a rescan reruns it (a correlated subquery)
SELECT t.x, (SELECT sum(price * disc) FROM nm WHERE g = t.x) FROM (VALUES (1), (2)) t(x);

-- numeric without a typmod: at the one display scale its statistics'
-- values have, every value's checked on the device; a value of another
-- runs the exact path
CREATE TABLE nu (g int4, amt numeric, q numeric, r numeric)
	WITH (autovacuum_enabled = off);
INSERT INTO nu
SELECT i % 5, round((i * 37 % 10000) / 100.0 - 30, 2), i % 13, round(i / 3.0, 3)
  FROM generate_series(1, 3000) i;
ANALYZE nu;
SELECT check_offload('SELECT g, sum(amt), avg(amt), min(amt), max(amt), sum(amt * q), count(DISTINCT q), stddev(r) FROM nu GROUP BY g');
SELECT check_offload('SELECT q, sum(r), count(*) FROM nu WHERE amt > 0 AND r < 500.5 GROUP BY q');
SELECT exact_runs('SELECT g, sum(amt) FROM nu GROUP BY g');
INSERT INTO nu VALUES (1, 1.5, 1, 1.000);
SELECT check_offload('SELECT g, sum(amt), avg(amt), max(amt) FROM nu GROUP BY g');
SELECT exact_runs('SELECT g, sum(amt), avg(amt), max(amt) FROM nu GROUP BY g');
SELECT check_offload('SELECT g, sum(r) FROM nu GROUP BY g');
-- no statistics: native
CREATE TABLE nu2 (x numeric) WITH (autovacuum_enabled = off);
INSERT INTO nu2 VALUES (1.5), (2.25);
SET gpuagg.log_fallback = on;
SELECT sum(x) FROM nu2;
RESET gpuagg.log_fallback;
DROP TABLE nu, nu2;

-- values of several display scales (as an application stores what was
-- typed): each read at the largest its statistics show; where a display
-- scale reaches the result (sum, avg), each row's goes along, so a group
-- shows the largest of its own values' (g 5: scale 0 alone; g 6: 3, past
-- the statistics').  Compared as text on both devices.
CREATE TABLE nm3 (g int4, x numeric, y numeric, q int4, p numeric(8,3))
	WITH (autovacuum_enabled = off);
INSERT INTO nm3
SELECT i % 5,
	   CASE i % 4 WHEN 0 THEN (i % 50)::numeric WHEN 1 THEN round(i / 10.0, 1)
	   WHEN 2 THEN round(-i / 100.0, 2) END,
	   CASE WHEN i % 3 = 0 THEN (i % 7)::numeric ELSE round(i / 4.0, 2) END,
	   i % 9, i / 8.0
  FROM generate_series(1, 3000) i;
INSERT INTO nm3 SELECT 5, i, i, 1, 1 FROM generate_series(1, 20) i;
ANALYZE nm3;
INSERT INTO nm3 VALUES (6, 1.500, 2, 1, 1), (6, 2, 0.5, 1, 1);
SELECT same_in_pages('SELECT g, sum(x), avg(x), count(x), sum(y) FROM nm3 GROUP BY g');
SELECT same_in_pages('SELECT g, sum(x * q), sum(x * y), sum(x + y), sum(-x), sum(abs(x) - 1), avg(x * 2.5 + p) FROM nm3 GROUP BY g');
SELECT same_in_pages('SELECT g, sum(CASE WHEN q > 4 THEN x ELSE 0 END), sum(COALESCE(x, y)), sum(CASE WHEN q = 1 THEN x * q END) FROM nm3 GROUP BY g');
SELECT same_in_pages('SELECT g, sum(round(x, 1)), sum(trunc(x)), sum(x::numeric(10,3)), count(*) FILTER (WHERE x * 2 > 10) FROM nm3 WHERE x > -5 AND y IN (1, 2.5, 3.25) OR x IS NULL GROUP BY g');
SELECT same_in_pages('SELECT x::numeric(10,1) AS k, count(*), sum(y) FROM nm3 GROUP BY 1');
SELECT check_offload('SELECT g, max(x::float8), min(y::int4), percentile_cont(0.5) WITHIN GROUP (ORDER BY y) FROM nm3 GROUP BY g');
SELECT same_in_pages('SELECT g, sum(x), avg(y) FROM nm3 GROUP BY ROLLUP (g)');
SELECT g, sum(x), avg(x), sum(x * y) FROM nm3 WHERE g >= 5 GROUP BY g ORDER BY g;
-- a domain over numeric: its values as the base type's
CREATE DOMAIN nm3_amount AS numeric CHECK (VALUE > -1000);
ALTER TABLE nm3 ADD COLUMN d nm3_amount;
UPDATE nm3 SET d = x;
ANALYZE nm3 (d);
SELECT same_in_pages('SELECT g, sum(d), avg(d * q), count(*) FILTER (WHERE d > 1) FROM nm3 GROUP BY g');
-- in parallel: the partial states carry the largest display scale
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SELECT same_in_pages('SELECT g, sum(x), avg(x * q), sum(CASE WHEN q > 2 THEN y END) FROM nm3 GROUP BY g');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
-- a value with digits past the scale it is read at: the exact path
INSERT INTO nm3 VALUES (7, 1.23456, 1, 1, 1);
SELECT g, sum(x), avg(x) FROM nm3 WHERE g >= 5 GROUP BY g ORDER BY g;
SELECT exact_runs('SELECT g, sum(x), avg(x) FROM nm3 WHERE g >= 5 GROUP BY g');
SET gpuagg.enabled = off;
SELECT g, sum(x), avg(x) FROM nm3 WHERE g >= 5 GROUP BY g ORDER BY g;
RESET gpuagg.enabled;
-- where a display scale reaches the result otherwise: native, saying so
SET gpuagg.log_fallback = on;
SELECT g, min(x) FROM nm3 WHERE g = 5 GROUP BY g;
SELECT x, count(*) FROM nm3 WHERE g = 5 AND x < 3 GROUP BY x ORDER BY x;
SELECT sum(x / 4) FROM nm3 WHERE g = 5;
SELECT sum(DISTINCT x) FROM nm3 WHERE g = 5;
SELECT stddev(x) FROM nm3 WHERE g = 5;
SELECT count(*) FROM nm3 WHERE x % 2 = 0;
SELECT sum(x::numeric(30,20)) FROM nm3 WHERE g = 5;
RESET gpuagg.log_fallback;
DROP TABLE nm3;
DROP DOMAIN nm3_amount;

-- what stays native says so
SET gpuagg.log_fallback = on;
SELECT sum(free) FROM nm;
SELECT sum(price / disc) FROM nm WHERE disc > 0;
SELECT sum(rate * rate * rate * rate * rate) FROM nm;
SELECT count(*) FROM nm WHERE price = 1e30;
SELECT sum(round(price, -17)) FROM nm;
SELECT max(CASE WHEN g > 3 THEN price ELSE rate END) FROM nm;
SELECT sum(GREATEST(price, k)) FROM nm;
RESET gpuagg.log_fallback;
-- in parallel, fed: the workers pin pages for the leader, whose exact path
-- is a serial scan under the GpuAgg's Gather (no partial plan: each
-- process would need its own)
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET gpuagg.page_batches = on;
EXPLAIN (COSTS OFF) SELECT g, sum(price) FROM nm GROUP BY g;
SELECT check_offload('SELECT g, sum(qty), avg(k), max(price) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(qty), avg(k), max(price) FROM nm GROUP BY g');
SELECT check_offload('SELECT sum(price * disc) FROM nm WHERE disc BETWEEN 0.01 AND 0.05');
SELECT check_offload('SELECT g, sum(price * disc), count(*) FROM nm GROUP BY g');
SELECT exact_runs('SELECT g, sum(price * disc), count(*) FROM nm GROUP BY g');
SELECT check_offload('SELECT g, count(DISTINCT rate) FROM nm GROUP BY g');
-- an InitPlan's value, which the Gather passes to its workers: one the
-- device holds, and one past it (the leader's exact path)
EXPLAIN (COSTS OFF) SELECT g, sum(price) FROM nm WHERE price > (SELECT avg(price) FROM nm WHERE price > 0) GROUP BY g;
SELECT check_offload('SELECT g, count(*), sum(price) FROM nm WHERE price > (SELECT avg(price) FROM nm WHERE price > 0) GROUP BY g');
SELECT exact_runs('SELECT g, count(*), sum(price) FROM nm WHERE price > (SELECT avg(price) FROM nm WHERE price > 0) GROUP BY g');
SELECT check_offload('SELECT g, count(*), sum(price) FROM nm WHERE price <> (SELECT 12.345) GROUP BY g');
SELECT exact_runs('SELECT g, count(*), sum(price) FROM nm WHERE price <> (SELECT 12.345) GROUP BY g');
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET gpuagg.page_batches;

DROP TABLE nm;
DROP FUNCTION exact_runs(text);
