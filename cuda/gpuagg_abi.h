/*-------------------------------------------------------------------------
 *
 * gpuagg_abi.h
 *		The host/device boundary of gpuagg: program, batch and result layout.
 *
 * Plain C, no PostgreSQL headers: this file is included by the host (C, the
 * CPU device) and by the CUDA kernels.  Everything that crosses from the
 * planner to a device is described here, so that both devices execute the
 * same program and return the same states.
 *
 * A *program* is a flat, fixed-size struct: a list of register-machine
 * instructions split into segments (WHERE, group keys, one FILTER and one
 * argument segment per aggregate), a constant table, the columns to read
 * and one descriptor per aggregate.  Each row is evaluated by walking a
 * segment with a small register file (gpuagg_eval.h); a run-time error that
 * PostgreSQL would raise sets an error code the host turns into the same
 * ereport.
 *
 * A *batch* is a set of column vectors at their native width plus validity
 * bitmaps (bit set = NULL; a NULL pointer means "no NULLs in this batch").
 * Strings travel as codes of a per-query dictionary the host keeps
 * (src/dict.c): equal codes are equal strings under a deterministic
 * collation, so a device groups, compares for equality and de-duplicates
 * strings without seeing their bytes -- except in page form, where the
 * device reads the strings from the pages and codes them in a dictionary of
 * its own that continues the host's (gpuagg_page.h, GaDict), and hands its
 * strings back with the result.
 *
 * A *result* holds one row per group: key values and aggregate transition
 * state slots, struct-of-arrays.  The host turns the slots into PostgreSQL's
 * own transition values and calls PostgreSQL's final functions.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_ABI_H
#define GPUAGG_ABI_H

#include <stdint.h>

/* helpers below are callable from host code and from kernels */
#ifdef __CUDACC__
#define GA_HD __host__ __device__ static inline
#else
#define GA_HD static inline
#endif

#define GA_ABI_VERSION		34

/*
 * Words of a page's visibility bitmap in a page-form batch: room for
 * MaxHeapTuplesPerPage line pointers at BLCKSZ 8192 (291).
 */
#define GA_PAGE_VIS_WORDS	10

/* Limits of one program; larger queries keep the native plan. */
#define GA_MAX_COLS			64
#define GA_MAX_KEYS			8
#define GA_MAX_AGGS			128
#define GA_MAX_PAIRS		16	/* two-argument aggregates in a program */
#define GA_MAX_INSTR		2048
#define GA_MAX_CONSTS		1024
#define GA_LIKE_BYTES		256	/* GaProgram.likes */
#define GA_MAX_REGS			64
#define GA_MAX_SLOTS		256
/* threads a block of the table kernels (gpuagg_aggregate's launch bounds) */
#define GA_BLOCK			256
#define GA_MAX_DISTINCT		8	/* count(DISTINCT) aggregates */
#define GA_SEED_MAX			(64 * 1024)	/* page form: bytes of the host's strings
										 * a device's dictionary starts with */
#define GA_MAX_DIMS			8	/* a join's tables a device probes */
#define GA_MAX_DIM_KEYS		4	/* ... the columns of one's key */
#define GA_MAX_DIM_COLS		16	/* ... the columns of one the rows read */

/* Value types a column, register, key or aggregate argument can have. */
typedef enum GaType
{
	GA_T_INVALID = 0,
	GA_T_BOOL,
	GA_T_INT2,
	GA_T_INT4,
	GA_T_INT8,
	GA_T_FLOAT4,
	GA_T_FLOAT8,
	GA_T_DATE,
	GA_T_TIMESTAMP,
	GA_T_TIMESTAMPTZ,
	GA_T_NULLONLY,				/* column of any type; only NULL-ness is read */
	GA_T_TEXT,					/* a string (text, varchar, bpchar): codes */
	GA_T_BPCHAR,				/* a bpchar column: two codes */
	GA_T_NUMERIC				/* numeric: an int64 scaled by 10^scale */
} GaType;

/*
 * A numeric travels as an int64 holding the value times 10^scale, where
 * the scale (0 .. GA_NUMERIC_MAX_SCALE) is fixed by the compiler for each
 * column, register, key and aggregate argument, and equals the display
 * scale PostgreSQL gives every value there (a column's typmod scale, a
 * product's sum of scales, ...).  A value that does not fit (NaN, too
 * large, an intermediate past int64) raises GA_ERR_NUMERIC_EXACT: the
 * host then runs the query's exact path, never a rounded answer.
 */
#define GA_NUMERIC_MAX_SCALE	18

/* 10^k, 0 <= k <= GA_NUMERIC_MAX_SCALE */
GA_HD int64_t
ga_pow10(int k)
{
	int64_t		p = 1;

	for (int i = 0; i < k; i++)
		p *= 10;
	return p;
}

/*
 * A string register holds two dictionary codes (src/dict.c): the low 32
 * bits are the code equality is decided on, the high 32 bits the code of
 * the exact value a group shows.  They differ only for bpchar, whose
 * equality ignores trailing spaces; a text or varchar column carries one
 * code (4 bytes a row), a bpchar column both (GA_T_BPCHAR, 8 bytes).
 */
#define GA_TEXT_EQ(u)		((uint32_t) (u))
#define GA_TEXT_SHOWN(u)	((uint32_t) ((u) >> 32))

/* Registers hold integers (bool, ints, date, timestamps) widened to int64,
 * and floats (float4 values too, exactly) as double. */
typedef union GaDatum
{
	int64_t		i;
	double		f;
	uint64_t	u;
} GaDatum;

/* A datum of all zero bits (an absent second argument). */
GA_HD GaDatum
ga_datum_zero(void)
{
	GaDatum		d;

	d.u = 0;
	return d;
}

GA_HD int
ga_type_is_float(int t)
{
	return t == GA_T_FLOAT4 || t == GA_T_FLOAT8;
}

/* Width in bytes of a column of the type in a batch (0: no values). */
GA_HD int
ga_type_width(int t)
{
	switch (t)
	{
		case GA_T_BOOL:
			return 1;
		case GA_T_INT2:
			return 2;
		case GA_T_INT4:
		case GA_T_DATE:
		case GA_T_FLOAT4:
		case GA_T_TEXT:
			return 4;
		case GA_T_INT8:
		case GA_T_FLOAT8:
		case GA_T_TIMESTAMP:
		case GA_T_TIMESTAMPTZ:
		case GA_T_BPCHAR:
		case GA_T_NUMERIC:
			return 8;
		default:
			return 0;
	}
}

/*
 * Opcodes.  Every instruction writes register dst.  Strict operators yield
 * NULL without evaluating (and so without raising) when an input is NULL,
 * as PostgreSQL's strict functions do.
 */
typedef enum GaOp
{
	GA_OP_COL = 1,				/* dst = column imm of the current row */
	GA_OP_CONST,				/* dst = consts[imm] */
	GA_OP_MOVE,					/* dst = a */

	/* arithmetic; type = result type; ints checked against its range */
	GA_OP_ADD,
	GA_OP_SUB,
	GA_OP_MUL,
	GA_OP_DIV,
	GA_OP_MOD,
	GA_OP_NEG,
	GA_OP_DATE_PLI,				/* date + int4 -> date */
	GA_OP_DATE_MII,				/* date - int4 -> date */
	GA_OP_DATE_MI,				/* date - date -> int4; imm 1, type int8:
								 * timestamp - timestamp, microseconds */

	/* comparisons; type = operand class (an integer type or a float type) */
	GA_OP_EQ,
	GA_OP_NE,
	GA_OP_LT,
	GA_OP_LE,
	GA_OP_GT,
	GA_OP_GE,

	/* boolean logic with SQL's three-valued semantics */
	GA_OP_NOT,
	GA_OP_AND_STEP,				/* dst &= a; false: jump to imm */
	GA_OP_OR_STEP,				/* dst |= a; true: jump to imm */
	GA_OP_QUAL_STEP,			/* a not true: dst = false, jump to imm */
	GA_OP_ISNULL,
	GA_OP_ISNOTNULL,
	GA_OP_ISTRUE,
	GA_OP_ISNOTTRUE,
	GA_OP_ISFALSE,
	GA_OP_ISNOTFALSE,

	/*
	 * dst = a converted from type b to type (b numeric: imm its scale; b
	 * or type timestamptz: in the time zone of GaProgram.zone; b date,
	 * imm 1: date2timestamp, date2timestamptz, else a date compared with a
	 * timestamp, past whose range it sorts; type timestamptz, imm 2: a date
	 * or timestamp compared with a timestamptz, likewise)
	 */
	GA_OP_CAST,

	/*
	 * dst = date_trunc(imm: a GaTruncUnit, a), a timestamp (b = 0) or a
	 * timestamptz (b = 1) in the program's time zone (GaProgram.zone)
	 */
	GA_OP_TS_TRUNC,

	/* dst = a * 10^imm, a numeric (or an integer: then at scale imm) */
	GA_OP_NUM_SCALE,
	/* dst = numeric a without its last imm digits: a GaRounding (b) */
	GA_OP_NUM_ROUND,
	/*
	 * dst = abs(a) (b = 0) or sign(a) (b = 1, at scale 0), a numeric; abs
	 * of an integer (its type's minimum out of range) or a float of type
	 * type
	 */
	GA_OP_NUM_ABS,
	/* dst = a, a numeric, if |a| < 10^imm (a typmod's precision), else
	 * GA_ERR_NUMERIC_EXACT: the exact path raises PostgreSQL's error */
	GA_OP_NUM_PRECISION,

	/*
	 * dst = extract(imm: a GaPartField FROM a), a timestamp (b = 0), a
	 * date (b = 1) or a timestamptz (b = 2: the fields of its local time
	 * in the program's time zone); type GA_T_NUMERIC (extract: a scaled integer at the
	 * field's scale, GaPartScale) or GA_T_FLOAT8 (date_part); NULL for a
	 * field of an infinite value that has none
	 */
	GA_OP_TS_PART,

	/*
	 * dst = a + interval, a timestamp (b = 0) or a date (b = 1, as a
	 * timestamp first), the interval the constants imm (its microseconds)
	 * and imm + 1 (its months << 32 | its days as uint32): as
	 * timestamp_pl_interval and date_pl_interval
	 */
	GA_OP_TS_PL_INTERVAL,

	/* dst = float8 a rounded to an integral value: a GaRounding (b) */
	GA_OP_FLT_ROUND,
	/* dst = sign(a), a float8 (NaN: 0, as dsign) */
	GA_OP_FLT_SIGN,

	/*
	 * dst = age(a, b), two timestamps, or two timestamptzs in the
	 * program's time zone (imm & GA_AGE_TZ): its interval_cmp value (imm
	 * GA_AGE_CMP, type int8, held at int64's ends) or a GaPartField of it
	 * (type GA_T_NUMERIC at ga_part_scale, or GA_T_FLOAT8)
	 */
	GA_OP_AGE
} GaOp;

/*
 * How GA_OP_NUM_ROUND and GA_OP_FLT_ROUND round: half away from zero
 * (round_var) or, of a float8, half to even (dround's rint); toward zero
 * (trunc_var, dtrunc); down (floor_var, dfloor); up (ceil_var, dceil).
 */
typedef enum GaRounding
{
	GA_ROUND_HALF = 0,
	GA_ROUND_TRUNC,
	GA_ROUND_FLOOR,
	GA_ROUND_CEIL
} GaRounding;

/* The fields of extract and date_part that the devices compute. */
typedef enum GaPartField
{
	GA_PART_MICROSECONDS = 0,
	GA_PART_MILLISECONDS,
	GA_PART_SECOND,
	GA_PART_MINUTE,
	GA_PART_HOUR,
	GA_PART_DAY,
	GA_PART_MONTH,
	GA_PART_QUARTER,
	GA_PART_YEAR,
	GA_PART_DECADE,
	GA_PART_CENTURY,
	GA_PART_MILLENNIUM,
	GA_PART_DOW,
	GA_PART_ISODOW,
	GA_PART_DOY,
	GA_PART_WEEK,
	GA_PART_ISOYEAR,
	GA_PART_EPOCH,
	GA_PART_JULIAN,				/* of a date only */
	GA_PART_TZ,					/* of a timestamptz only: its UTC offset */
	GA_PART_TZ_HOUR,
	GA_PART_TZ_MINUTE
} GaPartField;

/*
 * Does an infinite timestamp or date have the field (+-Infinity: it grows
 * with the value), rather than none (NULL)?
 */
GA_HD bool
ga_part_grows(int field)
{
	return field == GA_PART_YEAR || field == GA_PART_DECADE || field == GA_PART_CENTURY ||
		field == GA_PART_MILLENNIUM || field == GA_PART_JULIAN ||
		field == GA_PART_ISOYEAR || field == GA_PART_EPOCH;
}

/* extract's display scale for a field (of a timestamp; of a date, 0). */
GA_HD int
ga_part_scale(int field, int of_date)
{
	if (of_date)
		return 0;
	return field == GA_PART_MILLISECONDS ? 3 :
		(field == GA_PART_SECOND || field == GA_PART_EPOCH) ? 6 : 0;
}

/* GA_OP_AGE's imm: the interval_cmp value, not a field; of timestamptzs */
#define GA_AGE_CMP		0xff
#define GA_AGE_TZ		0x100

/* The units of date_trunc on a timestamp that the devices compute. */
typedef enum GaTruncUnit
{
	GA_TRUNC_MICROSECONDS = 0,
	GA_TRUNC_MILLISECONDS,
	GA_TRUNC_SECOND,
	GA_TRUNC_MINUTE,
	GA_TRUNC_HOUR,
	GA_TRUNC_DAY,
	GA_TRUNC_WEEK,
	GA_TRUNC_MONTH,
	GA_TRUNC_QUARTER,
	GA_TRUNC_YEAR,
	GA_TRUNC_DECADE,
	GA_TRUNC_CENTURY,
	GA_TRUNC_MILLENNIUM
} GaTruncUnit;

typedef struct GaInstr
{
	uint8_t		op;
	uint8_t		type;
	uint16_t	dst;
	uint16_t	a;
	uint16_t	b;
	int32_t		imm;
} GaInstr;

/* A contiguous run of instructions whose result is left in register reg. */
typedef struct GaSegment
{
	int32_t		start;
	int32_t		end;			/* exclusive; start == end: empty */
	int32_t		reg;			/* -1: segment absent */
} GaSegment;

/* How a device accumulates one aggregate; GA_SLOTS_* slots per group. */
typedef enum GaAggKind
{
	GA_AGG_COUNT = 1,			/* count(*), count(x): n */
	GA_AGG_SUM_I64,				/* sum/avg of int2/int4: n, sum */
	GA_AGG_SUM_I128,			/* sum/avg of int8: n, sum lo, sum hi */
	GA_AGG_VAR_I128,			/* var/stddev of int2/int4: n, sx lo, hi, sxx lo, hi */
	GA_AGG_VAR_I192,			/* var/stddev of int8: n, sx lo, hi, sxx w0, w1, w2 */
	GA_AGG_SUM_F4,				/* sum(float4): n, sum (float4 arithmetic), flags */
	GA_AGG_SUM_F8,				/* sum(float8): n, sum, flags */
	GA_AGG_ACCUM_F8,			/* avg/var/stddev of floats: N, Sx, Sxx, flags */
	GA_AGG_MIN,					/* has, value */
	GA_AGG_MAX,					/* has, value */
	GA_AGG_BOOL_AND,			/* has, value */
	GA_AGG_BOOL_OR,				/* has, value */
	GA_AGG_REGR_F8,				/* corr, covar_*, regr_* of (Y, X): N, Sx, Sxx,
								 * Sy, Syy, Sxy, flags */
	/*
	 * Ordered-set aggregates: the values go to a counted distinct set (each
	 * value with its rows); at the end a device selects from it
	 * (gpuagg_eval.h's ga_osa_*) into n, then the values' order bits
	 * (ga_order_bits): percentile_disc: n, the value at its row;
	 * percentile_cont: n, the values at its first and second rows; mode:
	 * n, the most rows a value has, the first value in order with them.
	 */
	GA_AGG_PCT_DISC,
	GA_AGG_PCT_CONT,
	GA_AGG_MODE,
	/*
	 * sum/avg of a numeric CASE whose branches differ in scale (TPC-H Q8's
	 * CASE WHEN ... THEN volume ELSE 0 END), or of a quotient whose
	 * display scale numeric_div chooses per row (price / 100): each value
	 * at its scale, its own display scale the second argument (arg2,
	 * GaAgg.pair); n, sum lo, sum hi, the largest display scale summed
	 * (numeric.c's maxScale, which is the sum's)
	 */
	GA_AGG_SUM_I128_DS,
	/*
	 * sum/avg of an interval, kept as interval_pl keeps it, its time,
	 * days and months apart: n, time lo, time hi, days; the sums of their
	 * absolute values (time lo, hi, days), which say whether a sum in any
	 * order stays in the interval's range, as interval_pl checks at each
	 * step; months and their absolute sum.  The argument is a difference
	 * of two timestamps, its microseconds (an int8, which
	 * interval_justify_hours splits into days and time), or an interval
	 * column's time with its day and month the second argument (arg2,
	 * GaAgg.pair: GA_IV_DAYMON)
	 */
	GA_AGG_SUM_IV
} GaAggKind;

GA_HD int
ga_agg_nslots(int kind)
{
	switch (kind)
	{
		case GA_AGG_COUNT:
			return 1;
		case GA_AGG_SUM_I64:
		case GA_AGG_MIN:
		case GA_AGG_MAX:
		case GA_AGG_BOOL_AND:
		case GA_AGG_BOOL_OR:
			return 2;
		case GA_AGG_SUM_I128:
		case GA_AGG_SUM_F4:
		case GA_AGG_SUM_F8:
			return 3;
		case GA_AGG_ACCUM_F8:
		case GA_AGG_SUM_I128_DS:
			return 4;
		case GA_AGG_VAR_I128:
			return 5;
		case GA_AGG_VAR_I192:
			return 6;
		case GA_AGG_REGR_F8:
			return 7;
		case GA_AGG_SUM_IV:
			return 9;
		case GA_AGG_PCT_DISC:
		case GA_AGG_PCT_CONT:
		case GA_AGG_MODE:
			return 3;
		default:
			return 0;
	}
}

/*
 * count, and sum/avg of integers (n and a 64- or 128-bit sum): states the
 * CUDA kernels fold with atomic adds alone; the other kinds fold under a
 * slot's lock.
 */
GA_HD bool
ga_agg_lockfree(int kind)
{
	return kind == GA_AGG_COUNT || kind == GA_AGG_SUM_I64 || kind == GA_AGG_SUM_I128;
}

/* The state slot of a float aggregate's flags (gpuagg_eval.h), or -1. */
GA_HD int
ga_agg_flags_slot(int kind)
{
	switch (kind)
	{
		case GA_AGG_SUM_F4:
		case GA_AGG_SUM_F8:
			return 2;
		case GA_AGG_ACCUM_F8:
			return 3;
		case GA_AGG_REGR_F8:
			return 6;
		default:
			return -1;
	}
}

typedef struct GaAgg
{
	int32_t		kind;			/* GaAggKind */
	int32_t		argtype;		/* GaType of the argument; 0 for count(*) */
	int32_t		argscale;		/* a numeric argument's scale */
	int32_t		slot;			/* first state slot */
	int32_t		distinct;		/* index of its distinct set, or -1: count(DISTINCT),
								 * counted on the device; min/max of strings
								 * and sum/avg/variance of DISTINCT values,
								 * whose sets the device returns as (group,
								 * value) pairs for the host to fold
								 * (ga_agg_host_folds, GaResult); an
								 * ordered-set aggregate's, counted
								 * (host_select: returned with the rows) */
	int32_t		count_on_host;	/* count(DISTINCT) under grouping sets: its
								 * set returned as pairs too, for the host to
								 * count per set's group */
	GaSegment	filter;			/* FILTER (WHERE ...), reg -1 if none */
	GaSegment	arg;			/* argument, reg -1 for count(*); of a
								 * two-argument aggregate (corr(Y, X),
								 * regr_count(Y, X), ...) the segment
								 * computes both: Y in arg.reg, X in arg2 */
	int32_t		arg2;			/* the second argument's register, or -1 */
	int32_t		pair;			/* with arg2: where a device keeps the row's X
								 * (0 .. GA_MAX_PAIRS - 1) until it folds */
	int32_t		desc;			/* ordered-set: ORDER BY the argument DESC */
	int32_t		host_select;	/* ... of strings or of an array of
								 * fractions: the device returns its set
								 * as (group, value, rows) and the host
								 * selects (strings in the collation's
								 * order) */
	double		fraction;		/* percentile_*: the fraction (the host checks
								 * it; a device clamps it to 0 .. 1) */
} GaAgg;

/* an ordered-set aggregate's radix select: bits a pass (gpuagg_eval.h) */
#define GA_OSA_BITS		4
#define GA_OSA_DIGITS	(1 << GA_OSA_BITS)
#define GA_OSA_PASSES	(64 / GA_OSA_BITS)

/* Is this an ordered-set aggregate (percentile_cont/disc, mode)? */
GA_HD bool
ga_agg_ordered(int kind)
{
	return kind == GA_AGG_PCT_DISC || kind == GA_AGG_PCT_CONT || kind == GA_AGG_MODE;
}

/*
 * GaColumn.length: a UTF-8 string's characters (length, char_length in a
 * UTF-8 database), or its bytes (octet_length; length in a database of a
 * single-byte encoding, where the two are one, as text_length says).
 */
#define GA_LENGTH_CHARS		1
#define GA_LENGTH_OCTETS	2

/*
 * GaColumn.prefix_flags: a character is a byte (a single-byte encoding);
 * the string is a bpchar's without its trailing spaces (its cast to text).
 */
#define GA_PREFIX_OCTETS	1
#define GA_PREFIX_RTRIM		2
#define GA_PREFIX_MAX		1000	/* n of the longest prefix coded so */

typedef struct GaColumn
{
	int32_t		type;			/* GaType */
	int32_t		scale;			/* GA_T_NUMERIC: its values' scale */
	int32_t		attno;			/* heap attribute number (host only) */
	int32_t		pred;			/* host only: k + 1 when the column is string
								 * predicate k of the column (a GA_T_BOOL
								 * computed per distinct string), else 0 */
	int32_t		dscale_checked; /* GA_T_NUMERIC without a typmod: a value
								 * whose display scale is not scale sends
								 * the scan to the exact path */
	int32_t		dscale_of;		/* 1: a GA_T_FLOAT8 column holding the
								 * display scale of each value of numeric
								 * attribute attno (a sum's, of a column
								 * whose values have several), not a value */
	int32_t		like;			/* of such a column, 1 + where its LIKE
								 * pattern lies in likes[] when a device
								 * matches it itself (page form,
								 * gpuagg_page.h's ga_like), else 0 */
	int32_t		length;			/* of such a column, a function that is
								 * length() of the string itself, which a
								 * device counts where the value lies in the
								 * page (gpuagg_page.h's ga_varlena_length):
								 * GA_LENGTH_CHARS or GA_LENGTH_OCTETS, else 0 */
	int32_t		prefix;			/* of such a column (GA_T_TEXT), a function
								 * that is the string's first prefix - 1
								 * characters, substring(s, 1, n) or left(s,
								 * n), whose bytes a device codes itself
								 * (gpuagg_page.h's ga_prefix_len); else 0 */
	int32_t		prefix_flags;	/* GA_PREFIX_OCTETS, GA_PREFIX_RTRIM */
	int32_t		dim;			/* d + 1 where the device joins (GaDimDesc):
								 * column dimcol of dimension d's row the
								 * table's row matches (gpuagg_join.h), not
								 * one of the table's; else 0 */
	int32_t		dimcol;
	int32_t		ivpart;			/* GaIntervalPart: a GA_T_INT8 column holding
								 * one part of each value of interval
								 * attribute attno (ga_interval_part), not
								 * a value of it; else 0 */
} GaColumn;

/*
 * What a column of an interval attribute holds (GaColumn.ivpart): its
 * time in microseconds; its day and month as (month << 32) | (uint32) day;
 * interval_cmp_value's microseconds (time, and each day and each 30 days
 * of months as 86400 * 10^6), by which intervals compare; or extract's
 * epoch in microseconds (interval_part_common: a year of months 365.25
 * days).  A span or epoch past int64 sends the scan to the exact path.
 */
typedef enum GaIntervalPart
{
	GA_IV_NONE = 0,
	GA_IV_TIME,
	GA_IV_DAYMON,
	GA_IV_SPAN,
	GA_IV_EPOCH
} GaIntervalPart;

/*
 * A join a device runs (gpuagg_join.h): before its WHERE, each row of the
 * table scanned probes each dimension's hash table in turn (ndims of
 * them) with its key, the values of columns of the table or of an earlier
 * dimension's matching row, as int64 (integers of any width, dates,
 * timestamps, or a text's register value, its code twice: join.c takes
 * only those).  A dimension's rows of one key are chained; a candidate is
 * a row of the key for which the join's other conditions
 * (GaProgram.dimcond[d], over the table's columns and the dimension's)
 * hold.  An inner or left join's row of the table goes on
 * once per candidate, depth first over the dimensions, as a native join's
 * rows multiply; an inner or semi join's row without one goes, a semi
 * join's goes on once, an anti join's row with one goes, a left join's
 * without one reads NULLs.  The columns the program reads of a dimension
 * (GaColumn.dim) are gathered from the candidate row into the batch's
 * columns, again for each.
 */
typedef enum GaJoinKind
{
	GA_JOIN_INNER = 0,
	GA_JOIN_SEMI,
	GA_JOIN_ANTI,
	GA_JOIN_LEFT
} GaJoinKind;

typedef struct GaDimDesc
{
	int32_t		kind;			/* GaJoinKind */
	int32_t		nkeys;
	int32_t		ncols;			/* columns of its rows a device holds */
	int32_t		keydim[GA_MAX_DIM_KEYS];	/* key i's value: -1, column
											 * keysrc[i] of the batch; else
											 * column keysrc[i] of dimension
											 * keydim[i]'s row (an earlier
											 * one) */
	int32_t		keysrc[GA_MAX_DIM_KEYS];
	int32_t		coltype[GA_MAX_DIM_COLS];	/* GaType of each column */

	/*
	 * scan: the device reads the dimension's table itself, page batches
	 * of it (GaBatch.dim_scan), with a program of its own (its WHERE;
	 * GaProgram.dimscan) whose columns scan_key[i] and scan_col[j] are
	 * key i and column j; a row its WHERE keeps, of no NULL key, is the
	 * dimension's (ga_dim_keeps, ga_dim_store).
	 */
	int32_t		scan;
	int32_t		scan_key[GA_MAX_DIM_KEYS];
	int32_t		scan_col[GA_MAX_DIM_COLS];

	/*
	 * notin: an anti join that is x NOT IN (subquery), with its NULL rules,
	 * as the host found the subquery's rows (join.c): 0, none (or none
	 * were: every row goes, a NULL x too); 1, a row of NULL key goes not;
	 * 2, one of them was NULL: no row goes.
	 */
	int32_t		notin;

	/*
	 * subquery: the rows of x [NOT] IN (a hashed subquery), the join's
	 * last dimensions: natively a filter of the scan, so the WHERE's quals
	 * before it run on every row however few rows it has (ga_join_none).
	 */
	int32_t		subquery;
} GaDimDesc;

/*
 * Does a table of no rows leave the join none: an inner or semi join's,
 * not a subquery's (exec.c, ga_join_none)?
 */
GA_HD bool
ga_join_needs_rows(const GaDimDesc *dd)
{
	return !dd->subquery && (dd->kind == GA_JOIN_INNER || dd->kind == GA_JOIN_SEMI);
}

/*
 * A dimension's rows on a device: keys as int64, columns at their type's
 * width, and the hash table: cap (a power of two) slots of row + 1, or 0
 * where empty (ga_dim_hash, linear probing), the first row of each key;
 * next[row] is the next row of row's key + 1, or 0.  A row whose key has
 * a NULL is not sent (it matches nothing).
 */
typedef struct GaDimData
{
	uint64_t	nrows;
	uint64_t	cap;
	uint32_t   *slots;
	int64_t    *keys[GA_MAX_DIM_KEYS];
	void	   *cols[GA_MAX_DIM_COLS];
	uint8_t    *nulls[GA_MAX_DIM_COLS];	/* NULL: none */
	uint32_t   *next;			/* [nrows] */
	uint32_t   *dup;			/* the build sets it where a key repeats */
	uint32_t	multi;			/* ... which the host says here after it:
								 * without, no row reads next */
} GaDimData;

typedef struct GaDims
{
	GaDimData	dim[GA_MAX_DIMS];
} GaDims;

/*
 * ORDER BY a count or a sum [, group keys] LIMIT n straight over the
 * grouping (GPU Top-N, planner.c's topn_for): of more groups than n, a
 * device may return
 * only those that can rank n-th or before it, ties included
 * (gpuagg_topn.h).  The tie keys here are the first of the ORDER BY's
 * whose order the device knows: group keys of the integer, date and
 * timestamp types, bool and the floats, sorted by their type's default
 * order.  Where they and the count are the whole ORDER BY, groups equal in
 * all of them are interchangeable for the query, and the group's place
 * breaks their ties (a last word: only n of them need go).
 */
#define GA_TOPN_WORDS		(4 + GA_MAX_KEYS)
/* its select's histogram bins: 256 digits, then groups with a float overflow */
#define GA_TOPN_HIST		257

/*
 * HAVING's leading conjuncts of the form aggregate op constant (result.c's
 * GpuaggHavingInit: a count, a sum of integers or numerics, min or max of
 * integers, compared as integers in units of the value's scale), which a
 * device checks as it packs the groups (ga_having_keeps): the groups that
 * fail them never cross to the host (TPC-H Q18's IN subquery keeps 640 of
 * 15M order keys).  The host checks the groups it gets again.
 */
#define GA_MAX_HAVING		8

typedef struct GaHaving
{
	int32_t		slot;			/* the aggregate's first state slot */
	int32_t		vslot;			/* its value: slot + vslot */
	uint8_t		wide;			/* an int128 there and in the next slot */
	uint8_t		nullable;		/* NULL (fails) where slot's state is 0 */
	uint8_t		never;			/* fails always (= a value of finer scale) */
	uint8_t		strategy;		/* BTLessStrategyNumber (1) ... Greater (5) */
	int64_t		bound;
} GaHaving;

typedef struct GaTopN
{
	uint64_t	n;				/* 0: no top-N */
	int32_t		kind;			/* the aggregate's: GA_AGG_COUNT, or a sum's
								 * GA_AGG_SUM_I64 or GA_AGG_SUM_I128 */
	int32_t		slot;			/* its first state slot */
	uint8_t		aggnullsfirst;	/* a sum of no rows (NULL) ranks first */
	uint32_t	nties;			/* tie keys */
	uint8_t		desc;			/* the aggregate DESC */
	uint8_t		whole;			/* the count and the tie keys are the whole
								 * ORDER BY */
	uint8_t		key[GA_MAX_KEYS];	/* tie key i is group key key[i], */
	uint8_t		keydesc[GA_MAX_KEYS];	/* DESC, */
	uint8_t		nullsfirst[GA_MAX_KEYS];	/* NULLS FIRST */
} GaTopN;

/*
 * A time zone as the devices read it (a timestamptz's local time, and
 * back): the session's, or the one AT TIME ZONE names.  Its transitions
 * from the start of the range (or 1850), as the server's own
 * pg_next_dst_boundary lists them
 * (program.c, GpuaggZoneLoad; past its tz data's last one, PostgreSQL
 * extrapolates the zone's rule, so a zone with daylight saving fills the
 * table: London's 400th transition is in about 2110).  Offsets are seconds
 * east of UTC, instants microseconds since 2000-01-01 UTC.  Before at[0]
 * the offset is off0, between at[i] and at[i + 1] off[i] (pg_localtime's);
 * a local time finds the first transition after a day before it, and the
 * offsets either side of it, as DetermineTimeZoneOffset does.  Outside
 * what the table answers exactly, a row's evaluation raises
 * GA_ERR_TZ_WINDOW: the query's exact path runs.
 */
#define GA_MAX_TZ			400	/* Europe/London: 243 to 2037 */

typedef struct GaZone
{
	int64_t		lo;				/* instants [lo, hi) have a local time here */
	int64_t		hi;
	int64_t		local_from;		/* a local time a day past this, or more,
								 * has its offset here */
	int32_t		off0;			/* the offset before at[0] */
	int32_t		beyond;			/* the offset past the last transition */
	uint32_t	complete;		/* every transition is here: past the last
								 * one, a local time's offset is beyond */
	uint32_t	n;
	int64_t		at[GA_MAX_TZ];
	int32_t		off[GA_MAX_TZ];
} GaZone;

typedef struct GaProgram
{
	uint32_t	abi_version;
	uint32_t	ncols;
	uint32_t	ninstr;
	uint32_t	nconsts;
	uint32_t	nregs;
	uint32_t	nkeys;
	uint32_t	naggs;
	uint32_t	nslots;
	uint32_t	ndistinct;		/* count(DISTINCT) aggregates */
	GaSegment	where;			/* reg -1: no WHERE */
	int32_t		where_strings;	/* where the first of its quals that reads a
								 * string column starts (where.start: the
								 * first; where.end: none) */
	int32_t		where_joined;	/* ... a joined table's column: the quals
								 * before it, the scanned table's own, run
								 * on every row before the join, as at a
								 * native scan (gpuagg_join.h) */
	GaSegment	keyseg;			/* evaluates every key */
	int32_t		keyreg[GA_MAX_KEYS];
	int32_t		keytype[GA_MAX_KEYS];
	int32_t		keyscale[GA_MAX_KEYS];	/* a numeric key's scale */
	GaColumn	cols[GA_MAX_COLS];
	GaAgg		aggs[GA_MAX_AGGS];
	GaInstr		code[GA_MAX_INSTR];
	GaDatum		consts[GA_MAX_CONSTS];
	uint8_t		constnull[GA_MAX_CONSTS];
	GaTopN		topn;
	uint32_t	nhaving;		/* HAVING a device checks (GaHaving) */
	GaHaving	having[GA_MAX_HAVING];
	uint8_t		likes[GA_LIKE_BYTES];	/* compiled LIKE patterns (ga_like) */
	GaZone		zone;			/* the time zone it reads, if any */
	uint32_t	ndims;			/* a join the device runs: its dimensions */
	GaDimDesc	dims[GA_MAX_DIMS];
	GaSegment	dimcond[GA_MAX_DIMS];	/* ... each one's other conditions
										 * of the join, ExecQual's rule, per
										 * candidate (reg -1: none) */
	uint32_t	dim_strcodes;	/* ... codes a row the scanned ones' strings
								 * make at most (a page form's dictionary) */
	uint32_t	dim_bpchar;		/* ... and do they read a bpchar */
	uint32_t	dimscan;		/* this is a dimension's scan program: no
								 * aggregates, no strings deferred */
} GaProgram;

/*
 * Does group i (states laid out [slot][stride]) pass the program's HAVING
 * checks?  As result.c's GpuaggHavingKeeps, whose checks they are.
 */
GA_HD int
ga_having_keeps(const GaProgram *p, const uint64_t *states, uint64_t stride, uint64_t i)
{
	for (uint32_t h = 0; h < p->nhaving; h++)
	{
		const GaHaving *c = &p->having[h];
		const uint64_t *value = states + (uint64_t) (c->slot + c->vslot) * stride;
		int			cmp;

		if (c->never || (c->nullable && states[(uint64_t) c->slot * stride + i] == 0))
			return 0;
		if (c->wide)
		{
			/* (an int128: the low word, then the high, signed) */
			int64_t		hi = (int64_t) value[stride + i];
			uint64_t	lo = value[i];
			int64_t		bhi = c->bound < 0 ? -1 : 0;

			cmp = hi != bhi ? (hi < bhi ? -1 : 1) :
				lo != (uint64_t) c->bound ? (lo < (uint64_t) c->bound ? -1 : 1) : 0;
		}
		else
		{
			int64_t		v = (int64_t) value[i];

			cmp = v < c->bound ? -1 : v > c->bound ? 1 : 0;
		}
		switch (c->strategy)
		{
			case 1:
				if (!(cmp < 0))
					return 0;
				break;
			case 2:
				if (!(cmp <= 0))
					return 0;
				break;
			case 3:
				if (cmp != 0)
					return 0;
				break;
			case 4:
				if (!(cmp >= 0))
					return 0;
				break;
			case 5:
				if (!(cmp > 0))
					return 0;
				break;
			default:
				return 1;
		}
	}
	return 1;
}

/*
 * Has the program aggregates whose states fold under a lock (not the
 * ga_agg_lockfree kinds, nor those whose values go to distinct sets:
 * count(DISTINCT), min/max of strings)?  Their merges take the slots'
 * locks.
 */
GA_HD bool
ga_program_locked(const GaProgram *p)
{
	for (uint32_t a = 0; a < p->naggs; a++)
		if (!ga_agg_lockfree(p->aggs[a].kind) && p->aggs[a].distinct < 0)
			return true;
	return false;
}

/* Run-time errors, turned by the host into PostgreSQL's ereport. */
typedef enum GaError
{
	GA_OK = 0,
	GA_ERR_INT2_RANGE,			/* smallint out of range */
	GA_ERR_INT4_RANGE,			/* integer out of range */
	GA_ERR_INT8_RANGE,			/* bigint out of range */
	GA_ERR_DIV_ZERO,			/* division by zero */
	GA_ERR_FLOAT_OVERFLOW,		/* value out of range: overflow */
	GA_ERR_FLOAT_UNDERFLOW,		/* value out of range: underflow */
	GA_ERR_DATE_RANGE,			/* date out of range */
	GA_ERR_DATE_INFINITE,		/* cannot subtract infinite dates */
	GA_ERR_INTERNAL,			/* bad program: can't happen */
	GA_ERR_DEVICE,				/* the device failed: run elsewhere */
	GA_ERR_STRING_BACK,			/* page form: a string the device cannot read
								 * (compressed, TOASTed): read the scan again
								 * in column form */
	GA_ERR_TIMESTAMP_RANGE,		/* timestamp out of range */
	GA_ERR_NUMERIC_EXACT,		/* a numeric the device cannot hold exactly:
								 * run the query's exact path */
	GA_ERR_DATE_TS_RANGE,		/* date out of range for timestamp */
	GA_ERR_TZ_WINDOW,			/* a timestamptz (or local time) outside
								 * what GaZone answers: run the query's
								 * exact path */
	GA_ERR_TS_INFINITE			/* cannot subtract infinite timestamps */
} GaError;

/* One batch of rows: column vectors and validity bitmaps. */
typedef struct GaBatch
{
	uint32_t	nrows;
	const void *values[GA_MAX_COLS];
	const uint8_t *nulls[GA_MAX_COLS];	/* bit set = NULL; NULL = none */

	/*
	 * Page form (pagelist not NULL): the rows are heap tuples where they
	 * lie in shared buffers, which the device deforms (gpuagg_page.h)
	 * before anything else.  The batch's pages are pagelist[0 .. npages -
	 * 1] (buffer indexes: pages + index * BLCKSZ is the page).  Page i's
	 * rows are the line pointers whose bits are set in its visibility map
	 * pagevis[i * GA_PAGE_VIS_WORDS ..] (bit k: line pointer k + 1 is a
	 * tuple visible to the query), in offset order, from row pagerows[i]
	 * on; layout is a GaTupleLayout.
	 */
	const uint32_t *pagelist;
	const uint32_t *pagerows;
	const uint32_t *pagevis;
	uint32_t	npages;
	const void *pages;
	const void *layout;

	/*
	 * Not rows of the table: rows dim_first .. dim_first + nrows - 1 of
	 * dimension dim - 1's dim_rows (a join the device runs), keys as int64
	 * in values[0 .. nkeys - 1], its columns after them, with their null
	 * bitmaps (dim_first is a multiple of 8).
	 */
	uint32_t	dim;
	uint64_t	dim_first;
	uint64_t	dim_rows;

	/*
	 * A dimension the device scans (GaDimDesc.scan): 3, its program (the
	 * GaProgram in values[0]) and dim_rows the rows to make room for
	 * first; 1, a page-form batch of its table; 2, the end of them.
	 */
	uint32_t	dim_scan;
} GaBatch;

/* The groups a device returns, struct-of-arrays over ngroups rows. */
typedef struct GaResult
{
	uint64_t	ngroups;
	uint64_t	groups_all;		/* groups aggregated: more than ngroups where a
								 * GPU Top-N returned only some (GaTopN) */
	GaDatum    *keys;			/* [nkeys * ngroups] */
	uint8_t    *keynulls;		/* [nkeys * ngroups] */
	uint64_t   *states;			/* [nslots * ngroups] */
	/* sets the host folds: distinct set j's entries as (group, value) */
	uint64_t	npairs[GA_MAX_DISTINCT];
	uint64_t   *pairgroup[GA_MAX_DISTINCT];
	uint64_t   *pairvalue[GA_MAX_DISTINCT];
	uint64_t   *pairrows[GA_MAX_DISTINCT];	/* ... and its rows, of an
											 * ordered-set aggregate's */

	/*
	 * Page form with string columns: the strings the device's dictionary
	 * coded, from code strings_first on, in code order: string i is
	 * strlen[i] bytes at strbytes + strat[i].
	 */
	uint64_t	nstrings;
	uint32_t	strings_first;
	uint32_t   *strlen;
	uint64_t   *strat;
	char	   *strbytes;
	uint64_t	nstrbytes;

	/*
	 * The caller's, before finish: nothing reads the device's strings but
	 * the group keys of the groups returned.  Where those show few of many
	 * (a Top-N's n groups of millions of URLs), a device may then return
	 * them alone: strsel[j] (sorted) is the index above of the j-th string
	 * returned, and strlen[j], strat[j] describe it (GpuaggKeyStrings).
	 */
	uint8_t		keys_strings_only;
	uint8_t		strings_selected;
	uint32_t	nstrsel;
	uint32_t   *strsel;

	/*
	 * The caller's, before finish: any limit_groups groups will do (a LIMIT
	 * without ORDER BY above), or 0; a device then returns no more than
	 * that many (GpuaggResultGroups).
	 */
	uint64_t	limit_groups;
} GaResult;

/*
 * Does the host fold this DISTINCT aggregate's set, from the (group,
 * value) pairs the device returns?  Every one but count(DISTINCT), which
 * the device counts: min/max of strings (picked by the collation), and
 * sum, avg, variance and stddev of DISTINCT values (folded in the order
 * PostgreSQL sorts them, so that float sums are its own); and
 * count(DISTINCT) too under grouping sets, where a set's group counts
 * the values of several of the device's groups once; and an ordered-set
 * aggregate of strings (whose order is the collation's) or of an array of
 * fractions, which the host selects from (GaAgg.host_select).
 */
GA_HD int
ga_agg_host_folds(const GaAgg *ag)
{
	return ag->distinct >= 0 && (!ga_agg_ordered(ag->kind) || ag->host_select) &&
		(ag->kind != GA_AGG_COUNT || ag->count_on_host);
}

/*
 * Does a device pack this aggregate's set as (group, value) pairs at the
 * end: for the host to fold, or (an ordered-set aggregate) to select from
 * itself?
 */
GA_HD int
ga_agg_set_pairs(const GaAgg *ag)
{
	return ga_agg_host_folds(ag) || (ag->distinct >= 0 && ga_agg_ordered(ag->kind));
}

/* Does distinct set j count each value's rows (an ordered-set aggregate's)? */
GA_HD int
ga_set_counted(const GaProgram *p, int j)
{
	for (uint32_t a = 0; a < p->naggs; a++)
		if (p->aggs[a].distinct == j && ga_agg_ordered(p->aggs[a].kind))
			return 1;
	return 0;
}

/*
 * The GPU's group table: open addressing over cap (a power of two) slots,
 * struct-of-arrays.  ctrl is 0 (empty), 1 (being claimed) or 2 (ready); a
 * slot's lock guards its aggregate states.  Counters: [0] groups, [1] rows
 * that passed WHERE, [2] first error code, [3] strings the device could not
 * read (page form), [GA_CNT_DISTINCT + j] the entries of distinct set j,
 * then the string dictionary's codes and bytes (gpuagg_page.h).
 *
 * A distinct set (count(DISTINCT x)) is a table of the same layout whose
 * keys are the group keys followed by x, without states.
 */
typedef struct GaTable
{
	uint64_t	cap;
	uint32_t	nkeys;
	uint32_t	nslots;
	uint32_t	count_at;		/* counter of its entries */
	uint32_t	pad;
	uint32_t   *ctrl;
	uint32_t   *lock;
	uint32_t   *hash;
	uint64_t   *keys;			/* [nkeys][cap] */
	uint8_t    *keynulls;		/* [nkeys][cap] */
	uint64_t   *states;			/* [nslots][cap] */
	unsigned long long *counters;
} GaTable;

#define GA_CNT_GROUPS	0
#define GA_CNT_PASSED	1
#define GA_CNT_ERROR	2
#define GA_CNT_STRINGS_BACK	3
#define GA_CNT_DISTINCT	4
#define GA_CNT_DICT_N		(GA_CNT_DISTINCT + GA_MAX_DISTINCT)
#define GA_CNT_DICT_BYTES	(GA_CNT_DICT_N + 1)
#define GA_CNT_NUMERIC_UNFIT	(GA_CNT_DICT_BYTES + 1)	/* page form: numerics no
														 * int64 holds */
#define GA_NCOUNTERS	(GA_CNT_NUMERIC_UNFIT + 1)

/* The distinct sets of a program, passed to the kernels by value. */
typedef struct GaDistinctSets
{
	GaTable		set[GA_MAX_DISTINCT];
} GaDistinctSets;

/* Bytes of one table slot for a program (without alignment padding). */
GA_HD uint64_t
ga_slot_bytes(uint32_t nkeys, uint32_t nslots)
{
	return 12 + 9 * (uint64_t) nkeys + 8 * (uint64_t) nslots;
}

/* Date and timestamp range constants, as PostgreSQL defines them (the
 * host checks these against its own headers at compile time). */
#define GA_POSTGRES_EPOCH_JDATE	2451545
#define GA_DATE_END_JULIAN		2147483494
#define GA_DATEVAL_NOBEGIN		INT32_MIN
#define GA_DATEVAL_NOEND		INT32_MAX
#define GA_TIMESTAMP_END_JULIAN	109203528
#define GA_USECS_PER_DAY		INT64_C(86400000000)
#define GA_USECS_PER_SEC		INT64_C(1000000)

#endif							/* GPUAGG_ABI_H */
