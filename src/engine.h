/*-------------------------------------------------------------------------
 *
 * engine.h
 *		The CUDA engine: everything gpuagg does with the driver API.
 *
 * The engine is plain C over libcuda (opened with dlopen) and never calls a
 * PostgreSQL function: engine.c does not include postgres.h, so the compiler
 * holds it to that.  It runs in the GPU service's CUDA threads (service.c),
 * one thread a query, and in a single-user backend (no service there).
 *
 * A session runs one program.  Host memory for its batches is the caller's
 * (a query's shared memory segment under the service): the engine
 * page-locks it once (cuMemHostRegister) and copies batches from it.  Every
 * call returns GA_OK, a GaError of the program's rows, GA_ERR_DEVICE (what
 * went wrong: ga_engine_error) or GA_NEED_MEMORY: the call needs
 * ga_engine_need() bytes of device memory beyond the session's reservation;
 * it did nothing that cannot be done again, so after the caller has grown
 * the reservation in the ledger (ga_engine_grant) it makes the same call
 * again.  The ledger stays with the caller: the engine only counts.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_ENGINE_H
#define GPUAGG_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "../cuda/gpuagg_abi.h"

#define GA_NEED_MEMORY		1000
#define GA_ENGINE_MAX_GPUS	16	/* GPUs the engine uses, at most */

/* the host region a session's batches are laid out in */
#define GA_ENGINE_SCRATCH	4096	/* counters (and a copy a buffer), then the two buffers */

typedef struct GaEngineDevice
{
	char		name[256];
	uint64_t	total_bytes;
	int			major;
	int			minor;
	int			sms;
	int			driver;			/* cuDriverGetVersion */
} GaEngineDevice;

typedef struct GaEngineArgs
{
	double		groups;			/* planner's estimate */
	uint32_t	batch_rows;
	uint64_t	batch_bytes;	/* bytes of one batch buffer on the device */
	uint64_t	host_batch_bytes;	/* bytes of one on the host: all of it, or
									 * in page form what precedes the columns,
									 * which only the device holds */
	double		vram_budget;	/* bytes the query may use (gpuagg.vram_budget) */
	uint64_t	reserved;		/* bytes already reserved in the ledger */
	int			inject_fault;	/* test: the first kernel reads an illegal
								 * address (a sticky error of the context) */
	uint32_t	max_pages;		/* page form: pages a batch may refer to */
	int			gpu;			/* the GPU to run on, 0 .. ga_engine_gpus() - 1 */
	uint32_t	nseed;			/* page form with string columns: the strings */
	uint32_t	seed_bytes;		/* of the host's dictionary, as dict.h's
								 * GpuaggDictSerialize lays them out */
} GaEngineArgs;

/* What finish learned; the arrays are then fetched part by part. */
typedef struct GaEngineShape
{
	uint64_t	ngroups;		/* returned */
	uint64_t	groups;			/* aggregated (more under a GPU Top-N) */
	uint64_t	npairs[GA_MAX_DISTINCT];
	uint64_t	rows_passed;
	double		device_ms;
	double		transfer_ms;
	uint64_t	nstrings;		/* strings the device coded, from code */
	uint32_t	strings_first;	/* strings_first on, */
	uint64_t	strbytes;		/* and the bytes of its arena */
} GaEngineShape;

/* parts of the result for ga_engine_fetch */
#define GA_PART_KEYS		0
#define GA_PART_KEYNULLS	1
#define GA_PART_STATES		2
#define GA_PART_PAIRGROUP	3	/* + distinct set number * 2 */
#define GA_PART_PAIRVALUE	4
/* page form with string columns: the strings the device coded (GaResult) */
#define GA_PART_STRLEN		(GA_PART_PAIRGROUP + 2 * GA_MAX_DISTINCT)
#define GA_PART_STRAT		(GA_PART_STRLEN + 1)
#define GA_PART_STRBYTES	(GA_PART_STRLEN + 2)
/* an ordered-set aggregate of strings: its pairs' rows (+ distinct set number) */
#define GA_PART_PAIRROWS	(GA_PART_STRLEN + 3)
#define GA_NPARTS			(GA_PART_PAIRROWS + GA_MAX_DISTINCT)

typedef struct GaEngineSession GaEngineSession;

/* process-wide: driver, a context on each GPU, kernels; false with the reason */
extern int	ga_engine_init(const char *fatbin_path, char *err, size_t errlen);
extern int	ga_engine_gpus(void);
extern int	ga_engine_device(int gpu, GaEngineDevice *dev);
extern int	ga_engine_mem_info(int gpu, uint64_t *free_bytes, uint64_t *total_bytes);
/* shared buffers into every GPU's address space, for page-form batches */
extern int	ga_engine_register_pages(void *host, uint64_t bytes, uint32_t blcksz,
									 char *err, size_t errlen);
/* a sticky CUDA error was seen: the context is unusable */
extern int	ga_engine_broken(void);

/*
 * host: page-aligned memory of host_bytes, laid out as GA_ENGINE_SCRATCH
 * bytes then buffer 0 then buffer 1 (each args->host_batch_bytes,
 * page-aligned).  seed: args->seed_bytes of the host's strings (copied).
 * cancel, if not NULL, is polled while waiting: non-zero stops the call.
 */
extern GaEngineSession *ga_engine_open(const GaProgram *prog, const GaEngineArgs *args,
									   const void *seed, void *host, uint64_t host_bytes,
									   volatile uint32_t *cancel,
									   char *err, size_t errlen);
extern int	ga_engine_start(GaEngineSession *s);
extern char *ga_engine_buffer(GaEngineSession *s, int b);
extern int	ga_engine_wait_buffer(GaEngineSession *s, int b);
extern int	ga_engine_add_batch(GaEngineSession *s, int b, const GaBatch *batch);
extern int	ga_engine_finish(GaEngineSession *s, GaEngineShape *shape);
extern int	ga_engine_fetch(GaEngineSession *s, int part, uint64_t offset,
							uint64_t bytes, void *dst);
extern uint64_t ga_engine_need(GaEngineSession *s);
extern void ga_engine_grant(GaEngineSession *s, uint64_t bytes);
extern const char *ga_engine_error(GaEngineSession *s);
extern void ga_engine_close(GaEngineSession *s);

#endif							/* GPUAGG_ENGINE_H */
