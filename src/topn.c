/*-------------------------------------------------------------------------
 *
 * topn.c
 *		The host's side of a GpuAgg Top-N: ORDER BY a count or a sum LIMIT n
 *		above.
 *
 * planner.c offers a GpuAgg a Top-N when a Sort on one of its counts or
 * sums of integers or numerics (and
 * then group keys) and a Limit sit right above it (GpuaggPlanInfo.topn).
 * Of many groups, only those ranking with the n-th or before it, ties
 * included, need go out: the Sort and Limit above pick from them exactly as
 * from all.  The device narrows the groups it sends back (GaTopN, with the
 * tie keys whose order it knows: gpuagg_topn.h); the node then keeps those
 * ranking no later than the n-th of the groups it got, found in one pass
 * with a heap of the n best so far.
 *
 * A LIMIT n without ORDER BY right above (GpuaggPlanInfo.topn of n alone)
 * takes any n groups: a device returns the first n it packed
 * (GaResult.limit_groups), and the node all of those.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "lib/binaryheap.h"
#include "utils/lsyscache.h"
#include "utils/typcache.h"

#include "exec.h"
#include "result.h"

StaticAssertDecl(SIZEOF_DATUM == 8, "a group's index fits a Datum");

/* Group g's value of the aggregate: a count's, a sum's int64 or int128. */
static int128
agg_value(const GpuaggTopN *t, uint64 g)
{
	const uint64 *s = t->states;
	uint64		stride = t->res->ngroups;

	if (t->kind == GA_AGG_SUM_I128)
		return GpuaggI128(s[stride + g], s[2 * stride + g]);
	if (t->kind == GA_AGG_SUM_I64)
		return (int64) s[stride + g];
	return s[g];
}

/*
 * The order of groups a and b by the aggregate, > 0 when a ranks after b:
 * a count's value; a sum's NULL (no rows) first or last as the ORDER BY
 * puts it, then its value (a numeric sum's, at the scale every group's
 * shares, orders as the numeric does).
 */
static int
agg_worse(const GpuaggTopN *t, uint64 a, uint64 b)
{
	int128		x;
	int128		y;
	int			c;

	if (t->kind != GA_AGG_COUNT)
	{
		bool		na = t->states[a] == 0;
		bool		nb = t->states[b] == 0;

		if (na || nb)
			return na == nb ? 0 : na == t->aggnullsfirst ? -1 : 1;
	}
	x = agg_value(t, a);
	y = agg_value(t, b);
	c = x > y ? 1 : x < y ? -1 : 0;
	return t->desc ? -c : c;
}

void
GpuaggTopNInit(GpuaggTopN *t, List *topn)
{
	List	   *ties;
	List	   *idx;

	memset(t, 0, sizeof(GpuaggTopN));
	if (topn == NIL)
		return;
	t->n = intVal(linitial(topn));
	/* LIMIT n without ORDER BY: any n groups */
	t->agg = -1;
	if (list_length(topn) == 1)
		return;
	ties = lfourth(topn);
	idx = linitial(ties);
	t->agg = intVal(lsecond(topn));
	t->desc = intVal(lthird(topn)) != 0;
	t->aggnullsfirst = intVal(list_nth(topn, 4)) != 0;
	t->ntie = list_length(idx);
	t->whole = intVal(list_nth(ties, 4)) != 0;
	t->tie_key = palloc(sizeof(int) * Max(t->ntie, 1));
	t->tie_op = palloc(sizeof(Oid) * Max(t->ntie, 1));
	t->tie_ssup = palloc0(sizeof(SortSupportData) * Max(t->ntie, 1));
	for (int i = 0; i < t->ntie; i++)
	{
		SortSupport ssup = &t->tie_ssup[i];

		t->tie_key[i] = list_nth_int(idx, i);
		t->tie_op[i] = list_nth_oid(lsecond(ties), i);
		ssup->ssup_cxt = CurrentMemoryContext;
		ssup->ssup_collation = list_nth_oid(lthird(ties), i);
		ssup->ssup_nulls_first = list_nth_int(lfourth(ties), i) != 0;
		PrepareSortSupportFromOrderingOp(t->tie_op[i], ssup);
	}
}

/*
 * The tie keys go to the device up to the first whose order it does not
 * know (a type gpuagg_topn.h does not encode, or an order other than its
 * type's default); fewer tie keys only return more groups to the heap.
 * planner.c gives each group key once, so no more than GA_MAX_KEYS; the
 * bound is checked all the same.
 */
void
GpuaggTopNForDevice(const GpuaggTopN *t, GpuaggProgram *prog)
{
	GaTopN	   *d = &prog->ga.topn;

	memset(d, 0, sizeof(GaTopN));
	/*
	 * A count(DISTINCT): the device sends every group back and the node
	 * keeps the n (ClickBench Q14, 6M groups of SearchPhrase at 1e8 that
	 * need not reach the Sort).  The engines fold the distinct sets into
	 * the counts before their select (engine.c's finish, device_cpu.c
	 * counts as rows come), so the device's Top-N would apply too; it
	 * stays off until a GPU has run it.
	 */
	if (t->n <= 0 || t->agg < 0 || prog->ga.aggs[t->agg].distinct >= 0)
		return;
	d->n = (uint64) t->n;
	d->kind = prog->ga.aggs[t->agg].kind;
	d->slot = prog->ga.aggs[t->agg].slot;
	d->desc = t->desc;
	d->aggnullsfirst = t->aggnullsfirst;
	for (int i = 0; i < t->ntie; i++)
	{
		int			k = t->tie_key[i];
		Oid			type = getBaseType(prog->keytypid[k]);
		TypeCacheEntry *tc;

		if (i == GA_MAX_KEYS)
			return;
		switch (type)
		{
			case BOOLOID:
			case INT2OID:
			case INT4OID:
			case INT8OID:
			case FLOAT4OID:
			case FLOAT8OID:
			case DATEOID:
			case TIMESTAMPOID:
			case TIMESTAMPTZOID:
				break;
			default:
				return;
		}
		tc = lookup_type_cache(type, TYPECACHE_LT_OPR | TYPECACHE_GT_OPR);
		if (t->tie_op[i] != tc->lt_opr && t->tie_op[i] != tc->gt_opr)
			return;
		d->key[i] = k;
		d->keydesc[i] = t->tie_op[i] == tc->gt_opr;
		d->nullsfirst[i] = t->tie_ssup[i].ssup_nulls_first;
		d->nties++;

		/*
		 * A NULL shares its word with an extreme value of a 64-bit key
		 * (int8's, the timestamps' infinities) on whichever side it is
		 * placed, and with a float's NaN where both rank last (ASC NULLS
		 * LAST, DESC NULLS FIRST): a later key's word would decide
		 * between them before the NULL's side does, so none follows.
		 * (The NULL's side then orders them: the host's heap, and the
		 * place word where the keys are the whole ORDER BY.)
		 */
		if (i + 1 < t->ntie &&
			(type == INT8OID || type == TIMESTAMPOID || type == TIMESTAMPTZOID ||
			 ((type == FLOAT4OID || type == FLOAT8OID) &&
			  d->nullsfirst[i] == d->keydesc[i])))
			return;
	}
	/* (every tie key went: groups equal in them all are interchangeable) */
	d->whole = t->whole;
}

/*
 * The order of groups (indexes into the run's result), as binaryheap
 * compares: > 0 when group a ranks after group b, by its aggregate, then by the
 * tie keys.
 */
static int
group_worse(Datum a, Datum b, void *arg)
{
	const GpuaggTopN *t = (const GpuaggTopN *) arg;
	const GaResult *res = t->res;
	uint64		ga = (uint64) a;
	uint64		gb = (uint64) b;
	int			c = agg_worse(t, ga, gb);

	for (int i = 0; i < t->ntie && c == 0; i++)
	{
		int			k = t->tie_key[i];
		int			type = t->keytype[k];
		Size		at = (Size) k * res->ngroups;
		bool		na = res->keynulls[at + ga];
		bool		nb = res->keynulls[at + gb];

		/* by value (planner.c's topn_tie_keys): no dictionary, no palloc */
		c = ApplySortComparator(na ? (Datum) 0 : GpuaggKeyDatum(res->keys[at + ga], type, 0, NULL), na,
								nb ? (Datum) 0 : GpuaggKeyDatum(res->keys[at + gb], type, 0, NULL), nb,
								&t->tie_ssup[i]);
	}
	/* the whole ORDER BY: of groups equal in it any will do, exactly n go */
	if (c == 0 && t->whole)
		c = ga < gb ? -1 : ga > gb ? 1 : 0;
	return c;
}

bool
GpuaggTopNKeeps(const GpuaggTopN *t, uint64 g)
{
	return t->states == NULL ||
		group_worse((Datum) g, (Datum) t->bound, (void *) t) <= 0;
}

uint64
GpuaggTopNBound(GpuaggTopN *t, const GaProgram *prog, const GaResult *res, bool count_kept)
{
	uint64		n = (uint64) t->n;
	uint64		top;
	uint64		kept = 0;
	binaryheap *heap;

	t->states = NULL;
	if (t->n <= 0)
		return 0;
	/* (any n groups: those the device returned, GaResult.limit_groups) */
	if (t->agg < 0)
		return res->ngroups;
	/* a group's overflow error is raised when it is finished: all go out */
	if (res->ngroups <= n || GpuaggAnyFloatOverflow(prog, res))
		return res->ngroups;
	t->res = res;
	t->keytype = prog->keytype;
	t->kind = prog->aggs[t->agg].kind;
	t->states = res->states + (Size) prog->aggs[t->agg].slot * res->ngroups;
	/* the heap's top is the group ranking last of those kept */
	heap = binaryheap_allocate(t->n, group_worse, t);
	for (uint64 g = 0; g < n; g++)
		binaryheap_add_unordered(heap, (Datum) g);
	binaryheap_build(heap);
	top = (uint64) binaryheap_first(heap);
	for (uint64 g = n; g < res->ngroups; g++)
	{
		if (group_worse((Datum) top, (Datum) g, t) > 0)
		{
			binaryheap_replace_first(heap, (Datum) g);
			top = (uint64) binaryheap_first(heap);
		}
	}
	binaryheap_free(heap);
	t->bound = top;
	/* a pass over every group, for EXPLAIN ANALYZE's Groups Returned only */
	if (count_kept)
		for (uint64 g = 0; g < res->ngroups; g++)
			kept += GpuaggTopNKeeps(t, g);
	return kept;
}
