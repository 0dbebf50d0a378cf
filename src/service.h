/*-------------------------------------------------------------------------
 *
 * service.h
 *		The GPU service (service.c): a background worker that owns the GPU.
 *
 *-------------------------------------------------------------------------
 */
#ifndef GPUAGG_SERVICE_H
#define GPUAGG_SERVICE_H

extern Size GpuaggServiceShmemSize(void);
extern void GpuaggServiceShmemInit(void);
extern void GpuaggServiceRegister(void);

extern PGDLLEXPORT void gpuagg_service_main(Datum arg);

#endif							/* GPUAGG_SERVICE_H */
