/*-------------------------------------------------------------------------
 *
 * device.h
 *		The interface every gpuagg device implements.
 *
 * A device runs one program over many batches and returns the groups with
 * their transition states (cuda/gpuagg_abi.h).  The shape is:
 *
 *		open(program, estimates) -> session
 *		add_batch(session, batch)		many times
 *		finish(session, result)			once
 *		close(session)					always, also after ERROR
 *
 * A device never calls back into the executor or the planner and reports
 * run-time errors (overflow, division by zero) as a GaError code, which the
 * caller turns into PostgreSQL's ereport.  All host memory a device takes
 * comes from the memory context given to open, so an aborted query frees it;
 * resources outside that context (device memory, pinned buffers) are freed
 * by close, which the executor calls from a reset callback on that context.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_DEVICE_H
#define GPUAGG_DEVICE_H

#include "../cuda/gpuagg_abi.h"

typedef struct GpuaggEstimate
{
	double		rows;			/* rows the scan will read */
	double		groups;			/* estimated number of groups */
	int			batch_rows;		/* rows per batch */
} GpuaggEstimate;

/* What a device measured, shown by EXPLAIN ANALYZE. */
typedef struct GpuaggDeviceStats
{
	uint64		rows_in;		/* rows sent to the device */
	uint64		rows_passed;	/* rows that passed WHERE */
	uint64		bytes_in;		/* bytes of batch data sent */
	double		device_ms;		/* time spent in the device */
} GpuaggDeviceStats;

typedef struct GpuaggDevice
{
	const char *name;
	void	   *(*open) (const GaProgram *prog, const GpuaggEstimate *est,
						 MemoryContext cxt);
	/* each returns GA_OK or a GaError */
	int			(*add_batch) (void *session, const GaBatch *batch,
							  GpuaggDeviceStats *stats);
	int			(*finish) (void *session, GaResult *result);
	void		(*close) (void *session);
} GpuaggDevice;

extern const GpuaggDevice GpuaggCpuDevice;

#endif							/* GPUAGG_DEVICE_H */
