/*-------------------------------------------------------------------------
 *
 * device_cuda.c
 *		The CUDA device: the driver API, loaded at run time.
 *
 * libcuda.so.1 is opened with dlopen on the first offloaded query of a
 * backend, so the extension loads and runs native and CPU-device queries on
 * hosts without a driver or GPU, and the library never links libcuda or
 * libcudart.  CUDA is never touched in the postmaster: the planner only
 * probes for the library and the kernels (GpuaggCudaProbe); the context
 * (the device's primary context) and the module (gpuagg.fatbin, installed
 * beside the library and loaded with cuModuleLoadData) are created once per
 * backend, lazily, and kept.
 *
 * Data path: the batch reader lays each batch out in one of two pinned
 * staging buffers (allocated once per backend); its columns go to the
 * device on that buffer's copy stream while the kernels of the previous
 * batch run on the execution stream, ordered by events, so the copy of
 * batch n+1 overlaps the kernels of batch n.  The group table lives in
 * device memory and is grown (gpuagg_rehash) before a batch could fill it
 * past half; count(DISTINCT) sets are grown the same way.  At the end
 * gpuagg_distinct_fold counts the sets into their groups, gpuagg_compact
 * packs the groups and only those are copied back.  Every wait polls an event and sleeps on the process latch
 * with CHECK_FOR_INTERRUPTS, so cancel works while the device is busy.
 *
 * Any CUDA failure returns GA_ERR_DEVICE: the executor warns and runs the
 * query again on the CPU device.  An error that leaves the context unusable
 * (an illegal address in a kernel, say) ends the session with FATAL, never
 * the cluster.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

#include "access/htup_details.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "portability/instr_time.h"
#include "storage/latch.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"
#include "utils/wait_event.h"

#include "device.h"
#include "gpuagg.h"
#include "ledger.h"

/*---- the part of the driver API gpuagg uses (cuda.h, CUDA 12) ----*/

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

#define CUDA_SUCCESS							0
#define CUDA_ERROR_NOT_READY					600
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT 16
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN 97
#define CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES 8
#define CU_STREAM_NON_BLOCKING					1

static struct
{
	CUresult	(*Init) (unsigned int);
	CUresult	(*DriverGetVersion) (int *);
	CUresult	(*DeviceGetCount) (int *);
	CUresult	(*DeviceGet) (CUdevice *, int);
	CUresult	(*DeviceGetName) (char *, int, CUdevice);
	CUresult	(*DeviceGetAttribute) (int *, int, CUdevice);
	CUresult	(*DeviceTotalMem) (size_t *, CUdevice);
	CUresult	(*DevicePrimaryCtxRetain) (CUcontext *, CUdevice);
	CUresult	(*CtxSetCurrent) (CUcontext);
	CUresult	(*MemGetInfo) (size_t *, size_t *);
	CUresult	(*ModuleLoadData) (CUmodule *, const void *);
	CUresult	(*ModuleGetFunction) (CUfunction *, CUmodule, const char *);
	CUresult	(*ModuleGetGlobal) (CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult	(*FuncSetAttribute) (CUfunction, int, int);
	CUresult	(*MemAlloc) (CUdeviceptr *, size_t);
	CUresult	(*MemFree) (CUdeviceptr);
	CUresult	(*MemAllocHost) (void **, size_t);
	CUresult	(*MemFreeHost) (void *);
	CUresult	(*MemcpyHtoD) (CUdeviceptr, const void *, size_t);
	CUresult	(*MemcpyHtoDAsync) (CUdeviceptr, const void *, size_t, CUstream);
	CUresult	(*MemcpyDtoHAsync) (void *, CUdeviceptr, size_t, CUstream);
	CUresult	(*MemsetD8Async) (CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult	(*LaunchKernel) (CUfunction, unsigned int, unsigned int, unsigned int,
								 unsigned int, unsigned int, unsigned int,
								 unsigned int, CUstream, void **, void **);
	CUresult	(*StreamCreate) (CUstream *, unsigned int);
	CUresult	(*StreamDestroy) (CUstream);
	CUresult	(*StreamWaitEvent) (CUstream, CUevent, unsigned int);
	CUresult	(*StreamSynchronize) (CUstream);
	CUresult	(*EventCreate) (CUevent *, unsigned int);
	CUresult	(*EventDestroy) (CUevent);
	CUresult	(*EventRecord) (CUevent, CUstream);
	CUresult	(*EventQuery) (CUevent);
	CUresult	(*EventElapsedTime) (float *, CUevent, CUevent);
	CUresult	(*GetErrorName) (CUresult, const char **);
	CUresult	(*GetErrorString) (CUresult, const char **);
}			cu;

/* symbol names, in the order of the struct above */
static const char *const cu_symbols[] = {
	"cuInit", "cuDriverGetVersion", "cuDeviceGetCount", "cuDeviceGet",
	"cuDeviceGetName", "cuDeviceGetAttribute", "cuDeviceTotalMem_v2",
	"cuDevicePrimaryCtxRetain", "cuCtxSetCurrent", "cuMemGetInfo_v2",
	"cuModuleLoadData", "cuModuleGetFunction", "cuModuleGetGlobal_v2",
	"cuFuncSetAttribute", "cuMemAlloc_v2", "cuMemFree_v2",
	"cuMemAllocHost_v2", "cuMemFreeHost", "cuMemcpyHtoD_v2",
	"cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2", "cuMemsetD8Async",
	"cuLaunchKernel", "cuStreamCreate", "cuStreamDestroy_v2",
	"cuStreamWaitEvent", "cuStreamSynchronize", "cuEventCreate",
	"cuEventDestroy_v2", "cuEventRecord", "cuEventQuery",
	"cuEventElapsedTime", "cuGetErrorName", "cuGetErrorString",
};

StaticAssertDecl(lengthof(cu_symbols) * sizeof(void *) == sizeof(cu),
				 "every driver entry point has a symbol name");

/*---- per-backend state: the context, the module, staging buffers ----*/

static int	cuda_state = 0;		/* 0 not tried, 1 ready, -1 unusable */
static char cuda_failure[256];
static int	probe_state = 0;	/* 0 not probed, 1 yes, -1 no */
static const char *probe_reason;
static void *libcuda;
static CUdevice cu_device;
static CUcontext cu_context;
static CUmodule cu_module;
static CUfunction fn_aggregate;
static CUfunction fn_rehash;
static CUfunction fn_compact;
static CUfunction fn_fold;
static CUfunction fn_pairs;
static CUdeviceptr d_prog;
static int	sm_count;
static int	smem_optin;
static char *pinned[2];
static Size pinned_size;
static const void *prog_owner;	/* session whose program is in constant memory */
static unsigned long long *pinned_counters;

#define GPUAGG_BLOCK		256
#define SHARED_GROUPS_MAX	2048

static const char *
cu_error_text(CUresult r)
{
	const char *name = NULL;
	const char *desc = NULL;

	if (cu.GetErrorName)
		cu.GetErrorName(r, &name);
	if (cu.GetErrorString)
		cu.GetErrorString(r, &desc);
	return psprintf("%s (%d): %s", name ? name : "CUDA error", r,
					desc ? desc : "no description");
}

/* Errors after which the context cannot be used again. */
static bool
cu_error_is_sticky(CUresult r)
{
	return r == 700 || r == 702 || (r >= 714 && r <= 719);
}

static char *
fatbin_path(void)
{
	return psprintf("%s/gpuagg.fatbin", pkglib_path);
}

bool
GpuaggCudaProbe(const char **reason)
{
	if (cuda_state == 1)
		return true;
	if (cuda_state == -1)
	{
		*reason = cuda_failure;
		return false;
	}
	if (probe_state == 0)
	{
		struct stat st;

		probe_state = -1;
		if (stat(fatbin_path(), &st) != 0)
			probe_reason = "gpuagg.fatbin is not installed (built without nvcc)";
		else if (access("/dev/nvidiactl", F_OK) != 0)
			probe_reason = "no NVIDIA device node (/dev/nvidiactl)";
		else if ((libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) == NULL)
			probe_reason = "the CUDA driver library libcuda.so.1 cannot be loaded";
		else
			probe_state = 1;
	}
	*reason = probe_reason;
	return probe_state == 1;
}

static bool
cuda_failed(const char *fmt,...) pg_attribute_printf(1, 2);

static bool
cuda_failed(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(cuda_failure, sizeof(cuda_failure), fmt, ap);
	va_end(ap);
	cuda_state = -1;
	return false;
}

/* Read a whole file into malloc'd memory. */
static void *
read_file(const char *path, size_t *len)
{
	FILE	   *f = fopen(path, "rb");
	void	   *buf = NULL;
	long		n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 &&
		fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(n)) != NULL)
	{
		if (fread(buf, 1, n, f) != (size_t) n)
		{
			free(buf);
			buf = NULL;
		}
		*len = n;
	}
	fclose(f);
	return buf;
}

/*
 * Create this backend's CUDA context and module, once.  Returns false with
 * the reason in cuda_failure; a failure is remembered for the backend.
 */
static bool
cuda_init(void)
{
	const char *reason;
	CUresult	r;
	int			count = 0;
	void	   *image;
	size_t		len = 0;
	size_t		prog_size = 0;

	if (cuda_state != 0)
		return cuda_state == 1;
	if (!GpuaggCudaProbe(&reason))
		return cuda_failed("%s", reason);
	for (int i = 0; i < lengthof(cu_symbols); i++)
	{
		void	   *fn = dlsym(libcuda, cu_symbols[i]);

		if (fn == NULL)
			return cuda_failed("libcuda.so.1 has no %s", cu_symbols[i]);
		((void **) &cu)[i] = fn;
	}

#define INIT_CHECK(call) \
	do { \
		if ((r = (call)) != CUDA_SUCCESS) \
			return cuda_failed("%s failed: %s", #call, cu_error_text(r)); \
	} while (0)

	INIT_CHECK(cu.Init(0));
	INIT_CHECK(cu.DeviceGetCount(&count));
	if (count < 1)
		return cuda_failed("no CUDA device");
	INIT_CHECK(cu.DeviceGet(&cu_device, 0));
	{
		size_t		total = 0;

		/* the default gpuagg.device_memory_limit is a share of this */
		INIT_CHECK(cu.DeviceTotalMem(&total, cu_device));
		GpuaggLedgerSetDeviceMemory(total);
	}
	INIT_CHECK(cu.DeviceGetAttribute(&sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
									 cu_device));
	INIT_CHECK(cu.DeviceGetAttribute(&smem_optin,
									 CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
									 cu_device));
	INIT_CHECK(cu.DevicePrimaryCtxRetain(&cu_context, cu_device));
	INIT_CHECK(cu.CtxSetCurrent(cu_context));

	image = read_file(fatbin_path(), &len);
	if (image == NULL)
		return cuda_failed("cannot read %s", fatbin_path());
	r = cu.ModuleLoadData(&cu_module, image);
	free(image);
	if (r != CUDA_SUCCESS)
		return cuda_failed("loading %s failed: %s", fatbin_path(), cu_error_text(r));
	INIT_CHECK(cu.ModuleGetFunction(&fn_aggregate, cu_module, "gpuagg_aggregate"));
	INIT_CHECK(cu.ModuleGetFunction(&fn_rehash, cu_module, "gpuagg_rehash"));
	INIT_CHECK(cu.ModuleGetFunction(&fn_compact, cu_module, "gpuagg_compact"));
	INIT_CHECK(cu.ModuleGetFunction(&fn_fold, cu_module, "gpuagg_distinct_fold"));
	INIT_CHECK(cu.ModuleGetFunction(&fn_pairs, cu_module, "gpuagg_distinct_pairs"));
	INIT_CHECK(cu.ModuleGetGlobal(&d_prog, &prog_size, cu_module, "gpuagg_prog"));
	if (prog_size != sizeof(GaProgram))
		return cuda_failed("gpuagg.fatbin was built for another program layout");
	smem_optin -= 1024;			/* leave room for the kernel's static shared data */
	INIT_CHECK(cu.FuncSetAttribute(fn_aggregate,
								   CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
								   smem_optin));
	INIT_CHECK(cu.MemAllocHost((void **) &pinned_counters,
							   sizeof(unsigned long long) * GA_NCOUNTERS));
#undef INIT_CHECK

	cuda_state = 1;
	return true;
}

/*---- a query's session ----*/

typedef struct CudaSession
{
	MemoryContext cxt;
	GaProgram	prog;
	CUstream	s_exec;
	CUstream	s_copy[2];
	CUevent		ev_copystart[2];
	CUevent		ev_copied[2];	/* staging buffer b copied to the device */
	CUevent		ev_kstart[2];
	CUevent		ev_consumed[2]; /* the kernel that read device buffer b ended */
	CUevent		ev_sync;
	bool		copy_pending[2];
	bool		kernel_pending[2];
	CUdeviceptr d_buf[2];
	Size		buf_size;
	int			cur;			/* staging buffer handed out, or -1 */
	int			next;
	GaTable		table;
	CUdeviceptr d_table;
	Size		table_bytes;
	CUdeviceptr d_counters;
	uint64		groups_bound;	/* groups there can be after the queued batches */
	GaDistinctSets sets;		/* count(DISTINCT) sets, prog.ndistinct of them */
	CUdeviceptr d_set[GA_MAX_DISTINCT];
	Size		set_bytes[GA_MAX_DISTINCT];
	uint64		set_bound[GA_MAX_DISTINCT];
	CUdeviceptr d_out;			/* the packed result, while it is copied back */
	Size		out_bytes;
	uint64		rows_seen;		/* rows before the next batch, in scan order */
	uint32		shared_cap;
	uint32		smem_bytes;
	double		vram_budget;
	Size		vram_used;
	uint64		reserved;		/* bytes held in the server's ledger */
	double		kernel_ms;
	double		copy_ms;
	char		errbuf[512];
} CudaSession;

/* Record a CUDA failure of the session; sticky ones end the session. */
static int
session_fail(CudaSession *s, const char *what, CUresult r)
{
	const char *text = cu_error_text(r);

	if (cu_error_is_sticky(r))
		ereport(FATAL,
				(errcode(ERRCODE_SYSTEM_ERROR),
				 errmsg("gpuagg: the CUDA context of this session is unusable"),
				 errdetail("%s failed: %s", what, text)));
	snprintf(s->errbuf, sizeof(s->errbuf), "%s failed: %s", what, text);
	return GA_ERR_DEVICE;
}

#define CU_CHECK(s, call) \
	do { \
		CUresult	r_ = (call); \
		if (r_ != CUDA_SUCCESS) \
			return session_fail((s), #call, r_); \
	} while (0)

/*
 * The program lives in the module's constant memory, one per backend: put
 * this session's there before launching its kernels (another GpuAgg node of
 * the same query may have run in between).
 */
static int
load_program(CudaSession *s)
{
	if (prog_owner == s)
		return GA_OK;
	CU_CHECK(s, cu.MemcpyHtoD(d_prog, &s->prog, sizeof(GaProgram)));
	prog_owner = s;
	return GA_OK;
}

/* Wait for an event, sleeping on the latch so the query stays cancellable. */
static int
wait_event(CudaSession *s, CUevent ev)
{
	for (int spins = 0;; spins++)
	{
		CUresult	r = cu.EventQuery(ev);

		if (r == CUDA_SUCCESS)
			return GA_OK;
		if (r != CUDA_ERROR_NOT_READY)
			return session_fail(s, "cuEventQuery", r);
		if (spins < 1000)
			continue;
		(void) WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH,
						 1L, PG_WAIT_EXTENSION);
		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
	}
}

/* Wait until everything queued on the execution stream is done. */
static int
wait_exec(CudaSession *s)
{
	CU_CHECK(s, cu.EventRecord(s->ev_sync, s->s_exec));
	return wait_event(s, s->ev_sync);
}

static int
device_alloc(CudaSession *s, CUdeviceptr *p, Size bytes)
{
	if ((double) (s->vram_used + bytes) > s->vram_budget)
	{
		snprintf(s->errbuf, sizeof(s->errbuf),
				 "the query needs more than gpuagg.vram_budget (%.0f MB) of device memory",
				 s->vram_budget / (1024.0 * 1024.0));
		return GA_ERR_DEVICE;
	}
	/* past the reservation: grow it, or give way to the others */
	if (s->vram_used + bytes > s->reserved)
	{
		uint64		more = s->vram_used + bytes - s->reserved;

		if (!GpuaggLedgerGrow(more))
		{
			snprintf(s->errbuf, sizeof(s->errbuf),
					 "the query's tables would pass gpuagg.device_memory_limit");
			return GA_ERR_DEVICE;
		}
		s->reserved += more;
	}
	CU_CHECK(s, cu.MemAlloc(p, bytes));
	s->vram_used += bytes;
	return GA_OK;
}

static void
device_free(CudaSession *s, CUdeviceptr *p, Size bytes)
{
	if (*p)
	{
		cu.MemFree(*p);
		s->vram_used -= bytes;
	}
	*p = 0;
}

/*
 * Allocate a zeroed table of cap slots with nk keys and ns state slots
 * whose entries are counted in counter count_at, laid out as GaTable
 * describes.
 */
static int
table_alloc(CudaSession *s, uint64 cap, uint32 nk, uint32 ns, uint32 count_at,
			GaTable *t, CUdeviceptr *base, Size *bytes)
{
	Size		off = 0;
	int			err;
	CUresult	r;

	*bytes = TYPEALIGN(16, 12 * cap) + 8 * cap * (nk + ns) + TYPEALIGN(16, cap * nk + 1);

	err = device_alloc(s, base, *bytes);
	if (err)
		return err;
	if ((r = cu.MemsetD8Async(*base, 0, *bytes, s->s_exec)) != CUDA_SUCCESS)
	{
		device_free(s, base, *bytes);
		return session_fail(s, "cuMemsetD8Async", r);
	}
	t->cap = cap;
	t->nkeys = nk;
	t->nslots = ns;
	t->count_at = count_at;
	t->ctrl = (uint32_t *) (*base + off);
	t->lock = (uint32_t *) (*base + off + 4 * cap);
	t->hash = (uint32_t *) (*base + off + 8 * cap);
	off += TYPEALIGN(16, 12 * cap);
	t->keys = (uint64_t *) (*base + off);
	off += 8 * cap * nk;
	t->states = (uint64_t *) (*base + off);
	off += 8 * cap * ns;
	t->keynulls = (uint8_t *) (*base + off);
	t->counters = (unsigned long long *) s->d_counters;
	return GA_OK;
}

static uint64
next_pow2(double x)
{
	uint64		p = 1024;

	while ((double) p < x)
		p <<= 1;
	return p;
}

/* Bring the counters back; their error, if any, is returned. */
static int
read_counters(CudaSession *s, unsigned long long *out)
{
	int			err;

	CU_CHECK(s, cu.MemcpyDtoHAsync(pinned_counters, s->d_counters,
								   sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	if ((err = wait_exec(s)) != GA_OK)
		return err;
	memcpy(out, pinned_counters, sizeof(unsigned long long) * GA_NCOUNTERS);
	/* the error slot holds (row << 8 | code) of the earliest failing row */
	if (out[GA_CNT_ERROR] == ~0ULL)
		return GA_OK;
	return (int) (out[GA_CNT_ERROR] & 0xff);
}

/* Blocks for a kernel with a thread per slot of table t (grid-stride). */
static unsigned int
table_grid(const GaTable *t)
{
	return (unsigned int) Min((t->cap + GPUAGG_BLOCK - 1) / GPUAGG_BLOCK,
							  (uint64) sm_count * 16);
}

/* Grow table t so that it holds at least need entries at half load. */
static int
grow_table(CudaSession *s, GaTable *t, CUdeviceptr *base, Size *bytes, uint64 need)
{
	GaTable		nt;
	CUdeviceptr nbase;
	Size		nbytes;
	void	   *params[2];
	int			err;
	unsigned int grid;

	err = table_alloc(s, next_pow2(2.0 * need), t->nkeys, t->nslots, t->count_at,
					  &nt, &nbase, &nbytes);
	if (err)
		return err;
	params[0] = t;
	params[1] = &nt;
	grid = table_grid(t);
	if ((err = load_program(s)) == GA_OK)
	{
		CUresult	r = cu.LaunchKernel(fn_rehash, grid, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
										s->s_exec, params, NULL);

		err = (r != CUDA_SUCCESS) ? session_fail(s, "cuLaunchKernel(gpuagg_rehash)", r) :
			wait_exec(s);
	}
	if (err != GA_OK)
	{
		/* the new table is not the session's yet: free it here */
		device_free(s, &nbase, nbytes);
		return err;
	}
	device_free(s, base, *bytes);
	*t = nt;
	*base = nbase;
	*bytes = nbytes;
	return GA_OK;
}

static void *
cuda_open(const GaProgram *prog, const GpuaggEstimate *est, MemoryContext cxt,
		  GpuaggDeviceStats *stats, char **error)
{
	CudaSession *s;
	uint64		slot_bytes;
	int			err = GA_OK;
	uint64		want = (uint64) Max(est->vram_estimate, 0.0);
	double		waited = 0;
	bool		admitted;

	/*
	 * The server-wide ledger first: wait for room, or run elsewhere.  The
	 * default limit is a share of the GPU's memory, which CUDA tells.
	 */
	if (gpuagg_device_memory_limit == 0)
		(void) cuda_init();
	admitted = GpuaggLedgerAdmit(want, &waited, error);
	stats->admission_ms += waited;
	if (!admitted)
	{
		stats->no_memory = true;
		return NULL;
	}
	if (!cuda_init())
	{
		GpuaggLedgerRelease(want);
		*error = pstrdup(cuda_failure);
		return NULL;
	}
	s = MemoryContextAllocZero(cxt, sizeof(CudaSession));
	s->reserved = want;
	s->cxt = cxt;
	s->prog = *prog;
	s->cur = -1;
	s->vram_budget = est->vram_budget;
	s->buf_size = est->batch_bytes;

#define OPEN_CHECK(call) \
	do { \
		CUresult	r_ = (call); \
		if (r_ != CUDA_SUCCESS) \
		{ \
			session_fail(s, #call, r_); \
			goto failed; \
		} \
	} while (0)

	OPEN_CHECK(cu.CtxSetCurrent(cu_context));
	OPEN_CHECK(cu.StreamCreate(&s->s_exec, CU_STREAM_NON_BLOCKING));
	OPEN_CHECK(cu.EventCreate(&s->ev_sync, 0));
	for (int b = 0; b < 2; b++)
	{
		OPEN_CHECK(cu.StreamCreate(&s->s_copy[b], CU_STREAM_NON_BLOCKING));
		OPEN_CHECK(cu.EventCreate(&s->ev_copystart[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_copied[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_kstart[b], 0));
		OPEN_CHECK(cu.EventCreate(&s->ev_consumed[b], 0));
		if ((err = device_alloc(s, &s->d_buf[b], s->buf_size)) != GA_OK)
			goto failed;
	}
	/* staging buffers: pinned once per backend, grown when a query needs more */
	if (pinned_size < s->buf_size)
	{
		for (int b = 0; b < 2; b++)
		{
			if (pinned[b])
				cu.MemFreeHost(pinned[b]);
			pinned[b] = NULL;
		}
		pinned_size = 0;
		for (int b = 0; b < 2; b++)
			OPEN_CHECK(cu.MemAllocHost((void **) &pinned[b], s->buf_size));
		pinned_size = s->buf_size;
	}
	if ((err = device_alloc(s, &s->d_counters,
							sizeof(unsigned long long) * GA_NCOUNTERS)) != GA_OK)
		goto failed;
	OPEN_CHECK(cu.MemsetD8Async(s->d_counters, 0,
								sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	/* no error yet: the error slot keeps a minimum, so it starts at its top */
	OPEN_CHECK(cu.MemsetD8Async(s->d_counters + sizeof(unsigned long long) * GA_CNT_ERROR,
								0xff, sizeof(unsigned long long), s->s_exec));
	if ((err = table_alloc(s, next_pow2(2.0 * Max(est->groups, est->batch_rows)),
						   prog->nkeys, prog->nslots, GA_CNT_GROUPS,
						   &s->table, &s->d_table, &s->table_bytes)) != GA_OK)
		goto failed;
	/* a distinct set's keys: the group keys and the value */
	for (uint32 j = 0; j < prog->ndistinct; j++)
		if ((err = table_alloc(s, next_pow2(2.0 * est->batch_rows), prog->nkeys + 1, 0,
							   GA_CNT_DISTINCT + j, &s->sets.set[j], &s->d_set[j],
							   &s->set_bytes[j])) != GA_OK)
			goto failed;

	/* few groups: each block aggregates in shared memory first */
	slot_bytes = ga_slot_bytes(prog->nkeys, prog->nslots);
	if (est->groups <= SHARED_GROUPS_MAX)
	{
		uint64		cap = 256;

		while (cap < 4 * est->groups && cap < 2 * SHARED_GROUPS_MAX)
			cap <<= 1;
		while (cap >= 128 && cap * slot_bytes + 16 > (uint64) smem_optin)
			cap >>= 1;
		if (cap >= 128)
		{
			s->shared_cap = (uint32) cap;
			s->smem_bytes = (uint32) (cap * slot_bytes + 16);
		}
	}
	return s;

failed:
	*error = pstrdup(s->errbuf);
	GpuaggCudaDevice.close(s);
	return NULL;
#undef OPEN_CHECK
}

static char *
cuda_batch_buffer(void *session, Size size)
{
	CudaSession *s = (CudaSession *) session;
	int			b = s->next;

	Assert(size <= pinned_size);
	/* the DMA engine may still be reading this staging buffer */
	if (s->copy_pending[b])
	{
		float		ms = 0;

		if (wait_event(s, s->ev_copied[b]) != GA_OK)
			return NULL;
		if (cu.EventElapsedTime(&ms, s->ev_copystart[b], s->ev_copied[b]) == CUDA_SUCCESS)
			s->copy_ms += ms;
		s->copy_pending[b] = false;
	}
	s->cur = b;
	s->next = 1 - b;
	return pinned[b];
}

static int
cuda_add_batch(void *session, const GaBatch *batch, GpuaggDeviceStats *stats)
{
	CudaSession *s = (CudaSession *) session;
	int			b = s->cur;
	GaBatch		dbatch = *batch;
	void	   *params[5];
	unsigned int grid;
	int			err;

	if (b < 0)
	{
		snprintf(s->errbuf, sizeof(s->errbuf), "no staging buffer for the batch");
		return GA_ERR_DEVICE;
	}
	s->cur = -1;

	/* device buffer b is free once the kernel of two batches ago is done */
	if (s->kernel_pending[b])
	{
		float		ms = 0;

		if ((err = wait_event(s, s->ev_consumed[b])) != GA_OK)
			return err;
		if (cu.EventElapsedTime(&ms, s->ev_kstart[b], s->ev_consumed[b]) == CUDA_SUCCESS)
			s->kernel_ms += ms;
		s->kernel_pending[b] = false;
	}

	/* columns to the device on this buffer's copy stream */
	CU_CHECK(s, cu.EventRecord(s->ev_copystart[b], s->s_copy[b]));
	for (uint32 c = 0; c < s->prog.ncols; c++)
	{
		int			w = ga_type_width(s->prog.cols[c].type);

		if (batch->values[c] && w > 0)
		{
			Size		off = (const char *) batch->values[c] - pinned[b];

			CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + off, batch->values[c],
										   (Size) batch->nrows * w, s->s_copy[b]));
			dbatch.values[c] = (const void *) (s->d_buf[b] + off);
		}
		if (batch->nulls[c])
		{
			Size		off = (const char *) batch->nulls[c] - pinned[b];

			CU_CHECK(s, cu.MemcpyHtoDAsync(s->d_buf[b] + off, batch->nulls[c],
										   (batch->nrows + 7) / 8, s->s_copy[b]));
			dbatch.nulls[c] = (const uint8_t *) (s->d_buf[b] + off);
		}
	}
	CU_CHECK(s, cu.EventRecord(s->ev_copied[b], s->s_copy[b]));
	s->copy_pending[b] = true;

	/* no table may pass half load, whatever the batch holds */
	{
		bool		check = false;

		s->groups_bound += batch->nrows;
		check = 2 * s->groups_bound > s->table.cap;
		for (uint32 j = 0; j < s->prog.ndistinct; j++)
		{
			s->set_bound[j] += batch->nrows;
			check |= 2 * s->set_bound[j] > s->sets.set[j].cap;
		}
		if (check)
		{
			unsigned long long counters[GA_NCOUNTERS];

			if ((err = read_counters(s, counters)) != GA_OK)
				return err;
			s->groups_bound = counters[GA_CNT_GROUPS] + batch->nrows;
			if (2 * s->groups_bound > s->table.cap &&
				(err = grow_table(s, &s->table, &s->d_table, &s->table_bytes,
								  s->groups_bound)) != GA_OK)
				return err;
			for (uint32 j = 0; j < s->prog.ndistinct; j++)
			{
				s->set_bound[j] = counters[GA_CNT_DISTINCT + j] + batch->nrows;
				if (2 * s->set_bound[j] > s->sets.set[j].cap &&
					(err = grow_table(s, &s->sets.set[j], &s->d_set[j],
									  &s->set_bytes[j], s->set_bound[j])) != GA_OK)
					return err;
			}
		}
	}

	if ((err = load_program(s)) != GA_OK)
		return err;
	CU_CHECK(s, cu.StreamWaitEvent(s->s_exec, s->ev_copied[b], 0));
	CU_CHECK(s, cu.EventRecord(s->ev_kstart[b], s->s_exec));
	params[0] = &dbatch;
	params[1] = &s->table;
	params[2] = &s->shared_cap;
	params[3] = &s->rows_seen;
	params[4] = &s->sets;
	grid = (batch->nrows + GPUAGG_BLOCK - 1) / GPUAGG_BLOCK;
	grid = Min(grid, (unsigned int) sm_count * (s->shared_cap ? 2 : 16));
	CU_CHECK(s, cu.LaunchKernel(fn_aggregate, Max(grid, 1), 1, 1, GPUAGG_BLOCK, 1, 1,
								s->smem_bytes, s->s_exec, params, NULL));
	CU_CHECK(s, cu.EventRecord(s->ev_consumed[b], s->s_exec));
	s->kernel_pending[b] = true;
	s->rows_seen += batch->nrows;
	/* the next copy into device buffer b waits for this kernel */
	CU_CHECK(s, cu.StreamWaitEvent(s->s_copy[b], s->ev_consumed[b], 0));
	stats->rows_in += batch->nrows;
	return GA_OK;
}

static int
cuda_finish(void *session, GaResult *result, GpuaggDeviceStats *stats)
{
	CudaSession *s = (CudaSession *) session;
	unsigned long long counters[GA_NCOUNTERS];
	uint32		nk = s->prog.nkeys;
	uint32		ns = s->prog.nslots;
	uint64		n;
	int			err;

	if ((err = read_counters(s, counters)) != GA_OK)
		return err;
	for (int b = 0; b < 2; b++)
	{
		float		ms = 0;

		if (s->kernel_pending[b] &&
			cu.EventElapsedTime(&ms, s->ev_kstart[b], s->ev_consumed[b]) == CUDA_SUCCESS)
			s->kernel_ms += ms;
		s->kernel_pending[b] = false;
	}
	for (int b = 0; b < 2; b++)
	{
		float		ms = 0;

		if (s->copy_pending[b] &&
			cu.EventElapsedTime(&ms, s->ev_copystart[b], s->ev_copied[b]) == CUDA_SUCCESS)
			s->copy_ms += ms;
		s->copy_pending[b] = false;
	}
	stats->rows_passed += counters[GA_CNT_PASSED];

	/* count(DISTINCT): each set's entries into their groups' counts */
	if ((err = load_program(s)) != GA_OK)
		return err;
	for (uint32 a = 0; a < s->prog.naggs; a++)
	{
		const GaAgg *ag = &s->prog.aggs[a];
		uint32		slot = ag->slot;
		void	   *params[3];

		if (ag->distinct < 0 || ag->kind != GA_AGG_COUNT)
			continue;
		params[0] = &s->sets.set[ag->distinct];
		params[1] = &s->table;
		params[2] = &slot;
		CU_CHECK(s, cu.LaunchKernel(fn_fold, table_grid(&s->sets.set[ag->distinct]), 1, 1,
									GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
	}
	if (s->prog.ndistinct > 0 && (err = read_counters(s, counters)) != GA_OK)
		return err;
	stats->device_ms += s->kernel_ms;
	stats->transfer_ms += s->copy_ms;

	n = counters[GA_CNT_GROUPS];
	if (n == 0 && nk == 0)
	{
		/* a plain aggregate over no rows still has its one group */
		result->ngroups = 1;
		result->keys = MemoryContextAllocZero(s->cxt, sizeof(GaDatum));
		result->keynulls = MemoryContextAllocZero(s->cxt, 1);
		result->states = MemoryContextAllocZero(s->cxt, sizeof(uint64) * Max(ns, 1));
		return GA_OK;
	}
	result->ngroups = n;
	result->keys = MemoryContextAllocHuge(s->cxt, sizeof(GaDatum) * n * Max(nk, 1));
	result->keynulls = MemoryContextAllocHuge(s->cxt, n * Max(nk, 1));
	result->states = MemoryContextAllocHuge(s->cxt, sizeof(uint64) * n * Max(ns, 1));
	if (n > 0)
	{
		Size		bytes = (8 * (Size) nk + 8 * (Size) ns + nk) * n + 16;
		Size		pairs_at;
		CUdeviceptr keys,
					states,
					keynulls,
					pos,
					slotpos = 0;
		void	   *params[7];
		unsigned int grid;
		uint64		npairs = 0;

		/* min/max of strings: room for the slot positions and the pairs */
		for (uint32 a = 0; a < s->prog.naggs; a++)
			if (s->prog.aggs[a].distinct >= 0 &&
				ga_agg_host_order(s->prog.aggs[a].kind, s->prog.aggs[a].argtype))
				npairs += counters[GA_CNT_DISTINCT + s->prog.aggs[a].distinct];
		bytes = TYPEALIGN(16, bytes);
		pairs_at = bytes;
		if (npairs > 0)
			bytes += 8 * (Size) s->table.cap + 16 * (Size) npairs + 8 * GA_MAX_DISTINCT;

		if ((err = device_alloc(s, &s->d_out, bytes)) != GA_OK ||
			(err = load_program(s)) != GA_OK)
			return err;
		s->out_bytes = bytes;
		pos = s->d_out;
		keys = s->d_out + 8;
		states = keys + 8 * (Size) nk * n;
		keynulls = states + 8 * (Size) ns * n;
		if (npairs > 0)
			slotpos = s->d_out + pairs_at;
		CU_CHECK(s, cu.MemsetD8Async(pos, 0, 8, s->s_exec));
		params[0] = &s->table;
		params[1] = &keys;
		params[2] = &keynulls;
		params[3] = &states;
		params[4] = &pos;
		params[5] = &n;
		params[6] = &slotpos;
		grid = table_grid(&s->table);
		CU_CHECK(s, cu.LaunchKernel(fn_compact, grid, 1, 1, GPUAGG_BLOCK, 1, 1, 0,
									s->s_exec, params, NULL));
		if (npairs > 0)
		{
			CUdeviceptr next = slotpos + 8 * (Size) s->table.cap;
			CUdeviceptr count = next;

			next += 8 * GA_MAX_DISTINCT;
			CU_CHECK(s, cu.MemsetD8Async(count, 0, 8 * GA_MAX_DISTINCT, s->s_exec));
			for (uint32 a = 0; a < s->prog.naggs; a++)
			{
				const GaAgg *ag = &s->prog.aggs[a];
				uint64		m;
				CUdeviceptr group,
							value,
							cnt;
				void	   *pp[7];

				if (ag->distinct < 0 || !ga_agg_host_order(ag->kind, ag->argtype))
					continue;
				m = counters[GA_CNT_DISTINCT + ag->distinct];
				result->npairs[ag->distinct] = m;
				result->pairgroup[ag->distinct] = MemoryContextAllocHuge(s->cxt, 8 * Max(m, 1));
				result->pairvalue[ag->distinct] = MemoryContextAllocHuge(s->cxt, 8 * Max(m, 1));
				if (m == 0)
					continue;
				group = next;
				value = next + 8 * m;
				cnt = count + 8 * ag->distinct;
				next += 16 * m;
				pp[0] = &s->sets.set[ag->distinct];
				pp[1] = &s->table;
				pp[2] = &slotpos;
				pp[3] = &group;
				pp[4] = &value;
				pp[5] = &cnt;
				pp[6] = &m;
				CU_CHECK(s, cu.LaunchKernel(fn_pairs, table_grid(&s->sets.set[ag->distinct]),
											1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, pp, NULL));
				CU_CHECK(s, cu.MemcpyDtoHAsync(result->pairgroup[ag->distinct], group,
											   8 * m, s->s_exec));
				CU_CHECK(s, cu.MemcpyDtoHAsync(result->pairvalue[ag->distinct], value,
											   8 * m, s->s_exec));
			}
		}
		if (nk > 0)
		{
			CU_CHECK(s, cu.MemcpyDtoHAsync(result->keys, keys, 8 * (Size) nk * n,
										   s->s_exec));
			CU_CHECK(s, cu.MemcpyDtoHAsync(result->keynulls, keynulls, (Size) nk * n,
										   s->s_exec));
		}
		if (ns > 0)
			CU_CHECK(s, cu.MemcpyDtoHAsync(result->states, states, 8 * (Size) ns * n,
										   s->s_exec));
		err = wait_exec(s);
		device_free(s, &s->d_out, s->out_bytes);
		if (err)
			return err;
		/* a pair without its group is an internal error the counters carry */
		if (npairs > 0 && (err = read_counters(s, counters)) != GA_OK)
			return err;
	}
	return GA_OK;
}

static void
cuda_close(void *session)
{
	CudaSession *s = (CudaSession *) session;

	/* called from a reset callback, maybe during abort: never throw here */
	if (prog_owner == s)
		prog_owner = NULL;
	if (cu.CtxSetCurrent(cu_context) != CUDA_SUCCESS)
		return;
	if (s->s_exec)
		cu.StreamSynchronize(s->s_exec);
	for (int b = 0; b < 2; b++)
	{
		if (s->s_copy[b])
		{
			cu.StreamSynchronize(s->s_copy[b]);
			cu.StreamDestroy(s->s_copy[b]);
		}
		if (s->ev_copystart[b])
			cu.EventDestroy(s->ev_copystart[b]);
		if (s->ev_copied[b])
			cu.EventDestroy(s->ev_copied[b]);
		if (s->ev_kstart[b])
			cu.EventDestroy(s->ev_kstart[b]);
		if (s->ev_consumed[b])
			cu.EventDestroy(s->ev_consumed[b]);
		device_free(s, &s->d_buf[b], s->buf_size);
	}
	device_free(s, &s->d_table, s->table_bytes);
	device_free(s, &s->d_out, s->out_bytes);
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
		device_free(s, &s->d_set[j], s->set_bytes[j]);
	device_free(s, &s->d_counters, sizeof(unsigned long long) * GA_NCOUNTERS);
	GpuaggLedgerRelease(s->reserved);
	s->reserved = 0;
	if (s->ev_sync)
		cu.EventDestroy(s->ev_sync);
	if (s->s_exec)
		cu.StreamDestroy(s->s_exec);
	memset(s->s_copy, 0, sizeof(s->s_copy));
	s->s_exec = NULL;
}

static const char *
cuda_error_detail(void *session)
{
	return ((CudaSession *) session)->errbuf;
}

const GpuaggDevice GpuaggCudaDevice = {
	.name = "cuda",
	.open = cuda_open,
	.batch_buffer = cuda_batch_buffer,
	.add_batch = cuda_add_batch,
	.finish = cuda_finish,
	.close = cuda_close,
	.error_detail = cuda_error_detail,
};

/*---- SQL-callable: gpuagg.devices() ----*/

PG_FUNCTION_INFO_V1(gpuagg_devices);

/*
 * One row per CUDA device this backend sees; none without a driver or GPU.
 * Calling it initialises CUDA in this backend.
 */
Datum
gpuagg_devices(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	int			count = 0;
	int			driver = 0;

	InitMaterializedSRF(fcinfo, 0);
	if (!cuda_init())
	{
		ereport(DEBUG1, (errmsg("gpuagg: no CUDA device: %s", cuda_failure)));
		PG_RETURN_VOID();
	}
	cu.DriverGetVersion(&driver);
	cu.DeviceGetCount(&count);
	for (int i = 0; i < count; i++)
	{
		CUdevice	dev;
		char		name[256] = "";
		size_t		total = 0,
					free_mem = 0;
		int			major = 0,
					minor = 0,
					sms = 0;
		Datum		values[11];
		bool		nulls[11] = {0};
		uint64		limit = 0,
					reserved = 0;
		int			running = 0,
					queued = 0;

		if (cu.DeviceGet(&dev, i) != CUDA_SUCCESS)
			continue;
		cu.DeviceGetName(name, sizeof(name), dev);
		cu.DeviceTotalMem(&total, dev);
		cu.DeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
		cu.DeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
		cu.DeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
		if (dev == cu_device)
			cu.MemGetInfo(&free_mem, &total);
		else
			nulls[3] = true;
		values[0] = Int32GetDatum(i);
		values[1] = CStringGetTextDatum(name);
		values[2] = Int64GetDatum((int64) (total >> 20));
		values[3] = Int64GetDatum((int64) (free_mem >> 20));
		values[4] = CStringGetTextDatum(psprintf("%d.%d", major, minor));
		values[5] = Int32GetDatum(sms);
		values[6] = CStringGetTextDatum(psprintf("%d.%d", driver / 1000, (driver % 1000) / 10));
		/* the ledger's view of the GPU gpuagg uses */
		if (dev == cu_device && GpuaggLedgerNow(&limit, &reserved, &running, &queued))
		{
			nulls[7] = (limit == PG_UINT64_MAX);
			values[7] = Int64GetDatum(nulls[7] ? 0 : (int64) (limit >> 20));
			values[8] = Int64GetDatum((int64) ((reserved + (1 << 20) - 1) >> 20));
			values[9] = Int32GetDatum(running);
			values[10] = Int32GetDatum(queued);
		}
		else
			nulls[7] = nulls[8] = nulls[9] = nulls[10] = true;
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	PG_RETURN_VOID();
}
