/*-------------------------------------------------------------------------
 *
 * engine_table.c
 *		The CUDA engine: a session's device tables and string dictionary.
 *
 * No PostgreSQL here, as in all of the engine (engine.c says why).
 *
 * A session's device memory is counted against its reservation and
 * gpuagg.vram_budget (engine_device_alloc): past the reservation a call
 * returns GA_NEED_MEMORY before it has queued anything it could not redo.
 * Before each batch the group table and the count(DISTINCT) sets are grown
 * (gpuagg_rehash) so that none can pass half load, and in page form the
 * device's string dictionary so that every string of the batch fits
 * (gpuagg_dict_rehash); a growth that fails leaves the old table as it
 * was.  engine_shared_table sizes the block tables of few groups.
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>

#include "engine_int.h"

/*---- a session's device memory ----*/

int
engine_device_alloc(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes)
{
	if ((double) (s->vram_used + bytes) > s->args.vram_budget)
	{
		snprintf(s->errbuf, sizeof(s->errbuf),
				 "the query needs more than gpuagg.vram_budget (%.0f MB) of device memory",
				 s->args.vram_budget / (1024.0 * 1024.0));
		return GA_ERR_DEVICE;
	}
	/* past the reservation: the caller grows it first, or gives up */
	if (s->vram_used + bytes > s->args.reserved)
	{
		s->need = s->vram_used + bytes - s->args.reserved;
		return GA_NEED_MEMORY;
	}
	CU_CHECK(s, cu.MemAlloc(p, bytes));
	s->vram_used += bytes;
	return GA_OK;
}

/* Would bytes more stay within gpuagg.vram_budget? */
bool
engine_within_budget(const GaEngineSession *s, uint64_t bytes)
{
	return (double) (s->vram_used + bytes) <= s->args.vram_budget;
}

void
engine_device_free(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes)
{
	if (*p)
	{
		cu.MemFree(*p);
		s->vram_used -= bytes;
	}
	*p = 0;
}

/*---- the group table, distinct sets and block tables ----*/

/*
 * A table of cap slots with nk keys and ns state slots in device memory,
 * as GaTable describes it: ctrl, lock and hash (4 bytes a slot each), then
 * keys and states (8 bytes a slot each), then keynulls (a byte a key).
 * The offsets of its arrays from its base, and its size.
 */
typedef struct TableLayout
{
	uint64_t	lock;
	uint64_t	hash;
	uint64_t	keys;
	uint64_t	states;
	uint64_t	keynulls;
	uint64_t	size;
} TableLayout;

static TableLayout
table_layout(uint64_t cap, uint32_t nk, uint32_t ns)
{
	TableLayout l;

	l.lock = 4 * cap;
	l.hash = 8 * cap;
	l.keys = ALIGN16(12 * cap);
	l.states = l.keys + 8 * cap * nk;
	l.keynulls = l.states + 8 * cap * ns;
	l.size = l.keynulls + ALIGN16(cap * nk + 1);
	return l;
}

static uint64_t
table_size(uint64_t cap, uint32_t nk, uint32_t ns)
{
	return table_layout(cap, nk, ns).size;
}

/*
 * Allocate a zeroed table of cap slots with nk keys and ns state slots
 * whose entries are counted in counter count_at.
 */
int
engine_table_alloc(GaEngineSession *s, uint64_t cap, uint32_t nk, uint32_t ns,
				   uint32_t count_at, GaTable *t, CUdeviceptr *base, uint64_t *bytes)
{
	TableLayout l = table_layout(cap, nk, ns);
	uint64_t	size = l.size;
	int			err;
	CUresult	r;

	err = engine_device_alloc(s, base, size);
	if (err)
		return err;
	*bytes = size;
	if ((r = cu.MemsetD8Async(*base, 0, size, s->s_exec)) != CUDA_SUCCESS)
	{
		engine_device_free(s, base, size);
		return engine_session_fail(s, "cuMemsetD8Async", r);
	}
	t->cap = cap;
	t->nkeys = nk;
	t->nslots = ns;
	t->count_at = count_at;
	t->ctrl = (uint32_t *) *base;
	t->lock = (uint32_t *) (*base + l.lock);
	t->hash = (uint32_t *) (*base + l.hash);
	t->keys = (uint64_t *) (*base + l.keys);
	t->states = (uint64_t *) (*base + l.states);
	t->keynulls = (uint8_t *) (*base + l.keynulls);
	t->counters = (unsigned long long *) s->d_counters;
	return GA_OK;
}

/*
 * Slots of a table (or dictionary) that holds need entries at half load: a
 * power of two, 1024 at least
 */
uint64_t
engine_half_load_cap(double need)
{
	uint64_t	p = 1024;

	while ((double) p < 2.0 * need)
		p <<= 1;
	return p;
}

/*
 * Grow table t so that it holds at least need entries at half load; the
 * old table stays until the new one is filled, so a failure leaves t as it
 * was.
 */
static int
grow_table(GaEngineSession *s, GaTable *t, CUdeviceptr *base, uint64_t *bytes, uint64_t need)
{
	GaTable		nt;
	CUdeviceptr nbase = 0;
	uint64_t	nbytes = 0;
	void	   *params[2];
	int			err;
	CUresult	r;

	err = engine_table_alloc(s, engine_half_load_cap(need), t->nkeys, t->nslots, t->count_at,
							 &nt, &nbase, &nbytes);
	if (err)
		return err;
	params[0] = t;
	params[1] = &nt;
	r = cu.LaunchKernel(s->mod->fn_rehash, table_grid(s, t), 1, 1, GPUAGG_BLOCK, 1, 1, 0,
						s->s_exec, params, NULL);
	err = (r != CUDA_SUCCESS) ? engine_session_fail(s, "cuLaunchKernel(gpuagg_rehash)", r) :
		engine_wait_exec(s);
	if (err != GA_OK)
	{
		engine_device_free(s, &nbase, nbytes);
		return err;
	}
	engine_device_free(s, base, *bytes);
	*t = nt;
	*base = nbase;
	*bytes = nbytes;
	return GA_OK;
}

/*
 * Few groups: each block of gpuagg_aggregate aggregates in a table in
 * shared memory first, 4 slots a group (256 at least) where they fit, kept
 * across batches in the block tables.
 */
void
engine_shared_table(GaEngineSession *s)
{
	const GaProgram *prog = &s->prog;
	uint64_t	slot_bytes = ga_slot_bytes(prog->nkeys, prog->nslots);
	uint64_t	cap = 256;

	if (s->args.groups > SHARED_GROUPS_MAX)
		return;
	while (cap < 4 * s->args.groups && cap < 2 * SHARED_GROUPS_MAX)
		cap <<= 1;
	while (cap >= 128 && cap * slot_bytes + 16 > (uint64_t) s->gpu->smem_optin)
		cap >>= 1;
	if (cap >= 128)
	{
		s->shared_cap = (uint32_t) cap;
		s->smem_bytes = (uint32_t) (cap * slot_bytes + 16);
	}
}

/*
 * The entries table t must hold at half load after a batch of nrows rows
 * when it has n now: room for this batch and the next, so that
 * tighten_bounds keeps up without a wait a batch, where that stays within
 * gpuagg.vram_budget (planner.c's estimate counts one batch's room);
 * otherwise room for this batch only, and the next batch reads the
 * counters again.
 */
static uint64_t
room_bound(const GaEngineSession *s, const GaTable *t, uint64_t n, uint64_t nrows)
{
	uint64_t	two = n + 2 * nrows;

	if (2 * two > t->cap &&
		!engine_within_budget(s, table_size(engine_half_load_cap(two), t->nkeys, t->nslots)))
		return n + nrows;
	return two;
}

/*
 * No table may pass half load, whatever the batch holds (nrows rows of the
 * table; engine_join_rows: of the join, as many as it can make): grow them
 * first (before anything of the
 * batch is queued, so GA_NEED_MEMORY can repeat).
 */
int
engine_make_room(GaEngineSession *s, uint64_t nrows)
{
	bool		check;
	unsigned long long counters[GA_NCOUNTERS];
	int			err;
	uint64_t	bound;

	/* (a program without group keys has one group, whatever the rows) */
	check = s->prog.nkeys > 0 &&
		2 * (s->groups_bound + engine_join_rows(s, nrows, -1)) > s->table.cap;
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		check |= 2 * (s->set_bound[j] + engine_join_rows(s, nrows, j)) > s->sets.set[j].cap;
	if (!check)
		return GA_OK;
	if ((err = engine_read_counters(s, counters)) != GA_OK)
		return err;
	bound = room_bound(s, &s->table, counters[GA_CNT_GROUPS], engine_join_rows(s, nrows, -1));
	if (s->prog.nkeys > 0 && 2 * bound > s->table.cap &&
		(err = grow_table(s, &s->table, &s->d_table, &s->table_bytes, bound)) != GA_OK)
		return err;
	s->groups_bound = counters[GA_CNT_GROUPS];
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
	{
		bound = room_bound(s, &s->sets.set[j], counters[GA_CNT_DISTINCT + j],
						   engine_join_rows(s, nrows, j));
		if (2 * bound > s->sets.set[j].cap &&
			(err = grow_table(s, &s->sets.set[j], &s->d_set[j],
							  &s->set_bytes[j], bound)) != GA_OK)
			return err;
		s->set_bound[j] = counters[GA_CNT_DISTINCT + j];
	}
	return GA_OK;
}

/*---- the string dictionary of page form ----*/

static uint64_t
dict_size(uint64_t cap)
{
	return 20 * cap;
}

/*
 * Zeroed slots and by-code arrays for a dictionary of cap slots, into d
 * (its arena untouched); on failure nothing stays allocated.
 */
static int
dict_alloc(GaEngineSession *s, uint64_t cap, GaDict *d, CUdeviceptr *base, uint64_t *bytes)
{
	uint64_t	size = dict_size(cap);
	int			err;
	CUresult	r;

	if ((err = engine_device_alloc(s, base, size)) != GA_OK)
		return err;
	*bytes = size;
	if ((r = cu.MemsetD8Async(*base, 0, size, s->s_exec)) != CUDA_SUCCESS)
	{
		engine_device_free(s, base, size);
		return engine_session_fail(s, "cuMemsetD8Async", r);
	}
	d->cap = cap;
	d->slot_code = (uint32_t *) *base;
	d->slot_hash = (uint32_t *) (*base + 4 * cap);
	d->str_at = (uint64_t *) (*base + 8 * cap);
	d->str_len = (uint32_t *) (*base + 16 * cap);
	d->counters = (unsigned long long *) s->d_counters;
	return GA_OK;
}

/* The arena grow_dict makes for need_bytes of strings: at least doubled */
static uint64_t
arena_growth(const GaEngineSession *s, uint64_t need_bytes)
{
	return ALIGN16(EMAX(need_bytes, 2 * s->dict.arena_cap));
}

/* Device memory grow_dict would take for need_n codes and need_bytes */
static uint64_t
dict_growth(const GaEngineSession *s, uint64_t need_n, uint64_t need_bytes)
{
	uint64_t	bytes = 0;

	if (2 * need_n > s->dict.cap)
		bytes += dict_size(engine_half_load_cap(need_n));
	if (need_bytes > s->dict.arena_cap)
		bytes += arena_growth(s, need_bytes);
	return bytes;
}

/*
 * Grow the dictionary to hold need_n codes at half load and need_bytes of
 * strings; the old arrays stay until the new ones are filled, so a
 * failure leaves it as it was.  No deform kernel may be running.
 */
static int
grow_dict(GaEngineSession *s, uint64_t n, uint64_t used, uint64_t need_n, uint64_t need_bytes)
{
	int			err = GA_OK;
	CUresult	r = CUDA_SUCCESS;
	const char *what = "";

#define GROW_CHECK(call) \
	if (r == CUDA_SUCCESS && (r = (call)) != CUDA_SUCCESS) \
		what = #call

	if (2 * need_n > s->dict.cap)
	{
		GaDict		nd = s->dict;
		CUdeviceptr base = 0;
		uint64_t	bytes = 0;
		void	   *params[2] = {&s->dict, &nd};

		if ((err = dict_alloc(s, engine_half_load_cap(need_n), &nd, &base, &bytes)) != GA_OK)
			return err;
		GROW_CHECK(cu.MemcpyDtoDAsync((CUdeviceptr) nd.str_at, (CUdeviceptr) s->dict.str_at,
									  8 * n, s->s_exec));
		GROW_CHECK(cu.MemcpyDtoDAsync((CUdeviceptr) nd.str_len, (CUdeviceptr) s->dict.str_len,
									  4 * n, s->s_exec));
		GROW_CHECK(cu.LaunchKernel(s->mod->fn_dict_rehash,
								   stride_grid(s, s->dict.cap, GPUAGG_BLOCK, BLOCKS_PER_SM),
								   1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		err = r != CUDA_SUCCESS ? engine_session_fail(s, what, r) : engine_wait_exec(s);
		if (err != GA_OK)
		{
			engine_device_free(s, &base, bytes);
			return err;
		}
		engine_device_free(s, &s->d_dict, s->dict_bytes);
		s->dict = nd;
		s->d_dict = base;
		s->dict_bytes = bytes;
	}
	if (need_bytes > s->dict.arena_cap)
	{
		uint64_t	cap = arena_growth(s, need_bytes);
		CUdeviceptr arena = 0;

		if ((err = engine_device_alloc(s, &arena, cap)) != GA_OK)
			return err;
		if (used > 0)
			GROW_CHECK(cu.MemcpyDtoDAsync(arena, s->d_arena, used, s->s_exec));
		err = r != CUDA_SUCCESS ? engine_session_fail(s, what, r) : engine_wait_exec(s);
		if (err != GA_OK)
		{
			engine_device_free(s, &arena, cap);
			return err;
		}
		engine_device_free(s, &s->d_arena, s->dict.arena_cap);
		s->d_arena = arena;
		s->dict.arena = (uint8_t *) arena;
		s->dict.arena_cap = cap;
	}
#undef GROW_CHECK
	return GA_OK;
}

/*
 * The dictionary of a page-form session with string columns, made with
 * room for a batch's strings, and the host's strings put in first.
 */
int
engine_dict_start(GaEngineSession *s)
{
	CUdeviceptr seed = 0;
	int			err;
	CUresult	r = CUDA_SUCCESS;
	const char *what = "";
	unsigned long long counters[GA_NCOUNTERS];
	void	   *params[3];

	if (s->dict_ready)
		return GA_OK;
	/*
	 * Room for the strings of a few batches at least, so that
	 * engine_dict_room looks at the counters (a wait for the kernels)
	 * seldom.
	 */
	if (!s->d_dict &&
		(err = dict_alloc(s, engine_half_load_cap(2.0 * (s->args.nseed + (double) s->nstringcols *
														  s->args.batch_rows)),
						  &s->dict, &s->d_dict, &s->dict_bytes)) != GA_OK)
		return err;
	if (!s->d_arena)
	{
		uint64_t	cap = ALIGN16(s->args.seed_bytes +
								  2 * (uint64_t) s->args.max_pages * engine_pages_blcksz *
								  s->page_string_bytes);

		if ((err = engine_device_alloc(s, &s->d_arena, cap)) != GA_OK)
			return err;
		s->dict.arena = (uint8_t *) s->d_arena;
		s->dict.arena_cap = cap;
	}
	if (s->args.nseed > 0)
	{
		if ((err = engine_device_alloc(s, &seed, s->args.seed_bytes)) != GA_OK)
			return err;
		params[0] = &s->dict;
		params[1] = &seed;
		params[2] = &s->args.nseed;
		if ((r = cu.MemcpyHtoDAsync(seed, s->seed, s->args.seed_bytes, s->s_exec)) != CUDA_SUCCESS)
			what = "cuMemcpyHtoDAsync";
		else if ((r = cu.LaunchKernel(s->mod->fn_dict_seed, 1, 1, 1, 1, 1, 1, 0, s->s_exec,
									  params, NULL)) != CUDA_SUCCESS)
			what = "cuLaunchKernel(gpuagg_dict_seed)";
		err = r != CUDA_SUCCESS ? engine_session_fail(s, what, r) : engine_wait_exec(s);
		engine_device_free(s, &seed, s->args.seed_bytes);
		if (err != GA_OK)
			return err;
	}
	if ((err = engine_read_counters(s, counters)) != GA_OK)
		return err;
	s->dict_n_bound = counters[GA_CNT_DICT_N];
	s->dict_b_bound = counters[GA_CNT_DICT_BYTES];
	s->dict_ready = true;
	return GA_OK;
}

/*
 * Room in the dictionary for every string of a batch of nrows rows on
 * npages pages, whatever they hold (every string column a new string a
 * row, their bytes no more than the pages'): grown first (before anything
 * of the batch is queued, so GA_NEED_MEMORY can repeat).
 */
int
engine_dict_room(GaEngineSession *s, uint32_t nrows, uint32_t npages)
{
	uint64_t	add_n = (uint64_t) s->nstringcols * nrows;
	uint64_t	add_b = (uint64_t) npages * engine_pages_blcksz * s->page_string_bytes;
	uint64_t	n;
	uint64_t	used;
	uint64_t	k;
	unsigned long long counters[GA_NCOUNTERS];
	int			err;

	if (2 * (s->dict_n_bound + add_n) <= s->dict.cap &&
		s->dict_b_bound + add_b <= s->dict.arena_cap)
		return GA_OK;
	/* the deform kernels on the copy streams use it: let them end */
	for (int b = 0; b < 2; b++)
		if ((err = ga_engine_wait_buffer(s, b)) != GA_OK)
			return err;
	if ((err = engine_read_counters(s, counters)) != GA_OK)
		return err;
	/* room for the next batch too, budget allowing, as engine_make_room */
	n = counters[GA_CNT_DICT_N];
	used = counters[GA_CNT_DICT_BYTES];
	k = engine_within_budget(s, dict_growth(s, n + 2 * add_n, used + 2 * add_b)) ? 2 : 1;
	if ((err = grow_dict(s, n, used, n + k * add_n, used + k * add_b)) != GA_OK)
		return err;
	s->dict_n_bound = n;
	s->dict_b_bound = used;
	return GA_OK;
}
