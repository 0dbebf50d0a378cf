/*-------------------------------------------------------------------------
 *
 * service.h
 *		The GPU service (service.c): a background worker that supervises
 *		the process that runs CUDA.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_SERVICE_H
#define GPUAGG_SERVICE_H

#include "call.h"

extern Size GpuaggServiceShmemSize(void);
extern void GpuaggServiceShmemInit(void);
extern void GpuaggServiceRegister(void);

extern PGDLLEXPORT void gpuagg_service_main(Datum arg);

/* Why the service cannot take a query now, or NULL when it can. */
extern const char *GpuaggServiceUnusable(void);

/* Are shared buffers mapped for the GPUs (page-form batches)? */
extern bool GpuaggServicePagesMapped(void);

/*
 * Has the service, or its CUDA process, that a query was queued for
 * (call->generation) gone?
 */
extern bool GpuaggServiceGone(uint32 generation);

/*
 * Queue a query's segment (its handle) for the CUDA process, and write the
 * generation it is queued for in its call block; false when the queue is
 * full or the service stopped.
 */
extern bool GpuaggServiceEnqueue(uint32 handle, ServiceCall *call);

#endif							/* GPUAGG_SERVICE_H */
