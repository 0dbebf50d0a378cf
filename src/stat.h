/*-------------------------------------------------------------------------
 *
 * stat.h
 *		Server-wide statistics of gpuagg (gpuagg.stat).
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_STAT_H
#define GPUAGG_STAT_H

typedef enum GpuaggStatCounter
{
	GSTAT_QUERIES_CUDA,			/* offloaded queries the GPU answered */
	GSTAT_QUERIES_CPU,			/* ... the CPU device answered */
	GSTAT_FALLBACKS_DEVICE,		/* moved to the CPU device: the GPU failed */
	GSTAT_FALLBACKS_ADMISSION,	/* moved to the CPU device: no GPU memory */
	GSTAT_FALLBACKS_SERVICE,	/* moved to the CPU device: no GPU service */
	GSTAT_EXACT_RUNS,			/* numeric values the device could not hold:
								 * PostgreSQL's own plan ran (the exact path) */
	GSTAT_COLUMN_RERUNS,		/* page-form scans read again in column form
								 * (a compressed or TOASTed string) */
	GSTAT_ROWS_IN,				/* rows scanned into batches */
	GSTAT_BYTES_TO_DEVICE,		/* bytes of batch data */
	GSTAT_ADMISSION_US,			/* microseconds queued for GPU memory */
	GSTAT_SCAN_US,				/* microseconds building batches */
	GSTAT_TRANSFER_US,			/* microseconds of copies to the GPU */
	GSTAT_DEVICE_US,			/* microseconds of device work */
	GSTAT_NCOUNTERS
} GpuaggStatCounter;

extern Size GpuaggStatShmemSize(void);
extern void GpuaggStatShmemInit(void);

/* Add to a counter (nothing without shared memory). */
extern void GpuaggStatAdd(GpuaggStatCounter which, uint64 amount);

#endif							/* GPUAGG_STAT_H */
