/*-------------------------------------------------------------------------
 *
 * device_cuda.c
 *		The "cuda" device (device.h): a backend's client of the CUDA process.
 *
 * A query that runs on the GPU reserves its device memory in the ledger
 * (ledger.c), which picks its GPU, then creates a dynamic shared memory
 * segment holding a call block and the engine's host region (the two batch
 * buffers), and queues the segment's handle with the GPU service
 * (service.c), which hands it to the CUDA process (cuda_process.c).  From
 * then on the backend makes its calls through the call block (call.h).  The
 * batch reader writes each batch straight into the segment, which the CUDA
 * process has page-locked, so the GPU copies from where the backend wrote.
 * The result comes back through the same buffers, a buffer-full at a time.
 *
 * Device memory beyond the reservation: the engine answers GA_NEED_MEMORY;
 * the backend grows its reservation in the ledger and repeats the call.
 *
 * Faults: an engine error fails the query over to the CPU device (the
 * executor does that).  If the CUDA process dies, or the service stops, the
 * service's generation changes; a backend waiting for an answer sees that
 * and fails over too.
 *
 * In a single-user backend there is no service: the same calls run in the
 * backend itself ("direct").
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <unistd.h>

#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "storage/dsm.h"
#include "utils/memutils.h"

#include "call.h"
#include "device.h"
#include "engine.h"
#include "gpuagg.h"
#include "ledger.h"
#include "service.h"


typedef struct CudaClient
{
	MemoryContext cxt;
	GaProgram	prog;
	bool		direct;			/* single-user: the engine runs here */
	GaEngineSession *engine;	/* direct only */
	dsm_segment *seg;
	ServiceCall *call;
	char	   *host;			/* the engine's region, as this process sees it */
	void	   *direct_mem;
	uint32		generation;
	int			gpu;			/* the ledger's choice */
	uint64		reserved;		/* bytes held in the ledger, on that GPU */
	uint64		host_batch;		/* bytes of each of the host's batch buffers */
	int			next;
	char		errbuf[512];
} CudaClient;

/* The engine's GPUs and their memory to the ledger (each GPU's default
 * gpuagg.device_memory_limit is a share of its memory). */
static void
tell_ledger(void)
{
	uint64		bytes[GA_ENGINE_MAX_GPUS];
	int			n = ga_engine_gpus();

	for (int g = 0; g < n; g++)
	{
		GaEngineDevice dev;

		bytes[g] = ga_engine_device(g, &dev) ? dev.total_bytes : 0;
	}
	GpuaggLedgerSetDevices(n, bytes);
}

const char *
GpuaggCudaMissing(char **fatbin)
{
	*fatbin = psprintf("%s/gpuagg.fatbin", pkglib_path);
	if (access(*fatbin, R_OK) != 0)
		return "gpuagg.fatbin is not installed (built without nvcc)";
	if (access("/dev/nvidiactl", F_OK) != 0)
		return "no NVIDIA device node (/dev/nvidiactl)";
	return NULL;
}

static int	direct_state = 0;	/* single-user: 0 untried, 1 ready, -1 no */
static bool direct_pages = false;
static char direct_failure[256];

static bool
direct_init(void)
{
	if (direct_state == 0)
	{
		char	   *fatbin;
		const char *missing = GpuaggCudaMissing(&fatbin);

		direct_state = -1;
		if (missing)
			strlcpy(direct_failure, missing, sizeof(direct_failure));
		else if (ga_engine_init(fatbin, direct_failure, sizeof(direct_failure)))
		{
			tell_ledger();
			direct_pages = gpuagg_page_batches &&
				ga_engine_register_pages(BufferBlocks, (uint64) NBuffers * BLCKSZ,
										 BLCKSZ, direct_failure, sizeof(direct_failure));
			direct_failure[0] = '\0';
			direct_state = 1;
		}
	}
	return direct_state == 1;
}

/* Does the GPU take page-form batches (shared buffers mapped)? */
bool
GpuaggCudaPages(void)
{
	if (!IsUnderPostmaster)
		return direct_init() && direct_pages;
	return GpuaggServicePagesMapped();
}

bool
GpuaggCudaProbe(const char **reason)
{
	const char *why;

	if (!IsUnderPostmaster)
	{
		if (direct_init())
			return true;
		*reason = direct_failure;
		return false;
	}
	why = GpuaggServiceUnusable();
	if (why == NULL)
		return true;
	*reason = why;
	return false;
}

/*
 * Make the call written in the call block and wait for its answer.
 * interruptible: CHECK_FOR_INTERRUPTS while waiting (not while closing).
 */
static uint32
post(CudaClient *c, int op)
{
	ServiceCall *k = c->call;
	uint32		seq = k->req_seq + 1;

	k->op = op;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	k->req_seq = seq;
	call_futex_wake(&k->req_seq);
	return seq;
}

static int
wait_answer(CudaClient *c, uint32 seq, bool interruptible)
{
	ServiceCall *k = c->call;

	for (int waited = 0;; waited++)
	{
		uint32		done = k->done_seq;

		if (done == seq)
			break;
		call_futex_wait(&k->done_seq, done, 10000000L);
		if (k->done_seq == seq)
			break;
		if (interruptible)
			CHECK_FOR_INTERRUPTS();
		else if (waited > 3000)
		{
			snprintf(k->err, sizeof(k->err), "the GPU service did not answer in 30 s");
			return GA_ERR_DEVICE;
		}
		if (waited % 10 == 9 && GpuaggServiceGone(c->generation))
		{
			snprintf(k->err, sizeof(k->err), "the GPU service stopped during the query");
			return GA_ERR_DEVICE;
		}
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return k->result;
}

static int
call(CudaClient *c, int op, bool interruptible)
{
	if (c->direct)
	{
		c->call->op = op;
		GpuaggRunCall(c->call, &c->engine, c->host);
		return c->call->result;
	}
	return wait_answer(c, post(c, op), interruptible);
}

/*
 * A call that may need more device memory: grow the reservation, again.
 * err: the first call's answer, or -1 to make it here.
 */
static int
call_growing(CudaClient *c, int op, int err, bool interruptible)
{
	if (err < 0)
		err = call(c, op, interruptible);
	for (; err == GA_NEED_MEMORY; err = call(c, op, interruptible))
	{
		uint64		more = c->call->need;

		if (!GpuaggLedgerGrow(c->gpu, more))
		{
			snprintf(c->call->err, sizeof(c->call->err),
					 "the query's tables would pass gpuagg.device_memory_limit");
			return GA_ERR_DEVICE;
		}
		c->reserved += more;
		c->call->grant = more;
		if (op == OP_OPEN)
			op = OP_START;
	}
	return err;
}

static void cuda_close(void *session);

/*
 * The client of a query: its call block and batch buffers (a shared
 * segment the service is told of, or in a single-user backend plain
 * memory).  NULL with *error when there is none.
 */
static CudaClient *
open_client(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
			int gpu, uint64 want, uint64 batch_bytes, uint64 host_batch, char **error,
			volatile uint32 *seq)
{
	CudaClient *c;
	uint64		host_bytes = GA_ENGINE_SCRATCH + 2 * host_batch;

	c = MemoryContextAllocZero(cxt, sizeof(CudaClient));
	c->cxt = cxt;
	c->prog = *prog;
	c->gpu = gpu;
	c->reserved = want;
	c->host_batch = host_batch;
	c->direct = !IsUnderPostmaster;
	if (c->direct)
	{
		if (posix_memalign(&c->direct_mem, 4096, CALL_BYTES + host_bytes) != 0)
		{
			*error = pstrdup("out of memory for the batch buffers");
			return NULL;
		}
		memset(c->direct_mem, 0, CALL_BYTES);
		c->call = (ServiceCall *) c->direct_mem;
	}
	else
	{
		/* the mapping lives until close, even past an abort's resource cleanup */
		c->seg = dsm_create(CALL_BYTES + host_bytes, DSM_CREATE_NULL_IF_MAXSEGMENTS);
		if (c->seg == NULL)
		{
			*error = pstrdup("no dynamic shared memory segment for the batch buffers");
			return NULL;
		}
		dsm_pin_mapping(c->seg);
		c->call = dsm_segment_address(c->seg);
		memset(c->call, 0, sizeof(ServiceCall));
	}
	c->host = (char *) c->call + CALL_BYTES;
	c->call->backend_pid = MyProcPid;
	c->call->prog = *prog;
	c->call->args.groups = est->groups;
	c->call->args.batch_rows = est->batch_rows;
	c->call->args.batch_bytes = batch_bytes;
	c->call->args.host_batch_bytes = host_batch;
	c->call->args.vram_budget = est->vram_budget;
	c->call->args.reserved = want;
	c->call->args.inject_fault = gpuagg_debug_inject_fault;
	c->call->args.max_pages = est->max_pages;
	c->call->args.gpu = gpu;
	if (est->seed_bytes > GA_SEED_MAX)
	{
		*error = pstrdup("the query's strings do not fit the GPU service's call");
		return NULL;
	}
	c->call->args.nseed = est->nseed;
	c->call->args.seed_bytes = est->seed_bytes;
	if (est->seed_bytes > 0)
		memcpy(c->call->seed, est->seed, est->seed_bytes);
	c->call->host_off = CALL_BYTES;
	c->call->host_bytes = host_bytes;

	if (!c->direct)
	{
		/* the open call is posted before the CUDA process can see the segment */
		*seq = post(c, OP_OPEN);
		if (!GpuaggServiceEnqueue(dsm_segment_handle(c->seg), c->call))
		{
			dsm_detach(c->seg);
			*error = pstrdup("the GPU service's queue is full or the service stopped");
			return NULL;
		}
		c->generation = c->call->generation;
	}
	return c;
}

/*
 * Bits a row of a joined table takes in the host's buffers, as cuda_add_dim
 * lays them out: its keys (8 bytes) and columns, and a bit a column for
 * its NULLs.
 */
static Size
dim_row_bits(const GaDimDesc *dd)
{
	Size		bits = 0;

	for (int k = 0; k < dd->nkeys; k++)
		bits += 8 * 8;
	for (int j = 0; j < dd->ncols; j++)
		bits += 8 * ga_type_width(dd->coltype[j]) + 1;
	return bits;
}

static void *
cuda_open(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
		  GpuaggDeviceStats *stats, char **error)
{
	/* the planner's estimate (a page-form batch's pages are read in place) */
	uint64		want = (uint64) Max(est->vram_estimate, 0.0);
	uint64		batch_bytes = TYPEALIGN(4096, est->batch_bytes);
	uint64		dim_bytes = 0;
	uint64		host_batch;
	double		waited = 0;
	const char *why;
	int			gpu;
	volatile uint32 seq = 0;
	CudaClient *volatile c = NULL;
	int			err;

	/*
	 * The host's buffers: what the scan writes (in page form only the pages'
	 * lists: the GPU deforms the columns into its own buffers), so less to
	 * create and page-lock; at least 1 MB, as results come back through
	 * them; and a joined table's rows that the host's plan made, up to 8 MB
	 * (cuda_add_dim sends more a buffer-full at a time).  Page-locking a new
	 * segment costs about half a millisecond a MB (H100 host: 16 MB, 6-8 ms
	 * of a 10 ms open), so not more than these need.
	 */
	for (uint32 d = 0; est->dims && d < prog->ndims; d++)
		dim_bytes = Max(dim_bytes, TYPEALIGN(8, est->dims[d].nrows) * dim_row_bits(&prog->dims[d]) / 8 +
						32 * 2 * (Size) (prog->dims[d].nkeys + prog->dims[d].ncols));
	host_batch = TYPEALIGN(4096, Max(est->batch_host_bytes,
									 Min(est->batch_bytes,
										 Max(1024 * 1024, Min(dim_bytes, 8 * 1024 * 1024)))));

	/*
	 * The server-wide ledger first: wait for room, or run elsewhere.  (An
	 * estimate over an explicit gpuagg.device_memory_limit is refused here
	 * whether or not there is a GPU.)
	 */
	if (!IsUnderPostmaster)
		(void) direct_init();
	if (!GpuaggLedgerAdmit(want, &gpu, &waited, error))
	{
		stats->admission_ms += waited;
		stats->no_memory = true;
		return NULL;
	}
	stats->admission_ms += waited;
	if (IsUnderPostmaster ? (why = GpuaggServiceUnusable()) != NULL :
		direct_state != 1 && (why = direct_failure) != NULL)
	{
		GpuaggLedgerRelease(gpu, want);
		stats->no_service = true;
		*error = pstrdup(why);
		return NULL;
	}

	/*
	 * Until the session is open an ERROR (no memory, /dev/shm too small for
	 * the segment) must give the reservation back here.
	 */
	PG_TRY();
	{
		c = open_client(prog, est, cxt, gpu, want, batch_bytes, host_batch, error, &seq);
	}
	PG_CATCH();
	{
		GpuaggLedgerRelease(gpu, want);
		PG_RE_THROW();
	}
	PG_END_TRY();
	if (c == NULL)
	{
		GpuaggLedgerRelease(gpu, want);
		stats->no_service = true;
		return NULL;
	}
	/* the executor's reset callback takes over only once open returns */
	PG_TRY();
	{
		err = call_growing(c, OP_OPEN, c->direct ? call(c, OP_OPEN, true) :
						   wait_answer(c, seq, true), true);
	}
	PG_CATCH();
	{
		cuda_close(c);
		PG_RE_THROW();
	}
	PG_END_TRY();
	stats->session_ms += c->call->open_ms;
	stats->memory_ms += c->call->start_ms;
	if (err != GA_OK)
	{
		*error = pstrdup(c->call->err);
		cuda_close(c);
		return NULL;
	}
	return c;
}

static char *
cuda_batch_buffer(void *session, Size size)
{
	CudaClient *c = (CudaClient *) session;
	int			b = c->next;

	/* a batch is no larger than announced at open */
	Assert(size <= c->call->args.batch_bytes);
	c->call->b = b;
	/* the DMA engine may still be reading this buffer */
	if (call(c, OP_WAITBUF, true) != GA_OK)
		return NULL;
	return c->host + GA_ENGINE_SCRATCH + b * c->host_batch;
}

static int
cuda_add_batch(void *session, const GaBatch *batch, GpuaggDeviceStats *stats)
{
	CudaClient *c = (CudaClient *) session;
	int			b = c->next;
	char	   *base = c->host + GA_ENGINE_SCRATCH + b * c->host_batch;
	GaBatch    *k = &c->call->batch;
	int			err;

	/* pointers into the buffer travel as offsets + 1 (0 stays "none") */
	memset(k, 0, sizeof(GaBatch));
	k->nrows = batch->nrows;
	/* (a joined table's batch has its own columns, or its program) */
	k->dim = batch->dim;
	k->dim_scan = batch->dim_scan;
	k->dim_first = batch->dim_first;
	k->dim_rows = batch->dim_rows;
	for (uint32 i = 0; i < GA_MAX_COLS; i++)
	{
		if (batch->values[i])
			k->values[i] = (const void *) ((const char *) batch->values[i] - base + 1);
		if (batch->nulls[i])
			k->nulls[i] = (const uint8_t *) ((const char *) batch->nulls[i] - base + 1);
	}
	/* page form: the pages are shared buffers, at one address in every process */
	if (batch->pagelist)
	{
		k->pagelist = (const uint32_t *) ((const char *) batch->pagelist - base + 1);
		k->pagerows = (const uint32_t *) ((const char *) batch->pagerows - base + 1);
		k->pagevis = (const uint32_t *) ((const char *) batch->pagevis - base + 1);
		k->npages = batch->npages;
		k->layout = (const void *) ((const char *) batch->layout - base + 1);
		k->pages = batch->pages;
	}
	c->call->b = b;

	/*
	 * A page-form batch's pages stay pinned until the GPU has read them:
	 * its call is not interrupted (it is short), so no ERROR or FATAL can
	 * unpin them under the kernel.
	 */
	err = call_growing(c, OP_ADD, -1, batch->pagelist == NULL);
	if (err == GA_OK)
	{
		c->next = 1 - b;
		if (!batch->dim)
			stats->rows_in += batch->nrows;
	}
	return err;
}

/*
 * A dimension's rows, a buffer-full at a time (a multiple of 8 rows, so
 * that each part's null bitmaps start at a byte), laid out as a batch of
 * its keys and columns (GaBatch.dim).
 */
static int
cuda_add_dim(void *session, int d, const GaDimData *rows, GpuaggDeviceStats *stats)
{
	CudaClient *c = (CudaClient *) session;
	const GaDimDesc *dd = &c->prog.dims[d];
	int			narrays = dd->nkeys + dd->ncols;
	Size		per_row = dim_row_bits(dd);
	uint64		chunk;
	uint64		first = 0;

	/* (32 bytes of alignment an array) */
	chunk = (c->host_batch - 32 * (Size) (2 * narrays)) * 8 / Max(per_row, 1);
	chunk = chunk / 8 * 8;
	if (chunk < 8)
	{
		snprintf(c->call->err, sizeof(c->call->err), "the batch buffers are too small for a joined table's rows");
		return GA_ERR_DEVICE;
	}
	do
	{
		uint64		n = Min(chunk, rows->nrows - first);
		char	   *buf = cuda_batch_buffer(session, c->host_batch);
		GaBatch		k;
		Size		at = 0;
		int			err;

		if (buf == NULL)
			return GA_ERR_DEVICE;
		memset(&k, 0, sizeof(GaBatch));
		for (int i = 0; i < narrays; i++)
		{
			int			w = i < dd->nkeys ? 8 : ga_type_width(dd->coltype[i - dd->nkeys]);
			const char *src = i < dd->nkeys ? (const char *) rows->keys[i] :
				(const char *) rows->cols[i - dd->nkeys];
			const uint8 *nulls = i < dd->nkeys ? NULL : rows->nulls[i - dd->nkeys];

			if (w > 0 && n > 0)
			{
				memcpy(buf + at, src + w * first, w * n);
				k.values[i] = buf + at;
				at = TYPEALIGN(16, at + w * n);
			}
			if (nulls && n > 0)
			{
				memcpy(buf + at, nulls + first / 8, (n + 7) / 8);
				k.nulls[i] = (const uint8_t *) buf + at;
				at = TYPEALIGN(16, at + (n + 7) / 8);
			}
		}
		Assert(at <= c->host_batch);
		k.nrows = (uint32) n;
		k.dim = d + 1;
		k.dim_first = first;
		k.dim_rows = rows->nrows;
		/* (through the call block as any batch: offsets, the next buffer) */
		if ((err = cuda_add_batch(session, &k, stats)) != GA_OK)
			return err;
		first += n;
	} while (first < rows->nrows);
	return GA_OK;
}

/* Bring part of the result back from offset on, a buffer-full at a time. */
static int
fetch_at(CudaClient *c, int part, uint64 offset, void *dst, uint64 bytes)
{
	uint64		done = 0;

	while (done < bytes)
	{
		uint64		n = Min(bytes - done, c->host_batch);
		int			err;

		c->call->part = part;
		c->call->offset = offset + done;
		c->call->bytes = n;
		if ((err = call(c, OP_FETCH, true)) != GA_OK)
			return err;
		memcpy((char *) dst + done, c->host + GA_ENGINE_SCRATCH, n);
		done += n;
	}
	return GA_OK;
}

static int
fetch(CudaClient *c, int part, void *dst, uint64 bytes)
{
	return fetch_at(c, part, 0, dst, bytes);
}

/*
 * Page form with strings: the strings the device's dictionary added, or
 * where the caller reads only those the returned groups' keys show and
 * they are few of many (a Top-N's 10 URLs of 18 million), those alone, a
 * round trip each for its length, place and bytes.
 */
static int
fetch_strings(CudaClient *c, GaResult *result, const GaEngineShape *shape)
{
	uint32	   *sel = NULL;
	int			nsel;
	uint64		bytes = 0;
	int			err;

	result->nstrings = shape->nstrings;
	result->strings_first = shape->strings_first;
	result->nstrbytes = shape->strbytes;
	if (shape->nstrings == 0)
		return GA_OK;
	/*
	 * (a string's three round trips cost about what 256 kB in bulk do: no
	 * selection where the selected would cost more than all of them)
	 */
	if (!result->keys_strings_only ||
		(nsel = GpuaggKeyStrings(&c->prog, result, GPUAGG_STRINGS_SELECTED, &sel)) < 0 ||
		(uint64) nsel * GPUAGG_STRINGS_SPARSE > shape->nstrings ||
		(uint64) nsel * 262144 > shape->strbytes + 12 * shape->nstrings)
	{
		result->strlen = MemoryContextAllocHuge(c->cxt, 4 * shape->nstrings);
		result->strat = MemoryContextAllocHuge(c->cxt, 8 * shape->nstrings);
		result->strbytes = MemoryContextAllocHuge(c->cxt, Max(shape->strbytes, 1));
		if ((err = fetch(c, GA_PART_STRLEN, result->strlen, 4 * shape->nstrings)) != GA_OK ||
			(err = fetch(c, GA_PART_STRAT, result->strat, 8 * shape->nstrings)) != GA_OK ||
			(err = fetch(c, GA_PART_STRBYTES, result->strbytes, shape->strbytes)) != GA_OK)
			return err;
		return GA_OK;
	}
	result->strings_selected = true;
	result->nstrsel = nsel;
	result->strsel = sel;
	result->strlen = MemoryContextAlloc(c->cxt, 4 * Max(nsel, 1));
	result->strat = MemoryContextAlloc(c->cxt, 8 * Max(nsel, 1));
	for (int j = 0; j < nsel; j++)
	{
		uint64		at;

		if ((err = fetch_at(c, GA_PART_STRLEN, 4 * (uint64) sel[j], &result->strlen[j], 4)) != GA_OK ||
			(err = fetch_at(c, GA_PART_STRAT, 8 * (uint64) sel[j], &at, 8)) != GA_OK)
			return err;
		if (at > shape->strbytes || result->strlen[j] > shape->strbytes - at)
		{
			snprintf(c->errbuf, sizeof(c->errbuf),
					 "the device's string %u lies outside its bytes", sel[j]);
			return GA_ERR_DEVICE;
		}
		/* (its place in the device's bytes, for now) */
		result->strat[j] = at;
		bytes += result->strlen[j];
	}
	result->nstrbytes = bytes;
	result->strbytes = MemoryContextAllocHuge(c->cxt, Max(bytes, 1));
	bytes = 0;
	for (int j = 0; j < nsel; j++)
	{
		uint64		at = result->strat[j];

		if ((err = fetch_at(c, GA_PART_STRBYTES, at, result->strbytes + bytes,
							result->strlen[j])) != GA_OK)
			return err;
		result->strat[j] = bytes;
		bytes += result->strlen[j];
	}
	return GA_OK;
}

static int
cuda_finish(void *session, GaResult *result, GpuaggDeviceStats *stats)
{
	CudaClient *c = (CudaClient *) session;
	GaEngineShape *shape = &c->call->shape;
	uint32		nk = c->prog.nkeys;
	uint32		ns = c->prog.nslots;
	uint64		n,
				m;
	int			err;

	if ((err = call_growing(c, OP_FINISH, -1, true)) != GA_OK)
		return err;
	stats->rows_passed += shape->rows_passed;
	stats->device_ms += shape->device_ms;
	stats->transfer_ms += shape->transfer_ms;
	n = shape->ngroups;
	if (n == 0 && nk == 0)
	{
		/* a plain aggregate over no rows still has its one group */
		result->ngroups = result->groups_all = 1;
		result->keys = MemoryContextAllocZero(c->cxt, sizeof(GaDatum));
		result->keynulls = MemoryContextAllocZero(c->cxt, 1);
		result->states = MemoryContextAllocZero(c->cxt, sizeof(uint64) * Max(ns, 1));
		return fetch_strings(c, result, shape);
	}
	m = GpuaggResultGroups(&c->prog, result, n);
	result->ngroups = m;
	result->groups_all = shape->groups;
	result->keys = MemoryContextAllocHuge(c->cxt, sizeof(GaDatum) * m * Max(nk, 1));
	result->keynulls = MemoryContextAllocHuge(c->cxt, m * Max(nk, 1));
	result->states = MemoryContextAllocHuge(c->cxt, sizeof(uint64) * m * Max(ns, 1));
	if (m == 0)
		return fetch_strings(c, result, shape);
	if (m == n)
	{
		if ((err = fetch(c, GA_PART_KEYS, result->keys, 8 * (uint64) nk * n)) != GA_OK ||
			(err = fetch(c, GA_PART_KEYNULLS, result->keynulls, (uint64) nk * n)) != GA_OK ||
			(err = fetch(c, GA_PART_STATES, result->states, 8 * (uint64) ns * n)) != GA_OK)
			return err;
	}
	else
	{
		/*
		 * a LIMIT without ORDER BY above: the first m of each column the
		 * device packed (keys[nkeys][n], keynulls[nkeys][n], states[nslots][n])
		 */
		for (uint32 k = 0; k < nk; k++)
			if ((err = fetch_at(c, GA_PART_KEYS, 8 * (k * n), result->keys + k * m, 8 * m)) != GA_OK ||
				(err = fetch_at(c, GA_PART_KEYNULLS, k * n, result->keynulls + k * m, m)) != GA_OK)
				return err;
		for (uint32 j = 0; j < ns; j++)
			if ((err = fetch_at(c, GA_PART_STATES, 8 * (j * n), result->states + j * m, 8 * m)) != GA_OK)
				return err;
	}
	for (uint32 a = 0; a < c->prog.naggs; a++)
	{
		const GaAgg *ag = &c->prog.aggs[a];
		int			j = ag->distinct;
		uint64		m;

		if (!ga_agg_host_folds(ag))
			continue;
		m = shape->npairs[j];
		result->npairs[j] = m;
		result->pairgroup[j] = MemoryContextAllocHuge(c->cxt, 8 * Max(m, 1));
		result->pairvalue[j] = MemoryContextAllocHuge(c->cxt, 8 * Max(m, 1));
		if (m > 0 &&
			((err = fetch(c, GA_PART_PAIRGROUP + 2 * j, result->pairgroup[j], 8 * m)) != GA_OK ||
			 (err = fetch(c, GA_PART_PAIRVALUE + 2 * j, result->pairvalue[j], 8 * m)) != GA_OK))
			return err;
		/* (an ordered-set aggregate of strings: each value's rows) */
		if (ga_agg_ordered(ag->kind))
		{
			result->pairrows[j] = MemoryContextAllocHuge(c->cxt, 8 * Max(m, 1));
			if (m > 0 &&
				(err = fetch(c, GA_PART_PAIRROWS + j, result->pairrows[j], 8 * m)) != GA_OK)
				return err;
		}
	}
	/* (after the groups: which strings their keys show) */
	return fetch_strings(c, result, shape);
}

static void
cuda_close(void *session)
{
	CudaClient *c = (CudaClient *) session;
	ServiceCall *k = c->call;

	/* called from a reset callback, maybe during abort: never throw here */
	if (k == NULL)
		return;
	if (c->direct)
	{
		k->op = OP_CLOSE;
		GpuaggRunCall(k, &c->engine, c->host);
		free(c->direct_mem);
	}
	else
	{
		if (!k->no_thread && !GpuaggServiceGone(c->generation))
		{
			/* a call still running (we were cancelled): stop it, wait for it */
			if (k->done_seq != k->req_seq)
			{
				k->cancel = CANCEL_STOP;
				for (int i = 0; i < 3000 && k->done_seq != k->req_seq && !GpuaggServiceGone(c->generation); i++)
					call_futex_wait(&k->done_seq, k->done_seq, 10000000L);
			}
			if (k->done_seq == k->req_seq && !k->no_thread)
				(void) call(c, OP_CLOSE, false);
		}
		/* whatever happened above, a thread still there ends the session */
		k->cancel = CANCEL_ABANDONED;
		call_futex_wake(&k->req_seq);
		dsm_detach(c->seg);
	}
	c->call = NULL;
	GpuaggLedgerRelease(c->gpu, c->reserved);
	c->reserved = 0;
}

static const char *
cuda_error_detail(void *session)
{
	CudaClient *c = (CudaClient *) session;

	return c->call ? c->call->err : "the GPU session is closed";
}

const GpuaggDevice GpuaggCudaDevice = {
	.name = "cuda",
	.gpu = true,
	.takes_pages = GpuaggCudaPages,	/* once shared buffers are mapped */
	.open = cuda_open,
	.batch_buffer = cuda_batch_buffer,
	.add_batch = cuda_add_batch,
	.add_dim = cuda_add_dim,
	.finish = cuda_finish,
	.close = cuda_close,
	.error_detail = cuda_error_detail,
};

int
GpuaggCudaDirectGpus(GaEngineDevice *dev, uint64 *free_bytes)
{
	int			gpus = direct_init() ? ga_engine_gpus() : 0;
	int			n = 0;

	for (int g = 0; g < gpus; g++)
	{
		uint64		total;

		if (ga_engine_device(g, &dev[n]) && ga_engine_mem_info(g, &free_bytes[n], &total))
			n++;
	}
	return n;
}
