/*-------------------------------------------------------------------------
 *
 * engine_int.h
 *		The CUDA engine's insides, shared by the files of the engine.
 *
 * engine.h is the engine's interface; this header is what cuda_driver.c
 * (the driver API and the GPUs), engine_table.c (a session's tables and
 * dictionary) and engine.c (a session's life) share, and only they include
 * it.  Like them it includes no PostgreSQL header.  What they share is
 * named engine_...: an extension's globals are exported, and no symbol of
 * the server may clash with them.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_ENGINE_INT_H
#define GPUAGG_ENGINE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"
#include "../cuda/gpuagg_page.h"

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

/* the entry points, loaded by ga_engine_init (cuda_driver.c) */
typedef struct EngineDriver
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
} EngineDriver;

extern EngineDriver engine_cu;

/*
 * Called as cu.Name(...), whatever the symbol's name: the CHECK macros
 * quote their call, so that an error reads "cu.MemAlloc(p, bytes) failed:
 * ...".
 */
#define cu engine_cu

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

/*---- process-wide state (cuda_driver.c) ----*/

/* modules, one per running session (their constant memory holds its program) */
typedef struct EngineModule
{
	CUmodule	module;
	CUfunction	fn_aggregate;
	CUfunction	fn_rehash;
	CUfunction	fn_compact;
	CUfunction	fn_topn_hist;
	CUfunction	fn_having_count;
	CUfunction	fn_block_fold;
	CUfunction	fn_fold;
	CUfunction	fn_pairs;
	CUfunction	fn_osa_count;	/* ordered-set aggregates (engine.c's osa_select) */
	CUfunction	fn_osa_start;
	CUfunction	fn_osa_mode;
	CUfunction	fn_osa_hist;
	CUfunction	fn_osa_pick;
	CUfunction	fn_deform;
	CUfunction	fn_dict_seed;
	CUfunction	fn_dict_rehash;
	CUfunction	fn_dim_build;
	CUfunction	fn_dim_chains;
	CUfunction	fn_dim_scan;
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

extern int	engine_ready;
extern EngineGpu engine_gpu[GA_ENGINE_MAX_GPUS];
extern int	engine_ngpus;
extern volatile int engine_broken;

/* the host's shared buffers, mapped for page-form batches */
extern char *engine_pages_host;
extern uint32_t engine_pages_blcksz;
extern uint64_t engine_pages_count;

extern void engine_cu_error_text(CUresult r, char *buf, size_t len);
extern bool engine_cu_error_is_sticky(CUresult r);
extern EngineModule *engine_module_take(EngineGpu *gpu, char *err, size_t errlen);
extern void engine_module_give(EngineModule *m);

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
	uint64_t	fanout;			/* rows of the join a row of the table makes at
								 * most (the device's join: the longest chain
								 * of each inner or left dimension, times) */
	bool		join_keys;		/* ... and do the group keys read its columns, */
	bool		join_set[GA_MAX_DISTINCT];	/* ... or distinct set j's values */
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
	uint32_t	nstringcols;	/* codes a row the deformer makes: a string
								 * column's one, a bpchar column's two */
	uint32_t	page_string_bytes;	/* string bytes a page may add to the
									 * dictionary, in pages: 2 with bpchar
									 * columns (both forms of a value) */
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
	/* a join the device runs: its dimensions (gpuagg_join.h) */
	GaDims		dims;			/* device addresses */
	CUdeviceptr d_dim[GA_MAX_DIMS];	/* dimension d's arrays, one allocation */
	uint64_t	dim_bytes[GA_MAX_DIMS];
	uint64_t	dim_cap[GA_MAX_DIMS];	/* ... rows they have room for */
	CUdeviceptr d_slots[GA_MAX_DIMS];	/* its hash table and dup flag */
	uint64_t	slots_bytes[GA_MAX_DIMS];
	GaProgram  *dimprog[GA_MAX_DIMS];	/* a scanned one's program, */
	CUdeviceptr d_dimprog[GA_MAX_DIMS];	/* ... on the device, */
	uint64_t	dim_sent[GA_MAX_DIMS];	/* ... the rows of its table sent */
	CUdeviceptr d_dimcount;		/* ... and those it kept, a word each */
	CUdeviceptr d_dims;			/* dims, for the kernels */
	uint32_t	dims_ready;		/* dimensions built */
	uint64_t	vram_used;
	uint64_t	need;
	double		kernel_ms;
	double		copy_ms;
	char		errbuf[512];
};

/* engine.c */
extern int	engine_session_fail(GaEngineSession *s, const char *what, CUresult r);
extern int	engine_wait_exec(GaEngineSession *s);
extern int	engine_read_counters(GaEngineSession *s, unsigned long long *out);

/* engine_table.c */
extern int	engine_device_alloc(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes);
extern bool engine_within_budget(const GaEngineSession *s, uint64_t bytes);
extern void engine_device_free(GaEngineSession *s, CUdeviceptr *p, uint64_t bytes);
extern int	engine_table_alloc(GaEngineSession *s, uint64_t cap, uint32_t nk, uint32_t ns,
							   uint32_t count_at, GaTable *t, CUdeviceptr *base,
							   uint64_t *bytes);
extern uint64_t engine_half_load_cap(double need);
extern void engine_shared_table(GaEngineSession *s);
/*
 * New groups (j < 0) or entries of distinct set j a batch of nrows rows of
 * the table can add: one each, or, where the device's join makes several
 * rows of one (s->fanout each at most) and the group keys or the set's
 * value read a joined table's columns, one per row of the join.  (Keys
 * and values of the table's own columns are the same for all of a row's.)
 */
static inline uint64_t
engine_join_rows(const GaEngineSession *s, uint64_t nrows, int j)
{
	if (s->fanout <= 1 || !(s->join_keys || (j >= 0 && s->join_set[j])))
		return nrows;
	return nrows > UINT64_MAX / 4 / s->fanout ? UINT64_MAX / 4 : nrows * s->fanout;
}

extern int	engine_make_room(GaEngineSession *s, uint64_t nrows);
extern int	engine_dict_start(GaEngineSession *s);
extern int	engine_dict_room(GaEngineSession *s, uint32_t nrows, uint32_t npages);

#define CU_CHECK(s, call) \
	do { \
		CUresult	r_ = (call); \
		if (r_ != CUDA_SUCCESS) \
			return engine_session_fail((s), #call, r_); \
	} while (0)

/*
 * The session's GPU's context, current in this thread: a service thread
 * serves one session, but a single-user backend may run sessions on several
 * GPUs in turn.
 */
#define CU_CURRENT(s)	CU_CHECK(s, cu.CtxSetCurrent((s)->gpu->context))

/*---- the grids of a session's kernels (engine.c, engine_table.c) ----*/

/*
 * Blocks for a grid-stride kernel over n items, block of them a block, at
 * most per_sm blocks an SM (and at least one block).
 */
static inline unsigned int
stride_grid(const GaEngineSession *s, uint64_t n, unsigned int block, unsigned int per_sm)
{
	return (unsigned int) EMAX(EMIN((n + block - 1) / block,
									(uint64_t) s->gpu->sm_count * per_sm), 1);
}

/* Blocks for a kernel with a thread per slot of table t (grid-stride). */
static inline unsigned int
table_grid(const GaEngineSession *s, const GaTable *t)
{
	return stride_grid(s, t->cap, GPUAGG_BLOCK, BLOCKS_PER_SM);
}

#endif							/* GPUAGG_ENGINE_INT_H */
