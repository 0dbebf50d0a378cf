/*-------------------------------------------------------------------------
 *
 * gpuagg_join.h
 *		A join a device runs: each row of the table probes its dimensions'
 *		hash tables, shared by both devices.
 *
 * join.c sends each dimension's rows (GaDimData: keys as int64, the columns
 * the program reads at their type's width) once per run; a device builds
 * its hash table with ga_dim_insert (a GPU a thread a row, atomically): a
 * slot per key, its rows chained.  ga_join_next runs for every row of the
 * table the WHERE's quals of the table alone keep (ga_where_upto),
 * before its other quals: depth first over the dimensions in order,
 * each probed with its key (columns of the table or of an earlier
 * dimension's match), each of the key's rows for which the join's other
 * conditions hold a candidate (GaDimDesc, GaProgram.dimcond).  It writes
 * the candidates' columns into the batch's columns the program reads of
 * them (GaColumn.dim), whose null bitmaps the device zeroed, and says
 * whether there is a row of the join; called again, whether there is
 * another (an inner or left join's next candidate), as a native join's
 * rows multiply.
 *
 * Includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_JOIN_H_DEVICE
#define GPUAGG_JOIN_H_DEVICE

#include "gpuagg_eval.h"

#ifdef __CUDACC__
#define GA_JOIN_CAS32(p, o, n)	atomicCAS((p), (o), (n))
#define GA_JOIN_OR32(p, v)		atomicOr((p), (v))
#define GA_JOIN_AND32(p, v)		atomicAnd((p), (v))
#define GA_JOIN_XCHG32(p, v)	atomicExch((p), (v))
/* (out of line: the row's path without a join keeps its registers) */
#define GA_JOIN_OUTLINE static __device__ __noinline__
#else
#define GA_JOIN_OUTLINE static inline
static inline uint32_t
ga_join_cas32(uint32_t *p, uint32_t o, uint32_t n)
{
	uint32_t	old = *p;

	if (old == o)
		*p = n;
	return old;
}
#define GA_JOIN_CAS32(p, o, n)	ga_join_cas32((p), (o), (n))
static inline uint32_t
ga_join_xchg32(uint32_t *p, uint32_t v)
{
	uint32_t	old = *p;

	*p = v;
	return old;
}
#define GA_JOIN_OR32(p, v)		(*(p) |= (v))
#define GA_JOIN_AND32(p, v)		(*(p) &= (v))
#define GA_JOIN_XCHG32(p, v)	ga_join_xchg32((p), (v))
#endif

/* The hash of a key of n int64 values (splitmix64's finalizer, chained). */
GA_DEVFN uint64_t
ga_dim_hash(const int64_t *k, int n)
{
	uint64_t	h = UINT64_C(0x9e3779b97f4a7c15);

	for (int i = 0; i < n; i++)
	{
		uint64_t	z = h ^ (uint64_t) k[i];

		z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
		z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
		h = z ^ (z >> 31);
	}
	return h;
}

/* Slots of a dimension's table for nrows rows: a power of two, half full. */
GA_HD uint64_t
ga_dim_cap(uint64_t nrows)
{
	uint64_t	cap = 16;

	while (cap < 2 * nrows)
		cap <<= 1;
	return cap;
}

/*
 * Row row of a dimension into its table (slots and next zeroed, cap of
 * ga_dim_cap): its key's slot, or behind the row there in its chain
 * (*dm->dup set).  Only a slot's row has its next exchanged, and only by
 * others; every other row's next is written once, by its own thread.
 */
GA_DEVFN void
ga_dim_insert(const GaDimDesc *dd, const GaDimData *dm, uint64_t row)
{
	int64_t		key[GA_MAX_DIM_KEYS];
	uint64_t	mask = dm->cap - 1;
	uint64_t	i;

	for (int k = 0; k < dd->nkeys; k++)
		key[k] = dm->keys[k][row];
	i = ga_dim_hash(key, dd->nkeys) & mask;
	for (;;)
	{
		uint32_t	old = GA_JOIN_CAS32(&dm->slots[i], 0u, (uint32_t) (row + 1));
		bool		same = true;

		if (old == 0u)
			return;
		for (int k = 0; k < dd->nkeys && same; k++)
			same = dm->keys[k][old - 1] == key[k];
		if (same)
		{
			*dm->dup = 1;
			dm->next[row] = GA_JOIN_XCHG32(&dm->next[old - 1], (uint32_t) (row + 1));
			return;
		}
		i = (i + 1) & mask;
	}
}

/* The first row of a dimension whose key is key, or -1. */
GA_DEVFN int64_t
ga_dim_probe(const GaDimDesc *dd, const GaDimData *dm, const int64_t *key)
{
	uint64_t	mask = dm->cap - 1;
	uint64_t	i = ga_dim_hash(key, dd->nkeys) & mask;

	for (;;)
	{
		uint32_t	s = dm->slots[i];
		bool		same = true;

		if (s == 0)
			return -1;
		for (int k = 0; k < dd->nkeys && same; k++)
			same = dm->keys[k][s - 1] == key[k];
		if (same)
			return (int64_t) s - 1;
		i = (i + 1) & mask;
	}
}

/* Value si of an array of w-byte values into di of another (w 0: none). */
GA_DEVFN void
ga_copy_value(int w, void *dst, uint64_t di, const void *src, uint64_t si)
{
	switch (w)
	{
		case 1:
			((uint8_t *) dst)[di] = ((const uint8_t *) src)[si];
			break;
		case 2:
			((uint16_t *) dst)[di] = ((const uint16_t *) src)[si];
			break;
		case 4:
			((uint32_t *) dst)[di] = ((const uint32_t *) src)[si];
			break;
		case 8:
			((uint64_t *) dst)[di] = ((const uint64_t *) src)[si];
			break;
		default:
			break;				/* GA_T_NULLONLY: only NULL-ness */
	}
}

/*
 * Does an inner or semi join with a table of no rows (one the device
 * scanned itself: its WHERE kept none) leave the table none?  Then a
 * device folds no row of it and evaluates none of its quals, as a native
 * Hash Join with nothing to hash reads no outer row past its first.  (The
 * host skips the scan where it knows before: exec.c.)  Not x IN (a
 * subquery of no rows), natively a filter of the scan (GaDimDesc.subquery).
 */
static inline bool
ga_join_none(const GaProgram *p, const GaDims *dims)
{
	for (uint32_t d = 0; d < p->ndims; d++)
		if (dims->dim[d].nrows == 0 && ga_join_needs_rows(&p->dims[d]))
			return true;
	return false;
}

/* Mark row of a batch's column NULL (bitmaps of whole words, zeroed). */
GA_DEVFN void
ga_join_set_null(const uint8_t *nulls, uint32_t row)
{
	GA_JOIN_OR32((uint32_t *) nulls + (row >> 5), 1u << (row & 31));
}

/*
 * Where ga_join_next is for a row of the table: each dimension's row (-1:
 * NULLs, an anti join's or a left join's unmatched), and the program's
 * columns it has set NULL in the batch (to clear for a later candidate).
 */
typedef struct GaJoinIter
{
	int64_t		match[GA_MAX_DIMS];
	uint64_t	nullset;
} GaJoinIter;

/* Dimension d's row at (-1: NULLs) into row of the batch: its columns there. */
GA_DEVFN void
ga_join_put(const GaProgram *p, const GaDims *dims, const GaBatch *b, uint32_t row,
			uint32_t d, int64_t at, GaJoinIter *it)
{
	const GaDimData *dm = &dims->dim[d];

	for (uint32_t c = 0; c < p->ncols; c++)
	{
		const GaColumn *col = &p->cols[c];
		int			j = col->dimcol;
		uint64_t	bit = UINT64_C(1) << c;

		if (col->dim != (int32_t) d + 1)
			continue;
		if (at < 0 || ga_isnull(dm->nulls[j], (uint32_t) at))
		{
			if (!(it->nullset & bit))
				ga_join_set_null(b->nulls[c], row);
			it->nullset |= bit;
			continue;
		}
		if (it->nullset & bit)
		{
			GA_JOIN_AND32((uint32_t *) b->nulls[c] + (row >> 5), ~(1u << (row & 31)));
			it->nullset &= ~bit;
		}
		ga_copy_value(ga_type_width(col->type), (void *) b->values[c], row, dm->cols[j],
					  (uint64_t) at);
	}
}

/*
 * Dimension d's candidate for row of the table, the earlier dimensions'
 * being it->match[0 .. d - 1]: fresh, the first; else the one after
 * it->match[d] (an inner or left join's next).  true, and it->match[d]
 * with its columns in the batch; false where there is none (or *err, a
 * condition's error).  regs, nulls: the evaluation's scratch.
 */
GA_DEVFN bool
ga_join_dim(const GaProgram *p, const GaDims *dims, const GaBatch *b, uint32_t row,
			GaJoinIter *it, uint32_t d, bool fresh, GaDatum *regs, uint8_t *nulls, int *err)
{
	const GaDimDesc *dd = &p->dims[d];
	const GaDimData *dm = &dims->dim[d];
	const GaSegment *cond = &p->dimcond[d];
	int64_t		at = -1;

	if (fresh)
	{
		int64_t		key[GA_MAX_DIM_KEYS];
		bool		null = false;

		for (int k = 0; k < dd->nkeys && !null; k++)
		{
			GaDatum		v;
			int			e = dd->keydim[k];
			int			c = dd->keysrc[k];

			v.i = 0;
			if (e < 0)
				null = ga_load(p, b, c, row, &v);
			else if (it->match[e] < 0)
				null = true;	/* a left join's row of NULLs */
			else
				null = ga_load_typed(p->dims[e].coltype[c], dims->dim[e].cols[c],
									 dims->dim[e].nulls[c], (uint64_t) it->match[e], &v);
			key[k] = v.i;
		}
		/* NOT IN: a NULL x, or a NULL among the subquery's rows, is not true */
		if (dd->notin > 1 || (dd->notin && null))
			return false;
		/* a NULL key matches nothing */
		if (!null && dm->nrows > 0)
			at = ga_dim_probe(dd, dm, key);
	}
	else
	{
		/* a semi or anti join, or a left join's NULLs: once */
		if (dd->kind == GA_JOIN_SEMI || dd->kind == GA_JOIN_ANTI || it->match[d] < 0 ||
			!dm->multi)
			return false;
		at = (int64_t) dm->next[it->match[d]] - 1;
	}
	/* the first row of the key from at for which the join's conditions hold */
	for (; at >= 0 && cond->reg >= 0; at = dm->multi ? (int64_t) dm->next[at] - 1 : -1)
	{
		ga_join_put(p, dims, b, row, d, at, it);
		if ((*err = ga_eval(p, cond, b, row, regs, nulls)) != GA_OK)
			return false;
		if (!nulls[cond->reg] && regs[cond->reg].i)
			break;
	}
	switch (dd->kind)
	{
		case GA_JOIN_INNER:
		case GA_JOIN_SEMI:
			if (at < 0)
				return false;
			break;
		case GA_JOIN_ANTI:
			if (at >= 0)
				return false;
			break;
		default:
			if (at < 0 && !fresh)
				return false;	/* a left join's candidates, all seen */
			break;
	}
	it->match[d] = at;
	if (cond->reg < 0 || at < 0)
		ga_join_put(p, dims, b, row, d, at, it);
	return true;
}

/*
 * The join for row of batch b: first, its first row; else its next one.
 * false where there is none (more), or *err; else the program's columns
 * of the dimensions hold the candidates' values.
 */
GA_JOIN_OUTLINE bool
ga_join_next(const GaProgram *p, const GaDims *dims, const GaBatch *b, uint32_t row,
			 GaJoinIter *it, bool first, GaDatum *regs, uint8_t *nulls, int *err)
{
	uint32_t	d;
	bool		fresh = first;

#if defined(GA_JOIN_PROGRAM) && defined(__CUDA_ARCH__)
	/* (out of line, p would be a generic pointer: constant memory's loads) */
	p = GA_JOIN_PROGRAM;
#endif
	d = first ? 0 : p->ndims - 1;
	*err = GA_OK;
	if (first)
		it->nullset = 0;
	for (;;)
	{
		if (ga_join_dim(p, dims, b, row, it, d, fresh, regs, nulls, err))
		{
			if (++d == p->ndims)
				return true;
			fresh = true;
			continue;
		}
		if (*err != GA_OK || d == 0)
			return false;
		d--;
		fresh = false;
	}
}

/*
 * Do the WHERE's quals before end keep row of batch b (regs, nulls: the
 * evaluation's scratch)?  false with *err where one fails.  Around a join
 * (GaProgram.where_joined) those that read the scanned table alone run
 * so on each of its rows before ga_join_next, as a native plan's scan
 * runs them before its join: a row they drop is matched with nothing,
 * and a row the join drops still gets their errors.
 * (The CPU device's page form too, for the strings it defers: up to
 * GaTupleLayout.defer_end.)
 */
GA_JOIN_OUTLINE bool
ga_where_upto(const GaProgram *p, int32_t end, const GaBatch *b, uint32_t row, GaDatum *regs,
			  uint8_t *nulls, int *err)
{
	GaSegment	seg;

#if defined(GA_JOIN_PROGRAM) && defined(__CUDA_ARCH__)
	p = GA_JOIN_PROGRAM;
#endif
	seg.start = p->where.start;
	seg.end = end;
	seg.reg = p->where.reg;
	*err = GA_OK;
	if (seg.reg < 0 || seg.end <= seg.start)
		return true;
	*err = ga_eval(p, &seg, b, row, regs, nulls);
	return *err == GA_OK && !nulls[seg.reg] && regs[seg.reg].i;
}

/*
 * ... and the WHERE for each row of the join (of the table, without one):
 * the rest of its quals.  false with *err where one fails.
 */
GA_DEVFN bool
ga_where_keeps(const GaProgram *p, const GaBatch *b, uint32_t row, GaDatum *regs,
			   uint8_t *nulls, int *err)
{
	GaSegment	seg = p->where;

	if (seg.reg < 0)
		return true;
	if (p->ndims > 0 && p->where_joined > seg.start)
	{
		if (p->where_joined >= seg.end)
			return true;
		/* the quals before held: their AND, true, where the rest start */
		seg.start = p->where_joined;
		regs[seg.reg].i = 1;
		nulls[seg.reg] = 0;
	}
	*err = ga_eval(p, &seg, b, row, regs, nulls);
	return *err == GA_OK && !nulls[seg.reg] && regs[seg.reg].i;
}

/*
 * A dimension the device scans: does row of a batch of its table belong to
 * its rows (its program's WHERE holds, no key is NULL)?  GA_OK and *keep,
 * or the WHERE's error.
 */
GA_DEVFN int
ga_dim_keeps(const GaProgram *dp, const GaDimDesc *dd, const GaBatch *b, uint32_t row,
			 bool *keep)
{
	GaDatum		regs[GA_MAX_REGS];
	uint8_t		nulls[GA_MAX_REGS];

	*keep = false;
	if (dp->where.reg >= 0)
	{
		int			err = ga_eval(dp, &dp->where, b, row, regs, nulls);

		if (err)
			return err;
		if (nulls[dp->where.reg] || !regs[dp->where.reg].i)
			return GA_OK;
	}
	for (int k = 0; k < dd->nkeys; k++)
		if (ga_isnull(b->nulls[dd->scan_key[k]], row))
			return GA_OK;
	*keep = true;
	return GA_OK;
}

/* ... and, kept, the row as the dimension's row at (nulls zeroed before) */
GA_DEVFN void
ga_dim_store(const GaProgram *dp, const GaDimDesc *dd, const GaDimData *dm, const GaBatch *b,
			 uint32_t row, uint64_t at)
{
	for (int k = 0; k < dd->nkeys; k++)
	{
		GaDatum		v;

		(void) ga_load(dp, b, dd->scan_key[k], row, &v);
		dm->keys[k][at] = v.i;
	}
	for (int j = 0; j < dd->ncols; j++)
	{
		int			c = dd->scan_col[j];
		const void *src = b->values[c];

		if (ga_isnull(b->nulls[c], row))
		{
			ga_join_set_null(dm->nulls[j], (uint32_t) at);
			continue;
		}
		ga_copy_value(ga_type_width(dd->coltype[j]), dm->cols[j], at, src, row);
	}
}

#endif							/* GPUAGG_JOIN_H_DEVICE */
