/*-------------------------------------------------------------------------
 *
 * cuda_driver.c
 *		The CUDA engine's driver API, loaded at run time, and its GPUs.
 *
 * No PostgreSQL here, as in all of the engine (engine.c says why).
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
 * Here: the driver's entry points (engine_cu, called as cu), what a CUDA
 * error means, ga_engine_init and what it learns of each GPU, the shared
 * buffers each GPU maps, and the pools of modules a session (engine.c)
 * takes one from and gives it back to.
 *
 *-------------------------------------------------------------------------
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "engine_int.h"

/* symbol names, in the order of EngineDriver's members (engine_int.h) */
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

/*---- process-wide state ----*/

/* the driver's entry points, filled by ga_engine_init */
EngineDriver engine_cu;

int			engine_ready = 0;
static void *libcuda;
static void *image;				/* gpuagg.fatbin, read once */
EngineGpu	engine_gpu[GA_ENGINE_MAX_GPUS];
int			engine_ngpus = 0;
volatile int engine_broken = 0;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

/* the host's shared buffers, mapped for page-form batches */
char	   *engine_pages_host;
uint32_t	engine_pages_blcksz;
uint64_t	engine_pages_count;

void
engine_cu_error_text(CUresult r, char *buf, size_t len)
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
bool
engine_cu_error_is_sticky(CUresult r)
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
	EngineGpu  *gpu = &engine_gpu[g];
	CUresult	r;
	size_t		total = 0;
	char		text[256];

#define INIT_CHECK(call) \
	do { \
		if ((r = (call)) != CUDA_SUCCESS) \
		{ \
			engine_cu_error_text(r, text, sizeof(text)); \
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
		engine_cu_error_text(r, text, sizeof(text));
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
	engine_ngpus = count;
	engine_ready = 1;
	return 1;
}

int
ga_engine_gpus(void)
{
	return engine_ready ? engine_ngpus : 0;
}

int
ga_engine_device(int g, GaEngineDevice *dev)
{
	if (!engine_ready || g < 0 || g >= engine_ngpus)
		return 0;
	*dev = engine_gpu[g].info;
	return 1;
}

int
ga_engine_mem_info(int g, uint64_t *free_bytes, uint64_t *total_bytes)
{
	size_t		f = 0,
				t = 0;

	if (!engine_ready || engine_broken || g < 0 || g >= engine_ngpus ||
		cu.CtxSetCurrent(engine_gpu[g].context) != CUDA_SUCCESS ||
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
	if ((r = cu.CtxSetCurrent(engine_gpu[0].context)) != CUDA_SUCCESS ||
		(r = cu.MemHostRegister(host, bytes, 0x01 | 0x02)) != CUDA_SUCCESS)
		return init_failed(err, errlen, "mapping shared buffers for the GPU failed: %s",
						   (engine_cu_error_text(r, text, sizeof(text)), text));
	for (g = 0; g < engine_ngpus; g++)
		if ((r = cu.CtxSetCurrent(engine_gpu[g].context)) != CUDA_SUCCESS ||
			(r = cu.MemHostGetDevicePointer(&engine_gpu[g].pages_dev, host, 0)) != CUDA_SUCCESS)
			break;
	if (g < engine_ngpus)
	{
		engine_cu_error_text(r, text, sizeof(text));
		for (int i = 0; i < engine_ngpus; i++)
			engine_gpu[i].pages_dev = 0;
		cu.MemHostUnregister(host);
		return init_failed(err, errlen, "mapping shared buffers for GPU %d failed: %s", g, text);
	}
	engine_pages_host = host;
	engine_pages_blcksz = blcksz;
	engine_pages_count = bytes / blcksz;
	return 1;
}

int
ga_engine_broken(void)
{
	return engine_broken;
}

/* A module of the pool for a session: a free one, or one loaded now. */
EngineModule *
engine_module_take(EngineGpu *gpu, char *err, size_t errlen)
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
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_having_count, nm.module, "gpuagg_having_count"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_block_fold, nm.module, "gpuagg_block_fold"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_fold, nm.module, "gpuagg_distinct_fold"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_pairs, nm.module, "gpuagg_distinct_pairs"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_osa_count, nm.module, "gpuagg_osa_count"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_osa_start, nm.module, "gpuagg_osa_start"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_osa_mode, nm.module, "gpuagg_osa_mode"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_osa_hist, nm.module, "gpuagg_osa_hist"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_osa_pick, nm.module, "gpuagg_osa_pick"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_deform, nm.module, "gpuagg_deform_pages"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dict_seed, nm.module, "gpuagg_dict_seed"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dict_rehash, nm.module, "gpuagg_dict_rehash"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dim_build, nm.module, "gpuagg_dim_build"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dim_chains, nm.module, "gpuagg_dim_chains"));
		MOD_CHECK(cu.ModuleGetFunction(&nm.fn_dim_scan, nm.module, "gpuagg_dim_scan"));
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

			engine_cu_error_text(r, text, sizeof(text));
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
				 (int) (gpu - engine_gpu));
	if (m)
		m->busy = true;
	pthread_mutex_unlock(&pool_lock);
	return m;
}

void
engine_module_give(EngineModule *m)
{
	pthread_mutex_lock(&pool_lock);
	m->busy = false;
	pthread_mutex_unlock(&pool_lock);
}
