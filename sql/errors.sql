--
-- errors: the same errors, with the same SQLSTATE, as native execution
--
SET gpuagg.force_offload = on;

CREATE TABLE er (k int4, a int4, b int4, s int2, x int8, f float8, r float4, d date);
INSERT INTO er VALUES
	(1, 2147483647, 0, 32767, 9223372036854775807, 1e308, 3e38, '5874897-12-31'),
	(1, -2147483648, -1, -32768, -9223372036854775808, -1e308, -3e38, '4713-11-24 BC'),
	(2, 10, 2, 10, 10, 1e-300, 1e-30, '2024-01-01');

SELECT check_error('SELECT sum(a / b) FROM er');
SELECT check_error('SELECT sum(a % b) FROM er');
SELECT check_error('SELECT sum(a + 1) FROM er');
SELECT check_error('SELECT sum(a * 2) FROM er');
SELECT check_error('SELECT sum(a / b) FROM er WHERE b = -1');
SELECT check_error('SELECT sum(-a) FROM er');
SELECT check_error('SELECT sum(s + 1::int2) FROM er');
SELECT check_error('SELECT sum(x + 1) FROM er');
SELECT check_error('SELECT sum(x * x) FROM er');
SELECT check_error('SELECT sum(x / -1) FROM er');
SELECT check_error('SELECT sum(x::int4) FROM er');
SELECT check_error('SELECT sum(a::int2) FROM er');
SELECT check_error('SELECT sum(f * 10) FROM er');
SELECT check_error('SELECT sum(f / 0) FROM er');
SELECT check_error('SELECT sum(f * 1e-300) FROM er WHERE k = 2');
SELECT check_error('SELECT sum(f::float4) FROM er');
SELECT check_error('SELECT sum(r * r) FROM er');
SELECT check_error('SELECT sum(f::int8) FROM er');
SELECT check_error('SELECT sum(f) FROM er WHERE k = 1 OR f > 1');
SELECT check_error('SELECT variance(f) FROM er');
SELECT check_error('SELECT max(d + 1) FROM er');
SELECT check_error('SELECT max(d - 1) FROM er');
SELECT check_error('SELECT count(*) FROM er WHERE 10 / b > 0');
-- abs() of each integer type's minimum
SELECT check_error('SELECT sum(abs(a)::int8) FROM er');
SELECT check_error('SELECT max(abs(s)) FROM er');
SELECT check_error('SELECT max(abs(x)) FROM er');
SELECT check_error('SELECT max(abs(x)), max(abs(s)), max(abs(a)) FROM er WHERE k = 2');
SELECT check_error('SELECT k / b, count(*) FROM er GROUP BY k / b');
-- no error where PostgreSQL raises none: % -1, FILTER and short-circuit
SELECT check_error('SELECT sum(a % -1), sum(x % -1) FROM er');
SELECT check_error('SELECT sum(a / b) FILTER (WHERE b <> 0 AND b <> -1) FROM er');
SELECT check_error('SELECT count(*) FROM er WHERE b <> 0 AND a / b > 0');
SELECT check_error('SELECT sum(x) FROM er');
-- mod() of integers is the % operator's function, errors included
SELECT check_error('SELECT sum(mod(a, b)) FROM er');
SELECT check_error('SELECT sum(mod(a, -1)), sum(mod(x, -1)), sum(mod(s, 7::int2)) FROM er');
SELECT check_offload('SELECT mod(k, 2) AS m, count(*), sum(mod(x, 1000)) FROM er WHERE mod(a, 3) <> 5 GROUP BY 1');

-- the error aborts the query cleanly; the session goes on
SELECT sum(a / b) FROM er;
SELECT count(*) FROM er;

DROP TABLE er;
