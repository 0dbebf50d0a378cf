/*-------------------------------------------------------------------------
 *
 * gpuagg_join.h
 *		A join a device runs: each row of the table probes its dimensions'
 *		hash tables, shared by both devices.
 *
 * join.c sends each dimension's rows (GaDimData: keys as int64, the columns
 * the program reads at their type's width) once per run; a device builds
 * its hash table with ga_dim_insert (a GPU a thread a row, atomically), and
 * ga_join_row runs first for every row of the table, before the WHERE:
 * depth first over the dimensions in order, each probed with its key
 * (columns of the table or of an earlier dimension's match), at most one
 * match each (GaDimDesc).  It writes the matched rows' columns into the
 * batch's columns the program reads of them (GaColumn.dim), whose null
 * bitmaps the device zeroed, and says whether the row is kept.
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
#else
static inline uint32_t
ga_join_cas32(uint32_t *p, uint32_t o, uint32_t n)
{
	uint32_t	old = *p;

	if (old == o)
		*p = n;
	return old;
}
#define GA_JOIN_CAS32(p, o, n)	ga_join_cas32((p), (o), (n))
#define GA_JOIN_OR32(p, v)		(*(p) |= (v))
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
 * Row row of a dimension into its table (slots zeroed, cap of ga_dim_cap),
 * unless a row of the same key is there (*dm->dup set).
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
			return;
		}
		i = (i + 1) & mask;
	}
}

/* The row of a dimension whose key is key, or -1. */
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

/* Mark row of a batch's column NULL (bitmaps of whole words, zeroed). */
GA_DEVFN void
ga_join_set_null(const uint8_t *nulls, uint32_t row)
{
	GA_JOIN_OR32((uint32_t *) nulls + (row >> 5), 1u << (row & 31));
}

/*
 * The join for row of batch b: false where the row goes; else the program's
 * columns of the dimensions hold the matched rows' values.
 */
GA_DEVFN bool
ga_join_row(const GaProgram *p, const GaDims *dims, const GaBatch *b, uint32_t row)
{
	int64_t		match[GA_MAX_DIMS];

	for (uint32_t d = 0; d < p->ndims; d++)
	{
		const GaDimDesc *dd = &p->dims[d];
		const GaDimData *dm = &dims->dim[d];
		int64_t		key[GA_MAX_DIM_KEYS];
		bool		null = false;
		int64_t		at = -1;

		for (int k = 0; k < dd->nkeys && !null; k++)
		{
			GaDatum		v;
			int			e = dd->keydim[k];
			int			c = dd->keysrc[k];

			v.i = 0;
			if (e < 0)
				null = ga_load(p, b, c, row, &v);
			else if (match[e] < 0)
				null = true;	/* a left join's row of NULLs */
			else
				null = ga_load_typed(p->dims[e].coltype[c], dims->dim[e].cols[c],
									 dims->dim[e].nulls[c], (uint64_t) match[e], &v);
			key[k] = v.i;
		}
		/* a NULL key matches nothing */
		if (!null && dm->nrows > 0)
			at = ga_dim_probe(dd, dm, key);
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
				break;
		}
		match[d] = at;
	}
	for (uint32_t c = 0; c < p->ncols; c++)
	{
		const GaColumn *col = &p->cols[c];
		int			d = col->dim - 1;
		int			j = col->dimcol;
		int64_t		at;
		const GaDimData *dm;

		if (d < 0)
			continue;
		at = match[d];
		dm = &dims->dim[d];
		if (at < 0 || (dm->nulls[j] && (dm->nulls[j][at >> 3] & (1u << (at & 7)))))
		{
			ga_join_set_null(b->nulls[c], row);
			continue;
		}
		ga_copy_value(ga_type_width(col->type), (void *) b->values[c], row, dm->cols[j],
					  (uint64_t) at);
	}
	return true;
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
