/*-------------------------------------------------------------------------
 *
 * device_cpu.c
 *		The plain-C device: the reference semantics of gpuagg.
 *
 * Rows are evaluated one at a time with the shared interpreter
 * (cuda/gpuagg_eval.h) and grouped in a simplehash table whose entries point
 * at group rows kept in growing arrays, so the table grows with the data
 * and a low planner estimate costs only rehashing.  count(DISTINCT x) keeps
 * a second simplehash set of (group, aggregate, x) and counts a group's x
 * when it enters the set.  This device is what CI tests, the run-time
 * fallback when a GPU fails, and gpuagg.device = cpu.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "utils/memutils.h"

#include "device.h"
#include "dict.h"
#include "../cuda/gpuagg_eval.h"
#include "../cuda/gpuagg_join.h"
#include "../cuda/gpuagg_page.h"
#include "../cuda/gpuagg_topn.h"

#define PROBE_KEY	PG_UINT32_MAX

typedef struct CpuGroupEntry
{
	uint32		group;			/* index of the group row, or PROBE_KEY */
	uint32		hash;
	char		status;
} CpuGroupEntry;

struct CpuSession;
static uint32 cpu_group_hash(struct CpuSession *s, uint32 group);
static bool cpu_group_equal(struct CpuSession *s, uint32 a, uint32 b);

#define SH_PREFIX		cpugroup
#define SH_ELEMENT_TYPE CpuGroupEntry
#define SH_KEY_TYPE		uint32
#define SH_KEY			group
#define SH_HASH_KEY(tb, key) cpu_group_hash((struct CpuSession *) (tb)->private_data, key)
#define SH_EQUAL(tb, a, b) cpu_group_equal((struct CpuSession *) (tb)->private_data, a, b)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

/* An entry of the distinct set: a value of one aggregate in one group. */
typedef struct CpuDistinctKey
{
	uint64		value;			/* canonical bits */
	uint32		group;
	uint32		agg;
} CpuDistinctKey;

typedef struct CpuDistinctEntry
{
	CpuDistinctKey key;
	uint32		hash;
	char		status;
	uint64		rows;			/* an ordered-set aggregate's: rows with it */
} CpuDistinctEntry;

static inline uint32
cpu_distinct_hash(CpuDistinctKey k)
{
	uint64		h = ga_mix64(k.value ^ ga_mix64(((uint64) k.group << 8) | k.agg));

	return (uint32) (h ^ (h >> 32));
}

#define SH_PREFIX		cpudistinct
#define SH_ELEMENT_TYPE CpuDistinctEntry
#define SH_KEY_TYPE		CpuDistinctKey
#define SH_KEY			key
#define SH_HASH_KEY(tb, k) cpu_distinct_hash(k)
#define SH_EQUAL(tb, a, b) ((a).value == (b).value && (a).group == (b).group && (a).agg == (b).agg)
#define SH_STORE_HASH
#define SH_GET_HASH(tb, a) ((a)->hash)
#define SH_SCOPE		static inline
#define SH_DECLARE
#define SH_DEFINE
#include "lib/simplehash.h"

typedef struct CpuSession
{
	GaProgram	prog;
	MemoryContext cxt;
	cpugroup_hash *table;
	cpudistinct_hash *distinct;	/* count(DISTINCT) values seen */
	uint32		ngroups;
	uint32		capacity;
	GaDatum    *keys;			/* [capacity][nkeys] */
	uint8	   *keynulls;		/* [capacity][nkeys] */
	uint64	   *states;			/* [capacity][nslots] */
	GaDatum		probe[GA_MAX_KEYS];
	uint8		probenull[GA_MAX_KEYS];
	char	   *buffer;			/* the batch buffer, reused */
	Size		buffer_size;
	char	   *deformed;		/* page-form batches, deformed */
	Size		deformed_size;
	/* page form: the strings it codes, as a GPU does (gpuagg_page.h) */
	GpuaggDict *strings;
	uint32		nseed;			/* of them, the host's */
	GaHostStrings hooks;
	GaDims		dims;			/* a join it runs: the caller's rows, its tables */
	uint32		dims_ready;
	uint32		dim_dup;		/* set where the last one's keys repeat */
	GaProgram  *dimprog[GA_MAX_DIMS];	/* one it scans: its program, */
	uint64		dim_cap[GA_MAX_DIMS];	/* ... room for rows, */
	uint64		dim_n[GA_MAX_DIMS]; /* ... and the rows it kept */
} CpuSession;

static inline const GaDatum *
group_keys(CpuSession *s, uint32 g, const uint8 **nulls)
{
	if (g == PROBE_KEY)
	{
		*nulls = s->probenull;
		return s->probe;
	}
	*nulls = s->keynulls + (Size) g * s->prog.nkeys;
	return s->keys + (Size) g * s->prog.nkeys;
}

static uint32
cpu_group_hash(CpuSession *s, uint32 group)
{
	const uint8 *nulls;
	const GaDatum *k = group_keys(s, group, &nulls);
	uint64		h = 0;

	for (uint32 i = 0; i < s->prog.nkeys; i++)
		h = ga_mix64(h ^ (nulls[i] ? UINT64CONST(0x9e3779b97f4a7c15) :
						  ga_canonical_key(s->prog.keytype[i], k[i]).u) ^ i);
	return (uint32) (h ^ (h >> 32));
}

static bool
cpu_group_equal(CpuSession *s, uint32 a, uint32 b)
{
	const uint8 *na,
			   *nb;
	const GaDatum *ka = group_keys(s, a, &na);
	const GaDatum *kb = group_keys(s, b, &nb);

	for (uint32 i = 0; i < s->prog.nkeys; i++)
	{
		if (na[i] != nb[i] ||
			(!na[i] && ga_canonical_key(s->prog.keytype[i], ka[i]).u !=
			 ga_canonical_key(s->prog.keytype[i], kb[i]).u))
			return false;
	}
	return true;
}

/* Make room for one more group row. */
static void
grow_groups(CpuSession *s)
{
	uint32		nk = s->prog.nkeys;
	uint32		ns = s->prog.nslots;
	uint32		newcap;

	if (s->ngroups < s->capacity)
		return;
	if (s->capacity >= PG_UINT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("too many groups for gpuagg")));
	newcap = Max(s->capacity * 2, 1024);
	s->keys = repalloc_huge(s->keys, sizeof(GaDatum) * (Size) newcap * Max(nk, 1));
	s->keynulls = repalloc_huge(s->keynulls, (Size) newcap * Max(nk, 1));
	s->states = repalloc_huge(s->states, sizeof(uint64) * (Size) newcap * Max(ns, 1));
	memset(s->states + (Size) s->capacity * ns, 0,
		   sizeof(uint64) * (Size) (newcap - s->capacity) * ns);
	s->capacity = newcap;
}

static uint32
new_group(CpuSession *s)
{
	uint32		g;

	grow_groups(s);
	g = s->ngroups++;
	memcpy(s->keys + (Size) g * s->prog.nkeys, s->probe,
		   sizeof(GaDatum) * s->prog.nkeys);
	memcpy(s->keynulls + (Size) g * s->prog.nkeys, s->probenull,
		   s->prog.nkeys);
	return g;
}

/*
 * A string of a page: its code in the session's own dictionary, which
 * continues the host's as a GPU's does; none (0) for a compressed or
 * TOASTed value, which a GPU cannot read either.
 */
static int
cpu_string_code(void *arg, const uint8_t *p, uint32_t *code)
{
	CpuSession *s = (CpuSession *) arg;
	const uint8_t *data;
	uint32_t	len;

	if (!ga_varlena_inline(p, &data, &len))
		return 0;
	*code = GpuaggDictEncodeBytes(s->strings, (const char *) data, (int32) len);
	return 1;
}

/* ... a string's bytes' (a prefix column's, ga_prefix_code) ... */
static int
cpu_bytes_code(void *arg, const uint8_t *data, uint32_t len, uint32_t *code)
{
	CpuSession *s = (CpuSession *) arg;

	*code = GpuaggDictEncodeBytes(s->strings, (const char *) data, (int32) len);
	return 1;
}

/* ... and a bpchar's two, as the GPU makes them (ga_bpchar_codes). */
static int
cpu_bpchar_codes(void *arg, const uint8_t *p, uint64_t *codes)
{
	CpuSession *s = (CpuSession *) arg;
	const uint8_t *data;
	uint32_t	len;

	if (!ga_varlena_inline(p, &data, &len))
		return 0;
	*codes = (uint64_t) GpuaggDictEncodeBytes(s->strings, (const char *) data, (int32) len) << 32 |
		GpuaggDictEncodeBytes(s->strings, (const char *) data,
							  (int32) ga_bpchar_len(data, len));
	return 1;
}

/*
 * Do the WHERE's quals up to L->defer_end keep the row, or fail on it
 * (which the aggregation will report)?  Then a device codes the strings it
 * deferred (GaDeferred).
 */
static bool
keeps_row(const GaProgram *p, const GaTupleLayout *L, const GaBatch *view, uint32 row)
{
	GaDatum		regs[GA_MAX_REGS];
	uint8_t		nulls[GA_MAX_REGS];
	int			err;

	return ga_where_upto(p, L->defer_end, view, row, regs, nulls, &err) || err != GA_OK;
}

/*
 * A page-form batch as columns (into *out): each tuple deformed where it
 * lies, by the deformer the GPU runs (gpuagg_page.h).  Returns GA_OK or
 * the error a GPU would report.
 */
static int
deform_pages(CpuSession *s, const GaProgram *p, const GaBatch *batch, GaBatch *out)
{
	const GaTupleLayout *L = (const GaTupleLayout *) batch->layout;
	void	   *values[GA_MAX_COLS];
	uint8_t    *nulls[GA_MAX_COLS];
	uint8_t		anynull[GA_MAX_COLS] = {0};
	Size		bitmap = TYPEALIGN(16, (batch->nrows + 7) / 8);
	char	   *at;
	GaBatch		view = {0};		/* the columns so far, for the WHERE */
	GaDeferred	later;

	{
		Size		size = 0;

		/* (the query's program, or a joined table's: its columns) */
		for (uint32 c = 0; c < p->ncols; c++)
			size += TYPEALIGN(16, (Size) ga_type_width(p->cols[c].type) * batch->nrows) +
				bitmap;
		if (s->deformed == NULL || s->deformed_size < size)
		{
			if (s->deformed)
				pfree(s->deformed);
			s->deformed = MemoryContextAllocHuge(s->cxt, Max(size, 16));
			s->deformed_size = size;
		}
	}
	at = s->deformed;
	for (uint32 c = 0; c < p->ncols; c++)
	{
		values[c] = at;
		at += TYPEALIGN(16, (Size) ga_type_width(p->cols[c].type) * batch->nrows);
		nulls[c] = (uint8_t *) at;
		memset(nulls[c], 0, bitmap);
		at += bitmap;
		view.values[c] = values[c];
		view.nulls[c] = nulls[c];
	}
	view.nrows = batch->nrows;
	for (uint32 i = 0; i < batch->npages; i++)
	{
		const uint8_t *page = (const uint8_t *) batch->pages +
			(uint64) batch->pagelist[i] * BLCKSZ;
		const uint32_t *vis = batch->pagevis + (uint64) i * GA_PAGE_VIS_WORDS;
		uint32		row = batch->pagerows[i];

		for (uint32 k = 0; k < GA_PAGE_VIS_WORDS * 32; k++)
		{
			const uint8_t *tup;
			uint32_t	len = 0;
			int			got;

			if (!(vis[k >> 5] & (1u << (k & 31))))
				continue;
			/* not a tuple of the page, or past the batch: can't happen */
			if ((tup = ga_page_tuple(page, BLCKSZ, k, &len)) == NULL || row >= batch->nrows ||
				row != batch->pagerows[i] + ga_page_rank(vis, k))
				return GA_ERR_INTERNAL;
			later.n = 0;
			got = ga_deform_tuple(L, tup, len, row, values, nulls, anynull, &s->hooks, &later);
			if (got == GA_DEFORM_OK && later.n > 0 && keeps_row(p, L, &view, row))
				got = ga_put_deferred(L, &later, row, values, nulls, anynull, &s->hooks);
			row++;
			if (got != GA_DEFORM_OK)
				return got == GA_DEFORM_STRING ? GA_ERR_STRING_BACK :
					got == GA_DEFORM_NUMERIC ? GA_ERR_NUMERIC_EXACT : GA_ERR_INTERNAL;
		}
	}
	memset(out, 0, sizeof(GaBatch));
	out->nrows = batch->nrows;
	for (uint32 c = 0; c < p->ncols; c++)
	{
		out->values[c] = values[c];
		/* (a dimension's column: the join writes its bitmap, zeroed) */
		out->nulls[c] = anynull[c] || p->cols[c].dim ? nulls[c] : NULL;
	}
	return GA_OK;
}

static void *
cpu_open(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
		 GpuaggDeviceStats *stats, char **error)
{
	MemoryContext old = MemoryContextSwitchTo(cxt);
	CpuSession *s = palloc0(sizeof(CpuSession));
	uint32		initial;

	s->prog = *prog;
	s->cxt = cxt;
	s->capacity = 1024;
	s->keys = palloc(sizeof(GaDatum) * s->capacity * Max(prog->nkeys, 1));
	s->keynulls = palloc(s->capacity * Max(prog->nkeys, 1));
	s->states = palloc0(sizeof(uint64) * s->capacity * Max(prog->nslots, 1));
	if (prog->nkeys == 0)
		new_group(s);			/* a plain aggregate has exactly one group */
	else
	{
		initial = (uint32) Min(Max(est->groups, 256.0), 1 << 24);
		s->table = cpugroup_create(cxt, initial, s);
	}
	if (prog->ndistinct > 0)
		s->distinct = cpudistinct_create(cxt, 1024, s);
	if (est->max_pages > 0)
	{
		/* the host's strings first, so that they keep their codes */
		s->strings = GpuaggDictCreate(cxt);
		s->hooks.code = cpu_string_code;
		s->hooks.bpcodes = cpu_bpchar_codes;
		s->hooks.bytes = cpu_bytes_code;
		s->hooks.arg = s;
		GpuaggDictDeserialize(s->strings, est->seed, est->nseed);
		s->nseed = est->nseed;
	}
	MemoryContextSwitchTo(old);
	return s;
}

static char *
cpu_batch_buffer(void *session, Size size)
{
	CpuSession *s = (CpuSession *) session;

	if (s->buffer_size < size)
	{
		if (s->buffer)
			pfree(s->buffer);
		s->buffer = MemoryContextAllocHuge(s->cxt, size);
		s->buffer_size = size;
	}
	return s->buffer;
}

static int	cpu_add_dim(void *session, int d, const GaDimData *rows, GpuaggDeviceStats *stats);

/*
 * A joined table this device scans itself (GaBatch.dim_scan): its program,
 * a page batch of it (each row its WHERE keeps, of no NULL key, is the
 * dimension's), or their end (the hash table, as cpu_add_dim makes it).
 */
static int
cpu_scan_dim(CpuSession *s, const GaBatch *batch, GpuaggDeviceStats *stats)
{
	int			d = (int) batch->dim - 1;
	const GaDimDesc *dd = &s->prog.dims[d];
	GaDimData  *dm = &s->dims.dim[d];
	GaBatch		columns;
	instr_time	start,
				end;
	int			err = GA_OK;

	if (d >= (int) s->prog.ndims || !dd->scan || d != (int) s->dims_ready ||
		(batch->dim_scan != 3 && s->dimprog[d] == NULL))
		elog(ERROR, "gpuagg: a joined table's rows came out of order");
	if (batch->dim_scan == 3)
	{
		s->dimprog[d] = MemoryContextAlloc(s->cxt, sizeof(GaProgram));
		memcpy(s->dimprog[d], batch->values[0], sizeof(GaProgram));
		s->dim_n[d] = 0;
		memset(dm, 0, sizeof(GaDimData));
		s->dim_cap[d] = GpuaggDimRoom(dd, dm, 0, Min(Max(batch->dim_rows, 1024), 1 << 20),
									  s->cxt);
		return GA_OK;
	}
	if (batch->dim_scan == 2)
	{
		GaDimData	rows = *dm;

		rows.nrows = s->dim_n[d];
		return cpu_add_dim(s, d, &rows, stats);
	}
	INSTR_TIME_SET_CURRENT(start);
	if (!batch->pagelist || (err = deform_pages(s, s->dimprog[d], batch, &columns)) != GA_OK)
		return batch->pagelist ? err : GA_ERR_INTERNAL;
	for (uint32 row = 0; row < columns.nrows; row++)
	{
		bool		keep;

		if ((err = ga_dim_keeps(s->dimprog[d], dd, &columns, row, &keep)) != GA_OK)
			break;
		if (!keep)
			continue;
		if (s->dim_n[d] == s->dim_cap[d])
			s->dim_cap[d] = GpuaggDimRoom(dd, dm, s->dim_cap[d], 2 * s->dim_cap[d], s->cxt);
		ga_dim_store(s->dimprog[d], dd, dm, &columns, row, s->dim_n[d]++);
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	stats->device_ms += INSTR_TIME_GET_MILLISEC(end);
	return err;
}

/*
 * Fold a row of the batch (of a join, one of the rows it makes: its
 * dimensions' columns in the batch): WHERE, group, FILTERs, arguments,
 * count(DISTINCT) sets, states.  GA_OK or the row's error; *passed counts
 * it where the WHERE holds.
 */
static int
cpu_fold_row(CpuSession *s, const GaBatch *batch, uint32 row, GaDatum *regs, uint8 *nulls,
			 uint64 *passed)
{
	const GaProgram *p = &s->prog;
	uint32		g = 0;
	uint64	   *st;
	int			err = GA_OK;

	if (!ga_where_keeps(p, batch, row, regs, nulls, &err))
		return err;
	(*passed)++;
	if (p->nkeys > 0)
	{
		CpuGroupEntry *e;
		bool		found;

		if ((err = ga_eval(p, &p->keyseg, batch, row, regs, nulls)) != GA_OK)
			return err;
		for (uint32 k = 0; k < p->nkeys; k++)
		{
			int			r = p->keyreg[k];

			s->probenull[k] = nulls[r];
			/* the group keeps its first value (-0 or 0), as native does */
			s->probe[k] = nulls[r] ? (GaDatum) {0} : regs[r];
		}
		e = cpugroup_insert(s->table, PROBE_KEY, &found);
		if (!found)
			e->group = new_group(s);
		g = e->group;
	}

	st = s->states + (Size) g * p->nslots;
	for (uint32 a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];
		GaDatum		v = {0};

		if (ag->filter.reg >= 0)
		{
			if ((err = ga_eval(p, &ag->filter, batch, row, regs, nulls)) != GA_OK)
				return err;
			if (nulls[ag->filter.reg] || !regs[ag->filter.reg].i)
				continue;
		}
		if (ag->arg.reg >= 0)
		{
			if ((err = ga_eval(p, &ag->arg, batch, row, regs, nulls)) != GA_OK)
				return err;
			/* every supported aggregate skips NULLs, of either argument */
			if (nulls[ag->arg.reg] || (ag->arg2 >= 0 && nulls[ag->arg2]))
				continue;
			v = regs[ag->arg.reg];
		}
		if (ag->distinct >= 0)
		{
			/* count(DISTINCT): count a value the first time in its group */
			CpuDistinctKey dk;
			CpuDistinctEntry *e;
			bool		found;

			dk.value = ga_canonical_key(ag->argtype, v).u;
			dk.group = g;
			dk.agg = a;
			e = cpudistinct_insert(s->distinct, dk, &found);
			if (!found)
				e->rows = 0;
			e->rows++;
			/*
			 * the others the host folds from the set (ga_agg_host_folds)
			 * or cpu_finish selects from it (ordered-set aggregates)
			 */
			if (found || ga_agg_set_pairs(ag))
				continue;
		}
		if ((err = ga_agg_update_xy(ag, st + ag->slot, 1, v,
									ag->arg2 >= 0 ? regs[ag->arg2] : ga_datum_zero())) != GA_OK)
			return err;
	}
	return GA_OK;
}

static int
cpu_add_batch(void *session, const GaBatch *batch, GpuaggDeviceStats *stats)
{
	CpuSession *s = (CpuSession *) session;
	const GaProgram *p = &s->prog;
	GaDatum		regs[GA_MAX_REGS];
	uint8		nulls[GA_MAX_REGS];
	instr_time	start,
				end;
	uint64		passed = 0;
	uint64		folds = 0;
	int			err = GA_OK;
	GaBatch		columns;

	if (batch->dim)
		return cpu_scan_dim(s, batch, stats);
	if (s->dims_ready != p->ndims)
		elog(ERROR, "gpuagg: rows came before the joined tables'");
	/* (an inner or semi join with an empty table: no row to fold) */
	if (p->ndims > 0 && ga_join_none(p, &s->dims))
	{
		stats->rows_in += batch->nrows;
		return GA_OK;
	}
	INSTR_TIME_SET_CURRENT(start);
	if (batch->pagelist)
	{
		if ((err = deform_pages(s, &s->prog, batch, &columns)) != GA_OK)
			return err;
		batch = &columns;
	}
	memset(regs, 0, sizeof(regs));
	memset(nulls, 0, sizeof(nulls));
	for (uint32 row = 0; row < batch->nrows && err == GA_OK; row++)
	{
		GaJoinIter	it;
		bool		more = true;

		/* the row, or each row of the join it makes (gpuagg_join.h) */
		if (p->ndims > 0)
			more = ga_where_upto(p, p->where_joined, batch, row, regs, nulls, &err) &&
				ga_join_next(p, &s->dims, batch, row, &it, true, regs, nulls, &err);
		while (more && err == GA_OK)
		{
			/* (a join's rows may be many more than the batch's) */
			if ((++folds & 65535) == 0)
				CHECK_FOR_INTERRUPTS();
			err = cpu_fold_row(s, batch, row, regs, nulls, &passed);
			more = err == GA_OK && p->ndims > 0 &&
				ga_join_next(p, &s->dims, batch, row, &it, false, regs, nulls, &err);
		}
	}
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	stats->rows_in += batch->nrows;
	stats->rows_passed += passed;
	stats->device_ms += INSTR_TIME_GET_MILLISEC(end);
	return err;
}

/* A dimension's rows: kept where they lie, and its hash table made. */
static int
cpu_add_dim(void *session, int d, const GaDimData *rows, GpuaggDeviceStats *stats)
{
	CpuSession *s = (CpuSession *) session;
	GaDimData  *dm = &s->dims.dim[d];
	instr_time	start,
				end;

	if (d != (int) s->dims_ready || d >= (int) s->prog.ndims)
		elog(ERROR, "gpuagg: a joined table's rows came out of order");
	if (rows->nrows >= PG_UINT32_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("gpuagg: a joined table has more rows than a device holds")));
	INSTR_TIME_SET_CURRENT(start);
	*dm = *rows;
	dm->dup = &s->dim_dup;
	s->dim_dup = 0;
	dm->cap = ga_dim_cap(rows->nrows);
	dm->slots = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * dm->cap);
	memset(dm->slots, 0, sizeof(uint32) * dm->cap);
	dm->next = MemoryContextAllocHuge(s->cxt, sizeof(uint32) * Max(rows->nrows, 1));
	memset(dm->next, 0, sizeof(uint32) * Max(rows->nrows, 1));
	for (uint64 row = 0; row < rows->nrows; row++)
	{
		ga_dim_insert(&s->prog.dims[d], dm, row);
		if ((row & 65535) == 65535)
			CHECK_FOR_INTERRUPTS();
	}
	dm->multi = s->dim_dup;
	s->dims_ready++;
	INSTR_TIME_SET_CURRENT(end);
	INSTR_TIME_SUBTRACT(end, start);
	stats->device_ms += INSTR_TIME_GET_MILLISEC(end);
	return GA_OK;
}

/*
 * GPU Top-N as a GPU chooses (gpuagg_topn.h; engine.c's topn_select): keep
 * only the result's groups that can rank among the n.
 */
static int
topn_choose(const GaProgram *p, GaResult *res)
{
	uint64		n = res->ngroups;
	uint32		nk = p->nkeys;
	uint32		ns = p->nslots;
	uint64		hist[GA_TOPN_HIST];
	uint64		m = 0,
				keep;
	GaTopNBound b;
	GaDatum    *keys;
	uint8	   *keynulls;
	uint64	   *states;

	ga_topn_start(&b, n);
	for (;;)
	{
		bool		first = ga_topn_first(&b);

		memset(hist, 0, sizeof(hist));
		for (uint64 g = 0; g < n; g++)
		{
			int			d = ga_topn_digit(p, &b, (const uint64 *) res->keys, res->keynulls, res->states, n, g);

			if (d >= 0)
				hist[d]++;
			if (first && ga_group_overflowed(p, res->states, n, g))
				hist[256]++;
		}
		if (ga_topn_step(p, &b, hist))
			break;
	}
	keep = b.below + b.within;
	keys = palloc_extended(sizeof(GaDatum) * keep * Max(nk, 1), MCXT_ALLOC_HUGE);
	keynulls = palloc_extended(keep * Max(nk, 1), MCXT_ALLOC_HUGE);
	states = palloc_extended(sizeof(uint64) * keep * Max(ns, 1), MCXT_ALLOC_HUGE);
	for (uint64 g = 0; g < n; g++)
	{
		if (!ga_topn_keeps(p, &b, (const uint64 *) res->keys, res->keynulls, res->states, n, g))
			continue;
		if (m == keep)
			return GA_ERR_INTERNAL;
		for (uint32 k = 0; k < nk; k++)
		{
			keys[k * keep + m] = res->keys[k * n + g];
			keynulls[k * keep + m] = res->keynulls[k * n + g];
		}
		for (uint32 j = 0; j < ns; j++)
			states[j * keep + m] = res->states[j * n + g];
		m++;
	}
	if (m != keep)
		return GA_ERR_INTERNAL;
	pfree(res->keys);
	pfree(res->keynulls);
	pfree(res->states);
	res->keys = keys;
	res->keynulls = keynulls;
	res->states = states;
	res->ngroups = m;
	return GA_OK;
}

/*
 * An ordered-set aggregate's states in states (ngroups groups) from its
 * counted set's m entries (group, value, rows), as engine.c's kernels make
 * them: each group's n, then the percentile's rows by radix select
 * (ga_osa_digit, ga_osa_pick) or the mode.
 */
static void
cpu_select(const GaAgg *ag, uint64 m, const uint64 *group, const uint64 *value,
		   const uint64 *rows, uint64 *states, uint64 ngroups)
{
	uint64	   *n = states + (Size) ag->slot * ngroups;
	uint64	   *v[2] = {n + ngroups, n + 2 * ngroups};
	int			ntargets = ag->kind == GA_AGG_PCT_CONT ? 2 : 1;
	uint64	   *rest,
			   *hist;

	for (uint64 i = 0; i < m; i++)
		if (group[i] >= ngroups)
			elog(ERROR, "gpuagg: an ordered-set entry names group " UINT64_FORMAT " of " UINT64_FORMAT,
				 group[i], ngroups);
	for (uint64 i = 0; i < m; i++)
		n[group[i]] += rows[i];
	if (ag->kind == GA_AGG_MODE)
	{
		for (uint64 i = 0; i < m; i++)
			v[0][group[i]] = Max(v[0][group[i]], rows[i]);
		for (uint64 g = 0; g < ngroups; g++)
			v[1][g] = PG_UINT64_MAX;
		for (uint64 i = 0; i < m; i++)
			if (rows[i] == v[0][group[i]])
				v[1][group[i]] = Min(v[1][group[i]],
									 ga_order_bits(ag->argtype, (GaDatum) {.u = value[i]},
												   ag->desc));
		return;
	}
	rest = palloc_extended(sizeof(uint64) * 2 * Max(ngroups, 1), MCXT_ALLOC_HUGE);
	hist = palloc_extended(sizeof(uint64) * GA_OSA_DIGITS * 2 * Max(ngroups, 1),
						   MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	for (uint64 g = 0; g < ngroups; g++)
	{
		rest[g] = rest[ngroups + g] = 0;
		if (n[g] > 0)
			ga_osa_rows(ag, n[g], &rest[g], &rest[ngroups + g]);
		v[0][g] = v[1][g] = 0;
	}
	for (int pass = 0; pass < GA_OSA_PASSES; pass++)
	{
		CHECK_FOR_INTERRUPTS();
		for (uint64 i = 0; i < m; i++)
		{
			uint64		bits = ga_order_bits(ag->argtype, (GaDatum) {.u = value[i]}, ag->desc);

			for (int t = 0; t < ntargets; t++)
			{
				int			d = ga_osa_digit(bits, v[t][group[i]], pass);

				if (d >= 0)
					hist[((Size) t * ngroups + group[i]) * GA_OSA_DIGITS + d] += rows[i];
			}
		}
		for (int t = 0; t < ntargets; t++)
			for (uint64 g = 0; g < ngroups; g++)
				ga_osa_pick(hist + ((Size) t * ngroups + g) * GA_OSA_DIGITS,
							&rest[(Size) t * ngroups + g], &v[t][g], pass);
	}
	pfree(rest);
	pfree(hist);
}

static int
cpu_finish(void *session, GaResult *result, GpuaggDeviceStats *stats)
{
	CpuSession *s = (CpuSession *) session;
	uint32		nk = s->prog.nkeys;
	uint32		ns = s->prog.nslots;
	uint32		n = GpuaggResultGroups(&s->prog, result, s->ngroups);
	uint32	   *kept = NULL;
	int			err;
	MemoryContext old = MemoryContextSwitchTo(s->cxt);

	/* HAVING checks (GaProgram.having): the groups that pass them */
	if (s->prog.nhaving > 0)
	{
		uint32		m = 0;

		for (uint32 a = 0; a < s->prog.naggs; a++)
			if (ga_agg_set_pairs(&s->prog.aggs[a]))
			{
				MemoryContextSwitchTo(old);
				return GA_ERR_INTERNAL; /* (their pairs name all groups) */
			}
		kept = palloc(sizeof(uint32) * Max(n, 1));
		for (uint32 g = 0; g < n; g++)
			if (ga_having_keeps(&s->prog, s->states + (Size) g * ns, 1, 0))
				kept[m++] = g;
		n = m;
	}

	/*
	 * transpose the group rows into the struct-of-arrays result layout (the
	 * first n: all, as many as a LIMIT without ORDER BY lets out, or those
	 * that pass HAVING)
	 */
	result->ngroups = n;
	result->keys = palloc_extended(sizeof(GaDatum) * (Size) n * Max(nk, 1),
								   MCXT_ALLOC_HUGE);
	result->keynulls = palloc_extended((Size) n * Max(nk, 1), MCXT_ALLOC_HUGE);
	result->states = palloc_extended(sizeof(uint64) * (Size) n * Max(ns, 1),
									 MCXT_ALLOC_HUGE);
	for (uint32 g = 0; g < n; g++)
	{
		uint32		from = kept ? kept[g] : g;

		for (uint32 k = 0; k < nk; k++)
		{
			result->keys[(Size) k * n + g] = s->keys[(Size) from * nk + k];
			result->keynulls[(Size) k * n + g] = s->keynulls[(Size) from * nk + k];
		}
		for (uint32 j = 0; j < ns; j++)
			result->states[(Size) j * n + g] = s->states[(Size) from * ns + j];
	}
	if (kept)
		pfree(kept);
	result->groups_all = s->ngroups;
	if (ga_topn_applies(&s->prog, n) && (err = topn_choose(&s->prog, result)) != GA_OK)
	{
		MemoryContextSwitchTo(old);
		return err;
	}

	/*
	 * DISTINCT aggregates the host folds: the (group, value) pairs of their
	 * sets; ordered-set aggregates: selected from theirs here
	 */
	for (uint32 a = 0; a < s->prog.naggs; a++)
	{
		const GaAgg *ag = &s->prog.aggs[a];
		cpudistinct_iterator it;
		CpuDistinctEntry *e;
		uint64		cap = 1024,
					m = 0;
		uint64	   *group,
				   *value,
				   *rows;

		if (!ga_agg_set_pairs(ag))
			continue;
		group = palloc(sizeof(uint64) * cap);
		value = palloc(sizeof(uint64) * cap);
		rows = palloc(sizeof(uint64) * cap);
		cpudistinct_start_iterate(s->distinct, &it);
		while ((e = cpudistinct_iterate(s->distinct, &it)) != NULL)
		{
			if (e->key.agg != a)
				continue;
			if (m == cap)
			{
				cap *= 2;
				group = repalloc_huge(group, sizeof(uint64) * cap);
				value = repalloc_huge(value, sizeof(uint64) * cap);
				rows = repalloc_huge(rows, sizeof(uint64) * cap);
			}
			group[m] = e->key.group;
			value[m] = e->key.value;
			rows[m] = e->rows;
			m++;
		}
		if (ga_agg_ordered(ag->kind) && !ag->host_select)
		{
			cpu_select(ag, m, group, value, rows, result->states, n);
			pfree(group);
			pfree(value);
			pfree(rows);
			continue;
		}
		result->pairgroup[ag->distinct] = group;
		result->pairvalue[ag->distinct] = value;
		result->npairs[ag->distinct] = m;
		if (ga_agg_ordered(ag->kind))
			result->pairrows[ag->distinct] = rows;
		else
			pfree(rows);
	}

	/*
	 * page form: the strings coded after the host's, as a GPU returns them:
	 * all, or those the keys of the groups returned show where they are few
	 */
	if (s->strings && GpuaggDictCount(s->strings) > s->nseed)
	{
		uint64		m = GpuaggDictCount(s->strings) - s->nseed;
		uint64		nout = m;
		uint32	   *sel = NULL;
		uint32	   *found;
		Size		bytes = 0;
		int			nsel;

		result->strings_first = s->nseed;
		result->nstrings = m;
		if (result->keys_strings_only &&
			(nsel = GpuaggKeyStrings(&s->prog, result, GPUAGG_STRINGS_SELECTED, &found)) >= 0 &&
			(uint64) nsel * GPUAGG_STRINGS_SPARSE <= m)
		{
			result->strings_selected = true;
			result->nstrsel = nsel;
			result->strsel = sel = found;
			nout = nsel;
		}
		result->strlen = palloc_extended(4 * Max(nout, 1), MCXT_ALLOC_HUGE);
		result->strat = palloc_extended(8 * Max(nout, 1), MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < nout; i++)
		{
			Datum		v = GpuaggDictValue(s->strings, s->nseed + (sel ? sel[i] : i));

			result->strlen[i] = VARSIZE_ANY_EXHDR(DatumGetPointer(v));
			result->strat[i] = bytes;
			bytes += result->strlen[i];
		}
		result->nstrbytes = bytes;
		result->strbytes = palloc_extended(Max(bytes, 1), MCXT_ALLOC_HUGE);
		for (uint64 i = 0; i < nout; i++)
			memcpy(result->strbytes + result->strat[i],
				   VARDATA_ANY(DatumGetPointer(GpuaggDictValue(s->strings,
															   s->nseed + (sel ? sel[i] : i)))),
				   result->strlen[i]);
	}
	MemoryContextSwitchTo(old);
	return GA_OK;
}

static void
cpu_close(void *session)
{
	/* everything lives in the session's memory context */
	(void) session;
}

/* The CPU device deforms pages itself: always. */
static bool
cpu_takes_pages(void)
{
	return true;
}

const GpuaggDevice GpuaggCpuDevice = {
	.name = "cpu",
	.gpu = false,
	.takes_pages = cpu_takes_pages,
	.open = cpu_open,
	.batch_buffer = cpu_batch_buffer,
	.add_batch = cpu_add_batch,
	.add_dim = cpu_add_dim,
	.finish = cpu_finish,
	.close = cpu_close,
	.error_detail = NULL,
};
