/*-------------------------------------------------------------------------
 *
 * gpuagg_eval.h
 *		The row interpreter for gpuagg programs, shared by both devices.
 *
 * The CPU device includes this from C; the CUDA kernels include it from
 * .cu files, where GA_DEVFN marks the functions __device__.  Keeping one
 * copy of the semantics (overflow rules, three-valued logic, PostgreSQL's
 * float ordering and float aggregate formulas) is what makes the devices
 * return identical answers.
 *
 * Semantics follow PostgreSQL 15: int2/int4/int8 operators compute exactly
 * and raise "out of range" for results outside the result type; division
 * by zero raises; INT_MIN / -1 raises; x % -1 is 0; float operators raise
 * overflow only when finite inputs give an infinite result and underflow
 * when nonzero inputs give zero (float.h); NaN equals NaN and sorts above
 * every other value; -0 equals 0.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_EVAL_H
#define GPUAGG_EVAL_H

#include "gpuagg_abi.h"

#ifdef __CUDACC__
#define GA_DEVFN static __device__ __forceinline__
#else
#include <math.h>
#define GA_DEVFN static inline
#endif

/* Read bit row of a validity bitmap: nonzero means NULL. */
GA_DEVFN int
ga_isnull(const uint8_t *nulls, uint32_t row)
{
	return nulls != 0 && (nulls[row >> 3] & (1u << (row & 7))) != 0;
}

/* Load row of a column of type type into *v; returns nonzero for NULL. */
GA_DEVFN int
ga_load_typed(int type, const void *vals, const uint8_t *nullmap, uint64_t row, GaDatum *v)
{
	if (nullmap != 0 && (nullmap[row >> 3] & (1u << (row & 7))) != 0)
	{
		v->i = 0;
		return 1;
	}
	switch (type)
	{
		case GA_T_BOOL:
			v->i = ((const uint8_t *) vals)[row] != 0;
			break;
		case GA_T_INT2:
			v->i = ((const int16_t *) vals)[row];
			break;
		case GA_T_INT4:
		case GA_T_DATE:
			v->i = ((const int32_t *) vals)[row];
			break;
		case GA_T_TEXT:
			{
				uint64_t	code = ((const uint32_t *) vals)[row];

				v->u = code << 32 | code;
				break;
			}
		case GA_T_FLOAT4:
			v->f = (double) ((const float *) vals)[row];
			break;
		case GA_T_FLOAT8:
			v->f = ((const double *) vals)[row];
			break;
		case GA_T_INT8:
		case GA_T_TIMESTAMP:
		case GA_T_TIMESTAMPTZ:
		case GA_T_BPCHAR:
		case GA_T_NUMERIC:
			v->i = ((const int64_t *) vals)[row];
			break;
		default:
			v->i = 0;			/* GA_T_NULLONLY: only NULL-ness matters */
			break;
	}
	return 0;
}

/* Load column c of row into *v; returns nonzero for NULL. */
GA_DEVFN int
ga_load(const GaProgram *p, const GaBatch *b, int c, uint32_t row, GaDatum *v)
{
	return ga_load_typed(p->cols[c].type, b->values[c], b->nulls[c], row, v);
}

/* Range check of an exact integer result for the result type. */
GA_DEVFN int
ga_int_range(int type, int64_t v)
{
	if (type == GA_T_INT2 && (v < -32768 || v > 32767))
		return GA_ERR_INT2_RANGE;
	if ((type == GA_T_INT4 || type == GA_T_DATE) &&
		(v < INT32_MIN || v > INT32_MAX))
		return GA_ERR_INT4_RANGE;
	return GA_OK;
}

GA_DEVFN int
ga_int_err(int type)
{
	return type == GA_T_INT2 ? GA_ERR_INT2_RANGE :
		type == GA_T_INT8 ? GA_ERR_INT8_RANGE : GA_ERR_INT4_RANGE;
}

/* Integer arithmetic; operands are already widened to int64. */
GA_DEVFN int
ga_int_arith(int op, int type, int64_t a, int64_t b, int64_t *r)
{
	int64_t		v;

	switch (op)
	{
		case GA_OP_ADD:
			v = (int64_t) ((uint64_t) a + (uint64_t) b);
			if (((a ^ v) & (b ^ v)) < 0)
				return GA_ERR_INT8_RANGE;
			break;
		case GA_OP_SUB:
			v = (int64_t) ((uint64_t) a - (uint64_t) b);
			if (((a ^ b) & (a ^ v)) < 0)
				return GA_ERR_INT8_RANGE;
			break;
		case GA_OP_MUL:
			{
				__int128	w = (__int128) a * (__int128) b;

				if (w < INT64_MIN || w > INT64_MAX)
					return GA_ERR_INT8_RANGE;
				v = (int64_t) w;
				break;
			}
		case GA_OP_DIV:
			if (b == 0)
				return GA_ERR_DIV_ZERO;
			if (b == -1)
			{
				if (a == INT64_MIN)
					return GA_ERR_INT8_RANGE;
				v = -a;
			}
			else
				v = a / b;
			break;
		case GA_OP_MOD:
			if (b == 0)
				return GA_ERR_DIV_ZERO;
			v = (b == -1) ? 0 : a % b;
			break;
		case GA_OP_NEG:
			if (a == INT64_MIN)
				return GA_ERR_INT8_RANGE;
			v = -a;
			break;
		default:
			return GA_ERR_INTERNAL;
	}
	*r = v;
	return ga_int_range(type, v);
}

/*
 * a * 10^k for a numeric of k more decimal places: GA_ERR_NUMERIC_EXACT
 * where the result does not fit (PostgreSQL's numeric has room: the
 * query takes its exact path).
 */
GA_DEVFN int
ga_numeric_scale(int64_t a, int k, int64_t *r)
{
	__int128	w;

	if (k < 0 || k > GA_NUMERIC_MAX_SCALE)
		return GA_ERR_INTERNAL;
	w = (__int128) a * ga_pow10(k);
	if (w < INT64_MIN || w > INT64_MAX)
		return GA_ERR_NUMERIC_EXACT;
	*r = (int64_t) w;
	return GA_OK;
}

/*
 * A scaled numeric v without its last drop digits (0 .. 18), rounded as
 * how says (GaRounding): half away from zero as round_var does, toward
 * zero as trunc_var, down as floor_var, up as ceil_var.
 */
GA_DEVFN int64_t
ga_numeric_drop(int64_t v, int drop, int how)
{
	int64_t		p = ga_pow10(drop);
	int64_t		q = v / p;
	int64_t		r = v % p;

	if (how == GA_ROUND_HALF && 2 * (r < 0 ? -r : r) >= p)
		q += v < 0 ? -1 : 1;
	else if (how == GA_ROUND_FLOOR && r < 0)
		q--;
	else if (how == GA_ROUND_CEIL && r > 0)
		q++;
	return q;
}

/*
 * A numeric v at scale s to an integer or a float, as numeric_int4 (and
 * int2, int8: rounded half away from zero, then checked against the type's
 * range) and numeric_float8 / numeric_float4 (the value's decimal text read
 * by float8in / float4in: correctly rounded).  A float division of two
 * exact values is correctly rounded too, so v / 10^s is float8in's answer
 * while |v| <= 2^53 (float4: 2^24 and 10^s up to 10^10); past that the
 * query takes its exact path.
 */
GA_DEVFN int
ga_numeric_cast(int to, int s, GaDatum v, GaDatum *r)
{
	switch (to)
	{
		case GA_T_INT2:
		case GA_T_INT4:
		case GA_T_INT8:
			r->i = ga_numeric_drop(v.i, s, 0);
			return ga_int_range(to, r->i);
		case GA_T_FLOAT8:
			if (v.i < -(INT64_C(1) << 53) || v.i > (INT64_C(1) << 53))
				return GA_ERR_NUMERIC_EXACT;
			r->f = (double) v.i / (double) ga_pow10(s);
			return GA_OK;
		case GA_T_FLOAT4:
			if (v.i < -(INT64_C(1) << 24) || v.i > (INT64_C(1) << 24) || s > 10)
				return GA_ERR_NUMERIC_EXACT;
			r->f = (double) ((float) v.i / (float) ga_pow10(s));
			return GA_OK;
		default:
			return GA_ERR_INTERNAL;
	}
}

/* float4 arithmetic in single precision, as float4pl and friends do. */
GA_DEVFN int
ga_f4_arith(int op, float a, float b, float *r)
{
	float		v;

	switch (op)
	{
		case GA_OP_ADD:
			v = a + b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			break;
		case GA_OP_SUB:
			v = a - b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			break;
		case GA_OP_MUL:
			v = a * b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			if (v == 0.0f && a != 0.0f && b != 0.0f)
				return GA_ERR_FLOAT_UNDERFLOW;
			break;
		case GA_OP_DIV:
			if (b == 0.0f && !isnan(a))
				return GA_ERR_DIV_ZERO;
			v = a / b;
			if (isinf(v) && !isinf(a))
				return GA_ERR_FLOAT_OVERFLOW;
			if (v == 0.0f && a != 0.0f && !isinf(b))
				return GA_ERR_FLOAT_UNDERFLOW;
			break;
		case GA_OP_NEG:
			v = -a;
			break;
		default:
			return GA_ERR_INTERNAL;
	}
	*r = v;
	return GA_OK;
}

GA_DEVFN int
ga_f8_arith(int op, double a, double b, double *r)
{
	double		v;

	switch (op)
	{
		case GA_OP_ADD:
			v = a + b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			break;
		case GA_OP_SUB:
			v = a - b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			break;
		case GA_OP_MUL:
			v = a * b;
			if (isinf(v) && !isinf(a) && !isinf(b))
				return GA_ERR_FLOAT_OVERFLOW;
			if (v == 0.0 && a != 0.0 && b != 0.0)
				return GA_ERR_FLOAT_UNDERFLOW;
			break;
		case GA_OP_DIV:
			if (b == 0.0 && !isnan(a))
				return GA_ERR_DIV_ZERO;
			v = a / b;
			if (isinf(v) && !isinf(a))
				return GA_ERR_FLOAT_OVERFLOW;
			if (v == 0.0 && a != 0.0 && !isinf(b))
				return GA_ERR_FLOAT_UNDERFLOW;
			break;
		case GA_OP_NEG:
			v = -a;
			break;
		default:
			return GA_ERR_INTERNAL;
	}
	*r = v;
	return GA_OK;
}

/* float8_cmp_internal: NaN equals NaN and is greater than anything else. */
GA_DEVFN int
ga_float_cmp(double a, double b)
{
	if (isnan(a))
		return isnan(b) ? 0 : 1;
	if (isnan(b))
		return -1;
	return (a > b) ? 1 : (a < b) ? -1 : 0;
}

/*
 * Julian day number of a proleptic Gregorian date (astronomical years: 0
 * is 1 BC), and back, for day numbers >= 0: Fliegel and Van Flandern's
 * arithmetic (1968), which gives the day numbers PostgreSQL's date2j and
 * j2date give.
 */
GA_DEVFN int64_t
ga_date_to_julian(int64_t y, int64_t m, int64_t d)
{
	int64_t		a = (m - 14) / 12;	/* -1 for January and February, else 0 */

	return (1461 * (y + 4800 + a)) / 4 + (367 * (m - 2 - 12 * a)) / 12 -
		(3 * ((y + 4900 + a) / 100)) / 4 + d - 32075;
}

GA_DEVFN void
ga_julian_to_date(int64_t jd, int64_t *y, int64_t *m, int64_t *d)
{
	int64_t		l = jd + 68569,
				n = 4 * l / 146097,
				i,
				j;

	l -= (146097 * n + 3) / 4;
	i = 4000 * (l + 1) / 1461001;
	l = l - 1461 * i / 4 + 31;
	j = 80 * l / 2447;
	*d = l - 2447 * j / 80;
	l = j / 11;
	*m = j + 2 - 12 * l;
	*y = 100 * (n - 49) + i + l;
}

/* The earliest timestamp, 4714-11-24 00:00 BC (Julian day 0). */
#define GA_MIN_TIMESTAMP	(-(int64_t) GA_POSTGRES_EPOCH_JDATE * GA_USECS_PER_DAY)
/* The first timestamp past the range (END_TIMESTAMP). */
#define GA_END_TIMESTAMP \
	((int64_t) (GA_TIMESTAMP_END_JULIAN - GA_POSTGRES_EPOCH_JDATE) * GA_USECS_PER_DAY)
/* Days from 1970-01-01 to 2000-01-01 (UNIX_EPOCH_JDATE to POSTGRES_EPOCH_JDATE). */
#define GA_UNIX_EPOCH_DAYS	INT64_C(10957)

/*
 * A finite timestamp as its day (from 2000-01-01, rounded down) and its
 * time of day in microseconds (0 .. a day), as timestamp2tm splits it.
 */
GA_DEVFN void
ga_ts_split(int64_t ts, int64_t *day, int64_t *time)
{
	*day = ts / GA_USECS_PER_DAY;
	*time = ts % GA_USECS_PER_DAY;
	if (*time < 0)
	{
		*time += GA_USECS_PER_DAY;
		(*day)--;
	}
}

/*
 * date_trunc(unit, ts) on a timestamp without time zone, as timestamp_trunc:
 * infinities stay; the time of day is truncated (the day starts at 0 even
 * before 2000); a week starts on its ISO Monday (Julian day 0 was a
 * Monday); a result before the earliest timestamp is out of range, as
 * PostgreSQL finds when it rebuilds the value.
 */
GA_DEVFN int
ga_timestamp_trunc(int unit, int64_t ts, int64_t *out)
{
	int64_t		day,
				time,
				jd,
				y,
				m,
				d;

	if (ts == INT64_MIN || ts == INT64_MAX)
	{
		*out = ts;
		return GA_OK;
	}
	ga_ts_split(ts, &day, &time);
	if (unit <= GA_TRUNC_HOUR)
	{
		int64_t		tick = unit == GA_TRUNC_MICROSECONDS ? 1 :
			unit == GA_TRUNC_MILLISECONDS ? 1000 :
			unit == GA_TRUNC_SECOND ? 1000000 :
			unit == GA_TRUNC_MINUTE ? 60000000 : INT64_C(3600000000);

		*out = ts - time % tick;
		return GA_OK;
	}
	jd = day + GA_POSTGRES_EPOCH_JDATE;
	if (unit == GA_TRUNC_WEEK)
		jd -= jd % 7;
	else if (unit >= GA_TRUNC_MONTH)
	{
		ga_julian_to_date(jd, &y, &m, &d);
		if (unit == GA_TRUNC_QUARTER)
			m = 3 * ((m - 1) / 3) + 1;
		else if (unit != GA_TRUNC_MONTH)
			m = 1;
		/*
		 * the first year of the decade, century (2001, 1901; 100 BC, the
		 * year -99 here where 1 BC is 0, starts the 1st century BC) or
		 * millennium, as timestamp_trunc counts them
		 */
		if (unit == GA_TRUNC_DECADE)
			y = y > 0 ? (y / 10) * 10 : -((8 - (y - 1)) / 10) * 10;
		else if (unit == GA_TRUNC_CENTURY)
			y = y > 0 ? ((y + 99) / 100) * 100 - 99 : -((99 - (y - 1)) / 100) * 100 + 1;
		else if (unit == GA_TRUNC_MILLENNIUM)
			y = y > 0 ? ((y + 999) / 1000) * 1000 - 999 : -((999 - (y - 1)) / 1000) * 1000 + 1;
		jd = ga_date_to_julian(y, m, 1);
	}
	*out = (jd - GA_POSTGRES_EPOCH_JDATE) * GA_USECS_PER_DAY;
	return *out < GA_MIN_TIMESTAMP ? GA_ERR_TIMESTAMP_RANGE : GA_OK;
}

/* How many of the zone's transitions are at or before instant t? */
GA_DEVFN uint32_t
ga_zone_passed(const GaZone *z, int64_t t)
{
	uint32_t	lo = 0,
				hi = z->n;

	while (lo < hi)
	{
		uint32_t	mid = (lo + hi) / 2;

		if (z->at[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * The UTC offset (microseconds east) of the zone at instant ts, a finite
 * timestamptz, as pg_localtime finds it for timestamp2tm (the
 * whole second at or before ts): the offset of the last transition at or
 * before it.  GA_ERR_TZ_WINDOW outside the table's window.
 */
GA_DEVFN int
ga_zone_offset(const GaZone *z, int64_t ts, int64_t *off)
{
	uint32_t	i;

	if (ts < z->lo || ts >= z->hi)
		return GA_ERR_TZ_WINDOW;
	/* transitions fall on whole seconds: at[i] <= ts as their seconds */
	i = ga_zone_passed(z, ts);
	*off = (int64_t) (i > 0 ? z->off[i - 1] : z->off0) * GA_USECS_PER_SEC;
	return GA_OK;
}

/*
 * The instant of local time local (a timestamp, finite) in the zone: local
 * less the UTC offset DetermineTimeZoneOffset gives it: the first
 * transition after a day before it, and the offsets either side
 * of it; a local time that both or neither give lies on that side of the
 * transition, one that a spring-forward skips takes the offset before it,
 * one that a fall-back repeats the offset after it.
 */
GA_DEVFN int
ga_zone_instant(const GaZone *z, int64_t local, int64_t *ts)
{
	int64_t		t = local / GA_USECS_PER_SEC,
				prev,
				boundary,
				before,
				after,
				off;
	uint32_t	lo;

	if (local % GA_USECS_PER_SEC < 0)
		t--;
	prev = (t - 86400) * GA_USECS_PER_SEC;
	if (prev <= z->local_from)
		return GA_ERR_TZ_WINDOW;
	/* the first transition after prev (pg_next_dst_boundary) */
	lo = ga_zone_passed(z, prev);
	if (lo == z->n)
	{
		if (!z->complete)
			return GA_ERR_TZ_WINDOW;
		*ts = local - (int64_t) z->beyond * GA_USECS_PER_SEC;
		return GA_OK;
	}
	before = lo > 0 ? z->off[lo - 1] : z->off0;
	after = z->off[lo];
	boundary = z->at[lo] / GA_USECS_PER_SEC;
	/* the candidate instants, in seconds */
	if ((t - before < boundary) == (t - after < boundary))
		off = t - before < boundary ? before : after;
	else
		off = t - before > t - after ? before : after;
	*ts = local - off * GA_USECS_PER_SEC;
	return GA_OK;
}

/*
 * The local time of timestamptz ts in the zone, as
 * timestamp2tm reads it (infinities stay themselves).
 */
GA_DEVFN int
ga_zone_local(const GaZone *z, int64_t ts, int64_t *local)
{
	int64_t		off;
	int			err;

	*local = ts;
	if (ts == INT64_MIN || ts == INT64_MAX)
		return GA_OK;
	if ((err = ga_zone_offset(z, ts, &off)) != GA_OK)
		return err;
	*local = ts + off;
	return GA_OK;
}

/*
 * date_trunc(unit, ts) of a timestamptz in the zone, as
 * timestamptz_trunc: the local time truncated; to a day or more, the
 * offset that the truncated local time has (DetermineTimeZoneOffset), else
 * the instant's own, taken back; a result outside the timestamp range is
 * out of range, as tm2timestamp finds.
 */
GA_DEVFN int
ga_timestamptz_trunc(const GaZone *z, int unit, int64_t ts, int64_t *out)
{
	int64_t		off,
				local;
	int			err;

	*out = ts;
	if (ts == INT64_MIN || ts == INT64_MAX)
		return GA_OK;
	if ((err = ga_zone_offset(z, ts, &off)) != GA_OK)
		return err;
	/* (the range is checked below, on the zone's time) */
	(void) ga_timestamp_trunc(unit, ts + off, &local);
	*out = local - off;
	if (unit >= GA_TRUNC_DAY && (err = ga_zone_instant(z, local, out)) != GA_OK)
		return err;
	return *out < GA_MIN_TIMESTAMP || *out >= GA_END_TIMESTAMP ? GA_ERR_TIMESTAMP_RANGE : GA_OK;
}

/* Day of the week of Julian day jd, 0 = Sunday (j2day). */
GA_DEVFN int64_t
ga_j2day(int64_t jd)
{
	int64_t		d = (jd + 1) % 7;

	return d < 0 ? d + 7 : d;
}

/*
 * The ISO 8601 week of Julian day jd (in year y of the calendar) and the
 * year it belongs to, as date2isoweek and date2isoyear: week 1 holds the
 * year's first Thursday (its January 4th).
 */
GA_DEVFN void
ga_iso_week(int64_t jd, int64_t y, int64_t *week, int64_t *isoyear)
{
	int64_t		day4 = ga_date_to_julian(y, 1, 4),
				day0 = ga_j2day(day4 - 1),
				w;

	if (jd < day4 - day0)
	{
		y--;
		day4 = ga_date_to_julian(y, 1, 4);
		day0 = ga_j2day(day4 - 1);
	}
	w = (jd - (day4 - day0)) / 7 + 1;
	if (w >= 52)
	{
		int64_t		next4 = ga_date_to_julian(y + 1, 1, 4),
					next0 = ga_j2day(next4 - 1);

		if (jd >= next4 - next0)
		{
			w = (jd - (next4 - next0)) / 7 + 1;
			y++;
		}
	}
	*week = w;
	*isoyear = y;
}

/* Days in month m (1..12) of calendar year y (day_tab). */
GA_DEVFN int64_t
ga_month_days(int64_t y, int64_t m)
{
	static const int8_t days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int			leap = (y % 4 == 0) && ((y % 100 != 0) || (y % 400 == 0));

	return days[m - 1] + (m == 2 && leap);
}

/*
 * extract's (a scaled integer at ga_part_scale; type float: date_part's
 * float8) fields microseconds .. hour of a time: a time of day, or an
 * interval's time, which interval2tm splits truncating toward zero as
 * these divisions do.  0 for another field.
 */
GA_DEVFN int
ga_time_part(int field, int64_t time, int fl, GaDatum *r)
{
	int64_t		sec = time % INT64_C(60000000),	/* tm_sec * 10^6 + fsec */
				n;

	switch (field)
	{
		case GA_PART_MICROSECONDS:
			n = sec;
			break;
		case GA_PART_MILLISECONDS:
			if (fl)
				r->f = (double) (sec / 1000000) * 1000.0 + (double) (sec % 1000000) / 1000.0;
			else
				r->i = sec;
			return 1;
		case GA_PART_SECOND:
			if (fl)
				r->f = (double) (sec / 1000000) + (double) (sec % 1000000) / 1000000.0;
			else
				r->i = sec;
			return 1;
		case GA_PART_MINUTE:
			n = time / INT64_C(60000000) % 60;
			break;
		case GA_PART_HOUR:
			n = time / INT64_C(3600000000);
			break;
		default:
			return 0;
	}
	if (fl)
		r->f = (double) n;
	else
		r->i = n;
	return 1;
}

/*
 * age(t1, t2) as timestamp_age and timestamptz_age form it, of two local
 * times l1 and l2 (a timestamptz's in the program's zone; the zones'
 * difference is ignored, as natively) whose instants compare as neg says
 * (t1 < t2): each field's difference (of t2 - t1 where neg), a negative
 * one borrowed from the next field up, a day from the month of t1 (neg)
 * or of t2, then the sign put back.  The interval's months, days and time
 * of day.  -infinity has no fields (timestamp out of range); +infinity's
 * are those of a day in the year 294277, as timestamp2tm finds them.
 */
GA_DEVFN int
ga_age(int64_t l1, int64_t l2, int neg, int64_t *month, int64_t *day, int64_t *time)
{
	int64_t		f[2][7];		/* year, month, day, hour, min, sec, usec */
	int64_t		r[7];
	int64_t		l[2] = {l1, l2};
	int			s = neg ? -1 : 1;

	for (int i = 0; i < 2; i++)
	{
		int64_t		dd,
					t;

		if (l[i] == INT64_MIN)
			return GA_ERR_TIMESTAMP_RANGE;
		ga_ts_split(l[i], &dd, &t);
		/* (a local time before Julian day 0: PostgreSQL's own plan) */
		if (dd + GA_POSTGRES_EPOCH_JDATE < 0)
			return GA_ERR_TZ_WINDOW;
		ga_julian_to_date(dd + GA_POSTGRES_EPOCH_JDATE, &f[i][0], &f[i][1], &f[i][2]);
		f[i][3] = t / INT64_C(3600000000);
		f[i][4] = t / INT64_C(60000000) % 60;
		f[i][5] = t / 1000000 % 60;
		f[i][6] = t % 1000000;
	}
	for (int k = 0; k < 7; k++)
		r[k] = s * (f[0][k] - f[1][k]);
	while (r[6] < 0)
	{
		r[6] += 1000000;
		r[5]--;
	}
	while (r[5] < 0)
	{
		r[5] += 60;
		r[4]--;
	}
	while (r[4] < 0)
	{
		r[4] += 60;
		r[3]--;
	}
	while (r[3] < 0)
	{
		r[3] += 24;
		r[2]--;
	}
	while (r[2] < 0)
	{
		r[2] += neg ? ga_month_days(f[0][0], f[0][1]) : ga_month_days(f[1][0], f[1][1]);
		r[1]--;
	}
	while (r[1] < 0)
	{
		r[1] += 12;
		r[0]--;
	}
	*month = s * (r[0] * 12 + r[1]);
	*day = s * r[2];
	*time = s * (((r[3] * 60 + r[4]) * 60 + r[5]) * 1000000 + r[6]);
	return GA_OK;
}

/*
 * An instruction GA_OP_AGE: age(a, b) of two timestamps, or of two
 * timestamptzs in the program's zone (imm & GA_AGE_TZ), read as
 * interval_cmp's value (imm GA_AGE_CMP: int128 there, here held at the
 * ends of int64, which the constants it is compared with are within) or
 * as extract's / date_part's field of it (imm a GaPartField, as
 * interval_part_common reads it from interval2tm's fields).
 */
GA_DEVFN int
ga_age_eval(const GaInstr *in, const GaZone *z, int64_t t1, int64_t t2, GaDatum *r)
{
	int64_t		l1 = t1,
				l2 = t2,
				month,
				day,
				time,
				n;
	int			what = in->imm & ~GA_AGE_TZ,
				fl = in->type == GA_T_FLOAT8,
				err;

	if (in->imm & GA_AGE_TZ)
	{
		/* (+infinity's local time, under the zone's rule: PostgreSQL's own plan) */
		if (t1 == INT64_MAX || t2 == INT64_MAX)
			return GA_ERR_TZ_WINDOW;
		if ((err = ga_zone_local(z, t1, &l1)) != GA_OK ||
			(err = ga_zone_local(z, t2, &l2)) != GA_OK)
			return err;
	}
	if ((err = ga_age(l1, l2, t1 < t2, &month, &day, &time)) != GA_OK)
		return err;
	if (what == GA_AGE_CMP)
	{
		__int128	v = (__int128) (month * 30 + day) * GA_USECS_PER_DAY + time;

		r->i = v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t) v;
		return GA_OK;
	}
	if (ga_time_part(what, time, fl, r))
		return GA_OK;
	switch (what)
	{
		case GA_PART_DAY:
			n = day;
			break;
		case GA_PART_MONTH:
			n = month % 12;
			break;
		case GA_PART_QUARTER:
			n = month % 12 / 3 + 1;
			break;
		case GA_PART_YEAR:
			n = month / 12;
			break;
		case GA_PART_DECADE:
			n = month / 12 / 10;
			break;
		case GA_PART_CENTURY:
			n = month / 12 / 100;
			break;
		case GA_PART_MILLENNIUM:
			n = month / 12 / 1000;
			break;
		default:
			return GA_ERR_INTERNAL;
	}
	if (fl)
		r->f = (double) n;
	else
		r->i = n;
	return GA_OK;
}

/* Microseconds from 1970-01-01 to 2000-01-01 (SetEpochTimestamp's). */
#define GA_UNIX_EPOCH_USECS	(GA_UNIX_EPOCH_DAYS * GA_USECS_PER_DAY)

/*
 * extract(field FROM v) and date_part(field, v) of a timestamp or a date
 * (instruction in: GA_OP_TS_PART), as timestamp_part_common and
 * extract_date compute them: extract's numeric as a scaled integer at
 * ga_part_scale, date_part's float8 with the same float arithmetic.  An
 * infinite value has no field but the ever-growing ones (year, decade,
 * century, millennium, julian, isoyear, epoch), which are +-Infinity:
 * *isnull for the others, the exact path for a numeric infinity.
 */
GA_DEVFN int
ga_ts_part(const GaInstr *in, GaDatum v, GaDatum *r, uint8_t *isnull)
{
	int			field = in->imm,
				of_date = in->b,
				fl = in->type == GA_T_FLOAT8;
	int64_t		day,
				time = 0,
				jd,
				y,
				m,
				d,
				n,
				w;

	*isnull = 0;
	if (of_date ? (v.i == GA_DATEVAL_NOBEGIN || v.i == GA_DATEVAL_NOEND) :
		(v.i == INT64_MIN || v.i == INT64_MAX))
	{
		if (!ga_part_grows(field))
		{
			*isnull = 1;
			return GA_OK;
		}
		if (!fl)
			return GA_ERR_NUMERIC_EXACT;
		r->f = v.i > 0 ? INFINITY : -INFINITY;
		return GA_OK;
	}
	if (of_date)
		day = v.i;
	else
		ga_ts_split(v.i, &day, &time);
	if (ga_time_part(field, time, fl, r))
		return GA_OK;
	jd = day + GA_POSTGRES_EPOCH_JDATE;
	ga_julian_to_date(jd, &y, &m, &d);
	switch (field)
	{
		case GA_PART_DAY:
			n = d;
			break;
		case GA_PART_MONTH:
			n = m;
			break;
		case GA_PART_QUARTER:
			n = (m - 1) / 3 + 1;
			break;
		case GA_PART_YEAR:
			/* there is no year 0: 1 BC is year 0 of the calendar */
			n = y > 0 ? y : y - 1;
			break;
		case GA_PART_DECADE:
			n = y >= 0 ? y / 10 : -((8 - (y - 1)) / 10);
			break;
		case GA_PART_CENTURY:
			n = y > 0 ? (y + 99) / 100 : -((99 - (y - 1)) / 100);
			break;
		case GA_PART_MILLENNIUM:
			n = y > 0 ? (y + 999) / 1000 : -((999 - (y - 1)) / 1000);
			break;
		case GA_PART_DOW:
		case GA_PART_ISODOW:
			n = ga_j2day(jd);
			if (field == GA_PART_ISODOW && n == 0)
				n = 7;
			break;
		case GA_PART_DOY:
			n = jd - ga_date_to_julian(y, 1, 1) + 1;
			break;
		case GA_PART_WEEK:
			ga_iso_week(jd, y, &n, &w);
			break;
		case GA_PART_ISOYEAR:
			ga_iso_week(jd, y, &w, &n);
			if (n <= 0)
				n -= 1;
			break;
		case GA_PART_EPOCH:
			if (of_date)
			{
				n = (day + GA_UNIX_EPOCH_DAYS) * 86400;
				break;
			}
			if (v.i >= INT64_MAX - GA_UNIX_EPOCH_USECS)
			{
				if (!fl)
					return GA_ERR_NUMERIC_EXACT;
				r->f = ((double) v.i + (double) GA_UNIX_EPOCH_USECS) / 1000000.0;
				return GA_OK;
			}
			if (fl)
				r->f = (double) (v.i + GA_UNIX_EPOCH_USECS) / 1000000.0;
			else
				r->i = v.i + GA_UNIX_EPOCH_USECS;
			return GA_OK;
		case GA_PART_JULIAN:
			n = jd;
			break;
		default:
			return GA_ERR_INTERNAL;
	}
	if (fl)
		r->f = (double) n;
	else
		r->i = n;
	return GA_OK;
}

/*
 * A Julian day and a time of day as a timestamp, or GA_ERR_TIMESTAMP_RANGE
 * where tm2timestamp fails: outside the timestamp range.
 */
GA_DEVFN int
ga_make_timestamp(int64_t jd, int64_t time, int64_t *ts)
{
	if (jd < 0 || jd >= GA_TIMESTAMP_END_JULIAN)
		return GA_ERR_TIMESTAMP_RANGE;
	*ts = (jd - GA_POSTGRES_EPOCH_JDATE) * GA_USECS_PER_DAY + time;
	return *ts < GA_MIN_TIMESTAMP ? GA_ERR_TIMESTAMP_RANGE : GA_OK;
}

/*
 * timestamp + interval, as timestamp_pl_interval: the months first (the
 * day of the month kept, or the month's last where it has fewer), then the
 * days (through the calendar), then the microseconds; infinities stay.
 * of_date: the value is a date, made a timestamp first as date2timestamp
 * does (date_pl_interval).
 */
GA_DEVFN int
ga_ts_pl_interval(int64_t v, int of_date, int64_t usecs, int64_t monthday, int64_t *out)
{
	int64_t		months = (int32_t) (uint32_t) ((uint64_t) monthday >> 32),
				days = (int32_t) (uint32_t) (uint64_t) monthday,
				day,
				time,
				jd,
				y,
				m,
				d,
				ts;
	int			err;

	if (of_date)
	{
		if (v == GA_DATEVAL_NOBEGIN || v == GA_DATEVAL_NOEND)
		{
			*out = v == GA_DATEVAL_NOBEGIN ? INT64_MIN : INT64_MAX;
			return GA_OK;
		}
		if (v >= GA_TIMESTAMP_END_JULIAN - GA_POSTGRES_EPOCH_JDATE)
			return GA_ERR_DATE_TS_RANGE;
		v *= GA_USECS_PER_DAY;
	}
	else if (v == INT64_MIN || v == INT64_MAX)
	{
		*out = v;
		return GA_OK;
	}
	ts = v;
	if (months != 0 || days != 0)
	{
		ga_ts_split(ts, &day, &time);
		jd = day + GA_POSTGRES_EPOCH_JDATE;
		if (months != 0)
		{
			ga_julian_to_date(jd, &y, &m, &d);
			m += months;
			if (m > 12)
			{
				y += (m - 1) / 12;
				m = (m - 1) % 12 + 1;
			}
			else if (m < 1)
			{
				y += m / 12 - 1;
				m = m % 12 + 12;
			}
			/* (far outside the timestamp range either way) */
			if (y < -4800 || y > 300000)
				return GA_ERR_TIMESTAMP_RANGE;
			if (d > ga_month_days(y, m))
				d = ga_month_days(y, m);
			jd = ga_date_to_julian(y, m, d);
			if ((err = ga_make_timestamp(jd, time, &ts)) != GA_OK)
				return err;
		}
		if (days != 0 && (err = ga_make_timestamp(jd + days, time, &ts)) != GA_OK)
			return err;
	}
	/* the time: past int64 is past the range too */
	if ((usecs > 0 && ts > INT64_MAX - usecs) || (usecs < 0 && ts < INT64_MIN - usecs))
		return GA_ERR_TIMESTAMP_RANGE;
	ts += usecs;
	if (ts < GA_MIN_TIMESTAMP || ts >= GA_END_TIMESTAMP)
		return GA_ERR_TIMESTAMP_RANGE;
	*out = ts;
	return GA_OK;
}

/*
 * A timestamp as a date (timestamp_date: infinities stay infinite), or as
 * a timestamp or timestamptz, which must be in range.
 */
GA_DEVFN int
ga_timestamp_cast(int to, int64_t ts, GaDatum *r)
{
	int64_t		day,
				time;

	if (ts == INT64_MIN || ts == INT64_MAX)
	{
		r->i = to == GA_T_DATE ? (ts == INT64_MIN ? GA_DATEVAL_NOBEGIN : GA_DATEVAL_NOEND) : ts;
		return GA_OK;
	}
	if (to == GA_T_TIMESTAMP || to == GA_T_TIMESTAMPTZ)
	{
		r->i = ts;
		return ts < GA_MIN_TIMESTAMP || ts >= GA_END_TIMESTAMP ? GA_ERR_TIMESTAMP_RANGE : GA_OK;
	}
	ga_ts_split(ts, &day, &time);
	r->i = day;
	return GA_OK;
}

/*
 * A date as a timestamp (date2timestamp: its midnight) or, in the zone, a
 * timestamptz (date2timestamptz: the instant of its local midnight);
 * infinities stay infinite, a date past the timestamp range is out of it.
 */
GA_DEVFN int
ga_date_cast(const GaZone *z, int to, int64_t date, GaDatum *r)
{
	int			err;

	if (date == GA_DATEVAL_NOBEGIN || date == GA_DATEVAL_NOEND)
	{
		r->i = date == GA_DATEVAL_NOBEGIN ? INT64_MIN : INT64_MAX;
		return GA_OK;
	}
	if (date >= GA_TIMESTAMP_END_JULIAN - GA_POSTGRES_EPOCH_JDATE)
		return GA_ERR_DATE_TS_RANGE;
	r->i = date * GA_USECS_PER_DAY;
	if (to != GA_T_TIMESTAMPTZ)
		return GA_OK;
	if ((err = ga_zone_instant(z, r->i, &r->i)) != GA_OK)
		return err;
	return r->i < GA_MIN_TIMESTAMP || r->i >= GA_END_TIMESTAMP ? GA_ERR_DATE_TS_RANGE : GA_OK;
}

/*
 * A date or a timestamp as the timestamptz it is compared with (in the
 * zone), as date2timestamptz_opt_overflow and
 * timestamp2timestamptz_opt_overflow give it to date_cmp_timestamptz and
 * timestamp_cmp_timestamptz: past the range, above every finite value and
 * below infinity (or the other way round).
 */
GA_DEVFN int
ga_timestamptz_compared(const GaZone *z, int from, int64_t v, GaDatum *r)
{
	int			err;

	if (from == GA_T_DATE)
	{
		if (v == GA_DATEVAL_NOBEGIN || v == GA_DATEVAL_NOEND)
		{
			r->i = v == GA_DATEVAL_NOBEGIN ? INT64_MIN : INT64_MAX;
			return GA_OK;
		}
		if (v >= GA_TIMESTAMP_END_JULIAN - GA_POSTGRES_EPOCH_JDATE)
		{
			r->i = INT64_MAX - 1;
			return GA_OK;
		}
		v *= GA_USECS_PER_DAY;
	}
	else if (v == INT64_MIN || v == INT64_MAX)
	{
		r->i = v;
		return GA_OK;
	}
	if ((err = ga_zone_instant(z, v, &v)) != GA_OK)
		return err;
	r->i = v < GA_MIN_TIMESTAMP ? INT64_MIN + 1 : v >= GA_END_TIMESTAMP ? INT64_MAX - 1 : v;
	return GA_OK;
}

/*
 * In the zone: a timestamptz as a date or a timestamp
 * (timestamptz_date, timestamptz_timestamp: its local time's), a
 * timestamp as a timestamptz (timestamp_timestamptz: the instant of that
 * local time).
 */
GA_DEVFN int
ga_timestamptz_cast(const GaZone *z, int to, int from, int64_t ts, GaDatum *r)
{
	int			err;

	if (from == GA_T_TIMESTAMPTZ)
		err = ga_zone_local(z, ts, &ts);
	else if (ts == INT64_MIN || ts == INT64_MAX)
		err = GA_OK;
	else
		err = ga_zone_instant(z, ts, &ts);
	return err != GA_OK ? err : ga_timestamp_cast(to, ts, r);
}

/* Cast value v of type from to type to (PostgreSQL's cast functions). */
GA_DEVFN int
ga_cast(int to, int from, GaDatum v, GaDatum *r)
{
	if (from == GA_T_TIMESTAMP && to == GA_T_DATE)
		return ga_timestamp_cast(to, v.i, r);
	if (from == GA_T_DATE && to == GA_T_TIMESTAMP)
	{
		/*
		 * Only for comparing a date with a timestamp (date_cmp_timestamp): a
		 * date past the timestamp range sorts above every finite timestamp
		 * and below infinity.
		 */
		if (v.i == GA_DATEVAL_NOBEGIN)
			r->i = INT64_MIN;
		else if (v.i == GA_DATEVAL_NOEND)
			r->i = INT64_MAX;
		else if (v.i >= GA_TIMESTAMP_END_JULIAN - GA_POSTGRES_EPOCH_JDATE)
			r->i = INT64_MAX - 1;
		else
			r->i = v.i * GA_USECS_PER_DAY;
		return GA_OK;
	}
	if (!ga_type_is_float(from))
	{
		if (to == GA_T_FLOAT4)
		{
			r->f = (double) (float) v.i;
			return GA_OK;
		}
		if (to == GA_T_FLOAT8)
		{
			r->f = (double) v.i;
			return GA_OK;
		}
		r->i = v.i;
		return ga_int_range(to, v.i);
	}
	if (to == GA_T_FLOAT8)
	{
		r->f = v.f;				/* float4 values are exact in double */
		return GA_OK;
	}
	if (to == GA_T_FLOAT4)
	{
		float		f = (float) v.f;

		if (from == GA_T_FLOAT8)
		{
			if (isinf(f) && !isinf(v.f))
				return GA_ERR_FLOAT_OVERFLOW;
			if (f == 0.0f && v.f != 0.0)
				return GA_ERR_FLOAT_UNDERFLOW;
		}
		r->f = (double) f;
		return GA_OK;
	}
	/* float to integer: round half to even, then range check */
	{
		double		d = rint(v.f);

		if (isnan(d))
			return ga_int_err(to);
		if (to == GA_T_INT8)
		{
			/* FLOAT8_FITS_IN_INT64 */
			if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
				return GA_ERR_INT8_RANGE;
		}
		else if (to == GA_T_INT4)
		{
			if (!(d >= -2147483648.0 && d < 2147483648.0))
				return GA_ERR_INT4_RANGE;
		}
		else if (!(d >= -32768.0 && d < 32768.0))
			return GA_ERR_INT2_RANGE;
		r->i = (int64_t) d;
		return GA_OK;
	}
}

GA_DEVFN int
ga_valid_date(int64_t d)
{
	return d >= -GA_POSTGRES_EPOCH_JDATE &&
		d < GA_DATE_END_JULIAN - GA_POSTGRES_EPOCH_JDATE;
}

/*
 * The strict operations of one operand that may raise: the value of a not
 * NULL a (ga_eval gives NULL for NULL and raises nothing).
 */
GA_DEVFN int
ga_unary(const GaInstr *in, GaDatum a, GaDatum *r)
{
	switch (in->op)
	{
		case GA_OP_CAST:
			return in->b == GA_T_NUMERIC ? ga_numeric_cast(in->type, in->imm, a, r) :
				ga_cast(in->type, in->b, a, r);
		case GA_OP_NUM_SCALE:
			return ga_numeric_scale(a.i, in->imm, &r->i);
		case GA_OP_NUM_ROUND:
			r->i = ga_numeric_drop(a.i, in->imm, in->b);
			return GA_OK;
		case GA_OP_NUM_ABS:
			if (ga_type_is_float(in->type))
			{
				r->f = fabs(a.f);
				return GA_OK;
			}
			if (in->type != GA_T_NUMERIC)
			{
				/* int2abs, int4abs, int8abs: the type's minimum has none */
				if (in->type == GA_T_INT2 && a.i == INT16_MIN)
					return GA_ERR_INT2_RANGE;
				if (in->type == GA_T_INT4 && a.i == INT32_MIN)
					return GA_ERR_INT4_RANGE;
				if (in->type == GA_T_INT8 && a.i == INT64_MIN)
					return GA_ERR_INT8_RANGE;
				r->i = a.i < 0 ? -a.i : a.i;
				return GA_OK;
			}
			if (in->b == 1)
				r->i = (a.i > 0) - (a.i < 0);
			else if (a.i == INT64_MIN)
				return GA_ERR_NUMERIC_EXACT;
			else
				r->i = a.i < 0 ? -a.i : a.i;
			return GA_OK;
		case GA_OP_FLT_ROUND:
			r->f = in->b == GA_ROUND_HALF ? rint(a.f) :
				in->b == GA_ROUND_TRUNC ? trunc(a.f) :
				in->b == GA_ROUND_FLOOR ? floor(a.f) : ceil(a.f);
			return GA_OK;
		case GA_OP_FLT_SIGN:
			r->f = a.f > 0 ? 1.0 : a.f < 0 ? -1.0 : 0.0;
			return GA_OK;
		case GA_OP_NUM_PRECISION:
			if (a.i >= ga_pow10(in->imm) || a.i <= -ga_pow10(in->imm))
				return GA_ERR_NUMERIC_EXACT;
			r->i = a.i;
			return GA_OK;
		default:
			return GA_ERR_INTERNAL;
	}
}

/*
 * Evaluate instructions [seg->start, seg->end) for one row.  Registers are
 * the caller's.  Returns GA_OK or a GaError.
 */
GA_DEVFN int
ga_eval(const GaProgram *p, const GaSegment *seg, const GaBatch *b,
		uint32_t row, GaDatum *regs, uint8_t *nulls)
{
	int			pc = seg->start;

	while (pc < seg->end)
	{
		const GaInstr *in = &p->code[pc];
		int			d = in->dst;
		int			err = GA_OK;

		pc++;
		switch (in->op)
		{
			case GA_OP_COL:
				nulls[d] = (uint8_t) ga_load(p, b, in->imm, row, &regs[d]);
				break;
			case GA_OP_CONST:
				regs[d] = p->consts[in->imm];
				nulls[d] = p->constnull[in->imm];
				break;
			case GA_OP_MOVE:
				regs[d] = regs[in->a];
				nulls[d] = nulls[in->a];
				break;
			case GA_OP_ADD:
			case GA_OP_SUB:
			case GA_OP_MUL:
			case GA_OP_DIV:
			case GA_OP_MOD:
			case GA_OP_NEG:
				{
					int			unary = (in->op == GA_OP_NEG);
					GaDatum		x = regs[in->a];
					GaDatum		y = regs[unary ? in->a : in->b];

					if (nulls[in->a] || (!unary && nulls[in->b]))
					{
						nulls[d] = 1;
						break;
					}
					nulls[d] = 0;
					if (in->type == GA_T_FLOAT4)
					{
						float		f = 0;

						err = ga_f4_arith(in->op, (float) x.f, (float) y.f, &f);
						regs[d].f = (double) f;
					}
					else if (in->type == GA_T_FLOAT8)
						err = ga_f8_arith(in->op, x.f, y.f, &regs[d].f);
					else
					{
						err = ga_int_arith(in->op, in->type, x.i, y.i, &regs[d].i);
						/* numeric has room where int64 has not */
						if (err == GA_ERR_INT8_RANGE && in->type == GA_T_NUMERIC)
							err = GA_ERR_NUMERIC_EXACT;
					}
					break;
				}
			case GA_OP_DATE_PLI:
			case GA_OP_DATE_MII:
				{
					int64_t		date = regs[in->a].i;
					int64_t		days = regs[in->b].i;

					if (nulls[in->a] || nulls[in->b])
					{
						nulls[d] = 1;
						break;
					}
					nulls[d] = 0;
					if (date == GA_DATEVAL_NOBEGIN || date == GA_DATEVAL_NOEND)
					{
						regs[d].i = date;	/* can't change infinity */
						break;
					}
					if (in->op == GA_OP_DATE_MII)
						days = -days;
					/* date_mii negates in int32 first: -INT_MIN overflows */
					if (days > INT32_MAX)
					{
						err = GA_ERR_DATE_RANGE;
						break;
					}
					regs[d].i = date + days;
					if (regs[d].i < INT32_MIN || regs[d].i > INT32_MAX ||
						!ga_valid_date(regs[d].i))
						err = GA_ERR_DATE_RANGE;
					break;
				}
			case GA_OP_DATE_MI:
				if (nulls[in->a] || nulls[in->b])
				{
					nulls[d] = 1;
					break;
				}
				nulls[d] = 0;
				if (in->imm == 1)
				{
					/*
					 * timestamp_mi's microseconds, before it justifies
					 * them: wrapping past int64 as PostgreSQL's -fwrapv
					 * build does
					 */
					if (regs[in->a].i == INT64_MIN || regs[in->a].i == INT64_MAX ||
						regs[in->b].i == INT64_MIN || regs[in->b].i == INT64_MAX)
					{
						err = GA_ERR_TS_INFINITE;
						break;
					}
					regs[d].i = (int64_t) ((uint64_t) regs[in->a].i - (uint64_t) regs[in->b].i);
					break;
				}
				if (regs[in->a].i == GA_DATEVAL_NOBEGIN ||
					regs[in->a].i == GA_DATEVAL_NOEND ||
					regs[in->b].i == GA_DATEVAL_NOBEGIN ||
					regs[in->b].i == GA_DATEVAL_NOEND)
				{
					err = GA_ERR_DATE_INFINITE;
					break;
				}
				regs[d].i = regs[in->a].i - regs[in->b].i;
				break;
			case GA_OP_EQ:
			case GA_OP_NE:
			case GA_OP_LT:
			case GA_OP_LE:
			case GA_OP_GT:
			case GA_OP_GE:
				{
					int			c;

					if (nulls[in->a] || nulls[in->b])
					{
						nulls[d] = 1;
						break;
					}
					if (ga_type_is_float(in->type))
						c = ga_float_cmp(regs[in->a].f, regs[in->b].f);
					else if (in->type == GA_T_TEXT)
						c = GA_TEXT_EQ(regs[in->a].u) != GA_TEXT_EQ(regs[in->b].u);
					else
						c = (regs[in->a].i > regs[in->b].i) ? 1 :
							(regs[in->a].i < regs[in->b].i) ? -1 : 0;
					nulls[d] = 0;
					switch (in->op)
					{
						case GA_OP_EQ:
							regs[d].i = (c == 0);
							break;
						case GA_OP_NE:
							regs[d].i = (c != 0);
							break;
						case GA_OP_LT:
							regs[d].i = (c < 0);
							break;
						case GA_OP_LE:
							regs[d].i = (c <= 0);
							break;
						case GA_OP_GT:
							regs[d].i = (c > 0);
							break;
						default:
							regs[d].i = (c >= 0);
							break;
					}
					break;
				}
			case GA_OP_NOT:
				nulls[d] = nulls[in->a];
				regs[d].i = !regs[in->a].i;
				break;
			case GA_OP_AND_STEP:
				if (nulls[in->a])
					nulls[d] = 1;
				else if (!regs[in->a].i)
				{
					regs[d].i = 0;
					nulls[d] = 0;
					pc = in->imm;
				}
				break;
			case GA_OP_OR_STEP:
				if (nulls[in->a])
					nulls[d] = 1;
				else if (regs[in->a].i)
				{
					regs[d].i = 1;
					nulls[d] = 0;
					pc = in->imm;
				}
				break;
			case GA_OP_QUAL_STEP:
				if (nulls[in->a] || !regs[in->a].i)
				{
					regs[d].i = 0;
					nulls[d] = 0;
					pc = in->imm;
				}
				break;
			case GA_OP_ISNULL:
				regs[d].i = nulls[in->a];
				nulls[d] = 0;
				break;
			case GA_OP_ISNOTNULL:
				regs[d].i = !nulls[in->a];
				nulls[d] = 0;
				break;
			case GA_OP_ISTRUE:
				regs[d].i = !nulls[in->a] && regs[in->a].i;
				nulls[d] = 0;
				break;
			case GA_OP_ISNOTTRUE:
				regs[d].i = nulls[in->a] || !regs[in->a].i;
				nulls[d] = 0;
				break;
			case GA_OP_ISFALSE:
				regs[d].i = !nulls[in->a] && !regs[in->a].i;
				nulls[d] = 0;
				break;
			case GA_OP_ISNOTFALSE:
				regs[d].i = nulls[in->a] || regs[in->a].i;
				nulls[d] = 0;
				break;
			case GA_OP_CAST:
				/* from or to a timestamptz: imm holds its zone's offset */
				nulls[d] = nulls[in->a];
				if (nulls[d])
					;
				else if (in->b == GA_T_DATE && in->imm == 1)
					err = ga_date_cast(&p->zone, in->type, regs[in->a].i, &regs[d]);
				else if (in->type == GA_T_TIMESTAMPTZ && in->imm == 2)
					err = ga_timestamptz_compared(&p->zone, in->b, regs[in->a].i, &regs[d]);
				else if (in->b == GA_T_TIMESTAMPTZ || in->type == GA_T_TIMESTAMPTZ)
					err = ga_timestamptz_cast(&p->zone, in->type, in->b, regs[in->a].i, &regs[d]);
				else
					err = ga_unary(in, regs[in->a], &regs[d]);
				break;
			case GA_OP_TS_TRUNC:
				/* b = 1: a timestamptz, in the program's time zone */
				nulls[d] = nulls[in->a];
				if (!nulls[d])
					err = in->b == 0 ?
						ga_timestamp_trunc(in->imm, regs[in->a].i, &regs[d].i) :
						ga_timestamptz_trunc(&p->zone, in->imm, regs[in->a].i, &regs[d].i);
				break;
			case GA_OP_NUM_SCALE:
			case GA_OP_NUM_ROUND:
			case GA_OP_NUM_ABS:
			case GA_OP_NUM_PRECISION:
			case GA_OP_FLT_ROUND:
			case GA_OP_FLT_SIGN:
				nulls[d] = nulls[in->a];
				if (!nulls[d])
					err = ga_unary(in, regs[in->a], &regs[d]);
				break;
			case GA_OP_TS_PL_INTERVAL:
				nulls[d] = nulls[in->a];
				if (!nulls[d])
					err = ga_ts_pl_interval(regs[in->a].i, in->b, p->consts[in->imm].i,
											p->consts[in->imm + 1].i, &regs[d].i);
				break;
			case GA_OP_AGE:
				nulls[d] = nulls[in->a] || nulls[in->b];
				if (!nulls[d])
					err = ga_age_eval(in, &p->zone, regs[in->a].i, regs[in->b].i, &regs[d]);
				break;
			case GA_OP_TS_PART:
				if (nulls[in->a])
					nulls[d] = 1;
				else if (in->b == 2 && in->imm >= GA_PART_TZ)
				{
					/*
					 * a timestamptz's UTC offset in its zone, seconds east,
					 * or its hours or minutes (truncated, as
					 * timestamptz_part_common); none for an infinity
					 */
					int64_t		off,
								v = regs[in->a].i;

					nulls[d] = v == INT64_MIN || v == INT64_MAX;
					if (!nulls[d] && (err = ga_zone_offset(&p->zone, v, &off)) == GA_OK)
					{
						off /= GA_USECS_PER_SEC;
						off = in->imm == GA_PART_TZ_HOUR ? off / 3600 :
							in->imm == GA_PART_TZ_MINUTE ? off / 60 % 60 : off;
						if (in->type == GA_T_FLOAT8)
							regs[d].f = (double) off;
						else
							regs[d].i = off;
					}
				}
				else if (in->b == 2)
				{
					/* a timestamptz: the fields of its local time */
					GaInstr		local = *in;
					GaDatum		v;

					local.b = 0;
					err = ga_zone_local(&p->zone, regs[in->a].i, &v.i);
					if (err == GA_OK)
						err = ga_ts_part(&local, v, &regs[d], &nulls[d]);
				}
				else
					err = ga_ts_part(in, regs[in->a], &regs[d], &nulls[d]);
				break;
			default:
				err = GA_ERR_INTERNAL;
				break;
		}
		if (err != GA_OK)
			return err;
	}
	return GA_OK;
}

/*
 * Float aggregates keep a flags slot: an input that was NaN or infinite,
 * and an overflow from finite inputs.  The CPU device raises the overflow
 * where PostgreSQL does, in scan order.  The GPU (GA_DEFER_FLOAT_OVERFLOW)
 * adds in no particular order, so it notes the overflow and carries on with
 * PostgreSQL's non-error result; the host raises "value out of range:
 * overflow" at the end when an overflow came from finite inputs alone.
 */
#define GA_FLAG_NONFINITE	1
#define GA_FLAG_OVERFLOW	2

/* Did finite inputs alone overflow a float state with these flags? */
GA_DEVFN int
ga_float_overflowed(uint64_t flags)
{
	return (flags & GA_FLAG_OVERFLOW) && !(flags & GA_FLAG_NONFINITE);
}

/*
 * Has group i (of states laid out [slot][stride]) a float aggregate whose
 * finite inputs overflowed: an error finishing it raises?
 */
GA_DEVFN int
ga_group_overflowed(const GaProgram *p, const uint64_t *states, uint64_t stride, uint64_t i)
{
	for (uint32_t a = 0; a < p->naggs; a++)
	{
		int			f = ga_agg_flags_slot(p->aggs[a].kind);

		if (f >= 0 && ga_float_overflowed(states[(uint64_t) (p->aggs[a].slot + f) * stride + i]))
			return 1;
	}
	return 0;
}

GA_DEVFN int
ga_float_overflow(uint64_t *flags)
{
#ifdef GA_DEFER_FLOAT_OVERFLOW
	*flags |= GA_FLAG_OVERFLOW;
	return GA_OK;
#else
	(void) flags;
	return GA_ERR_FLOAT_OVERFLOW;
#endif
}

/*
 * float8_accum: Youngs-Cramer update of {N, Sx, Sxx} with one value,
 * including PostgreSQL's overflow rule and NaN propagation.
 */
GA_DEVFN int
ga_accum_f8(double *st, double x, uint64_t *flags)
{
	double		n = st[0] + 1.0;
	double		sx = st[1] + x;
	double		sxx = st[2];

	if (isnan(x) || isinf(x))
		*flags |= GA_FLAG_NONFINITE;
	if (st[0] > 0.0)
	{
		double		tmp = x * n - sx;

		sxx += tmp * tmp / (n * st[0]);
		if (isinf(sx) || isinf(sxx))
		{
			if (!isinf(st[1]) && !isinf(x))
			{
				int			err = ga_float_overflow(flags);

				if (err)
					return err;
			}
			sxx = NAN;
		}
	}
	else if (isnan(x) || isinf(x))
		sxx = NAN;
	st[0] = n;
	st[1] = sx;
	st[2] = sxx;
	return GA_OK;
}

/* float8_combine: merge partial state b into a. */
GA_DEVFN int
ga_combine_f8(double *a, const double *b, uint64_t *flags)
{
	double		n1 = a[0],
				n2 = b[0];

	if (n2 == 0.0)
		return GA_OK;
	if (n1 == 0.0)
	{
		a[0] = b[0];
		a[1] = b[1];
		a[2] = b[2];
		return GA_OK;
	}
	{
		double		n = n1 + n2;
		double		sx = a[1] + b[1];
		double		tmp = a[1] / n1 - b[1] / n2;
		double		sxx = a[2] + b[2] + n1 * n2 * tmp * tmp / n;
		int			err = GA_OK;

		if ((isinf(sx) && !isinf(a[1]) && !isinf(b[1])) ||
			(isinf(sxx) && !isinf(a[2]) && !isinf(b[2])))
			err = ga_float_overflow(flags);
		if (err)
			return err;
		a[0] = n;
		a[1] = sx;
		a[2] = sxx;
	}
	return GA_OK;
}

/*
 * float8_regr_accum: Youngs-Cramer update of {N, Sx, Sxx, Sy, Syy, Sxy}
 * with one (Y, X) pair, PostgreSQL's overflow rule and NaN propagation.
 */
GA_DEVFN int
ga_regr_accum(double *st, double y, double x, uint64_t *flags)
{
	double		n = st[0] + 1.0;
	double		sx = st[1] + x;
	double		sxx = st[2];
	double		sy = st[3] + y;
	double		syy = st[4];
	double		sxy = st[5];

	if (isnan(x) || isinf(x) || isnan(y) || isinf(y))
		*flags |= GA_FLAG_NONFINITE;
	if (st[0] > 0.0)
	{
		double		tmpx = x * n - sx;
		double		tmpy = y * n - sy;
		double		scale = 1.0 / (n * st[0]);

		sxx += tmpx * tmpx * scale;
		syy += tmpy * tmpy * scale;
		sxy += tmpx * tmpy * scale;
		if (isinf(sx) || isinf(sxx) || isinf(sy) || isinf(syy) || isinf(sxy))
		{
			if (((isinf(sx) || isinf(sxx)) && !isinf(st[1]) && !isinf(x)) ||
				((isinf(sy) || isinf(syy)) && !isinf(st[3]) && !isinf(y)) ||
				(isinf(sxy) && !isinf(st[1]) && !isinf(x) && !isinf(st[3]) && !isinf(y)))
			{
				int			err = ga_float_overflow(flags);

				if (err)
					return err;
			}
			if (isinf(sxx))
				sxx = NAN;
			if (isinf(syy))
				syy = NAN;
			if (isinf(sxy))
				sxy = NAN;
		}
	}
	else
	{
		if (isnan(x) || isinf(x))
			sxx = sxy = NAN;
		if (isnan(y) || isinf(y))
			syy = sxy = NAN;
	}
	st[0] = n;
	st[1] = sx;
	st[2] = sxx;
	st[3] = sy;
	st[4] = syy;
	st[5] = sxy;
	return GA_OK;
}

/* float8_regr_combine: merge partial state b into a. */
GA_DEVFN int
ga_combine_regr(double *a, const double *b, uint64_t *flags)
{
	double		n1 = a[0],
				n2 = b[0];

	if (n2 == 0.0)
		return GA_OK;
	if (n1 == 0.0)
	{
		for (int k = 0; k < 6; k++)
			a[k] = b[k];
		return GA_OK;
	}
	{
		double		n = n1 + n2;
		double		sx = a[1] + b[1];
		double		tmp1 = a[1] / n1 - b[1] / n2;
		double		sxx = a[2] + b[2] + n1 * n2 * tmp1 * tmp1 / n;
		double		sy = a[3] + b[3];
		double		tmp2 = a[3] / n1 - b[3] / n2;
		double		syy = a[4] + b[4] + n1 * n2 * tmp2 * tmp2 / n;
		double		sxy = a[5] + b[5] + n1 * n2 * tmp1 * tmp2 / n;

		/* (float8_pl's rule for the sums, finite parts for the others) */
		if ((isinf(sx) && !isinf(a[1]) && !isinf(b[1])) ||
			(isinf(sxx) && !isinf(a[2]) && !isinf(b[2])) ||
			(isinf(sy) && !isinf(a[3]) && !isinf(b[3])) ||
			(isinf(syy) && !isinf(a[4]) && !isinf(b[4])) ||
			(isinf(sxy) && !isinf(a[5]) && !isinf(b[5])))
		{
			int			err = ga_float_overflow(flags);

			if (err)
				return err;
		}
		a[0] = n;
		a[1] = sx;
		a[2] = sxx;
		a[3] = sy;
		a[4] = syy;
		a[5] = sxy;
	}
	return GA_OK;
}

/*---- aggregate states ------------------------------------------------------
 *
 * A state is ga_agg_nslots() 64-bit slots; slot k of the state at st lives
 * at st[k * stride], so the CPU device keeps one group's slots together
 * (stride 1) and the GPU keeps each slot in an array over groups.  States
 * start zeroed.  Update and combine are the same rules on both devices and
 * match PostgreSQL's transition and combine functions.
 */
#define GA_ST(st, k, stride) ((st)[(size_t) (k) * (stride)])

/*
 * On the GPU a group's state is updated by threads of different SMs (under
 * the slot's lock); volatile accesses keep them out of the SM's incoherent
 * L1 cache.
 */
#ifdef __CUDACC__
#define GA_STATE volatile
#else
#define GA_STATE
#endif

GA_DEVFN double
ga_u2d(uint64_t u)
{
	union
	{
		uint64_t	u;
		double		d;
	}			x;

	x.u = u;
	return x.d;
}

GA_DEVFN uint64_t
ga_d2u(double d)
{
	union
	{
		uint64_t	u;
		double		d;
	}			x;

	x.d = d;
	return x.u;
}

/* Add a 128-bit value (lo, hi) to the two slots at st (lo) and st+stride. */
GA_DEVFN void
ga_add128(GA_STATE uint64_t *st, size_t stride, uint64_t lo, uint64_t hi)
{
	uint64_t	old = GA_ST(st, 0, stride);

	GA_ST(st, 0, stride) = old + lo;
	GA_ST(st, 1, stride) += hi + (old + lo < old);
}

/* Add an unsigned 192-bit value (w0, w1, w2) to three slots. */
GA_DEVFN void
ga_add192(GA_STATE uint64_t *st, size_t stride, uint64_t w0, uint64_t w1, uint64_t w2)
{
	uint64_t	o0 = GA_ST(st, 0, stride);
	uint64_t	o1 = GA_ST(st, 1, stride);
	uint64_t	c0 = (o0 + w0 < o0);
	uint64_t	t1 = o1 + w1;
	uint64_t	c1 = (t1 < o1);

	c1 += (t1 + c0 < t1);
	GA_ST(st, 0, stride) = o0 + w0;
	GA_ST(st, 1, stride) = t1 + c0;
	GA_ST(st, 2, stride) += w2 + c1;
}

/* min/max/bool_and/bool_or: fold value v into (has, value). */
GA_DEVFN void
ga_pick(const GaAgg *ag, GA_STATE uint64_t *st, size_t stride, uint64_t v)
{
	uint64_t	cur = GA_ST(st, 1, stride);
	int			c;

	if (GA_ST(st, 0, stride)++ == 0)
	{
		GA_ST(st, 1, stride) = v;
		return;
	}
	switch (ag->kind)
	{
		case GA_AGG_BOOL_AND:
			GA_ST(st, 1, stride) = cur && v;
			return;
		case GA_AGG_BOOL_OR:
			GA_ST(st, 1, stride) = cur || v;
			return;
		default:
			break;
	}
	if (ga_type_is_float(ag->argtype))
		c = ga_float_cmp(ga_u2d(cur), ga_u2d(v));
	else
		c = ((int64_t) cur > (int64_t) v) ? 1 : ((int64_t) cur < (int64_t) v) ? -1 : 0;
	/* int4larger keeps the state only when it is strictly larger */
	if (ag->kind == GA_AGG_MAX ? c <= 0 : c >= 0)
		GA_ST(st, 1, stride) = v;
}

/*
 * float4pl/float8pl with PostgreSQL's overflow rule: fold x, the sum of n
 * inputs whose flags are xflags, into the (n, sum, flags) state.
 */
GA_DEVFN int
ga_fsum(const GaAgg *ag, GA_STATE uint64_t *st, size_t stride, double x,
		uint64_t n, uint64_t xflags)
{
	uint64_t	flags = GA_ST(st, 2, stride) | xflags;
	double		r;

	if (GA_ST(st, 0, stride) == 0)
		r = x;					/* the first input is the state, -0 included */
	else
	{
		double		cur = ga_u2d(GA_ST(st, 1, stride));

		if (ag->kind == GA_AGG_SUM_F4)
			r = (double) ((float) cur + (float) x);
		else
			r = cur + x;
		if (isinf(r) && !isinf(cur) && !isinf(x))
		{
			int			err = ga_float_overflow(&flags);

			if (err)
				return err;
		}
	}
	GA_ST(st, 0, stride) += n;
	GA_ST(st, 1, stride) = ga_d2u(r);
	GA_ST(st, 2, stride) = flags;
	return GA_OK;
}

/* Add an interval's time, days and months to a GA_AGG_SUM_IV state. */
GA_DEVFN void
ga_sum_interval(GA_STATE uint64_t *st, size_t stride, int64_t time, int64_t day, int64_t month)
{
	GA_ST(st, 0, stride)++;
	ga_add128(st + stride, stride, (uint64_t) time, time < 0 ? ~(uint64_t) 0 : 0);
	GA_ST(st, 3, stride) += (uint64_t) day;
	/* (|INT64_MIN| too: an interval column's time may be any int64) */
	ga_add128(st + 4 * stride, stride, time < 0 ? 0 - (uint64_t) time : (uint64_t) time, 0);
	GA_ST(st, 6, stride) += (uint64_t) (day < 0 ? -day : day);
	GA_ST(st, 7, stride) += (uint64_t) month;
	GA_ST(st, 8, stride) += (uint64_t) (month < 0 ? -month : month);
}

/* Fold one non-NULL argument value into a state. */
GA_DEVFN int
ga_agg_update(const GaAgg *ag, GA_STATE uint64_t *st, size_t stride, GaDatum v)
{
	switch (ag->kind)
	{
		case GA_AGG_COUNT:
			GA_ST(st, 0, stride)++;
			return GA_OK;
		case GA_AGG_SUM_I64:
			GA_ST(st, 0, stride)++;
			GA_ST(st, 1, stride) += (uint64_t) v.i;
			return GA_OK;
		case GA_AGG_SUM_I128:
			GA_ST(st, 0, stride)++;
			ga_add128(st + stride, stride, (uint64_t) v.i, v.i < 0 ? ~(uint64_t) 0 : 0);
			return GA_OK;
		case GA_AGG_SUM_IV:
			{
				/* interval_justify_hours' days and time (the same signs) */
				int64_t		day = v.i / GA_USECS_PER_DAY;

				ga_sum_interval(st, stride, v.i - day * GA_USECS_PER_DAY, day, 0);
				return GA_OK;
			}
		case GA_AGG_VAR_I128:
		case GA_AGG_VAR_I192:
			{
				unsigned __int128 sq = (unsigned __int128) ((__int128) v.i * v.i);

				GA_ST(st, 0, stride)++;
				ga_add128(st + stride, stride, (uint64_t) v.i, v.i < 0 ? ~(uint64_t) 0 : 0);
				if (ag->kind == GA_AGG_VAR_I128)
					ga_add128(st + 3 * stride, stride, (uint64_t) sq, (uint64_t) (sq >> 64));
				else
					ga_add192(st + 3 * stride, stride, (uint64_t) sq, (uint64_t) (sq >> 64), 0);
				return GA_OK;
			}
		case GA_AGG_SUM_F4:
		case GA_AGG_SUM_F8:
			return ga_fsum(ag, st, stride, v.f, 1,
						   (isnan(v.f) || isinf(v.f)) ? GA_FLAG_NONFINITE : 0);
		case GA_AGG_ACCUM_F8:
			{
				double		acc[3];
				uint64_t	flags = GA_ST(st, 3, stride);
				int			err;

				acc[0] = ga_u2d(GA_ST(st, 0, stride));
				acc[1] = ga_u2d(GA_ST(st, 1, stride));
				acc[2] = ga_u2d(GA_ST(st, 2, stride));
				err = ga_accum_f8(acc, v.f, &flags);
				if (err)
					return err;
				GA_ST(st, 0, stride) = ga_d2u(acc[0]);
				GA_ST(st, 1, stride) = ga_d2u(acc[1]);
				GA_ST(st, 2, stride) = ga_d2u(acc[2]);
				GA_ST(st, 3, stride) = flags;
				return GA_OK;
			}
		case GA_AGG_MIN:
		case GA_AGG_MAX:
		case GA_AGG_BOOL_AND:
		case GA_AGG_BOOL_OR:
			ga_pick(ag, st, stride, ag->kind == GA_AGG_BOOL_AND ||
					ag->kind == GA_AGG_BOOL_OR ? (uint64_t) (v.i != 0) : v.u);
			return GA_OK;
		default:
			return GA_ERR_INTERNAL;
	}
}

/*
 * Fold one row's arguments into a state: Y (the only one of one-argument
 * aggregates) and, with a second (GaAgg.arg2), X: for corr, covar_* and
 * regr_* a float8, for a sum of per-row display scales one as a float8,
 * for a sum of an interval column its day and month (GA_IV_DAYMON).
 */
GA_DEVFN int
ga_agg_update_xy(const GaAgg *ag, GA_STATE uint64_t *st, size_t stride, GaDatum y, GaDatum x)
{
	double		acc[6];
	uint64_t	flags;
	int			err;

	if (ag->kind == GA_AGG_SUM_I128_DS)
	{
		/* the value at the largest scale, and its own display scale */
		GA_ST(st, 0, stride)++;
		ga_add128(st + stride, stride, (uint64_t) y.i, y.i < 0 ? ~(uint64_t) 0 : 0);
		if ((uint64_t) x.f > GA_ST(st, 3, stride))
			GA_ST(st, 3, stride) = (uint64_t) x.f;
		return GA_OK;
	}
	if (ag->kind == GA_AGG_SUM_IV && ag->arg2 >= 0)
	{
		/* an interval column's time, and its days and months */
		ga_sum_interval(st, stride, y.i, (int32_t) (uint32_t) x.u, (int32_t) (uint32_t) (x.u >> 32));
		return GA_OK;
	}
	if (ag->kind != GA_AGG_REGR_F8)
		return ga_agg_update(ag, st, stride, y);
	flags = GA_ST(st, 6, stride);
	for (int k = 0; k < 6; k++)
		acc[k] = ga_u2d(GA_ST(st, k, stride));
	err = ga_regr_accum(acc, y.f, x.f, &flags);
	if (err)
		return err;
	for (int k = 0; k < 6; k++)
		GA_ST(st, k, stride) = ga_d2u(acc[k]);
	GA_ST(st, 6, stride) = flags;
	return GA_OK;
}

/* Merge partial state src into dst (PostgreSQL's combine functions). */
GA_DEVFN int
ga_agg_combine(const GaAgg *ag, GA_STATE uint64_t *dst, size_t ds, GA_STATE const uint64_t *src, size_t ss)
{
	uint64_t	n = GA_ST(src, 0, ss);

	switch (ag->kind)
	{
		case GA_AGG_COUNT:
			GA_ST(dst, 0, ds) += n;
			return GA_OK;
		case GA_AGG_SUM_I64:
			GA_ST(dst, 0, ds) += n;
			GA_ST(dst, 1, ds) += GA_ST(src, 1, ss);
			return GA_OK;
		case GA_AGG_SUM_I128_DS:
			GA_ST(dst, 0, ds) += n;
			ga_add128(dst + ds, ds, GA_ST(src, 1, ss), GA_ST(src, 2, ss));
			if (GA_ST(src, 3, ss) > GA_ST(dst, 3, ds))
				GA_ST(dst, 3, ds) = GA_ST(src, 3, ss);
			return GA_OK;
		case GA_AGG_SUM_IV:
			GA_ST(dst, 0, ds) += n;
			ga_add128(dst + ds, ds, GA_ST(src, 1, ss), GA_ST(src, 2, ss));
			GA_ST(dst, 3, ds) += GA_ST(src, 3, ss);
			ga_add128(dst + 4 * ds, ds, GA_ST(src, 4, ss), GA_ST(src, 5, ss));
			GA_ST(dst, 6, ds) += GA_ST(src, 6, ss);
			GA_ST(dst, 7, ds) += GA_ST(src, 7, ss);
			GA_ST(dst, 8, ds) += GA_ST(src, 8, ss);
			return GA_OK;
		case GA_AGG_SUM_I128:
		case GA_AGG_VAR_I128:
		case GA_AGG_VAR_I192:
			GA_ST(dst, 0, ds) += n;
			ga_add128(dst + ds, ds, GA_ST(src, 1, ss), GA_ST(src, 2, ss));
			if (ag->kind == GA_AGG_VAR_I128)
				ga_add128(dst + 3 * ds, ds, GA_ST(src, 3, ss), GA_ST(src, 4, ss));
			else if (ag->kind == GA_AGG_VAR_I192)
				ga_add192(dst + 3 * ds, ds, GA_ST(src, 3, ss), GA_ST(src, 4, ss),
						  GA_ST(src, 5, ss));
			return GA_OK;
		case GA_AGG_SUM_F4:
		case GA_AGG_SUM_F8:
			if (n == 0)
				return GA_OK;
			return ga_fsum(ag, dst, ds, ga_u2d(GA_ST(src, 1, ss)), n,
						   GA_ST(src, 2, ss));
		case GA_AGG_ACCUM_F8:
		case GA_AGG_REGR_F8:
			{
				/* the Youngs-Cramer values, then the flags */
				int			nv = ga_agg_flags_slot(ag->kind);
				double		a[6] = {0},
							b[6] = {0};
				uint64_t	flags = GA_ST(dst, nv, ds) | GA_ST(src, nv, ss);
				int			err;

				for (int k = 0; k < nv; k++)
				{
					a[k] = ga_u2d(GA_ST(dst, k, ds));
					b[k] = ga_u2d(GA_ST(src, k, ss));
				}
				err = ag->kind == GA_AGG_ACCUM_F8 ? ga_combine_f8(a, b, &flags) :
					ga_combine_regr(a, b, &flags);
				if (err)
					return err;
				for (int k = 0; k < nv; k++)
					GA_ST(dst, k, ds) = ga_d2u(a[k]);
				GA_ST(dst, nv, ds) = flags;
				return GA_OK;
			}
		case GA_AGG_MIN:
		case GA_AGG_MAX:
		case GA_AGG_BOOL_AND:
		case GA_AGG_BOOL_OR:
			if (n == 0)
				return GA_OK;
			ga_pick(ag, dst, ds, GA_ST(src, 1, ss));
			GA_ST(dst, 0, ds) += n - 1;
			return GA_OK;
		case GA_AGG_PCT_DISC:
		case GA_AGG_PCT_CONT:
		case GA_AGG_MODE:
			/* made at the end from the aggregate's set: empty until then */
			return GA_OK;
		default:
			return GA_ERR_INTERNAL;
	}
}

/*
 * Canonical key bits: -0 is 0 and every NaN is the same NaN; a string is
 * its equality code.
 */
GA_DEVFN GaDatum
ga_canonical_key(int type, GaDatum v)
{
	if (type == GA_T_TEXT)
		v.u = GA_TEXT_EQ(v.u);
	else if (ga_type_is_float(type))
	{
		if (isnan(v.f))
			v.u = UINT64_C(0x7ff8000000000000);
		else if (v.f == 0.0)
			v.f = 0.0;
	}
	return v;
}

/* Hash of a group's keys (the same on both devices). */
GA_DEVFN uint64_t
ga_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= UINT64_C(0xbf58476d1ce4e5b9);
	x ^= x >> 27;
	x *= UINT64_C(0x94d049bb133111eb);
	x ^= x >> 31;
	return x;
}

/* Hash of a distinct-set entry: the group's key hash and the value. */
GA_DEVFN uint32_t
ga_distinct_hash(uint64_t keyhash, int type, GaDatum v, int set)
{
	uint64_t	h = ga_mix64(keyhash ^ ga_mix64(ga_canonical_key(type, v).u +
											 UINT64_C(0x9e3779b97f4a7c15) * (uint64_t) (set + 1)));

	return (uint32_t) (h ^ (h >> 32));
}

/*---- ordered-set aggregates: percentile_disc, percentile_cont, mode ----*/

/*
 * A value's bits in the order PostgreSQL sorts its type (the default
 * btree order: integers, dates, timestamps and scaled numerics as signed
 * integers, floats with every NaN after +Infinity), reversed for DESC: an
 * unsigned comparison of them is the sort's.
 */
GA_DEVFN uint64_t
ga_order_bits(int type, GaDatum v, int desc)
{
	const uint64_t sign = UINT64_C(1) << 63;
	uint64_t	b;

	if (ga_type_is_float(type))
	{
		v = ga_canonical_key(type, v);
		b = (v.u & sign) ? ~v.u : v.u | sign;
	}
	else
		b = v.u ^ sign;
	return desc ? ~b : b;
}

/* The value whose order bits b are (ga_order_bits inverted). */
GA_DEVFN GaDatum
ga_order_value(int type, uint64_t b, int desc)
{
	const uint64_t sign = UINT64_C(1) << 63;
	GaDatum		v;

	if (desc)
		b = ~b;
	if (ga_type_is_float(type))
		v.u = (b & sign) ? b ^ sign : ~b;
	else
		v.u = b ^ sign;
	return v;
}

/*
 * The rows (from 0, in the sort's order) a percentile needs of a group's
 * n > 0: percentile_disc the first row whose position reaches the
 * fraction, percentile_cont the two rows it interpolates between, both as
 * orderedsetaggs.c computes them.  The host raises the error for a
 * fraction outside 0 .. 1; here it is only clamped.
 */
GA_DEVFN void
ga_osa_rows(const GaAgg *ag, uint64_t n, uint64_t *r0, uint64_t *r1)
{
	double		f = ag->fraction;

	if (!(f >= 0.0))
		f = 0.0;
	if (f > 1.0)
		f = 1.0;
	if (ag->kind == GA_AGG_PCT_DISC)
	{
		int64_t		k = (int64_t) ceil(f * (double) n);

		*r0 = *r1 = k > 1 ? (uint64_t) (k - 1) : 0;
	}
	else
	{
		*r0 = (uint64_t) floor(f * (double) (n - 1));
		*r1 = (uint64_t) ceil(f * (double) (n - 1));
	}
}

/*
 * A percentile's rows are found by a radix select over each group's
 * (value, rows) entries, GA_OSA_BITS of the order bits a pass from the
 * top: the entries whose bits above the pass's digit are the row's
 * prefix so far add their rows to the group's histogram of that digit
 * (ga_osa_digit), then each group picks the digit its row falls in
 * (ga_osa_pick).  After GA_OSA_PASSES passes the prefix is the value
 * (GA_OSA_* in gpuagg_abi.h).
 */

/* The digit of bits this pass counts, or -1 when bits is not on prefix. */
GA_DEVFN int
ga_osa_digit(uint64_t bits, uint64_t prefix, int pass)
{
	int			shift = 64 - GA_OSA_BITS * (pass + 1);

	if (pass > 0 && ((bits ^ prefix) >> (shift + GA_OSA_BITS)) != 0)
		return -1;
	return (int) ((bits >> shift) & (GA_OSA_DIGITS - 1));
}

/*
 * The digit of the pass holding row *rest of the entries on *prefix: it
 * goes into *prefix, *rest becomes the row among that digit's; the
 * histogram is cleared for the next pass.
 */
GA_DEVFN void
ga_osa_pick(uint64_t *hist, uint64_t *rest, uint64_t *prefix, int pass)
{
	int			shift = 64 - GA_OSA_BITS * (pass + 1);
	uint64_t	below = 0;
	int			found = 0;

	for (int d = 0; d < GA_OSA_DIGITS; d++)
	{
		if (!found && *rest < below + hist[d])
		{
			*prefix |= (uint64_t) d << shift;
			*rest -= below;
			found = 1;
		}
		below += hist[d];
		hist[d] = 0;
	}
}

#endif							/* GPUAGG_EVAL_H */
