/*-------------------------------------------------------------------------
 *
 * cuda_process.h
 *		The process that runs CUDA (cuda_process.c) and its messages with
 *		the GPU service (service.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_CUDA_PROCESS_H
#define GPUAGG_CUDA_PROCESS_H

#include "engine.h"

/* Messages over the service's socket pair (SOCK_SEQPACKET: one a packet). */
typedef enum CpKind
{
	/* service to CUDA process */
	CP_SESSION = 1,				/* handle: a query's segment to serve */
	CP_MAP_PAGES,				/* map shared buffers for page-form batches */
	/* CUDA process to service */
	CP_READY,					/* ngpus, device[]: CUDA is up */
	CP_NO_GPU,					/* text: why there is no usable GPU */
	CP_PAGES,					/* count 1: shared buffers mapped in ms; 0:
								 * not (text) */
	CP_FREE,					/* ngpus, free_bytes[]: each GPU's free memory */
	CP_SESSIONS,				/* count: queries being served */
	CP_LOG						/* text: a line for the server log */
} CpKind;

typedef struct CpMsg
{
	int			kind;
	uint32		handle;
	int			ngpus;
	int			count;
	double		ms;
	GaEngineDevice device[GA_ENGINE_MAX_GPUS];
	uint64		free_bytes[GA_ENGINE_MAX_GPUS];
	char		text[256];
} CpMsg;

/* What the CUDA process is started with (copied by fork). */
typedef struct CudaProcessArgs
{
	uint32		generation;		/* the calls it serves carry this one */
	int			service_pid;	/* its parent */
	const char *fatbin;			/* the kernels; NULL: none installed */
	const char *no_gpu;			/* set: there is no GPU, and why */
	bool		map_pages;		/* map shared buffers at start */
	void	   *pages;			/* shared buffers: address, bytes, page size */
	uint64		pages_bytes;
	uint32		blcksz;
	int			dsm_type;		/* dynamic_shared_memory_type */
} CudaProcessArgs;

/*
 * The CUDA process's life, in the child of a fork() of the service: it
 * never returns (it ends by _exit).  sock: its end of the socket pair.
 */
extern void GpuaggCudaProcessMain(int sock, const CudaProcessArgs *args) pg_attribute_noreturn();

#endif							/* GPUAGG_CUDA_PROCESS_H */
