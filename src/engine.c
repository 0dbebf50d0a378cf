/*-------------------------------------------------------------------------
 *
 * engine.c
 *		The CUDA engine: a query's session, from open to close (engine.h).
 *
 * No PostgreSQL here: the engine runs in the GPU service's CUDA threads,
 * where palloc, elog and latches must not be touched, so none of its files
 * includes a PostgreSQL header and they allocate with malloc.  The engine
 * is three files and a header of their own (engine_int.h): cuda_driver.c
 * loads the driver API and keeps the GPUs, engine_table.c allocates and
 * grows a session's tables and dictionary, and this file runs a session:
 * its streams, its batches, the kernels, the result.
 *
 * Data path: the caller lays each batch out in one of two page-locked host
 * buffers; its columns go to the device on that buffer's copy stream while
 * the kernels of the previous batch run on the execution stream, ordered
 * by events, so the copy of batch n+1 overlaps the kernels of batch n.  The
 * group table lives in device memory and is grown (gpuagg_rehash) before a
 * batch could fill it past half; count(DISTINCT) sets are grown the same
 * way.  Where few groups are expected each block of gpuagg_aggregate keeps
 * a table of its own across the batches (the session's block tables); at
 * the end gpuagg_block_fold adds them into the group table, and
 * gpuagg_distinct_fold counts the sets into theirs; under a GPU Top-N
 * gpuagg_topn_hist's radix select finds which groups can rank among the n
 * (gpuagg_topn.h); gpuagg_compact packs the groups, and the caller fetches
 * them.
 *
 * Any CUDA failure returns GA_ERR_DEVICE.  One that leaves a context
 * unusable (an illegal address in a kernel, say) marks the engine broken:
 * every session fails over, and the service starts anew with new contexts
 * on every GPU (service.c).
 *
 *-------------------------------------------------------------------------
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_int.h"
#include "../cuda/gpuagg_join.h"
#include "../cuda/gpuagg_topn.h"

/* Record a CUDA failure of the session; a sticky one breaks the engine. */
int
engine_session_fail(GaEngineSession *s, const char *what, CUresult r)
{
	char		text[256];

	engine_cu_error_text(r, text, sizeof(text));
	if (engine_cu_error_is_sticky(r))
	{
		__atomic_store_n(&engine_broken, 1, __ATOMIC_SEQ_CST);
		snprintf(s->errbuf, sizeof(s->errbuf),
				 "%s failed: %s (the GPU service starts anew)", what, text);
	}
	else
		snprintf(s->errbuf, sizeof(s->errbuf), "%s failed: %s", what, text);
	return GA_ERR_DEVICE;
}

/* Wait for an event: poll, then sleep a little; the caller may cancel. */
static int
wait_event(GaEngineSession *s, CUevent ev)
{
	long		nap = 2000;

	for (int spins = 0;; spins++)
	{
		CUresult	r = cu.EventQuery(ev);
		struct timespec ts;

		if (r == CUDA_SUCCESS)
			return GA_OK;
		if (r != CUDA_ERROR_NOT_READY)
			return engine_session_fail(s, "cuEventQuery", r);
		if (s->cancel && *s->cancel)
		{
			snprintf(s->errbuf, sizeof(s->errbuf), "the query was cancelled");
			return GA_ERR_DEVICE;
		}
		if (engine_broken)
		{
			snprintf(s->errbuf, sizeof(s->errbuf),
					 "another query broke the CUDA context (it is made anew)");
			return GA_ERR_DEVICE;
		}
		if (spins < 200)
			continue;
		ts.tv_sec = 0;
		ts.tv_nsec = nap;
		nanosleep(&ts, NULL);
		nap = EMIN(nap * 2, 200000);
	}
}

/* Wait until everything queued on the execution stream is done. */
int
engine_wait_exec(GaEngineSession *s)
{
	CU_CHECK(s, cu.EventRecord(s->ev_sync, s->s_exec));
	return wait_event(s, s->ev_sync);
}

/*
 * The error a copy of the counters reports.  A string the deformer could
 * not read had no code: the rows since mean nothing, their errors
 * included; the host reads them again.
 */
static int
counters_error(const unsigned long long *c)
{
	/* a numeric no int64 holds: the rows' errors may come of its stand-in 0 */
	if (c[GA_CNT_NUMERIC_UNFIT] != 0)
		return GA_ERR_NUMERIC_EXACT;
	if (c[GA_CNT_STRINGS_BACK] != 0)
		return GA_ERR_STRING_BACK;
	/* the error slot holds (row << 8 | code) of the earliest failing row */
	if (c[GA_CNT_ERROR] == ~0ULL)
		return GA_OK;
	return (int) (c[GA_CNT_ERROR] & 0xff);
}

/* Bring the counters back; their error, if any, is returned. */
int
engine_read_counters(GaEngineSession *s, unsigned long long *out)
{
	int			err;

	CU_CHECK(s, cu.MemcpyDtoHAsync(s->counters_host, s->d_counters,
								   sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	if ((err = engine_wait_exec(s)) != GA_OK)
		return err;
	memcpy(out, s->counters_host, sizeof(unsigned long long) * GA_NCOUNTERS);
	return counters_error(out);
}

/*
 * GPU Top-N: narrow bound b down to the groups of the table that can rank
 * among the n, a gpuagg_topn_hist histogram (d_hist, copied to the host
 * region's scratch) a step (gpuagg_topn.h).
 */
static int
topn_select(GaEngineSession *s, CUdeviceptr d_hist, GaTopNBound *b)
{
	uint64_t   *hist = s->topn_hist;
	int			err;

	for (;;)
	{
		void	   *params[3] = {&s->table, b, &d_hist};

		CU_CHECK(s, cu.MemsetD8Async(d_hist, 0, 8 * GA_TOPN_HIST, s->s_exec));
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_topn_hist, table_grid(s, &s->table), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		CU_CHECK(s, cu.MemcpyDtoHAsync(hist, d_hist, 8 * GA_TOPN_HIST, s->s_exec));
		if ((err = engine_wait_exec(s)) != GA_OK)
			return err;
		if (ga_topn_step(&s->prog, b, hist))
			return GA_OK;
	}
}

/* The string codes a page-form column makes a value: its own, a bpchar's two. */
static uint32_t
string_codes(const GaColumn *c)
{
	if (c->type == GA_T_BPCHAR)
		return 2;
	return c->type == GA_T_TEXT && (!c->pred || c->prefix) ? 1 : 0;
}

/* Does segment seg of p read a column a device's join gathers? */
static bool
reads_joined(const GaProgram *p, const GaSegment *seg)
{
	for (int32_t i = seg->start; seg->reg >= 0 && i < seg->end; i++)
		if (p->code[i].op == GA_OP_COL && p->cols[p->code[i].imm].dim != 0)
			return true;
	return false;
}

GaEngineSession *
ga_engine_open(const GaProgram *prog, const GaEngineArgs *args, const void *seed, void *host,
			   uint64_t host_bytes, volatile uint32_t *cancel, char *err, size_t errlen)
{
	GaEngineSession *s;
	CUresult	r = CUDA_SUCCESS;
	const char *what = "";

	if (!engine_ready || engine_broken)
	{
		snprintf(err, errlen, "the CUDA context is being made anew");
		return NULL;
	}
	if (host_bytes < GA_ENGINE_SCRATCH + 2 * args->host_batch_bytes ||
		args->host_batch_bytes > args->batch_bytes)
	{
		snprintf(err, errlen, "the batch buffers do not fit their region");
		return NULL;
	}
	if ((s = calloc(1, sizeof(GaEngineSession))) == NULL)
	{
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	s->prog = *prog;
	s->join_keys = reads_joined(&s->prog, &s->prog.keyseg);
	for (uint32_t a = 0; a < s->prog.naggs; a++)
		if (s->prog.aggs[a].distinct >= 0)
			s->join_set[s->prog.aggs[a].distinct] = reads_joined(&s->prog, &s->prog.aggs[a].arg);
	s->args = *args;
	s->cancel = cancel;
	s->host = host;
	s->host_bytes = host_bytes;
	s->counters_host = (unsigned long long *) host;
	s->snap[0] = s->counters_host + GA_NCOUNTERS;
	s->snap[1] = s->snap[0] + GA_NCOUNTERS;
	s->topn_hist = (uint64_t *) (s->snap[1] + GA_NCOUNTERS);
	s->buf[0] = (char *) host + GA_ENGINE_SCRATCH;
	s->buf[1] = s->buf[0] + args->host_batch_bytes;
	/*
	 * page form: the string columns the deformer codes in the dictionary,
	 * and the most codes one attribute's bytes make (a bpchar's two, a
	 * prefix's of the same string each another), so the most a page's
	 * bytes may add
	 */
	s->page_string_bytes = 1;
	for (uint32_t c = 0; c < prog->ncols && args->max_pages > 0; c++)
	{
		uint32_t	codes = 0;

		s->nstringcols += string_codes(&prog->cols[c]);
		for (uint32_t o = 0; o < prog->ncols && !prog->cols[c].dim; o++)
			if (prog->cols[o].attno == prog->cols[c].attno && !prog->cols[o].dim)
				codes += string_codes(&prog->cols[o]);
		s->page_string_bytes = EMAX(s->page_string_bytes, codes);
	}
	/* (the tables of a join it scans code theirs in the same dictionary) */
	if (args->max_pages > 0)
	{
		s->nstringcols = EMAX(s->nstringcols, prog->dim_strcodes);
		if (prog->dim_bpchar)
			s->page_string_bytes = EMAX(s->page_string_bytes, 2);
	}
	if (s->nstringcols > 0 && args->seed_bytes > 0)
	{
		if (args->seed_bytes > GA_SEED_MAX || (s->seed = malloc(args->seed_bytes)) == NULL)
		{
			snprintf(err, errlen, "no room for the host's strings");
			free(s);
			return NULL;
		}
		memcpy(s->seed, seed, args->seed_bytes);
	}

	if (args->gpu < 0 || args->gpu >= engine_ngpus)
	{
		snprintf(err, errlen, "there is no GPU %d", args->gpu);
		free(s->seed);
		free(s);
		return NULL;
	}
	s->gpu = &engine_gpu[args->gpu];
	if ((r = cu.CtxSetCurrent(s->gpu->context)) != CUDA_SUCCESS)
	{
		engine_session_fail(s, "cuCtxSetCurrent", r);
		snprintf(err, errlen, "%s", s->errbuf);
		free(s->seed);
		free(s);
		return NULL;
	}
	if ((s->mod = engine_module_take(s->gpu, err, errlen)) == NULL)
	{
		free(s->seed);
		free(s);
		return NULL;
	}

#define OPEN_CHECK(call) \
	if (r == CUDA_SUCCESS && (r = (call)) != CUDA_SUCCESS) \
		what = #call

	/*
	 * Page-locked, so copies are DMA from where the batches lie.  If that is
	 * refused the copies are pageable (slower, still right) -- but not when
	 * the range is registered already: that is a stale registration of a
	 * mapping that was unmapped, and nothing here may use it.
	 */
	r = cu.MemHostRegister(host, host_bytes, 0);
	if (r == CUDA_SUCCESS)
		s->registered = true;
	else if (r == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
		what = "cuMemHostRegister";
	else
		r = CUDA_SUCCESS;
	OPEN_CHECK(cu.StreamCreate(&s->s_exec, CU_STREAM_NON_BLOCKING));
	OPEN_CHECK(cu.EventCreate(&s->ev_sync, 0));
	for (int b = 0; b < 2; b++)
	{
		OPEN_CHECK(cu.StreamCreate(&s->s_copy[b], CU_STREAM_NON_BLOCKING));
		OPEN_CHECK(cu.EventCreate(&s->ev_copystart[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_copied[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_kstart[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_consumed[b], 0));
	}
	/* the program into this session's module's constant memory */
	OPEN_CHECK(cu.MemcpyHtoDAsync(s->mod->d_prog, &s->prog, sizeof(GaProgram), s->s_exec));
	OPEN_CHECK(cu.StreamSynchronize(s->s_exec));
#undef OPEN_CHECK
	if (r != CUDA_SUCCESS)
	{
		engine_session_fail(s, what, r);
		snprintf(err, errlen, "%s", s->errbuf);
		ga_engine_close(s);
		return NULL;
	}

	engine_shared_table(s);
	return s;
}

/* Device memory of the session; may return GA_NEED_MEMORY, then again. */
int
ga_engine_start(GaEngineSession *s)
{
	int			err;
	const GaProgram *prog = &s->prog;

	CU_CURRENT(s);
	if (s->started)
		return GA_OK;
	for (int b = 0; b < 2; b++)
		if (!s->d_buf[b] &&
			(err = engine_device_alloc(s, &s->d_buf[b], s->args.batch_bytes)) != GA_OK)
			return err;
	if (!s->d_counters)
	{
		if ((err = engine_device_alloc(s, &s->d_counters,
									   sizeof(unsigned long long) * GA_NCOUNTERS)) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemsetD8Async(s->d_counters, 0,
									 sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
		/* no error yet: the error slot keeps a minimum, so it starts at its top */
		CU_CHECK(s, cu.MemsetD8Async(s->d_counters + sizeof(unsigned long long) * GA_CNT_ERROR,
									 0xff, sizeof(unsigned long long), s->s_exec));
	}
	if (!s->d_table &&
		(err = engine_table_alloc(s, engine_half_load_cap(prog->nkeys == 0 ? 1.0 :
														  s->args.groups + s->args.batch_rows),
								  prog->nkeys, prog->nslots, GA_CNT_GROUPS,
								  &s->table, &s->d_table, &s->table_bytes)) != GA_OK)
		return err;

	/*
	 * Room for the estimated groups and a whole batch of new ones (without
	 * group keys, for the one group), so that engine_make_room grows
	 * nothing when the estimate holds (planner.c's vram_estimate counts the
	 * same).  A distinct set's keys: the group
	 * keys and the value; a counted set's state: the value's rows.
	 */
	for (uint32_t j = 0; j < prog->ndistinct; j++)
		if (!s->d_set[j] &&
			(err = engine_table_alloc(s, engine_half_load_cap(s->args.batch_rows + 1.0),
									  prog->nkeys + 1, ga_set_counted(prog, j),
									  GA_CNT_DISTINCT + j,
									  &s->sets.set[j], &s->d_set[j],
									  &s->set_bytes[j])) != GA_OK)
			return err;
	/*
	 * The blocks' tables, kept across batches: a table (at most the shared
	 * memory of a block) for each block gpuagg_aggregate runs.  Not in
	 * planner.c's estimate: where gpuagg.vram_budget has no room for them
	 * the blocks merge into the group table after each batch instead.
	 */
	s->blocks_bytes = (uint64_t) s->gpu->sm_count * SHARED_BLOCKS_PER_SM * s->shared_cap *
		ga_slot_bytes(prog->nkeys, prog->nslots);
	if (!s->d_blocks && s->shared_cap > 0 && engine_within_budget(s, s->blocks_bytes))
	{
		if ((err = engine_device_alloc(s, &s->d_blocks, s->blocks_bytes)) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemsetD8Async(s->d_blocks, 0, s->blocks_bytes, s->s_exec));
		s->nblocks = (uint32_t) s->gpu->sm_count * SHARED_BLOCKS_PER_SM;
	}
	if (s->nstringcols > 0 && (err = engine_dict_start(s)) != GA_OK)
		return err;
	s->started = true;
	return GA_OK;
}

char *
ga_engine_buffer(GaEngineSession *s, int b)
{
	return s->buf[b];
}

/* Host buffer b may be written once the DMA engine has read it. */
int
ga_engine_wait_buffer(GaEngineSession *s, int b)
{
	CU_CURRENT(s);
	if (s->copy_pending[b])
	{
		float		ms = 0;
		int			err;

		if ((err = wait_event(s, s->ev_copied[b])) != GA_OK)
			return err;
		if (cu.EventElapsedTime(&ms, s->ev_copystart[b], s->ev_copied[b]) == CUDA_SUCCESS)
			s->copy_ms += ms;
		s->copy_pending[b] = false;
	}
	return GA_OK;
}

_Static_assert(3 * GA_NCOUNTERS * sizeof(unsigned long long) + 8 * GA_TOPN_HIST <= GA_ENGINE_SCRATCH,
			   "the counters, their two copies and a top-N's histogram fit the host region's scratch");


/*
 * The kernel of buffer b's last batch is done, and with it the copy of the
 * counters it left: groups, distinct entries and strings there can be are
 * those plus the batch queued since in the other buffer (every row of it
 * new).  That bound is as sure as the one the batches add up, and much
 * tighter, so engine_make_room and engine_dict_room seldom wait for the
 * kernels to read the counters themselves (a wait a batch left one
 * session's GPU idle while its host made the next batch).
 */
static int
tighten_bounds(GaEngineSession *s, int b)
{
	const unsigned long long *c = s->snap[b];
	uint64_t	rows = s->queued_rows[1 - b];

	s->groups_bound = EMIN(s->groups_bound, c[GA_CNT_GROUPS] + engine_join_rows(s, rows, -1));
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		s->set_bound[j] = EMIN(s->set_bound[j], c[GA_CNT_DISTINCT + j] + engine_join_rows(s, rows, j));
	if (s->dict_ready)
	{
		s->dict_n_bound = EMIN(s->dict_n_bound, c[GA_CNT_DICT_N] + s->nstringcols * rows);
		s->dict_b_bound = EMIN(s->dict_b_bound,
							   c[GA_CNT_DICT_BYTES] + s->queued_pages[1 - b] * engine_pages_blcksz);
	}
	/* a row's error, or a string sent back, is known now, not at the end */
	return counters_error(c);
}

/*
 * gpuagg_deform_pages takes the batch, the layout and the dictionary by
 * value: with its other parameters they must fit the 4 kB that kernel
 * parameters may take on any device and driver before CUDA 12.1.
 */
_Static_assert(sizeof(GaBatch) + sizeof(GaTupleLayout) + sizeof(GaDict) + 64 <= 4096,
			   "gpuagg_deform_pages' parameters must fit in 4 kB");

/*
 * A page-form batch: its page list, row starts, visibility bitmaps and
 * layout to the device, the null bitmaps zeroed, and gpuagg_deform_pages
 * to fill the columns from the pages where they lie in the mapped shared
 * buffers, on the copy stream of buffer b.  dbatch gets device addresses.
 */
static int
page_batch(GaEngineSession *s, int b, const GaBatch *batch, GaBatch *dbatch, uint32_t ncols)
{
	const GaTupleLayout *hl = (const GaTupleLayout *) batch->layout;
	GaTupleLayout L = *hl;
	uint64_t	layout_off = (const char *) batch->layout - s->buf[b];
	uint64_t	layout_bytes = GA_LAYOUT_ATTRS_OFF + sizeof(GaAttr) * hl->natts;
	uint64_t	npages = batch->npages;
	uint32_t	npages32 = batch->npages;
	unsigned int grid;
	void	   *params[7];
	const uint32_t *const *arrays[3] = {&batch->pagelist, &batch->pagerows, &batch->pagevis};
	const uint32_t **darrays[3] = {&dbatch->pagelist, &dbatch->pagerows, &dbatch->pagevis};
	uint64_t	words[3] = {npages, npages, npages * GA_PAGE_VIS_WORDS};

	if (!s->gpu->pages_dev || (const char *) batch->pages != engine_pages_host)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "shared buffers are not mapped for the GPU");
		return GA_ERR_DEVICE;
	}
	for (int i = 0; i < 3; i++)
	{
		uint64_t	off = (const char *) *arrays[i] - s->buf[b];

		CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + off, *arrays[i], sizeof(uint32_t) * words[i],
									   s->s_copy[b]));
		*darrays[i] = (const uint32_t *) (s->d_buf[b] + off);
	}
	CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + layout_off, hl, layout_bytes, s->s_copy[b]));
	L.attrs = (const GaAttr *) (s->d_buf[b] + layout_off + GA_LAYOUT_ATTRS_OFF);
	for (uint32_t c = 0; c < ncols; c++)
	{
		uint64_t	voff = (const char *) batch->values[c] - s->buf[b];
		uint64_t	noff = (const char *) batch->nulls[c] - s->buf[b];

		dbatch->values[c] = (const void *) (s->d_buf[b] + voff);
		dbatch->nulls[c] = (const uint8_t *) (s->d_buf[b] + noff);
		/* whole words: the deformer sets bits with atomicOr */
		CU_CHECK(s, cu.MemsetD8Async(s->d_buf[b] + noff, 0,
									 4 * (((uint64_t) batch->nrows + 31) / 32), s->s_copy[b]));
	}
	/* a block a page: the page into shared memory, then its tuples out of it */
	params[0] = dbatch;
	params[1] = &L;
	params[2] = &s->gpu->pages_dev;
	params[3] = &engine_pages_blcksz;
	params[4] = &engine_pages_count;
	params[5] = &s->d_counters;
	params[6] = &s->dict;
	grid = stride_grid(s, npages32, 1, BLOCKS_PER_SM);
	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_deform, grid, 1, 1, GPUAGG_PAGE_BLOCK, 1, 1,
								engine_pages_blcksz, s->s_copy[b], params, NULL));
	return GA_OK;
}

/*
 * Dimension d's arrays (keys, then each column and its null bitmap, whole
 * words) with room for cap rows, one allocation; rows already there are
 * copied (a scanned dimension's arrays grow), the rest zeroed.
 */
static int
dim_arrays(GaEngineSession *s, uint32_t d, uint64_t cap)
{
	const GaDimDesc *dd = &s->prog.dims[d];
	GaDimData  *dm = &s->dims.dim[d];
	GaDimData	old = *dm;
	uint64_t	oldcap = s->dim_cap[d];
	CUdeviceptr mem = 0;
	CUdeviceptr at;
	uint64_t	bytes = ALIGN16(8 * cap) * dd->nkeys;
	int			err;

	for (int j = 0; j < dd->ncols; j++)
		bytes += ALIGN16((uint64_t) ga_type_width(dd->coltype[j]) * cap) +
			ALIGN16(4 * ((cap + 31) / 32));
	bytes = EMAX(bytes, 16);
	if ((err = engine_device_alloc(s, &mem, bytes)) != GA_OK)
		return err;
	CU_CHECK(s, cu.MemsetD8Async(mem, 0, bytes, s->s_exec));
	at = mem;
	for (int k = 0; k < dd->nkeys; k++)
	{
		dm->keys[k] = (int64_t *) at;
		if (oldcap)
			CU_CHECK(s, cu.MemcpyDtoDAsync(at, (CUdeviceptr) old.keys[k], 8 * oldcap, s->s_exec));
		at += ALIGN16(8 * cap);
	}
	for (int j = 0; j < dd->ncols; j++)
	{
		uint64_t	w = ga_type_width(dd->coltype[j]);

		dm->cols[j] = (void *) at;
		if (oldcap && w)
			CU_CHECK(s, cu.MemcpyDtoDAsync(at, (CUdeviceptr) old.cols[j], w * oldcap, s->s_exec));
		at += ALIGN16(w * cap);
		dm->nulls[j] = (uint8_t *) at;
		if (oldcap)
			CU_CHECK(s, cu.MemcpyDtoDAsync(at, (CUdeviceptr) old.nulls[j],
										   4 * ((oldcap + 31) / 32), s->s_exec));
		at += ALIGN16(4 * ((cap + 31) / 32));
	}
	/* (the kernels that wrote the old arrays, and the copies, are done) */
	CU_CHECK(s, cu.StreamSynchronize(s->s_exec));
	engine_device_free(s, &s->d_dim[d], s->dim_bytes[d]);
	s->d_dim[d] = mem;
	s->dim_bytes[d] = bytes;
	s->dim_cap[d] = cap;
	return GA_OK;
}

/*
 * Dimension d's n rows are in its arrays: its hash table (gpuagg_dim_build:
 * slots, each row's next, the repeat flag) and the dimensions to the
 * kernels, saying whether a key repeats; an inner or left join's longest
 * chain multiplies s->fanout.
 */
static int
dim_build(GaEngineSession *s, uint32_t d, uint64_t n)
{
	const GaDimDesc *dd = &s->prog.dims[d];
	GaDimData  *dm = &s->dims.dim[d];
	uint64_t	cap = ga_dim_cap(n);
	uint64_t	bytes = ALIGN16(4 * cap) + ALIGN16(4 * n) + 16;
	uint32_t	flags[2] = {0, 0};	/* the repeat flag, the longest chain */
	int			err;

	if (n >= UINT32_MAX)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "a joined table has more rows than a device holds");
		return GA_ERR_DEVICE;
	}
	if (!s->d_dims &&
		(err = engine_device_alloc(s, &s->d_dims, sizeof(GaDims))) != GA_OK)
		return err;
	if ((err = engine_device_alloc(s, &s->d_slots[d], bytes)) != GA_OK)
		return err;
	s->slots_bytes[d] = bytes;
	CU_CHECK(s, cu.MemsetD8Async(s->d_slots[d], 0, bytes, s->s_exec));
	dm->nrows = n;
	dm->cap = cap;
	dm->slots = (uint32_t *) s->d_slots[d];
	dm->next = (uint32_t *) (s->d_slots[d] + ALIGN16(4 * cap));
	dm->dup = (uint32_t *) (s->d_slots[d] + ALIGN16(4 * cap) + ALIGN16(4 * n));
	dm->multi = 0;
	CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_dims, &s->dims, sizeof(GaDims), s->s_exec));
	if (n > 0)
	{
		void	   *params[2] = {&s->d_dims, &d};

		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_dim_build,
									stride_grid(s, n, GPUAGG_BLOCK, BLOCKS_PER_SM), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
	}
	CU_CHECK(s, cu.MemcpyDtoHAsync(flags, (CUdeviceptr) dm->dup, sizeof(flags[0]), s->s_exec));
	CU_CHECK(s, cu.StreamSynchronize(s->s_exec));
	if (flags[0])
	{
		/* (a pageable copy: the struct is in staging once this returns) */
		dm->multi = 1;
		CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_dims, &s->dims, sizeof(GaDims), s->s_exec));
	}
	if (flags[0] && (dd->kind == GA_JOIN_INNER || dd->kind == GA_JOIN_LEFT))
	{
		void	   *params[3] = {&s->d_dims, &d, NULL};
		CUdeviceptr longest = (CUdeviceptr) (dm->dup + 1);

		params[2] = &longest;
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_dim_chains,
									stride_grid(s, cap, GPUAGG_BLOCK, BLOCKS_PER_SM), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		CU_CHECK(s, cu.MemcpyDtoHAsync(&flags[1], longest, sizeof(flags[1]), s->s_exec));
		CU_CHECK(s, cu.StreamSynchronize(s->s_exec));
		s->fanout = EMAX(s->fanout, 1);
		s->fanout = flags[1] > UINT32_MAX / s->fanout ? UINT32_MAX :
			s->fanout * EMAX(flags[1], 1);
	}
	s->dims_ready++;
	return GA_OK;
}

/*
 * Rows of a dimension (batch->dim - 1) from host buffer b into its arrays;
 * after its last rows, its hash table.
 */
static int
add_dim(GaEngineSession *s, int b, const GaBatch *batch)
{
	uint32_t	d = batch->dim - 1;
	const GaDimDesc *dd = &s->prog.dims[d];
	GaDimData  *dm = &s->dims.dim[d];
	uint64_t	n = batch->dim_rows;
	uint64_t	first = batch->dim_first;
	int			err;

	if (d >= s->prog.ndims || first % 8 != 0 || first + batch->nrows > n ||
		(first > 0 && !s->d_dim[d]) || d != s->dims_ready || dd->scan)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "a joined table's rows came out of order");
		return GA_ERR_DEVICE;
	}
	if (first == 0 && s->dim_cap[d] < n && (err = dim_arrays(s, d, n)) != GA_OK)
		return err;
	CU_CHECK(s, cu.EventRecord(s->ev_copystart[b], s->s_copy[b]));
	for (int k = 0; k < dd->nkeys && batch->nrows > 0; k++)
		CU_CHECK(s, cu.MemcpyHtoDAsync((CUdeviceptr) (dm->keys[k] + first), batch->values[k],
									   8 * (size_t) batch->nrows, s->s_copy[b]));
	for (int j = 0; j < dd->ncols && batch->nrows > 0; j++)
	{
		int			w = ga_type_width(dd->coltype[j]);

		if (w > 0)
			CU_CHECK(s, cu.MemcpyHtoDAsync((CUdeviceptr) dm->cols[j] + w * first,
										   batch->values[dd->nkeys + j],
										   (size_t) w * batch->nrows, s->s_copy[b]));
		if (batch->nulls[dd->nkeys + j])
			CU_CHECK(s, cu.MemcpyHtoDAsync((CUdeviceptr) dm->nulls[j] + first / 8,
										   batch->nulls[dd->nkeys + j],
										   ((size_t) batch->nrows + 7) / 8, s->s_copy[b]));
	}
	CU_CHECK(s, cu.EventRecord(s->ev_copied[b], s->s_copy[b]));
	s->copy_pending[b] = true;
	if (first + batch->nrows < n)
		return GA_OK;
	/* all its rows copied (both buffers' copies so far) */
	for (int i = 0; i < 2; i++)
		CU_CHECK(s, cu.StreamWaitEvent(s->s_exec, s->ev_copied[i], 0));
	return dim_build(s, d, n);
}

static int	page_batch(GaEngineSession *s, int b, const GaBatch *batch, GaBatch *dbatch,
					   uint32_t ncols);

/*
 * A dimension the device scans (GaDimDesc.scan): its program (3), a page
 * batch of its table (1), the end of them (2: its hash table).
 */
static int
scan_dim(GaEngineSession *s, int b, const GaBatch *batch)
{
	uint32_t	d = batch->dim - 1;
	GaBatch		dbatch = *batch;
	void	   *params[7];
	CUdeviceptr count;
	int			err;

	if (d >= s->prog.ndims || !s->prog.dims[d].scan || d != s->dims_ready ||
		(batch->dim_scan != 3 && !s->dimprog[d]))
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "a joined table's rows came out of order");
		return GA_ERR_DEVICE;
	}
	if (!s->d_dims &&
		(err = engine_device_alloc(s, &s->d_dims, sizeof(GaDims))) != GA_OK)
		return err;
	if (!s->d_dimcount)
	{
		if ((err = engine_device_alloc(s, &s->d_dimcount, 8 * GA_MAX_DIMS)) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemsetD8Async(s->d_dimcount, 0, 8 * GA_MAX_DIMS, s->s_exec));
	}
	count = s->d_dimcount + 8 * d;
	if (batch->dim_scan == 3)
	{
		/* the program: here and on the device; room for the rows expected */
		if (!s->dimprog[d] && (s->dimprog[d] = malloc(sizeof(GaProgram))) == NULL)
		{
			snprintf(s->errbuf, sizeof(s->errbuf), "out of memory");
			return GA_ERR_DEVICE;
		}
		memcpy(s->dimprog[d], batch->values[0], sizeof(GaProgram));
		if (s->dimprog[d]->abi_version != GA_ABI_VERSION || !s->dimprog[d]->dimscan)
		{
			snprintf(s->errbuf, sizeof(s->errbuf), "a joined table's program is not one");
			return GA_ERR_DEVICE;
		}
		if (!s->d_dimprog[d] &&
			(err = engine_device_alloc(s, &s->d_dimprog[d], sizeof(GaProgram))) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_dimprog[d], s->dimprog[d], sizeof(GaProgram),
									   s->s_exec));
		CU_CHECK(s, cu.StreamSynchronize(s->s_exec));
		if (s->dim_cap[d] < EMAX(batch->dim_rows, 1024) &&
			(err = dim_arrays(s, d, EMAX(batch->dim_rows, 1024))) != GA_OK)
			return err;
		s->dim_sent[d] = 0;
		return GA_OK;
	}
	if (batch->dim_scan == 2)
	{
		unsigned long long n = 0;

		CU_CHECK(s, cu.MemcpyDtoHAsync(&n, count, sizeof(n), s->s_exec));
		CU_CHECK(s, cu.StreamSynchronize(s->s_exec));
		if (n > s->dim_sent[d] || n > s->dim_cap[d])
		{
			snprintf(s->errbuf, sizeof(s->errbuf), "a joined table has more rows than a device holds");
			return GA_ERR_DEVICE;
		}
		return dim_build(s, d, n);
	}

	/* a page batch: room for each of its rows first, its buffer free */
	if (!batch->pagelist || batch->npages > s->args.max_pages || !s->gpu->pages_dev)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "a joined table's batch is not in page form");
		return GA_ERR_DEVICE;
	}
	if (s->kernel_pending[b])
	{
		if ((err = wait_event(s, s->ev_consumed[b])) != GA_OK)
			return err;
		s->kernel_pending[b] = false;
		if ((err = tighten_bounds(s, b)) != GA_OK)
			return err;
	}
	if (s->dim_sent[d] + batch->nrows > s->dim_cap[d])
	{
		uint64_t	cap = s->dim_cap[d];

		while (cap < s->dim_sent[d] + batch->nrows)
			cap *= 2;
		if ((err = dim_arrays(s, d, cap)) != GA_OK)
			return err;
	}
	if (s->nstringcols > 0 && (err = engine_dict_room(s, batch->nrows, batch->npages)) != GA_OK)
		return err;
	CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_dims, &s->dims, sizeof(GaDims), s->s_exec));
	CU_CHECK(s, cu.EventRecord(s->ev_copystart[b], s->s_copy[b]));
	if ((err = page_batch(s, b, batch, &dbatch, s->dimprog[d]->ncols)) != GA_OK)
		return err;
	CU_CHECK(s, cu.EventRecord(s->ev_copied[b], s->s_copy[b]));
	s->copy_pending[b] = true;
	s->queued_rows[b] = batch->nrows;
	s->queued_pages[b] = batch->npages;
	s->dict_n_bound += (uint64_t) s->nstringcols * batch->nrows;
	s->dict_b_bound += (uint64_t) batch->npages * engine_pages_blcksz * s->page_string_bytes;
	CU_CHECK(s, cu.StreamWaitEvent(s->s_exec, s->ev_copied[b], 0));
	CU_CHECK(s, cu.EventRecord(s->ev_kstart[b], s->s_exec));
	params[0] = &dbatch;
	params[1] = &s->d_dimprog[d];
	params[2] = &s->d_dims;
	params[3] = &d;
	params[4] = &count;
	params[5] = &s->d_counters;
	params[6] = &s->dim_sent[d];
	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_dim_scan,
								stride_grid(s, batch->nrows, GPUAGG_BLOCK, BLOCKS_PER_SM), 1, 1,
								GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
	CU_CHECK(s, cu.MemcpyDtoHAsync(s->snap[b], s->d_counters,
								   sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	CU_CHECK(s, cu.EventRecord(s->ev_consumed[b], s->s_exec));
	s->kernel_pending[b] = true;
	s->dim_sent[d] += batch->nrows;
	CU_CHECK(s, cu.StreamWaitEvent(s->s_copy[b], s->ev_consumed[b], 0));
	/* (the caller unpins the previous batch's pages when this returns) */
	return ga_engine_wait_buffer(s, 1 - b);
}

int
ga_engine_add_batch(GaEngineSession *s, int b, const GaBatch *batch)
{
	GaBatch		dbatch = *batch;
	GaTable		table;
	void	   *params[8];
	unsigned int grid;
	int			err;

	CU_CURRENT(s);
	if (batch->dim)
		return batch->dim_scan ? scan_dim(s, b, batch) : add_dim(s, b, batch);
	if (s->dims_ready != s->prog.ndims)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "rows came before the joined tables'");
		return GA_ERR_DEVICE;
	}
	/* (an inner or semi join with an empty table: no row to fold) */
	if (s->prog.ndims > 0 && ga_join_none(&s->prog, &s->dims))
		return ga_engine_wait_buffer(s, 1 - b);
	/* page form: shared buffers mapped, and no more pages than announced */
	if (batch->pagelist && (!s->gpu->pages_dev || batch->npages > s->args.max_pages))
	{
		snprintf(s->errbuf, sizeof(s->errbuf), !s->gpu->pages_dev ?
				 "shared buffers are not mapped for the GPU" :
				 "a page-form batch has more pages than announced");
		return GA_ERR_DEVICE;
	}
	/*
	 * Device buffer b is free once the kernel of two batches ago is done;
	 * the counters it left say how much room the tables need.
	 */
	if (s->kernel_pending[b])
	{
		float		ms = 0;

		if ((err = wait_event(s, s->ev_consumed[b])) != GA_OK)
			return err;
		if (cu.EventElapsedTime(&ms, s->ev_kstart[b], s->ev_consumed[b]) == CUDA_SUCCESS)
			s->kernel_ms += ms;
		s->kernel_pending[b] = false;
		if ((err = tighten_bounds(s, b)) != GA_OK)
			return err;
	}
	if ((err = engine_make_room(s, batch->nrows)) != GA_OK)
		return err;
	if (batch->pagelist && s->nstringcols > 0 &&
		(err = engine_dict_room(s, batch->nrows, batch->npages)) != GA_OK)
		return err;

	/* columns to the device on this buffer's copy stream */
	CU_CHECK(s, cu.EventRecord(s->ev_copystart[b], s->s_copy[b]));
	if (batch->pagelist)
	{
		if ((err = page_batch(s, b, batch, &dbatch, s->prog.ncols)) != GA_OK)
			return err;
	}
	else
	for (uint32_t c = 0; c < s->prog.ncols; c++)
	{
		int			w = ga_type_width(s->prog.cols[c].type);

		if (s->prog.cols[c].dim)
		{
			/* a dimension's: the join fills it (its bitmap zeroed first) */
			uint64_t	off = (const char *) batch->values[c] - s->buf[b];
			uint64_t	noff = (const char *) batch->nulls[c] - s->buf[b];

			if ((w > 0 && !batch->values[c]) || !batch->nulls[c])
			{
				snprintf(s->errbuf, sizeof(s->errbuf), "a joined column has no room");
				return GA_ERR_DEVICE;
			}
			/* (a column only NULL-ness is read of has no values) */
			dbatch.values[c] = w > 0 ? (const void *) (s->d_buf[b] + off) : NULL;
			dbatch.nulls[c] = (const uint8_t *) (s->d_buf[b] + noff);
			CU_CHECK(s, cu.MemsetD8Async(s->d_buf[b] + noff, 0,
										 4 * (((uint64_t) batch->nrows + 31) / 32),
										 s->s_copy[b]));
			continue;
		}
		if (batch->values[c] && w > 0)
		{
			uint64_t	off = (const char *) batch->values[c] - s->buf[b];

			CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + off, batch->values[c],
										   (size_t) batch->nrows * w, s->s_copy[b]));
			dbatch.values[c] = (const void *) (s->d_buf[b] + off);
		}
		if (batch->nulls[c])
		{
			uint64_t	off = (const char *) batch->nulls[c] - s->buf[b];

			CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + off, batch->nulls[c],
										   (batch->nrows + 7) / 8, s->s_copy[b]));
			dbatch.nulls[c] = (const uint8_t *) (s->d_buf[b] + off);
		}
	}
	CU_CHECK(s, cu.EventRecord(s->ev_copied[b], s->s_copy[b]));
	s->copy_pending[b] = true;
	s->groups_bound += engine_join_rows(s, batch->nrows, -1);
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		s->set_bound[j] += engine_join_rows(s, batch->nrows, j);
	s->queued_rows[b] = batch->nrows;
	s->queued_pages[b] = batch->pagelist ? batch->npages : 0;
	if (batch->pagelist)
	{
		s->dict_n_bound += (uint64_t) s->nstringcols * batch->nrows;
		s->dict_b_bound += (uint64_t) batch->npages * engine_pages_blcksz *
			s->page_string_bytes;
	}

	CU_CHECK(s, cu.StreamWaitEvent(s->s_exec, s->ev_copied[b], 0));
	CU_CHECK(s, cu.EventRecord(s->ev_kstart[b], s->s_exec));
	table = s->table;
	if (s->args.inject_fault)
		table.ctrl = (uint32_t *) (uintptr_t) 0x8;	/* test: an illegal address */
	params[0] = &dbatch;
	params[1] = &table;
	params[2] = &s->shared_cap;
	params[3] = &s->rows_seen;
	params[4] = &s->sets;
	params[5] = &s->d_blocks;
	params[6] = &s->d_dims;
	/* (no more blocks than block tables) */
	grid = stride_grid(s, batch->nrows, GPUAGG_BLOCK,
					   s->shared_cap ? SHARED_BLOCKS_PER_SM : BLOCKS_PER_SM);
	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_aggregate, grid, 1, 1, GPUAGG_BLOCK, 1, 1,
								s->smem_bytes, s->s_exec, params, NULL));
	/* the counters as this batch leaves them, in hand with ev_consumed[b] */
	CU_CHECK(s, cu.MemcpyDtoHAsync(s->snap[b], s->d_counters,
								   sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	CU_CHECK(s, cu.EventRecord(s->ev_consumed[b], s->s_exec));
	s->kernel_pending[b] = true;
	s->rows_seen += batch->nrows;
	/* the next copy into device buffer b waits for this kernel */
	CU_CHECK(s, cu.StreamWaitEvent(s->s_copy[b], s->ev_consumed[b], 0));
	/*
	 * Page form: the caller unpins the previous batch's pages when this
	 * returns, so wait for the kernel that read them (on the other buffer's
	 * copy stream, queued before this batch's; long done, mostly).  This
	 * batch's pages stay pinned while the next batch is filled.
	 */
	if (batch->pagelist && (err = ga_engine_wait_buffer(s, 1 - b)) != GA_OK)
		return err;
	return GA_OK;
}

/*
 * Ordered-set aggregate a: its states in the packed states (n groups) from
 * the m entries (group, value, rows) of its counted set, as cpu_select
 * makes them: each group's n, then the mode, or the percentile's rows by
 * a radix select (gpuagg_eval.h's ga_osa_*), in scratch: 2 n rows to find
 * and 2 n histograms.
 */
static int
osa_select(GaEngineSession *s, uint32_t a, CUdeviceptr group, CUdeviceptr value,
		   CUdeviceptr rows, uint64_t m, CUdeviceptr states, uint64_t n,
		   CUdeviceptr scratch)
{
	int			ntargets = s->prog.aggs[a].kind == GA_AGG_PCT_CONT ? 2 : 1;
	CUdeviceptr rest = scratch;
	CUdeviceptr hist = scratch + 16 * n;
	unsigned int eg = stride_grid(s, m, GPUAGG_BLOCK, BLOCKS_PER_SM);
	unsigned int gg = stride_grid(s, 2 * n, GPUAGG_BLOCK, BLOCKS_PER_SM);
	void	   *pc[6] = {&a, &group, &rows, &m, &states, &n};
	void	   *ps[4] = {&a, &states, &n, &rest};

	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_osa_count, eg, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
								s->s_exec, pc, NULL));
	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_osa_start, gg, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
								s->s_exec, ps, NULL));
	if (s->prog.aggs[a].kind == GA_AGG_MODE)
	{
		void	   *pm[7] = {&a, &group, &value, &rows, &m, &states, &n};

		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_osa_mode, eg, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
									s->s_exec, pm, NULL));
		return GA_OK;
	}
	CU_CHECK(s, cu.MemsetD8Async(hist, 0, (uint64_t) ntargets * n * GA_OSA_DIGITS * 8,
								 s->s_exec));
	for (int pass = 0; pass < GA_OSA_PASSES; pass++)
	{
		void	   *ph[10] = {&a, &group, &value, &rows, &m, &states, &n, &hist, &pass,
							  &ntargets};
		void	   *pp[7] = {&a, &states, &n, &hist, &rest, &pass, &ntargets};

		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_osa_hist, eg, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
									s->s_exec, ph, NULL));
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_osa_pick, gg, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
									s->s_exec, pp, NULL));
	}
	return GA_OK;
}

/*
 * Add the block tables into their groups, count the distinct sets into
 * theirs, pack the groups (and the pairs of the sets the host folds) in device
 * memory, and say how many there are; ga_engine_fetch then brings them
 * back.
 */
int
ga_engine_finish(GaEngineSession *s, GaEngineShape *shape)
{
	unsigned long long counters[GA_NCOUNTERS];
	uint32_t	nk = s->prog.nkeys;
	uint32_t	ns = s->prog.nslots;
	uint64_t	n,
				total;
	uint64_t	npairs = 0,
				nrows = 0;
	uint64_t	bytes,
				pairs_at,
				osa_at,
				hist_at;
	bool		osa = false;
	GaTopNBound bound;
	int			err;

	CU_CURRENT(s);
	if (s->finish_stage == 2)
	{
		*shape = s->shape;
		return GA_OK;
	}
	if ((err = engine_read_counters(s, counters)) != GA_OK)
		return err;
	if (s->finish_stage == 0)
	{
		for (int b = 0; b < 2; b++)
		{
			float		ms = 0;

			if (s->kernel_pending[b] &&
				cu.EventElapsedTime(&ms, s->ev_kstart[b], s->ev_consumed[b]) == CUDA_SUCCESS)
				s->kernel_ms += ms;
			s->kernel_pending[b] = false;
			ms = 0;
			if (s->copy_pending[b] &&
				cu.EventElapsedTime(&ms, s->ev_copystart[b], s->ev_copied[b]) == CUDA_SUCCESS)
				s->copy_ms += ms;
			s->copy_pending[b] = false;
		}
		s->finish_stage = 1;
	}

	/*
	 * room for the packed groups, the slot positions and the pairs, and a
	 * top-N's histogram
	 */
	total = counters[GA_CNT_GROUPS];
	for (uint32_t a = 0; a < s->prog.naggs; a++)
		if (ga_agg_set_pairs(&s->prog.aggs[a]))
		{
			uint64_t	m = counters[GA_CNT_DISTINCT + s->prog.aggs[a].distinct];

			npairs += m;
			if (ga_agg_ordered(s->prog.aggs[a].kind))
			{
				nrows += m;
				/* (the host selects strings: no histograms) */
				osa |= !s->prog.aggs[a].host_select;
			}
		}
	bytes = ALIGN16((8 * (uint64_t) nk + 8 * (uint64_t) ns + nk) * total + 16);
	pairs_at = bytes;
	/* (group, value) pairs, and the rows of a counted set's */
	if (npairs > 0)
		bytes += 8 * s->table.cap + 16 * npairs + 8 * nrows + 8 * GA_MAX_DISTINCT;
	/* an ordered-set aggregate's rows to find, and its select's histograms */
	osa_at = bytes;
	if (osa)
		bytes += (16 + 16 * GA_OSA_DIGITS) * total;
	hist_at = bytes;
	bytes += 8 * GA_TOPN_HIST;
	if (!s->d_out)
	{
		if ((err = engine_device_alloc(s, &s->d_out, bytes)) != GA_OK)
			return err;
		s->out_bytes = bytes;
	}

	/* the block tables into their groups */
	if (s->nblocks > 0)
	{
		void	   *params[4] = {&s->table, &s->d_blocks, &s->shared_cap, &s->nblocks};

		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_block_fold,
									stride_grid(s, (uint64_t) s->nblocks * s->shared_cap,
												GPUAGG_BLOCK, BLOCKS_PER_SM),
									1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
	}

	/* count(DISTINCT): each set's entries into their groups' counts */
	for (uint32_t a = 0; a < s->prog.naggs; a++)
	{
		const GaAgg *ag = &s->prog.aggs[a];
		uint32_t	slot = ag->slot;
		void	   *params[3];

		if (ag->distinct < 0 || ga_agg_set_pairs(ag))
			continue;
		params[0] = &s->sets.set[ag->distinct];
		params[1] = &s->table;
		params[2] = &slot;
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_fold, table_grid(s, &s->sets.set[ag->distinct]),
									1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
	}

	/* GPU Top-N: only the groups that can rank among the n are packed */
	ga_topn_start(&bound, total);
	if (ga_topn_applies(&s->prog, total) &&
		(err = topn_select(s, s->d_out + hist_at, &bound)) != GA_OK)
		return err;
	/* ... HAVING checks: those that pass them (none with pairs: planned so) */
	if (s->prog.nhaving > 0 && total > 0 && npairs == 0)
	{
		CUdeviceptr count = s->d_out + hist_at;
		void	   *params[2] = {&s->table, &count};

		CU_CHECK(s, cu.MemsetD8Async(count, 0, 8, s->s_exec));
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_having_count, table_grid(s, &s->table), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		CU_CHECK(s, cu.MemcpyDtoHAsync(s->topn_hist, count, 8, s->s_exec));
		if ((err = engine_wait_exec(s)) != GA_OK)
			return err;
		if (s->topn_hist[0] > total)
			return GA_ERR_INTERNAL;
		bound.within = s->topn_hist[0];
	}
	else if (s->prog.nhaving > 0 && npairs > 0)
		return GA_ERR_INTERNAL;
	n = bound.below + bound.within;
	memset(&s->shape, 0, sizeof(s->shape));
	if (n > 0)
	{
		CUdeviceptr keys,
					states,
					keynulls,
					pos,
					slotpos = 0;
		void	   *params[8];

		pos = s->d_out;
		keys = s->d_out + 8;
		states = keys + 8 * (uint64_t) nk * n;
		keynulls = states + 8 * (uint64_t) ns * n;
		if (npairs > 0)
			slotpos = s->d_out + pairs_at;
		s->part_addr[GA_PART_KEYS] = keys;
		s->part_bytes[GA_PART_KEYS] = 8 * (uint64_t) nk * n;
		s->part_addr[GA_PART_KEYNULLS] = keynulls;
		s->part_bytes[GA_PART_KEYNULLS] = (uint64_t) nk * n;
		s->part_addr[GA_PART_STATES] = states;
		s->part_bytes[GA_PART_STATES] = 8 * (uint64_t) ns * n;
		CU_CHECK(s, cu.MemsetD8Async(pos, 0, 8, s->s_exec));
		params[0] = &s->table;
		params[1] = &keys;
		params[2] = &keynulls;
		params[3] = &states;
		params[4] = &pos;
		params[5] = &n;
		params[6] = &slotpos;
		params[7] = &bound;
		CU_CHECK(s, cu.LaunchKernel(s->mod->fn_compact, table_grid(s, &s->table), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		/* how many it packed, read with the counters below */
		CU_CHECK(s, cu.MemcpyDtoHAsync(s->topn_hist, pos, 8, s->s_exec));
		if (npairs > 0)
		{
			CUdeviceptr next = slotpos + 8 * s->table.cap;
			CUdeviceptr count = next;

			next += 8 * GA_MAX_DISTINCT;
			CU_CHECK(s, cu.MemsetD8Async(count, 0, 8 * GA_MAX_DISTINCT, s->s_exec));
			for (uint32_t a = 0; a < s->prog.naggs; a++)
			{
				const GaAgg *ag = &s->prog.aggs[a];
				int			j = ag->distinct;
				uint64_t	m;
				CUdeviceptr group,
							value,
							rows = 0,
							cnt;
				void	   *pp[8];

				if (!ga_agg_set_pairs(ag))
					continue;
				m = counters[GA_CNT_DISTINCT + j];
				if (m == 0)
					continue;
				group = next;
				value = next + 8 * m;
				cnt = count + 8 * j;
				next += 16 * m;
				if (ga_agg_ordered(ag->kind))
				{
					rows = next;
					next += 8 * m;
				}
				if (ga_agg_host_folds(ag))
				{
					s->shape.npairs[j] = m;
					s->part_addr[GA_PART_PAIRGROUP + 2 * j] = group;
					s->part_bytes[GA_PART_PAIRGROUP + 2 * j] = 8 * m;
					s->part_addr[GA_PART_PAIRVALUE + 2 * j] = value;
					s->part_bytes[GA_PART_PAIRVALUE + 2 * j] = 8 * m;
					/* (an ordered-set aggregate of strings: its rows too) */
					s->part_addr[GA_PART_PAIRROWS + j] = rows;
					s->part_bytes[GA_PART_PAIRROWS + j] = rows ? 8 * m : 0;
				}
				pp[0] = &s->sets.set[j];
				pp[1] = &s->table;
				pp[2] = &slotpos;
				pp[3] = &group;
				pp[4] = &value;
				pp[5] = &cnt;
				pp[6] = &m;
				pp[7] = &rows;
				CU_CHECK(s, cu.LaunchKernel(s->mod->fn_pairs, table_grid(s, &s->sets.set[j]),
											1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, pp, NULL));
				if (rows && !ag->host_select &&
					(err = osa_select(s, a, group, value, rows, m, states, n,
									  s->d_out + osa_at)) != GA_OK)
					return err;
			}
		}
	}
	/*
	 * errors of the folds and the pairs (internal) are in the counters; a
	 * group gpuagg_block_fold had to make was not there to be packed, and
	 * the compaction packed as many groups as there was room for
	 */
	if ((err = engine_read_counters(s, counters)) != GA_OK)
		return err;
	if (counters[GA_CNT_GROUPS] != total || (n > 0 && s->topn_hist[0] != n))
		return GA_ERR_INTERNAL;
	if (s->dict_ready)
	{
		/* the strings the device coded after the host's */
		uint64_t	first = s->args.nseed;
		uint64_t	m = counters[GA_CNT_DICT_N] - first;

		s->shape.nstrings = m;
		s->shape.strings_first = (uint32_t) first;
		s->shape.strbytes = counters[GA_CNT_DICT_BYTES];
		s->part_addr[GA_PART_STRLEN] = (CUdeviceptr) (s->dict.str_len + first);
		s->part_bytes[GA_PART_STRLEN] = 4 * m;
		s->part_addr[GA_PART_STRAT] = (CUdeviceptr) (s->dict.str_at + first);
		s->part_bytes[GA_PART_STRAT] = 8 * m;
		s->part_addr[GA_PART_STRBYTES] = s->d_arena;
		s->part_bytes[GA_PART_STRBYTES] = s->shape.strbytes;
	}
	s->shape.ngroups = n;
	s->shape.groups = total;
	s->shape.rows_passed = counters[GA_CNT_PASSED];
	s->shape.device_ms = s->kernel_ms;
	s->shape.transfer_ms = s->copy_ms;
	s->finish_stage = 2;
	*shape = s->shape;
	return GA_OK;
}

int
ga_engine_fetch(GaEngineSession *s, int part, uint64_t offset, uint64_t bytes, void *dst)
{
	CU_CURRENT(s);
	if (s->finish_stage != 2 || part < 0 || part >= GA_NPARTS ||
		offset + bytes > s->part_bytes[part])
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "fetch of a result part that is not there");
		return GA_ERR_DEVICE;
	}
	if (bytes == 0)
		return GA_OK;
	CU_CHECK(s, cu.MemcpyDtoHAsync(dst, s->part_addr[part] + offset, bytes, s->s_exec));
	return engine_wait_exec(s);
}

uint64_t
ga_engine_need(GaEngineSession *s)
{
	return s->need;
}

void
ga_engine_grant(GaEngineSession *s, uint64_t bytes)
{
	s->args.reserved += bytes;
	s->need = 0;
}

const char *
ga_engine_error(GaEngineSession *s)
{
	return s->errbuf;
}

void
ga_engine_close(GaEngineSession *s)
{
	if (s == NULL)
		return;
	/*
	 * A cancelled or stopping session does not wait for its aggregation
	 * kernels; it does wait for the copy streams, whose kernels may read
	 * pages the backend unpins once this returns (they take milliseconds).
	 */
	if (s->gpu && cu.CtxSetCurrent(s->gpu->context) == CUDA_SUCCESS && !engine_broken)
	{
		if (s->s_exec && !(s->cancel && *s->cancel))
			cu.StreamSynchronize(s->s_exec);
		for (int b = 0; b < 2; b++)
			if (s->s_copy[b])
				cu.StreamSynchronize(s->s_copy[b]);
	}
	for (int b = 0; b < 2; b++)
	{
		if (s->s_copy[b])
			cu.StreamDestroy(s->s_copy[b]);
		if (s->ev_copystart[b])
			cu.EventDestroy(s->ev_copystart[b]);
		if (s->ev_copied[b])
			cu.EventDestroy(s->ev_copied[b]);
		if (s->ev_kstart[b])
			cu.EventDestroy(s->ev_kstart[b]);
		if (s->ev_consumed[b])
			cu.EventDestroy(s->ev_consumed[b]);
		engine_device_free(s, &s->d_buf[b], s->args.batch_bytes);
	}
	engine_device_free(s, &s->d_table, s->table_bytes);
	engine_device_free(s, &s->d_blocks, s->blocks_bytes);
	engine_device_free(s, &s->d_out, s->out_bytes);
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
		engine_device_free(s, &s->d_set[j], s->set_bytes[j]);
	engine_device_free(s, &s->d_dict, s->dict_bytes);
	engine_device_free(s, &s->d_arena, s->dict.arena_cap);
	engine_device_free(s, &s->d_counters, sizeof(unsigned long long) * GA_NCOUNTERS);
	for (int d = 0; d < GA_MAX_DIMS; d++)
	{
		engine_device_free(s, &s->d_dim[d], s->dim_bytes[d]);
		engine_device_free(s, &s->d_slots[d], s->slots_bytes[d]);
		engine_device_free(s, &s->d_dimprog[d], sizeof(GaProgram));
		free(s->dimprog[d]);
	}
	engine_device_free(s, &s->d_dims, sizeof(GaDims));
	engine_device_free(s, &s->d_dimcount, 8 * GA_MAX_DIMS);
	if (s->ev_sync)
		cu.EventDestroy(s->ev_sync);
	if (s->s_exec)
		cu.StreamDestroy(s->s_exec);
	if (s->registered)
		cu.MemHostUnregister(s->host);
	if (s->mod)
		engine_module_give(s->mod);
	free(s->seed);
	free(s);
}
