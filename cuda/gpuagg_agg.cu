/*-------------------------------------------------------------------------
 *
 * gpuagg_agg.cu
 *		Hash aggregation kernels of the CUDA device.
 *
 * One thread per row (grid-stride) evaluates the program's WHERE, group
 * keys, FILTERs and arguments with the shared interpreter (gpuagg_eval.h),
 * finds or claims the group's slot in an open-addressing table, and folds
 * the values into the group's states with the same update rules as the
 * CPU device: counts and integer sums with atomic adds, the others under
 * the slot's lock.
 *
 * When few groups are expected, each block aggregates into a table in
 * shared memory, since atomics and locks of the whole grid on a few global
 * slots serialize it.  The block's table lives on across batches: block b
 * loads table b of the session's block tables in device memory when it
 * starts and stores it back when it ends (the batches of a session run in
 * order), and gpuagg_block_fold adds every block table into the global
 * table, with the aggregates' combine rules, after the last batch.  A group
 * a block's table claims is made in the global table at once, so the
 * global table counts the groups as they come.  A row whose group does not
 * fit the block's table goes to the global table directly.  Where the
 * block tables do not fit the memory budget, each block merges its table
 * into the global table at the end of every batch instead.
 *
 * count(DISTINCT x) inserts (group keys, x) into the aggregate's distinct
 * set, a table of the same kind without states; after the last batch
 * gpuagg_distinct_fold counts each set entry into its group's count.
 *
 * The global table never fills inside a kernel: the host grows it (with
 * gpuagg_rehash) before a batch could push it past half full.  Errors set
 * the first error code in the table's counters; the host raises it.
 *
 * Includes nothing from PostgreSQL.
 *
 *-------------------------------------------------------------------------
 */
/* float aggregates note overflow in their state; the host decides at the end */
#define GA_DEFER_FLOAT_OVERFLOW 1
#include <cub/block/block_reduce.cuh>

#include "gpuagg_eval.h"

/*
 * The running query's program: read by every thread, so constant memory
 * (before gpuagg_join.h, whose out-of-line probe reads it there too).
 */
__constant__ GaProgram gpuagg_prog;
#define GA_JOIN_PROGRAM (&gpuagg_prog)

#include "gpuagg_join.h"
#include "gpuagg_page.h"
#include "gpuagg_topn.h"

/* the layout of programs and batches these kernels were built for */
extern "C" __device__ uint32_t gpuagg_abi_version = GA_ABI_VERSION;

/* A table's arrays: the global table, a block's shared one or a block table. */
struct GaView
{
	uint64_t	cap;
	uint32_t   *ctrl;
	uint32_t   *lock;
	uint32_t   *hash;
	uint64_t   *keys;
	uint8_t    *keynulls;
	uint64_t   *states;
	bool		block;			/* a block's shared table: fences of block scope */
};

static __device__ __forceinline__ uint32_t
vload32(const uint32_t *p)
{
	return *(const volatile uint32_t *) p;
}

/*
 * Keep the error of the earliest row: PostgreSQL raises the first error in
 * scan order.  The counter holds (row << 8 | code) and starts at all ones.
 */
static __device__ __forceinline__ void
report(const GaTable &t, uint64_t row, int err)
{
	atomicMin(&t.counters[GA_CNT_ERROR],
			  (unsigned long long) ((row << 8) | (uint64_t) err));
}

/* errors found after the rows (merging partial states) rank last */
#define GA_ROW_LAST		(UINT64_MAX >> 8)

/*
 * Order a table's writes before what follows: for a block's shared table
 * only its threads look, and a fence of block scope is much cheaper than
 * one of device scope (three a row on the few-groups path).
 */
static __device__ __forceinline__ void
table_fence(bool block)
{
	if (block)
		__threadfence_block();
	else
		__threadfence();
}

static __device__ __forceinline__ void
slot_lock(uint32_t *l, bool block)
{
	while (atomicCAS(l, 0u, 1u) != 0u)
		;
	table_fence(block);
}

static __device__ __forceinline__ void
slot_unlock(uint32_t *l, bool block)
{
	table_fence(block);
	atomicExch(l, 0u);
}

/*
 * The ga_agg_lockfree kinds fold with atomic adds alone: a 128-bit sum adds
 * its low word, then the high word with the carry that add made, which
 * sums exactly in any order.  Their states are always written so, by rows
 * and merges alike, and take no lock (a lock a row on a hundred groups
 * serialized a block's threads); the other kinds fold under the slot's
 * lock.
 */
static __device__ __forceinline__ void
atomic_add128(uint64_t *lo, uint64_t *hi, uint64_t add_lo, uint64_t add_hi)
{
	unsigned long long old = atomicAdd((unsigned long long *) lo, (unsigned long long) add_lo);

	add_hi += (old + add_lo < old);
	if (add_hi)
		atomicAdd((unsigned long long *) hi, (unsigned long long) add_hi);
}

/* ga_agg_combine of a ga_agg_lockfree kind: state src into dst, atomically */
static __device__ void
atomic_combine(const GaAgg *ag, uint64_t *dst, uint64_t ds, const uint64_t *src, uint64_t ss)
{
	atomicAdd((unsigned long long *) dst, (unsigned long long) src[0]);
	if (ag->kind == GA_AGG_SUM_I64)
		atomicAdd((unsigned long long *) (dst + ds), (unsigned long long) src[ss]);
	else if (ag->kind == GA_AGG_SUM_I128)
		atomic_add128(dst + ds, dst + 2 * ds, src[ss], src[2 * ss]);
}

/*
 * The slot of the group with this key, claimed if the key is new; -1 when
 * max_probe slots were probed without finding it or a free one.
 */
static __device__ int64_t
find_slot(const GaView &v, const GaDatum *key, const uint8_t *knull, uint32_t h,
		  uint32_t nkeys, unsigned long long *ngroups, uint64_t max_probe,
		  bool *made = NULL)
{
	uint64_t	mask = v.cap - 1;
	uint64_t	i = h & mask;
	volatile uint64_t *keys = v.keys;
	volatile uint8_t *keynulls = v.keynulls;

	for (uint64_t probe = 0; probe < max_probe; probe++, i = (i + 1) & mask)
	{
		uint32_t	c = vload32(&v.ctrl[i]);
		bool		same;

		if (c == 0)
		{
			if (atomicCAS(&v.ctrl[i], 0u, 1u) == 0u)
			{
				for (uint32_t k = 0; k < nkeys; k++)
				{
					keys[k * v.cap + i] = key[k].u;
					keynulls[k * v.cap + i] = knull[k];
				}
				((volatile uint32_t *) v.hash)[i] = h;
				table_fence(v.block);
				atomicExch(&v.ctrl[i], 2u);
				if (ngroups)
					atomicAdd(ngroups, 1ull);
				if (made)
					*made = true;
				return (int64_t) i;
			}
			c = vload32(&v.ctrl[i]);
		}
		while (c == 1)
			c = vload32(&v.ctrl[i]);
		table_fence(v.block);
		if (vload32(&v.hash[i]) != h)
			continue;
		same = true;
		for (uint32_t k = 0; k < nkeys && same; k++)
		{
			GaDatum		stored;

			stored.u = keys[k * v.cap + i];
			same = keynulls[k * v.cap + i] == knull[k] &&
				(knull[k] ||
				 ga_canonical_key(gpuagg_prog.keytype[k], stored).u ==
				 ga_canonical_key(gpuagg_prog.keytype[k], key[k]).u);
		}
		if (same)
			return (int64_t) i;
	}
	return -1;
}

/* A global table's arrays (fences of device scope). */
static __device__ GaView
table_view(const GaTable &t)
{
	GaView		v = {t.cap, t.ctrl, t.lock, t.hash, t.keys, t.keynulls, t.states, false};

	return v;
}

/*
 * A table of cap slots packed from p: a block's table in shared memory, or
 * in the session's block tables (the host sizes them the same:
 * ga_slot_bytes a slot).
 */
static __device__ GaView
packed_view(unsigned char *p, uint64_t cap, uint32_t nkeys, uint32_t nslots, bool block)
{
	GaView		s;

	s.cap = cap;
	s.states = (uint64_t *) p;
	p += 8 * cap * nslots;
	s.keys = (uint64_t *) p;
	p += 8 * cap * nkeys;
	s.ctrl = (uint32_t *) p;
	p += 4 * cap;
	s.lock = (uint32_t *) p;
	p += 4 * cap;
	s.hash = (uint32_t *) p;
	p += 4 * cap;
	s.keynulls = (uint8_t *) p;
	s.block = block;
	return s;
}

/* A block's table of cap slots in 16-byte words (cap >= 128: a whole number). */
static __device__ __forceinline__ uint64_t
table_words(uint64_t cap)
{
	return ga_slot_bytes(gpuagg_prog.nkeys, gpuagg_prog.nslots) * cap / 16;
}

/* Block table r of those at blocks, each of cap slots. */
static __device__ GaView
block_view(unsigned char *blocks, uint32_t r, uint64_t cap)
{
	const GaProgram *p = &gpuagg_prog;

	return packed_view(blocks + (uint64_t) r * ga_slot_bytes(p->nkeys, p->nslots) * cap,
					   cap, p->nkeys, p->nslots, false);
}

/*
 * Fold src, a partial state of every aggregate (stride ss), into slot i of
 * table v: the lock-free kinds atomically, the others under the slot's
 * lock, taken only when the program has such aggregates.
 */
static __device__ void
merge_states(const GaProgram *p, const GaTable &t, const GaView &v, uint64_t i,
			 const uint64_t *src, uint64_t ss, bool locked)
{
	if (locked)
		slot_lock(&v.lock[i], v.block);
	for (uint32_t a = 0; a < p->naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];
		const uint64_t *from = src + (uint64_t) ag->slot * ss;
		uint64_t   *to = v.states + (uint64_t) ag->slot * v.cap + i;
		int			err;

		if (ga_agg_lockfree(ag->kind))
			atomic_combine(ag, to, v.cap, from, ss);
		else if ((err = ga_agg_combine(ag, to, v.cap, from, ss)))
			report(t, GA_ROW_LAST, err);
	}
	if (locked)
		slot_unlock(&v.lock[i], v.block);
}

/* The keys of entry i of a table whose arrays are cap slots long. */
static __device__ __forceinline__ void
entry_keys(const uint64_t *keys, const uint8_t *keynulls, uint64_t cap, uint64_t i,
		   uint32_t nkeys, GaDatum *key, uint8_t *knull)
{
	for (uint32_t k = 0; k < nkeys; k++)
	{
		key[k].u = keys[k * cap + i];
		knull[k] = keynulls[k * cap + i];
	}
}

/* Hash of a group's keys, before folding to 32 bits. */
static __device__ __forceinline__ uint64_t
key_hash(const GaDatum *key, const uint8_t *knull, uint32_t nkeys)
{
	uint64_t	hh = 0;

	for (uint32_t k = 0; k < nkeys; k++)
		hh = ga_mix64(hh ^ (knull[k] ? UINT64_C(0x9e3779b97f4a7c15) :
							ga_canonical_key(gpuagg_prog.keytype[k], key[k]).u) ^ k);
	return hh;
}

/*
 * Record value v of DISTINCT or ordered-set aggregate ag for the group
 * with key; a counted set (an ordered-set aggregate's) counts its rows.
 */
static __device__ void
distinct_insert(const GaDistinctSets &sets, const GaTable &t, const GaAgg *ag,
				GaDatum *key, uint8_t *knull, uint64_t hh, GaDatum v, uint64_t row)
{
	const GaTable &d = sets.set[ag->distinct];
	GaView		dv = table_view(d);
	uint32_t	nkeys = d.nkeys - 1;
	int64_t		slot;

	/* the value is the set's last key, stored canonical: -0 is 0, one NaN */
	key[nkeys] = ga_canonical_key(ag->argtype, v);
	knull[nkeys] = 0;
	slot = find_slot(dv, key, knull, ga_distinct_hash(hh, ag->argtype, v, ag->distinct),
					 d.nkeys, &t.counters[d.count_at], d.cap);
	if (slot < 0)
		report(t, row, GA_ERR_INTERNAL);
	else if (d.nslots > 0)
		atomicAdd((unsigned long long *) &d.states[slot], 1ull);
}

/* What one thread of gpuagg_aggregate works with, besides its row. */
typedef struct GaRowCtx
{
	const GaBatch *batch;
	const GaTable *t;
	const GaDistinctSets *sets;
	GaView		g;				/* the global table */
	GaView		s;				/* the block's table, when shared_cap > 0 */
	bool		kept;			/* ... kept in the block tables across batches */
	uint64_t   *priv;			/* the one group's state, without keys */
	bool		have_priv;
	unsigned long long passed;
	const GaDims *dims;			/* a join the device runs (gpuagg_join.h) */
} GaRowCtx;

/*
 * The slot of the group in the block's table, claimed if new, or -1 when
 * the table has no room.  A table kept across batches makes a group it
 * claims in the global table too (gpuagg_block_fold adds its states there
 * after the last batch).
 */
static __device__ __noinline__ void
make_global(const GaRowCtx *c, const GaDatum *key, const uint8_t *knull, uint32_t h,
			uint32_t nkeys)
{
	if (find_slot(c->g, key, knull, h, nkeys, &c->t->counters[GA_CNT_GROUPS], c->g.cap) < 0)
		report(*c->t, GA_ROW_LAST, GA_ERR_INTERNAL);
}

static __device__ int64_t
block_slot(const GaRowCtx *c, const GaDatum *key, const uint8_t *knull, uint32_t h,
		   uint32_t nkeys)
{
	bool		made = false;
	int64_t		slot = find_slot(c->s, key, knull, h, nkeys, NULL, c->s.cap, &made);

	/* (once a group a block: out of line, keeping the row's path short) */
	if (made && c->kept)
		make_global(c, key, knull, h, nkeys);
	return slot;
}

/*
 * Fold one row (of a join, one of the table's row's): WHERE, keys, FILTERs
 * and arguments (all before the lock), count(DISTINCT) values into their
 * sets, into the one group's private state or the group's slot, in the
 * block's table or the global one: the lock-free states atomically, the
 * others under the slot's lock.  regs, nulls: the evaluation's scratch.
 */
static __device__ __forceinline__ void
fold_match(GaRowCtx *c, uint32_t row, uint64_t grow, GaDatum *regs, uint8_t *nulls)
{
	const GaProgram *p = &gpuagg_prog;
	const uint32_t nkeys = p->nkeys;
	const uint32_t naggs = p->naggs;
	const GaView *v = &c->g;
	GaDatum		vals[GA_MAX_AGGS];
	GaDatum		xs[GA_MAX_PAIRS];	/* two-argument aggregates' X (GaAgg.pair) */
	uint8_t		use[GA_MAX_AGGS];
	GaDatum		key[GA_MAX_KEYS + 1];	/* + a distinct set's value */
	uint8_t		knull[GA_MAX_KEYS + 1];
	uint64_t	hh = 0;
	uint32_t	h;
	bool		any;
	int			err;
	int64_t		slot = -1;

	err = GA_OK;
	if (!ga_where_keeps(p, c->batch, row, regs, nulls, &err))
	{
		if (err)
			report(*c->t, grow, err);
		return;
	}
	c->passed++;

	if (nkeys > 0)
	{
		err = ga_eval(p, &p->keyseg, c->batch, row, regs, nulls);
		if (err)
		{
			report(*c->t, grow, err);
			return;
		}
		for (uint32_t k = 0; k < nkeys; k++)
		{
			int			r = p->keyreg[k];

			knull[k] = nulls[r];
			key[k].u = 0;
			if (!knull[k])
				key[k] = regs[r];	/* a group keeps its first value */
		}
		hh = key_hash(key, knull, nkeys);
	}
	h = (uint32_t) (hh ^ (hh >> 32));

	/* FILTERs and arguments first, so the lock is held only to update */
	err = GA_OK;
	for (uint32_t a = 0; a < naggs && err == GA_OK; a++)
	{
		const GaAgg *ag = &p->aggs[a];

		use[a] = 0;
		if (ag->filter.reg >= 0)
		{
			err = ga_eval(p, &ag->filter, c->batch, row, regs, nulls);
			if (err || nulls[ag->filter.reg] || !regs[ag->filter.reg].i)
				continue;
		}
		vals[a].u = 0;
		if (ag->arg.reg >= 0)
		{
			err = ga_eval(p, &ag->arg, c->batch, row, regs, nulls);
			if (err || nulls[ag->arg.reg] || (ag->arg2 >= 0 && nulls[ag->arg2]))
				continue;
			vals[a] = regs[ag->arg.reg];
			if (ag->pair >= 0)
				xs[ag->pair] = regs[ag->arg2];
		}
		use[a] = 1;
	}
	if (err)
	{
		report(*c->t, grow, err);
		return;
	}

	/* count(DISTINCT): into the sets, counted at the end */
	any = false;
	for (uint32_t a = 0; a < naggs; a++)
	{
		if (use[a] && p->aggs[a].distinct >= 0)
		{
			distinct_insert(*c->sets, *c->t, &p->aggs[a], key, knull, hh, vals[a], grow);
			use[a] = 0;
		}
		any |= use[a];
	}

	if (nkeys == 0)
	{
		for (uint32_t a = 0; a < naggs; a++)
		{
			if (!use[a])
				continue;
			err = ga_agg_update_xy(&p->aggs[a], c->priv + p->aggs[a].slot, 1, vals[a],
								   p->aggs[a].pair >= 0 ? xs[p->aggs[a].pair] : ga_datum_zero());
			if (err)
				report(*c->t, grow, err);
		}
		c->have_priv = true;
		return;
	}

	if (c->s.cap > 0)
	{
		slot = block_slot(c, key, knull, h, nkeys);
		if (slot >= 0)
			v = &c->s;
	}
	if (slot < 0)
	{
		slot = find_slot(c->g, key, knull, h, nkeys, &c->t->counters[GA_CNT_GROUPS], c->g.cap);
		if (slot < 0)
		{
			report(*c->t, grow, GA_ERR_INTERNAL);
			return;
		}
	}

	/*
	 * The group exists now (count(DISTINCT) folds into it at the end); only
	 * a row with states of locked kinds to fold takes the lock, which
	 * matters for a hot group whose rows only feed distinct sets.
	 */
	if (!any)
		return;
	any = false;
	for (uint32_t a = 0; a < naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];

		if (!use[a])
			continue;
		if (ga_agg_lockfree(ag->kind))
		{
			uint64_t	one[3] = {1, (uint64_t) vals[a].i, vals[a].i < 0 ? ~(uint64_t) 0 : 0};

			atomic_combine(ag, v->states + (uint64_t) ag->slot * v->cap + slot, v->cap,
						   one, 1);
			use[a] = 0;
		}
		any |= use[a];
	}
	if (!any)
		return;
	slot_lock(&v->lock[slot], v->block);
	for (uint32_t a = 0; a < naggs; a++)
	{
		const GaAgg *ag = &p->aggs[a];

		if (use[a] && (err = ga_agg_update_xy(ag, v->states + (uint64_t) ag->slot * v->cap + slot,
											  v->cap, vals[a],
											  ag->pair >= 0 ? xs[ag->pair] : ga_datum_zero())))
			report(*c->t, grow, err);
	}
	slot_unlock(&v->lock[slot], v->block);
}

/*
 * Fold a row of the table: itself, or each row of the join it makes with
 * the dimensions the device holds (gpuagg_join.h).  One call site each
 * of ga_join_next and fold_match, inlined once.
 */
static __device__ __forceinline__ void
fold_row(GaRowCtx *c, uint32_t row, uint64_t grow)
{
	const GaProgram *p = &gpuagg_prog;
	GaDatum		regs[GA_MAX_REGS];
	uint8_t		nulls[GA_MAX_REGS];
	GaJoinIter	it;
	int			err = GA_OK;

	for (bool first = true;; first = false)
	{
		/* (the WHERE's quals of the table alone first, gpuagg_join.h) */
		if (p->ndims > 0 &&
			((first && !ga_where_upto(p, p->where_joined, c->batch, row, regs, nulls, &err)) ||
			 !ga_join_next(p, c->dims, c->batch, row, &it, first, regs, nulls, &err)))
			break;
		fold_match(c, row, grow, regs, nulls);
		if (p->ndims == 0)
			break;
	}
	if (err != GA_OK)
		report(*c->t, grow, err);
}

/*
 * A thread a row (grid-stride, a warp's rows together).  With shared_cap
 * > 0 each block aggregates into a table of its own in shared memory
 * first: block table blockIdx.x of blocks, loaded and stored back, or
 * (blocks NULL) a table of this batch only, merged into the global table
 * at the end.  Up to three blocks an SM where shared memory allows: at
 * most 85 registers a thread (80 with sm_90, no spills).
 */
extern "C" __global__ void __launch_bounds__(GA_BLOCK, 3)
gpuagg_aggregate(const __grid_constant__ GaBatch batch, const __grid_constant__ GaTable t,
				 uint32_t shared_cap, uint64_t row_base,
				 const __grid_constant__ GaDistinctSets sets, unsigned char *blocks,
				 const GaDims *dims)
{
	extern __shared__ __align__(16) unsigned char smem[];
	__shared__ unsigned long long block_passed;
	const GaProgram *p = &gpuagg_prog;
	const uint32_t nkeys = p->nkeys;
	GaDatum		key[GA_MAX_KEYS];
	uint8_t		knull[GA_MAX_KEYS];
	/* a plain aggregate has one group: each thread folds its rows privately */
	uint64_t	priv[GA_MAX_SLOTS];
	GaRowCtx	c;
	bool		locked = ga_program_locked(p);

	c.batch = &batch;
	c.t = &t;
	c.sets = &sets;
	c.g = table_view(t);
	c.s = table_view(t);
	c.s.cap = 0;
	c.kept = blocks != NULL;
	c.priv = priv;
	c.have_priv = false;
	c.passed = 0;
	c.dims = dims;
	if (threadIdx.x == 0)
		block_passed = 0;
	if (nkeys == 0)
		for (uint32_t k = 0; k < p->nslots; k++)
			priv[k] = 0;
	if (shared_cap > 0)
	{
		uint64_t	words = table_words(shared_cap);
		const uint4 *kept = blocks ? (const uint4 *) blocks + blockIdx.x * words : NULL;

		c.s = packed_view(smem, shared_cap, nkeys, p->nslots, true);
		for (uint64_t w = threadIdx.x; w < words; w += blockDim.x)
			((uint4 *) smem)[w] = kept ? kept[w] : make_uint4(0, 0, 0, 0);
	}
	__syncthreads();

	/*
	 * The rows are taken a warp at a time, and the warp's lanes meet after
	 * each: they leave fold_row at different points (WHERE, probes, a
	 * lock), and without the meeting they went on apart, each lane running
	 * the interpreter alone: with a locked float state 6 of the 32 lanes
	 * were active on average, and the kernel took three times as long.
	 */
	for (uint32_t base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < batch.nrows;
		 base += gridDim.x * blockDim.x)
	{
		uint32_t	row = base + (threadIdx.x & 31u);

		if (row < batch.nrows)
			fold_row(&c, row, row_base + row);
		__syncwarp();
	}

	if (c.have_priv)
	{
		/* the thread's share of the one group, into the block's or the global slot */
		const GaView *v = &c.s;
		int64_t		slot = -1;

		if (shared_cap > 0)
			slot = block_slot(&c, key, knull, 0, 0);
		if (slot < 0)
		{
			v = &c.g;
			slot = find_slot(c.g, key, knull, 0, 0, &t.counters[GA_CNT_GROUPS], c.g.cap);
		}
		if (slot < 0)
			report(t, GA_ROW_LAST, GA_ERR_INTERNAL);
		else
			merge_states(p, t, *v, slot, priv, 1, locked);
	}

	atomicAdd(&block_passed, c.passed);
	__syncthreads();
	if (threadIdx.x == 0)
		atomicAdd(&t.counters[GA_CNT_PASSED], block_passed);
	if (shared_cap == 0)
		return;

	/* the block's table kept for the next batch */
	if (blocks)
	{
		uint64_t	words = table_words(shared_cap);
		uint4	   *kept = (uint4 *) blocks + blockIdx.x * words;

		for (uint64_t w = threadIdx.x; w < words; w += blockDim.x)
			kept[w] = ((const uint4 *) smem)[w];
		return;
	}

	/* or merged into the global table (the group made and counted there) */
	for (uint32_t i = threadIdx.x; i < shared_cap; i += blockDim.x)
	{
		int64_t		gi;

		if (c.s.ctrl[i] != 2)
			continue;
		entry_keys(c.s.keys, c.s.keynulls, shared_cap, i, nkeys, key, knull);
		gi = find_slot(c.g, key, knull, c.s.hash[i], nkeys, &t.counters[GA_CNT_GROUPS], c.g.cap);
		if (gi < 0)
			report(t, GA_ROW_LAST, GA_ERR_INTERNAL);
		else
			merge_states(p, t, c.g, gi, c.s.states + i, shared_cap, locked);
	}
}

/* Dimension d's rows into its hash table (its slots zeroed). */
extern "C" __global__ void
gpuagg_dim_build(const GaDims *dims, uint32_t d)
{
	const GaDimData *dm = &dims->dim[d];

	for (uint64_t row = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; row < dm->nrows;
		 row += (uint64_t) gridDim.x * blockDim.x)
		ga_dim_insert(&gpuagg_prog.dims[d], dm, row);
}

/*
 * Dimension d's longest chain of rows of one key into *longest (zeroed):
 * how many rows of the join one row of the table can make of it.  Each row
 * is on one chain, walked from its key's slot.
 */
extern "C" __global__ void
gpuagg_dim_chains(const GaDims *dims, uint32_t d, unsigned int *longest)
{
	const GaDimData *dm = &dims->dim[d];

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < dm->cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	s = dm->slots[i];
		unsigned int n = 0;

		for (; s != 0; s = dm->next[s - 1])
			n++;
		if (n > 1)
			atomicMax(longest, n);
	}
}

/*
 * A batch of a dimension's table the device scans (GaDimDesc.scan): each
 * row dp's WHERE keeps, of no NULL key, appended to dimension d's rows
 * (*count of them so far; the host made room for every row of the batch),
 * a warp's rows with one atomic add.  Errors rank by row_base + row.
 */
extern "C" __global__ void __launch_bounds__(GA_BLOCK)
gpuagg_dim_scan(const __grid_constant__ GaBatch batch, const GaProgram *dp, const GaDims *dims,
				uint32_t d, unsigned long long *count, unsigned long long *counters,
				uint64_t row_base)
{
	const GaDimDesc *dd = &gpuagg_prog.dims[d];
	const GaDimData *dm = &dims->dim[d];
	const uint32_t lane = threadIdx.x & 31u;

	for (uint32_t base = blockIdx.x * blockDim.x + (threadIdx.x & ~31u); base < batch.nrows;
		 base += gridDim.x * blockDim.x)
	{
		uint32_t	row = base + lane;
		bool		keep = false;
		unsigned int mask;
		unsigned long long first = 0;

		if (row < batch.nrows)
		{
			int			err = ga_dim_keeps(dp, dd, &batch, row, &keep);

			if (err)
				atomicMin(&counters[GA_CNT_ERROR],
						  (unsigned long long) (((row_base + row) << 8) | (uint64_t) err));
		}
		mask = __ballot_sync(0xffffffffu, keep);
		if (lane == 0 && mask)
			first = atomicAdd(count, (unsigned long long) __popc(mask));
		first = __shfl_sync(0xffffffffu, first, 0);
		if (keep)
			ga_dim_store(dp, dd, dm, &batch, row, first + __popc(mask & ((1u << lane) - 1u)));
	}
}

/*
 * The nblocks block tables (of cap slots each) into the global table, whose
 * groups they all are; after the last batch.
 */
extern "C" __global__ void
gpuagg_block_fold(GaTable t, unsigned char *blocks, uint32_t cap, uint32_t nblocks)
{
	const GaProgram *p = &gpuagg_prog;
	GaView		g = table_view(t);
	GaDatum		key[GA_MAX_KEYS];
	uint8_t		knull[GA_MAX_KEYS];

	for (uint64_t e = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 e < (uint64_t) nblocks * cap; e += (uint64_t) gridDim.x * blockDim.x)
	{
		GaView		b = block_view(blocks, (uint32_t) (e / cap), cap);
		uint64_t	i = e % cap;
		int64_t		gi;

		if (b.ctrl[i] != 2)
			continue;
		entry_keys(b.keys, b.keynulls, cap, i, p->nkeys, key, knull);
		/* (block_slot made the group; one made here is counted) */
		gi = find_slot(g, key, knull, b.hash[i], p->nkeys, &t.counters[GA_CNT_GROUPS], g.cap);
		if (gi < 0)
			report(t, GA_ROW_LAST, GA_ERR_INTERNAL);
		else
			merge_states(p, t, g, gi, b.states + i, cap, ga_program_locked(p));
	}
}

/* Move every entry of table o into the larger, zeroed table n. */
extern "C" __global__ void
gpuagg_rehash(GaTable o, GaTable n)
{
	GaView		nv = table_view(n);
	GaDatum		key[GA_MAX_KEYS + 1];
	uint8_t		knull[GA_MAX_KEYS + 1];

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < o.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		j;

		if (o.ctrl[i] != 2)
			continue;
		entry_keys(o.keys, o.keynulls, o.cap, i, o.nkeys, key, knull);
		j = find_slot(nv, key, knull, o.hash[i], o.nkeys, NULL, n.cap);
		if (j < 0)
		{
			report(n, GA_ROW_LAST, GA_ERR_INTERNAL);
			continue;
		}
		for (uint32_t k = 0; k < o.nslots; k++)
			n.states[k * n.cap + j] = o.states[k * o.cap + i];
	}
}

/*
 * How many groups of table t pass the program's HAVING checks
 * (ga_having_keeps), added to *count.
 */
extern "C" __global__ void __launch_bounds__(GA_BLOCK)
gpuagg_having_count(const __grid_constant__ GaTable t, unsigned long long *count)
{
	typedef cub::BlockReduce<unsigned long long, GA_BLOCK> Reduce;
	__shared__ typename Reduce::TempStorage tmp;
	const GaProgram *p = &gpuagg_prog;
	unsigned long long mine = 0;
	unsigned long long sum;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < t.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
		mine += t.ctrl[i] == 2 && ga_having_keeps(p, t.states, t.cap, i);
	sum = Reduce(tmp).Sum(mine);
	if (threadIdx.x == 0 && sum > 0)
		atomicAdd(count, sum);
}

/*
 * Pack the groups densely: keys[nkeys][n], keynulls[nkeys][n],
 * states[nslots][n]; slotpos (when not NULL) gets each slot's position.
 * Under a top-N only the groups bound keeps (gpuagg_topn.h), n of them;
 * under HAVING checks only those that pass them (n counted before).
 */
extern "C" __global__ void
gpuagg_compact(GaTable t, uint64_t *keys, uint8_t *keynulls, uint64_t *states,
			   unsigned long long *pos, uint64_t n, uint64_t *slotpos,
			   const __grid_constant__ GaTopNBound bound)
{
	const GaProgram *p = &gpuagg_prog;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < t.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		unsigned long long j;

		if (t.ctrl[i] != 2 ||
			!ga_topn_keeps(p, &bound, t.keys, t.keynulls, t.states, t.cap, i) ||
			!ga_having_keeps(p, t.states, t.cap, i))
			continue;
		j = atomicAdd(pos, 1ull);
		if (slotpos)
			slotpos[i] = j;
		if (j >= n)
			continue;
		for (uint32_t k = 0; k < p->nkeys; k++)
		{
			keys[k * n + j] = t.keys[k * t.cap + i];
			keynulls[k * n + j] = t.keynulls[k * t.cap + i];
		}
		for (uint32_t k = 0; k < p->nslots; k++)
			states[k * n + j] = t.states[k * t.cap + i];
	}
}

/*
 * GPU Top-N's radix select, one step: into hist[d], the groups of table t
 * whose rank words start with bound's prefix and go on with digit d
 * (gpuagg_topn.h); on the first step (nothing decided) also, into
 * hist[256], the groups with a float overflow, which must all go out.
 */
extern "C" __global__ void __launch_bounds__(GA_BLOCK)
gpuagg_topn_hist(const __grid_constant__ GaTable t, const __grid_constant__ GaTopNBound bound,
				 unsigned long long *hist)
{
	const GaProgram *p = &gpuagg_prog;
	__shared__ unsigned int h[GA_TOPN_HIST];
	bool		first = ga_topn_first(&bound);

	for (int d = threadIdx.x; d < GA_TOPN_HIST; d += blockDim.x)
		h[d] = 0;
	__syncthreads();
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < t.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		int			d;

		if (t.ctrl[i] != 2)
			continue;
		if (first && ga_group_overflowed(p, t.states, t.cap, i))
			atomicAdd(&h[256], 1u);
		d = ga_topn_digit(p, &bound, t.keys, t.keynulls, t.states, t.cap, i);
		if (d >= 0)
			atomicAdd(&h[d], 1u);
	}
	__syncthreads();
	for (int d = threadIdx.x; d < GA_TOPN_HIST; d += blockDim.x)
		if (h[d] > 0)
			atomicAdd(&hist[d], (unsigned long long) h[d]);
}

/*
 * The slot in group table t of the group whose keys lead entry i of a
 * distinct set d, or -1.  Every group a set names is in t: its row passed
 * WHERE.
 */
static __device__ int64_t
set_entry_group(const GaTable &d, const GaTable &t, uint64_t i)
{
	GaView		g = table_view(t);
	GaDatum		key[GA_MAX_KEYS];
	uint8_t		knull[GA_MAX_KEYS];
	uint64_t	hh;

	entry_keys(d.keys, d.keynulls, d.cap, i, t.nkeys, key, knull);
	hh = key_hash(key, knull, t.nkeys);
	return find_slot(g, key, knull, (uint32_t) (hh ^ (hh >> 32)), t.nkeys, NULL, t.cap);
}

/*
 * count(DISTINCT): each entry of distinct set d is one value of one group;
 * add it to that group's count (state slot `slot' of table t).
 */
extern "C" __global__ void
gpuagg_distinct_fold(GaTable d, GaTable t, uint32_t slot)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < d.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		gi;

		if (d.ctrl[i] != 2)
			continue;
		gi = set_entry_group(d, t, i);
		if (gi < 0)
		{
			report(t, GA_ROW_LAST, GA_ERR_INTERNAL);
			continue;
		}
		atomicAdd((unsigned long long *) &t.states[(uint64_t) slot * t.cap + gi], 1ull);
	}
}

/*
 * A set the host folds (ga_agg_host_folds): each entry of distinct set d
 * as (the position of its group in the packed result, the value), for
 * the host to pick from or fold.  slotpos maps t's slots to packed
 * positions (gpuagg_compact).
 */
extern "C" __global__ void
gpuagg_distinct_pairs(GaTable d, GaTable t, const uint64_t *slotpos, uint64_t *group,
					  uint64_t *value, unsigned long long *count, uint64_t max,
					  uint64_t *rows)
{
	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < d.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		int64_t		gi;
		unsigned long long j;

		if (d.ctrl[i] != 2)
			continue;
		gi = set_entry_group(d, t, i);
		j = atomicAdd(count, 1ull);
		if (gi < 0 || j >= max)
		{
			report(t, GA_ROW_LAST, GA_ERR_INTERNAL);
			continue;
		}
		group[j] = slotpos[gi];
		value[j] = d.keys[(uint64_t) t.nkeys * d.cap + i];
		if (rows)
			rows[j] = d.states[i];
	}
}

/*---- ordered-set aggregates: selected from their counted sets ----*/

/*
 * Each entry's rows into its group's n (state slot ag->slot of the packed
 * states, ngroups of them); of a mode, the most rows a value has too.
 */
extern "C" __global__ void
gpuagg_osa_count(uint32_t a, const uint64_t *group, const uint64_t *rows, uint64_t m,
				 uint64_t *states, uint64_t ngroups)
{
	const GaAgg *ag = &gpuagg_prog.aggs[a];
	unsigned long long *n = (unsigned long long *) states + (uint64_t) ag->slot * ngroups;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < m;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		/* (an entry gpuagg_distinct_pairs failed to write: its error stands) */
		if (group[i] >= ngroups)
			continue;
		atomicAdd(&n[group[i]], (unsigned long long) rows[i]);
		if (ag->kind == GA_AGG_MODE)
			atomicMax(&n[ngroups + group[i]], (unsigned long long) rows[i]);
	}
}

/*
 * Per group: the rows a percentile needs (rest[ngroups * t + g], t = 0, 1),
 * prefixes 0; a mode's value all ones, for the smallest to replace.
 */
extern "C" __global__ void
gpuagg_osa_start(uint32_t a, uint64_t *states, uint64_t ngroups, uint64_t *rest)
{
	const GaAgg *ag = &gpuagg_prog.aggs[a];
	uint64_t   *n = states + (uint64_t) ag->slot * ngroups;

	for (uint64_t g = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; g < ngroups;
		 g += (uint64_t) gridDim.x * blockDim.x)
	{
		if (ag->kind == GA_AGG_MODE)
		{
			n[2 * ngroups + g] = ~UINT64_C(0);
			continue;
		}
		rest[g] = rest[ngroups + g] = 0;
		if (n[g] > 0)
			ga_osa_rows(ag, n[g], &rest[g], &rest[ngroups + g]);
		n[ngroups + g] = n[2 * ngroups + g] = 0;
	}
}

/* A mode: the first value in order among a group's with the most rows. */
extern "C" __global__ void
gpuagg_osa_mode(uint32_t a, const uint64_t *group, const uint64_t *value,
				const uint64_t *rows, uint64_t m, uint64_t *states, uint64_t ngroups)
{
	const GaAgg *ag = &gpuagg_prog.aggs[a];
	unsigned long long *n = (unsigned long long *) states + (uint64_t) ag->slot * ngroups;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < m;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		GaDatum		v;

		if (group[i] >= ngroups || rows[i] != n[ngroups + group[i]])
			continue;
		v.u = value[i];
		atomicMin(&n[2 * ngroups + group[i]],
				  (unsigned long long) ga_order_bits(ag->argtype, v, ag->desc));
	}
}

/*
 * One pass of a percentile's radix select (gpuagg_eval.h): each entry on
 * its group's prefix adds its rows to the digit's count, for ntargets
 * rows a group (hist[(ngroups * t + g) * GA_OSA_DIGITS + digit]).
 */
extern "C" __global__ void
gpuagg_osa_hist(uint32_t a, const uint64_t *group, const uint64_t *value,
				const uint64_t *rows, uint64_t m, const uint64_t *states, uint64_t ngroups,
				unsigned long long *hist, int pass, int ntargets)
{
	const GaAgg *ag = &gpuagg_prog.aggs[a];
	const uint64_t *prefix = states + (uint64_t) (ag->slot + 1) * ngroups;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < m;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint64_t	g = group[i];
		GaDatum		v;
		uint64_t	bits;

		if (g >= ngroups)
			continue;
		v.u = value[i];
		bits = ga_order_bits(ag->argtype, v, ag->desc);
		for (int t = 0; t < ntargets; t++)
		{
			int			d = ga_osa_digit(bits, prefix[(uint64_t) t * ngroups + g], pass);

			if (d >= 0)
				atomicAdd(&hist[((uint64_t) t * ngroups + g) * GA_OSA_DIGITS + d],
						  (unsigned long long) rows[i]);
		}
	}
}

/* Each group picks the digit of the pass its rows fall in. */
extern "C" __global__ void
gpuagg_osa_pick(uint32_t a, uint64_t *states, uint64_t ngroups, uint64_t *hist,
				uint64_t *rest, int pass, int ntargets)
{
	const GaAgg *ag = &gpuagg_prog.aggs[a];
	uint64_t   *prefix = states + (uint64_t) (ag->slot + 1) * ngroups;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x;
		 i < (uint64_t) ntargets * ngroups; i += (uint64_t) gridDim.x * blockDim.x)
		ga_osa_pick(hist + i * GA_OSA_DIGITS, &rest[i], &prefix[i], pass);
}

/*---- the string dictionary of page form (GaDict, gpuagg_page.h) ----*/

/* a slot claimed when the dictionary had no room: passed over */
#define GA_DICT_DEAD	0xFFFFFFFFu

static __device__ __forceinline__ uint32_t
dict_hash(const uint8_t *data, uint32_t len)
{
	uint64_t	h = UINT64_C(0x9e3779b97f4a7c15) * (len + 1);

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ data[i]) * UINT64_C(0x100000001b3);
	h = ga_mix64(h);
	return (uint32_t) (h ^ (h >> 32));
}

/*
 * The code of len bytes at data, claimed with the next code if they are
 * new.  0 only when the dictionary is full, which the host prevents.
 */
static __device__ int
ga_dict_code(const GaDict *d, const uint8_t *data, uint32_t len, uint32_t *code)
{
	uint32_t	h = dict_hash(data, len);
	uint64_t	mask = d->cap - 1;
	uint64_t	i = h & mask;

	for (uint64_t probe = 0; probe < d->cap; probe++, i = (i + 1) & mask)
	{
		uint32_t	c = vload32(&d->slot_code[i]);
		uint64_t	k,
					at;
		const volatile uint8_t *stored;
		bool		same;

		if (c == 0)
		{
			if (atomicCAS(&d->slot_code[i], 0u, 1u) == 0u)
			{
				k = atomicAdd(&d->counters[GA_CNT_DICT_N], 1ull);
				at = atomicAdd(&d->counters[GA_CNT_DICT_BYTES], (unsigned long long) len);
				if (2 * (k + 1) > d->cap || at + len > d->arena_cap)
				{
					atomicExch(&d->slot_code[i], GA_DICT_DEAD);
					return 0;
				}
				for (uint32_t j = 0; j < len; j++)
					d->arena[at + j] = data[j];
				d->str_at[k] = at;
				d->str_len[k] = len;
				((volatile uint32_t *) d->slot_hash)[i] = h;
				__threadfence();
				atomicExch(&d->slot_code[i], (uint32_t) k + 2);
				*code = (uint32_t) k;
				return 1;
			}
			c = vload32(&d->slot_code[i]);
		}
		while (c == 1)
			c = vload32(&d->slot_code[i]);
		__threadfence();
		if (c == GA_DICT_DEAD || vload32(&d->slot_hash[i]) != h)
			continue;
		k = c - 2;
		if (((volatile uint32_t *) d->str_len)[k] != len)
			continue;
		stored = (const volatile uint8_t *) d->arena + ((volatile uint64_t *) d->str_at)[k];
		same = true;
		for (uint32_t j = 0; j < len && same; j++)
			same = stored[j] == data[j];
		if (same)
		{
			*code = (uint32_t) k;
			return 1;
		}
	}
	return 0;
}

/*
 * The host's strings first, one thread, so that they get codes 0 .. n - 1
 * in their order: seed holds n of (uint32 length, bytes, padding to 4).
 */
extern "C" __global__ void
gpuagg_dict_seed(GaDict d, const uint8_t *seed, uint32_t n)
{
	uint64_t	at = 0;

	if (blockIdx.x != 0 || threadIdx.x != 0)
		return;
	for (uint32_t i = 0; i < n; i++)
	{
		uint32_t	len = *(const uint32_t *) (seed + at);
		uint32_t	code;

		if (!ga_dict_code(&d, seed + at + 4, len, &code) || code != i)
			atomicMin(&d.counters[GA_CNT_ERROR],
					  (unsigned long long) ((GA_ROW_LAST << 8) | GA_ERR_INTERNAL));
		at += 4 + ((len + 3) & ~3u);
	}
}

/* Slots of dictionary o into the larger, zeroed slots of n (codes kept). */
extern "C" __global__ void
gpuagg_dict_rehash(GaDict o, GaDict n)
{
	uint64_t	mask = n.cap - 1;

	for (uint64_t i = blockIdx.x * (uint64_t) blockDim.x + threadIdx.x; i < o.cap;
		 i += (uint64_t) gridDim.x * blockDim.x)
	{
		uint32_t	c = o.slot_code[i];
		uint64_t	j;

		if (c < 2 || c == GA_DICT_DEAD)
			continue;
		for (j = o.slot_hash[i] & mask; atomicCAS(&n.slot_code[j], 0u, c) != 0u;
			 j = (j + 1) & mask)
			;
		n.slot_hash[j] = o.slot_hash[i];
	}
}

/*
 * Do the WHERE's quals up to end keep the row whose columns are deformed
 * so far, or fail on it (which gpuagg_aggregate reports)?  Then its
 * deferred strings are coded (GaDeferred).
 */
static __device__ bool
keeps_row(const GaBatch *batch, int32_t end, uint32_t row)
{
	const GaProgram *p = &gpuagg_prog;
	GaSegment	seg = {p->where.start, end, p->where.reg};
	GaDatum		regs[GA_MAX_REGS];
	uint8_t		nulls[GA_MAX_REGS];

	return ga_eval(p, &seg, batch, row, regs, nulls) != GA_OK ||
		(!nulls[seg.reg] && regs[seg.reg].i);
}

/*
 * Page form: deform the batch's tuples where they lie in the host's
 * shared buffers, which the GPU service mapped into the device's address
 * space, into the batch's columns (their null bitmaps zeroed before).  A
 * block a page: its threads copy the page into shared memory with 16-byte
 * loads, so that the reads over PCIe are whole, coalesced lines, then each
 * deforms the tuples of the page's visible line pointers it is given, with
 * the deformer the CPU device runs (gpuagg_page.h), into the rows that
 * follow the page's first.  String columns get their codes in the
 * session's dictionary (those the WHERE does not read only in the rows
 * it keeps); a string it cannot read is counted, and the host reads the
 * scan again in column form.
 */
extern "C" __global__ void
gpuagg_deform_pages(GaBatch batch, GaTupleLayout layout, const uint8_t *shared,
					uint32_t blcksz, uint64_t nbuffers, unsigned long long *counters,
					GaDict dict)
{
	extern __shared__ uint4 page4[];
	const uint8_t *page = (const uint8_t *) page4;
	uint8_t		anynull[GA_MAX_COLS];

	for (uint32_t p = blockIdx.x; p < batch.npages; p += gridDim.x)
	{
		uint32_t	buf = batch.pagelist[p];
		const uint32_t *vis = batch.pagevis + (uint64_t) p * GA_PAGE_VIS_WORDS;
		const uint4 *src;

		if (buf >= nbuffers)
		{
			/* a buffer outside the mapped ones: an internal error, not a fault */
			if (threadIdx.x == 0)
				atomicMin(&counters[GA_CNT_ERROR],
						  (unsigned long long) ((GA_ROW_LAST << 8) | GA_ERR_INTERNAL));
			continue;
		}
		__syncthreads();		/* the previous page is done with */
		src = (const uint4 *) (shared + (uint64_t) buf * blcksz);
		for (uint32_t i = threadIdx.x; i < blcksz / 16; i += blockDim.x)
			page4[i] = src[i];
		__syncthreads();
		for (uint32_t k = threadIdx.x; k < GA_PAGE_VIS_WORDS * 32; k += blockDim.x)
		{
			const uint8_t *tup;
			uint32_t	row,
						len = 0;
			int			got;
			GaDeferred	later;

			if (!(vis[k >> 5] & (1u << (k & 31))))
				continue;
			row = batch.pagerows[p] + ga_page_rank(vis, k);
			tup = ga_page_tuple(page, blcksz, k, &len);
			/* not a tuple of the page, or not one as its header says: an
			 * internal error, never a read outside the page */
			later.n = 0;
			got = (tup == NULL || row >= batch.nrows) ? GA_DEFORM_BAD :
				ga_deform_tuple(&layout, tup, len, row, (void *const *) batch.values,
								(uint8_t *const *) batch.nulls, anynull, &dict, &later);
			if (got == GA_DEFORM_OK && later.n > 0 && keeps_row(&batch, layout.defer_end, row))
				got = ga_put_deferred(&layout, &later, row, (void *const *) batch.values,
									  (uint8_t *const *) batch.nulls, anynull, &dict);
			if (got == GA_DEFORM_BAD)
				atomicMin(&counters[GA_CNT_ERROR],
						  (unsigned long long) ((GA_ROW_LAST << 8) | GA_ERR_INTERNAL));
			else if (got == GA_DEFORM_STRING)
				atomicAdd(&counters[GA_CNT_STRINGS_BACK], 1ull);
			else if (got == GA_DEFORM_NUMERIC)
				atomicAdd(&counters[GA_CNT_NUMERIC_UNFIT], 1ull);
		}
	}
}
