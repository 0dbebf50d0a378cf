/*-------------------------------------------------------------------------
 *
 * result.h
 *		Turning device results into PostgreSQL datums.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_RESULT_H
#define GPUAGG_RESULT_H

#include "fmgr.h"
#include "nodes/execnodes.h"
#include "nodes/primnodes.h"
#include "utils/array.h"

#include "../cuda/gpuagg_abi.h"
#include "dict.h"
#include "program.h"

/* parallel.c's cache of mapped group keys (GpuaggRekey) */
typedef struct GpuaggMapCache GpuaggMapCache;

/* How to finish one aggregate: PostgreSQL's transition type and final. */
typedef struct GpuaggFinal
{
	const GaAgg *agg;
	Oid			transtype;
	bool		has_final;
	bool		avg_f8;			/* float8_avg: Sx / N computed here */
	bool		sum_i128;		/* numeric_sum, numeric_poly_sum: sumX here */
	FmgrInfo	finalfn;
	bool		has_deserial;
	FmgrInfo	deserialfn;
	bool		partial;		/* return the (serialized) transition value */
	bool		span;			/* of an interval: its microseconds (min/max) */
	const GpuaggQuotient *quotient; /* min/max of an exact quotient, or NULL */
	GpuaggDict *dict;			/* the run's strings (min/max of strings) */
	bool		ordered;		/* an ordered-set aggregate: its value made
								 * here, as its final function would */
	int32		bpchar_typmod;	/* of a char(n)'s ordered set: its typmod
								 * (extreme_typmod; else 0), to pad a value
								 * picked to n */
	bool		fraction_null;	/* percentile_*: its fraction */
	double		fraction;
	/* ... or its array of them (percentile_*(float8[])), as written */
	ArrayType  *fractions;		/* NULL for none (or a NULL array) */
	bool		multi;
	/*
	 * array_agg (GPUAGG_LIST_ARRAY) or string_agg (GPUAGG_LIST_STRING) in
	 * the order of their value (program.c's compile_list): its set made
	 * into the array or string, each value once (DISTINCT) or as often as
	 * it came; string_agg's delimiter (NULL: none)
	 */
	char		list;
	bool		list_distinct;
	text	   *delimiter;
	Oid			elemtype;		/* its result's elements' type */
	int16		elemlen;
	bool		elembyval;
	char		elemalign;
} GpuaggFinal;

#define GPUAGG_LIST_ARRAY	'a'
#define GPUAGG_LIST_STRING	's'

/* bpchar_typmod: the program's extreme_typmod of agg's set (else 0) */
extern void GpuaggFinalInit(GpuaggFinal *fin, Aggref *aggref, const GaAgg *agg,
							int32 bpchar_typmod, MemoryContext cxt);

/* A device's signed 128-bit state value, held in two slots (lo, hi). */
static inline int128
GpuaggI128(uint64 lo, uint64 hi)
{
	return (int128) (((uint128) hi << 64) | lo);
}

/*
 * The aggregate's value for group g.  aggstate is the stand-in AggState
 * PostgreSQL's deserialize and final functions are called with.
 */
extern Datum GpuaggFinalize(GpuaggFinal *fin, const GaResult *res, uint64 g,
							Node *aggstate, bool *isnull);

/*
 * HAVING's conjuncts of the form aggregate op constant (count(*) > 1,
 * sum(l_quantity) > 300): <, <=, =, >=, > of integers or numerics, over a
 * count, a sum or a min/max of integers or numerics.  Each group failing
 * one of them is skipped before its tuple is made; the qual still runs
 * on the others, so a check need only be right where it fails a group.
 */
typedef struct GpuaggHavingCheck
{
	int			agg;			/* the aggregate */
	int			vslot;			/* ... its value's state slot */
	bool		wide;			/* ... an int128 there (and the next slot) */
	bool		nullable;		/* ... NULL where its slot 0 is 0 */
	int			strategy;		/* BTLessStrategyNumber ... its value to bound */
	int64		bound;			/* ... in units of 10^-scale of its value */
	bool		never;			/* = with a value of digits below that scale */
	int			kind;			/* having_value's: 1 an integer, 2 a numeric's */
	bool		numeric;		/* the numeric operator family's */
	int			scale;			/* ... the value's scale */
	ExprState  *param;			/* a Param's bound, set per run (or NULL) */
	Oid			type;			/* ... its type */
	bool		skip;			/* ... a value no bound holds: no check */
} GpuaggHavingCheck;

typedef struct GpuaggHaving
{
	int			n;
	GpuaggHavingCheck *checks;
	bool		params;			/* some check's bound is a Param's */
	bool		bound_run;		/* ... bound for this run's groups */
} GpuaggHaving;

/*
 * The checks of qual (the node's, over its scan tuple: keys, aggregates);
 * a Param's (an InitPlan's value, TPC-H Q11's) is evaluated in parent's
 * context.
 */
extern void GpuaggHavingInit(GpuaggHaving *h, List *qual, int nkeys,
							 const GpuaggFinal *finals, int naggs, PlanState *parent);
/*
 * Set the bounds that are Params' values: before the first group is
 * checked, where the qual natively first reads them.
 */
extern void GpuaggHavingBind(GpuaggHaving *h, ExprContext *econtext);

/*
 * ... a device's copy of them (GaProgram.having), where the device's
 * groups are the query's (no grouping sets, no keys the host maps, no
 * set's pairs): it then packs only the groups that pass.
 */
extern void GpuaggHavingForDevice(const GpuaggHaving *h, const GpuaggFinal *finals,
								  GpuaggProgram *prog, bool sets);

/* Does group g pass every check (NULL fails, as the qual's strict operators)? */
extern bool GpuaggHavingKeeps(const GpuaggHaving *h, const GpuaggFinal *finals,
							  const GaResult *res, uint64 g);

/*
 * Could some group's sum of intervals (GA_AGG_SUM_IV) natively leave the
 * interval's range, in some order of its rows?  Then the exact path runs.
 */
extern bool GpuaggIntervalSumsUnsafe(const GaProgram *prog, const GaResult *res);

/* Would finishing some group of res raise a float overflow error? */
extern bool GpuaggAnyFloatOverflow(const GaProgram *prog, const GaResult *res);

/*
 * min/max of strings: the device returned each group's distinct values
 * (their codes in dict); each group's state gets the smallest or largest
 * string, as ga_pick would have chosen it.
 */
extern int	GpuaggFoldDistinct(const GpuaggProgram *prog, GaResult *res);
extern void GpuaggPickStringExtremes(const GpuaggProgram *prog, GaResult *res,
									 GpuaggDict *dict);
/*
 * Ordered-set aggregates the host selects from (GaAgg.host_select: of
 * strings, or of an array of fractions): the device returned each
 * group's distinct values with their rows; they are sorted here, each
 * group's together in the sort's order (strings by the collation), for
 * GpuaggFinalize to walk.
 */
extern void GpuaggSortOrderedSets(const GpuaggProgram *prog, GaResult *res, GpuaggDict *dict);

/*
 * Grouping sets (GpuaggPlanInfo.sets): res, the device's groups by every
 * key, becomes each set's groups, set after set: the keys outside the set
 * NULL, the states of the finest groups inside one combined (the
 * aggregates' combine rules, ga_agg_combine), the pairs of DISTINCT
 * aggregates moved to the set's groups (GpuaggFoldDistinct and
 * GpuaggPickStringExtremes run after).  (*setof)[g] is group g's set.
 * Returns GA_OK or the error a combine raised.
 */
extern int	GpuaggGroupingSets(const GpuaggProgram *prog, GaResult *res, List *sets,
							   uint32 **setof);

/*
 * Group keys the host maps (GpuaggProgram.rekey_expr): res's groups by the
 * strings become groups by the keys' values, the states of those that
 * agree combined as GpuaggGroupingSets combines a set's (before it, and
 * before GpuaggFoldDistinct and GpuaggPickStringExtremes).  A string's
 * value another process of the plan mapped comes from cache (counted in
 * *from_cache), and one mapped here goes to it.  eval_ms (where not NULL,
 * EXPLAIN ANALYZE's): the time the keys' expressions took is added there.
 * Returns GA_OK or the error a combine raised.
 */
extern int	GpuaggRekey(const GpuaggProgram *prog, GaResult *res, GpuaggDict *dict,
						GpuaggMapCache *cache, uint64 *from_cache, double *eval_ms);

/*
 * Is key k one the host maps from a string to a string, whose values
 * parallel.c's cache holds?
 */
extern bool GpuaggRekeyShareable(const GpuaggProgram *prog, int k);

/*
 * parallel.c: the values a partial parallel GpuAgg's processes mapped,
 * shared by them (NULL cache: none).  Expect: this process is to map that
 * many strings more (before its first Find: the cache's size).  Find:
 * true, and *isnull or *out (palloc'd, a text) the value of key k for the
 * string s, and always *hash, the string's, for Add.
 */
extern void GpuaggMapCacheExpect(GpuaggMapCache *cache, uint64 strings);
extern bool GpuaggMapCacheFind(GpuaggMapCache *cache, int k, const char *s, uint32 len,
							   uint64 *hash, bool *isnull, Datum *out);
/* The values GpuaggMapCacheAdd could not keep since the last call. */
extern uint64 GpuaggMapCacheTakeUnkept(GpuaggMapCache *cache);
extern void GpuaggMapCacheAdd(GpuaggMapCache *cache, int k, const char *s, uint32 len,
							  uint64 hash, bool isnull, Datum value);

/* A group key as a Datum of its PostgreSQL type (strings: from dict). */
extern Datum GpuaggKeyDatum(GaDatum v, int type, int scale, GpuaggDict *dict);

/*
 * An exact quotient's value v (q's x * f, at scale) as numeric_div shows
 * it: at the display scale of its own x.
 */
extern Datum GpuaggQuotientDatum(const GpuaggQuotient *q, int64 v, int scale);

/* The stand-in AggState: AggCheckCallContext accepts it. */
extern Node *GpuaggMakeAggContext(ExprContext *econtext);

#endif							/* GPUAGG_RESULT_H */
