/*-------------------------------------------------------------------------
 *
 * result.c
 *		From device transition states to PostgreSQL's own final values.
 *
 * A device returns, per group and aggregate, the transition state
 * PostgreSQL itself would hold (counts, int64 and int128 sums, Youngs-Cramer
 * {N, Sx, Sxx}, min/max values).  Here each state becomes PostgreSQL's
 * transition value of the aggregate's declared transition type, and the
 * aggregate's own final function (from pg_aggregate) is applied, so result
 * types, scales and rounding are PostgreSQL's.
 *
 * Where the transition type is `internal' (sum/avg of int8, variance of
 * integers) the state is private to numeric.c; we build its documented
 * serialized form (the one parallel aggregation exchanges between
 * processes) and hand it to the aggregate's deserialize function.  Those
 * functions insist on being called by an aggregate, so they are called
 * with a stand-in AggState whose aggregate context is the output tuple's
 * memory.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/nbtree.h"
#include "catalog/pg_aggregate.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_type.h"
#include "executor/executor.h"
#include "libpq/pqformat.h"
#include "miscadmin.h"
#include "nodes/nodeFuncs.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/fmgroids.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/numeric.h"
#include "utils/syscache.h"
#include "utils/timestamp.h"
#include "utils/typcache.h"
#include "utils/varlena.h"

#include "device.h"
#include "result.h"
#include "../cuda/gpuagg_eval.h"

void
GpuaggFinalInit(GpuaggFinal *fin, Aggref *aggref, const GaAgg *agg, int32 bpchar_typmod,
				MemoryContext cxt)
{
	HeapTuple	tup;
	Form_pg_aggregate form;

	tup = SearchSysCache1(AGGFNOID, ObjectIdGetDatum(aggref->aggfnoid));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for aggregate %u", aggref->aggfnoid);
	form = (Form_pg_aggregate) GETSTRUCT(tup);

	fin->agg = agg;
	fin->transtype = form->aggtranstype;
	fin->quotient = NULL;		/* (the caller's) */
	/*
	 * min/max and ordered-set aggregates of an interval's microseconds
	 * (program.c's compile_span)
	 */
	fin->span = (agg->kind == GA_AGG_MIN || agg->kind == GA_AGG_MAX || ga_agg_ordered(agg->kind)) &&
		aggref->args != NIL &&
		exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr) == INTERVALOID;
	fin->ordered = ga_agg_ordered(agg->kind);
	if (fin->ordered)
	{
		/* no transition value: the device selected the values (result.c) */
		Const	   *f = aggref->aggdirectargs ? linitial(aggref->aggdirectargs) : NULL;

		fin->multi = aggref->aggfnoid == F_PERCENTILE_DISC__FLOAT8_ANYELEMENT ||
			aggref->aggfnoid == F_PERCENTILE_CONT__FLOAT8_FLOAT8 ||
			aggref->aggfnoid == F_PERCENTILE_CONT__FLOAT8_INTERVAL;
		fin->bpchar_typmod = bpchar_typmod;
		fin->list = aggref->aggfnoid == F_ARRAY_AGG_ANYNONARRAY ? GPUAGG_LIST_ARRAY :
			aggref->aggfnoid == F_STRING_AGG_TEXT_TEXT ? GPUAGG_LIST_STRING : 0;
		fin->list_distinct = aggref->aggdistinct != NIL;
		fin->delimiter = NULL;
		if (fin->list == GPUAGG_LIST_ARRAY)
		{
			/* (of a domain, an array of its base type, as aggtype says) */
			fin->elemtype = get_element_type(aggref->aggtype);
			get_typlenbyvalalign(fin->elemtype, &fin->elemlen, &fin->elembyval,
								 &fin->elemalign);
		}
		else if (fin->list == GPUAGG_LIST_STRING)
		{
			Const	   *d = castNode(Const, lsecond_node(TargetEntry, aggref->args)->expr);

			if (!d->constisnull)
			{
				MemoryContext old = MemoryContextSwitchTo(cxt);

				fin->delimiter = DatumGetTextPCopy(d->constvalue);
				MemoryContextSwitchTo(old);
			}
		}
		fin->fraction_null = f && f->constisnull;
		if (fin->multi)
		{
			/* an array of fractions: its result an array of the same shape */
			MemoryContext old = MemoryContextSwitchTo(cxt);

			fin->fraction = 0.0;
			fin->fractions = f->constisnull ? NULL : DatumGetArrayTypePCopy(f->constvalue);
			fin->elemtype = agg->kind == GA_AGG_PCT_CONT && !fin->span ? FLOAT8OID :
				exprType((Node *) linitial_node(TargetEntry, aggref->args)->expr);
			get_typlenbyvalalign(fin->elemtype, &fin->elemlen, &fin->elembyval,
								 &fin->elemalign);
			MemoryContextSwitchTo(old);
		}
		else
			fin->fraction = f && !f->constisnull ? DatumGetFloat8(f->constvalue) : 0.0;
		fin->partial = fin->has_final = fin->has_deserial = fin->avg_f8 = fin->sum_i128 = false;
		ReleaseSysCache(tup);
		return;
	}
	/*
	 * Below a Finalize Aggregate (parallel GpuAgg) the node returns the
	 * transition value, serialized when it is internal: exactly what the
	 * transition value we build already is.
	 */
	fin->partial = DO_AGGSPLIT_SKIPFINAL(aggref->aggsplit);
	if (fin->partial && form->aggtranstype == INTERNALOID &&
		!DO_AGGSPLIT_SERIALIZE(aggref->aggsplit))
		elog(ERROR, "gpuagg: partial aggregate %u is not serialized", aggref->aggfnoid);
	fin->has_final = OidIsValid(form->aggfinalfn) && !fin->partial;
	if (fin->has_final)
		fmgr_info_cxt(form->aggfinalfn, &fin->finalfn, cxt);
	/*
	 * avg(float4/float8) is float8_avg over {N, Sx, Sxx}: NULL for no
	 * input, else Sx / N.  Done here without building an array and calling
	 * the function for every group.
	 */
	fin->avg_f8 = fin->has_final && form->aggfinalfn == F_FLOAT8_AVG &&
		agg->kind == GA_AGG_ACCUM_F8;
	/*
	 * sum(numeric) and sum(int8) are numeric_sum and numeric_poly_sum over
	 * {N, sumX}: NULL for no input, else sumX at its display scale (as
	 * transition_value serializes it).  Likewise done here,
	 * without serializing the state, deserializing it and finalizing it.
	 */
	fin->sum_i128 = fin->has_final &&
		(agg->kind == GA_AGG_SUM_I128 || agg->kind == GA_AGG_SUM_I128_DS) &&
		(form->aggfinalfn == F_NUMERIC_SUM || form->aggfinalfn == F_NUMERIC_POLY_SUM);
	fin->has_deserial = (form->aggtranstype == INTERNALOID) && !fin->partial;
	if (fin->has_deserial)
	{
		if (!OidIsValid(form->aggdeserialfn))
			elog(ERROR, "aggregate %u has no deserialize function", aggref->aggfnoid);
		fmgr_info_cxt(form->aggdeserialfn, &fin->deserialfn, cxt);
	}
	ReleaseSysCache(tup);
}

Node *
GpuaggMakeAggContext(ExprContext *econtext)
{
	AggState   *aggstate = makeNode(AggState);

	aggstate->curaggcontext = econtext;
	return (Node *) aggstate;
}

static Datum numeric_from_words(bool negative, const uint64 *w, int scale);

Datum
GpuaggKeyDatum(GaDatum v, int type, int scale, GpuaggDict *dict)
{
	switch (type)
	{
		case GA_T_NUMERIC:
			{
				uint64		w[3] = {v.i < 0 ? -(uint64) v.i : (uint64) v.i, 0, 0};

				return numeric_from_words(v.i < 0, w, scale);
			}
		case GA_T_TEXT:
			return GpuaggDictValue(dict, GA_TEXT_SHOWN(v.u));
		case GA_T_BOOL:
			return BoolGetDatum(v.i != 0);
		case GA_T_INT2:
			return Int16GetDatum((int16) v.i);
		case GA_T_INT4:
		case GA_T_DATE:
			return Int32GetDatum((int32) v.i);
		case GA_T_FLOAT4:
			return Float4GetDatum((float4) v.f);
		case GA_T_FLOAT8:
			return Float8GetDatum(v.f);
		case GA_T_INT8:
		case GA_T_TIMESTAMP:
		case GA_T_TIMESTAMPTZ:
			return Int64GetDatum(v.i);
		default:
			elog(ERROR, "unexpected gpuagg type %d", type);
	}
	return (Datum) 0;
}

/* (result.h) */
Datum
GpuaggQuotientDatum(const GpuaggQuotient *q, int64 v, int scale)
{
	GaDatum		d = {.i = v};
	int128		x = (v < 0 ? -(int128) v : (int128) v) / q->f;
	int			dscale = GpuaggDivScale(x, q->xscale, q->kweight, q->kdigit, q->kscale);

	/*
	 * (never below scale but for 0: compile_numeric_div held the quotients
	 * at the display scale of the column's largest x, the smallest of any
	 * nonzero x; select_div_scale gives 0 a first digit of 0, which may
	 * ask fewer places where every x is below 1, numeric(1,15) / 0.8, and
	 * rounding a 0 to them is exact)
	 */
	if (dscale < scale && v != 0)
		elog(ERROR, "gpuagg: a quotient shown at a display scale below its scale");
	return DirectFunctionCall2(numeric_round, GpuaggKeyDatum(d, GA_T_NUMERIC, scale, NULL),
							   Int32GetDatum(dscale));
}

/*
 * numeric from a sign and a 192-bit magnitude w[0] (low) .. w[2] (high)
 * in units of 10^-scale: its display scale is scale.
 */
static Datum
numeric_from_words(bool negative, const uint64 *w, int scale)
{
	const uint64 chunk = UINT64CONST(10000000000000000000);	/* 10^19 */
	uint64		num[3] = {w[0], w[1], w[2]};
	uint64		parts[8];
	int			nparts = 0;
	char		digits[80];
	char		buf[100];
	char	   *p = digits;
	int			n;

	/* within int64 (nearly always): PostgreSQL's own, without the text */
	/*
	 * (at most INT64_MAX / 1000: its scaling by up to 1000 never takes the
	 * function's slow branch, which some 15.x releases got wrong at large
	 * scales)
	 */
	if (w[1] == 0 && w[2] == 0 && w[0] <= (uint64) (PG_INT64_MAX / 1000))
		return NumericGetDatum(int64_div_fast_to_numeric(negative ? -(int64) w[0] : (int64) w[0],
														 scale));
	do
	{
		uint128		rem = 0;

		for (int i = 2; i >= 0; i--)
		{
			uint128		cur = (rem << 64) | num[i];

			num[i] = (uint64) (cur / chunk);
			rem = cur % chunk;
		}
		parts[nparts++] = (uint64) rem;
	} while (num[0] != 0 || num[1] != 0 || num[2] != 0);

	p += sprintf(p, UINT64_FORMAT, parts[nparts - 1]);
	for (int i = nparts - 2; i >= 0; i--)
		p += sprintf(p, "%019llu", (unsigned long long) parts[i]);
	/* the decimal point scale digits from the right, zeros padded in front */
	n = p - digits;
	Assert(scale >= 0 && scale < 40);
	p = buf;
	if (negative)
		*p++ = '-';
	if (n <= scale)
	{
		*p++ = '0';
		*p++ = '.';
		for (int i = n; i < scale; i++)
			*p++ = '0';
		strcpy(p, digits);
	}
	else
	{
		memcpy(p, digits, n - scale);
		p += n - scale;
		if (scale > 0)
			*p++ = '.';
		strcpy(p, digits + n - scale);
	}
	return DirectFunctionCall3(numeric_in, CStringGetDatum(buf),
							   ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
}

/* numeric from a signed 128-bit value held in two slots (lo, hi) */
static Datum
numeric_from_i128(const uint64 *st, int scale)
{
	int128		v = GpuaggI128(st[0], st[1]);
	uint128		mag = v < 0 ? -(uint128) v : (uint128) v;
	uint64		w[3] = {(uint64) mag, (uint64) (mag >> 64), 0};

	return numeric_from_words(v < 0, w, scale);
}

/*
 * numeric from a 128-bit value at scale, shown at display scale dscale:
 * at most scale (a CASE's branches: the digits below it are zeros, every
 * value summed having had at most dscale digits after the point), or more
 * (quotients whose display scales pass the scale they are held at: zeros
 * shown).
 */
static Datum
numeric_from_i128_dscale(const uint64 *st, int scale, int dscale)
{
	int128		v = GpuaggI128(st[0], st[1]);
	int128		p = 1;
	uint64		w[2];

	/* (more places: of a sum of quotients, each at its own display scale) */
	if (dscale > scale)
		return DirectFunctionCall2(numeric_round, numeric_from_i128(st, scale),
								   Int32GetDatum(dscale));
	for (int i = dscale; i < scale; i++)
		p *= 10;
	if (v % p != 0)
		elog(ERROR, "gpuagg: a sum has digits past the display scale of every value summed");
	v /= p;
	w[0] = (uint64) v;
	w[1] = (uint64) ((uint128) v >> 64);
	return numeric_from_i128(w, dscale);
}

/*
 * Append a numeric in the serialized-state form numeric.c uses for its
 * aggregate states (numericvar_serialize): int32 ndigits, weight, sign and
 * dscale, then int16 digits.  numeric_send writes the same fields with
 * int16 headers, so its output is widened here.
 */
static void
send_numeric(StringInfo buf, Datum num)
{
	bytea	   *b = DatumGetByteaPP(DirectFunctionCall1(numeric_send, num));
	const uint8 *p = (const uint8 *) VARDATA_ANY(b);
	int			len = VARSIZE_ANY_EXHDR(b);
	int16		ndigits = (int16) ((p[0] << 8) | p[1]);
	int16		weight = (int16) ((p[2] << 8) | p[3]);
	uint16		sign = (uint16) ((p[4] << 8) | p[5]);
	uint16		dscale = (uint16) ((p[6] << 8) | p[7]);

	Assert(len == 8 + 2 * ndigits);
	pq_sendint32(buf, ndigits);
	pq_sendint32(buf, weight);
	pq_sendint32(buf, sign);
	pq_sendint32(buf, dscale);
	pq_sendbytes(buf, (const char *) p + 8, len - 8);
}

/*
 * The end of numeric.c's NumericAggState in serialized form: maxScale,
 * maxScaleCount, NaNcount, pInfcount, nInfcount.  Every one of the n
 * inputs had the argument's scale; none was NaN or infinite (those take
 * the exact path on a device).
 */
static void
send_numeric_counts(StringInfo buf, int scale, uint64 n)
{
	pq_sendint32(buf, scale);
	pq_sendint64(buf, n);
	pq_sendint64(buf, 0);
	pq_sendint64(buf, 0);
	pq_sendint64(buf, 0);
}

static Datum
make_array(Datum *elems, int n, Oid elemtype)
{
	return PointerGetDatum(construct_array(elems, n, elemtype, 8,
										   FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

/*
 * A month-free interval from its microseconds, as timestamp_mi makes it
 * (interval_justify_hours: days and time of day of the same sign).
 */
static Datum
span_interval(int64 us)
{
	Interval   *iv = palloc(sizeof(Interval));

	iv->month = 0;
	iv->day = (int32) (us / USECS_PER_DAY);
	iv->time = us - (int64) iv->day * USECS_PER_DAY;
	return IntervalPGetDatum(iv);
}

/*
 * percentile_cont's interval_lerp between two differences of timestamps:
 * lo + (hi - lo) * pct, by PostgreSQL's own interval arithmetic
 */
static Datum
interval_lerp(int64 lo, int64 hi, double pct)
{
	Datum		diff = DirectFunctionCall2(interval_mi, span_interval(hi), span_interval(lo));
	Datum		mul = DirectFunctionCall2(interval_mul, diff, Float8GetDatum(pct));

	return DirectFunctionCall2(interval_pl, mul, span_interval(lo));
}

/*
 * percentile_cont's value between rows lo and hi, proportion of the way
 * (percentile_cont_final_common): the first row's where they are one,
 * else float8_lerp's or interval_lerp's
 */
static Datum
percentile_lerp(const GpuaggFinal *fin, GaDatum lo, GaDatum hi, double proportion, bool one)
{
	if (fin->span)
		return one ? span_interval(lo.i) : interval_lerp(lo.i, hi.i, proportion);
	return Float8GetDatum(one ? lo.f : lo.f + proportion * (hi.f - lo.f));
}

/*
 * A GA_AGG_SUM_IV state's sum as interval_pl leaves it (which
 * GpuaggIntervalSumsUnsafe has found in range): months, days and time
 * apart.
 */
static Datum
sum_interval(const uint64 *st, size_t stride)
{
	Interval   *iv = palloc(sizeof(Interval));

	iv->month = (int32) (int64) st[7 * stride];
	iv->day = (int32) (int64) st[3 * stride];
	iv->time = (int64) st[stride];
	return IntervalPGetDatum(iv);
}

static inline double
slot_f8(uint64 slot)
{
	double		v;

	memcpy(&v, &slot, sizeof(double));
	return v;
}

/* (result.h) */
bool
GpuaggIntervalSumsUnsafe(const GaProgram *prog, const GaResult *res)
{
	for (uint32 a = 0; a < prog->naggs; a++)
	{
		const uint64 *st = res->states + (uint64) prog->aggs[a].slot * res->ngroups;
		uint64		n = res->ngroups;

		if (prog->aggs[a].kind != GA_AGG_SUM_IV)
			continue;
		/* the sums of the absolute values of the time, days and months */
		for (uint64 g = 0; g < n; g++)
			if (st[5 * n + g] != 0 || st[4 * n + g] > (uint64) PG_INT64_MAX ||
				st[6 * n + g] > (uint64) PG_INT32_MAX || st[8 * n + g] > (uint64) PG_INT32_MAX)
				return true;
	}
	return false;
}

/*
 * How many of its ngroups groups a device returns: all, or where any that
 * many will do (GaResult.limit_groups) the first that many.  (Not where
 * a set's (group, value) pairs name groups by their place among all;
 * planner.c's topn_for offers no such limit.)
 */
uint64
GpuaggResultGroups(const GaProgram *prog, const GaResult *res, uint64 ngroups)
{
	if (res->limit_groups == 0 || ngroups <= res->limit_groups)
		return ngroups;
	for (uint32 a = 0; a < prog->naggs; a++)
		if (ga_agg_set_pairs(&prog->aggs[a]))
			return ngroups;
	return res->limit_groups;
}

/*
 * Would finishing some group raise GpuaggFinalize's overflow error?  (A
 * GPU Top-N must then let every group out: the error is the query's.)
 */
bool
GpuaggAnyFloatOverflow(const GaProgram *prog, const GaResult *res)
{
	bool		flags = false;

	/* (no float aggregate: no group to look at) */
	for (uint32 a = 0; a < prog->naggs && !flags; a++)
		flags = ga_agg_flags_slot(prog->aggs[a].kind) >= 0;
	for (uint64 g = 0; flags && g < res->ngroups; g++)
		if (ga_group_overflowed(prog, res->states, res->ngroups, g))
			return true;
	return false;
}

/*
 * PostgreSQL's transition value for one group: a plain Datum of the
 * transition type, or for `internal' states the serialized form.
 */
static Datum
transition_value(GpuaggFinal *fin, const uint64 *st, bool *isnull)
{
	const GaAgg *agg = fin->agg;
	StringInfoData buf;
	Datum		elems[6];

	*isnull = false;
	switch (agg->kind)
	{
		case GA_AGG_COUNT:
			return Int64GetDatum((int64) st[0]);
		case GA_AGG_SUM_I64:
			if (fin->transtype == INT8OID)
			{
				/* int2_sum/int4_sum: NULL until the first input */
				*isnull = (st[0] == 0);
				return Int64GetDatum((int64) st[1]);
			}
			/* int2/int4_avg_accum: int8[] {count, sum} */
			elems[0] = Int64GetDatum((int64) st[0]);
			elems[1] = Int64GetDatum((int64) st[1]);
			return make_array(elems, 2, INT8OID);
		case GA_AGG_SUM_I128:
			/* int8_avg_serialize: N, sumX */
			if (st[0] == 0)
				break;
			pq_begintypsend(&buf);
			pq_sendint64(&buf, st[0]);
			send_numeric(&buf, numeric_from_i128(st + 1, agg->argscale));
			/* sum/avg of numeric: numeric_avg_serialize goes on */
			if (agg->argtype == GA_T_NUMERIC)
				send_numeric_counts(&buf, agg->argscale, st[0]);
			return PointerGetDatum(pq_endtypsend(&buf));
		case GA_AGG_SUM_I128_DS:
			/*
			 * numeric_avg_serialize: N, sumX, and maxScale, the largest
			 * display scale summed, which is the sum's own
			 */
			if (st[0] == 0)
				break;
			pq_begintypsend(&buf);
			pq_sendint64(&buf, st[0]);
			send_numeric(&buf, numeric_from_i128_dscale(st + 1, agg->argscale, (int) st[3]));
			send_numeric_counts(&buf, (int) st[3], st[0]);
			return PointerGetDatum(pq_endtypsend(&buf));
		case GA_AGG_VAR_I128:
			/* numeric_poly_serialize: N, sumX, sumX2 */
			if (st[0] == 0)
				break;
			pq_begintypsend(&buf);
			pq_sendint64(&buf, st[0]);
			send_numeric(&buf, numeric_from_i128(st + 1, 0));
			send_numeric(&buf, numeric_from_i128(st + 3, 0));
			return PointerGetDatum(pq_endtypsend(&buf));
		case GA_AGG_VAR_I192:
			/*
			 * numeric_serialize: N, sumX, sumX2, maxScale, maxScaleCount,
			 * NaNcount, pInfcount, nInfcount; integer inputs all have scale
			 * 0, numeric ones the argument's (their squares twice that)
			 */
			if (st[0] == 0)
				break;
			pq_begintypsend(&buf);
			pq_sendint64(&buf, st[0]);
			send_numeric(&buf, numeric_from_i128(st + 1, agg->argscale));
			send_numeric(&buf, numeric_from_words(false, st + 3, 2 * agg->argscale));
			send_numeric_counts(&buf, agg->argscale, st[0]);
			return PointerGetDatum(pq_endtypsend(&buf));
		case GA_AGG_SUM_IV:
			if (fin->transtype == INTERVALOID)
			{
				/* sum(interval): interval_pl's, NULL until the first input */
				*isnull = (st[0] == 0);
				return *isnull ? (Datum) 0 : sum_interval(st, 1);
			}
			else
			{
				/* avg(interval): interval_accum's {sum, N as its time} */
				Interval   *n = palloc0(sizeof(Interval));

				n->time = (int64) st[0];
				elems[0] = sum_interval(st, 1);
				elems[1] = IntervalPGetDatum(n);
				return PointerGetDatum(construct_array(elems, 2, INTERVALOID, sizeof(Interval),
													   false, TYPALIGN_DOUBLE));
			}
		case GA_AGG_SUM_F4:
			*isnull = (st[0] == 0);
			return Float4GetDatum((float4) slot_f8(st[1]));
		case GA_AGG_SUM_F8:
			*isnull = (st[0] == 0);
			return Float8GetDatum(slot_f8(st[1]));
		case GA_AGG_ACCUM_F8:
		case GA_AGG_REGR_F8:
			{
				int			n = agg->kind == GA_AGG_ACCUM_F8 ? 3 : 6;

				for (int k = 0; k < n; k++)
					elems[k] = Float8GetDatum(slot_f8(st[k]));
				return make_array(elems, n, FLOAT8OID);
			}
		case GA_AGG_MIN:
		case GA_AGG_MAX:
		case GA_AGG_BOOL_AND:
		case GA_AGG_BOOL_OR:
			{
				GaDatum		v;

				*isnull = (st[0] == 0);
				v.u = st[1];
				if (fin->span && !*isnull)
					return span_interval(v.i);
				if (fin->quotient && !*isnull)
					return GpuaggQuotientDatum(fin->quotient, v.i, agg->argscale);
				return *isnull ? (Datum) 0 :
					GpuaggKeyDatum(v, agg->kind == GA_AGG_BOOL_AND ||
								   agg->kind == GA_AGG_BOOL_OR ?
								   GA_T_BOOL : agg->argtype, agg->argscale, fin->dict);
			}
		default:
			elog(ERROR, "unexpected gpuagg aggregate kind %d", agg->kind);
	}
	*isnull = true;
	return (Datum) 0;
}

/*
 * Of an ordered-set aggregate the host selects from (GpuaggSortOrderedSets):
 * a group's entries are st[2] of set j's from st[1] on, sorted, each with
 * the group's rows up to and including it (pairrows).  The value of its
 * row r (from 0), by binary search, ...
 */
static uint64
host_row(const GaResult *res, int j, const uint64 *st, uint64 r)
{
	uint64		lo = st[1],
				hi = st[1] + st[2];

	if (st[2] == 0 || r >= res->pairrows[j][hi - 1])
		elog(ERROR, "gpuagg: missing row in an ordered-set aggregate");
	/* the first entry whose rows so far pass r */
	while (lo < hi)
	{
		uint64		mid = lo + (hi - lo) / 2;

		if (res->pairrows[j][mid] > r)
			hi = mid;
		else
			lo = mid + 1;
	}
	return res->pairvalue[j][lo];
}

/* ... the index of its mode's entry: the first of the most rows ... */
static uint64
host_mode(const GaResult *res, int j, const uint64 *st)
{
	uint64		best = st[1];
	uint64		best_rows = res->pairrows[j][st[1]];

	for (uint64 i = st[1] + 1; i < st[1] + st[2]; i++)
	{
		uint64		rows = res->pairrows[j][i] - res->pairrows[j][i - 1];

		if (rows > best_rows)
		{
			best = i;
			best_rows = rows;
		}
	}
	return best;
}

/* ... and a value of its set as a Datum (a string's set holds its code) */
static Datum
host_datum(GpuaggFinal *fin, uint64 value)
{
	GaDatum		v;

	v.u = value;
	if (fin->span)
		return span_interval(v.i);
	if (fin->agg->argtype == GA_T_TEXT)
		v.u = (uint64) GA_TEXT_EQ(value) << 32 | GA_TEXT_EQ(value);
	/* (a char(n)'s code is of its value without trailing spaces) */
	if (fin->bpchar_typmod > 0)
		return DirectFunctionCall3(bpchar,
								   GpuaggKeyDatum(v, fin->agg->argtype, fin->agg->argscale, fin->dict),
								   Int32GetDatum(fin->bpchar_typmod), BoolGetDatum(false));
	return GpuaggKeyDatum(v, fin->agg->argtype, fin->agg->argscale, fin->dict);
}

/*
 * percentile_disc(float8[]) and percentile_cont(float8[]): an array the
 * shape of the fractions', as percentile_disc_multi_final and
 * percentile_cont_multi_final_common make it: NULL for no rows (before any
 * fraction is checked), or a NULL array; each fraction checked; a NULL one
 * a NULL element.
 */
static Datum
ordered_array(GpuaggFinal *fin, const GaResult *res, const uint64 *st, bool *isnull)
{
	const GaAgg *agg = fin->agg;
	uint64		n = st[0];
	Datum	   *fv;
	bool	   *fnull;
	int			nf;
	Datum	   *out;
	bool	   *outnull;

	if (n == 0 || fin->fractions == NULL)
		return (Datum) 0;
	*isnull = false;
	deconstruct_array(fin->fractions, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE,
					  &fv, &fnull, &nf);
	if (nf == 0)
		return PointerGetDatum(construct_empty_array(fin->elemtype));
	for (int i = 0; i < nf; i++)
	{
		double		p = fnull[i] ? 0.0 : DatumGetFloat8(fv[i]);

		if (!fnull[i] && (p < 0 || p > 1 || isnan(p)))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("percentile value %g is not between 0 and 1", p)));
	}
	out = palloc(sizeof(Datum) * nf);
	outnull = palloc(sizeof(bool) * nf);
	for (int i = 0; i < nf; i++)
	{
		double		p = fnull[i] ? 0.0 : DatumGetFloat8(fv[i]);

		outnull[i] = fnull[i];
		out[i] = (Datum) 0;
		if (fnull[i])
			continue;
		if (agg->kind == GA_AGG_PCT_DISC)
		{
			int64		row = (int64) ceil(p * n);

			out[i] = host_datum(fin, host_row(res, agg->distinct, st, Max(row, 1) - 1));
		}
		else
		{
			double		first = floor(p * (n - 1));
			GaDatum		lo,
						hi;

			lo.u = host_row(res, agg->distinct, st, (uint64) first);
			hi.u = host_row(res, agg->distinct, st, (uint64) ceil(p * (n - 1)));
			out[i] = percentile_lerp(fin, lo, hi, (p * (n - 1)) - first,
									 ceil(p * (n - 1)) == first);
		}
	}
	return PointerGetDatum(construct_md_array(out, outnull, ARR_NDIM(fin->fractions),
											  ARR_DIMS(fin->fractions),
											  ARR_LBOUND(fin->fractions), fin->elemtype,
											  fin->elemlen, fin->elembyval, fin->elemalign));
}

/*
 * array_agg or string_agg in the order of their value (GpuaggFinal.list):
 * the group's entries in that order, each once under DISTINCT, else as
 * often as it came (its rows), as array_agg_finalfn and
 * string_agg_finalfn make them from the sorted values: NULL for none; a
 * string with the delimiter before every value but the first.
 */
static Datum
list_value(GpuaggFinal *fin, const GaResult *res, const uint64 *st, bool *isnull)
{
	int			j = fin->agg->distinct;
	ArrayBuildState *astate = NULL;
	StringInfoData buf;
	bool		first = true;

	if (st[0] == 0)
		return (Datum) 0;
	*isnull = false;
	if (fin->list == GPUAGG_LIST_ARRAY)
		astate = initArrayResult(fin->elemtype, CurrentMemoryContext, false);
	else
		initStringInfo(&buf);
	for (uint64 i = st[1]; i < st[1] + st[2]; i++)
	{
		/* (rows are the group's up to and including the entry) */
		uint64		rows = res->pairrows[j][i] - (i > st[1] ? res->pairrows[j][i - 1] : 0);
		Datum		v = host_datum(fin, res->pairvalue[j][i]);
		text	   *t = astate ? NULL : DatumGetTextPP(v);

		if (fin->list_distinct)
			rows = 1;
		for (uint64 r = 0; r < rows; r++)
		{
			if ((r & 4095) == 4095)
				CHECK_FOR_INTERRUPTS();
			if (astate)
				accumArrayResult(astate, v, false, fin->elemtype, CurrentMemoryContext);
			else
			{
				if (!first && fin->delimiter)
					appendBinaryStringInfo(&buf, VARDATA_ANY(fin->delimiter),
										   VARSIZE_ANY_EXHDR(fin->delimiter));
				appendBinaryStringInfo(&buf, VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
			}
			first = false;
		}
	}
	if (astate)
		return makeArrayResult(astate, CurrentMemoryContext);
	return PointerGetDatum(cstring_to_text_with_len(buf.data, buf.len));
}

/*
 * An ordered-set aggregate's value from its states (n, then order bits:
 * GaAggKind), as percentile_disc_final, percentile_cont_final_common and
 * mode_final make it from the sorted values: the fraction checked first,
 * then NULL for no rows.
 */
static Datum
ordered_value(GpuaggFinal *fin, const GaResult *res, const uint64 *st, bool *isnull)
{
	const GaAgg *agg = fin->agg;
	double		f = fin->fraction;
	GaDatum		lo;

	*isnull = true;
	if (fin->multi)
		return ordered_array(fin, res, st, isnull);
	if (fin->list)
		return list_value(fin, res, st, isnull);
	if (agg->kind != GA_AGG_MODE)
	{
		if (fin->fraction_null)
			return (Datum) 0;
		if (f < 0 || f > 1 || isnan(f))
			ereport(ERROR,
					(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
					 errmsg("percentile value %g is not between 0 and 1", f)));
	}
	if (st[0] == 0)
		return (Datum) 0;
	*isnull = false;
	/* (strings: the host selects from their sorted set) */
	if (agg->host_select)
	{
		uint64		r0,
					r1;

		if (agg->kind == GA_AGG_MODE)
			return host_datum(fin, res->pairvalue[agg->distinct][host_mode(res, agg->distinct, st)]);
		ga_osa_rows(agg, st[0], &r0, &r1);
		return host_datum(fin, host_row(res, agg->distinct, st, r0));
	}
	lo = ga_order_value(agg->argtype, st[agg->kind == GA_AGG_MODE ? 2 : 1], agg->desc);
	if (agg->kind == GA_AGG_PCT_CONT)
	{
		uint64		first_row,
					second_row;
		/* the rows the device selected */
		ga_osa_rows(agg, st[0], &first_row, &second_row);
		return percentile_lerp(fin, lo, ga_order_value(agg->argtype, st[2], agg->desc),
							   (f * (st[0] - 1)) - (int64) first_row, first_row == second_row);
	}
	return host_datum(fin, lo.u);
}

Datum
GpuaggFinalize(GpuaggFinal *fin, const GaResult *res, uint64 g, Node *aggstate,
			   bool *isnull)
{
	uint64		st[GA_MAX_SLOTS];
	int			nslots = ga_agg_nslots(fin->agg->kind);
	int			f = ga_agg_flags_slot(fin->agg->kind);
	Datum		value;

	for (int i = 0; i < nslots; i++)
		st[i] = res->states[(Size) (fin->agg->slot + i) * res->ngroups + g];
	if (fin->ordered)
		return ordered_value(fin, res, st, isnull);

	/*
	 * A device that adds floats out of order notes an overflow instead of
	 * raising it (cuda/gpuagg_eval.h); it is raised here when finite
	 * inputs alone overflowed.
	 */
	if (f >= 0 && ga_float_overflowed(st[f]))
		float_overflow_error();
	if (fin->avg_f8)
	{
		*isnull = (slot_f8(st[0]) == 0.0);
		return *isnull ? (Datum) 0 : Float8GetDatum(slot_f8(st[1]) / slot_f8(st[0]));
	}
	if (fin->sum_i128)
	{
		*isnull = (st[0] == 0);
		if (*isnull)
			return (Datum) 0;
		if (fin->agg->kind == GA_AGG_SUM_I128_DS)
			return numeric_from_i128_dscale(st + 1, fin->agg->argscale, (int) st[3]);
		return numeric_from_i128(st + 1, fin->agg->argscale);
	}
	value = transition_value(fin, st, isnull);

	if (fin->has_deserial && !*isnull)
	{
		LOCAL_FCINFO(fcinfo, 2);

		InitFunctionCallInfoData(*fcinfo, &fin->deserialfn, 2, InvalidOid,
								 aggstate, NULL);
		fcinfo->args[0].value = value;
		fcinfo->args[0].isnull = false;
		fcinfo->args[1].value = (Datum) 0;
		fcinfo->args[1].isnull = true;
		value = FunctionCallInvoke(fcinfo);
		*isnull = fcinfo->isnull;
	}

	if (fin->has_final)
	{
		LOCAL_FCINFO(fcinfo, 1);

		if (fin->finalfn.fn_strict && *isnull)
			return (Datum) 0;
		InitFunctionCallInfoData(*fcinfo, &fin->finalfn, 1, InvalidOid,
								 aggstate, NULL);
		fcinfo->args[0].value = value;
		fcinfo->args[0].isnull = *isnull;
		value = FunctionCallInvoke(fcinfo);
		*isnull = fcinfo->isnull;
	}
	return value;
}

/*
 * An aggregate whose value a check can read from its state, exactly: 1 an
 * integer (st[vslot]), 2 a numeric at the argument's scale (an int128 from
 * st[vslot]); 0 none.  nullable: NULL where st[0] is 0.
 */
static int
having_value(const GpuaggFinal *fin, int *vslot, bool *nullable)
{
	const GaAgg *agg = fin->agg;

	if (fin->ordered || fin->partial || fin->span)
		return 0;
	*nullable = true;
	*vslot = 1;
	if (fin->sum_i128)
		return 2;				/* (either kind: sumX at argscale, from st[1]) */
	if (fin->has_final || fin->has_deserial)
		return 0;
	switch (agg->kind)
	{
		case GA_AGG_COUNT:
			*nullable = false;
			*vslot = 0;
			return 1;
		case GA_AGG_SUM_I64:
			return fin->transtype == INT8OID ? 1 : 0;	/* sum(int2/int4) */
		case GA_AGG_MIN:
		case GA_AGG_MAX:
			return agg->argtype == GA_T_INT2 || agg->argtype == GA_T_INT4 ||
				agg->argtype == GA_T_INT8 ? 1 :
				agg->argtype == GA_T_NUMERIC ? 2 : 0;
		default:
			return 0;
	}
}

/*
 * Can finishing the aggregate raise an error?  Not a count, a sum or
 * average of integers or numerics, nor min/max/bool_and/bool_or.
 */
static bool
finalize_cannot_fail(const GpuaggFinal *fin)
{
	if (fin->ordered || fin->partial)
		return false;
	switch (fin->agg->kind)
	{
		case GA_AGG_COUNT:
		case GA_AGG_SUM_I64:
		case GA_AGG_SUM_I128:
		case GA_AGG_SUM_I128_DS:
			return true;
		case GA_AGG_MIN:
		case GA_AGG_MAX:
		case GA_AGG_BOOL_AND:
		case GA_AGG_BOOL_OR:
			return !fin->has_final && !fin->has_deserial;
		default:
			return false;
	}
}

/*
 * Check c's bound from the value x (of type) it compares with: false where
 * it is no bound the check can hold (a NaN, an infinity, past int64).
 */
static bool
having_bound(GpuaggHavingCheck *c, Datum x, Oid type)
{
	int			round;

	c->never = false;
	if (!c->numeric && c->kind == 1 &&
		(type == INT2OID || type == INT4OID || type == INT8OID))
	{
		c->bound = type == INT2OID ? DatumGetInt16(x) :
			type == INT4OID ? DatumGetInt32(x) : DatumGetInt64(x);
		return true;
	}
	if (!c->numeric || c->kind != 2 || type != NUMERICOID)
		return false;
	/*
	 * the value v * 10^s is an integer: v < x where it is < ceil(x * 10^s),
	 * v <= x where it is <= floor(...), ...
	 */
	round = (c->strategy == BTLessStrategyNumber ||
			 c->strategy == BTGreaterEqualStrategyNumber) ? 1 :
		c->strategy == BTEqualStrategyNumber ? 0 : -1;
	if (!GpuaggNumericRounded(x, c->scale, round, &c->bound))
	{
		if (c->strategy != BTEqualStrategyNumber ||
			!GpuaggNumericRounded(x, c->scale, -1, &c->bound))
			return false;
		c->never = true;		/* no value of the scale equals it */
	}
	return true;
}

/* (result.h) */
void
GpuaggHavingBind(GpuaggHaving *h, ExprContext *econtext)
{
	for (int i = 0; i < h->n; i++)
	{
		GpuaggHavingCheck *c = &h->checks[i];
		Datum		x;
		bool		isnull;

		if (c->param == NULL)
			continue;
		x = ExecEvalExprSwitchContext(c->param, econtext, &isnull);
		c->skip = false;
		if (isnull)
			c->never = true;	/* the strict operator's NULL fails the qual */
		else if (!having_bound(c, x, c->type))
			c->skip = true;		/* no check: the qual decides */
	}
}

/* (result.h) */
void
GpuaggHavingInit(GpuaggHaving *h, List *qual, int nkeys, const GpuaggFinal *finals,
				 int naggs, PlanState *parent)
{
	Oid			numeric_family = lookup_type_cache(NUMERICOID, TYPECACHE_BTREE_OPFAMILY)->btree_opf;
	ListCell   *lc;

	h->n = 0;
	h->params = false;
	h->checks = palloc(sizeof(GpuaggHavingCheck) * Max(list_length(qual), 1));
	/*
	 * PostgreSQL finalizes every aggregate of a group before its HAVING
	 * (an out-of-range percentile, a float overflow raise their errors
	 * there), so a group is skipped only where none of them can fail.
	 */
	for (int a = 0; a < naggs; a++)
		if (!finalize_cannot_fail(&finals[a]))
			return;
	/*
	 * And it evaluates the conjuncts in order, stopping at a false one: the
	 * checks are the leading conjuncts that are checks, which cannot fail.
	 */
	foreach(lc, qual)
	{
		OpExpr	   *op = lfirst(lc);
		Var		   *var;
		Const	   *k;
		bool		var_first;
		int			kind,
					vslot,
					strategy = 0,
					a;
		bool		nullable;
		Oid			family = InvalidOid;
		GpuaggHavingCheck *c = &h->checks[h->n];
		ListCell   *lc2;

		if (!IsA(op, OpExpr) || list_length(op->args) != 2)
			break;
		var_first = IsA(linitial(op->args), Var);
		var = var_first ? linitial(op->args) : lsecond(op->args);
		k = var_first ? lsecond(op->args) : linitial(op->args);
		/* (a Param's value, an InitPlan's or a parameter's, is bound per run) */
		if (!IsA(var, Var) || var->varno != INDEX_VAR ||
			!((IsA(k, Const) && !k->constisnull) || IsA(k, Param)))
			break;
		a = var->varattno - 1 - nkeys;
		if (a < 0 || a >= naggs)
			break;
		kind = having_value(&finals[a], &vslot, &nullable);
		if (kind == 0)
			break;
		foreach(lc2, get_op_btree_interpretation(op->opno))
		{
			OpBtreeInterpretation *bi = lfirst(lc2);

			if (bi->strategy >= BTLessStrategyNumber && bi->strategy <= BTGreaterStrategyNumber &&
				(bi->opfamily_id == INTEGER_BTREE_FAM_OID ||
				 bi->opfamily_id == numeric_family))
			{
				strategy = bi->strategy;
				family = bi->opfamily_id;
				break;
			}
		}
		if (strategy == 0)
			break;
		/* k op var: var op' k */
		if (!var_first)
			strategy = BTCommuteStrategyNumber(strategy);
		c->agg = a;
		c->vslot = vslot;
		c->wide = kind == 2 && finals[a].sum_i128;
		c->nullable = nullable;
		c->strategy = strategy;
		c->never = false;
		c->skip = false;
		c->kind = kind;
		c->numeric = family == numeric_family;
		c->scale = finals[a].agg->argscale;
		c->param = NULL;
		if (IsA(k, Param))
		{
			Oid			type = exprType((Node *) k);

			if (!(c->numeric ? type == NUMERICOID && kind == 2 :
				  (type == INT2OID || type == INT4OID || type == INT8OID) && kind == 1))
				break;
			c->param = ExecInitExpr((Expr *) k, parent);
			c->type = type;
			h->params = true;
		}
		else if (!having_bound(c, k->constvalue, k->consttype))
			break;
		h->n++;
	}
}

static int
cmp_uint32(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a;
	uint32		y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* (result.h) */
int
GpuaggKeyStrings(const GaProgram *p, const GaResult *res, int max, uint32 **sel)
{
	uint32	   *out = palloc(sizeof(uint32) * (2 * (Size) max + 2));
	int			n = 0;
	int			m = 0;

	for (uint32 k = 0; k < p->nkeys; k++)
	{
		if (p->keytype[k] != GA_T_TEXT && p->keytype[k] != GA_T_BPCHAR)
			continue;
		for (uint64 g = 0; g < res->ngroups; g++)
		{
			Size		at = (Size) k * res->ngroups + g;
			uint32		codes[2];

			if (res->keynulls[at])
				continue;
			codes[0] = GA_TEXT_SHOWN(res->keys[at].u);
			codes[1] = GA_TEXT_EQ(res->keys[at].u);
			for (int c = 0; c < (codes[0] == codes[1] ? 1 : 2); c++)
			{
				if (codes[c] < res->strings_first ||
					codes[c] - res->strings_first >= res->nstrings)
					continue;
				/* (duplicates are dropped below; a bound on them here) */
				if (n == 2 * max + 2)
				{
					pfree(out);
					return -1;
				}
				out[n++] = codes[c] - res->strings_first;
			}
		}
	}
	if (n > 1)
		qsort(out, n, sizeof(uint32), cmp_uint32);
	for (int i = 0; i < n; i++)
		if (i == 0 || out[i] != out[m - 1])
			out[m++] = out[i];
	if (m > max)
	{
		pfree(out);
		return -1;
	}
	*sel = out;
	return m;
}

/* (result.h) */
void
GpuaggHavingForDevice(const GpuaggHaving *h, const GpuaggFinal *finals, GpuaggProgram *prog,
					  bool sets)
{
	GaProgram  *p = &prog->ga;

	p->nhaving = 0;
	/*
	 * (not where the host combines the device's groups into the query's:
	 * grouping sets, keys it maps; nor where a set's pairs name every
	 * group; nor of a plain aggregate, whose one group the node always
	 * gets, its count perhaps added by the host, exec.c's counts_rows_only)
	 */
	if (sets || prog->nrekeys > 0 || p->nkeys == 0)
		return;
	for (uint32 a = 0; a < p->naggs; a++)
		if (ga_agg_set_pairs(&p->aggs[a]))
			return;
	for (int i = 0; i < h->n && p->nhaving < GA_MAX_HAVING; i++)
	{
		const GpuaggHavingCheck *c = &h->checks[i];
		GaHaving   *d;

		/* (a Param's bound is read as the first group is checked: the host's) */
		if (c->param != NULL)
			continue;
		d = &p->having[p->nhaving++];

		d->slot = finals[c->agg].agg->slot;
		d->vslot = c->vslot;
		d->wide = c->wide;
		d->nullable = c->nullable;
		d->never = c->never;
		d->strategy = (uint8) c->strategy;
		d->bound = c->bound;
	}
}

/* (result.h) */
bool
GpuaggHavingKeeps(const GpuaggHaving *h, const GpuaggFinal *finals, const GaResult *res,
				  uint64 g)
{
	for (int i = 0; i < h->n; i++)
	{
		const GpuaggHavingCheck *c = &h->checks[i];
		const uint64 *states = res->states + (Size) finals[c->agg].agg->slot * res->ngroups;
		const uint64 *value = states + (Size) c->vslot * res->ngroups;
		int128		v;

		if (c->skip)
			continue;
		if (c->nullable && states[g] == 0)
			return false;		/* NULL: the operator's NULL fails the qual */
		if (c->never)
			return false;
		if (c->wide)
			v = GpuaggI128(value[g], value[res->ngroups + g]);
		else
			v = (int64) value[g];
		switch (c->strategy)
		{
			case BTLessStrategyNumber:
				if (!(v < c->bound))
					return false;
				break;
			case BTLessEqualStrategyNumber:
				if (!(v <= c->bound))
					return false;
				break;
			case BTEqualStrategyNumber:
				if (v != c->bound)
					return false;
				break;
			case BTGreaterEqualStrategyNumber:
				if (!(v >= c->bound))
					return false;
				break;
			case BTGreaterStrategyNumber:
				if (!(v > c->bound))
					return false;
				break;
		}
	}
	return true;
}

/* A DISTINCT aggregate's value of a group, as GpuaggFoldDistinct sorts them. */
typedef struct FoldPair
{
	uint64		group;
	GaDatum		value;
} FoldPair;

/* By group, then value in the order of the argument's type (NaN last). */
static int
fold_pair_cmp(const void *a, const void *b, void *arg)
{
	const FoldPair *x = a;
	const FoldPair *y = b;
	int			type = *(const int *) arg;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	if (ga_type_is_float(type))
	{
		if (isnan(x->value.f) || isnan(y->value.f))
			return isnan(x->value.f) - isnan(y->value.f);
		return x->value.f < y->value.f ? -1 : x->value.f > y->value.f ? 1 : 0;
	}
	return x->value.i < y->value.i ? -1 : x->value.i > y->value.i ? 1 : 0;
}

/*
 * (result.h) The states of a group's sum, avg, variance or stddev of
 * DISTINCT values, from the pairs (group, value) of the aggregate's set:
 * each group's values accumulated as the device would, in their sorted
 * order, as nodeAgg feeds a DISTINCT aggregate's transition function (so
 * that a float sum is PostgreSQL's to the last bit).  Returns GA_OK or the
 * error the accumulation raised.
 */
int
GpuaggFoldDistinct(const GpuaggProgram *prog, GaResult *res)
{
	const GaProgram *p = &prog->ga;

	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];
		int			type = ag->argtype;
		uint64		n;
		FoldPair   *pairs;

		if (!ga_agg_host_folds(ag) || ga_agg_ordered(ag->kind) ||
			ag->kind == GA_AGG_MIN || ag->kind == GA_AGG_MAX)
			continue;
		n = res->npairs[ag->distinct];
		pairs = palloc_extended(sizeof(FoldPair) * Max(n, 1), MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < n; i++)
		{
			pairs[i].group = res->pairgroup[ag->distinct][i];
			pairs[i].value.u = res->pairvalue[ag->distinct][i];
			if (pairs[i].group >= res->ngroups)
				elog(ERROR, "gpuagg: a DISTINCT pair names group " UINT64_FORMAT " of " UINT64_FORMAT,
					 pairs[i].group, res->ngroups);
		}
		qsort_arg(pairs, n, sizeof(FoldPair), fold_pair_cmp, &type);
		for (uint64 i = 0; i < n; i++)
		{
			int			err;

			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			/* (a grouping set's values come from each of its finer groups) */
			if (i > 0 && fold_pair_cmp(&pairs[i - 1], &pairs[i], &type) == 0)
				continue;
			err = ga_agg_update(ag, res->states + (Size) ag->slot * res->ngroups + pairs[i].group,
								res->ngroups, pairs[i].value);
			if (err != GA_OK)
				return err;
		}
		pfree(pairs);
	}
	return GA_OK;
}

/*
 * Two codes' strings of dict compared by varstr_cmp under collid, as
 * text_lt and text_larger do (under "C" it compares the bytes itself).
 */
static int
dict_string_cmp(GpuaggDict *dict, uint32 a, uint32 b, Oid collid)
{
	Datum		x = GpuaggDictValue(dict, a);
	Datum		y = GpuaggDictValue(dict, b);

	return varstr_cmp(VARDATA_ANY(DatumGetPointer(x)), VARSIZE_ANY_EXHDR(DatumGetPointer(x)),
					  VARDATA_ANY(DatumGetPointer(y)), VARSIZE_ANY_EXHDR(DatumGetPointer(y)),
					  collid);
}

/*
 * min/max of a char(n): each group's value, picked by its code without
 * trailing spaces, padded to n again as bpchar(value, typmod) pads it
 * (its code appended to dict, once a value).
 */
static void
pad_extremes(int32 typmod, const uint64 *has, uint64 *value, uint64 ngroups,
			 GpuaggDict *dict)
{
	uint32		ncodes = GpuaggDictCount(dict);
	uint32	   *padded = palloc_extended(sizeof(uint32) * Max(ncodes, 1),
										  MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);

	for (uint64 g = 0; g < ngroups; g++)
	{
		uint32		code = GA_TEXT_SHOWN(value[g]);

		if ((g & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (has[g] == 0)
			continue;
		if (code >= ncodes)
			elog(ERROR, "gpuagg: string code %u past the dictionary's %u", code, ncodes);
		/* (codes from 1: 0 says not yet) */
		if (padded[code] == 0)
			padded[code] = 1 + GpuaggDictAppend(dict,
												DirectFunctionCall3(bpchar,
																	GpuaggDictValue(dict, code),
																	Int32GetDatum(typmod),
																	BoolGetDatum(false)));
		value[g] = (uint64) (padded[code] - 1) << 32 | (padded[code] - 1);
	}
	pfree(padded);
}

/*
 * (result.h) The (has, value) state of a group's min/max of strings, from
 * the pairs (group, string code) the device sent back.
 */
void
GpuaggPickStringExtremes(const GpuaggProgram *prog, GaResult *res, GpuaggDict *dict)
{
	const GaProgram *p = &prog->ga;

	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];
		uint64	   *has,
				   *value;
		Oid			collid;

		if (ag->distinct < 0 || (ag->kind != GA_AGG_MIN && ag->kind != GA_AGG_MAX))
			continue;
		collid = prog->extreme_collid[ag->distinct];
		has = res->states + (Size) ag->slot * res->ngroups;
		value = res->states + (Size) (ag->slot + 1) * res->ngroups;
		for (uint64 i = 0; i < res->npairs[ag->distinct]; i++)
		{
			uint64		g = res->pairgroup[ag->distinct][i];
			uint32		code = (uint32) res->pairvalue[ag->distinct][i];
			int			c;

			if ((i & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			if (g >= res->ngroups)
				elog(ERROR, "gpuagg: a string pair names group " UINT64_FORMAT " of " UINT64_FORMAT,
					 g, res->ngroups);
			if (has[g] != 0)
			{
				c = dict_string_cmp(dict, code, GA_TEXT_SHOWN(value[g]), collid);
				if (ag->kind == GA_AGG_MIN ? c >= 0 : c <= 0)
					continue;
			}
			has[g] = 1;
			value[g] = (uint64) code << 32 | code;
		}
		if (prog->extreme_typmod[ag->distinct] > 0)
			pad_extremes(prog->extreme_typmod[ag->distinct], has, value, res->ngroups, dict);
	}
}

typedef struct PickCxt
{
	GpuaggDict *dict;
	Oid			collid;
	uint32		calls;			/* (a long sort stays cancellable) */
} PickCxt;

static int
code_cmp(const void *a, const void *b)
{
	uint32		x = *(const uint32 *) a,
				y = *(const uint32 *) b;

	return x < y ? -1 : x > y ? 1 : 0;
}

/* ... as qsort_arg's comparator of codes */
static int
string_cmp(const void *a, const void *b, void *arg)
{
	PickCxt    *cxt = arg;

	if ((++cxt->calls & 4095) == 0)
		CHECK_FOR_INTERRUPTS();
	return dict_string_cmp(cxt->dict, *(const uint32 *) a, *(const uint32 *) b, cxt->collid);
}


/* an entry of a set GpuaggSortOrderedSets sorts */
typedef struct SortEntry
{
	uint64		group;
	uint64		key;			/* the value's place in the sort's order */
	uint64		i;				/* the entry */
} SortEntry;

static int
sort_entry_cmp(const void *a, const void *b)
{
	const SortEntry *x = a,
			   *y = b;

	if (x->group != y->group)
		return x->group < y->group ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key ? 1 : 0;
}

/*
 * (result.h) Each ordered-set aggregate the host selects from: its set's
 * (group, value, rows) entries sorted by group, then by the value's place
 * in the ORDER BY's order (a string's rank under the collation, each
 * distinct string ranked once by varstr_cmp; another value's order bits,
 * ga_order_bits, DESC inverted), moved into that order (each entry's rows
 * become the group's rows up to it), and each group's states made (n, its
 * first entry, its entries) for ordered_value to search as the final
 * functions walk the sorted rows.
 */
void
GpuaggSortOrderedSets(const GpuaggProgram *prog, GaResult *res, GpuaggDict *dict)
{
	const GaProgram *p = &prog->ga;

	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];
		int			j = ag->distinct;
		uint64		m;
		uint64	   *n,
				   *first,
				   *count;
		uint32	   *codes = NULL,
				   *rank = NULL;
		uint64		u = 0,
					o = 0;
		SortEntry  *e;
		uint64	   *group,
				   *value,
				   *rows;
		MemoryContext cxt;

		if (j < 0 || !ag->host_select)
			continue;
		m = res->npairs[j];
		n = res->states + (Size) ag->slot * res->ngroups;
		first = n + res->ngroups;
		count = first + res->ngroups;
		for (uint64 g = 0; g < res->ngroups; g++)
			n[g] = first[g] = count[g] = 0;
		if (m == 0)
			continue;
		if (res->pairrows[j] == NULL)
			elog(ERROR, "gpuagg: an ordered-set aggregate's values came without their rows");

		if (ag->argtype == GA_T_TEXT)
		{
			/* the distinct strings, ranked in the collation's order */
			uint32	   *sorted;
			PickCxt		pc;

			codes = palloc_extended(sizeof(uint32) * m, MCXT_ALLOC_HUGE);
			for (uint64 i = 0; i < m; i++)
				codes[i] = GA_TEXT_EQ(res->pairvalue[j][i]);
			qsort(codes, m, sizeof(uint32), code_cmp);
			for (uint64 i = 0; i < m; i++)
				if (i == 0 || codes[i] != codes[u - 1])
					codes[u++] = codes[i];
			sorted = palloc_extended(sizeof(uint32) * u, MCXT_ALLOC_HUGE);
			memcpy(sorted, codes, sizeof(uint32) * u);
			pc.dict = dict;
			pc.collid = prog->extreme_collid[j];
			pc.calls = 0;
			qsort_arg(sorted, u, sizeof(uint32), string_cmp, &pc);
			rank = palloc_extended(sizeof(uint32) * u, MCXT_ALLOC_HUGE);
			for (uint64 r = 0; r < u; r++)
			{
				uint32	   *at = bsearch(&sorted[r], codes, u, sizeof(uint32), code_cmp);

				rank[at - codes] = (uint32) (ag->desc ? u - 1 - r : r);
			}
			pfree(sorted);
		}

		e = palloc_extended(sizeof(SortEntry) * m, MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < m; i++)
		{
			uint64		v = res->pairvalue[j][i];

			if (res->pairgroup[j][i] >= res->ngroups)
				elog(ERROR, "gpuagg: an ordered-set entry names group " UINT64_FORMAT " of " UINT64_FORMAT,
					 res->pairgroup[j][i], res->ngroups);
			e[i].group = res->pairgroup[j][i];
			if (rank)
			{
				uint32		code = GA_TEXT_EQ(v);

				e[i].key = rank[(uint32 *) bsearch(&code, codes, u, sizeof(uint32),
												   code_cmp) - codes];
			}
			else
				e[i].key = ga_order_bits(ag->argtype, (GaDatum) {.u = v}, ag->desc);
			e[i].i = i;
			n[e[i].group] += res->pairrows[j][i];
		}
		CHECK_FOR_INTERRUPTS();
		qsort(e, m, sizeof(SortEntry), sort_entry_cmp);
		/* the entries in that order, in the result's memory */
		cxt = GetMemoryChunkContext(res->pairvalue[j]);
		group = MemoryContextAllocHuge(cxt, sizeof(uint64) * m);
		value = MemoryContextAllocHuge(cxt, sizeof(uint64) * m);
		rows = MemoryContextAllocHuge(cxt, sizeof(uint64) * m);
		for (uint64 i = 0; i < m; i++)
		{
			uint64		g = e[i].group;

			if ((i & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
			/*
			 * the same value twice in a group: groups the host merged (a
			 * key it maps, GpuaggRekey) each had it; one entry of both's
			 * rows
			 */
			if (o > 0 && group[o - 1] == g && e[i - 1].key == e[i].key)
			{
				rows[o - 1] += res->pairrows[j][e[i].i];
				continue;
			}
			group[o] = g;
			value[o] = res->pairvalue[j][e[i].i];
			/* (the group's rows so far: host_row searches them) */
			rows[o] = res->pairrows[j][e[i].i];
			if (count[g]++ == 0)
				first[g] = o;
			else
				rows[o] += rows[o - 1];
			o++;
		}
		res->npairs[j] = o;
		pfree(res->pairgroup[j]);
		pfree(res->pairvalue[j]);
		pfree(res->pairrows[j]);
		res->pairgroup[j] = group;
		res->pairvalue[j] = value;
		res->pairrows[j] = rows;
		if (codes)
			pfree(codes);
		if (rank)
			pfree(rank);
		pfree(e);
	}
}

#define palloc0_array_huge(type, n) \
	((type *) palloc_extended(sizeof(type) * Max((Size) (n), 1), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO))
#define palloc_array_huge(type, n) \
	((type *) palloc_extended(sizeof(type) * Max((Size) (n), 1), MCXT_ALLOC_HUGE))

/*
 * Grouping sets.  A set's group is a group of the device's finest grouping
 * with the keys outside the set masked; simplehash finds each by the
 * canonical bits of the keys inside, as the device tells groups apart.
 */
typedef struct SetEntry
{
	uint64		group;			/* the first finest group of it */
	uint64		index;			/* its index among the set's groups */
	uint32		hash;
	char		status;
} SetEntry;

typedef struct SetKeys
{
	const GaResult *res;
	const GpuaggProgram *prog;
	const bool *in;				/* [nkeys]: the set groups by key k */
} SetKeys;

static uint32 set_hash(const SetKeys *sk, uint64 g);
static bool set_equal(const SetKeys *sk, uint64 a, uint64 b);

#define SH_PREFIX setkeys
#define SH_ELEMENT_TYPE SetEntry
#define SH_KEY_TYPE uint64
#define SH_KEY group
#define SH_HASH_KEY(tb, key) set_hash((tb)->private_data, key)
#define SH_EQUAL(tb, a, b) set_equal((tb)->private_data, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) (a)->hash
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

static uint32
set_hash(const SetKeys *sk, uint64 g)
{
	const GaResult *res = sk->res;
	uint64		h = 0;

	for (uint32 k = 0; k < sk->prog->ga.nkeys; k++)
	{
		Size		at = (Size) k * res->ngroups + g;

		if (!sk->in[k])
			continue;
		h = ga_mix64(h ^ (res->keynulls[at] ? UINT64_C(0x9e3779b97f4a7c15) :
						  ga_canonical_key(GpuaggKeyType(sk->prog, k), res->keys[at]).u + k));
	}
	return (uint32) (h >> 32);
}

static bool
set_equal(const SetKeys *sk, uint64 a, uint64 b)
{
	const GaResult *res = sk->res;

	for (uint32 k = 0; k < sk->prog->ga.nkeys; k++)
	{
		Size		at = (Size) k * res->ngroups + a;
		Size		bt = (Size) k * res->ngroups + b;
		int			type = GpuaggKeyType(sk->prog, k);

		if (!sk->in[k])
			continue;
		if (res->keynulls[at] != res->keynulls[bt])
			return false;
		if (!res->keynulls[at] &&
			ga_canonical_key(type, res->keys[at]).u != ga_canonical_key(type, res->keys[bt]).u)
			return false;
	}
	return true;
}

static bool
set_is_empty(const bool *in, uint32 nkeys)
{
	for (uint32 k = 0; k < nkeys; k++)
		if (in[k])
			return false;
	return true;
}

/*
 * The groups of one set, numbered in the order their first finest group
 * comes: their count, and in *index each finest group's (NULL: the finest
 * set itself, its groups as they are).
 */
static uint64
set_index(const GpuaggProgram *prog, const GaResult *res, const bool *in, bool merge,
		  uint64 **index)
{
	const GaProgram *p = &prog->ga;
	SetKeys		sk = {res, prog, in};
	setkeys_hash *tab;
	uint64		m = 0;
	bool		finest = !merge;

	/*
	 * the finest set itself (ROLLUP's and CUBE's largest): its groups as
	 * they are, unless keys the host mapped may now repeat (merge)
	 */
	for (uint32 k = 0; k < p->nkeys; k++)
		finest &= in[k];
	*index = NULL;
	if (finest)
		m = res->ngroups;
	else
	{
		tab = setkeys_create(CurrentMemoryContext, Max(res->ngroups, 1), &sk);
		*index = palloc_extended(sizeof(uint64) * Max(res->ngroups, 1), MCXT_ALLOC_HUGE);
		for (uint64 g = 0; g < res->ngroups; g++)
		{
			SetEntry   *e;
			bool		found;

			if ((g & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			e = setkeys_insert(tab, g, &found);
			if (!found)
				e->index = m++;
			(*index)[g] = e->index;
		}
		setkeys_destroy(tab);
	}
	/* the empty set's one group, even of no rows, as natively */
	if (res->ngroups == 0 && m == 0 && set_is_empty(in, p->nkeys))
		m = 1;
	return m;
}

/*
 * ... written to out (ngroups of them all) from base on: keys, states
 * combined, DISTINCT pairs moved to them.
 */
static void
set_groups(const GpuaggProgram *prog, const GaResult *res, const bool *in,
		   const uint64 *index, uint64 base, GaResult *out, uint64 *pairs_at, int *err)
{
	const GaProgram *p = &prog->ga;
	uint64		m = 0;			/* the set's groups met so far */

	for (uint64 g = 0; g < res->ngroups; g++)
	{
		/* (the set's groups are numbered as they first come) */
		uint64		at = base + (index ? index[g] : g);

		if ((g & 4095) == 0)
			CHECK_FOR_INTERRUPTS();
		if (at == base + m)
		{
			m++;
			for (uint32 k = 0; k < p->nkeys; k++)
			{
				Size		o = (Size) k * out->ngroups + at;

				out->keynulls[o] = !in[k] || res->keynulls[(Size) k * res->ngroups + g];
				out->keys[o] = out->keynulls[o] ? (GaDatum) {0} :
					res->keys[(Size) k * res->ngroups + g];
			}
			for (uint32 j = 0; j < p->nslots; j++)
				out->states[(Size) j * out->ngroups + at] =
					res->states[(Size) j * res->ngroups + g];
			continue;
		}
		for (uint32 a = 0; a < p->naggs && *err == GA_OK; a++)
		{
			const GaAgg *ag = &p->aggs[a];

			if (ag->distinct >= 0)
				continue;		/* folded from the pairs below */
			*err = ga_agg_combine(ag, out->states + (Size) ag->slot * out->ngroups + at,
								  out->ngroups,
								  res->states + (Size) ag->slot * res->ngroups + g,
								  res->ngroups);
		}
	}
	/* the empty set's one group, even of no rows, as natively */
	if (res->ngroups == 0 && set_is_empty(in, p->nkeys))
		for (uint32 k = 0; k < p->nkeys; k++)
			out->keynulls[(Size) k * out->ngroups + base] = 1;
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
		for (uint64 i = 0; i < res->npairs[j]; i++)
		{
			uint64		g = res->pairgroup[j][i];

			out->pairgroup[j][pairs_at[j]] = base + (index ? index[g] : g);
			out->pairvalue[j][pairs_at[j]++] = res->pairvalue[j][i];
		}
}

/*
 * res, the finest groups, becomes the groups of each set in turn;
 * (*setof)[g] is group g's set.  merge: the finest set's groups may
 * repeat (GpuaggRekey's).  Each set's groups are told apart once, then
 * written.
 */
static int
combine_sets(const GpuaggProgram *prog, GaResult *res, List *sets, bool merge,
			 uint32 **setof)
{
	const GaProgram *p = &prog->ga;
	int			nsets = list_length(sets);
	bool	   *in = palloc0(sizeof(bool) * Max(p->nkeys, 1) * nsets);
	uint64	   *counts = palloc(sizeof(uint64) * nsets);
	uint64	  **index = palloc(sizeof(uint64 *) * nsets);
	uint64		pairs_at[GA_MAX_DISTINCT] = {0};
	uint64		total = 0;
	uint64		base = 0;
	GaResult	out = *res;
	int			err = GA_OK;
	ListCell   *lc;

	foreach(lc, sets)
	{
		int			s = foreach_current_index(lc);
		ListCell   *lk;

		foreach(lk, (List *) lfirst(lc))
			in[(Size) s * p->nkeys + lfirst_int(lk)] = true;
		counts[s] = set_index(prog, res, in + (Size) s * p->nkeys, merge, &index[s]);
		total += counts[s];
	}

	out.ngroups = total;
	out.keys = palloc0_array_huge(GaDatum, (Size) p->nkeys * total);
	out.keynulls = palloc0_array_huge(uint8, (Size) p->nkeys * total);
	out.states = palloc0_array_huge(uint64, (Size) p->nslots * total);
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
	{
		out.pairgroup[j] = palloc_array_huge(uint64, res->npairs[j] * nsets);
		out.pairvalue[j] = palloc_array_huge(uint64, res->npairs[j] * nsets);
	}
	*setof = palloc_array_huge(uint32, total);
	for (int s = 0; s < nsets && err == GA_OK; s++)
	{
		set_groups(prog, res, in + (Size) s * p->nkeys, index[s], base, &out, pairs_at, &err);
		for (uint64 g = base; g < base + counts[s]; g++)
			(*setof)[g] = s;
		base += counts[s];
	}
	for (int s = 0; s < nsets; s++)
		if (index[s])
			pfree(index[s]);
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
		out.npairs[j] = pairs_at[j];
	*res = out;
	return err;
}

/* (result.h) */
int
GpuaggGroupingSets(const GpuaggProgram *prog, GaResult *res, List *sets, uint32 **setof)
{
	return combine_sets(prog, res, sets, false, setof);
}

/*
 * GpuaggRekey's work on one key: its expression, and the strings it
 * yielded, told apart in a dictionary of their own (values) and each
 * appended to the run's once, under code[its code in values].
 */
typedef struct RekeyState
{
	ExprState  *state;
	ExprContext *econtext;
	Oid			argtype;
	bool		shareable;		/* argument and value strings (the cache
								 * holds those), and worth sharing */
	uint32		timed;			/* evaluations timed so far */
	double		eval_us;		/* ... and their microseconds */
	bool		time_all;		/* time every evaluation (EXPLAIN ANALYZE) */
	double		all_us;			/* ... their microseconds */
	GpuaggDict *values;
	uint32	   *code;			/* [a power of two, at least ncode] */
	uint32		ncode;
} RekeyState;

/* GpuaggMapCacheFind, its value in the memory rekey_value resets */
static bool
found_in_cache(RekeyState *rk, GpuaggMapCache *cache, int k, const char *s, uint32 len,
			   uint64 *hash, bool *isnull, Datum *v)
{
	MemoryContext old = MemoryContextSwitchTo(rk->econtext->ecxt_per_tuple_memory);
	bool		found = GpuaggMapCacheFind(cache, k, s, len, hash, isnull, v);

	MemoryContextSwitchTo(old);
	return found;
}

/*
 * Whether a key's values are worth sharing is timed: a value another
 * process mapped costs about 1 us to look up and keep (parallel.c's
 * table, its slots and entries mostly out of the CPU's caches), which
 * PostgreSQL's lower() beats (0.2 us: with the cache 8.9 s of mapping
 * for 2.95M URLs on 3 processes, without 5.4 s) and ClickBench Q29's
 * regex does not (3 us).  Each process times its first REKEY_SAMPLE
 * evaluations and shares no more where they took less than
 * REKEY_SHARE_US on average.
 */
#define REKEY_SAMPLE	256
#define REKEY_SHARE_US	1.0

/*
 * The key's value for one string (NULL: isnull): 1 and *out its register,
 * or 2, NULL.  A string's value comes from cache where another process
 * mapped it (*from_cache counts those), and goes there where not.
 */
static uint8
rekey_value(RekeyState *rk, int k, bool isnull, Datum d, GpuaggDict *dict, uint64 *out,
			GpuaggMapCache *cache, uint64 *from_cache)
{
	ParamExternData *prm = &rk->econtext->ecxt_param_list_info->params[0];
	Datum		v;
	bool		vnull;
	uint32		local;
	const char *s = NULL;
	uint32		len = 0;
	uint64		hash = 0;

	if (cache != NULL && !isnull && rk->shareable)
	{
		struct varlena *str = (struct varlena *) DatumGetPointer(d);

		s = VARDATA_ANY(str);
		len = VARSIZE_ANY_EXHDR(str);
	}
	if (s != NULL && found_in_cache(rk, cache, k, s, len, &hash, &vnull, &v))
		(*from_cache)++;
	else
	{
		bool		sample = s != NULL && rk->timed < REKEY_SAMPLE;
		instr_time	start,
					took;
		double		us;

		prm->pflags = PARAM_FLAG_CONST;
		prm->ptype = rk->argtype;
		prm->isnull = isnull;
		prm->value = d;
		if (sample || rk->time_all)
			INSTR_TIME_SET_CURRENT(start);
		v = ExecEvalExprSwitchContext(rk->state, rk->econtext, &vnull);
		if (sample || rk->time_all)
		{
			INSTR_TIME_SET_CURRENT(took);
			INSTR_TIME_SUBTRACT(took, start);
			/* (not INSTR_TIME_GET_MICROSEC: whole microseconds, 0 for lower()) */
			us = INSTR_TIME_GET_DOUBLE(took) * 1000000.0;
			rk->all_us += us;
			if (sample)
				rk->eval_us += us;
		}
		if (sample && ++rk->timed == REKEY_SAMPLE)
			rk->shareable = rk->eval_us >= REKEY_SHARE_US * REKEY_SAMPLE;
		if (s != NULL)
			GpuaggMapCacheAdd(cache, k, s, len, hash, vnull, v);
	}
	*out = 0;
	if (!vnull)
	{
		local = GpuaggDictEncode(rk->values, v);
		if (local == rk->ncode)
		{
			/* a value not seen before (codes come in order) */
			if (rk->ncode > 0 && (rk->ncode & (rk->ncode - 1)) == 0)
				rk->code = repalloc_huge(rk->code, sizeof(uint32) * (Size) rk->ncode * 2);
			rk->code[rk->ncode++] = GpuaggDictAppend(dict, v);
		}
		*out = (uint64) rk->code[local] << 32 | rk->code[local];
	}
	ResetExprContext(rk->econtext);
	return vnull ? 2 : 1;
}

/* (result.h) */
bool
GpuaggRekeyShareable(const GpuaggProgram *prog, int k)
{
	return prog->rekey_expr[k] != NULL && get_typlen(prog->rekey_argtype[k]) == -1 &&
		get_typlen(exprType((Node *) prog->rekey_expr[k])) == -1;
}

/* GpuaggRekey's values of one key, by the inner value's canonical bits */
typedef struct RekeyEntry
{
	uint64		key;
	uint64		value;			/* the key's register */
	uint8		known;			/* 1: value, 2: NULL */
	char		status;
} RekeyEntry;

#define SH_PREFIX rekeymap
#define SH_ELEMENT_TYPE RekeyEntry
#define SH_KEY_TYPE uint64
#define SH_KEY key
#define SH_HASH_KEY(tb, key) ((uint32) ga_mix64(key))
#define SH_EQUAL(tb, a, b) ((a) == (b))
#define SH_SCOPE static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/*
 * (result.h) Each key the host maps: its value per distinct inner value
 * (the devices' canonical bits: a string's code), and for a NULL one
 * (concat and the like are not strict), then the groups merged.
 */
int
GpuaggRekey(const GpuaggProgram *prog, GaResult *res, GpuaggDict *dict,
			GpuaggMapCache *cache, uint64 *from_cache, double *eval_ms)
{
	const GaProgram *p = &prog->ga;
	MemoryContext cxt = AllocSetContextCreate(CurrentMemoryContext, "gpuagg mapped keys",
											  ALLOCSET_DEFAULT_SIZES);
	MemoryContext old = MemoryContextSwitchTo(cxt);
	RekeyState	rk;
	List	   *all = NIL;
	uint32	   *setof;
	int			err;

	rk.econtext = CreateStandaloneExprContext();
	rk.time_all = eval_ms != NULL;
	rk.all_us = 0;
	rk.econtext->ecxt_param_list_info = makeParamList(1);
	for (uint32 k = 0; cache != NULL && k < p->nkeys; k++)
		if (GpuaggRekeyShareable(prog, k))
			GpuaggMapCacheExpect(cache, res->ngroups);
	for (uint32 k = 0; k < p->nkeys; k++)
	{
		rekeymap_hash *map;
		uint64		nullvalue = 0;
		uint8		nullknown = 0;	/* 0 not yet, 1 nullvalue, 2 NULL */

		all = lappend_int(all, k);
		if (prog->rekey_expr[k] == NULL)
			continue;
		rk.state = ExecInitExpr(prog->rekey_expr[k], NULL);
		rk.argtype = prog->rekey_argtype[k];
		rk.shareable = GpuaggRekeyShareable(prog, k);
		rk.timed = 0;
		rk.eval_us = 0;
		rk.values = GpuaggDictCreate(cxt);
		rk.code = palloc(sizeof(uint32));
		rk.ncode = 0;
		/* (the groups of one key are its values: each comes once) */
		map = p->nkeys == 1 ? NULL : rekeymap_create(cxt, 1024, NULL);
		for (uint64 g = 0; g < res->ngroups; g++)
		{
			Size		at = (Size) k * res->ngroups + g;
			RekeyEntry *e;
			RekeyEntry	one;
			bool		found = false;

			if ((g & 4095) == 0)
				CHECK_FOR_INTERRUPTS();
			if (res->keynulls[at])
			{
				if (nullknown == 0)
					nullknown = rekey_value(&rk, k, true, (Datum) 0, dict, &nullvalue,
													   cache, from_cache);
				res->keynulls[at] = nullknown == 2;
				res->keys[at].u = nullvalue;
				continue;
			}
			e = map ? rekeymap_insert(map, ga_canonical_key(p->keytype[k], res->keys[at]).u,
									  &found) : &one;
			if (!found)
			{
				/* (a numeric's Datum in the memory rekey_value resets) */
				MemoryContext tuple = MemoryContextSwitchTo(rk.econtext->ecxt_per_tuple_memory);
				Datum		d = GpuaggKeyDatum(res->keys[at], p->keytype[k], p->keyscale[k], dict);

				/* (a uuid's 16 bytes: its Datum, program.h) */
				if (prog->rekey_argtype[k] == UUIDOID)
					d = GpuaggUuidDatum(d);

				MemoryContextSwitchTo(tuple);
				e->known = rekey_value(&rk, k, false, d, dict, &e->value, cache, from_cache);
			}
			res->keynulls[at] = e->known == 2;
			res->keys[at].u = e->value;
		}
	}
	FreeExprContext(rk.econtext, true);
	if (eval_ms)
		*eval_ms += rk.all_us / 1000.0;
	MemoryContextSwitchTo(old);
	err = combine_sets(prog, res, list_make1(all), true, &setof);
	pfree(setof);
	MemoryContextDelete(cxt);
	return err;
}
