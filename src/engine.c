/*-------------------------------------------------------------------------
 *
 * engine.c
 *		The CUDA engine: the driver API, loaded at run time (engine.h).
 *
 * No PostgreSQL here: this file runs in the GPU service's CUDA threads,
 * where palloc, elog and latches must not be touched, so it includes no
 * PostgreSQL header and allocates with malloc.
 *
 * libcuda.so.1 is opened with dlopen, so the extension loads and runs
 * native and CPU-device queries on hosts without a driver or GPU.  Each GPU
 * the process sees (CUDA_VISIBLE_DEVICES applies) has one context, its
 * primary context, serving every session that runs on it; the caller picks
 * the GPU of a session (GaEngineArgs.gpu: the ledger's choice).  The
 * kernels' program lives in a module's constant memory, so each running
 * session holds a module of its own: the fatbin is read once and modules
 * are loaded from that image into the GPU's pool as sessions need them (a
 * few ms, once per pool entry) and reused.
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
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine.h"
#include "../cuda/gpuagg_page.h"
#include "../cuda/gpuagg_topn.h"

/*---- the part of the driver API gpuagg uses (cuda.h, CUDA 12) ----*/

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;

/* CUresult values (cuda.h's numbers) */
#define CUDA_SUCCESS							0
#define CUDA_ERROR_NOT_INITIALIZED				3
#define CUDA_ERROR_DEINITIALIZED				4
#define CUDA_ERROR_ECC_UNCORRECTABLE			214
#define CUDA_ERROR_NOT_READY					600
#define CUDA_ERROR_ILLEGAL_ADDRESS				700
#define CUDA_ERROR_LAUNCH_TIMEOUT				702
#define CUDA_ERROR_CONTEXT_IS_DESTROYED			709
#define CUDA_ERROR_ASSERT						710
#define CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED 712
#define CUDA_ERROR_HARDWARE_STACK_ERROR			714	/* ... to */
#define CUDA_ERROR_LAUNCH_FAILED				719	/* (illegal instruction,
													 * misaligned or invalid
													 * address space, PC) */
#define CUDA_ERROR_UNKNOWN						999
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
	CUresult	(*DevicePrimaryCtxRelease) (CUdevice);
	CUresult	(*DevicePrimaryCtxReset) (CUdevice);
	CUresult	(*CtxSetCurrent) (CUcontext);
	CUresult	(*MemGetInfo) (size_t *, size_t *);
	CUresult	(*ModuleLoadData) (CUmodule *, const void *);
	CUresult	(*ModuleUnload) (CUmodule);
	CUresult	(*ModuleGetFunction) (CUfunction *, CUmodule, const char *);
	CUresult	(*ModuleGetGlobal) (CUdeviceptr *, size_t *, CUmodule, const char *);
	CUresult	(*FuncSetAttribute) (CUfunction, int, int);
	CUresult	(*MemAlloc) (CUdeviceptr *, size_t);
	CUresult	(*MemFree) (CUdeviceptr);
	CUresult	(*MemHostRegister) (void *, size_t, unsigned int);
	CUresult	(*MemHostUnregister) (void *);
	CUresult	(*MemHostGetDevicePointer) (CUdeviceptr *, void *, unsigned int);
	CUresult	(*MemcpyDtoH) (void *, CUdeviceptr, size_t);
	CUresult	(*MemcpyHtoDAsync) (CUdeviceptr, const void *, size_t, CUstream);
	CUresult	(*MemcpyDtoHAsync) (void *, CUdeviceptr, size_t, CUstream);
	CUresult	(*MemcpyDtoDAsync) (CUdeviceptr, CUdeviceptr, size_t, CUstream);
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
	"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRelease_v2",
	"cuDevicePrimaryCtxReset_v2", "cuCtxSetCurrent", "cuMemGetInfo_v2",
	"cuModuleLoadData", "cuModuleUnload", "cuModuleGetFunction",
	"cuModuleGetGlobal_v2", "cuFuncSetAttribute", "cuMemAlloc_v2",
	"cuMemFree_v2", "cuMemHostRegister_v2", "cuMemHostUnregister",
	"cuMemHostGetDevicePointer_v2",
	"cuMemcpyDtoH_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
	"cuMemcpyDtoDAsync_v2", "cuMemsetD8Async",
	"cuLaunchKernel", "cuStreamCreate", "cuStreamDestroy_v2",
	"cuStreamWaitEvent", "cuStreamSynchronize", "cuEventCreate",
	"cuEventDestroy_v2", "cuEventRecord", "cuEventQuery",
	"cuEventElapsedTime", "cuGetErrorName", "cuGetErrorString",
};

_Static_assert(sizeof(cu_symbols) / sizeof(cu_symbols[0]) * sizeof(void *) == sizeof(cu),
			   "every driver entry point has a symbol name");

#define GPUAGG_BLOCK		GA_BLOCK
#define GPUAGG_PAGE_BLOCK	128	/* gpuagg_deform_pages: threads a page */
#define SHARED_GROUPS_MAX	2048
/* blocks an SM of gpuagg_aggregate with a table in shared memory */
#define SHARED_BLOCKS_PER_SM 2
/* blocks an SM of a grid-stride kernel over a table, pages or rows */
#define BLOCKS_PER_SM		16
#define POOL_MAX			128
#define ALIGN16(x)			(((x) + 15) & ~(uint64_t) 15)
#define EMIN(a, b)			((a) < (b) ? (a) : (b))
#define EMAX(a, b)			((a) > (b) ? (a) : (b))

/*---- process-wide state ----*/

/* modules, one per running session (their constant memory holds its program) */
typedef struct EngineModule
{
	CUmodule	module;
	CUfunction	fn_aggregate;
	CUfunction	fn_rehash;
	CUfunction	fn_compact;
	CUfunction	fn_topn_hist;
	CUfunction	fn_block_fold;
	CUfunction	fn_fold;
	CUfunction	fn_pairs;
	CUfunction	fn_deform;
	CUfunction	fn_dict_seed;
	CUfunction	fn_dict_rehash;
	CUdeviceptr d_prog;
	bool		busy;
} EngineModule;

/* a GPU: its context, what its kernels may use, its pool of modules */
typedef struct EngineGpu
{
	CUdevice	device;
	CUcontext	context;
	int			sm_count;
	int			smem_optin;
	GaEngineDevice info;
	CUdeviceptr pages_dev;		/* shared buffers, as this context sees them */
	EngineModule pool[POOL_MAX];
	int			pool_loaded;
} EngineGpu;

static int	engine_ready = 0;
static void *libcuda;
static void *image;				/* gpuagg.fatbin, read once */
static EngineGpu gpus[GA_ENGINE_MAX_GPUS];
static int	ngpus = 0;
static volatile int broken = 0;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* the host's shared buffers, mapped for page-form batches */
static char *pages_host;
static uint32_t pages_blcksz;
static uint64_t pages_count;

static void
cu_error_text(CUresult r, char *buf, size_t len)
{
	const char *name = NULL;
	const char *desc = NULL;

	if (cu.GetErrorName)
		cu.GetErrorName(r, &name);
	if (cu.GetErrorString)
		cu.GetErrorString(r, &desc);
	snprintf(buf, len, "%s (%d): %s", name ? name : "CUDA error", r,
			 desc ? desc : "no description");
}

/*
 * Errors after which the context cannot be used again: an illegal address,
 * launch timeout or failure, a device-side assert, hardware and ECC errors,
 * a destroyed or deinitialised context, and the unknown error.
 */
static bool
cu_error_is_sticky(CUresult r)
{
	return r == CUDA_ERROR_NOT_INITIALIZED || r == CUDA_ERROR_DEINITIALIZED ||
		r == CUDA_ERROR_ECC_UNCORRECTABLE || r == CUDA_ERROR_ILLEGAL_ADDRESS ||
		r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_CONTEXT_IS_DESTROYED ||
		r == CUDA_ERROR_ASSERT ||
		(r >= CUDA_ERROR_HARDWARE_STACK_ERROR && r <= CUDA_ERROR_LAUNCH_FAILED) ||
		r == CUDA_ERROR_UNKNOWN;
}

static int	init_failed(char *err, size_t errlen, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

static int
init_failed(char *err, size_t errlen, const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return 0;
}

/* Read a whole file into malloc'd memory. */
static void *
read_file(const char *path)
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
	}
	fclose(f);
	return buf;
}

/* GPU g's primary context and what its kernels may use. */
static int
init_gpu(int g, char *err, size_t errlen)
{
	EngineGpu  *gpu = &gpus[g];
	CUresult	r;
	size_t		total = 0;
	char		text[256];

#define INIT_CHECK(call) \
	do { \
		if ((r = (call)) != CUDA_SUCCESS) \
		{ \
			cu_error_text(r, text, sizeof(text)); \
			return init_failed(err, errlen, "GPU %d: %s failed: %s", g, #call, text); \
		} \
	} while (0)

	INIT_CHECK(cu.DeviceGet(&gpu->device, g));
	INIT_CHECK(cu.DeviceTotalMem(&total, gpu->device));
	INIT_CHECK(cu.DeviceGetAttribute(&gpu->sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
									 gpu->device));
	INIT_CHECK(cu.DeviceGetAttribute(&gpu->smem_optin,
									 CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
									 gpu->device));
	cu.DeviceGetName(gpu->info.name, sizeof(gpu->info.name), gpu->device);
	cu.DeviceGetAttribute(&gpu->info.major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
						  gpu->device);
	cu.DeviceGetAttribute(&gpu->info.minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
						  gpu->device);
	cu.DriverGetVersion(&gpu->info.driver);
	gpu->info.total_bytes = total;
	gpu->info.sms = gpu->sm_count;
	gpu->smem_optin -= 1024;	/* leave room for the kernel's static shared data */
	INIT_CHECK(cu.DevicePrimaryCtxRetain(&gpu->context, gpu->device));
	INIT_CHECK(cu.CtxSetCurrent(gpu->context));
#undef INIT_CHECK
	return 1;
}

int
ga_engine_init(const char *fatbin_path, char *err, size_t errlen)
{
	CUresult	r;
	int			count = 0;
	char		text[256];

	if (engine_ready)
		return 1;
	if ((libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) == NULL)
		return init_failed(err, errlen, "the CUDA driver library libcuda.so.1 cannot be loaded");
	for (size_t i = 0; i < sizeof(cu_symbols) / sizeof(cu_symbols[0]); i++)
	{
		void	   *fn = dlsym(libcuda, cu_symbols[i]);

		if (fn == NULL)
			return init_failed(err, errlen, "libcuda.so.1 has no %s", cu_symbols[i]);
		((void **) &cu)[i] = fn;
	}
	if ((r = cu.Init(0)) != CUDA_SUCCESS || (r = cu.DeviceGetCount(&count)) != CUDA_SUCCESS)
	{
		cu_error_text(r, text, sizeof(text));
		return init_failed(err, errlen, "initialising CUDA failed: %s", text);
	}
	if (count < 1)
		return init_failed(err, errlen, "no CUDA device");
	count = EMIN(count, GA_ENGINE_MAX_GPUS);
	if ((image = read_file(fatbin_path)) == NULL)
		return init_failed(err, errlen, "cannot read %s", fatbin_path);
	for (int g = 0; g < count; g++)
		if (!init_gpu(g, err, errlen))
			return 0;
	ngpus = count;
	engine_ready = 1;
	return 1;
}

int
ga_engine_gpus(void)
{
	return engine_ready ? ngpus : 0;
}

int
ga_engine_device(int g, GaEngineDevice *dev)
{
	if (!engine_ready || g < 0 || g >= ngpus)
		return 0;
	*dev = gpus[g].info;
	return 1;
}

int
ga_engine_mem_info(int g, uint64_t *free_bytes, uint64_t *total_bytes)
{
	size_t		f = 0,
				t = 0;

	if (!engine_ready || broken || g < 0 || g >= ngpus ||
		cu.CtxSetCurrent(gpus[g].context) != CUDA_SUCCESS ||
		cu.MemGetInfo(&f, &t) != CUDA_SUCCESS)
		return 0;
	*free_bytes = f;
	*total_bytes = t;
	return 1;
}

/*
 * Map the host's shared buffers into every GPU's address space (page-locked
 * once, portable to all contexts; it takes a while for tens of GB), so that
 * kernels read heap pages where they lie.
 */
int
ga_engine_register_pages(void *host, uint64_t bytes, uint32_t blcksz, char *err,
						 size_t errlen)
{
	CUresult	r;
	char		text[256];
	int			g = 0;

	if (!engine_ready)
		return init_failed(err, errlen, "CUDA is not initialised");
	/* PORTABLE | DEVICEMAP */
	if ((r = cu.CtxSetCurrent(gpus[0].context)) != CUDA_SUCCESS ||
		(r = cu.MemHostRegister(host, bytes, 0x01 | 0x02)) != CUDA_SUCCESS)
		return init_failed(err, errlen, "mapping shared buffers for the GPU failed: %s",
						   (cu_error_text(r, text, sizeof(text)), text));
	for (g = 0; g < ngpus; g++)
		if ((r = cu.CtxSetCurrent(gpus[g].context)) != CUDA_SUCCESS ||
			(r = cu.MemHostGetDevicePointer(&gpus[g].pages_dev, host, 0)) != CUDA_SUCCESS)
			break;
	if (g < ngpus)
	{
		cu_error_text(r, text, sizeof(text));
		for (int i = 0; i < ngpus; i++)
			gpus[i].pages_dev = 0;
		cu.MemHostUnregister(host);
		return init_failed(err, errlen, "mapping shared buffers for GPU %d failed: %s", g, text);
	}
	pages_host = host;
	pages_blcksz = blcksz;
	pages_count = bytes / blcksz;
	return 1;
}

int
ga_engine_broken(void)
{
	return broken;
}

/* A module of the pool for a session: a free one, or one loaded now. */
static EngineModule *
module_take(EngineGpu *gpu, char *err, size_t errlen)
{
	EngineModule *pool = gpu->pool;
	EngineModule *m = NULL;
	CUresult	r = CUDA_SUCCESS;
	size_t		prog_size = 0;
	size_t		abi_size = 0;
	CUdeviceptr d_abi = 0;
	uint32_t	abi = 0;
	const char *what = "";

	pthread_mutex_lock(&pool_lock);
	for (int i = 0; i < gpu->pool_loaded && m == NULL; i++)
		if (!pool[i].busy)
			m = &pool[i];
	if (m == NULL && gpu->pool_loaded < POOL_MAX)
	{
		EngineModule nm = {0};

#define MOD_CHECK(call) \
		if (r == CUDA_SUCCESS && (r = (call)) != CUDA_SUCCESS) \
			what = #call

		MOD_CHECK(cu.ModuleLoadData(&nm.module, image));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_aggregate, nm.module, "gpuagg_aggregate"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_rehash, nm.module, "gpuagg_rehash"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_compact, nm.module, "gpuagg_compact"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_topn_hist, nm.module, "gpuagg_topn_hist"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_block_fold, nm.module, "gpuagg_block_fold"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_fold, nm.module, "gpuagg_distinct_fold"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_pairs, nm.module, "gpuagg_distinct_pairs"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_deform, nm.module, "gpuagg_deform_pages"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dict_seed, nm.module, "gpuagg_dict_seed"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dict_rehash, nm.module, "gpuagg_dict_rehash"));
		MOD_CHECK(cu.ModuleGetGlobal(&nm.d_prog, &prog_size, nm.module, "gpuagg_prog"));
		MOD_CHECK(cu.ModuleGetGlobal(&d_abi, &abi_size, nm.module, "gpuagg_abi_version"));
		MOD_CHECK(cu.MemcpyDtoH(&abi, d_abi, sizeof(abi)));
		MOD_CHECK(cu.FuncSetAttribute(nm.fn_aggregate,
									  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
									  gpu->smem_optin));
#undef MOD_CHECK
		if (r != CUDA_SUCCESS)
		{
			char		text[256];

			cu_error_text(r, text, sizeof(text));
			snprintf(err, errlen, "%s failed: %s", what, text);
			if (nm.module)
				cu.ModuleUnload(nm.module);
		}
		else if (prog_size != sizeof(GaProgram) || abi != GA_ABI_VERSION)
		{
			snprintf(err, errlen, "gpuagg.fatbin was built for another program layout");
			cu.ModuleUnload(nm.module);
		}
		else
		{
			pool[gpu->pool_loaded] = nm;
			m = &pool[gpu->pool_loaded++];
		}
	}
	else if (m == NULL)
		snprintf(err, errlen, "more than %d queries at once on GPU %d", POOL_MAX,
				 (int) (gpu - gpus));
	if (m)
		m->busy = true;
	pthread_mutex_unlock(&pool_lock);
	return m;
}

static void
module_give(EngineModule *m)
{
	pthread_mutex_lock(&pool_lock);
	m->busy = false;
	pthread_mutex_unlock(&pool_lock);
}

/*---- a query's session ----*/

struct GaEngineSession
{
	GaProgram	prog;
	GaEngineArgs args;
	EngineGpu  *gpu;
	EngineModule *mod;
	volatile uint32_t *cancel;
	char	   *host;
	uint64_t	host_bytes;
	bool		registered;
	unsigned long long *counters_host;	/* in the host region's scratch */
	unsigned long long *snap[2];	/* the counters after buffer b's last kernel */
	uint64_t   *topn_hist;		/* a top-N's histogram (topn_select), then the
								 * groups gpuagg_compact packed */
	uint64_t	queued_rows[2]; /* rows of the last batch in buffer b */
	uint64_t	queued_pages[2];	/* and its pages */
	char	   *buf[2];
	CUstream	s_exec;
	CUstream	s_copy[2];
	CUevent		ev_copystart[2];
	CUevent		ev_copied[2];	/* host buffer b copied to the device */
	CUevent		ev_kstart[2];
	CUevent		ev_consumed[2]; /* the kernel that read device buffer b ended */
	CUevent		ev_sync;
	bool		copy_pending[2];
	bool		kernel_pending[2];
	bool		started;
	CUdeviceptr d_buf[2];
	GaTable		table;
	CUdeviceptr d_table;
	uint64_t	table_bytes;
	CUdeviceptr d_counters;
	uint64_t	groups_bound;	/* groups there can be after the queued batches */
	GaDistinctSets sets;		/* count(DISTINCT) sets, prog.ndistinct of them */
	CUdeviceptr d_set[GA_MAX_DISTINCT];
	uint64_t	set_bytes[GA_MAX_DISTINCT];
	uint64_t	set_bound[GA_MAX_DISTINCT];
	CUdeviceptr d_out;			/* the packed result, until close */
	uint64_t	out_bytes;
	int			finish_stage;	/* 0, 1 timings taken, 2 result packed */
	GaEngineShape shape;
	CUdeviceptr part_addr[GA_NPARTS];
	uint64_t	part_bytes[GA_NPARTS];
	/* page form with string columns: the string dictionary (gpuagg_page.h) */
	uint32_t	nstringcols;	/* string columns the deformer codes */
	void	   *seed;			/* the host's strings, args.nseed of them */
	GaDict		dict;
	CUdeviceptr d_dict;			/* its slots and by-code arrays */
	uint64_t	dict_bytes;
	CUdeviceptr d_arena;
	bool		dict_ready;		/* made, and the host's strings in */
	uint64_t	dict_n_bound;	/* codes there can be after the queued batches */
	uint64_t	dict_b_bound;	/* arena bytes likewise */
	uint64_t	rows_seen;		/* rows before the next batch, in scan order */
	uint32_t	shared_cap;
	CUdeviceptr d_blocks;		/* nblocks block tables of shared_cap slots, */
	uint64_t	blocks_bytes;	/* kept across batches (or none) */
	uint32_t	nblocks;
	uint32_t	smem_bytes;
	uint64_t	vram_used;
	uint64_t	need;
	double		kernel_ms;
	double		copy_ms;
	char		errbuf[512];
};

/* Record a CUDA failure of the session; a sticky one breaks the engine. */
static int
session_fail(GaEngineSession *s, const char *what, CUresult r)
{
	char		text[256];

	cu_error_text(r, text, sizeof(text));
	if (cu_error_is_sticky(r))
	{
		__atomic_store_n(&broken, 1, __ATOMIC_SEQ_CST);
		snprintf(s->errbuf, sizeof(s->errbuf),
				 "%s failed: %s (the GPU service starts anew)", what, text);
	}
	else
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
 * The session's GPU's context, current in this thread: a service thread
 * serves one session, but a single-user backend may run sessions on several
 * GPUs in turn.
 */
#define CU_CURRENT(s)	CU_CHECK(s, cu.CtxSetCurrent((s)->gpu->context))

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
			return session_fail(s, "cuEventQuery", r);
		if (s->cancel && *s->cancel)
		{
			snprintf(s->errbuf, sizeof(s->errbuf), "the query was cancelled");
			return GA_ERR_DEVICE;
		}
		if (broken)
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
static int
wait_exec(GaEngineSession *s)
{
	CU_CHECK(s, cu.EventRecord(s->ev_sync, s->s_exec));
	return wait_event(s, s->ev_sync);
}

static int
device_alloc(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes)
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
static bool
within_budget(const GaEngineSession *s, uint64_t bytes)
{
	return (double) (s->vram_used + bytes) <= s->args.vram_budget;
}

static void
device_free(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes)
{
	if (*p)
	{
		cu.MemFree(*p);
		s->vram_used -= bytes;
	}
	*p = 0;
}

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

static int
table_alloc(GaEngineSession *s, uint64_t cap, uint32_t nk, uint32_t ns, uint32_t count_at,
			GaTable *t, CUdeviceptr *base, uint64_t *bytes)
{
	TableLayout l = table_layout(cap, nk, ns);
	uint64_t	size = l.size;
	int			err;
	CUresult	r;

	err = device_alloc(s, base, size);
	if (err)
		return err;
	*bytes = size;
	if ((r = cu.MemsetD8Async(*base, 0, size, s->s_exec)) != CUDA_SUCCESS)
	{
		device_free(s, base, size);
		return session_fail(s, "cuMemsetD8Async", r);
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
static uint64_t
half_load_cap(double need)
{
	uint64_t	p = 1024;

	while ((double) p < 2.0 * need)
		p <<= 1;
	return p;
}

/*
 * The error a copy of the counters reports.  A string the deformer could
 * not read had no code: the rows since mean nothing, their errors
 * included; the host reads them again.
 */
static int
counters_error(const unsigned long long *c)
{
	if (c[GA_CNT_STRINGS_BACK] != 0)
		return GA_ERR_STRING_BACK;
	/* the error slot holds (row << 8 | code) of the earliest failing row */
	if (c[GA_CNT_ERROR] == ~0ULL)
		return GA_OK;
	return (int) (c[GA_CNT_ERROR] & 0xff);
}

/* Bring the counters back; their error, if any, is returned. */
static int
read_counters(GaEngineSession *s, unsigned long long *out)
{
	int			err;

	CU_CHECK(s, cu.MemcpyDtoHAsync(s->counters_host, s->d_counters,
								   sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
	if ((err = wait_exec(s)) != GA_OK)
		return err;
	memcpy(out, s->counters_host, sizeof(unsigned long long) * GA_NCOUNTERS);
	return counters_error(out);
}

/*
 * Blocks for a grid-stride kernel over n items, block of them a block, at
 * most per_sm blocks an SM (and at least one block).
 */
static unsigned int
stride_grid(const GaEngineSession *s, uint64_t n, unsigned int block, unsigned int per_sm)
{
	return (unsigned int) EMAX(EMIN((n + block - 1) / block,
									(uint64_t) s->gpu->sm_count * per_sm), 1);
}

/* Blocks for a kernel with a thread per slot of table t (grid-stride). */
static unsigned int
table_grid(const GaEngineSession *s, const GaTable *t)
{
	return stride_grid(s, t->cap, GPUAGG_BLOCK, BLOCKS_PER_SM);
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
		if ((err = wait_exec(s)) != GA_OK)
			return err;
		if (ga_topn_step(&s->prog, b, hist))
			return GA_OK;
	}
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

	err = table_alloc(s, half_load_cap(need), t->nkeys, t->nslots, t->count_at,
					  &nt, &nbase, &nbytes);
	if (err)
		return err;
	params[0] = t;
	params[1] = &nt;
	r = cu.LaunchKernel(s->mod->fn_rehash, table_grid(s, t), 1, 1, GPUAGG_BLOCK, 1, 1, 0,
						s->s_exec, params, NULL);
	err = (r != CUDA_SUCCESS) ? session_fail(s, "cuLaunchKernel(gpuagg_rehash)", r) :
		wait_exec(s);
	if (err != GA_OK)
	{
		device_free(s, &nbase, nbytes);
		return err;
	}
	device_free(s, base, *bytes);
	*t = nt;
	*base = nbase;
	*bytes = nbytes;
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

	if ((err = device_alloc(s, base, size)) != GA_OK)
		return err;
	*bytes = size;
	if ((r = cu.MemsetD8Async(*base, 0, size, s->s_exec)) != CUDA_SUCCESS)
	{
		device_free(s, base, size);
		return session_fail(s, "cuMemsetD8Async", r);
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
		bytes += dict_size(half_load_cap(need_n));
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

		if ((err = dict_alloc(s, half_load_cap(need_n), &nd, &base, &bytes)) != GA_OK)
			return err;
		GROW_CHECK(cu.MemcpyDtoDAsync((CUdeviceptr) nd.str_at, (CUdeviceptr) s->dict.str_at,
									  8 * n, s->s_exec));
		GROW_CHECK(cu.MemcpyDtoDAsync((CUdeviceptr) nd.str_len, (CUdeviceptr) s->dict.str_len,
									  4 * n, s->s_exec));
		GROW_CHECK(cu.LaunchKernel(s->mod->fn_dict_rehash,
								   stride_grid(s, s->dict.cap, GPUAGG_BLOCK, BLOCKS_PER_SM),
								   1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, params, NULL));
		err = r != CUDA_SUCCESS ? session_fail(s, what, r) : wait_exec(s);
		if (err != GA_OK)
		{
			device_free(s, &base, bytes);
			return err;
		}
		device_free(s, &s->d_dict, s->dict_bytes);
		s->dict = nd;
		s->d_dict = base;
		s->dict_bytes = bytes;
	}
	if (need_bytes > s->dict.arena_cap)
	{
		uint64_t	cap = arena_growth(s, need_bytes);
		CUdeviceptr arena = 0;

		if ((err = device_alloc(s, &arena, cap)) != GA_OK)
			return err;
		if (used > 0)
			GROW_CHECK(cu.MemcpyDtoDAsync(arena, s->d_arena, used, s->s_exec));
		err = r != CUDA_SUCCESS ? session_fail(s, what, r) : wait_exec(s);
		if (err != GA_OK)
		{
			device_free(s, &arena, cap);
			return err;
		}
		device_free(s, &s->d_arena, s->dict.arena_cap);
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
static int
dict_start(GaEngineSession *s)
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
	 * Room for the strings of a few batches at least, so that dict_room
	 * looks at the counters (a wait for the kernels) seldom.
	 */
	if (!s->d_dict &&
		(err = dict_alloc(s, half_load_cap(2.0 * (s->args.nseed + (double) s->nstringcols *
												   s->args.batch_rows)),
						  &s->dict, &s->d_dict, &s->dict_bytes)) != GA_OK)
		return err;
	if (!s->d_arena)
	{
		uint64_t	cap = ALIGN16(s->args.seed_bytes +
								  2 * (uint64_t) s->args.max_pages * pages_blcksz);

		if ((err = device_alloc(s, &s->d_arena, cap)) != GA_OK)
			return err;
		s->dict.arena = (uint8_t *) s->d_arena;
		s->dict.arena_cap = cap;
	}
	if (s->args.nseed > 0)
	{
		if ((err = device_alloc(s, &seed, s->args.seed_bytes)) != GA_OK)
			return err;
		params[0] = &s->dict;
		params[1] = &seed;
		params[2] = &s->args.nseed;
		if ((r = cu.MemcpyHtoDAsync(seed, s->seed, s->args.seed_bytes, s->s_exec)) != CUDA_SUCCESS)
			what = "cuMemcpyHtoDAsync";
		else if ((r = cu.LaunchKernel(s->mod->fn_dict_seed, 1, 1, 1, 1, 1, 1, 0, s->s_exec,
									  params, NULL)) != CUDA_SUCCESS)
			what = "cuLaunchKernel(gpuagg_dict_seed)";
		err = r != CUDA_SUCCESS ? session_fail(s, what, r) : wait_exec(s);
		device_free(s, &seed, s->args.seed_bytes);
		if (err != GA_OK)
			return err;
	}
	if ((err = read_counters(s, counters)) != GA_OK)
		return err;
	s->dict_n_bound = counters[GA_CNT_DICT_N];
	s->dict_b_bound = counters[GA_CNT_DICT_BYTES];
	s->dict_ready = true;
	return GA_OK;
}

/*
 * Few groups: each block of gpuagg_aggregate aggregates in a table in
 * shared memory first, 4 slots a group (256 at least) where they fit, kept
 * across batches in the block tables.
 */
static void
shared_table(GaEngineSession *s)
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
 * Room in the dictionary for every string of a batch of nrows rows on
 * npages pages, whatever they hold (every string column a new string a
 * row, their bytes no more than the pages'): grown first (before anything
 * of the batch is queued, so GA_NEED_MEMORY can repeat).
 */
static int
dict_room(GaEngineSession *s, uint32_t nrows, uint32_t npages)
{
	uint64_t	add_n = (uint64_t) s->nstringcols * nrows;
	uint64_t	add_b = (uint64_t) npages * pages_blcksz;
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
	if ((err = read_counters(s, counters)) != GA_OK)
		return err;
	/* room for the next batch too where the budget allows, as make_room */
	n = counters[GA_CNT_DICT_N];
	used = counters[GA_CNT_DICT_BYTES];
	k = within_budget(s, dict_growth(s, n + 2 * add_n, used + 2 * add_b)) ? 2 : 1;
	if ((err = grow_dict(s, n, used, n + k * add_n, used + k * add_b)) != GA_OK)
		return err;
	s->dict_n_bound = n;
	s->dict_b_bound = used;
	return GA_OK;
}

GaEngineSession *
ga_engine_open(const GaProgram *prog, const GaEngineArgs *args, const void *seed, void *host,
			   uint64_t host_bytes, volatile uint32_t *cancel, char *err, size_t errlen)
{
	GaEngineSession *s;
	CUresult	r = CUDA_SUCCESS;
	const char *what = "";

	if (!engine_ready || broken)
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
	/* page form: the string columns the deformer codes in the dictionary */
	for (uint32_t c = 0; c < prog->ncols && args->max_pages > 0; c++)
		if (prog->cols[c].type == GA_T_TEXT && !prog->cols[c].pred)
			s->nstringcols++;
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

	if (args->gpu < 0 || args->gpu >= ngpus)
	{
		snprintf(err, errlen, "there is no GPU %d", args->gpu);
		free(s->seed);
		free(s);
		return NULL;
	}
	s->gpu = &gpus[args->gpu];
	if ((r = cu.CtxSetCurrent(s->gpu->context)) != CUDA_SUCCESS)
	{
		session_fail(s, "cuCtxSetCurrent", r);
		snprintf(err, errlen, "%s", s->errbuf);
		free(s->seed);
		free(s);
		return NULL;
	}
	if ((s->mod = module_take(s->gpu, err, errlen)) == NULL)
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
		session_fail(s, what, r);
		snprintf(err, errlen, "%s", s->errbuf);
		ga_engine_close(s);
		return NULL;
	}

	shared_table(s);
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
		if (!s->d_buf[b] && (err = device_alloc(s, &s->d_buf[b], s->args.batch_bytes)) != GA_OK)
			return err;
	if (!s->d_counters)
	{
		if ((err = device_alloc(s, &s->d_counters,
								sizeof(unsigned long long) * GA_NCOUNTERS)) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemsetD8Async(s->d_counters, 0,
									 sizeof(unsigned long long) * GA_NCOUNTERS, s->s_exec));
		/* no error yet: the error slot keeps a minimum, so it starts at its top */
		CU_CHECK(s, cu.MemsetD8Async(s->d_counters + sizeof(unsigned long long) * GA_CNT_ERROR,
									 0xff, sizeof(unsigned long long), s->s_exec));
	}
	if (!s->d_table &&
		(err = table_alloc(s, half_load_cap(s->args.groups + s->args.batch_rows),
						   prog->nkeys, prog->nslots, GA_CNT_GROUPS,
						   &s->table, &s->d_table, &s->table_bytes)) != GA_OK)
		return err;

	/*
	 * Room for the estimated groups and a whole batch of new ones, so that
	 * make_room grows nothing when the estimate holds (planner.c's
	 * vram_estimate counts the same).  A distinct set's keys: the group
	 * keys and the value.
	 */
	for (uint32_t j = 0; j < prog->ndistinct; j++)
		if (!s->d_set[j] &&
			(err = table_alloc(s, half_load_cap(s->args.batch_rows + 1.0), prog->nkeys + 1, 0,
							   GA_CNT_DISTINCT + j, &s->sets.set[j], &s->d_set[j],
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
	if (!s->d_blocks && s->shared_cap > 0 && within_budget(s, s->blocks_bytes))
	{
		if ((err = device_alloc(s, &s->d_blocks, s->blocks_bytes)) != GA_OK)
			return err;
		CU_CHECK(s, cu.MemsetD8Async(s->d_blocks, 0, s->blocks_bytes, s->s_exec));
		s->nblocks = (uint32_t) s->gpu->sm_count * SHARED_BLOCKS_PER_SM;
	}
	if (s->nstringcols > 0 && (err = dict_start(s)) != GA_OK)
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
 * tighter, so make_room and dict_room seldom wait for the kernels to read
 * the counters themselves (a wait a batch left one session's GPU idle
 * while its host made the next batch).
 */
static int
tighten_bounds(GaEngineSession *s, int b)
{
	const unsigned long long *c = s->snap[b];
	uint64_t	rows = s->queued_rows[1 - b];

	s->groups_bound = EMIN(s->groups_bound, c[GA_CNT_GROUPS] + rows);
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		s->set_bound[j] = EMIN(s->set_bound[j], c[GA_CNT_DISTINCT + j] + rows);
	if (s->dict_ready)
	{
		s->dict_n_bound = EMIN(s->dict_n_bound, c[GA_CNT_DICT_N] + s->nstringcols * rows);
		s->dict_b_bound = EMIN(s->dict_b_bound,
							   c[GA_CNT_DICT_BYTES] + s->queued_pages[1 - b] * pages_blcksz);
	}
	/* a row's error, or a string sent back, is known now, not at the end */
	return counters_error(c);
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
room_bound(const GaEngineSession *s, const GaTable *t, uint64_t n, uint32_t nrows)
{
	uint64_t	two = n + 2 * (uint64_t) nrows;

	if (2 * two > t->cap &&
		!within_budget(s, table_size(half_load_cap(two), t->nkeys, t->nslots)))
		return n + nrows;
	return two;
}

/*
 * No table may pass half load, whatever the batch holds: grow them first
 * (before anything of the batch is queued, so GA_NEED_MEMORY can repeat).
 */
static int
make_room(GaEngineSession *s, uint32_t nrows)
{
	bool		check;
	unsigned long long counters[GA_NCOUNTERS];
	int			err;
	uint64_t	bound;

	check = 2 * (s->groups_bound + nrows) > s->table.cap;
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		check |= 2 * (s->set_bound[j] + nrows) > s->sets.set[j].cap;
	if (!check)
		return GA_OK;
	if ((err = read_counters(s, counters)) != GA_OK)
		return err;
	bound = room_bound(s, &s->table, counters[GA_CNT_GROUPS], nrows);
	if (2 * bound > s->table.cap &&
		(err = grow_table(s, &s->table, &s->d_table, &s->table_bytes, bound)) != GA_OK)
		return err;
	s->groups_bound = counters[GA_CNT_GROUPS];
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
	{
		bound = room_bound(s, &s->sets.set[j], counters[GA_CNT_DISTINCT + j], nrows);
		if (2 * bound > s->sets.set[j].cap &&
			(err = grow_table(s, &s->sets.set[j], &s->d_set[j],
							  &s->set_bytes[j], bound)) != GA_OK)
			return err;
		s->set_bound[j] = counters[GA_CNT_DISTINCT + j];
	}
	return GA_OK;
}

/*
 * A page-form batch: its page list, row starts, visibility bitmaps and
 * layout to the device, the null bitmaps zeroed, and gpuagg_deform_pages
 * to fill the columns from the pages where they lie in the mapped shared
 * buffers, on the copy stream of buffer b.  dbatch gets device addresses.
 */
static int
page_batch(GaEngineSession *s, int b, const GaBatch *batch, GaBatch *dbatch)
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

	if (!s->gpu->pages_dev || (const char *) batch->pages != pages_host)
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
	for (uint32_t c = 0; c < s->prog.ncols; c++)
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
	params[3] = &pages_blcksz;
	params[4] = &pages_count;
	params[5] = &s->d_counters;
	params[6] = &s->dict;
	grid = stride_grid(s, npages32, 1, BLOCKS_PER_SM);
	CU_CHECK(s, cu.LaunchKernel(s->mod->fn_deform, grid, 1, 1, GPUAGG_PAGE_BLOCK, 1, 1,
								pages_blcksz, s->s_copy[b], params, NULL));
	return GA_OK;
}

int
ga_engine_add_batch(GaEngineSession *s, int b, const GaBatch *batch)
{
	GaBatch		dbatch = *batch;
	GaTable		table;
	void	   *params[7];
	unsigned int grid;
	int			err;

	CU_CURRENT(s);
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
	if ((err = make_room(s, batch->nrows)) != GA_OK)
		return err;
	if (batch->pagelist && s->nstringcols > 0 &&
		(err = dict_room(s, batch->nrows, batch->npages)) != GA_OK)
		return err;

	/* columns to the device on this buffer's copy stream */
	CU_CHECK(s, cu.EventRecord(s->ev_copystart[b], s->s_copy[b]));
	if (batch->pagelist)
	{
		if ((err = page_batch(s, b, batch, &dbatch)) != GA_OK)
			return err;
	}
	else
	for (uint32_t c = 0; c < s->prog.ncols; c++)
	{
		int			w = ga_type_width(s->prog.cols[c].type);

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
	s->groups_bound += batch->nrows;
	for (uint32_t j = 0; j < s->prog.ndistinct; j++)
		s->set_bound[j] += batch->nrows;
	s->queued_rows[b] = batch->nrows;
	s->queued_pages[b] = batch->pagelist ? batch->npages : 0;
	if (batch->pagelist)
	{
		s->dict_n_bound += (uint64_t) s->nstringcols * batch->nrows;
		s->dict_b_bound += (uint64_t) batch->npages * pages_blcksz;
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
 * Add the block tables into their groups, count the distinct sets into
 * theirs, pack the groups (and the pairs of min/max of strings) in device
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
	uint64_t	npairs = 0;
	uint64_t	bytes,
				pairs_at,
				hist_at;
	GaTopNBound bound;
	int			err;

	CU_CURRENT(s);
	if (s->finish_stage == 2)
	{
		*shape = s->shape;
		return GA_OK;
	}
	if ((err = read_counters(s, counters)) != GA_OK)
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
		if (s->prog.aggs[a].distinct >= 0 &&
			ga_agg_host_order(s->prog.aggs[a].kind, s->prog.aggs[a].argtype))
			npairs += counters[GA_CNT_DISTINCT + s->prog.aggs[a].distinct];
	bytes = ALIGN16((8 * (uint64_t) nk + 8 * (uint64_t) ns + nk) * total + 16);
	pairs_at = bytes;
	if (npairs > 0)
		bytes += 8 * s->table.cap + 16 * npairs + 8 * GA_MAX_DISTINCT;
	hist_at = bytes;
	bytes += 8 * GA_TOPN_HIST;
	if (!s->d_out)
	{
		if ((err = device_alloc(s, &s->d_out, bytes)) != GA_OK)
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

		if (ag->distinct < 0 || ag->kind != GA_AGG_COUNT)
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
							cnt;
				void	   *pp[7];

				if (j < 0 || !ga_agg_host_order(ag->kind, ag->argtype))
					continue;
				m = counters[GA_CNT_DISTINCT + j];
				s->shape.npairs[j] = m;
				if (m == 0)
					continue;
				group = next;
				value = next + 8 * m;
				cnt = count + 8 * j;
				next += 16 * m;
				s->part_addr[GA_PART_PAIRGROUP + 2 * j] = group;
				s->part_bytes[GA_PART_PAIRGROUP + 2 * j] = 8 * m;
				s->part_addr[GA_PART_PAIRVALUE + 2 * j] = value;
				s->part_bytes[GA_PART_PAIRVALUE + 2 * j] = 8 * m;
				pp[0] = &s->sets.set[j];
				pp[1] = &s->table;
				pp[2] = &slotpos;
				pp[3] = &group;
				pp[4] = &value;
				pp[5] = &cnt;
				pp[6] = &m;
				CU_CHECK(s, cu.LaunchKernel(s->mod->fn_pairs, table_grid(s, &s->sets.set[j]),
											1, 1, GPUAGG_BLOCK, 1, 1, 0, s->s_exec, pp, NULL));
			}
		}
	}
	/*
	 * errors of the folds and the pairs (internal) are in the counters; a
	 * group gpuagg_block_fold had to make was not there to be packed, and
	 * the compaction packed as many groups as there was room for
	 */
	if ((err = read_counters(s, counters)) != GA_OK)
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
	return wait_exec(s);
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
	if (s->gpu && cu.CtxSetCurrent(s->gpu->context) == CUDA_SUCCESS && !broken)
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
		device_free(s, &s->d_buf[b], s->args.batch_bytes);
	}
	device_free(s, &s->d_table, s->table_bytes);
	device_free(s, &s->d_blocks, s->blocks_bytes);
	device_free(s, &s->d_out, s->out_bytes);
	for (int j = 0; j < GA_MAX_DISTINCT; j++)
		device_free(s, &s->d_set[j], s->set_bytes[j]);
	device_free(s, &s->d_dict, s->dict_bytes);
	device_free(s, &s->d_arena, s->dict.arena_cap);
	device_free(s, &s->d_counters, sizeof(unsigned long long) * GA_NCOUNTERS);
	if (s->ev_sync)
		cu.EventDestroy(s->ev_sync);
	if (s->s_exec)
		cu.StreamDestroy(s->s_exec);
	if (s->registered)
		cu.MemHostUnregister(s->host);
	if (s->mod)
		module_give(s->mod);
	free(s->seed);
	free(s);
}
