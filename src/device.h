/*-------------------------------------------------------------------------
 *
 * device.h
 *		The interface every gpuagg device implements.
 *
 * A device runs one program over many batches and returns the groups with
 * their transition states (cuda/gpuagg_abi.h).  The shape is:
 *
 *		open(program, estimates) -> session		NULL: the device is unusable
 *		batch_buffer(session, bytes) -> host memory the next batch is laid out in
 *		add_dim(session, d, rows)				a join the device runs: each
 *												dimension's rows, first
 *		add_batch(session, batch)				many times, may run asynchronously
 *												(a device with `pages' is done
 *												with a page-form batch's pages
 *												when the next add_batch, finish
 *												or close returns)
 *		finish(session, result)					once
 *		close(session)							always, also after ERROR
 *
 * A device never calls back into the executor or the planner.  It reports
 * run-time errors PostgreSQL would raise (overflow, division by zero) as a
 * GaError code, which the caller turns into PostgreSQL's ereport, and a
 * failure of the device itself as GA_ERR_DEVICE (with error_detail), after
 * which the caller runs the query again on the CPU device.  In page form a
 * string value the device cannot read from the page (compressed, or
 * TOASTed) makes add_batch or finish return GA_ERR_STRING_BACK: the caller
 * runs the query again in column form, where the host reads every string.  All host memory
 * a device takes comes from the memory context given to open, so an aborted
 * query frees it; resources outside that context (device memory, streams)
 * are freed by close, which the executor calls from a reset callback on
 * that context.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_DEVICE_H
#define GPUAGG_DEVICE_H

#include "../cuda/gpuagg_abi.h"

typedef struct GpuaggEstimate
{
	double		groups;			/* estimated number of groups */
	int			batch_rows;		/* rows per batch */
	Size		batch_bytes;	/* bytes of one batch buffer */
	Size		batch_host_bytes;	/* of them, those the scan writes (page
									 * form: not the columns, which a GPU
									 * deforms into its own copy) */
	double		vram_budget;	/* bytes of device memory the query may use */
	double		vram_estimate;	/* the planner's estimate of what it will use */
	int			max_pages;		/* page form: pages a batch may refer to, else 0 */
	const GaDimData *dims;		/* a join's tables' rows the host's plans made
								 * (prog's ndims; none where the device scans
								 * the table), or NULL */

	/*
	 * Page form with string columns: the device codes the strings itself,
	 * in a dictionary that starts with the host's (its strings so far, as
	 * GpuaggDictSerialize lays them out), and returns the strings it added
	 * (GaResult).
	 */
	const char *seed;
	uint32		nseed;
	uint32		seed_bytes;
} GpuaggEstimate;

/* What a device measured, shown by EXPLAIN ANALYZE. */
typedef struct GpuaggDeviceStats
{
	uint64		rows_in;		/* rows sent to the device */
	uint64		rows_passed;	/* rows that passed WHERE */
	double		device_ms;		/* time the device computed */
	double		transfer_ms;	/* time batches spent in transfer to the device */
	double		admission_ms;	/* time queued for device memory (ledger.c) */
	double		session_ms;		/* of the open: the GPU's set-up of the session */
	double		memory_ms;		/* ... and of its device memory */
	bool		no_memory;		/* open failed: no room in the ledger */
	bool		no_service;		/* open failed: the GPU service is not there */
} GpuaggDeviceStats;

typedef struct GpuaggDevice
{
	const char *name;
	/*
	 * A GPU: its runs count as GPU runs, EXPLAIN times its transfers, and a
	 * failure falls back to the CPU device (the CPU device, which has no
	 * device to fall back to, is not one).
	 */
	bool		gpu;
	/* does it take batches in page form (GaBatch) now? */
	bool		(*takes_pages) (void);
	void	   *(*open) (const GaProgram *prog, const GpuaggEstimate *est,
						 MemoryContext cxt, GpuaggDeviceStats *stats, char **error);
	char	   *(*batch_buffer) (void *session, Size size);
	/* these return GA_OK or a GaError */
	int			(*add_batch) (void *session, const GaBatch *batch,
							  GpuaggDeviceStats *stats);
	/*
	 * A join the device runs (prog->ndims > 0): dimension d's rows (keys,
	 * columns and their null bitmaps, nrows; the caller's memory, which
	 * the device copies or keeps until close), each dimension in order,
	 * before the first batch.
	 */
	int			(*add_dim) (void *session, int d, const GaDimData *rows,
							GpuaggDeviceStats *stats);
	int			(*finish) (void *session, GaResult *result,
						   GpuaggDeviceStats *stats);
	void		(*close) (void *session);
	/* what went wrong when a call returned GA_ERR_DEVICE */
	const char *(*error_detail) (void *session);
} GpuaggDevice;

/*
 * Room for cap rows (rounded up to a multiple of 32, for bitmaps of whole
 * words) in a dimension's host arrays (GaDimData's keys, columns and null
 * bitmaps, as dd describes them), which have room for old rows now (0:
 * none yet): grown in cxt, the bitmaps' new bits zero.  The executor lays
 * a dimension's rows out so for add_dim (join.c), and the CPU device a
 * dimension it scans itself.  Returns the room made.
 */
static inline uint64
GpuaggDimRoom(const GaDimDesc *dd, GaDimData *dm, uint64 old, uint64 cap, MemoryContext cxt)
{
	cap = TYPEALIGN(32, cap);
	for (int k = 0; k < dd->nkeys; k++)
		dm->keys[k] = old ? repalloc_huge(dm->keys[k], sizeof(int64) * cap) :
			MemoryContextAllocHuge(cxt, sizeof(int64) * cap);
	for (int j = 0; j < dd->ncols; j++)
	{
		Size		w = ga_type_width(dd->coltype[j]);

		dm->cols[j] = old ? repalloc_huge(dm->cols[j], Max(w * cap, 1)) :
			MemoryContextAllocHuge(cxt, Max(w * cap, 1));
		dm->nulls[j] = old ? repalloc_huge(dm->nulls[j], cap / 8) :
			MemoryContextAllocHuge(cxt, cap / 8);
		memset(dm->nulls[j] + old / 8, 0, (cap - old) / 8);
	}
	return cap;
}

extern const GpuaggDevice GpuaggCpuDevice;
extern const GpuaggDevice GpuaggCudaDevice;

/*
 * Is a GPU likely usable?  A cheap probe for the planner (the driver library
 * and the kernels can be found, a device node exists); it does not
 * initialise CUDA.  The answer is cached for the backend.
 */
extern bool GpuaggCudaProbe(const char **reason);

/*
 * Why CUDA cannot even be tried on this host (no kernels installed, no
 * NVIDIA device node), or NULL; *fatbin gets the kernels' path.  Touches no
 * CUDA: for the GPU service and a single-user backend alike.
 */
extern const char *GpuaggCudaMissing(char **fatbin);

/* Does the GPU take page-form batches now (its service mapped shared buffers)? */
extern bool GpuaggCudaPages(void);

/*
 * In a single-user backend (no service), the GPUs this backend's engine
 * sees and their free memory, for gpuagg.devices(); returns how many.
 */
struct GaEngineDevice;
extern int	GpuaggCudaDirectGpus(struct GaEngineDevice *dev, uint64 *free_bytes);

/*
 * GaResult.keys_strings_only: a device returns only the strings the group
 * keys of the groups returned show, where they are at most this many and
 * at most one in GPUAGG_STRINGS_SPARSE of those it coded (result.c's
 * GpuaggKeyStrings finds them): a GPU brings each back with three round
 * trips to the service, where all of them would cross in bulk.
 */
#define GPUAGG_STRINGS_SELECTED 8192
#define GPUAGG_STRINGS_SPARSE	64

/*
 * The strings a device coded (indexes from res->strings_first, below
 * res->nstrings) that res's string group keys show or compare by, sorted
 * and each once, into *sel (palloc'd); their count, or -1 where more than
 * max.
 */
extern int	GpuaggKeyStrings(const GaProgram *p, const GaResult *res, int max,
							 uint32 **sel);

/*
 * How many of its ngroups groups a device returns where res->limit_groups
 * says any that many will do (result.c).
 */
extern uint64 GpuaggResultGroups(const GaProgram *prog, const GaResult *res, uint64 ngroups);

#endif							/* GPUAGG_DEVICE_H */
